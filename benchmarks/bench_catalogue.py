"""Benchmark: the Rush Hour catalogue (docs/blocks.md, "The catalogue") against Fogleman's
program, a job's share of the 6x6 box, and a whole box.

    python benchmarks/bench_catalogue.py race [--box 5] [--jobs 2] [--peer /work/peers/rush]
    python benchmarks/bench_catalogue.py share [--name rush6] [--jobs 97] [--job 5] [--walls 1]
    python benchmarks/bench_catalogue.py whole [--name rush6-fogleman] [--jobs 2]
    python benchmarks/bench_catalogue.py board BOARD [--name rush6-fogleman]
    python benchmarks/bench_catalogue.py balance [--name rush5] [--jobs 2 3 4 8] [--units N]
    python benchmarks/bench_catalogue.py merge PART ... [--name rush6] [--scratch DIR]

race: his C++ enumerator (cpp/ of the peer) built in a scratch directory with config.h set
for the box (BoardSize, MaxID: his published counts of his boards) and two workers, run; then
our catalogue of the same box in his space (rush5-fogleman, rush6-fogleman) by `--jobs` job
processes side by side (each report.catalogue.search_part, then the merge): the wall seconds
of each, the clusters reaching the goal and the minimal puzzles per number of moves.  Exit
status 1 if the clusters reaching the goal or the minimal puzzles differ from his.

share: one job of `--jobs` (`--job`), in this process after the 4x4 box has loaded the
kernels: what it finds and its CPU seconds, so that the whole box is planned from it.

whole: the whole catalogue by `--jobs` job processes side by side, then the merge (a process
of its own): wall and CPU seconds, peak RSS, load, clusters, minimal puzzles, the hardest.

board: the unit of work holding a board (a catalogue of bars without walls), searched alone:
the row of the cluster whose farthest board it is (moves, boards, minimal), so that a
published puzzle is checked by computing it (Fogleman's hardest: BOARD "BCDDE. BCF.EG
B.FXXG HHHI.G ..JIKK LLJMM.", his A our X).

balance: every unit of work of a lane catalogue (the first --units of them, if given)
searched alone, its CPU seconds less those of a unit with nothing to search (the least), and
the boards of the clusters it finds; then each job's sum of both for J jobs, under the
split before split.py (units j, j + J, ...) and under split.py's: the most and the least a
job gets, and the most over the mean (1.00: perfectly even).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from puzzledb import puzzles
from puzzledb.puzzles.definitions import build
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
    merge(puzzles.get(name), parts, directory / "catalogue.csv", directory / "summary.csv",
          directory / "totals.csv")
    seconds = time.perf_counter() - started
    return seconds, rows(directory / "catalogue.csv")


def race(args):
    load = Path("/proc/loadavg").read_text().split()[0]
    binary = build_his(args.peer, args.box, args.scratch)
    his_seconds, his_solvable, his_minimal = run_his(binary)
    ours_seconds, table = run_ours(f"rush{args.box}-fogleman", args.jobs, args.scratch)
    ours_minimal = Counter(int(r["moves"]) for r in table if r["minimal"] == "true")
    print(f"load {load}; {args.box}x{args.box}: Fogleman's program {his_seconds:.1f} s (2 "
          f"workers), ours {ours_seconds:.1f} s ({args.jobs} jobs, his space)")
    print(f"clusters reaching the goal: his {his_solvable:,}; ours {len(table):,}")
    print(f"minimal: his {sum(his_minimal.values()):,}; ours {sum(ours_minimal.values()):,}")
    for moves in sorted(set(his_minimal) | set(ours_minimal), reverse=True):
        mark = "" if his_minimal[moves] == ours_minimal[moves] else "  (differs)"
        print(f"  {moves:3d} moves: his {his_minimal[moves]:,}, ours {ours_minimal[moves]:,}"
              f"{mark}")
    return 0 if (his_solvable, his_minimal) == (len(table), ours_minimal) else 1


def _run_children(commands):
    """Commands run side by side: wall seconds, CPU seconds (all), the largest peak RSS."""
    started = time.perf_counter()
    procs = {p.pid: p for p in map(subprocess.Popen, commands)}
    cpu = rss = 0.0
    while procs:
        pid, status, usage = os.wait4(-1, 0)
        if procs.pop(pid, None) is None:
            continue
        if status:
            for other in procs.values():  # the others' work is lost with this one's
                other.kill()
                other.wait()
            sys.exit(f"failed: {' '.join(commands[0][:3])} ...")
        cpu += usage.ru_utime + usage.ru_stime
        rss = max(rss, usage.ru_maxrss / 2**20)
    return time.perf_counter() - started, cpu, rss


def whole(args):
    """The whole catalogue by --jobs job processes side by side, then the merge (its own
    process): time, CPU, peak RSS, and what it found."""
    directory = Path(args.scratch) / args.name
    directory.mkdir(parents=True, exist_ok=True)
    parts = [directory / f"part{j}.npz" for j in range(args.jobs)]
    code = ("import sys; from puzzledb import puzzles; from puzzledb.report.catalogue import "
            "{}; p = puzzles.get(sys.argv[1]); ")
    job = code.format("search_part") + ("search_part(p, int(sys.argv[2]), int(sys.argv[3]), "
                                        "sys.argv[4], log=lambda line: print(line, "
                                        "file=sys.stderr))")
    loads = [Path("/proc/loadavg").read_text().split()[0]]
    if not args.merge_only:
        search = _run_children([[sys.executable, "-c", job, args.name, str(j), str(args.jobs),
                                 str(parts[j])] for j in range(args.jobs)])
        loads.append(Path("/proc/loadavg").read_text().split()[0])
        print(f"{args.name}: search {search[0]:,.0f} s wall, {search[1]:,.0f} s CPU "
              f"({args.jobs} jobs), peak RSS {search[2]:.2f} GiB a job; load {loads[0]} "
              f"at start, {loads[-1]} at end", flush=True)
    merge_code = code.format("merge") + "merge(p, sys.argv[2:-3], *sys.argv[-3:])"
    merged = _run_children([[sys.executable, "-c", merge_code, args.name,
                             *map(str, parts), str(directory / "catalogue.csv"),
                             str(directory / "summary.csv"), str(directory / "totals.csv")]])
    loads.append(Path("/proc/loadavg").read_text().split()[0])
    print(f"{args.name}: merge {merged[0]:,.0f} s wall, {merged[1]:,.0f} s CPU, peak RSS "
          f"{merged[2]:.2f} GiB; load {loads[-1]}")
    summary = pd.read_csv(directory / "summary.csv")
    hardest = rows(directory / "catalogue.csv", limit=1)[0]
    print(f"{args.name}: {int(summary.clusters.sum()):,} clusters reaching the goal, "
          f"{int(summary.minimal.sum()):,} minimal; hardest {hardest['moves']} moves, its "
          f"cluster {int(hardest['states']):,} boards: {hardest['board']}")
    return 0


def share(args):
    """One job's share of the units of work (job --job of --jobs), in this process: what it
    found and its CPU seconds, so that the whole box is planned from it."""
    puzzle = puzzles.get(args.name)
    if args.walls:
        definition = {k: v for k, v in puzzle.definition().items() if k != "ranking"}
        definition["catalogue"] = {**definition["catalogue"], "walls": args.walls}
        puzzle = build(f"{args.name}-walls", definition)
    load = Path("/proc/loadavg").read_text().split()[0]
    path = Path(args.scratch) / f"{args.name}-{args.job}of{args.jobs}.npz"
    started = time.process_time()
    search_part(puzzles.get("rush4"), 0, 1, path)  # the kernels compiled and loaded first
    warm = time.process_time()
    search_part(puzzle, args.job, args.jobs, path)
    seconds = time.process_time() - warm
    with np.load(path) as part:
        states, minimal = part["states"].astype(np.int64), part["minimal"]
    print(f"{args.name}, job {args.job} of {args.jobs}: {len(states):,} clusters reaching the "
          f"goal, {int(minimal.sum()):,} minimal, {int(states.sum()):,} boards searched: "
          f"{seconds:,.1f} CPU s ({seconds / max(1, states.sum()) * 1e9:.0f} ns a board; the "
          f"whole box about {seconds * args.jobs:,.0f} CPU s); load {load}; the kernels loaded "
          f"(or compiled) first by the 4x4 box, {warm - started:,.1f} CPU s")
    return 0


def board(args):
    """The unit of work holding a board, searched alone: its cluster's row."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from lane_units import unit_of  # a helper of the tests: the catalogue never needs it
    from puzzledb.puzzles.blocks.catalogue import job
    from puzzledb.puzzles.blocks.catalogue.lanes import units
    from puzzledb.puzzles.blocks.catalogue.split import job_of

    puzzle = puzzles.get(args.name)
    given = puzzle.format(puzzle.parse(args.board))
    unit = unit_of(puzzle, args.board)
    wall_sets, per = units(puzzle.lanes)
    total = len(wall_sets) * per
    started = time.process_time()
    found, _ = job.search(puzzle, job_of(unit, total), total)  # the unit alone
    seconds = time.process_time() - started
    info, far = np.concatenate(found["info"]), np.concatenate(found["far"])
    walls = np.concatenate(found["walls"])
    drawn = [puzzle.format(puzzle.board_of_key(f, w)) for f, w in zip(far, walls)]
    print(f"{args.name}: unit {unit:,} of {len(wall_sets) * per:,}: {len(info):,} clusters "
          f"reaching the goal, {int(info[:, 0].sum()):,} boards, the most moves "
          f"{int(info[:, 1].max())}; {seconds:.1f} CPU s")
    for i in np.flatnonzero(np.array(drawn) == given):
        print(f"{given}: {int(info[i, 1])} moves, its cluster {int(info[i, 0]):,} boards, "
              f"minimal {bool(info[i, 2])}")
        return 0
    print(f"{given}: not the farthest board of a cluster of its unit")
    return 1


def balance(args):
    """Each unit's work alone, then the jobs' work under the two splits."""
    from puzzledb.puzzles.blocks.catalogue import job
    from puzzledb.puzzles.blocks.catalogue.lanes import units
    from puzzledb.puzzles.blocks.catalogue.split import job_of, units_of

    puzzle = puzzles.get(args.name)
    wall_sets, per = units(puzzle.lanes)
    total = len(wall_sets) * per
    job.search(puzzles.get("rush4"), 0, 1)  # the kernels compiled and loaded first
    count = min(total, args.units or total)
    seconds, boards = np.zeros(count), np.zeros(count, np.int64)
    for u in range(count):
        started = time.process_time()
        found, _ = job.search(puzzle, job_of(u, total), total)
        seconds[u] = time.process_time() - started
        boards[u] = sum(int(i[:, 0].sum()) for i in found["info"])
    empty = seconds.min()
    seconds -= empty
    print(f"{args.name}: {count:,} units of {total:,}: {seconds.sum():,.1f} CPU s (each less "
          f"{empty:.3f} s, an empty unit's), {boards.sum():,} boards in clusters "
          f"reaching the goal; the largest unit {seconds.max():.2f} s, "
          f"{boards.max():,} boards")
    for jobs in args.jobs:
        for rule, share in (("j, j + J, ...", lambda j: range(j, count, jobs)),
                            ("split.py", lambda j: list(units_of(j, jobs, count)))):
            work = [(seconds[list(share(j))].sum(), boards[list(share(j))].sum())
                    for j in range(jobs)]
            s, b = np.array([w[0] for w in work]), np.array([w[1] for w in work])
            print(f"  {jobs} jobs, {rule:>13}: CPU s a job {s.min():,.2f} to {s.max():,.2f} "
                  f"(most/mean {s.max() / s.mean():.3f}); boards {b.min():,} to {b.max():,} "
                  f"(most/mean {b.max() / b.mean():.3f})")
    return 0


def merge_parts(args):
    """The given parts merged in a child process: its time and peak RSS, the stated memory."""
    from puzzledb.bfs.memory import mb_of
    from puzzledb.report.catalogue_parts import merge_bytes

    directory = Path(args.scratch) / f"{args.name}-merge"
    directory.mkdir(parents=True, exist_ok=True)
    code = ("import sys; from puzzledb import puzzles; from puzzledb.report.catalogue import "
            "merge; held = merge(puzzles.get(sys.argv[1]), sys.argv[2:-3], *sys.argv[-3:], "
            "log=lambda line: print(line, file=sys.stderr))")
    load = Path("/proc/loadavg").read_text().split()[0]
    seconds, cpu, rss = _run_children([[sys.executable, "-c", code, args.name, *args.parts,
                                        *(str(directory / f) for f in
                                          ("catalogue.csv", "summary.csv", "totals.csv"))]])
    stated = merge_bytes(puzzles.get(args.name), len(args.parts))
    clusters = int(pd.read_csv(directory / "summary.csv").clusters.sum())
    print(f"{args.name}: merge of {len(args.parts)} parts, {clusters:,} rows: {seconds:,.1f} s "
          f"wall, {cpu:,.1f} s CPU, peak RSS {rss * 1024:,.0f} MiB; stated "
          f"{stated / 2**20:,.0f} MiB besides the process, mem_mb {mb_of(stated)}; load {load} "
          f"at start")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("race")
    p.add_argument("--box", type=int, default=5, choices=(4, 5, 6))
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--peer", default="/work/peers/rush")
    p.add_argument("--scratch", default=tempfile.gettempdir())
    p = sub.add_parser("share")
    p.add_argument("--name", default="rush6")
    p.add_argument("--jobs", type=int, default=97)
    p.add_argument("--job", type=int, default=5)
    p.add_argument("--walls", type=int, default=0, help="the catalogue with up to N walls")
    p.add_argument("--scratch", default=tempfile.gettempdir())
    p = sub.add_parser("whole")
    p.add_argument("--name", default="rush6-fogleman")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--scratch", default=tempfile.gettempdir())
    p.add_argument("--merge-only", action="store_true", help="the parts made before: merge")
    p = sub.add_parser("board")
    p.add_argument("board")
    p.add_argument("--name", default="rush6-fogleman")
    p = sub.add_parser("balance")
    p.add_argument("--name", default="rush5")
    p.add_argument("--jobs", type=int, nargs="+", default=[2, 3, 4, 8])
    p.add_argument("--units", type=int, default=None, help="the first N units only")
    p = sub.add_parser("merge")
    p.add_argument("parts", nargs="+")
    p.add_argument("--name", default="rush6")
    p.add_argument("--scratch", default=tempfile.gettempdir())
    args = parser.parse_args()
    return {"race": race, "share": share, "whole": whole, "board": board,
            "balance": balance, "merge": merge_parts}[args.what](args)


if __name__ == "__main__":
    sys.exit(main())
