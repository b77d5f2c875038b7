"""Benchmark: the English 33-hole peg-solitaire database, and its counts up to symmetry.

    python benchmarks/bench_pegs.py [english33] [--threads 2] [--workdir DIR]

Builds every layer from the central-vacancy start in a fresh process (so the peak RSS is
the build's own), then counts each layer up to the board's symmetries in another, and
prints the per-jump table with the seconds, states/s and peak RSS of both steps.
"""

import argparse
import json
import subprocess
import sys
import tempfile

BUILD = """
import json, resource, sys
from puzzledb import engine, puzzles
report = engine.build(puzzles.get(sys.argv[1]), sys.argv[2] + "/" + sys.argv[1] + "/layers",
                      threads=int(sys.argv[3]), progress=False, log=lambda m: None)
print(json.dumps(dict(report.__dict__,
                      peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)))
"""

SYMMETRY = """
import json, resource, sys, time
import numba
from puzzledb import analysis
from puzzledb.database import DepthDatabase
numba.set_num_threads(int(sys.argv[3]))
with DepthDatabase.open(sys.argv[1], sys.argv[2]) as db:
    db.puzzle.canonical_ranks(db.layer(1).ranks(), 1)  # compile first
    started = time.perf_counter()
    rows = analysis.symmetry_summary(db)
    seconds = time.perf_counter() - started
print(json.dumps(dict(rows=rows, seconds=seconds,
                      peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)))
"""


def run(code, *args):
    out = subprocess.run([sys.executable, "-c", code, *map(str, args)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("puzzle", nargs="?", default="english33")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--workdir", help="keep the layers here (default: a temporary dir)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = args.workdir or tmp
        build = run(BUILD, args.puzzle, workdir, args.threads)
        symmetry = run(SYMMETRY, args.puzzle, workdir, args.threads)
    print(f"{'jumps':>5s} {'positions':>12s} {'up to symmetry':>15s}")
    for depth, count, orbits in symmetry["rows"]:
        print(f"{depth:5d} {count:12,d} {orbits:15,d}")
    total_orbits = sum(r[2] for r in symmetry["rows"])
    print(f"{'all':>5s} {build['total']:12,d} {total_orbits:15,d}")
    print(f"build:    {build['seconds']:.2f} s BFS (+{build['compile_seconds']:.2f} s compile), "
          f"{build['total'] / build['seconds'] / 1e6:.1f} Mstates/s, "
          f"search memory {build['memory_bytes'] / 2**20:,.0f} MiB, "
          f"peak RSS {build['peak_rss_mb']:,.0f} MiB")
    print(f"symmetry: {symmetry['seconds']:.2f} s, "
          f"{build['total'] / symmetry['seconds'] / 1e6:.1f} Mstates/s, "
          f"peak RSS {symmetry['peak_rss_mb']:,.0f} MiB")


if __name__ == "__main__":
    main()
