"""Symmetry in the search (issue 42), whole workflow against whole command, alternated:

    python benchmarks/bench_symmetry.py cube --twsearch DIR --depth 9    # twsearch's symm 3x3x3
    python benchmarks/bench_symmetry.py fifteen --depth 30                # symmetry: none beside
    python benchmarks/bench_symmetry.py kernel --puzzle fifteen           # ns a state's neighbours

`cube`: twsearch's samples/symm/3x3x3.tws (half-turn metric), `twsearch -t 2 -M 19000 -F -g`
(its search up to rotations and inversion, sorted arrays of classes) stopped once it prints
the depth asked for, against the whole workflow (`snakemake --cores 2`: the frontier search
up to the 48 symmetries and inversion puzzledb finds, summary, deepest positions, plot,
report) with that depth_limit; both tables of positions and of classes, the published table,
the classes/positions ratio at the deepest depth.  `fifteen`: the workflow to depth_limit
with `symmetry: {fifteen: classes}` (its transpose), and with `symmetry: {fifteen: none}`
(its default).  `kernel`: the CPU
nanoseconds of one state's neighbours, plain and canonical (its class puzzle's), over
300,000 random canonical states of a puzzle whose keys are one word.  Each run is timed
whole (wall and CPU seconds, peak RSS of the process and its children); the load average
before it is shown: the machine may be shared.  The kernels are warm (the workflow to depth 2
first fills the cache).  Wrap it in `flock /work/locks/memory` on a shared machine: twsearch
takes about 9 GB.
"""

import argparse
import csv
import os
import shutil
import sys
import tempfile
from pathlib import Path

import twsearch_peer as peer

# The 3x3x3's positions by depth in the half-turn metric (the published table).
CUBE_HTM = [1, 18, 243, 3240, 43239, 574908, 7618438, 100803036, 1332343288, 17596479795]


def workflow(scratch, config_lines, name, path=None, cache=None):
    """The whole workflow in a fresh directory of scratch, measured; (Run, summary rows as
    dicts) (the directory removed after)."""
    workdir = Path(tempfile.mkdtemp(dir=scratch))
    try:
        if path is not None:
            peer.define(workdir, name, path, "htm", config_lines).rename(workdir / "config.yaml")
        else:
            (workdir / "config.yaml").write_text(f"puzzles: [{name}]\n{config_lines}")
        run = peer.measured([sys.executable, "-m", "snakemake", "--snakefile",
                             str(peer.ROOT / "Snakefile"), "--directory", str(workdir),
                             "--cores", "2", "--quiet"], env=peer.puzzledb_env(cache))
        summary = workdir / "results" / name / "summary.csv"
        rows = list(csv.DictReader(summary.open())) if summary.exists() else []
        return run, rows
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def describe(run, load):
    return (f"{run.seconds:.1f} s wall, {run.cpu:.1f} s CPU, peak {run.peak_mib:,.0f} MiB, "
            f"load {load:.1f}" + (f", {run.ended()}" if run.ended() else ""))


def cube(args, scratch):
    root = peer.checkout(args.twsearch, args.clone_dir)
    program = peer.binary(root, args.twsearch_binary)
    path = root / "samples/symm/3x3x3.tws"
    depth = args.depth
    command = peer.twsearch_command(program, path, 2, memory_mb=19000, flags=("-F",))
    cache = scratch / "kernels"

    def config(limit):
        return f"memory_mb: 19000\nthreads: 2\ndepth_limit: {{cube: {limit}}}\n"

    # untimed, the workflow to depth 2: the kernels its jobs use compiled into the cache (a
    # `puzzledb build` compiles fewer: a step job compiled for minutes after one)
    workflow(scratch, config(2), "cube", path, cache)
    runs = []
    for _ in range(args.repeat):
        load = os.getloadavg()[0]
        theirs = peer.measured(command, stop=lambda line: line.startswith(f"Dist {depth} "))
        print(f"twsearch: {' '.join(command)}: {describe(theirs, load)}", flush=True)
        load2 = os.getloadavg()[0]
        ours, rows = workflow(scratch, config(depth), "cube", path, cache)
        print(f"workflow: depth_limit {depth}: {describe(ours, load2)}", flush=True)
        runs.append((theirs, ours, rows, load, load2))
    theirs, ours, rows, _, _ = runs[-1]
    positions, classes = peer.twsearch_symmetric(theirs.stdout)
    print(f"\n{'depth':>5} {'published':>15} {'twsearch':>15} {'tw classes':>12} "
          f"{'puzzledb':>15} {'classes':>12}")
    for d in range(depth + 1):
        cells = [CUBE_HTM[d]] + [t[d] if d < len(t) else "-" for t in (positions, classes)] \
            + ([int(rows[d]["count"]), int(rows[d]["classes"])] if d < len(rows) else ["-"] * 2)
        print(f"{d:>5} " + " ".join(f"{c:>15,}" if isinstance(c, int) else f"{c:>15}"
                                    for c in cells))
    ours_table = [int(r["count"]) for r in rows]
    print(f"puzzledb's positions {'equal' if ours_table == CUBE_HTM[:depth + 1] else 'DIFFER'}"
          f" to the published table to depth {depth}")
    if len(rows) > depth:
        ratio = int(rows[depth]["count"]) / int(rows[depth]["classes"])
        print(f"depth {depth}: {int(rows[depth]['classes']):,} classes, {ratio:.1f}x fewer "
              f"than positions" + (f" (twsearch {CUBE_HTM[depth] / classes[depth]:.1f}x)"
                                   if depth < len(classes) else ""))
    for theirs, ours, _, _, _ in runs:
        print(f"twsearch / workflow: {theirs.seconds / ours.seconds:.2f} wall, "
              f"{theirs.cpu / ours.cpu:.2f} CPU")


def fifteen(args, scratch):
    depth = args.depth
    cache = scratch / "kernels"
    base = f"memory_mb: 8000\nthreads: 2\ndepth_limit: {{fifteen: {depth}}}\n"
    classes, none = "symmetry: {fifteen: classes}\n", "symmetry: {fifteen: none}\n"
    for extra in (classes, none):  # untimed: the kernels compiled
        workflow(scratch, base.replace(f": {depth}}}", ": 2}") + extra, "fifteen", cache=cache)
    runs = {"symmetry": [], "none": []}
    for _ in range(args.repeat):
        for key, extra in (("symmetry", classes), ("none", none)):
            load = os.getloadavg()[0]
            run, rows = workflow(scratch, base + extra, "fifteen", cache=cache)
            print(f"{key:8s}: {describe(run, load)}; depth {depth}: "
                  f"{rows[-1]['count'] if rows else '-'} positions"
                  + (f" in {rows[-1]['classes']} classes" if rows and "classes" in rows[-1]
                     else ""), flush=True)
            runs[key].append(run)
    for ours, theirs in zip(runs["symmetry"], runs["none"]):
        print(f"symmetry / none: {ours.seconds / theirs.seconds:.2f} wall, "
              f"{ours.cpu / theirs.cpu:.2f} CPU")


def kernel(args, scratch):
    """CPU ns a state of the neighbours kernel, the puzzle's and its class puzzle's."""
    import time

    import numpy as np
    from numba import njit

    from puzzledb import puzzles
    from puzzledb.compiled import neighbours
    from puzzledb.puzzles.symmetric import Classes

    @njit
    def expand(keys, out, work, t):
        total = 0
        for i in range(keys.size):
            total += neighbours(np.int64(keys[i]), 0, out, work, t)
        return total

    puzzle = puzzles.get(args.puzzle)
    classes = Classes(puzzle, puzzle.symmetry_group())
    ranks = np.random.default_rng(2).integers(0, puzzle.size, 300_000).astype(np.uint64)
    canonical = np.sort(classes.canonical(ranks)[0])
    for name, p in (("plain", puzzle), ("canonical", classes)):
        out, work = np.empty(p.max_moves, np.int64), np.empty(p.work_size, np.int64)
        expand(canonical[:10], out, work, p.tables())  # compiled first
        began = time.process_time()
        expand(canonical, out, work, p.tables())
        seconds = time.process_time() - began
        print(f"{args.puzzle} {name:9s} neighbours: {seconds / canonical.size * 1e9:,.0f} ns "
              f"of CPU a state (load {os.getloadavg()[0]:.1f})")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("race", choices=["cube", "fifteen", "kernel"])
    parser.add_argument("--puzzle", default="fifteen", help="kernel: the puzzle")
    peer.add_arguments(parser)
    parser.add_argument("--depth", type=int, default=None,
                        help="depth limit (default: 9 for cube, 30 for fifteen)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--scratch", type=Path, default=None,
                        help="where the databases and kernel cache go (removed after)")
    args = parser.parse_args(argv)
    if args.depth is None:
        args.depth = 9 if args.race == "cube" else 30
    print(f"puzzledb from {peer.puzzledb_env()['PYTHONPATH']}; {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(dir=args.scratch) as tmp:
        {"cube": cube, "fifteen": fifteen, "kernel": kernel}[args.race](args, Path(tmp))


if __name__ == "__main__":
    main()
