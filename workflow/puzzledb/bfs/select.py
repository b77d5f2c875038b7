"""Which search builds a puzzle's layers: the one place a search mode is chosen, for the
command line (`puzzledb build`) and the workflow (which rules build each puzzle) alike, and
the in-process run of the choice.  The modes, the stores they keep and what each asks of a
puzzle are the table in modes.py, below the engines; this module sits above them.  It loads
no compiled code (an engine is imported when it runs), so the workflow can ask it while it
parses the Snakefile.

To add a search mode: a module or folder of its own under bfs/, a line in modes.MODES, a
line in `choose` saying when it is taken and one in RUNS (docs/architecture.md, "How to add
a search mode")."""

from dataclasses import dataclass

from puzzledb.bfs.memory import SPARSE_SEGMENTS, search_mib
from puzzledb.bfs.modes import FRONTIER, IN_MEMORY, MODES, check_store
from puzzledb.errors import BudgetError, ChoiceError
from puzzledb.store import LAYERS

__all__ = ["FRONTIER", "IN_MEMORY", "SearchPlan", "build", "check_fits", "choose",
           "search_mib", "sparse"]

SPARSE_RATIO = 32  # ranks a reachable state past which the frontier search holds less


@dataclass(frozen=True)
class SearchPlan:
    """How one puzzle's layers are built."""

    mode: str  # a key of modes.MODES: IN_MEMORY or FRONTIER
    depth_limit: int | None  # stop after this depth (a partial database)
    segments: int | None  # FRONTIER: the rank space (of each level) cut into this many
    need_mib: float  # what the in-memory search would hold, MiB
    store: str = LAYERS  # what is kept: every layer (LAYERS), counts (COUNTS), distances


def choose(puzzle, memory_mb, shards=None, depth_limit=None, store=LAYERS):
    """The search of `puzzle` under a memory budget (MiB): the frontier search when it is
    sharded, or when the in-memory search would exceed the budget, the frontier search
    keeps `store` and a depth limit is given or the rank space is sparse (a partial
    database, or only the states reached kept); else the in-memory search.  ChoiceError (a
    PuzzleError naming the setting at fault) when the puzzle has no rank space of 64 bits,
    or the mode chosen cannot search it or keep `store` (modes.py)."""
    if not puzzle.ranks_fit:
        raise ChoiceError("puzzles", f"{puzzle.name}: {puzzle.rank_space()}, too many to rank "
                                     f"in 64 bits: no depth database; its positions are "
                                     f"solved by tree search with its additive pattern "
                                     f"databases (snakemake pdbs)")
    need = search_mib(puzzle, store)
    if shards:
        mode, key, segments = FRONTIER, "shards", int(shards)
    elif (need > memory_mb and store in MODES[FRONTIER].keeps()
          and (depth_limit is not None or sparse(puzzle))):
        key = "depth_limit" if depth_limit is not None else "memory_mb"
        mode, segments = FRONTIER, SPARSE_SEGMENTS
    else:
        mode, key, segments = IN_MEMORY, "puzzles", None
    check_store(puzzle, store, mode)
    MODES[mode].check(puzzle, key)
    return SearchPlan(mode, depth_limit, segments, need, store)


def sparse(puzzle):
    """Whether the puzzle's rank space is known to be far larger than what it can reach
    (Puzzle.reachable_bound: more than SPARSE_RATIO ranks a state), so that the frontier
    search, which keeps only the states reached, holds less than two bits per rank."""
    bound = puzzle.reachable_bound()
    return bound is not None and SPARSE_RATIO * bound < puzzle.size


def check_fits(puzzle, plan, memory_mb):
    """BudgetError when the plan is the in-memory search and it needs more than memory_mb,
    saying what would build the puzzle instead."""
    if plan.mode == IN_MEMORY and memory_mb is not None and plan.need_mib > memory_mb:
        raise BudgetError(
            f"{puzzle.name} needs {plan.need_mib:,.0f} MiB for its in-memory search, more "
            f"than memory_mb: {memory_mb}; "
            + ("give it a depth_limit (a partial database, built sparse) or shards, or "
               "raise memory_mb" if plan.store in MODES[FRONTIER].keeps() else
               f"raise memory_mb (store: {plan.store} keeps the in-memory search)"))


def _in_memory(puzzle, directory, work, plan, *, threads, memory_mb, job_states,
               checkpoint_minutes, progress, log):
    from puzzledb.bfs import in_memory

    more = {} if checkpoint_minutes is None else dict(checkpoint_minutes=checkpoint_minutes)
    report = in_memory.build(puzzle, directory, threads=threads, memory_mb=memory_mb,
                             progress=progress, log=log, depth_limit=plan.depth_limit,
                             store=plan.store, **more)
    return report.total, report.max_depth


def _frontier(puzzle, directory, work, plan, *, threads, memory_mb, job_states,
              checkpoint_minutes, progress, log):
    from puzzledb.bfs.frontier.search import Frontier
    from puzzledb.compiled import set_threads

    set_threads(threads)
    log(f"{puzzle.name}: frontier search, {plan.segments} segments")
    manifest = Frontier(puzzle, directory, work, plan.segments, job_states,
                        plan.depth_limit).build(log=log)
    return manifest["total"], manifest["max_depth"]


RUNS = {IN_MEMORY: _in_memory, FRONTIER: _frontier}  # each mode's build in this process


def build(puzzle, directory, work, plan, *, threads=None, memory_mb=None, job_states,
          checkpoint_minutes=None, progress=True, log=print):
    """Build (or resume) the layers of `puzzle` in `directory` as `plan` says, in this
    process (work: the frontier search's work directory); (total states, deepest depth)."""
    return RUNS[plan.mode](puzzle, directory, work, plan, threads=threads,
                           memory_mb=memory_mb, job_states=job_states,
                           checkpoint_minutes=checkpoint_minutes, progress=progress, log=log)
