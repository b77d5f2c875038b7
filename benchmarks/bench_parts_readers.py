"""Benchmark: the same layer read from one file and from parts (store/parts.py), by our
reader (open, a full read, 2,000 lookups) and by plain h5py (a 10-million-rank slice, through
the virtual dataset for the parts).

    python benchmarks/bench_parts_readers.py SINGLE.h5 PARTED.h5

Two kept runs of `benchmarks/bench_frontier.py --keep DIR`, one before the parts and one
after, give the two files (the same depth: the layers are equal).
"""

import argparse
import sys
import time
from pathlib import Path

import h5py
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "workflow"))
from puzzledb.store.parts import open_layer_file  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("single", help="a layer file written in one piece")
parser.add_argument("parted", help="the same layer written in parts (its map)")
args = parser.parse_args()
single, parted = args.single, args.parted
rng = np.random.default_rng(0)
with open_layer_file(single) as a:
    q = np.sort(rng.choice(a.ranks(0, 20_000_000), 10_000))
for name, path in (("single", single), ("parted", parted)):
    for rep in range(2):
        t = time.perf_counter(); l = open_layer_file(path); t_open = time.perf_counter() - t
        t = time.perf_counter(); n = sum(b.size for b in l.iter_chunks()); t_all = time.perf_counter() - t
        t = time.perf_counter(); hit = l.contains_many(q[:2000]).sum(); t_look = time.perf_counter() - t
        l.close()
        with h5py.File(path, "r") as f:
            t = time.perf_counter(); x = f["ranks"][100_000_000:110_000_000]; t_h5 = time.perf_counter() - t
        print(f"{name}: open {t_open*1e3:.1f} ms, read all {n:,} in {t_all:.2f} s, 2000 lookups {t_look:.2f} s ({hit} hits), h5py slice of 10M {t_h5:.2f} s")
