"""Which search builds a puzzle's layers: the one place a search mode is chosen and the
memory budget checked, for the command line (`puzzledb build`) and the workflow (which rules
build each puzzle) alike, and the in-process run of the choice.  The modes and what each
asks of a puzzle are the table in modes.py, below the engines; this module sits above them.
It loads no compiled code (an engine is imported when it runs), so the workflow can ask it
while it parses the Snakefile.

To add a search mode: a module or folder of its own under bfs/, a line in modes.MODES, a
line in `choose` saying when it is taken and one in RUNS (docs/architecture.md, "How to add
a search mode")."""

from typing import NamedTuple

from puzzledb.bfs.memory import SPARSE_SEGMENTS
from puzzledb.bfs.modes import FRONTIER, IN_MEMORY, MODES
from puzzledb.errors import BudgetError, ChoiceError

__all__ = ["FRONTIER", "IN_MEMORY", "SYMMETRY", "SearchPlan", "build", "choose",
           "compile_ahead", "kernels", "sparse"]

# how a search treats the puzzle's symmetry group (config `symmetry`, `build --symmetry`):
# as the group says (classes unless they were measured to lose), every position, classes
SYMMETRY = ("default", "none", "classes")
SPARSE_RATIO = 32  # ranks a reachable state past which the frontier search holds less


class SearchPlan(NamedTuple):
    """How one puzzle's layers are built, decided once (choose) and handed as it is to the
    job that builds them (the bfs rule's params, the frontier rules', `puzzledb build`):
    nothing downstream decides or checks again.  A new dimension of a search is a field."""

    mode: str  # a key of modes.MODES: IN_MEMORY or FRONTIER
    store: object  # what the database keeps: a query.kinds.StoreKind
    depth_limit: int | None  # stop after this depth (a partial database)
    segments: int | None  # FRONTIER: the rank space (of each level) cut into this many
    need_bytes: int  # what the in-memory search holds (bfs/memory.py, and the store's)
    checkpoint_minutes: float | None = None  # between two checkpoints of a search that
    #                                          has them (0: every layer; None: none)
    job_states: int | None = None  # FRONTIER: the states one job expands (the fan-out)
    symmetric: bool = False  # searched up to the puzzle's symmetry group, one key a class
    #                          (puzzles/symmetric.py)

    def __repr__(self):
        # what Snakemake compares to rerun a finished build (a param of its rules): what
        # the database is and how it is searched, not what a job holds, how often it saves
        # itself or how its layers are shared out among jobs
        return (f"SearchPlan({self.mode!r}, {self.store!r}, depth_limit={self.depth_limit!r}, "
                f"segments={self.segments!r}" + (", symmetric" if self.symmetric else "") + ")")

    def searched(self, puzzle):
        """The puzzle as this plan searches it: its class puzzle when symmetric."""
        if not self.symmetric:
            return puzzle
        from puzzledb.puzzles.symmetric import Classes

        return Classes(puzzle, puzzle.symmetry_group())


def choose(puzzle, store, memory_mb=None, *, shards=None, depth_limit=None,
           checkpoint_minutes=None, job_states=None, symmetry="default"):
    """The SearchPlan of `puzzle` keeping `store` (a query.kinds.StoreKind) under a memory
    budget of memory_mb MiB (None: none): the frontier search when it is sharded, or when
    the in-memory search would exceed the budget, the frontier search can keep `store` and
    a depth limit is given or the rank space is sparse (a partial database, or only the
    states reached kept); else the in-memory search.  ChoiceError (a PuzzleError naming the
    setting at fault) when the puzzle has no rank space of 64 bits, or the mode chosen
    cannot search it or keep `store`; BudgetError when the in-memory search is chosen and
    needs more than the budget.  The frontier search goes up to the puzzle's symmetries
    (Capabilities.symmetry_group) when `symmetry` (SYMMETRY) is "classes", or "default"
    and the group does not say classes lose (SymmetryGroup.not_by_default); the in-memory
    search too where the group says it pays there (SymmetryGroup.in_memory) and the store
    keeps layers.  "classes" for a puzzle without an exact group is a ChoiceError."""
    if symmetry not in SYMMETRY:
        raise ChoiceError("symmetry", f"{puzzle.name}: {symmetry!r}: one of "
                                      f"{', '.join(SYMMETRY)}")
    if not puzzle.ranks_fit:
        raise ChoiceError("puzzles", f"{puzzle.name}: {puzzle.rank_space()}, too many to rank "
                                     f"in 64 bits: no depth database; its positions are "
                                     f"solved by tree search with its additive pattern "
                                     f"databases (snakemake pdbs)")
    need = store.search_bytes(puzzle)
    over = memory_mb is not None and need > memory_mb * 2**20
    if shards:
        mode, key, segments = FRONTIER, "shards", int(shards)
    elif over and not store.whole_space and (depth_limit is not None or sparse(puzzle)):
        key = "depth_limit" if depth_limit is not None else "memory_mb"
        mode, segments = FRONTIER, SPARSE_SEGMENTS
    else:
        mode, key, segments = IN_MEMORY, "puzzles", None
    store.check(puzzle, MODES[mode])
    MODES[mode].check(puzzle, key)
    if mode == IN_MEMORY and over:
        raise BudgetError(
            f"{puzzle.name} needs {need / 2**20:,.0f} MiB for its in-memory search, more "
            f"than memory_mb: {memory_mb}; "
            + (f"raise memory_mb (store: {store.name} keeps the in-memory search)"
               if store.whole_space else "give it a depth_limit (a partial database, "
               "built sparse) or shards, or raise memory_mb"))
    symmetric = _by_classes(puzzle, mode, store, symmetry)
    return SearchPlan(mode, store, depth_limit, segments, need, checkpoint_minutes,
                      job_states, symmetric)


def _by_classes(puzzle, mode, store, symmetry):
    """Whether the search goes by classes (choose's docstring says when)."""
    if symmetry == "none":
        return False
    # the group is found only where it may be used: the frontier search, or an in-memory
    # one whose store keeps layers
    group = puzzle.symmetry_group() if mode == FRONTIER or store.layers else None
    usable = group is not None and (mode == FRONTIER or group.in_memory)
    if symmetry == "default":
        return usable and group.not_by_default is None
    if group is None and (mode == FRONTIER or store.layers):
        raise ChoiceError("symmetry", f"{puzzle.name} has no exact symmetry group to search "
                                      f"by classes (`puzzledb info {puzzle.name}` says why)")
    if not usable:
        raise ChoiceError("symmetry", f"{puzzle.name}: classes are searched by the frontier "
                                      f"search: give it shards or a depth_limit")
    return True


def sparse(puzzle):
    """Whether the puzzle's rank space is known to be far larger than what it can reach
    (Puzzle.reachable_bound: more than SPARSE_RATIO ranks a state), so that the frontier
    search, which keeps only the states reached, holds less than two bits per rank."""
    bound = puzzle.reachable_bound()
    return bound is not None and SPARSE_RATIO * bound < puzzle.size


def _in_memory(puzzle, directory, work, plan, *, threads, progress, log):
    from puzzledb.bfs import in_memory

    report = in_memory.build(puzzle, directory, plan, threads=threads, progress=progress,
                             log=log)
    return report.total, report.max_depth


def _frontier(puzzle, directory, work, plan, *, threads, progress, log):
    from puzzledb.bfs.frontier.search import Frontier
    from puzzledb.compiled import set_threads

    set_threads(threads)
    log(f"{puzzle.name}: frontier search, {plan.segments} segments")
    manifest = Frontier(plan.searched(puzzle), directory, work, plan.segments,
                        plan.job_states, plan.depth_limit).build(log=log)
    return manifest.get("positions", manifest["total"]), manifest["max_depth"]


RUNS = {IN_MEMORY: _in_memory, FRONTIER: _frontier}  # each mode's build in this process


def _in_memory_kernels(puzzle, directory, plan, mem_mb):
    from puzzledb.bfs import in_memory

    search, queries = in_memory.kernels(puzzle, plan, directory)
    return search + queries


def _frontier_kernels(puzzle, directory, plan, mem_mb):
    from puzzledb.bfs.frontier.search import Frontier

    search = Frontier(plan.searched(puzzle), directory, f"{directory}/work", plan.segments,
                      plan.job_states, plan.depth_limit)
    return (search.within(mem_mb) if mem_mb else search).kernels()


KERNELS = {IN_MEMORY: _in_memory_kernels, FRONTIER: _frontier_kernels}  # what each declares


def kernels(puzzle, plan, directory, mem_mb=None):
    """What the build of `puzzle` as `plan` says (its jobs, mem_mb each, in the frontier
    search) will call, as (kernel, arguments) pairs, declared without searching or holding
    the search's memory (`puzzledb compile`); nothing is written in `directory`."""
    return KERNELS[plan.mode](puzzle, directory, plan, mem_mb)


def compile_ahead(plans, mem_mb=None, cores=None, progress=True):
    """Compile into the kernel cache what the builds of `plans` (pairs (puzzle, SearchPlan))
    and their stores' queries will load, side by side in processes (compiled.compiling);
    a line saying how many kernels, compiled in how long, and the cache's size."""
    import time
    from tempfile import TemporaryDirectory

    from puzzledb.compiled import cache_directory, caching, compiling

    began = time.perf_counter()
    with TemporaryDirectory() as scratch:
        pairs = compiling.signatures(call for puzzle, plan in plans
                                     for call in kernels(puzzle, plan, scratch, mem_mb))
    compiled = compiling.compile_missing(pairs, cores, progress, f"{len(plans)} puzzles")
    return (f"{len(pairs)} kernels of {len(plans)} puzzles ready, {compiled} compiled in "
            f"{time.perf_counter() - began:.1f} s ({compiling.processes(cores)} processes); "
            f"kernel cache {caching.size(cache_directory()) / 2**20:.1f} MiB in "
            f"{cache_directory()}")


def build(puzzle, directory, work, plan, *, threads=None, progress=True, log=print):
    """Build (or resume) the layers of `puzzle` in `directory` as `plan` says, in this
    process (work: the frontier search's work directory); (total states, deepest depth)."""
    return RUNS[plan.mode](puzzle, directory, work, plan, threads=threads,
                           progress=progress, log=log)
