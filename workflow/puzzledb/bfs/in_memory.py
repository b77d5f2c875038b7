"""The BFS engine: frontier by frontier from a puzzle's goal set, one layer file per depth.

It knows a puzzle only through the Puzzle interface.  An ungraded puzzle is searched on two
bits per state of its rank space (twobit.py), expanded by the puzzle's layer expansion if it
has one (sliding puzzles: whole planes at a time) and otherwise state by state through its
neighbours kernel; a graded puzzle (every layer its own level) on one bitset per level for
the current and the next layer (bitset.py).  Memory is fixed before the search starts
(memory.py).  Every finished layer is written at once, by a thread of its own while the
kernels expand it into the next one; a rerun resumes after the last good one.
"""

import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

from puzzledb.bfs import bitset, twobit
from puzzledb.compiled import set_threads
from puzzledb.bfs.memory import check_budget, search_bytes
from puzzledb.bfs.select import IN_MEMORY
from puzzledb.store.layers import LayerStore


@dataclass
class BuildReport:
    puzzle: str
    max_depth: int
    total: int
    resumed_from: int  # deepest layer found on disk and kept, -1 if none
    seconds: float  # BFS time: expanding, extracting and writing layers
    compile_seconds: float  # loading (or compiling) the kernels, before the search
    memory_bytes: int


class TwoBitSearch:
    """An ungraded puzzle's search: every state UNSEEN, OLD, CUR or NEXT (twobit.py)."""

    def __init__(self, puzzle):
        self.state = twobit.StateArray(puzzle.size)
        self.expansion = puzzle.layer_expansion() or twobit.NeighboursExpansion(puzzle)

    def warm_up(self):
        twobit.warm_up()
        self.expansion.expand(self.state, 0)  # no state is CUR yet: loads, expands nothing

    def start(self, goals):
        self.state.mark_current(goals)

    def reload(self, store, last):
        """Resume after layer `last` on disk: layers 0..last-1 OLD, layer last CUR."""
        for depth in range(last + 1):
            mark = self.state.mark_current if depth == last else self.state.mark_old
            with store.open_layer(depth) as layer:
                for block in layer.iter_chunks():
                    mark(block)

    def expand(self, depth):
        """Layer depth + 1 from layer depth: its number of states."""
        return self.expansion.expand(self.state, depth)

    def layer(self):
        """The ranks of the layer just expanded, ascending (arrays to use one by one)."""
        return self.state.next_layer()


class GradedSearch:
    """A graded puzzle's search: layer d + 1 is level d + 1, so no state is seen twice and
    two bitsets (this level, the next) hold the search."""

    def __init__(self, puzzle):
        self.puzzle = puzzle
        self.tables = puzzle.tables()
        self.max_moves = max(puzzle.max_moves, 1)
        self.work_size = max(puzzle.work_size, 1)
        self.current = None
        self.following = None

    def warm_up(self):
        bitset.warm_up()
        empty = bitset.new_bitset(1)
        self._step(empty, empty, 0)  # compiles or loads, expands nothing

    def _step(self, current, following, depth):
        bitset.expand(current, following, np.int64(depth), self.tables, self.max_moves,
                      self.work_size)

    def start(self, goals):
        self.current = bitset.new_bitset(self.puzzle.level_size(0))
        bitset.set_ranks(self.current, goals, 0)

    def reload(self, store, last):
        """Resume after layer `last` on disk: only it is needed."""
        self.current = bitset.new_bitset(self.puzzle.level_size(last))
        with store.open_layer(last) as layer:
            for block in layer.iter_chunks():
                bitset.set_ranks(self.current, block, 0)

    def expand(self, depth):
        size = self.puzzle.level_size(depth + 1)
        if size == 0:
            return 0
        if self.following is None or self.following.size != bitset.words_for(size):
            self.following = bitset.new_bitset(size)
        else:
            self.following[:] = 0
        self._step(self.current, self.following, depth)
        return int(bitset.count(self.following))

    def layer(self):
        self.current, self.following = self.following, self.current
        return bitset.iter_ranks(self.current)


def build(puzzle, directory, threads=None, memory_mb=None, progress=True, log=print,
          depth_limit=None):
    """Build (or finish) the depth database of `puzzle` in `directory`; a BuildReport.

    progress: a tqdm bar on a terminal, else (a log file) one `log` line per layer.
    depth_limit: stop after this depth (the manifest then records a partial database)."""
    need = check_budget(puzzle, memory_mb)
    log(f"{puzzle.name}: in-memory mode, {puzzle.rank_space()}, search needs {need:,.1f} MiB")
    set_threads(threads)
    store = LayerStore(directory, puzzle)
    infos = store.good_layers()
    store.prune(len(infos))
    resumed_from = len(infos) - 1

    compiling = time.perf_counter()
    search = GradedSearch(puzzle) if puzzle.graded else TwoBitSearch(puzzle)
    search.warm_up()
    compile_seconds = time.perf_counter() - compiling
    started = time.perf_counter()

    if infos:
        log(f"{puzzle.name}: resuming after layer {resumed_from} found on disk")
        search.reload(store, resumed_from)
    else:
        goals = np.unique(puzzle.goal_ranks().astype(np.uint64))
        search.start(goals)
        infos.append(store.write_layer(0, [goals], goals.size))
    depth = infos[-1].depth
    done = sum(i.count for i in infos)
    bar = tqdm(
        total=puzzle.size if not puzzle.graded else None, initial=done,
        unit=" states", unit_scale=True, disable=not (progress and sys.stderr.isatty()),
        desc=puzzle.name, dynamic_ncols=True,
    )
    # Layer d is written by a thread of its own while the kernels expand it (they only read
    # its states, the writer only reads them): the two phases fill each other's idle core.
    # The writing is awaited before the states are relabelled for the next depth.
    writer = ThreadPoolExecutor(1)
    writing = None  # (depth, count, the write's future)
    try:
        while True:
            count = search.expand(depth) if depth_limit is None or depth < depth_limit else 0
            if writing is not None:
                written, n, job = writing
                writing = None
                infos.append(job.result())
                done += n
                bar.update(n)
                bar.set_postfix(depth=written, layer=f"{n:,}")
                if progress and bar.disable:
                    elapsed = time.perf_counter() - started
                    log(f"{puzzle.name}: depth {written}: {n:,} states, {done:,} in all, "
                        f"{elapsed:.2f} s")
            if count == 0:
                break
            depth += 1
            writing = (depth, count, writer.submit(store.write_layer, depth, search.layer(),
                                                   count))
    finally:
        writer.shutdown(wait=True)  # a layer being written is finished, never cut short
        bar.close()
    seconds = time.perf_counter() - started
    stopped = depth_limit is not None and depth >= depth_limit
    manifest = store.write_manifest(infos, mode=IN_MEMORY, bfs_seconds=round(seconds, 3),
                                    depth_limit=depth_limit if stopped else None)
    log(
        f"{puzzle.name}: complete, {manifest['total']:,} states in {depth + 1} layers "
        f"(max depth {depth}), BFS {seconds:.2f} s after {compile_seconds:.2f} s compiling"
    )
    return BuildReport(puzzle.name, depth, manifest["total"], resumed_from, seconds,
                       compile_seconds, search_bytes(puzzle))
