"""The BFS engine: frontier by frontier from a puzzle's goal set, one layer file per depth.

It knows a puzzle only through the Puzzle interface.  An ungraded puzzle is searched on two
bits per state of its rank space (twobit.py), expanded by the puzzle's layer expansion if it
has one (sliding puzzles: whole planes at a time) and otherwise state by state through its
neighbours kernel; a graded puzzle (every layer its own level) on one bitset per level for
the current and the next layer (bitset.py).  Memory is fixed before the search starts
(memory.py).  Every finished layer is written at once, by a thread of its own while the
kernels expand it into the next one; a rerun resumes after the last good one.

With the counts store (store/counts.py) no layer is written: each layer's count and a
sample of its states are kept, and the whole search is checkpointed every few minutes
(checkpoint.py), by the same thread while the kernels expand, so that a rerun resumes from
the last checkpoint.
"""

import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

from puzzledb.bfs import bitset, checkpoint, twobit
from puzzledb.compiled import set_threads
from puzzledb.bfs.memory import check_budget, search_bytes
from puzzledb.bfs.modes import IN_MEMORY, check_store
from puzzledb.store import COUNTS, LAYERS
from puzzledb.store.counts import DEEPEST_STATES, SAMPLE_STATES, new_store

CHECKPOINT_MINUTES = 5.0  # the default time between two checkpoints of a counts search


@dataclass
class BuildReport:
    puzzle: str
    max_depth: int
    total: int
    resumed_from: int  # deepest layer found on disk (or in a checkpoint) and kept, -1 if none
    seconds: float  # BFS time: expanding, extracting and writing layers
    compile_seconds: float  # loading (or compiling) the kernels, before the search
    memory_bytes: int
    store: str = LAYERS
    checkpoints: int = 0  # checkpoints written
    checkpoint_seconds: float = 0.0  # their writing, in the writer's thread (overlapped)


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

    # -- the counts store: samples instead of layers, checkpoints ---------------------------
    def sample(self, depth, count):
        """Make the layer just expanded (`count` states) CUR, and give the ranks of at most
        SAMPLE_STATES of them, drawn at random (reproducibly: the depth seeds the draw)."""
        self.state.relabel()
        return self.pick(depth, count, SAMPLE_STATES)

    def pick(self, depth, count, most):
        """The CUR layer's ranks when it holds at most `most`, else `most` at random."""
        if count <= most:
            return np.concatenate([np.empty(0, np.uint64), *(
                block.copy() for block in self.state.current_ranks())])
        positions = np.random.default_rng(depth).choice(count, size=most, replace=False)
        return self.state.pick_current(np.sort(positions))

    def checkpoint(self, directory, puzzle, depth, infos, samples):
        return checkpoint.write(directory, puzzle, depth, infos, samples, self.state.words)

    def resume(self, directory, header):
        samples = checkpoint.read(directory, header, self.state.words)
        self.state.restore()
        return samples


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
          depth_limit=None, store=LAYERS, checkpoint_minutes=CHECKPOINT_MINUTES):
    """Build (or finish) the depth database of `puzzle` in `directory`; a BuildReport.

    progress: a tqdm bar on a terminal, else (a log file) one `log` line per layer.
    depth_limit: stop after this depth (the manifest then records a partial database).
    store: LAYERS (every layer's file) or COUNTS (counts and samples, store/counts.py;
    checkpointed every checkpoint_minutes, 0: after every layer)."""
    need = check_budget(puzzle, memory_mb)
    counts = store == COUNTS
    check_store(puzzle, store, IN_MEMORY)
    log(f"{puzzle.name}: in-memory mode, {puzzle.rank_space()}, search needs {need:,.1f} MiB"
        + (", keeping counts only" if counts else ""))
    set_threads(threads)
    store = new_store(store, directory, puzzle)
    infos = store.good_layers()
    store.prune(len(infos))
    resumed_from = len(infos) - 1
    header = checkpoint.read_header(directory, puzzle) if counts else None
    if counts and header is None:
        checkpoint.remove(directory)  # another puzzle's or definition's, or cut short

    compiling = time.perf_counter()
    search = GradedSearch(puzzle) if puzzle.graded else TwoBitSearch(puzzle)
    search.warm_up()
    compile_seconds = time.perf_counter() - compiling
    started = time.perf_counter()

    if header is not None:
        resuming = time.perf_counter()
        samples = search.resume(directory, header)
        resumed_from = header["depth"]
        infos = [store.keep_layer(d, n, kept)
                 for d, (n, kept) in enumerate(zip(header["counts"], samples))]
        log(f"{puzzle.name}: resuming after layer {header['depth']} from the checkpoint "
            f"({time.perf_counter() - resuming:.1f} s to read it)")
    elif infos:
        log(f"{puzzle.name}: resuming after layer {infos[-1].depth} found on disk")
        search.reload(store, infos[-1].depth)
    else:
        goals = np.unique(puzzle.goal_ranks().astype(np.uint64))
        search.start(goals)
        if counts:
            infos.append(store.keep_layer(0, goals.size, goals))
        else:
            infos.append(store.write_layer(0, [goals], goals.size))
    depth = infos[-1].depth
    done = sum(i.count for i in infos)
    first_done = done
    bar = tqdm(
        total=puzzle.size if not puzzle.graded else None, initial=done,
        unit=" states", unit_scale=True, disable=not (progress and sys.stderr.isatty()),
        desc=puzzle.name, dynamic_ncols=True,
    )

    def finished(written, n):
        nonlocal done
        done += n
        bar.update(n)
        bar.set_postfix(depth=written, layer=f"{n:,}")
        if progress and bar.disable:
            elapsed = time.perf_counter() - started
            rate = (done - first_done) / elapsed if elapsed > 0 else 0
            left = ""
            if not puzzle.graded and rate > 0 and 100 * done >= puzzle.size > done:
                left = f", about {(puzzle.size - done) / rate:,.0f} s left"
            log(f"{puzzle.name}: depth {written}: {n:,} states, {done:,} in all, "
                f"{elapsed:.2f} s, {rate / 1e6:,.1f} M states/s{left}")

    # Layer d is written by a thread of its own while the kernels expand it (they only read
    # its states, the writer only reads them): the two phases fill each other's idle core.
    # The writing is awaited before the states are relabelled for the next depth.  With the
    # counts store the same thread writes the checkpoints.
    writer = ThreadPoolExecutor(1)
    writing = None  # (depth, count, the write's future)
    interval = 60 * checkpoint_minutes
    last_checkpoint = time.perf_counter()
    checkpoints, checkpoint_seconds = 0, 0.0

    def take_checkpoint(at, kept):
        begun = time.perf_counter()
        size = search.checkpoint(directory, puzzle, at, kept, store.samples)
        return time.perf_counter() - begun, size

    try:
        while True:
            count = search.expand(depth) if depth_limit is None or depth < depth_limit else 0
            if writing is not None:
                written, n, job = writing
                writing = None
                if counts:
                    seconds, size = job.result()
                    checkpoints += 1
                    checkpoint_seconds += seconds
                    log(f"{puzzle.name}: checkpoint after layer {written} ({size / 2**30:,.2f}"
                        f" GiB) written in {seconds:.1f} s beside the search")
                else:
                    infos.append(job.result())
                    finished(written, n)
            if count == 0:
                break
            depth += 1
            if counts:
                infos.append(store.keep_layer(depth, count, search.sample(depth, count)))
                finished(depth, count)
                if time.perf_counter() - last_checkpoint >= interval:
                    last_checkpoint = time.perf_counter()
                    writing = (depth, count, writer.submit(take_checkpoint, depth,
                                                           list(infos)))
            else:
                writing = (depth, count, writer.submit(store.write_layer, depth,
                                                       search.layer(), count))
    finally:
        writer.shutdown(wait=True)  # a layer being written is finished, never cut short
        bar.close()
    stopped = depth_limit is not None and depth >= depth_limit
    if counts and not stopped:  # the deepest layer, still CUR: kept whole if not too large
        infos[-1] = store.keep_layer(depth, infos[-1].count,
                                     search.pick(depth, infos[-1].count, DEEPEST_STATES))
    seconds = time.perf_counter() - started
    extra = dict(checkpoints=checkpoints) if counts else {}
    manifest = store.write_manifest(infos, mode=IN_MEMORY, bfs_seconds=round(seconds, 3),
                                    depth_limit=depth_limit if stopped else None, **extra)
    if counts:
        checkpoint.remove(directory)
    log(
        f"{puzzle.name}: complete, {manifest['total']:,} states in {depth + 1} layers "
        f"(max depth {depth}), BFS {seconds:.2f} s after {compile_seconds:.2f} s compiling"
    )
    return BuildReport(puzzle.name, depth, manifest["total"], resumed_from, seconds,
                       compile_seconds, search_bytes(puzzle), store.kind, checkpoints,
                       checkpoint_seconds)
