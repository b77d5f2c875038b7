"""Benchmark: the memory a merge job of the frontier search states against what it holds
(issue 56).  The 3x3x3's frontier search (by classes, keys of two words, as the workflow
builds it; --plain: every position a key) is built to depth D - 1 and depth D expanded in
one expand job; then one merge job writes all of depth D, alone in a child process
(tests/merge_memory.py).

    python benchmarks/bench_merge_memory.py [--depth 8] [--segments 256] [--plain]
        [--keep DIR]

Prints the merge's stated memory (FrontierPlan.merge_bytes, and the mem_mb the workflow
gives the job), its resident set once its kernels are loaded, its peak (VmHWM), the peak's
growth above the first and the new states it wrote: a merge that kept what it writes grows
by a key's bytes a new state.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from merge_memory import child_puzzle, measure_merge, prepared_merge  # noqa: E402

CUBE3 = ROOT / "workflow/puzzledb/puzzles/permutation/examples/3x3x3.tws"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=8, help="the depth merged (default 8)")
    parser.add_argument("--segments", type=int, default=256)
    parser.add_argument("--plain", action="store_true", help="no symmetry: a key a position")
    parser.add_argument("--keep", help="work here (and reuse what is there) instead of a "
                                       "temporary directory")
    args = parser.parse_args()
    spec = dict(name="cube3", file=str(CUBE3), symmetric=not args.plain)
    directory = Path(args.keep or tempfile.mkdtemp(prefix="bench_merge_memory_"))
    began = time.perf_counter()
    plan, expanded = prepared_merge(directory, child_puzzle(spec), args.depth, args.segments)
    prepared = time.perf_counter() - began
    shutil.rmtree(plan.merge_dir(args.depth, 0, 1), ignore_errors=True)
    m = measure_merge(spec, plan, args.depth, 0, 1, expanded)
    mib = {k: m[k] / 2**20 for k in ("stated", "baseline", "peak", "growth", "anon_growth")}
    print(f"3x3x3 {'plain' if args.plain else 'by classes'}, depth {args.depth}, "
          f"{args.segments} segments, one merge job: {m['count']:,} new keys in "
          f"{m['seconds']:.1f} s, {m['cpu_seconds']:.1f} CPU s (layers 0..{args.depth - 1} and "
          f"the expansion: {prepared:.0f} s)")
    print(f"  stated   merge_bytes {mib['stated']:,.1f} MiB, mem_mb {m['mem_mb']:,}")
    print(f"  measured resident {mib['baseline']:,.1f} MiB with its kernels loaded, peak "
          f"{mib['peak']:,.1f} MiB: growth {mib['growth']:,.1f} MiB (anonymous "
          f"{mib['anon_growth']:,.1f} MiB), {m['growth'] / max(m['count'], 1):.2f} bytes a "
          f"new key")
    verdict = "within" if m["growth"] <= m["stated"] else "PAST"
    print(f"  the growth is {verdict} the stated merge_bytes; the peak is "
          f"{'within' if m['peak'] <= m['mem_mb'] * 2**20 else 'PAST'} mem_mb")
    print(json.dumps(dict(m, cpu=os.cpu_count(), depth=args.depth, segments=args.segments,
                          plain=args.plain)))
    if not args.keep:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
