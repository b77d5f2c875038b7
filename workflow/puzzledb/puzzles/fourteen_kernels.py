"""The compiled kernels of the 14-puzzle (fourteen.py): rank, unrank, neighbours and the tile
renaming of matching.  Every kernel takes the puzzle's tables."""

import numpy as np

from .. import compiled
from ..compiled import jit
from .fourteen import HALF, HALF2, PERMS, FourteenRelabelTables, FourteenTables


@jit
def _sequence_index(seq):
    """Lehmer index of a permutation of 0..6 (seq may be longer; its first 7 are used)."""
    used = 0
    index = 0
    for i in range(7):
        v = seq[i]
        smaller_used = 0
        for w in range(v):
            if used >> w & 1:
                smaller_used += 1
        index = index * (7 - i) + (v - smaller_used)
        used |= 1 << v
    return index


@jit(inline="always")
def _digits(rank):
    """The rank's digits: domino cell index, class-0 and class-1 sequence ranks."""
    d = rank // HALF2
    rest = rank - d * HALF2
    return d, rest // HALF, rest % HALF


@jit
def rank(board, work):
    """Rank of a board (codes 0..14); work is scratch of 14 int64."""
    d = -1
    n0 = 0
    n1 = 0
    for cell in range(16):
        t = board[cell]
        if t == 0:
            if d < 0:
                d = (cell >> 2) * 3 + (cell & 3)
            continue
        if (t - 1) & 1:
            work[7 + n1] = (t - 1) >> 1
            n1 += 1
        else:
            work[n0] = (t - 1) >> 1
            n0 += 1
    i0 = _sequence_index(work[:7])
    i1 = _sequence_index(work[7:14])
    return d * HALF2 + (i0 >> 1) * HALF + (i1 >> 1)


@jit
def unrank(rank, out, t):
    d, q0, q1 = _digits(rank)
    p = t.row_parity[d]
    seq0 = t.perm7[t.index_of_rank[p, q0]]
    seq1 = t.perm7[t.index_of_rank[p, q1]]
    left = t.domino_cells[d]
    n0 = 0
    n1 = 0
    for cell in range(16):
        if cell == left or cell == left + 1:
            out[cell] = 0
        elif cell & 1:
            out[cell] = 2 * seq1[n1] + 2
            n1 += 1
        else:
            out[cell] = 2 * seq0[n0] + 1
            n0 += 1


@jit
def neighbours(rank, level, out, work, t):
    d, q0, q1 = _digits(rank)
    p = t.row_parity[d]
    for m in range(t.move_counts[d]):
        target = t.moves[d, m, 0]
        j0 = t.moves[d, m, 1]
        if j0 < 0:
            # a jump keeps both sequences: only the domino digit changes
            out[m] = rank + (target - d) * HALF2
        else:
            out[m] = (target * HALF2 + t.swapped[p, j0, q0] * HALF
                      + t.swapped[p, t.moves[d, m, 2], q1])
    return t.move_counts[d]


@jit
def _composition_table(perm7, index_of_rank):
    """table[s, i]: rank of (even sequence of rank s) o (sequence of index i); last row: the
    index of each rank, parity 0 then parity 1."""
    table = np.empty((HALF + 1, PERMS), dtype=np.int16)
    seq = np.empty(7, dtype=np.int64)
    for s in range(HALF):
        sigma = perm7[index_of_rank[0, s]]
        for i in range(PERMS):
            x = perm7[i]
            for t in range(7):
                seq[t] = sigma[x[t]]
            table[s, i] = _sequence_index(seq) >> 1
    for p in range(2):
        for q in range(HALF):
            table[HALF, p * HALF + q] = index_of_rank[p, q]
    return table


@jit
def relabel(rank, key, t):
    """The state `rank` with its tiles renamed by the renaming `key`
    (fourteen.FourteenRelabelling)."""
    d, q0, q1 = _digits(rank)
    base = t.row_parity[d] * HALF
    s0 = key // HALF
    s1 = key - s0 * HALF
    table = t.composition
    return (d * HALF2 + np.int64(table[s0, table[HALF, base + q0]]) * HALF
            + np.int64(table[s1, table[HALF, base + q1]]))


def composition(t):
    """The composition table of FourteenRelabelTables from the puzzle's tables (12.7 MB)."""
    return _composition_table(t.perm7, t.index_of_rank)


compiled.register(FourteenTables, neighbours=neighbours)
compiled.register(FourteenRelabelTables, relabel=relabel)
