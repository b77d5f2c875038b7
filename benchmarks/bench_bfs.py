"""Benchmark: BFS time, rate and peak memory of one puzzle's database build.

    python benchmarks/bench_bfs.py fifteen-6colour fifteen-3colour eight [--threads 2]
    python benchmarks/bench_bfs.py --config benchmarks/definitions.yaml domino-5x3 ...

Each puzzle is built from scratch in a fresh process (so the peak RSS is its own) into a
temporary directory; the figure printed is the BFS time (expanding, extracting and writing
every layer), the numba compile time apart.  `--config` names a config file whose `define:`
puzzles may be benchmarked too; the last column says whether the search reached every rank
(a dense rank space).
"""

import argparse
import json
import resource
import subprocess
import sys
import tempfile

CHILD = """
import json, resource, sys
from puzzledb import engine, puzzles
from puzzledb.config import load_definitions
if sys.argv[4]:
    load_definitions(sys.argv[4])
puzzle = puzzles.get(sys.argv[1])
report = engine.build(puzzle, sys.argv[2], threads=int(sys.argv[3]), progress=False,
                      log=lambda m: None)
print(json.dumps(dict(report.__dict__, ranks=puzzle.size,
                      peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)))
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("puzzles", nargs="+")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3, help="runs per puzzle; best is shown")
    parser.add_argument("--config", default="", help="a config file with define: puzzles")
    args = parser.parse_args()
    print(f"{'puzzle':22s} {'states':>12s} {'depth':>5s} {'BFS s':>7s} {'compile s':>9s} "
          f"{'Mstates/s':>9s} {'peak RSS MiB':>12s} {'every rank':>10s}")
    for name in args.puzzles:
        runs = []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                out = subprocess.run([sys.executable, "-c", CHILD, name, tmp, str(args.threads),
                                      args.config], capture_output=True, text=True, check=True)
                runs.append(json.loads(out.stdout.splitlines()[-1]))
        best = min(runs, key=lambda r: r["seconds"])
        print(f"{name:22s} {best['total']:12,d} {best['max_depth']:5d} {best['seconds']:7.2f} "
              f"{best['compile_seconds']:9.2f} {best['total'] / best['seconds'] / 1e6:9.1f} "
              f"{max(r['peak_rss_mb'] for r in runs):12.0f} "
              f"{'yes' if best['total'] == best['ranks'] else 'no':>10s}")


if __name__ == "__main__":
    main()
