"""Benchmark: the sliding-block classics in three metrics, the designer's table of
Klotski-sized boxes, and a Rush Hour card solved from its database (docs/blocks.md).

    python benchmarks/bench_blocks.py [--metrics step,line,path] [--threads 1] [--workdir DIR]

1. Each classic (klotski, dads-puzzle, century, supercentury, mas-puzzle, rush-hour-card) in
   each metric is built by `puzzledb build` in a process of its own: the whole command's
   wall seconds, and the search's (the BFS the build reports, compiling excluded).  The
   start's distance is checked against the published one where there is one (exit status 1
   if it differs).  Target: the searches together under 10 s.
2. The designer's table (report/design.py: every placement, its distance, the components) of
   4x5 boxes: Klotski's pieces, and a set with 405,840 placements; the build and the table,
   in seconds.  Target: under a minute.
3. rush-hour-card solved from its database: DepthDatabase.solve of the card in a warm
   process (the median of 20, milliseconds; target: milliseconds) and `puzzledb solve` as a
   whole command.
"""

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

CLASSICS = ("klotski", "dads-puzzle", "century", "supercentury", "mas-puzzle",
            "rush-hour-card")
# docs/blocks.md names the sources: the start's distance in the metrics that have one
PUBLISHED = {("klotski", "path"): 81, ("klotski", "line"): 90, ("klotski", "step"): 116,
             ("dads-puzzle", "path"): 59, ("century", "path"): 99, ("century", "line"): 111,
             ("supercentury", "path"): 138, ("supercentury", "line"): 150,
             ("supercentury", "step"): 179, ("mas-puzzle", "path"): 23,
             ("mas-puzzle", "line"): 26, ("rush-hour-card", "step"): 93}
DESIGNS = {"klotski-box": "A@@B A@@B CDDE CFGE H..I", "four-by-five": "@@AB @@AB CCDE FGHI J..."}
TARGET_SEARCH, TARGET_DESIGN = 10.0, 60.0
CARD = "TTTBCD EFFBCD E.XXCD GGH... .IH.JJ .IKKLL"

DESIGN = """
import sys, time
import numba
from puzzledb import puzzles
from puzzledb.bfs import in_memory, select
from puzzledb.config import load_definitions
from puzzledb.query.kinds import KINDS
from puzzledb.query.database import DepthDatabase
from puzzledb.report.design import design
numba.set_num_threads(int(sys.argv[3]))
load_definitions(sys.argv[4])
puzzle = puzzles.get(sys.argv[1])
started = time.perf_counter()
report = in_memory.build(puzzle, sys.argv[2] + "/" + sys.argv[1] + "/layers",
                         select.choose(puzzle, KINDS["layers"]), threads=int(sys.argv[3]),
                         progress=False, log=lambda m: None)
built = time.perf_counter()
with DepthDatabase.open(sys.argv[1], sys.argv[2]) as db:
    table = design(db)
print(puzzle.size, table.solvable, table.components, report.seconds,
      built - started, time.perf_counter() - built)
"""

SOLVE = """
import statistics, sys, time
from puzzledb.query.database import DepthDatabase
with DepthDatabase.open("rush-hour-card", sys.argv[1]) as db:
    db.solve(sys.argv[2])  # the layers opened, the kernels loaded
    times = []
    for _ in range(20):
        started = time.perf_counter()
        route = db.solve(sys.argv[2])
        times.append(time.perf_counter() - started)
print(len(route) - 1, 1000 * statistics.median(times))
"""


def puzzledb(*args, cwd):
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "puzzledb.cli", *args], cwd=cwd,
                          capture_output=True, text=True, check=True)
    return done, time.perf_counter() - started


def classics(workdir, metrics, threads):
    """Build each classic in each metric; (rows, failures)."""
    rows, failures = [], []
    for name in CLASSICS:
        for metric in metrics:
            variant = f"{name}-{metric}"
            done, whole = puzzledb("build", variant, "--threads", str(threads), cwd=workdir)
            search = float(re.search(r"BFS ([\d.]+) s", done.stderr).group(1))
            start = yaml.safe_load((workdir / "config.yaml").read_text())["define"][variant]
            distance, _ = puzzledb("distance", variant, start["board"], cwd=workdir)
            got = int(distance.stdout)
            want = PUBLISHED.get((name, metric))
            if want is not None and got != want:
                failures.append(f"{variant}: {got} moves, published {want}")
            rows.append((variant, done.stdout.strip(), got, want, search, whole))
    return rows, failures


def write_config(workdir, metrics):
    """config.yaml defining each classic in each metric, and the designer's boxes."""
    from puzzledb import puzzles

    define = {}
    for name in CLASSICS:
        definition = {k: v for k, v in puzzles.definition(name).items() if k != "description"}
        for metric in metrics:
            define[f"{name}-{metric}"] = {**definition, "metric": metric}
    for name, board in DESIGNS.items():
        define[name] = {"family": "blocks", "board": board, "metric": "path",
                        "goal": ".... .... .... .@@. .@@."}
    (workdir / "config.yaml").write_text(yaml.safe_dump({"puzzles": ["klotski"],
                                                         "define": define}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--metrics", default="step,line,path")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--workdir", help="keep the databases here (default: a temporary dir)")
    args = parser.parse_args()
    metrics = args.metrics.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(args.workdir or tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        write_config(workdir, metrics)
        puzzledb("build", "rush-hour-card", cwd=workdir)  # compiles the kernels once
        rows, failures = classics(workdir, metrics, args.threads)
        print(f"{'puzzle':26s} {'database':>30s} {'start':>6s} {'published':>9s} "
              f"{'search s':>9s} {'command s':>9s}")
        for variant, built, got, want, search, whole in rows:
            print(f"{variant:26s} {built:>30s} {got:6d} {want or '':>9} {search:9.2f} "
                  f"{whole:9.2f}")
        total = sum(r[4] for r in rows)
        print(f"searches: {total:.2f} s in all (target under {TARGET_SEARCH:g} s), whole "
              f"commands {sum(r[5] for r in rows):.1f} s")
        for name in DESIGNS:
            out = subprocess.run([sys.executable, "-c", DESIGN, name, workdir / "designs",
                                  str(args.threads), workdir / "config.yaml"],
                                 capture_output=True, text=True, check=True).stdout.split()
            size, solvable, parts = (int(x) for x in out[:3])
            bfs, build, table = (float(x) for x in out[3:])
            print(f"designer's table of {name}: {size:,} placements, {solvable:,} reach the "
                  f"goal, {parts:,} components: build {build:.2f} s (BFS {bfs:.2f} s), "
                  f"table {table:.2f} s (target: both under {TARGET_DESIGN:g} s)")
        moves, ms = subprocess.run([sys.executable, "-c", SOLVE, workdir / "results", CARD],
                                   capture_output=True, text=True, check=True).stdout.split()
        _, whole = puzzledb("solve", "rush-hour-card", CARD, cwd=workdir)
        print(f"rush-hour-card solved from its database: {moves} moves in {float(ms):.2f} ms "
              f"(median of 20, warm); puzzledb solve, whole command {whole:.2f} s")
    for failure in failures:
        print(f"MISMATCH {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
