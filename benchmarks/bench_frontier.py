"""Benchmark: the sparse frontier search of the 15-puzzle through the workflow, layers 0..D
(`snakemake --cores 4` with `puzzles: [fifteen]`, `depth_limit: {fifteen: D}`), against the
published per-depth table; and the same engine on eleven (no depth limit) against the
in-memory engine's layers.

    python benchmarks/bench_frontier.py [--depth 28] [--eleven] [--cores 4] [--keep DIR]
        [--job-states N]

Prints the wall time, each depth's count (checked against OEIS A089484), the bytes on disk
per state, and the largest peak RSS of any job (Snakemake's benchmark files); writes DIR/run.json
(the command, date, commit, machine, load and wall time of the fifteen's run), which
benchmarks/scaling_inputs.py reads with the kept run.
"""

import argparse
import csv
import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from published_figures import FIFTEEN_CORNER  # noqa: E402


def workflow(workdir, config, cores):
    (workdir / "config.yaml").write_text(json.dumps(config))
    load = os.getloadavg()[0]
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"),
                    "--directory", str(workdir), "--cores", str(cores), "--quiet"],
                   check=True, capture_output=True)
    return time.perf_counter() - started, load


def machine():
    """This machine's CPU model (lscpu's) and cores."""
    try:
        lines = subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines()
    except OSError:
        lines = []
    model = next((line.split(":", 1)[1].strip() for line in lines
                  if line.startswith("Model name:")), platform.processor() or "unknown")
    return {"cpu": model, "cores": os.cpu_count()}


def commit():
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                          text=True)
    return done.stdout.strip() or "unknown"


def jobs(results, puzzle):
    """(job, seconds, peak RSS MiB) of every job of the puzzle."""
    rows = []
    for tsv in sorted((results / puzzle / "benchmarks").glob("*.tsv")):
        with open(tsv) as f:
            row = next(csv.DictReader(f, delimiter="\t"))
        rows.append((tsv.stem, float(row["s"]), float(row["max_rss"])))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=28)
    parser.add_argument("--cores", type=int, default=4)
    parser.add_argument("--eleven", action="store_true",
                        help="also build eleven sparse (16 segments) and in memory, and compare")
    parser.add_argument("--keep", help="work here instead of a temporary directory")
    parser.add_argument("--job-states", type=int,
                        help="config job_states for the 15-puzzle's build (default: the config's)")
    args = parser.parse_args()
    work = Path(args.keep or tempfile.mkdtemp(prefix="bench-frontier-"))
    shutil.rmtree(work / "results", ignore_errors=True)
    work.mkdir(parents=True, exist_ok=True)
    (work / "run.json").unlink(missing_ok=True)
    config = {"puzzles": ["fifteen"], "depth_limit": {"fifteen": args.depth}}
    if args.job_states:
        config["job_states"] = args.job_states
    date = datetime.now(timezone.utc).isoformat(timespec="seconds")
    seconds, load = workflow(work, config, args.cores)
    (work / "run.json").write_text(json.dumps({
        "name": work.name, "date": date, "command": shlex.join(["python", *sys.argv]),
        "commit": commit(), "config": config, "cores_given": args.cores, "machine": machine(),
        "load": f"{load:.2f} at the start, {os.getloadavg()[0]:.2f} at the end (1-minute)",
        "wall_s": round(seconds, 1)}, indent=1) + "\n")
    results = work / "results"
    manifest = json.loads((results / "fifteen" / "layers" / "manifest.json").read_text())
    counts = [layer["count"] for layer in manifest["layers"]]
    published = FIFTEEN_CORNER[:len(counts)]
    print(f"fifteen, layers 0..{manifest['max_depth']} (depth limit {args.depth}): "
          f"{sum(counts):,} states, workflow {seconds:.1f} s wall (load {load:.2f} at the "
          f"start), counts equal OEIS A089484: {counts == published}")
    print(f"{'depth':>5s} {'states':>14s} {'bytes on disk':>15s} {'B/state':>8s}")
    for layer in manifest["layers"]:
        print(f"{layer['depth']:5d} {layer['count']:14,d} {layer['bytes']:15,d} "
              f"{layer['bytes'] / layer['count']:8.3f}")
    rows = jobs(results, "fifteen")
    worst = max(rows, key=lambda r: r[2])
    print(f"{len(rows)} jobs; the largest peak RSS {worst[2]:,.0f} MiB ({worst[0]}); "
          f"job seconds in all {sum(r[1] for r in rows):,.1f}")
    if args.eleven:
        config = {"puzzles": ["eleven"], "shards": {"eleven": 16}, "results": "sparse"}
        sparse_seconds, load = workflow(work, config, args.cores)
        dense_seconds, _ = workflow(work, {"puzzles": ["eleven"], "results": "dense"},
                                    args.cores)
        layers = [json.loads((work / r / "eleven" / "layers" / "manifest.json").read_text())
                  ["layers"] for r in ("sparse", "dense")]
        same = [(x["count"], x["crc32"]) for x in layers[0]] == \
            [(x["count"], x["crc32"]) for x in layers[1]]
        print(f"eleven: frontier (16 segments) {sparse_seconds:.1f} s, in memory "
              f"{dense_seconds:.1f} s (workflow wall, load {load:.2f}); every layer's count "
              f"and CRC-32 equal: {same}")


if __name__ == "__main__":
    main()
