"""Benchmark: the Rush Hour catalogue (docs/blocks.md, "The catalogue") against Fogleman's
program, and slices of the 6x6 box to plan its run.

    python benchmarks/bench_catalogue.py race [--box 5] [--jobs 2] [--peer /work/peers/rush]
    python benchmarks/bench_catalogue.py slices [--box 6] [--at 0,66000000,...] [--size N]

race: his C++ enumerator (cpp/ of the peer) built in a scratch directory with config.h set
for the box (BoardSize, MaxID: his published counts of his boards) and two workers, run; then
our catalogue of the same box (rush5, rush6) by `--jobs` job processes side by side (each
report.catalogue.search_part, then the merge): the wall seconds of each, the clusters
reaching the goal and the minimal puzzles per number of moves, ours restricted to his space
(no other piece in the red car's row, no row full of horizontal pieces nor column full of
vertical ones: his enumeration leaves those out) and in all.  Exit status 1 if the clusters
reaching the goal in his space differ from his count.

slices: `--size` candidates of the box from each position of `--at`, one process: the
clusters, boards searched and CPU seconds, so that the whole box is planned from them.
"""

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

from puzzledb import puzzles
from puzzledb.report.catalogue import merge, rows, search_part

HIS_BOARDS = {4: 1348, 5: 268108, 6: 243502785}  # his config.h's MaxID per box (no walls)


def build_his(peer, box, scratch):
    """His cpp/ copied to scratch, config.h set for the box and two workers, built."""
    where = Path(scratch) / f"rush-cpp-{box}"
    shutil.rmtree(where, ignore_errors=True)
    shutil.copytree(Path(peer) / "cpp", where)
    config = (where / "src" / "config.h").read_text()
    config = re.sub(r"const int BoardSize = \d+;", f"const int BoardSize = {box};", config)
    config = re.sub(r"const int NumWorkers = \d+;", "const int NumWorkers = 2;", config)
    config = re.sub(r"\nconst uint64_t MaxID = \d+;.*", "", config)
    config = config.replace("const int BoardSize2", f"const uint64_t MaxID = "
                            f"{HIS_BOARDS[box]};\nconst int BoardSize2")
    (where / "src" / "config.h").write_text(config)
    subprocess.run(["make", "release", "-j2"], cwd=where, check=True, capture_output=True)
    return where / "bin" / "release" / "main"


def run_his(binary):
    started = time.perf_counter()
    ran = subprocess.run([str(binary)], capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - started
    last = ran.stderr.strip().splitlines()[-1]
    solvable = int(re.search(r"(\d+) slv", last).group(1))
    minimal = Counter(int(line.split()[0]) for line in ran.stdout.splitlines() if line)
    return seconds, solvable, minimal


def his_space(board, box):
    """Whether a board (a drawing) is one his enumeration lists."""
    rows_ = board.split()
    goal_row = box // 2 if box % 2 else box // 2 - 1
    for r, row in enumerate(rows_):
        horizontal = [ch for i, ch in enumerate(row) if ch != "." and
                      ((i > 0 and row[i - 1] == ch) or (i + 1 < box and row[i + 1] == ch))]
        if r == goal_row and set(horizontal) - {"X"}:
            return False
        if len(horizontal) == box:
            return False
    for c in range(box):
        column = "".join(row[c] for row in rows_)
        vertical = [ch for i, ch in enumerate(column) if ch != "." and
                    ((i > 0 and column[i - 1] == ch) or (i + 1 < box and column[i + 1] == ch))]
        if len(vertical) == box:
            return False
    return True


def run_ours(name, jobs, scratch):
    """The catalogue by `jobs` processes side by side, then merged: seconds, rows."""
    directory = Path(scratch) / name
    parts = [directory / f"part{j}.npz" for j in range(jobs)]
    started = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-c",
                               "import sys; from puzzledb import puzzles; "
                               "from puzzledb.report.catalogue import search_part; "
                               f"search_part(puzzles.get({name!r}), {j}, {jobs}, sys.argv[1])",
                               str(parts[j])]) for j in range(jobs)]
    if any(p.wait() for p in procs):
        sys.exit("a job failed")
    merge(puzzles.get(name), parts, directory / "catalogue.csv", directory / "summary.csv")
    seconds = time.perf_counter() - started
    return seconds, rows(directory / "catalogue.csv")


def race(args):
    load = Path("/proc/loadavg").read_text().split()[0]
    binary = build_his(args.peer, args.box, args.scratch)
    his_seconds, his_solvable, his_minimal = run_his(binary)
    ours_seconds, table = run_ours(f"rush{args.box}", args.jobs, args.scratch)
    inside = [r for r in table if his_space(r["board"], args.box)]
    ours_minimal = Counter(int(r["moves"]) for r in inside if r["minimal"] == "true")
    print(f"load {load}; {args.box}x{args.box}: Fogleman's program {his_seconds:.1f} s (2 "
          f"workers), ours {ours_seconds:.1f} s ({args.jobs} jobs, warm kernels)")
    print(f"clusters reaching the goal: his {his_solvable:,}; ours {len(inside):,} in his "
          f"space, {len(table):,} in all")
    print(f"minimal: his {sum(his_minimal.values()):,}; ours {sum(ours_minimal.values()):,} "
          f"in his space, {sum(r['minimal'] == 'true' for r in table):,} in all")
    for moves in sorted(set(his_minimal) | set(ours_minimal), reverse=True):
        mark = "" if his_minimal[moves] == ours_minimal[moves] else "  (differs)"
        print(f"  {moves:3d} moves: his {his_minimal[moves]:,}, ours {ours_minimal[moves]:,}"
              f"{mark}")
    return 0 if his_solvable == len(inside) else 1


def slices(args):
    puzzle = puzzles.get(f"rush{args.box}")
    kernels, tables = puzzle.compiled, puzzle.tables()
    load = Path("/proc/loadavg").read_text().split()[0]
    for at in (int(a) for a in args.at.split(",")):
        walk = kernels.new_walk(tables, 0)
        keys = np.empty((args.size, tables.empty.size), np.uint64)
        walls = np.empty(args.size, np.uint64)
        started = time.process_time()
        count = kernels.boards(tables, walk, at, at + args.size, keys, walls)
        skipped = time.process_time() - started
        info, *_ = kernels.clusters(tables, keys, walls, count, kernels.new_search(tables),
                                    kernels.new_search(tables))
        seconds = time.process_time() - started - skipped
        print(f"load {load}; candidates {at:,} + {count:,}: {len(info):,} clusters, "
              f"{int(info[:, 1].sum()):,} boards, {int(info[:, 3].sum()):,} minimal, "
              f"{seconds:.1f} CPU s searching ({skipped:.1f} s listing the candidates up "
              f"to there)")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("race")
    p.add_argument("--box", type=int, default=5, choices=(4, 5, 6))
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--peer", default="/work/peers/rush")
    p.add_argument("--scratch", default=tempfile.gettempdir())
    p = sub.add_parser("slices")
    p.add_argument("--box", type=int, default=6, choices=(4, 5, 6))
    p.add_argument("--at", default="0,66000000,132000000,198000000,260000000")
    p.add_argument("--size", type=int, default=262144)
    args = parser.parse_args()
    return race(args) if args.what == "race" else slices(args)


if __name__ == "__main__":
    sys.exit(main())
