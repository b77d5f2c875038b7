"""The plane kernels of sliding puzzles with repeated pieces (see sliding_plane_kernels.py):
the vertical moves.

The state's cell mask per class is decoded incrementally (a class's mask is kept while its
digit stays), and a moved class's digit is read from a table of 2^pool entries indexed by its
mask packed onto its pool (pext), not counted cell by cell.
"""

from collections import namedtuple

import numpy as np
from numba import prange

from puzzledb.compiled.bitops import lowest_bit, pdep, pext, set_bit
from puzzledb.compiled import jit
from puzzledb.expansion import ONE, STATES_PER_WORD
from puzzledb.puzzles.ranking import combination_masks
from puzzledb.expansion.words import mark_next, units_active
from puzzledb.puzzles.sliding.plane_kernels import (
    SORTED_BLOCK,
    _horizontal,
    _horizontal_bits,
    _plane_lanes,
)

PoolTables = namedtuple(
    "PoolTables",
    "width height cells plane classes counts weights pools unrank_table rank_offset "
    "rank_table")

# The digit of class c is the combination index of its cells among its pool (the cells
# neither blank nor of a smaller class): pext packs the class onto its pool, and a table of
# 2^pool entries gives the index; the unrank table goes back.


def pool_tables(puzzle):
    base = puzzle.tables()  # sliding.MultisetTables
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


@jit(inline="always")
def _pool_vertical(s, target, t, masks, digits):
    """The rank after the piece in cell `target` slides into the blank at s."""
    k = t.classes
    full = (ONE << np.uint64(t.cells)) - ONE
    bit = ONE << np.uint64(target)
    p = 1
    while masks[p] & bit == 0:
        p += 1
    r = target * t.plane
    pool = full & ~bit
    for c in range(1, k - 1):
        if c > p:
            r += digits[c] * t.weights[c]
            continue
        m = masks[c]
        if c == p:
            m = (m & ~bit) | (ONE << np.uint64(s))
        r += np.int64(t.rank_table[t.rank_offset[c] + np.int64(pext(m, pool))]) * t.weights[c]
        pool &= ~m
    return r


@jit(inline="always")
def _pool_digits(rest, t, masks, digits, free, start, stop):
    """Bring the digits and cell masks of the classes to the state `rest` of the plane:
    digits 1..c hold while rest is in [start[c], stop[c]), so only the classes after the
    first stale one are decoded again."""
    k = t.classes
    c = 1
    while c < k - 1 and start[c] <= rest < stop[c]:
        c += 1
    base = start[c - 1]
    rem = rest - base
    for cc in range(c, k - 1):
        weight = t.weights[cc]
        d = rem // weight
        rem -= d * weight
        digits[cc] = d
        start[cc] = base + d * weight
        stop[cc] = start[cc] + weight
        base = start[cc]
        mask = pdep(t.unrank_table[cc, d], free[cc])
        masks[cc] = mask
        free[cc + 1] = free[cc] & ~mask
    masks[k - 1] = free[k - 1]


@jit(parallel=True)
def expand_pools(a, cur_flags, next_flags, found, t, unit_plane, unit_first, unit_stop):
    """Mark NEXT every UNSEEN neighbour of every CUR state (repeated pieces); found[u] is
    the number marked from unit u."""
    width = t.width
    plane = t.plane
    k = t.classes
    full = (ONE << np.uint64(t.cells)) - ONE
    for u in prange(unit_plane.size):
        found[u] = 0
        if not units_active(cur_flags, unit_first[u], unit_stop[u]):
            continue
        b = unit_plane[u]
        lo = b * plane
        hi = lo + plane
        row = b // width
        col = b - row * width
        masks = np.zeros(k, np.uint64)
        digits = np.zeros(k, np.int64)
        free = np.zeros(k, np.uint64)  # free[c]: the cells classes c.. share
        start = np.zeros(k, np.int64)  # digits 1..c hold for rest in [start[c], stop[c])
        stop = np.zeros(k, np.int64)
        free[1] = full & ~(ONE << np.uint64(b))
        stop[0] = plane
        down = row < t.height - 1
        up = row > 0
        new = 0
        for w in range(unit_first[u], unit_stop[u]):
            lanes = _plane_lanes(a, w, lo, hi)
            if lanes == 0:
                continue
            g0 = w * STATES_PER_WORD
            new += _horizontal(a, next_flags, g0, lanes, plane, col, width)
            if not (down or up):
                continue
            while lanes:
                rest = g0 + np.int64(lowest_bit(lanes) >> ONE) - lo
                lanes &= lanes - ONE
                _pool_digits(rest, t, masks, digits, free, start, stop)
                if down:
                    new += mark_next(a, next_flags, _pool_vertical(b, b + width, t, masks,
                                                                   digits))
                if up:
                    new += mark_next(a, next_flags, _pool_vertical(b, b - width, t, masks,
                                                                   digits))
        found[u] = new


@jit(parallel=True)
def mark_pools(ranks, bits, t):
    """Set in bits (a bitset of the whole space) every neighbour of the ascending ranks
    (repeated pieces): the sweep of expand_pools over a list of ranks, in blocks of
    SORTED_BLOCK; the kept digits start again at each plane."""
    width = t.width
    plane = t.plane
    k = t.classes
    full = (ONE << np.uint64(t.cells)) - ONE
    for blk in prange((ranks.size + SORTED_BLOCK - 1) // SORTED_BLOCK):
        masks = np.zeros(k, np.uint64)
        digits = np.zeros(k, np.int64)
        free = np.zeros(k, np.uint64)
        start = np.zeros(k, np.int64)
        stop = np.zeros(k, np.int64)
        stop[0] = plane
        lo = -plane
        b = col = 0
        down = up = False
        for i in range(blk * SORTED_BLOCK, min(ranks.size, (blk + 1) * SORTED_BLOCK)):
            r = np.int64(ranks[i])
            if r - lo >= plane:  # a new plane: no digit kept
                b = r // plane
                lo = b * plane
                row = b // width
                col = b - row * width
                down = row < t.height - 1
                up = row > 0
                free[1] = full & ~(ONE << np.uint64(b))
                for c in range(1, k):
                    stop[c] = 0
            rest = r - lo
            _horizontal_bits(bits, r, plane, col, width)
            if not (down or up):
                continue
            _pool_digits(rest, t, masks, digits, free, start, stop)
            if down:
                set_bit(bits, _pool_vertical(b, b + width, t, masks, digits))
            if up:
                set_bit(bits, _pool_vertical(b, b - width, t, masks, digits))
