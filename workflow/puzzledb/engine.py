"""The BFS engine: frontier by frontier from a puzzle's goal set, one layer file per depth.

It knows a puzzle only through the Puzzle interface.  Memory is three bitsets of the rank
space (seen, current layer, next layer) plus one extraction buffer, fixed before the search
starts.  Every finished layer is written at once; a rerun resumes after the last good one.
"""

import sys
import time
from dataclasses import dataclass

import numba
import numpy as np
from tqdm import tqdm

from . import bitset
from .puzzle import PuzzleError
from .store import LayerStore


class MemoryBudgetError(PuzzleError):
    pass


@dataclass
class BuildReport:
    puzzle: str
    max_depth: int
    total: int
    resumed_from: int  # deepest layer found on disk and kept, -1 if none
    seconds: float  # BFS time: expanding, extracting and writing layers
    compile_seconds: float  # numba compilation of the kernels, before the search
    memory_bytes: int


def memory_needed(puzzle):
    """Bytes the search holds: its bitsets and one extraction buffer.

    An ungraded search keeps seen/current/next over the whole rank space; a graded one keeps
    only the current and next levels, each in its own rank space."""
    buffer = bitset.BLOCK_WORDS * bitset.WORD_BITS * 8
    if not puzzle.graded:
        return 3 * bitset.words_for(puzzle.size) * 8 + buffer
    words = [bitset.words_for(size) for size in puzzle.levels()]
    widest = max((a + b for a, b in zip(words, words[1:])), default=words[0])
    return widest * 8 + buffer


def build(puzzle, directory, threads=None, memory_mb=None, progress=True, log=print):
    """Build (or finish) the depth database of `puzzle` in `directory`; a BuildReport.

    progress: a tqdm bar on a terminal, else (a log file) one `log` line per layer."""
    need = memory_needed(puzzle)
    if memory_mb is not None and need > memory_mb * 2**20:
        raise MemoryBudgetError(
            f"{puzzle.name}: the search needs {need / 2**20:,.0f} MiB, "
            f"more than the memory budget of {memory_mb:,} MiB"
        )
    log(f"{puzzle.name}: {puzzle.rank_space()}, search needs {need / 2**20:,.1f} MiB")
    if threads:
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    store = LayerStore(directory, puzzle)
    infos = store.good_layers()
    resumed_from = len(infos) - 1
    neighbours = puzzle.kernel()
    max_moves = max(puzzle.max_moves, 1)
    work_size = max(puzzle.work_length(), 1)

    def step(current, seen, following, depth):
        bitset.expand(current, seen if seen is not None else current, following,
                      np.int64(depth), neighbours, max_moves, work_size, seen is not None)

    compiling = time.perf_counter()
    bitset.warm_up()
    empty = bitset.new_bitset(1)
    step(empty, None if puzzle.graded else empty, empty, 0)  # compiles, expands nothing
    compile_seconds = time.perf_counter() - compiling
    started = time.perf_counter()

    if infos:
        log(f"{puzzle.name}: resuming after layer {resumed_from} found on disk")
        current, seen = _reload(store, puzzle, resumed_from)
    else:
        goals = np.unique(puzzle.goal_ranks().astype(np.uint64))
        current = bitset.new_bitset(puzzle.level_size(0))
        bitset.set_ranks(current, goals)
        infos.append(store.write_layer(0, [goals], goals.size))
        seen = current.copy() if not puzzle.graded else None
    depth = infos[-1].depth
    following = None
    done = sum(i.count for i in infos)
    bar = tqdm(
        total=puzzle.size if not puzzle.graded else None, initial=done,
        unit=" states", unit_scale=True, disable=not (progress and sys.stderr.isatty()),
        desc=puzzle.name, dynamic_ncols=True,
    )
    try:
        while True:
            size = puzzle.level_size(depth + 1) if puzzle.graded else puzzle.size
            if size == 0:
                break
            if following is None or following.size != bitset.words_for(size):
                following = bitset.new_bitset(size)
            else:
                following[:] = 0
            step(current, seen, following, depth)
            count = int(bitset.count(following))
            if count == 0:
                break
            depth += 1
            infos.append(store.write_layer(depth, bitset.iter_ranks(following), count))
            done += count
            bar.update(count)
            bar.set_postfix(depth=depth, layer=f"{count:,}")
            if progress and bar.disable:
                elapsed = time.perf_counter() - started
                log(f"{puzzle.name}: depth {depth}: {count:,} states, {done:,} in all, "
                    f"{elapsed:.2f} s")
            if seen is not None:
                bitset.merge(seen, following)
            current, following = following, current
    finally:
        bar.close()
    seconds = time.perf_counter() - started
    manifest = store.write_manifest(infos, bfs_seconds=round(seconds, 3))
    log(
        f"{puzzle.name}: complete, {manifest['total']:,} states in {depth + 1} layers "
        f"(max depth {depth}), BFS {seconds:.2f} s after {compile_seconds:.2f} s compiling"
    )
    return BuildReport(puzzle.name, depth, manifest["total"], resumed_from, seconds,
                       compile_seconds, need)


def _reload(store, puzzle, last):
    """Bitsets of layer `last` and (ungraded) of every layer up to it, read from disk."""
    current = bitset.new_bitset(puzzle.level_size(last))
    seen = None if puzzle.graded else bitset.new_bitset(puzzle.size)
    first = last if puzzle.graded else 0
    for depth in range(first, last + 1):
        with store.open_layer(depth) as layer:
            for block in layer.iter_chunks():
                if seen is not None:
                    bitset.set_ranks(seen, block)
                if depth == last:
                    bitset.set_ranks(current, block)
    return current, seen
