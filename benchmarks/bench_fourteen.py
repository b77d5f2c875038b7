"""Benchmark and acceptance run of the 14-puzzle: full database, then meet-in-the-middle.

    python benchmarks/bench_fourteen.py [--k 31] [--threads 2] [--workdir DIR] [--per-distance 200]

1. Builds the full database in a fresh process: BFS seconds, states, max depth, peak RSS,
   and the positions of the deepest layer.
2. Copies layers 0..k alone into a directory of their own and, in another fresh process,
   computes by matching the distance of all 6,350,400 solvable positions with the domino at
   the bottom right: seconds and peak RSS.
3. Reads the same distances from the full database, compares them query by query and with
   the seed's table, writes the problem file (up to --per-distance per distance beyond k)
   from the k-layers and replays every route.
"""

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from puzzledb.query import matching, problems
from puzzledb import puzzles
from puzzledb.compiled import set_threads
from puzzledb.query.database import DepthDatabase
from puzzledb.store.layers import LayerStore

SEED_TABLE = {  # seed 002; 30 stands for "30 moves or fewer"
    30: 663_103, 32: 505_055, 34: 754_195, 36: 1_006_354, 38: 1_160_058, 40: 1_071_792,
    42: 739_880, 44: 336_080, 46: 95_763, 48: 16_248, 50: 1_778, 52: 87, 54: 7,
}

BUILD = """
import json, resource, sys
from puzzledb import puzzles
from puzzledb.bfs import in_memory, select
from puzzledb.query.kinds import KINDS
fourteen = puzzles.get("fourteen")
report = in_memory.build(fourteen, sys.argv[1], select.choose(fourteen, KINDS["layers"]),
                         threads=int(sys.argv[2]), progress=False, log=lambda m: None)
print(json.dumps(dict(report.__dict__,
                      peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)))
"""

MATCH = """
import json, resource, sys, time
import numba, numpy as np
numba.set_num_threads(int(sys.argv[3]))
from puzzledb import puzzles
from puzzledb.query import matching
puzzle = puzzles.get("fourteen")
queries = matching.query_set(puzzle, "domino-bottom-right")
started = time.perf_counter()
layers = matching.open_goal_layers(puzzle, sys.argv[1], int(sys.argv[2]))
loaded = time.perf_counter()
matching.distances(layers, queries[-1000:])  # compiles the kernels on a small batch
compiled = time.perf_counter()
distances = matching.distances(layers, queries, log=lambda m: print(m, file=sys.stderr))
done = time.perf_counter()
np.save(sys.argv[4], distances)
print(json.dumps(dict(load_seconds=loaded - started, warm_seconds=compiled - loaded,
                      match_seconds=done - compiled, layer_bytes=layers.memory_bytes(),
                      peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)))
"""


def child(code, *args):
    out = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True,
                         text=True)
    if out.returncode:
        sys.exit(out.stderr)
    return json.loads(out.stdout.splitlines()[-1])


def folded(distances, k):
    """The seed's table: everything <= 30 in one row."""
    table = {}
    for d, c in zip(*np.unique(distances, return_counts=True)):
        key = int(d) if d > 30 else 30
        table[key] = table.get(key, 0) + int(c)
    return table


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=31)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--per-distance", type=int, default=200)
    parser.add_argument("--workdir", help="keep the databases here (default: a temporary dir)")
    args = parser.parse_args()

    set_threads(args.threads)

    work = Path(args.workdir or tempfile.mkdtemp(prefix="bench-fourteen-"))
    full_dir, k_dir = work / "full", work / f"k{args.k}"
    for d in (full_dir, k_dir):
        shutil.rmtree(d, ignore_errors=True)
    puzzle = puzzles.get("fourteen")

    build = child(BUILD, full_dir, args.threads)
    store = LayerStore(full_dir, puzzle)
    with store.open_layer(build["max_depth"]) as layer:
        deepest = [puzzle.decode(r) for r in layer.ranks()]
    print(f"full database: {build['total']:,} states, max depth {build['max_depth']}, "
          f"BFS {build['seconds']:.2f} s (+{build['compile_seconds']:.2f} s compiling), "
          f"search memory {build['memory_bytes'] / 2**20:.1f} MiB, "
          f"peak RSS {build['peak_rss_mb']:.0f} MiB")
    print(f"deepest layer {build['max_depth']}: {len(deepest)} position(s): {', '.join(deepest)}")

    k_dir.mkdir(parents=True)
    for depth in range(args.k + 1):
        shutil.copy(store.path(depth), k_dir)
    npy = work / "mitm_distances.npy"
    match = child(MATCH, k_dir, args.k, args.threads, npy)
    mitm = np.load(npy)
    print(f"matching with layers 0..{args.k} only ({match['layer_bytes'] / 2**20:.0f} MiB "
          f"in memory): {mitm.size:,} queries in {match['match_seconds']:.1f} s "
          f"(+{match['load_seconds']:.1f} s reading layers, {match['warm_seconds']:.1f} s "
          f"compiling), peak RSS {match['peak_rss_mb']:.0f} MiB")

    started = time.perf_counter()
    queries = matching.query_set(puzzle, "domino-bottom-right")
    full = DepthDatabase(store.puzzle, store.directory).depths(queries)
    print(f"distances read from the full database in {time.perf_counter() - started:.1f} s")
    agree = bool(np.array_equal(full, mitm))
    print(f"query by query agreement: {agree}")
    table_full, table_mitm = folded(full, args.k), folded(mitm, args.k)
    print(f"{'distance':>8s} {'seed':>10s} {'full db':>10s} {'matching':>10s}")
    for d in sorted(set(SEED_TABLE) | set(table_full) | set(table_mitm)):
        label = "<=30" if d == 30 else str(d)
        print(f"{label:>8s} {SEED_TABLE.get(d, 0):10,d} {table_full.get(d, 0):10,d} "
              f"{table_mitm.get(d, 0):10,d}")
    print(f"seed table reproduced: full db {table_full == SEED_TABLE}, "
          f"matching {table_mitm == SEED_TABLE}")
    problems.write_distribution(work / "distribution.csv", mitm)

    started = time.perf_counter()
    layers = matching.open_goal_layers(puzzle, k_dir, args.k)
    path = work / "problems.txt"
    count = problems.write_problems(path, layers, queries, mitm,
                                    per_distance=args.per_distance, min_distance=args.k + 1)
    replayed = problems.check_problem_file(path, puzzle)
    print(f"problem file {path}: {count} problems written and {replayed} replayed in "
          f"{time.perf_counter() - started:.1f} s")
    if not (agree and table_full == SEED_TABLE and table_mitm == SEED_TABLE):
        sys.exit("MISMATCH")
    if not args.workdir:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
