"""Race Rokicki's twsearch on the same ksolve/twsearch definition files, same machine, same
run: twsearch's God's-number mode (`twsearch -t THREADS -g FILE`) against `puzzledb build`
of the file declared under `define:` (the permutation family), alternated, each repeated.
Prints both depth tables, whether they are equal, and the times with the load average.

    python benchmarks/bench_permutation.py                      # corners, pyraminx, skewb
    python benchmarks/bench_permutation.py --repeat 3 corners
    python benchmarks/bench_permutation.py --file my.tws --metric qtm
    python benchmarks/bench_permutation.py --build-dir /work/peers/twsearch --twsearch-mb 2048 \
        --file samples/main/3p1.tws --repeat 1          # a built checkout, its memory capped
    python benchmarks/bench_permutation.py --file moonspinner.tws --store counts --memory-mb 12000
    python benchmarks/bench_permutation.py --file FTO.tws --without CENTER,CENTER2 \
        --depth-limit 9 --repeat 1 --twsearch-mb 4096   # a prefix, twsearch until it stops

twsearch is built from its git mirror (the search tool's fetch of github:rokicki/twsearch
puts it under /work/.mirror/rokicki+twsearch/repo; --twsearch-git names another): the tree
of HEAD is exported with `git archive` into --build-dir and built with `make build`, once.

puzzledb's figures: the wall time of the whole command (Python's start, the imports, the
move tables, the search and the writing of every layer file) and, from its log, the BFS
time alone (expanding and writing the layers, the compiled kernels loaded from their cache:
a first untimed run, to depth 1, fills it).  twsearch's: the wall time of the whole command (it writes
nothing).
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import race_twsearch
import twsearch_peer as peer

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "workflow/puzzledb/puzzles/permutation/examples"
MIRROR = Path("/work/.mirror/rokicki+twsearch/repo")


def load():
    return os.getloadavg()[0]


def build_twsearch(git_dir, build_dir, jobs):
    binary = build_dir / "build/bin/twsearch"
    if binary.exists():
        return binary
    build_dir.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "--git-dir", str(git_dir), "archive", "HEAD"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "x"], input=archive, cwd=build_dir, check=True)
    print(f"building twsearch in {build_dir} ...", file=sys.stderr)
    subprocess.run(["make", f"-j{jobs}", "build"], cwd=build_dir, check=True,
                   stdout=subprocess.DEVNULL)
    return binary


def run_twsearch(binary, path, threads, metric, memory_mb=None):
    command = peer.twsearch_command(binary, path, threads, metric, memory_mb)
    began = time.perf_counter()
    run = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - began
    out = run.stdout
    if run.returncode:  # out of its memory, typically: the depths it finished still count
        command = command + [f"(exit {run.returncode}: {(run.stderr or out).strip()[-80:]})"]
    return peer.twsearch_counts(out), seconds, command


def run_puzzledb(path, name, threads, metric, scratch, store="layers", memory_mb=None,
                 depth_limit=None):
    config = peer.define(scratch, name, path, metric)
    results = scratch / f"results-{time.monotonic_ns()}"
    more = ["--store", store]
    if memory_mb:
        more += ["--memory-mb", memory_mb]
    if depth_limit is not None:
        more += ["--depth-limit", depth_limit]
    command = peer.puzzledb_command(config, results, "build", name, "--threads", threads,
                                    *more)
    began = time.perf_counter()
    run = subprocess.run(command, check=True, capture_output=True, text=True,
                         env=peer.puzzledb_env())
    seconds = time.perf_counter() - began
    bfs = float(re.search(r"BFS ([\d.]+) s", run.stderr)[1])
    subprocess.run(["rm", "-rf", str(results)], check=True)
    return peer.layer_counts(run.stderr), seconds, bfs, " ".join(command[1:])


def without_sets(path, names, scratch):
    """A scratch copy of a definition file without the sets `names` (race_twsearch's
    transformation): made at run time, never kept in the project."""
    copy = scratch / f"{path.stem}-without-{'-'.join(names)}.tws"
    copy.write_text(race_twsearch.without_sets(path.read_text(), names))
    return copy


def race(path, args, binary, scratch):
    """Both programs on one file, alternated, repeated; the tables side by side."""
    name = peer.name_of(path)
    options = dict(store=args.store, memory_mb=args.memory_mb)
    run_puzzledb(path, name, args.threads, args.metric, scratch, depth_limit=1,
                 **options)  # fills the kernel cache
    print(f"\n== {path.name} ({args.metric}, {args.threads} threads)")
    tw_times, pdb_times, bfs_times = [], [], []
    for _ in range(args.repeat):
        before = load()
        tw_table, seconds, tw_command = run_twsearch(binary, path, args.threads,
                                                     args.metric, args.twsearch_mb)
        tw_times.append((seconds, before))
        before = load()
        pdb_table, seconds, bfs, pdb_command = run_puzzledb(
            path, name, args.threads, args.metric, scratch, depth_limit=args.depth_limit,
            **options)
        pdb_times.append((seconds, before))
        bfs_times.append(bfs)
    print(f"twsearch: {' '.join(tw_command)}")
    print(f"puzzledb: {pdb_command}")
    print(f"{'depth':>5} {'twsearch':>14} {'puzzledb':>14}")
    for d in range(max(len(tw_table), len(pdb_table))):
        a = f"{tw_table[d]:,}" if d < len(tw_table) else "-"
        b = f"{pdb_table[d]:,}" if d < len(pdb_table) else "-"
        print(f"{d:>5} {a:>14} {b:>14}")
    shared = min(len(tw_table), len(pdb_table))
    print(f"tables {'equal' if tw_table == pdb_table else 'DIFFER'} "
          f"({'equal' if tw_table[:shared] == pdb_table[:shared] else 'DIFFER'} to depth "
          f"{shared - 1}); {sum(pdb_table):,} states, max depth {len(pdb_table) - 1}")
    print("twsearch  " + ", ".join(f"{s:.2f} s (load {l:.1f})" for s, l in tw_times))
    print("puzzledb  " + ", ".join(f"{s:.2f} s (load {l:.1f})" for s, l in pdb_times)
          + "; of which BFS " + ", ".join(f"{b:.2f} s" for b in bfs_times))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", default=["corners", "pyraminx", "skewb"],
                        help="example definitions (workflow/puzzledb/puzzles/permutation/"
                             "examples/NAME.tws)")
    parser.add_argument("--file", action="append", default=[], help="another .tws file")
    parser.add_argument("--without", default="",
                        help="sets to take out of every file first (a scratch copy), "
                             "comma-separated: CENTER,CENTER2 of FTO.tws")
    parser.add_argument("--depth-limit", type=int, default=None,
                        help="puzzledb builds a prefix (twsearch runs until it stops)")
    parser.add_argument("--metric", default="htm", choices=["htm", "qtm"])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--store", default="layers", choices=["layers", "counts"],
                        help="puzzledb's store (counts: the in-memory search keeps counts)")
    parser.add_argument("--memory-mb", type=int, default=None,
                        help="puzzledb's memory budget (its default is config.yaml's 8000)")
    parser.add_argument("--twsearch-mb", type=int, default=None,
                        help="twsearch's memory cap (-M MB; its default is 8192)")
    parser.add_argument("--twsearch-git", type=Path, default=MIRROR)
    parser.add_argument("--build-dir", type=Path,
                        default=Path(tempfile.gettempdir()) / "puzzledb-twsearch")
    args = parser.parse_args(argv)
    binary = build_twsearch(args.twsearch_git, args.build_dir, args.threads)
    files = [EXAMPLES / f"{n}.tws" for n in args.names] + [Path(f) for f in args.file]
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        for path in files:
            if args.without:
                path = without_sets(path, args.without.split(","), scratch)
            race(path, args, binary, scratch)


if __name__ == "__main__":
    main()
