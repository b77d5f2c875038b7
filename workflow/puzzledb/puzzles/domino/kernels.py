"""The compiled kernels of domino-blank puzzles (puzzle.py): rank, unrank, neighbours and the
tile renaming of matching.  Every kernel takes the puzzle's tables."""

import numpy as np

from puzzledb import compiled
from puzzledb.compiled import jit
from puzzledb.puzzles.domino.puzzle import DominoRelabelTables, DominoTables


@jit
def _sequence_index(seq, m):
    """Lehmer index of a permutation of 0..m-1 (the first m entries of seq)."""
    used = 0
    index = 0
    for i in range(m):
        v = seq[i]
        smaller_used = 0
        for w in range(v):
            if used >> w & 1:
                smaller_used += 1
        index = index * (m - i) + (v - smaller_used)
        used |= 1 << v
    return index


@jit(inline="always")
def _divide(n, d, inverse):
    """n // d for 0 <= n < 2^52, by a multiplication with inverse = 1/d: the product is off
    by less than one, which one comparison corrects.  A division by a number known only at
    run time is an integer division instruction, several times slower than the rest of
    the neighbours kernel."""
    q = np.int64(n * inverse)
    r = n - q * d
    if r < 0:
        q -= 1
    elif r >= d:
        q += 1
    return q


@jit(inline="always")
def _digits(rank, t):
    """The rank's digits: domino place, class-0 and class-1 sequence ranks."""
    d = _divide(rank, t.weight01, t.inverse01)
    rest = rank - d * t.weight01
    q0 = _divide(rest, t.weight1, t.inverse1)
    return d, q0, rest - q0 * t.weight1


@jit
def rank(board, work, t):
    """Rank of a board (codes, 0 the empty cells); work is scratch of board.size int64."""
    m0 = t.perms0.shape[1]
    d = -1
    n0 = 0
    n1 = 0
    for cell in range(board.size):
        tile = board[cell]
        if tile == 0:
            if d < 0:
                d = t.domino_of_cell[cell]
            continue
        if t.tile_class[tile]:
            work[m0 + n1] = t.tile_label[tile]
            n1 += 1
        else:
            work[n0] = t.tile_label[tile]
            n0 += 1
    i0 = _sequence_index(work, m0)
    i1 = _sequence_index(work[m0:], t.perms1.shape[1])
    return d * t.weight01 + (i0 >> 1) * t.weight1 + (i1 >> 1)


@jit
def unrank(rank, out, t):
    d, q0, q1 = _digits(rank, t)
    seq0 = t.perms0[t.index0[t.parity0[d], q0]]
    seq1 = t.perms1[t.index1[t.parity1[d], q1]]
    left = t.domino_cells[d]
    n0 = 0
    n1 = 0
    for cell in range(out.size):
        if cell == left or cell == left + 1:
            out[cell] = 0
        elif t.cell_class[cell]:
            out[cell] = t.tile_of[1, seq1[n1]]
            n1 += 1
        else:
            out[cell] = t.tile_of[0, seq0[n0]]
            n0 += 1


@jit
def neighbours(rank, level, out, work, t):
    d, q0, q1 = _digits(rank, t)
    p0 = t.parity0[d]
    p1 = t.parity1[d]
    for m in range(t.move_counts[d]):
        target = t.moves[d, m, 0]
        direction = t.moves[d, m, 1]
        if direction < 0:
            # a jump keeps both sequences: only the domino digit changes
            out[m] = rank + (target - d) * t.weight01
        else:
            out[m] = (target * t.weight01
                      + np.int64(t.rot0[direction, p0, t.moves[d, m, 2], q0]) * t.weight1
                      + np.int64(t.rot1[direction, p1, t.moves[d, m, 3], q1]))
    return t.move_counts[d]


@jit
def composition(perms, index_of_rank):
    """table[s, i]: rank of (even sequence of rank s) o (sequence of index i)."""
    halves, count = index_of_rank.shape[1], perms.shape[0]
    m = perms.shape[1]
    table = np.empty((halves, count), dtype=np.int16)
    seq = np.empty(m, dtype=np.int64)
    for s in range(halves):
        sigma = perms[index_of_rank[0, s]]
        for i in range(count):
            x = perms[i]
            for j in range(m):
                seq[j] = sigma[x[j]]
            table[s, i] = _sequence_index(seq, m) >> 1
    return table


@jit
def relabel(rank, key, t):
    """The state `rank` with its tiles renamed by the renaming `key`
    (domino.DominoRelabelling)."""
    d, q0, q1 = _digits(rank, t)
    s0 = key // t.weight1
    s1 = key - s0 * t.weight1
    return (d * t.weight01
            + np.int64(t.composition0[s0, t.index0[t.parity0[d], q0]]) * t.weight1
            + np.int64(t.composition1[s1, t.index1[t.parity1[d], q1]]))


compiled.register(DominoTables, neighbours=neighbours)
compiled.register(DominoRelabelTables, relabel=relabel)
