"""Benchmark: codings of the frontier search's work files on real expand pieces.

    python benchmarks/bench_workfiles.py LAYER_DIR [--depths 26 28] [--pieces 18 20]
        [--segments 256 2048] [--at 0.33] [--repeat 5]

LAYER_DIR holds a 15-puzzle database's layers (depth_NNN.h5; only read).  A piece of 2^k
states is taken from each layer at the fraction --at of its ranks and expanded as the
frontier engine's expand does (layer_neighbours, then group_by_segment over equal segments
of the rank space).  Each coding then writes its groups and reads them all back, and the
table gives its bytes per neighbour and the CPU time per neighbour of each way (the best
of --repeat runs, one thread), against the raw work file (8 bytes a neighbour, tofile and
readinto).  The codings:

  leb128           the gaps of each sorted, distinct group in LEB128 (workfiles' kernels)
  leb128+deflateN  the same bytes deflated by ISA-L at level N (N = 2: workfiles.py's)
  shuffle+deflate1 the gaps as uint64, their bytes shuffled (the planes that are zero
                   throughout dropped), deflated at level 1 (the layer store's filters)
  workfiles        write_piece and PieceFile: leb128+deflate2 with the index, CRC-32 and
                   the file written and read (the operating system's cache)

`bitpack128` is a size only: each block of 128 gaps at the bit width of its largest.
"""

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np
from isal import isal_zlib

from puzzledb import puzzles
from puzzledb.bfs.frontier import workfiles
from puzzledb.bfs.frontier.kernels import group_by_segment, layer_neighbours
from puzzledb.compiled import jit, set_threads
from puzzledb.store.layer import Layer


def piece_of(puzzle, layer, states, at, segments):
    """(grouped, offsets, cuts) of the piece of `states` ranks from position at * count
    (fewer at the layer's end)."""
    tables, moves, work = puzzle.tables(), puzzle.max_moves, puzzle.work_size
    first = int(layer.count * at)
    piece = layer.ranks(first, min(layer.count, first + states))
    found = np.empty(piece.size * moves, np.int64)
    counts = np.empty(piece.size, np.int64)
    layer_neighbours(piece, np.int64(0), tables, moves, work, found, counts)
    size = puzzle.level_size(0)
    width = -(-size // segments)
    grouped = np.empty(int(counts.sum()), np.uint64)
    offsets = np.empty(segments + 1, np.int64)
    group_by_segment(found, counts, moves, width, grouped, offsets)
    cuts = np.minimum(np.arange(segments + 1, dtype=np.int64) * width, size)
    return grouped, offsets, cuts


# -- the codings compared (workfiles.py keeps only the one chosen) --------------------------

def sorted_leb128(grouped, offsets, cuts):
    """Sort the groups in place; (counts, starts, LEB128 bytes of every group)."""
    segments = offsets.size - 1
    counts, sizes = np.empty(segments, np.int64), np.empty(segments, np.int64)
    workfiles._sort_groups(grouped, offsets, cuts, counts, sizes)
    starts = np.zeros(segments + 1, np.int64)
    np.cumsum(sizes, out=starts[1:])
    out = np.empty(int(starts[-1]), np.uint8)
    workfiles._leb128_groups(grouped, offsets, cuts, counts, starts, out)
    return counts, starts, out


def leb128_coding(level):
    def encode(grouped, offsets, cuts):
        counts, starts, out = sorted_leb128(grouped, offsets, cuts)
        coded = []
        for t in np.flatnonzero(counts):
            data = out[starts[t]:starts[t + 1]]
            coded.append((t, counts[t], data.size, data.tobytes() if level is None
                          else isal_zlib.compress(data, level, -15)))
        return coded

    def decode(coded, cuts):
        groups = []
        for t, count, size, data in coded:
            raw = data if level is None else isal_zlib.decompress(data, -15, size)
            ranks = np.empty(count, np.uint64)
            workfiles._decode_group(np.frombuffer(raw, np.uint8), np.uint64(cuts[t]),
                                    np.uint64(cuts[t + 1]), ranks)
            groups.append(ranks)
        return groups
    return encode, decode


@jit
def _gaps(grouped, start, n, low, out):
    nxt = low
    for i in range(n):
        out[i] = grouped[start + i] - nxt
        nxt = grouped[start + i] + np.uint64(1)


@jit
def _shuffle(gaps, planes, out):
    n = gaps.size
    for i in range(n):
        for j in range(planes):
            out[j * n + i] = np.uint8(gaps[i] >> np.uint64(8 * j))


@jit
def _unshuffle_ranks(data, planes, low, out):
    n = out.size
    nxt = low
    for i in range(n):
        g = np.uint64(0)
        for j in range(planes):
            g |= np.uint64(data[j * n + i]) << np.uint64(8 * j)
        out[i] = nxt + g
        nxt = out[i] + np.uint64(1)


def shuffle_encode(grouped, offsets, cuts):
    counts, _, _ = sorted_leb128(grouped, offsets, cuts)  # the same sort and distinct ranks
    coded = []
    for t in np.flatnonzero(counts):
        gaps = np.empty(counts[t], np.uint64)
        _gaps(grouped, offsets[t], counts[t], np.uint64(cuts[t]), gaps)
        planes = (int(gaps.max()).bit_length() + 7) // 8
        shuffled = np.empty(gaps.size * planes, np.uint8)
        _shuffle(gaps, planes, shuffled)
        coded.append((t, counts[t], planes, isal_zlib.compress(shuffled, 1, -15)))
    return coded


def shuffle_decode(coded, cuts):
    groups = []
    for t, count, planes, data in coded:
        ranks = np.empty(count, np.uint64)
        _unshuffle_ranks(np.frombuffer(isal_zlib.decompress(data, -15, count * planes),
                                       np.uint8), planes, np.uint64(cuts[t]), ranks)
        groups.append(ranks)
    return groups


def bitpack128_bytes(grouped, offsets, cuts):
    counts, _, _ = sorted_leb128(grouped, offsets, cuts)
    bits = 0
    for t in np.flatnonzero(counts):
        gaps = np.empty(counts[t], np.uint64)
        _gaps(grouped, offsets[t], counts[t], np.uint64(cuts[t]), gaps)
        for i in range(0, gaps.size, 128):
            block = gaps[i:i + 128]
            bits += int(block.max()).bit_length() * block.size + 8
    return bits / 8


# -- the measurement ------------------------------------------------------------------------

def timed(encode, decode, grouped, offsets, cuts, repeat):
    """(bytes, encode seconds, decode seconds, the groups decoded), best of repeat."""
    best_e = best_d = float("inf")
    for _ in range(repeat):
        work = grouped.copy()
        started = time.process_time()
        coded = encode(work, offsets, cuts)
        encoded = time.process_time()
        groups = decode(coded, cuts)
        best_e = min(best_e, encoded - started)
        best_d = min(best_d, time.process_time() - encoded)
    return coded, best_e, best_d, groups


def measure(grouped, offsets, cuts, repeat, scratch):
    """{coding: [bytes, encode seconds, decode seconds]} of one piece."""
    segments, n = offsets.size - 1, grouped.size
    expected = [np.unique(grouped[offsets[t]:offsets[t + 1]]) for t in range(segments)]
    filled = [x for x in expected if x.size]
    rows = {}

    def raw_write(work, offsets, cuts):
        work.tofile(scratch / "raw.u64")
        offsets.tofile(scratch / "raw.offsets")

    def raw_read(coded, cuts):
        into = np.empty(n, np.uint64)
        with open(scratch / "raw.u64", "rb") as f:
            f.readinto(memoryview(into))

    _, e, d, _ = timed(raw_write, raw_read, grouped, offsets, cuts, repeat)
    rows["raw"] = [8 * n + 8 * (segments + 1), e, d]
    for name, (encode, decode) in [("leb128", leb128_coding(None)),
                                   ("leb128+deflate1", leb128_coding(1)),
                                   ("leb128+deflate2", leb128_coding(2)),
                                   ("shuffle+deflate1", (shuffle_encode, shuffle_decode))]:
        coded, e, d, groups = timed(encode, decode, grouped, offsets, cuts, repeat)
        assert len(groups) == len(filled), name
        assert all(np.array_equal(a, b) for a, b in zip(groups, filled)), name
        rows[name] = [sum(len(c[-1]) for c in coded), e, d]
    path = scratch / "piece.wf"

    def write(work, offsets, cuts):
        return workfiles.write_piece(path, work, offsets, cuts)

    def read(written, cuts):
        piece = workfiles.PieceFile(path)
        return [piece.read_group(t) for t in range(segments)]

    written, e, d, groups = timed(write, read, grouped, offsets, cuts, repeat)
    assert all(np.array_equal(a, b) for a, b in zip(groups, expected))
    rows["workfiles"] = [written, e, d]
    rows["bitpack128 (size only)"] = [bitpack128_bytes(grouped.copy(), offsets, cuts),
                                      float("nan"), float("nan")]
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("layers", type=Path)
    parser.add_argument("--depths", type=int, nargs="+", default=[26, 28])
    parser.add_argument("--pieces", type=int, nargs="+", default=[18, 20],
                        help="log2 of the states of a piece")
    parser.add_argument("--segments", type=int, nargs="+", default=[256, 2048])
    parser.add_argument("--at", type=float, nargs="+", default=[0.1, 0.3, 0.5, 0.7, 0.9],
                        help="where the pieces start, as fractions of the layer")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    set_threads(1)
    puzzle = puzzles.get("fifteen")
    scratch = Path(tempfile.mkdtemp(prefix="bench-workfiles-"))
    print(f"load {os.getloadavg()[0]:.1f}; pieces at {args.at}; CPU ns per neighbour, "
          f"best of {args.repeat}")
    print("| depth | piece | segments | neighbours | coding | bytes/neighbour | "
          "write ns | read ns |")
    print("|---|---|---|---|---|---|---|---|")
    for depth in args.depths:
        with Layer(args.layers / f"depth_{depth:03d}.h5") as layer:
            for log2 in args.pieces:
                for segments in args.segments:
                    total, n = {}, 0
                    for at in args.at:
                        grouped, offsets, cuts = piece_of(puzzle, layer, 1 << log2, at,
                                                          segments)
                        n += grouped.size
                        for name, row in measure(grouped, offsets, cuts, args.repeat,
                                                 scratch).items():
                            total[name] = [a + b for a, b in zip(total.get(name, [0] * 3),
                                                                 row)]
                    for name, (size, e, d) in total.items():
                        print(f"| {depth} | 2^{log2} | {segments} | {n:,} | {name} | "
                              f"{size / n:.3f} | {e / n * 1e9:.1f} | {d / n * 1e9:.1f} |",
                              flush=True)
    for path in scratch.iterdir():
        path.unlink()
    scratch.rmdir()


if __name__ == "__main__":
    main()
