"""Benchmark: the neighbours kernel of puzzles alone, without the engine's bitsets and files.

    python benchmarks/bench_kernels.py eight fifteen-3colour fourteen flipit-square
    python benchmarks/bench_kernels.py --config benchmarks/definitions.yaml domino-5x3

For each puzzle, one compiled loop calls the puzzle's neighbours kernel on `--calls` ranks
spread over its whole rank space (a stride prime to the space, so that the tables are read
as a search reads them, not in order) and sums the neighbours; the figure is the best of
`--repeat` timings, in seconds and nanoseconds per call.  Ungraded puzzles only.
"""

import argparse
import time

import numpy as np

from puzzledb import puzzles
from puzzledb.compiled import jit, neighbours
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("puzzles", nargs="+")
    parser.add_argument("--calls", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--config", default=None, help="a config file with define: puzzles")
    args = parser.parse_args()
    if args.config:
        load_definitions(args.config)
    print(f"{'puzzle':22s} {'calls':>12s} {'best s':>8s} {'ns/call':>8s}")
    for name in args.puzzles:
        puzzle = puzzles.get(name)
        shape = (np.int64(puzzle.size), max(puzzle.max_moves, 1), max(puzzle.work_size, 1),
                 puzzle.tables())
        spread_calls(10, *shape)  # compiles (or loads) before timing
        best = float("inf")
        for _ in range(args.repeat):
            started = time.perf_counter()
            spread_calls(args.calls, *shape)
            best = min(best, time.perf_counter() - started)
        print(f"{name:22s} {args.calls:12,d} {best:8.2f} {best / args.calls * 1e9:8.1f}")


if __name__ == "__main__":
    main()
