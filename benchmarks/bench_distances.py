"""Benchmark: the distances store against the counts store, and the queries its table answers.

    python benchmarks/bench_distances.py eleven --repeat 2
    python benchmarks/bench_distances.py --config benchmarks/definitions.yaml seven-by-two \
        --memory-mb 14000 --repeat 1 --scratch /work/scratch-distances

Builds: the puzzle built with `store: counts`, then with `store: distances`, alternated,
--repeat rounds, each in a process of its own (so its peak RSS is its own; bench_bfs.py's
child), from no results, into --scratch; per build the BFS seconds (writing the table
included), the whole process's wall, its peak RSS, the table's bytes on disk; then the
ratio of the best distances build to the best counts build.  The disk must hold the table
and a checkpoint at once (the 7x2: 2 x 10.2 GiB).

Queries, on the last distances build, each set in a fresh process:
- cold: the table dropped from the page cache (os.posix_fadvise POSIX_FADV_DONTNEED, the
  file not yet mapped) before each of --cold queries, every one in a process of its own
  whose kernels are loaded first without reading the table (Walker.load): the query's
  time alone, then the same process's first query time had the kernels not been loaded
  (the first process only);
- warm: --warm random positions, each asked twice in one process, the second timed;
- deepest: a position of the deepest layer (its sample) solved cold and warm, its route
  replayed move by move (each step one of the puzzle's moves, a goal at the end, as many
  steps as the depth); then its optimal solutions counted (given up after --count-seconds).
The load average is printed with every figure: the machine is shared.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_bfs import CHILD, load  # noqa: E402  (the build child: one build, a JSON report)

QUERIES = """
import json, os, sys, time
import numpy as np
from puzzledb import puzzles, paths
from puzzledb.compiled import prepare
from puzzledb.config import load_definitions
from puzzledb.query.database import DepthDatabase
name, results, config, mode, seed, count = sys.argv[1:7]
if config:
    load_definitions(config)
puzzle = puzzles.get(name)
table = os.path.join(paths.layers(results, name), paths.DISTANCES)
fd = os.open(table, os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)  # cold: nothing of the table cached
os.close(fd)
db = DepthDatabase.open(name, results)
rng = np.random.default_rng(int(seed))
out = {}
if mode in ("first", "cold"):  # first: the process's first query, which loads the kernels
    if mode == "cold":
        prepare(db.lookup.walker.kernels())
    board = puzzle.decode(int(rng.integers(puzzle.size)))
    began = time.perf_counter()
    out["distance"] = db.distance(board)
    out["seconds"] = time.perf_counter() - began
elif mode == "warm":
    prepare(db.lookup.walker.kernels())
    boards = [puzzle.decode(int(r)) for r in rng.integers(puzzle.size, size=int(count))]
    first = [db.distance(b) for b in boards]
    times = []
    for board, distance in zip(boards, first):
        began = time.perf_counter()
        assert db.distance(board) == distance
        times.append(time.perf_counter() - began)
    out["seconds"] = times
    out["distances"] = first
elif mode == "count":  # the deepest position's optimal solutions, counted
    prepare(db.lookup.walker.kernels())
    board = db.boards_at(db.max_depth, count=1, seed=int(seed))[0]
    began = time.perf_counter()
    out.update(board=board, solutions=str(db.count_solutions(board)),
               seconds=time.perf_counter() - began)
else:  # deepest: solved cold, then warm; the route replayed
    prepare(db.lookup.walker.kernels())
    board = db.boards_at(db.max_depth, count=1, seed=int(seed))[0]
    began = time.perf_counter()
    route = db.solution(board)
    cold = time.perf_counter() - began
    began = time.perf_counter()
    again = db.solution(board)
    warm = time.perf_counter() - began
    goals = set(int(g) for g in puzzle.goal_ranks())
    legal = (route == again and len(route) == db.max_depth + 1 and route[-1] in goals
             and all(b in puzzle.neighbours(a) for a, b in zip(route, route[1:])))
    out.update(board=board, moves=len(route) - 1, cold=cold, warm=warm, legal=legal)
print(json.dumps(out))
"""


def build(name, store, directory, args):
    """One build in a process of its own (bench_bfs.py's child); its report and wall."""
    shutil.rmtree(directory, ignore_errors=True)
    logs = Path(__file__).resolve().parent / "out"
    logs.mkdir(exist_ok=True)
    before = load()
    started = time.perf_counter()
    with open(logs / f"distances-{name}-{store}.log", "w") as log:
        out = subprocess.run([sys.executable, "-c", CHILD, name, str(directory),
                              str(args.threads), args.config, store, str(args.memory_mb),
                              str(args.checkpoint_minutes)],
                             stdout=subprocess.PIPE, stderr=log, text=True, check=True)
    report = json.loads(out.stdout.splitlines()[-1])
    table = Path(directory) / "distances.2bit"
    return dict(report, wall=time.perf_counter() - started, loadavg=before,
                table=table.stat().st_size if table.exists() else 0)


def bench_builds(name, args, scratch):
    """The builds alternated; the directory of the results of the last distances build."""
    print(f"{'store':10s} {'BFS s':>8s} {'wall s':>8s} {'RSS MiB':>8s} {'table MiB':>10s} "
          f"{'checkpoints':>11s} {'loadavg':>7s}", flush=True)
    best = {}
    for _ in range(args.repeat):
        for store in ("counts", "distances"):
            run = build(name, store, scratch / store / name / "layers", args)
            best[store] = min(best.get(store, run["seconds"]), run["seconds"])
            print(f"{store:10s} {run['seconds']:8.1f} {run['wall']:8.1f} "
                  f"{run['peak_rss_mb']:8.0f} {run['table'] / 2**20:10.1f} "
                  f"{run.get('checkpoints', 0):11d} {run['loadavg']:7.2f}", flush=True)
    ratio = best["distances"] / best["counts"]
    print(f"distances / counts, best BFS of each: {ratio:.3f} (target <= 1.10: "
          f"{'met' if ratio <= 1.10 else 'MISSED'})", flush=True)
    return scratch / "distances"


def query(name, results, args, mode, seed, count=0, timeout=None):
    """A query process's figures; None when it did not end within `timeout` seconds."""
    try:
        out = subprocess.run([sys.executable, "-c", QUERIES, name, str(results), args.config,
                              mode, str(seed), str(count)],
                             stdout=subprocess.PIPE, text=True, check=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    return json.loads(out.stdout.splitlines()[-1])


def bench_queries(name, results, args):
    ms = 1000
    first = query(name, results, args, "first", 0)
    cold = [query(name, results, args, "cold", seed)["seconds"] for seed in
            range(1, args.cold + 1)]
    warm = query(name, results, args, "warm", 0, args.warm)["seconds"]
    deepest = query(name, results, args, "deepest", 0)
    print(f"\ndistance, cold (table dropped from the page cache, kernels loaded), "
          f"{len(cold)} processes: median {ms * sorted(cold)[len(cold) // 2]:.1f} ms, "
          f"max {ms * max(cold):.1f} ms (target < 100 ms); loadavg {load():.2f}")
    print(f"distance, the first query of a process, kernels not yet loaded: "
          f"{ms * first['seconds']:.1f} ms")
    print(f"distance, warm, {len(warm)} random positions: median "
          f"{ms * sorted(warm)[len(warm) // 2]:.2f} ms, max {ms * max(warm):.2f} ms "
          f"(target < 10 ms)")
    print(f"deepest position {deepest['board']!r}: {deepest['moves']} moves, solved in "
          f"{ms * deepest['cold']:.1f} ms cold, {ms * deepest['warm']:.1f} ms warm (target "
          f"< 1 s); route replayed: {'legal' if deepest['legal'] else 'ILLEGAL'}")
    counted = query(name, results, args, "count", 0, timeout=args.count_seconds)
    if counted is None:
        print(f"its optimal solutions: not counted within {args.count_seconds:g} s")
    else:
        print(f"its optimal solutions: {int(counted['solutions']):,}, counted in "
              f"{counted['seconds']:.2f} s (the kernels' loading included)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("puzzle")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2, help="rounds of the two builds")
    parser.add_argument("--config", default="", help="a config file with define: puzzles")
    parser.add_argument("--memory-mb", type=int, default=8000)
    parser.add_argument("--checkpoint-minutes", type=float, default=5.0)
    parser.add_argument("--scratch", default=None,
                        help="directory for the builds' results (kept: the last distances "
                             "build is queried; default: a new temporary directory)")
    parser.add_argument("--cold", type=int, default=5, help="cold queries, a process each")
    parser.add_argument("--warm", type=int, default=200, help="warm queries")
    parser.add_argument("--count-seconds", type=float, default=300,
                        help="give up counting the deepest position's solutions after this")
    parser.add_argument("--queries-only", action="store_true",
                        help="no builds: query the distances build left in --scratch")
    args = parser.parse_args()
    scratch = Path(args.scratch or os.environ.get("TMPDIR", "/tmp")) / "bench-distances"
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    results = (scratch / "distances" if args.queries_only
               else bench_builds(args.puzzle, args, scratch))
    bench_queries(args.puzzle, results, args)


if __name__ == "__main__":
    main()
