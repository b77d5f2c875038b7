"""Benchmark: BFS time, rate and peak memory of puzzles' database builds, next to the targets;
optionally eleven built end to end by Snakemake beside the C program bfs2.

    python benchmarks/bench_bfs.py fifteen-6colour fifteen-3colour eight [--threads 2]
    python benchmarks/bench_bfs.py --config benchmarks/definitions.yaml domino-5x3 ...
    python benchmarks/bench_bfs.py eleven --snakemake --peer-bfs2 /path/to/npuzzle-bfs2
    python benchmarks/bench_bfs.py --config benchmarks/definitions.yaml seven-by-two \
        --store counts --memory-mb 14000 --repeat 1
    python benchmarks/bench_bfs.py --config benchmarks/definitions.yaml eleven-multi eleven \
        --expansion-only

Each puzzle is built from scratch in a fresh process (so the peak RSS is its own) into a
temporary directory; the figures are the BFS time (expanding, extracting and writing every
layer; loading the compiled kernels apart), the process's CPU seconds and its states per
second.  `--config` names a config file whose `define:` puzzles may be benchmarked too; the
last column says whether the search reached every rank (a dense rank space).

`--expansion-only`: the layer expansions alone, in memory, no layer extracted or written (the
layer writer's thread shares the cores with the search, and is the same work for two puzzles
of one space): each depth's expansion and relabelling timed, their sums printed with the
widest depths' times.  For comparing two expansions of one space, e.g. two metrics.  Every
kernel the search declares (its kernels(), both steps of an expansion that also goes
backward) is loaded before the clock starts.  Ungraded puzzles only; --store, --memory-mb
and --scratch do not apply.

`--mark` (with --expansion-only): also each layer's neighbours set in a bitset of the whole
space by the expansion's mark, as the frontier's dense depths set them; its CPU seconds
printed apart (the CPU column leaves them out).

`--snakemake`: eleven's database built by `snakemake --cores 2 results/eleven/layers/
manifest.json` from no results in a scratch directory, warm (one untimed run first fills
the kernel cache), timed from outside: Snakemake's start, the job's imports and the writing
of every layer included.  `--peer-bfs2 PATH`: the same run also times an already built
`npuzzle-bfs2` (stubbscroll/SOLVER's bfs2.c with npuzzle.c) exhausting the 3x4 puzzle from
its goal, on the input file this script writes, between two Snakemake runs, and prints the
ratio.  The load average is printed with every figure: the machine is shared.
"""

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import json, resource, sys, time
from puzzledb import puzzles
from puzzledb.bfs import in_memory, select
from puzzledb.config import load_definitions
from puzzledb.query.kinds import KINDS
if sys.argv[4]:
    load_definitions(sys.argv[4])
puzzle = puzzles.get(sys.argv[1])
plan = select.choose(puzzle, KINDS[sys.argv[5]], int(sys.argv[6]),
                     checkpoint_minutes=float(sys.argv[7]))
report = in_memory.build(puzzle, sys.argv[2], plan, threads=int(sys.argv[3]), progress=True,
                         log=lambda m: print(m, file=sys.stderr, flush=True))
print(json.dumps(dict(report.__dict__, ranks=puzzle.size, cpu=time.process_time(),
                      peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)))
"""

CHILD_EXPANSIONS = """
import json, sys, time
import numpy as np
from puzzledb import puzzles
from puzzledb.bfs.bitset import new_bitset
from puzzledb.bfs.searches import TwoBitSearch
from puzzledb.compiled import prepare, set_threads
from puzzledb.config import load_definitions
if sys.argv[3]:
    load_definitions(sys.argv[3])
set_threads(int(sys.argv[2]))
puzzle = puzzles.get(sys.argv[1])
search = TwoBitSearch(puzzle)
prepare(search.kernels())
search.start(puzzle.goal_ranks())
bits = new_bitset(puzzle.size) if sys.argv[4] else None
if bits is not None:  # loaded (or compiled) before the clock starts
    search.expansion.mark(np.sort(puzzle.goal_ranks()), 0, bits)
depths, expand, relabel, mark = [], 0.0, 0.0, 0.0
started = time.process_time()
while True:
    t0 = time.perf_counter()
    found = search.expand(len(depths))
    t1 = time.perf_counter()
    search.advance()
    expand += t1 - t0
    relabel += time.perf_counter() - t1
    if not found:
        break
    depths.append((len(depths) + 1, found, t1 - t0))
    if bits is not None:  # --mark: the layer's neighbours set as a dense depth sets them
        pieces = [piece.copy() for piece in search.current()]
        c0 = time.process_time()
        for piece in pieces:
            search.expansion.mark(piece, 0, bits)
        mark += time.process_time() - c0
print(json.dumps(dict(expand=expand, relabel=relabel, mark=mark, depths=depths,
                      cpu=time.process_time() - started - mark)))
"""

# The targets of issue 11 and the figures docs/benchmarks.md had before it (BFS seconds, 2
# threads): what each puzzle's line is compared with.
SEED_PYPY_FIFTEEN_3COLOUR = 26.0  # the seed's own program under PyPy, docs/benchmarks.md
TARGETS = {
    "fifteen-3colour": (SEED_PYPY_FIFTEEN_3COLOUR / 20,
                        "20x the seed's PyPy program (26 s)"),
    "fourteen": (3.4, "keep docs/benchmarks.md's 3.0-3.4 s"),
    "flipit-square": (0.15, "keep docs/benchmarks.md's 0.15 s"),
    "flipit-square-diagonal": (0.15, "keep docs/benchmarks.md's 0.15 s"),
    "eleven": (5.0, "the BFS near 5 s (about 50 M states/s on 2 cores)"),
    "seven-by-two": (15 * 60, "faster than the GPU program's 17 min 50 s: under 15 min"),
}
ELEVEN_RATIO = 25  # eleven end to end by Snakemake at least 25 times as fast as bfs2

# bfs2 reads the puzzle from stdin: the 3x4 goal (the blank a space, last), so it exhausts
# every reachable state: the repository's npuzzle/11-start.txt, byte for byte
BFS2_INPUT = "# example of non-square puzzle\nsize 4 3\nmap\n1234\n5678\n9AB \n"
ELEVEN_STATES = 239_500_800


def load():
    return os.getloadavg()[0]


def build_in_process(name, args):
    """One build in a process of its own; its report, wall seconds (the whole process:
    imports, kernels, search) included.  Its log lines go to a file beside the results
    directory (benchmarks/out/bfs-<name>.log), to follow with tail -f in a long run."""
    logs = ROOT / "benchmarks" / "out"
    logs.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bench-bfs-", dir=args.scratch) as tmp, \
            open(logs / f"bfs-{name}.log", "w") as log:
        started = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", CHILD, name, tmp, str(args.threads),
                              args.config, args.store, str(args.memory_mb),
                              str(args.checkpoint_minutes)],
                             stdout=subprocess.PIPE, stderr=log, text=True, check=True)
        wall = time.perf_counter() - started
    return dict(json.loads(out.stdout.splitlines()[-1]), wall=wall)


def bench_builds(args):
    print(f"{'puzzle':22s} {'states':>12s} {'depth':>5s} {'BFS s':>7s} {'load s':>6s} "
          f"{'CPU s':>6s} {'Mstates/s':>9s} {'RSS MiB':>7s} {'every rank':>10s} "
          f"{'loadavg':>7s}  target")
    for name in args.puzzles:
        runs = []
        for _ in range(args.repeat):
            before = load()
            runs.append(dict(build_in_process(name, args), loadavg=before))
        best = min(runs, key=lambda r: r["seconds"])
        rate = best["total"] / best["seconds"] / 1e6
        target = ""
        if name in TARGETS:
            limit, what = TARGETS[name]
            verdict = "met" if best["seconds"] <= limit else "MISSED"
            if name == "seven-by-two":  # the whole build, not the BFS alone
                verdict = "met" if best["wall"] <= limit else "MISSED"
            target = f"<= {limit:.2f} s ({what}): {verdict}"
        print(f"{name:22s} {best['total']:12,d} {best['max_depth']:5d} {best['seconds']:7.2f} "
              f"{best['compile_seconds']:6.2f} {best['cpu']:6.2f} {rate:9.1f} "
              f"{max(r['peak_rss_mb'] for r in runs):7.0f} "
              f"{'yes' if best['total'] == best['ranks'] else 'no':>10s} "
              f"{best['loadavg']:7.2f}  {target}", flush=True)
        extra = f"  whole process {best['wall']:.1f} s wall"
        if best.get("checkpoints"):
            extra += (f"; {best['checkpoints']} checkpoints written in "
                      f"{best['checkpoint_seconds']:.1f} s beside the search")
        print(extra + f"; store {best['store']}", flush=True)


def bench_expansions(args):
    print(f"{'puzzle':22s} {'depth':>5s} {'expand s':>8s} {'relabel s':>9s} {'CPU s':>6s} "
          f"{'loadavg':>7s}  widest depths found: ms to find them / M states")
    for name in args.puzzles:
        runs = []
        for _ in range(args.repeat):
            before = load()
            out = subprocess.run([sys.executable, "-c", CHILD_EXPANSIONS, name,
                                  str(args.threads), args.config, "mark" if args.mark else ""],
                                 stdout=subprocess.PIPE, check=True, text=True)
            runs.append(dict(json.loads(out.stdout.splitlines()[-1]), loadavg=before))
        best = min(runs, key=lambda r: r["expand"])
        widest = sorted(sorted(best["depths"], key=lambda d: -d[1])[:5])
        print(f"{name:22s} {len(best['depths']):5d} {best['expand']:8.2f} "
              f"{best['relabel']:9.2f} {best['cpu']:6.2f} {best['loadavg']:7.2f}  " +
              " ".join(f"d{d}:{1000 * s:.0f}/{n / 1e6:.1f}" for d, n, s in widest),
              flush=True)
        if args.mark:
            print(f"{'':22s} mark: {min(r['mark'] for r in runs):.2f} s CPU (the best run)",
                  flush=True)


def snakemake_eleven(workdir, threads):
    """Wall and CPU seconds of `snakemake` building eleven's layers from no results."""
    shutil.rmtree(workdir / "results", ignore_errors=True)
    shutil.rmtree(workdir / ".snakemake", ignore_errors=True)
    before = load()
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "snakemake", "results/eleven/layers/manifest.json",
                    "--snakefile", str(ROOT / "Snakefile"), "--directory", str(workdir),
                    "--cores", str(threads), "--quiet"],
                   check=True, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    manifest = json.loads((workdir / "results/eleven/layers/manifest.json").read_text())
    assert manifest["total"] == ELEVEN_STATES, manifest["total"]
    cpu = after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime
    return wall, cpu, before, manifest["bfs_seconds"]


def bfs2(binary, workdir):
    """Wall and CPU seconds of bfs2 exhausting the 3x4 puzzle; checks its last count."""
    run = workdir / "bfs2"
    run.mkdir(exist_ok=True)
    (run / "11-start.txt").write_text(BFS2_INPUT)
    before = load()
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    with open(run / "11-start.txt") as stdin:
        out = subprocess.run([str(Path(binary).resolve())], stdin=stdin, cwd=run,
                             capture_output=True, text=True, check=True).stdout
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    for layer in run.glob("GEN-*"):  # its layer files: 4 bytes a state, 914 MiB in all
        layer.unlink()
    totals = re.findall(r"(\d+): q (\d+) tot (\d+)", out)
    assert totals and int(totals[-1][2]) == ELEVEN_STATES, out[-300:]
    return wall, after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime, before, None


def bench_end_to_end(args):
    with tempfile.TemporaryDirectory(prefix="bench-eleven-") as tmp:
        workdir = Path(tmp)
        (workdir / "config.yaml").write_text(
            f"puzzles: [eleven]\nresults: results\nthreads: {args.threads}\n")
        snakemake_eleven(workdir, args.threads)  # untimed: fills the kernel cache
        runs = [("snakemake", *snakemake_eleven(workdir, args.threads))]
        if args.peer_bfs2:
            runs.append(("bfs2", *bfs2(args.peer_bfs2, workdir)))
            runs.append(("snakemake", *snakemake_eleven(workdir, args.threads)))
    print(f"\neleven end to end ({ELEVEN_STATES:,} states), in this order:")
    for what, wall, cpu, before, bfs in runs:
        inside = f"  (its BFS {bfs:.2f} s)" if bfs is not None else ""
        print(f"  {what:10s} {wall:8.2f} s wall {cpu:8.2f} s CPU  "
              f"{ELEVEN_STATES / wall / 1e6:6.1f} M states/s  loadavg {before:.2f}{inside}")
    ours = min(run[1] for run in runs if run[0] == "snakemake")
    if args.peer_bfs2:
        peer = next(run[1] for run in runs if run[0] == "bfs2")
        ratio = peer / ours
        verdict = "met" if ratio >= ELEVEN_RATIO else "MISSED"
        print(f"  bfs2 / snakemake (best): {ratio:.1f}x (target {ELEVEN_RATIO}x): {verdict}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("puzzles", nargs="*")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3, help="runs per puzzle; best is shown")
    parser.add_argument("--config", default="", help="a config file with define: puzzles")
    parser.add_argument("--store", default="layers", choices=("layers", "counts", "distances"),
                        help="what the builds keep (counts, distances: no layer files, "
                             "checkpoints; bench_distances.py compares the two)")
    parser.add_argument("--memory-mb", type=int, default=8000)
    parser.add_argument("--checkpoint-minutes", type=float, default=5.0)
    parser.add_argument("--scratch", default=None,
                        help="directory for the builds' results and checkpoints (default: "
                             "the system's temporary directory)")
    parser.add_argument("--expansion-only", action="store_true",
                        help="time the layer expansions alone, in memory, no layers written")
    parser.add_argument("--mark", action="store_true",
                        help="with --expansion-only: also set each layer's neighbours in a "
                             "bitset, as the frontier's dense depths do (Expansion.mark)")
    parser.add_argument("--snakemake", action="store_true",
                        help="eleven built end to end by snakemake (warm kernel cache)")
    parser.add_argument("--peer-bfs2", metavar="PATH",
                        help="an already built npuzzle-bfs2, run beside --snakemake")
    args = parser.parse_args()
    if args.peer_bfs2:
        args.snakemake = True
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.puzzles:
        (bench_expansions if args.expansion_only else bench_builds)(args)
    if args.snakemake:
        bench_end_to_end(args)


if __name__ == "__main__":
    main()
