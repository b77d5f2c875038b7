"""The in-memory BFS engine: frontier by frontier from a puzzle's goal set, the whole rank
space in memory.

It knows a puzzle only through the Puzzle interface, and its store only through the store's
sink (sinks.py).  An ungraded puzzle is searched on two bits per state of its rank space
(twobit.py), expanded by the puzzle's layer expansion if it has one (sliding puzzles: whole
planes at a time) and otherwise state by state through its neighbours kernel; a graded
puzzle (every layer its own level) on one bitset per level for the current and the next
layer (bitset.py); searches.py holds both.  What it builds is its search plan's (select.py:
the store, the depth limit, the memory it holds, checked against the budget when the plan
was made), trusted as it is.  Each finished layer goes to the sink of the plan's store,
which writes it (layers) or counts and samples it (counts) while the kernels expand it into
the next one; a rerun resumes from what the sink kept (the last good layer on disk, or the
last checkpoint).
"""

import sys
import time
from dataclasses import dataclass

from tqdm import tqdm

from puzzledb.bfs.modes import IN_MEMORY
from puzzledb.compiled import cache_directory, prepare, set_threads


@dataclass
class BuildReport:
    puzzle: str
    max_depth: int
    total: int  # positions (a search by classes stores fewer keys)
    resumed_from: int  # deepest layer found on disk (or in a checkpoint) and kept, -1 if none
    seconds: float  # BFS time: expanding, extracting and writing layers
    compile_seconds: float  # loading (or compiling) the kernels, before the search
    memory_bytes: int
    store: str  # the kind of store filled (its name)
    checkpoints: int = 0  # checkpoints written
    checkpoint_seconds: float = 0.0  # their writing, in the writer's thread (overlapped)


class Progress:
    """A tqdm bar on a terminal, else (a log file) one `log` line per finished layer."""

    def __init__(self, puzzle, shown, log):
        self.puzzle, self.shown, self.log = puzzle, shown, log
        self.bar = None

    def begin(self, done):
        """The search starts (after loading and resuming), `done` states already found."""
        self.started = time.perf_counter()
        self.done = self.first = done
        self.bar = tqdm(
            total=self.puzzle.size if not self.puzzle.graded else None, initial=done,
            unit=" states", unit_scale=True, desc=self.puzzle.name, dynamic_ncols=True,
            disable=not (self.shown and sys.stderr.isatty()))

    def finished(self, depth, count, positions=None):
        """Layer `depth` of `count` states is final (of `count` classes of `positions`
        positions, when its keys stand for classes: the bar and the log count positions)."""
        found = count if positions is None else positions
        self.done += found
        self.bar.update(found)
        self.bar.set_postfix(depth=depth, layer=f"{found:,}")
        if self.shown and self.bar.disable:
            elapsed = time.perf_counter() - self.started
            rate = (self.done - self.first) / elapsed if elapsed > 0 else 0
            size, left = self.puzzle.size, ""
            if not self.puzzle.graded and rate > 0 and 100 * self.done >= size > self.done:
                left = f", about {(size - self.done) / rate:,.0f} s left"
            layer = (f"{count:,} states" if positions is None else
                     f"{positions:,} positions in {count:,} classes")
            self.log(f"{self.puzzle.name}: depth {depth}: {layer}, {self.done:,} in "
                     f"all, {elapsed:.2f} s, {rate / 1e6:,.1f} M states/s{left}")

    def close(self):
        if self.bar is not None:
            self.bar.close()


def load_kernels(puzzle, search, queries, log, threads=None, progress=True):
    """Load, or compile, what a search and its store's queries declare they call, before
    the search's clock starts, saying so (a first use of a family compiles for a while).
    The queries' kernels are only compiled where the cache lacks them: a query loads its
    own."""
    log(f"{puzzle.name}: loading the kernels of its search and queries (compiled at their "
        f"first use, into {cache_directory()})")
    began = time.perf_counter()
    kernels, compiled = prepare(search, queries, cores=threads, progress=progress)
    log(f"{puzzle.name}: {kernels} kernels ready in {time.perf_counter() - began:.2f} s "
        f"({compiled} compiled)")


def declared(sink, search):
    """(the calls a search and the writing of its layers make, those of its store's
    queries): each a list of (kernel, arguments) pairs."""
    return search.kernels() + sink.write_kernels(), sink.query_kernels()


def kernels(puzzle, plan, directory):
    """What a build of `puzzle` as `plan` says would call, as `declared` gives them, from a
    stand-in of its search that holds nothing (`puzzledb compile`); `directory` is not
    written."""
    puzzle = plan.searched(puzzle)
    sink = plan.store.sink_class()(puzzle, directory, plan, lambda *found: None, print)
    return declared(sink, sink.new_search(allocate=False))


def build(puzzle, directory, plan, *, threads=None, progress=True, log=print):
    """Build (or finish) the depth database of `puzzle` in `directory` as `plan` (a
    select.SearchPlan of the in-memory mode) says; a BuildReport.

    The plan's store (a query.kinds.StoreKind) says what the database keeps, and so the sink
    each layer goes to; its depth_limit stops the search after that depth (the manifest
    then records a partial database); its checkpoint_minutes are the time between two
    checkpoints of a store that has them.  progress: a tqdm bar on a terminal, else (a log
    file) one `log` line per layer.  A plan searched up to symmetry searches the puzzle's
    classes (SearchPlan.searched): one key a class, each layer weighed in positions."""
    puzzle = plan.searched(puzzle)
    shown = Progress(puzzle, progress, log)
    sink = plan.store.sink_class()(puzzle, directory, plan, shown.finished, log)
    log(f"{puzzle.name}: in-memory mode, {puzzle.rank_space()}, search needs "
        f"{plan.need_bytes / 2**20:,.1f} MiB{sink.says}")
    set_threads(threads)
    depth_limit = plan.depth_limit
    compiling = time.perf_counter()
    search = sink.new_search()
    load_kernels(puzzle, *declared(sink, search), log, threads, progress)
    compile_seconds = time.perf_counter() - compiling
    started = time.perf_counter()
    try:
        depth = sink.open(search)
        shown.begin(sum(info.count if info.positions is None else info.positions
                        for info in sink.infos))
        while True:
            count = search.expand(depth) if depth_limit is None or depth < depth_limit else 0
            sink.settle()  # the layer before is written (or checkpointed) before it changes
            if count == 0:
                break
            depth += 1
            search.advance()
            sink.keep(depth, count, search)
    finally:
        sink.close()
        shown.close()
    stopped = depth_limit is not None and depth >= depth_limit
    seconds = time.perf_counter() - started
    manifest = sink.finish(search, stopped, mode=IN_MEMORY, bfs_seconds=round(seconds, 3),
                           compile_seconds=round(compile_seconds, 3),
                           depth_limit=depth_limit if stopped else None)
    total = manifest.get("positions", manifest["total"])  # positions, keys of classes or not
    found = f"{total:,} states" if "positions" not in manifest else \
        f"{total:,} positions in {manifest['total']:,} classes"
    log(f"{puzzle.name}: complete, {found} in {depth + 1} layers "
        f"(max depth {depth}), BFS {seconds:.2f} s after {compile_seconds:.2f} s compiling")
    return BuildReport(puzzle.name, depth, total, sink.resumed_from, seconds,
                       compile_seconds, plan.need_bytes, plan.store.name, sink.checkpoints,
                       sink.checkpoint_seconds)
