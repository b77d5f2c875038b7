"""The BFS engine: frontier by frontier from a puzzle's goal set, one layer file per depth.

It knows a puzzle only through the Puzzle interface.  Memory is three bitsets of the rank
space (seen, current layer, next layer) plus one extraction buffer, fixed before the search
starts (memory.py).  Every finished layer is written at once; a rerun resumes after the last
good one.
"""

import sys
import time
from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

from . import bitset
from .compiled import set_threads
from .memory import check_budget, search_bytes
from .store import LayerStore


@dataclass
class BuildReport:
    puzzle: str
    max_depth: int
    total: int
    resumed_from: int  # deepest layer found on disk and kept, -1 if none
    seconds: float  # BFS time: expanding, extracting and writing layers
    compile_seconds: float  # numba compilation of the kernels, before the search
    memory_bytes: int


def build(puzzle, directory, threads=None, memory_mb=None, progress=True, log=print,
          depth_limit=None):
    """Build (or finish) the depth database of `puzzle` in `directory`; a BuildReport.

    progress: a tqdm bar on a terminal, else (a log file) one `log` line per layer.
    depth_limit: stop after this depth (the manifest then records a partial database)."""
    need = check_budget(puzzle, memory_mb)
    log(f"{puzzle.name}: {puzzle.rank_space()}, search needs {need:,.1f} MiB")
    set_threads(threads)
    store = LayerStore(directory, puzzle)
    infos = store.good_layers()
    store.prune(len(infos))
    resumed_from = len(infos) - 1
    tables = puzzle.tables()
    max_moves = max(puzzle.max_moves, 1)
    work_size = max(puzzle.work_size, 1)

    def step(current, seen, following, depth):
        bitset.expand(current, seen if seen is not None else current, following,
                      np.int64(depth), tables, max_moves, work_size, seen is not None)

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
        while depth_limit is None or depth < depth_limit:
            size = puzzle.level_size(depth + 1) if puzzle.graded else puzzle.level_size(0)
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
    stopped = depth_limit is not None and depth >= depth_limit
    manifest = store.write_manifest(infos, mode="in-memory", bfs_seconds=round(seconds, 3),
                                    depth_limit=depth_limit if stopped else None)
    log(
        f"{puzzle.name}: complete, {manifest['total']:,} states in {depth + 1} layers "
        f"(max depth {depth}), BFS {seconds:.2f} s after {compile_seconds:.2f} s compiling"
    )
    return BuildReport(puzzle.name, depth, manifest["total"], resumed_from, seconds,
                       compile_seconds, search_bytes(puzzle))


def _reload(store, puzzle, last):
    """Bitsets of layer `last` and (ungraded) of every layer up to it, read from disk."""
    current = bitset.new_bitset(puzzle.level_size(last))
    seen = None if puzzle.graded else bitset.new_bitset(puzzle.level_size(0))
    first = last if puzzle.graded else 0
    for depth in range(first, last + 1):
        with store.open_layer(depth) as layer:
            for block in layer.iter_chunks():
                if seen is not None:
                    bitset.set_ranks(seen, block)
                if depth == last:
                    bitset.set_ranks(current, block)
    return current, seen
