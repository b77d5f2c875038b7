"""What compiling costs a build, kernel by kernel (issue 55): each build's whole command on a
kernel cache it shares with the builds before it (a fresh cache for the first), then again
warm, with numba's compile events (PUZZLEDB_COMPILE_LOG) tabulated: which kernels it
compiled, how many specialisations (argument types) of each, and the seconds each took.

    python benchmarks/bench_compile.py eight                         # the default pipeline's
    python benchmarks/bench_compile.py --twsearch DIR corners-qtm skewb dino pyraminx
    python benchmarks/bench_compile.py --cache DIR eight             # a cache of your own
    python benchmarks/bench_compile.py --list

The builds named run in the order given, on one kernel cache (an empty directory unless
--cache names one): a second build of a family shows what the first left it to compile.
Each build's warm run follows its first run.  twsearch's sample files (corners-qtm, skewb,
dino, pyraminx, 3x3x3-*) are read from a twsearch checkout (--twsearch, as
race_twsearch.py takes it); `twsearch -g` is timed beside each of them (--no-peer: not).
"""

import argparse
import json
import shutil
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import twsearch_peer as peer


@dataclass(frozen=True)
class Build:
    puzzle: str  # a built-in puzzle, or the name a twsearch sample is defined under
    sample: str | None = None  # samples/main/<sample> of the twsearch checkout
    metric: str = "htm"
    arguments: tuple = ()  # more `puzzledb build` arguments


BUILDS = {
    "eight": Build("eight"),
    "fifteen-3colour": Build("fifteen-3colour"),
    "corners-qtm": Build("corners-qtm", "2x2x2.tws", "qtm"),
    "corners": Build("corners", "2x2x2.tws"),
    "skewb": Build("skewb", "skewb.tws"),
    "dino": Build("dino", "dino.tws"),
    "pyraminx": Build("pyraminx", "pyraminx.tws"),
    "3x3x3-6": Build("3x3x3", "3x3x3.tws", arguments=("--depth-limit", "6")),
}


def build_command(scratch, build, root):
    """The `puzzledb build` command of `build`, its results in a fresh directory."""
    results = Path(tempfile.mkdtemp(dir=scratch))
    if build.sample is None:
        config = Path(scratch) / f"{build.puzzle}.yaml"
        config.write_text(f"puzzles: [{build.puzzle}]\n")
        return peer.puzzledb_command(config, results, "build", build.puzzle, *build.arguments)
    config = peer.define(scratch, build.puzzle, root / "samples/main" / build.sample,
                         build.metric)
    return peer.puzzledb_command(config, results, "build", build.puzzle, *build.arguments)


def run(scratch, build, root, cache, events):
    """The build's whole command on `cache`, its compile events written to `events`."""
    env = dict(peer.puzzledb_env(cache), PUZZLEDB_COMPILE_LOG=str(events))
    events.unlink(missing_ok=True)
    measured = peer.measured(build_command(scratch, build, root), env=env)
    if measured.returncode != 0:
        sys.exit(f"{build.puzzle}: exit {measured.returncode}\n{measured.stderr[-2000:]}")
    lines = events.read_text().splitlines() if events.exists() else []
    return measured, [json.loads(line) for line in lines]


def logged_seconds(text):
    """(BFS seconds, compiling seconds) from a build's last log line."""
    import re
    found = re.search(r"BFS ([\d.]+) s after ([\d.]+) s compiling", text)
    return (float(found[1]), float(found[2])) if found else (float("nan"), float("nan"))


def table(events):
    """Rows (kernel, specialisations, seconds) of the compiles at the top (those inside
    another's compile are part of its seconds), the costliest first."""
    seconds, signatures = defaultdict(float), defaultdict(set)
    for event in events:
        if event["depth"] == 0:
            name = f"{event['module'].removeprefix('puzzledb.')}.{event['kernel']}"
            seconds[name] += event["seconds"]
            signatures[name].add(tuple(event["args"]))
    return sorted(((name, len(signatures[name]), seconds[name]) for name in seconds),
                  key=lambda row: -row[2])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("builds", nargs="*", default=["eight"])
    peer.add_arguments(parser)
    parser.add_argument("--cache", type=Path, default=None,
                        help="the kernel cache (default: a fresh directory, removed after)")
    parser.add_argument("--scratch", type=Path, default=None)
    parser.add_argument("--no-peer", action="store_true", help="no twsearch beside")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    builds = peer.chosen(args.builds, BUILDS, "build", args.list)
    if builds is None:
        return
    root = program = None
    if any(build.sample for build in builds):
        root = peer.checkout(args.twsearch, args.clone_dir)
        program = None if args.no_peer else peer.binary(root, args.twsearch_binary)
    if args.scratch:
        args.scratch.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(dir=args.scratch))
    cache = args.cache or scratch / "cache"
    summary = []
    try:
        for name, build in zip(args.builds, builds):
            first, events = run(scratch, build, root, cache, scratch / "events.jsonl")
            warm, again = run(scratch, build, root, cache, scratch / "events.jsonl")
            rows = table(events)
            print(f"\n{name}: first {first.seconds:.2f} s (CPU {first.cpu:.1f} s), "
                  f"{len(rows)} kernels compiled in {sum(r[2] for r in rows):.2f} s; "
                  f"warm {warm.seconds:.2f} s ({len(table(again))} compiled)")
            for kernel, count, seconds in rows:
                print(f"  {seconds:7.2f} s  {count:2} x  {kernel}")
            peer_seconds = float("nan")
            if build.sample and program:
                peer_run = peer.measured(peer.twsearch_command(
                    program, root / "samples/main" / build.sample, 2, build.metric))
                peer_seconds = peer_run.seconds
            summary.append((name, first.seconds, logged_seconds(first.stderr + first.stdout),
                            warm.seconds, logged_seconds(warm.stderr + warm.stdout),
                            len(rows), sum(r[2] for r in rows), peer_seconds))
        size = sum(path.stat().st_size for path in cache.rglob("*") if path.is_file())
        print(f"\nkernel cache: {size / 2**20:.1f} MiB in {cache}")
        print("\n| build | first s (BFS, compiling) | warm s (BFS, loading) | kernels compiled "
              "(s) | twsearch -g s |")
        print("|---|---|---|---|---|")
        for name, first, (fb, fc), warm, (wb, wc), kernels, seconds, peer_s in summary:
            print(f"| {name} | {first:.2f} ({fb:.2f}, {fc:.2f}) | {warm:.2f} ({wb:.2f}, "
                  f"{wc:.2f}) | {kernels} ({seconds:.1f}) | {peer_s:.2f} |")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
