"""The plane kernels of sliding puzzles with repeated pieces: their vertical moves, for the
sweeps of plane_kernels.py, registered there for PoolTables.

The state's cell mask per class is decoded incrementally (a class's mask is kept while its
digit stays), and a moved class's digit is read from a table of 2^pool entries indexed by its
mask packed onto its pool (pext), not counted cell by cell.
"""

from collections import namedtuple

import numpy as np

from puzzledb.compiled.bitops import pdep, pext
from puzzledb.compiled import jit
from puzzledb.expansion import ONE
from puzzledb.puzzles.ranking import combination_masks
from puzzledb.puzzles.sliding.plane_kernels import register

PoolTables = namedtuple(
    "PoolTables",
    "width height cells plane classes counts weights pools unrank_table rank_offset "
    "rank_table")

# The digit of class c is the combination index of its cells among its pool (the cells
# neither blank nor of a smaller class): pext packs the class onto its pool, and a table of
# 2^pool entries gives the index; the unrank table goes back.


def pool_tables(puzzle):
    base = puzzle.ranking.tables()  # rankings.RepeatedPieces' MultisetTables
    k = base.counts.size
    offsets = np.zeros(k, np.int64)
    pieces = []
    at = 0
    for c, pool in enumerate(puzzle.ranking.plane_plan, 1):
        table = np.full(1 << pool, -1, np.int32)
        for index, mask in enumerate(combination_masks(pool, int(base.counts[c]))):
            table[int(mask)] = index
        offsets[c] = at
        at += table.size
        pieces.append(table)
    rank_table = np.concatenate(pieces) if pieces else np.zeros(1, np.int32)
    return PoolTables(np.int64(puzzle.width), np.int64(puzzle.height), np.int64(puzzle.cells),
                      np.int64(base.weights[0]), np.int64(k), base.counts, base.weights,
                      base.pools, base.combinations, offsets, rank_table)


# The trackers' table (_scratch) has a row for each of these, a column per class: the cells
# of the class (a uint64 mask held in int64), its digit, the cells classes c.. share (also
# a mask), and the bounds [start, stop) of the plane's states for which digits 1..c hold.
MASKS, DIGITS, FREE, START, STOP = range(5)


@jit(inline="always")
def _pool_vertical(target, cells, shift_down, t, table):
    """The rank after the pieces in `cells` (a mask: the cells of the blank's column from
    the one next to it to target) each slide one cell toward the blank, the blank ending in
    target; shift_down: the blank is above them (the pieces go up the board)."""
    k = t.classes
    full = (ONE << np.uint64(t.cells)) - ONE
    p = k - 1  # the last class with a piece that moves: the classes after it keep digits
    while np.uint64(table[MASKS, p]) & cells == 0:
        p -= 1
    shift = np.uint64(t.width)
    r = target * t.plane
    pool = full & ~(ONE << np.uint64(target))
    for c in range(1, k - 1):
        if c > p:
            r += table[DIGITS, c] * t.weights[c]
            continue
        m = np.uint64(table[MASKS, c])
        moved = m & cells
        if moved:
            m = (m & ~cells) | (moved >> shift if shift_down else moved << shift)
        r += np.int64(t.rank_table[t.rank_offset[c] + np.int64(pext(m, pool))]) * t.weights[c]
        pool &= ~m
    return r


@jit(inline="always")
def _pool_digits(rest, t, table):
    """Bring the digits and cell masks of the classes to the state `rest` of the plane:
    digits 1..c hold while rest is in [start[c], stop[c]), so only the classes after the
    first stale one are decoded again."""
    k = t.classes
    c = 1
    while c < k - 1 and table[START, c] <= rest < table[STOP, c]:
        c += 1
    base = table[START, c - 1]
    rem = rest - base
    for cc in range(c, k - 1):
        weight = t.weights[cc]
        d = rem // weight
        rem -= d * weight
        table[DIGITS, cc] = d
        table[START, cc] = base + d * weight
        table[STOP, cc] = base + (d + 1) * weight
        base += d * weight
        free = np.uint64(table[FREE, cc])
        mask = pdep(t.unrank_table[cc, d], free)
        table[MASKS, cc] = np.int64(mask)
        table[FREE, cc + 1] = np.int64(free & ~mask)
    table[MASKS, k - 1] = table[FREE, k - 1]


@jit(inline="always")
def _scratch(t):
    return np.zeros((5, t.classes), np.int64)


@jit(inline="always")
def _column_run(t, b, j, down, jumps):
    """Jump j of plane b along the column: (the cell the blank ends in, the mask of the
    cells whose pieces slide one cell toward it); (-1, 0): no such jump."""
    if j >= jumps:
        return np.int64(-1), np.uint64(0)
    step = t.width if j < down else -t.width
    cells = j + 1 if j < down else j - down + 1
    column = np.uint64(0)
    for i in range(1, cells + 1):
        column |= ONE << np.uint64(b + i * step)
    return np.int64(b + cells * step), column


@jit(inline="always")
def _jump_start(t, b, trackers):
    """Plane b's constants for its jumps along the column: (whether it has one, how many go
    down, how many in all, b, then each jump's _column_run); the trackers as no digit was
    decoded."""
    trackers[FREE, 1] = np.int64(((ONE << np.uint64(t.cells)) - ONE) & ~(ONE << np.uint64(b)))
    trackers[START, 0] = 0
    trackers[STOP, 0] = t.plane
    for c in range(1, t.classes):
        trackers[STOP, c] = 0  # no digit kept
    down = t.height - 1 - b // t.width
    jumps = t.height - 1
    return (t.height > 1, down, jumps, b,
            (_column_run(t, b, 0, down, jumps), _column_run(t, b, 1, down, jumps),
             _column_run(t, b, 2, down, jumps)))  # MAX_JUMPS of them


@jit(inline="always")
def _start(t, b, trackers):
    """Plane b's constants: (whether it has a vertical move, b, whether a piece moves down
    into it, whether one moves up)."""
    vertical, below, jumps, b, _ = _jump_start(t, b, trackers)
    return vertical, b, below > 0, jumps > below


@jit(inline="always")
def _moves(t, q, constants, trackers):
    vertical, b, down, up = constants
    _pool_digits(q, t, trackers)
    below = above = np.int64(-1)
    if down:
        below = _pool_vertical(b + t.width, ONE << np.uint64(b + t.width), True, t, trackers)
    if up:
        above = _pool_vertical(b - t.width, ONE << np.uint64(b - t.width), False, t, trackers)
    return below, above


@jit(inline="always")
def _jump(t, q, j, previous, constants, trackers):
    """The rank after jump j of state q of the plane (q not below the state asked about
    before; previous, the rank after the jump before it, is not needed here)."""
    target, column = constants[4][j]
    _pool_digits(q, t, trackers)
    return _pool_vertical(target, column, j < constants[1], t, trackers)


register(PoolTables, _scratch, _start, _moves, _jump_start, _jump)
