"""Benchmark: a sharded build (config `shards:`) against the in-memory build of the same
puzzle, both through Snakemake on this machine, and what Snakemake's scheduling costs.

    python benchmarks/bench_sharded.py [--puzzle eleven] [--segments 16]
                                       [--job-states 32000000 2000000] [--cores 2]
    python benchmarks/bench_sharded.py --probe-only      # the overhead probe alone

Runs, in a scratch directory (kept with --keep DIR), `snakemake --cores C` for
results/<puzzle>/layers/manifest.json: first the in-memory build (rule bfs), then the
sharded build once per --job-states value.  For each run it prints the wall time, the load
average around it, its jobs (count, seconds, peak RSS per rule, from Snakemake's benchmark
files), the ratio to the in-memory wall time, whether every job's peak RSS stayed below the
in-memory job's, and whether the layers (count and CRC-32 per depth) equal the in-memory
build's and, for the built-in puzzles below, the published table.  Then the timeline of the
fanned-out depths: each depth's span (from the end of the step before it to the end of its
own step), its jobs' own seconds, and the idle time in between (no job running: Snakemake
spawning jobs and re-evaluating the DAG after each checkpoint).

The overhead probe (`eight`, 2 segments, job_states 1, depth limit 8) fans out every depth
from 2 on into jobs with nothing to do: a job's own seconds there are its start-up (a Python
process, imports, compiled kernels loaded from the cache), and a depth's span is the
scheduling cost of one fanned-out depth (expand, merge and step jobs, one checkpoint).

A warm-up (untimed) first builds `eight` both ways in this process's numba cache, so that
no timed run compiles.
"""

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from published_figures import EIGHT_CORNER, ELEVEN_CORNER  # noqa: E402

# Every process (Snakemake, its jobs, the warm-up) imports this checkout's puzzledb.
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(
    filter(None, [str(ROOT / "workflow"), os.environ.get("PYTHONPATH")])))

# Published per-depth tables (positions at exactly d moves from the goal) of the built-in
# sliding puzzles with the blank's goal in a corner.
PUBLISHED = {"eleven": ELEVEN_CORNER, "eight": EIGHT_CORNER}


def snakemake(workdir, config, cores):
    """Run the workflow for the puzzle's manifest in workdir; (wall seconds, load before,
    load after)."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "config.yaml").write_text(yaml.safe_dump(config))
    puzzle = config["puzzles"][0]
    load = os.getloadavg()[0]
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "snakemake", f"results/{puzzle}/layers/manifest.json",
                    "--snakefile", str(ROOT / "Snakefile"), "--directory", str(workdir),
                    "--cores", str(cores), "--quiet"], check=True, capture_output=True, env=ENV)
    return time.perf_counter() - started, load, os.getloadavg()[0]


def jobs_of(workdir, puzzle):
    """Every job of the run from its benchmark file: dicts of rule, name, seconds, cpu, peak
    RSS (MiB), start and end (the file is written as the job ends)."""
    jobs = []
    for tsv in sorted((workdir / "results" / puzzle / "benchmarks").glob("*.tsv")):
        with open(tsv) as f:
            row = next(csv.DictReader(f, delimiter="\t"))
        end, seconds = tsv.stat().st_mtime, float(row["s"])
        cpu = row.get("cpu_time", "NA")
        jobs.append({"rule": "_".join(tsv.stem.split("_")[:2]), "name": tsv.stem, "s": seconds,
                     "cpu": float(cpu) if cpu not in ("NA", "") else float("nan"),
                     "rss": float(row["max_rss"]), "start": end - seconds, "end": end})
    return jobs


def layers_of(workdir, puzzle):
    manifest = json.loads((workdir / "results" / puzzle / "layers" / "manifest.json").read_text())
    return [(layer["count"], layer["crc32"]) for layer in manifest["layers"]]


def busy(intervals):
    """Seconds covered by the union of (start, end) intervals."""
    total, reach = 0.0, float("-inf")
    for start, end in sorted(intervals):
        if end > reach:
            total += end - max(start, reach)
            reach = end
    return total


def fanned_depths(jobs):
    """Per fanned-out depth: (depth, span, jobs' own seconds, idle seconds, jobs); a depth's
    span runs from the end of the step before it to the end of its own step."""
    steps = sorted((j for j in jobs if j["rule"] == "frontier_step"), key=lambda j: j["end"])
    rows = []
    for before, step in zip(steps, steps[1:]):
        depth = int(step["name"].rsplit("_", 1)[1])
        mine = [j for j in jobs if j["rule"] in ("frontier_expand", "frontier_merge")
                and int(j["name"].split("_")[2]) == depth] + [step]
        span = step["end"] - before["end"]
        inside = [(max(j["start"], before["end"]), j["end"]) for j in mine]
        rows.append((depth, span, sum(j["s"] for j in mine), span - busy(inside), len(mine)))
    return rows


def report_run(label, wall, load, jobs, reference):
    print(f"\n{label}: {wall:.1f} s wall, {len(jobs)} jobs, load {load[0]:.2f} -> {load[1]:.2f}"
          + (f", {wall / reference['wall']:.2f} x the in-memory wall" if reference else ""))
    print(f"  {'rule':18s} {'jobs':>5s} {'own s':>8s} {'cpu s':>8s} {'median s':>9s} "
          f"{'max RSS MiB':>12s}")
    for rule in sorted({j["rule"] for j in jobs}):
        mine = [j for j in jobs if j["rule"] == rule]
        seconds = sorted(j["s"] for j in mine)
        print(f"  {rule:18s} {len(mine):5d} {sum(seconds):8.1f} "
              f"{sum(j['cpu'] for j in mine):8.1f} {seconds[len(seconds) // 2]:9.2f} "
              f"{max(j['rss'] for j in mine):12.0f}")
    print(f"  idle (no job running) {wall - busy([(j['start'], j['end']) for j in jobs]):.1f} s "
          f"of the wall (Snakemake's start, DAG updates, job spawning)")
    if reference:
        limit = reference["rss"]
        over = [f"{j['name']} {j['rss']:.0f}" for j in jobs if j["rss"] >= limit]
        print(f"  peak RSS: every job below the in-memory job's {limit:.0f} MiB: "
              + (f"NO ({len(over)} not: {', '.join(over[:5])})" if over else "yes"))


def report_depths(jobs):
    rows = fanned_depths(jobs)
    if not rows:
        print("  no depth fanned out")
        return
    print(f"  fanned-out depths: {len(rows)}; per depth: span s / jobs' own s / idle s (jobs)")
    print("  " + "; ".join(f"{d}: {span:.1f}/{own:.1f}/{idle:.1f} ({n})"
                           for d, span, own, idle, n in rows))
    spans = sorted(r[1] for r in rows)
    idles = sorted(r[3] for r in rows)
    print(f"  median span {spans[len(spans) // 2]:.1f} s, median idle "
          f"{idles[len(idles) // 2]:.1f} s per fanned-out depth")


def check_layers(label, layers, reference, puzzle):
    same = layers == reference
    print(f"  layers equal the in-memory build's (count and CRC-32 of all {len(layers)}): "
          f"{'yes' if same else 'NO'}")
    if puzzle in PUBLISHED:
        published = [count for count, _ in layers] == PUBLISHED[puzzle]
        print(f"  per-depth counts equal the published table: {'yes' if published else 'NO'}")
        same = same and published
    return same


def warm_up(workdir):
    """Load (or compile) the kernels both builds use, untimed."""
    for extra in ([], ["--shards", "2", "--job-states", "20000", "--symmetry", "none"]):
        shutil.rmtree(workdir, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "puzzledb.cli", "build", "eight", "--results",
                        str(workdir), *extra], check=True, capture_output=True, env=ENV)


def probe(root, cores, threads):
    """Jobs with nothing to do: eight in 2 segments, job_states 1, depths 0..8."""
    workdir = root / "probe"
    config = {"puzzles": ["eight"], "results": "results", "threads": threads,
              "shards": {"eight": 2}, "job_states": 1, "depth_limit": {"eight": 8},
              "symmetry": {"eight": "none"}}
    wall, before, after = snakemake(workdir, config, cores)
    jobs = jobs_of(workdir, "eight")
    report_run("overhead probe (eight, shards 2, job_states 1, depth_limit 8)", wall,
               (before, after), jobs, None)
    report_depths(jobs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--puzzle", default="eleven")
    parser.add_argument("--segments", type=int, default=16)
    parser.add_argument("--job-states", type=int, nargs="+", default=[32_000_000, 2_000_000])
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2, help="config threads (per job)")
    parser.add_argument("--probe-only", action="store_true")
    parser.add_argument("--keep", metavar="DIR", help="work here and keep the results")
    args = parser.parse_args()
    root = Path(args.keep or tempfile.mkdtemp(prefix="bench-sharded-"))
    root.mkdir(parents=True, exist_ok=True)
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} CPUs, load "
          f"{os.getloadavg()[0]:.2f}, scratch {root}")
    ok = True
    try:
        warm_up(root / "warm-up")
        probe(root, args.cores, args.threads)
        if args.probe_only:
            return
        base = {"puzzles": [args.puzzle], "results": "results", "threads": args.threads,
                "symmetry": {args.puzzle: "none"}}  # layers compared position by position
        wall, before, after = snakemake(root / "memory", base, args.cores)
        jobs = jobs_of(root / "memory", args.puzzle)
        reference = {"wall": wall, "rss": max(j["rss"] for j in jobs),
                     "layers": layers_of(root / "memory", args.puzzle)}
        report_run(f"in-memory {args.puzzle}", wall, (before, after), jobs, None)
        if args.puzzle in PUBLISHED:
            print(f"  per-depth counts equal the published table: "
                  f"{'yes' if [c for c, _ in reference['layers']] == PUBLISHED[args.puzzle] else 'NO'}")
        for job_states in args.job_states:
            label = f"sharded {args.puzzle}, shards {args.segments}, job_states {job_states:,}"
            workdir = root / f"sharded-{job_states}"
            config = dict(base, shards={args.puzzle: args.segments}, job_states=job_states)
            wall, before, after = snakemake(workdir, config, args.cores)
            jobs = jobs_of(workdir, args.puzzle)
            report_run(label, wall, (before, after), jobs, reference)
            ok &= check_layers(label, layers_of(workdir, args.puzzle), reference["layers"],
                               args.puzzle)
            report_depths(jobs)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
