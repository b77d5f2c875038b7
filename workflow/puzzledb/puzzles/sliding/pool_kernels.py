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
from puzzledb.puzzles.sliding.plane_kernels import DOWN, UP, register

PoolTables = namedtuple(
    "PoolTables",
    "width height cells plane classes counts weights pools unrank_table rank_offset "
    "rank_table")

# The digit of class c is the combination index of its cells among its pool (the cells
# neither blank nor of a smaller class): pext packs the class onto its pool, and a table of
# 2^pool entries gives the index; the unrank table goes back.


def pool_tables(puzzle):
    base = puzzle.multiset_tables()
    k = base.counts.size
    offsets = np.zeros(k, np.int64)
    pieces = []
    at = 0
    for c, pool in enumerate(puzzle.plane_plan, 1):
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
def _pool_vertical(s, target, t, table):
    """The rank after the piece in cell `target` slides into the blank at s."""
    k = t.classes
    full = (ONE << np.uint64(t.cells)) - ONE
    bit = ONE << np.uint64(target)
    p = 1
    while np.uint64(table[MASKS, p]) & bit == 0:
        p += 1
    r = target * t.plane
    pool = full & ~bit
    for c in range(1, k - 1):
        if c > p:
            r += table[DIGITS, c] * t.weights[c]
            continue
        m = np.uint64(table[MASKS, c])
        if c == p:
            m = (m & ~bit) | (ONE << np.uint64(s))
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
def _start(t, b, trackers, directions):
    """Plane b's constants: (whether it has a vertical move, b, whether a piece moves down
    into it, whether one moves up: each only if asked for in directions)."""
    trackers[FREE, 1] = np.int64(((ONE << np.uint64(t.cells)) - ONE) & ~(ONE << np.uint64(b)))
    trackers[START, 0] = 0
    trackers[STOP, 0] = t.plane
    for c in range(1, t.classes):
        trackers[STOP, c] = 0  # no digit kept
    row = b // t.width
    down = row < t.height - 1 and directions & DOWN != 0
    up = row > 0 and directions & UP != 0
    return down | up, b, down, up


@jit(inline="always")
def _moves(t, q, constants, trackers):
    vertical, b, down, up = constants
    _pool_digits(q, t, trackers)
    below = above = np.int64(-1)
    if down:
        below = _pool_vertical(b, b + t.width, t, trackers)
    if up:
        above = _pool_vertical(b, b - t.width, t, trackers)
    return below, above


register(PoolTables, _scratch, _start, _moves)
