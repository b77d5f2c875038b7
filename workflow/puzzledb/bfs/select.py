"""Which search builds a puzzle's layers: the one place a search mode is chosen, for the
command line (`puzzledb build`) and the workflow (which rules build each puzzle) alike.
It loads no compiled code, so the workflow can ask it while it parses the Snakefile.

To add a search mode: a module or folder of its own under bfs/, a constant below, a line
in `choose` saying when it is taken, and a branch in `build` (docs/architecture.md, "How
to add a search mode")."""

from dataclasses import dataclass

from puzzledb.bfs.memory import SPARSE_SEGMENTS, search_mib
from puzzledb.errors import BudgetError, PuzzleError
from puzzledb.store import LAYERS

IN_MEMORY = "in-memory"  # two bits per state of the whole rank space (in_memory.py)
FRONTIER = "frontier"  # sorted layers in segments, a chain of bounded jobs (frontier/)


@dataclass(frozen=True)
class SearchPlan:
    """How one puzzle's layers are built."""

    mode: str  # IN_MEMORY or FRONTIER
    depth_limit: int | None  # stop after this depth (a partial database)
    segments: int | None  # FRONTIER: the rank space (of each level) cut into this many
    need_mib: float  # what the in-memory search would hold, MiB
    store: str = LAYERS  # what is kept: every layer (LAYERS), counts (COUNTS), distances


def choose(puzzle, memory_mb, shards=None, depth_limit=None, store=LAYERS):
    """The search of `puzzle` under a memory budget (MiB): the frontier search when it is
    sharded, or when a depth limit is given and the in-memory search would exceed the
    budget; else the in-memory search.  PuzzleError when the frontier search is chosen for a
    puzzle it cannot search (moves that cannot be undone, and not graded), and for a store
    other than LAYERS (COUNTS, DISTANCES: the in-memory search only, of an ungraded
    puzzle)."""
    if not puzzle.ranks_fit:
        raise PuzzleError(f"{puzzle.name}: {puzzle.rank_space()}, too many to rank in 64 "
                          f"bits: no depth database; its positions are solved by tree search "
                          f"with its additive pattern databases (snakemake pdbs)")
    need = search_mib(puzzle, store)
    if store != LAYERS:  # counts, distances: what the in-memory two-bit search keeps
        if shards:
            raise PuzzleError(f"{puzzle.name}: store: {store} is the in-memory search's; "
                              f"sharded builds keep layers")
        if puzzle.graded:
            raise PuzzleError(f"{puzzle.name}: store: {store} is for ungraded puzzles (a "
                              f"graded search holds two levels, not the space)")
        return SearchPlan(IN_MEMORY, depth_limit, None, need, store)
    if shards:
        segments = int(shards)
    elif depth_limit is not None and need > memory_mb:
        segments = SPARSE_SEGMENTS
    else:
        return SearchPlan(IN_MEMORY, depth_limit, None, need)
    if not (puzzle.reversible or puzzle.graded):
        raise PuzzleError(f"{puzzle.name}: the frontier search needs moves that can be "
                          f"undone, or a graded puzzle")
    return SearchPlan(FRONTIER, depth_limit, segments, need)


def check_fits(puzzle, plan, memory_mb):
    """BudgetError when the plan is the in-memory search and it needs more than memory_mb,
    saying what would build the puzzle instead."""
    if plan.mode == IN_MEMORY and memory_mb is not None and plan.need_mib > memory_mb:
        raise BudgetError(
            f"{puzzle.name} needs {plan.need_mib:,.0f} MiB for its in-memory search, more "
            f"than memory_mb: {memory_mb}; "
            + (f"raise memory_mb (store: {plan.store} keeps the in-memory search)"
               if plan.store != LAYERS else
               "give it a depth_limit (a partial database, built sparse) or shards, or "
               "raise memory_mb"))


def build(puzzle, directory, work, plan, *, threads=None, memory_mb=None, job_states,
          checkpoint_minutes=None, progress=True, log=print):
    """Build (or resume) the layers of `puzzle` in `directory` as `plan` says, in this
    process (work: the frontier search's work directory); (total states, deepest depth)."""
    if plan.mode == FRONTIER:
        from puzzledb.bfs.frontier.search import Frontier
        from puzzledb.compiled import set_threads

        set_threads(threads)
        log(f"{puzzle.name}: frontier search, {plan.segments} segments")
        manifest = Frontier(puzzle, directory, work, plan.segments, job_states,
                            plan.depth_limit).build(log=log)
        return manifest["total"], manifest["max_depth"]
    from puzzledb.bfs import in_memory

    more = {} if checkpoint_minutes is None else dict(checkpoint_minutes=checkpoint_minutes)
    report = in_memory.build(puzzle, directory, threads=threads, memory_mb=memory_mb,
                             progress=progress, log=log, depth_limit=plan.depth_limit,
                             store=plan.store, **more)
    return report.total, report.max_depth
