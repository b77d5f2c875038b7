"""Kill -9 a build at random moments; every resume must end with the same layers.

    python benchmarks/kill_and_resume.py [fifteen-6colour] [--kills 20] [--seed 0]

One undisturbed build (`puzzledb build`, a process of its own) gives the reference layers
(count and CRC-32 of each, from its manifest) and the mean time M a layer takes.  Then, 20
times: a fresh build is started, and once its layer d is on disk (d drawn uniformly from
its depths, so the kills spread over the whole search whatever the machine's load) it is
killed with SIGKILL after a further delay drawn uniformly from [0, 2 M): in a BFS step, a
layer half-written, or between the last layer and the manifest.  The
directory is checked (every file with a final name a whole layer; a manifest only if the
build had finished), and a second process resumes it to the end: its layers must equal the
reference's, the layers finished before the kill must not have been written again (same
inode and mtime), no temporary file may be left, and `puzzledb verify` must pass.  Prints
one line per kill and the figures; exit status 1 if any check failed.
"""

import argparse
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from puzzledb import puzzles
from puzzledb.store.layers import LayerStore


def cli(results, *args):
    return [sys.executable, "-m", "puzzledb.cli", "--results", str(results), *args]


def run(results, *args):
    started = time.perf_counter()
    done = subprocess.run(cli(results, *args), capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {done.stderr.strip()}")
    return time.perf_counter() - started


def start(results, puzzle, threads, depth=0):
    """Start a build; (process, seconds until its layer `depth` was on disk)."""
    started = time.perf_counter()
    build = subprocess.Popen(cli(results, "build", puzzle.name, "--threads", str(threads)),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    layer = LayerStore(results / puzzle.name / "layers", puzzle).path(depth)
    while not layer.exists():
        if build.poll() is not None:
            raise SystemExit(f"the build of {puzzle.name} ended before its layer {depth}")
        time.sleep(0.002)
    return build, time.perf_counter() - started


def files(directory):
    return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in directory.glob("depth_*.h5")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("puzzle", nargs="?", default="fifteen-6colour")
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    puzzle = puzzles.get(args.puzzle)
    draw = random.Random(args.seed)
    failures = 0
    with tempfile.TemporaryDirectory(prefix="kill-resume-") as tmp:
        reference = Path(tmp) / "reference"
        build, startup = start(reference, puzzle, args.threads)
        started = time.perf_counter()
        if build.wait() != 0:
            raise SystemExit(f"the reference build of {puzzle.name} failed")
        span = time.perf_counter() - started
        expected = LayerStore(reference / puzzle.name / "layers", puzzle).manifest()["layers"]
        mean = span / len(expected)
        print(f"{puzzle.name}: reference build {startup:.2f} s to layer 0, then {span:.2f} s "
              f"for {len(expected)} layers ({mean * 1000:.0f} ms a layer); {args.kills} kills")
        for kill in range(1, args.kills + 1):
            results = Path(tmp) / f"kill{kill:02d}"
            directory = results / puzzle.name / "layers"
            store = LayerStore(directory, puzzle)
            depth = draw.randrange(len(expected))
            moment = draw.uniform(0, 2 * mean)
            build, _ = start(results, puzzle, args.threads, depth)
            time.sleep(moment)
            build.send_signal(signal.SIGKILL)
            build.wait()
            problems = []
            present = files(directory)
            left = len(list(directory.glob("*.tmp")))
            good = store.good_layers()
            if len(good) != len(present):
                problems.append(f"{len(present)} layer files, {len(good)} whole")
            # a manifest only if the build had finished: then it lists the reference's layers
            completed = store.manifest_path().exists()
            if completed and store.manifest()["layers"] != expected:
                problems.append("a manifest after the kill that is not the reference's")
            resumed = run(results, "build", puzzle.name, "--threads", str(args.threads))
            if store.manifest()["layers"] != expected:
                problems.append("layers differ from the reference")
            after = files(directory)
            rewritten = [n for n, ident in present.items() if after.get(n) != ident]
            if rewritten and not completed:
                problems.append(f"{len(rewritten)} finished layers written again")
            if list(directory.glob("*.tmp")):
                problems.append("temporary files left after the resume")
            verify = subprocess.run(cli(results, "verify", puzzle.name), capture_output=True,
                                    text=True)
            if verify.returncode != 0:
                problems.append(f"verify: {verify.stderr.strip()}")
            failures += bool(problems)
            state = "finished before the kill" if completed else (
                f"{len(present)} whole layers kept, {left} temporary file(s)")
            print(f"kill {kill:2d} at layer {depth:2d} + {moment * 1000:3.0f} ms: {state}; "
                  f"resume {resumed:.2f} s: "
                  f"{'; '.join(problems) or 'identical layers and CRCs, verify passes'}")
    print(f"{args.kills - failures} of {args.kills} resumes ended with the reference's "
          f"{len(expected)} layers")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
