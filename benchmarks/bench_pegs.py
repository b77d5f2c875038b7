"""Benchmark: the English 33-hole peg-solitaire database, and its counts up to symmetry.

    python benchmarks/bench_pegs.py [english33] [--threads 2] [--workdir DIR]

Builds every layer from the central-vacancy start in a fresh process (so the peak RSS is
the build's own), then counts each layer up to the board's symmetries in another, and
prints the per-jump table with the seconds, states/s and peak RSS of both steps.  For
english33 the counts are checked against the published ones (exit status 1 if they
differ), and the build against the target: under 60 s and under 2 GB.
"""

import argparse
import json
import subprocess
import sys
import tempfile

# OEIS A014225 and A112737 (George Bell): positions after n jumps from the central vacancy
# of the 33-hole board, n = 0..31, all of them and up to the board's 8 symmetries
PUBLISHED = {
    "english33": (
        [1, 4, 12, 60, 296, 1338, 5648, 21842, 77559, 249690, 717788, 1834379, 4138302,
         8171208, 14020166, 20773236, 26482824, 28994876, 27286330, 22106348, 15425572,
         9274496, 4792664, 2120101, 800152, 255544, 68236, 14727, 2529, 334, 32, 5],
        [1, 1, 2, 8, 39, 171, 719, 2757, 9751, 31312, 89927, 229614, 517854, 1022224,
         1753737, 2598215, 3312423, 3626632, 3413313, 2765623, 1930324, 1160977, 600372,
         265865, 100565, 32250, 8688, 1917, 348, 50, 7, 2],
    ),
}
TARGET_SECONDS, TARGET_RSS_MB = 60, 2048

BUILD = """
import json, resource, sys
from puzzledb import puzzles
from puzzledb.bfs import in_memory, select
from puzzledb.query.kinds import KINDS
puzzle = puzzles.get(sys.argv[1])
report = in_memory.build(puzzle, sys.argv[2] + "/" + sys.argv[1] + "/layers",
                         select.choose(puzzle, KINDS["layers"]), threads=int(sys.argv[3]),
                         progress=False, log=lambda m: None)
print(json.dumps(dict(report.__dict__,
                      peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)))
"""

SYMMETRY = """
import json, resource, sys, time
import numba
from puzzledb.report import analysis
from puzzledb.query.database import DepthDatabase
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
    if args.puzzle in PUBLISHED:
        met = build["seconds"] < TARGET_SECONDS and build["peak_rss_mb"] < TARGET_RSS_MB
        print(f"target:   build under {TARGET_SECONDS} s and {TARGET_RSS_MB:,} MiB: "
              f"{'met' if met else 'MISSED'}")
        counts, orbits = PUBLISHED[args.puzzle]
        same = ([r[1] for r in symmetry["rows"]] == counts
                and [r[2] for r in symmetry["rows"]] == orbits)
        print(f"published counts (OEIS A014225, A112737): {'agree' if same else 'DIFFER'}")
        if not same:
            sys.exit(1)


if __name__ == "__main__":
    main()
