"""Benchmark: the whole default workflow, `snakemake --cores 4` from no results, cold (no
compiled kernels cached) and warm (the kernels of the first run cached), in a scratch copy
of the working directory.

    python benchmarks/bench_pipeline.py [--repeat 3] [--config config.yaml] [--cores 4]

Prints the wall time of each run (best of --repeat for warm runs), the load average when it
started, and each job's own seconds and peak RSS from Snakemake's benchmark files.
"""

import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(workdir, cores, cache):
    shutil.rmtree(workdir / "results", ignore_errors=True)
    shutil.rmtree(workdir / ".snakemake", ignore_errors=True)
    env = dict(os.environ, PUZZLEDB_CACHE_DIR=str(cache))
    load = os.getloadavg()[0]
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"),
                    "--directory", str(workdir), "--cores", str(cores), "--quiet"],
                   check=True, env=env, capture_output=True)
    return time.perf_counter() - started, load


def jobs(workdir):
    """(job, seconds, peak RSS MiB) from every benchmark TSV of the run."""
    rows = []
    for tsv in sorted((workdir / "results").rglob("benchmarks/*.tsv")):
        with open(tsv) as f:
            row = next(csv.DictReader(f, delimiter="\t"))
        name = f"{tsv.parent.parent.name}/{tsv.stem}"
        rows.append((name, float(row["s"]), float(row["max_rss"])))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="warm runs; the best is shown")
    parser.add_argument("--config", default=str(ROOT / "config.yaml"))
    parser.add_argument("--cores", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-pipeline-") as tmp:
        workdir, cache = Path(tmp) / "work", Path(tmp) / "numba-cache"
        workdir.mkdir()
        shutil.copy(args.config, workdir / "config.yaml")
        cold, load = run(workdir, args.cores, cache)
        print(f"cold (no cached kernels): {cold:6.2f} s wall, load {load:.2f}")
        warm = []
        for _ in range(args.repeat):
            warm.append(run(workdir, args.cores, cache))
            print(f"warm:                     {warm[-1][0]:6.2f} s wall, load {warm[-1][1]:.2f}")
        print(f"best warm: {min(w for w, _ in warm):.2f} s wall")
        print(f"{'job':36s} {'s':>7s} {'peak RSS MiB':>13s}   (last warm run)")
        for name, seconds, rss in jobs(workdir):
            print(f"{name:36s} {seconds:7.2f} {rss:13.0f}")


if __name__ == "__main__":
    main()
