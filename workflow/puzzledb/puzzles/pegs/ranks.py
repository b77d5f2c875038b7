"""The numbering of peg masks, as the kernels read it: the combinatorial number system
over the holes (rank_reference, in plain Python), compiled by lookups in byte tables, with
the low 16 holes one lookup both ways; and the symmetries as byte tables of mask images."""

from collections import namedtuple
from math import comb

import numpy as np

BYTES = 8  # rank tables cover masks of up to 64 holes, one byte at a time
LOW_BITS = 16  # the low part of a mask, ranked and unranked by one lookup

# The kernels' data (see puzzledb.compiled): the byte tables of the rank, the low-part lookups,
# and the jumps as grid shifts; the symmetries as byte tables of mask images.
PegTables = namedtuple("PegTables", "rank_table low_masks low_start low_rank on_grid shifts "
                                    "sources holes start_pegs")


def low_tables():
    """The 16-bit masks by bit count then value, where each count's run starts, and each
    mask's index within its run: the low part of a rank is one lookup both ways."""
    order = sorted(range(1 << LOW_BITS), key=lambda m: (bin(m).count("1"), m))
    masks = np.array(order, dtype=np.uint16)
    start = np.cumsum([0] + [comb(LOW_BITS, j) for j in range(LOW_BITS + 1)]).astype(np.int64)
    rank = np.empty(1 << LOW_BITS, dtype=np.uint16)
    rank[masks] = np.arange(1 << LOW_BITS) - start[[bin(m).count("1") for m in order]]
    return masks, start, rank


def rank_tables(holes):
    """T[b, v, below] = the rank contribution of the pegs in byte b of a mask, with byte
    value v, when `below` pegs lie in the lower bytes: sum of C(position, index)."""
    table = np.zeros((BYTES, 256, holes + 1), dtype=np.int64)
    for b in range(BYTES):
        for v in range(256):
            bits = [8 * b + j for j in range(8) if (v >> j) & 1]
            if bits and bits[-1] >= holes:
                continue
            for below in range(holes + 1 - len(bits)):
                table[b, v, below] = sum(comb(p, below + i + 1) for i, p in enumerate(bits))
    return table


def rank_reference(mask):
    """The combinatorial-number-system rank, in plain Python."""
    pegs = [p for p in range(64) if (mask >> p) & 1]
    return sum(comb(p, i + 1) for i, p in enumerate(pegs))


def symmetry_tables(perms):
    """S[s, b, v] = the image, under symmetry s, of the pegs of byte b of a mask when that
    byte is v: a mask's image is the OR of one lookup per byte."""
    table = np.zeros((len(perms), BYTES, 256), dtype=np.uint64)
    for s, perm in enumerate(perms):
        for b in range(BYTES):
            for v in range(256):
                table[s, b, v] = sum(1 << int(perm[8 * b + j]) for j in range(8)
                                     if (v >> j) & 1 and 8 * b + j < len(perm))
    return table
