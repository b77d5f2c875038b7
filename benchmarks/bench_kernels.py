"""Benchmark: the neighbours kernel of puzzles alone, without the engine's bitsets and files.

    python benchmarks/bench_kernels.py eight fifteen-3colour fourteen flipit-square
    python benchmarks/bench_kernels.py --config benchmarks/definitions.yaml domino-5x3

For each puzzle, one compiled loop calls the puzzle's neighbours kernel on `--calls` ranks
spread over its whole rank space (a stride prime to the space, so that the tables are read
as a search reads them, not in order) and sums the neighbours; the figure is the best of
`--repeat` timings, in seconds and nanoseconds per call.  Ungraded puzzles only.
`--ascending`: instead, every third rank of one run of consecutive ranks (a dense layer as the
frontier expands it), through compiled.neighbours_after with the rank before, so that a
family that decodes a rank from where it differs from the one before can do so.
"""

import argparse
import time

import numpy as np

from puzzledb import puzzles
from puzzledb.compiled import jit, neighbours, neighbours_after
from puzzledb.config import load_definitions

STRIDE = 7919  # a prime: coprime to every rank space measured here


@jit
def spread_calls(calls, size, max_moves, work_size, tables):
    out = np.empty(max_moves, dtype=np.int64)
    work = np.empty(work_size, dtype=np.int64)
    total = 0
    rank = 0
    for _ in range(calls):
        for k in range(neighbours(rank, 0, out, work, tables)):
            total += out[k]
        rank = (rank + STRIDE) % size
    return total


@jit
def ascending_calls(calls, size, max_moves, work_size, tables):
    out = np.empty(max_moves, dtype=np.int64)
    work = np.empty(work_size, dtype=np.int64)
    total = 0
    prev = -1
    rank = 0
    for _ in range(calls):  # a small space wraps around: that rank is decoded whole
        for k in range(neighbours_after(rank, prev, 0, out, work, tables)):
            total += out[k]
        prev = rank
        rank = (rank + 3) % size
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("puzzles", nargs="+")
    parser.add_argument("--calls", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--config", default=None, help="a config file with define: puzzles")
    parser.add_argument("--ascending", action="store_true",
                        help="every third rank of one ascending run, through neighbours_after")
    args = parser.parse_args()
    calls = ascending_calls if args.ascending else spread_calls
    if args.config:
        load_definitions(args.config)
    print(f"{'puzzle':22s} {'calls':>12s} {'best s':>8s} {'ns/call':>8s}")
    for name in args.puzzles:
        puzzle = puzzles.get(name)
        shape = (np.int64(puzzle.size), max(puzzle.max_moves, 1), max(puzzle.work_size, 1),
                 puzzle.tables())
        calls(10, *shape)  # compiles (or loads) before timing
        best = float("inf")
        for _ in range(args.repeat):
            started = time.perf_counter()
            calls(args.calls, *shape)
            best = min(best, time.perf_counter() - started)
        print(f"{name:22s} {args.calls:12,d} {best:8.2f} {best / args.calls * 1e9:8.1f}")


if __name__ == "__main__":
    main()
