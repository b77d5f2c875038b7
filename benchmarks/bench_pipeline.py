"""Benchmark: the whole default workflow, `snakemake --cores 4` from no results, cold (no
compiled kernels cached) and warm (the kernels of the first run cached), in a scratch copy
of the working directory.

    python benchmarks/bench_pipeline.py [--repeat 3] [--config config.yaml] [--cores 4]
                                        [--baseline DIR]

Prints the wall time of each run, the median and the best of the warm runs, the load average
when each started, and each job's own seconds and peak RSS from Snakemake's benchmark files.
`--baseline DIR`: a checkout of another version (for example `git worktree add DIR REF`),
run the same way and alternated with this one run for run, so that both see the same
machine (its Snakefile and its `workflow/` package, through PYTHONPATH).
"""

import argparse
import csv
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(root, workdir, cores, cache):
    shutil.rmtree(workdir / "results", ignore_errors=True)
    shutil.rmtree(workdir / ".snakemake", ignore_errors=True)
    env = dict(os.environ, PUZZLEDB_CACHE_DIR=str(cache), PYTHONPATH=str(root / "workflow"))
    load = os.getloadavg()[0]
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "snakemake", "--snakefile", str(root / "Snakefile"),
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
    parser.add_argument("--repeat", type=int, default=3, help="warm runs of each version")
    parser.add_argument("--config", default=str(ROOT / "config.yaml"))
    parser.add_argument("--cores", type=int, default=4)
    parser.add_argument("--baseline", type=Path, metavar="DIR",
                        help="a checkout of another version, alternated with this one")
    args = parser.parse_args()
    versions = {"this": ROOT}
    if args.baseline is not None:
        versions["baseline"] = args.baseline.resolve()
    with tempfile.TemporaryDirectory(prefix="bench-pipeline-") as tmp:
        places = {}
        for name in versions:
            workdir, cache = Path(tmp) / name / "work", Path(tmp) / name / "numba-cache"
            workdir.mkdir(parents=True)
            shutil.copy(args.config, workdir / "config.yaml")
            places[name] = (workdir, cache)
        for name, root in versions.items():
            workdir, cache = places[name]
            cold, load = run(root, workdir, args.cores, cache)
            print(f"{name:8s} cold (no cached kernels): {cold:6.2f} s wall, load {load:.2f}")
        warm = {name: [] for name in versions}
        for _ in range(args.repeat):
            for name, root in versions.items():
                workdir, cache = places[name]
                seconds, load = run(root, workdir, args.cores, cache)
                warm[name].append(seconds)
                print(f"{name:8s} warm:                     {seconds:6.2f} s wall, "
                      f"load {load:.2f}")
        for name, times in warm.items():
            print(f"{name:8s} warm: median {statistics.median(times):.2f} s, "
                  f"best {min(times):.2f} s wall ({len(times)} runs)")
        print(f"{'job':36s} {'s':>7s} {'peak RSS MiB':>13s}   (this version's last warm run)")
        for name, seconds, rss in jobs(places["this"][0]):
            print(f"{name:36s} {seconds:7.2f} {rss:13.0f}")


if __name__ == "__main__":
    main()
