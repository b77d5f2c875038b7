"""The compiled side of additive pattern databases (additive.py): the numbering of a group's
placements, the blank's region, and one layer of a table's breadth-first search.  Every
kernel takes a group's data as an argument (GroupTables), so it is compiled once for all
groups and boards and loaded from the cache afterwards.

Masks of cells are int64 (a board has at most 63 cells; a group's word holds 2 bits for each
of at most 32 free cells, puzzles.sliding.partitions.MAX_GROUP_FREE); the word operations of
bitops.py are uint64, so they are called through the casts below (free at run time): numba
would turn a mix of int64 and uint64 into floats.
"""

from collections import namedtuple

import numpy as np
from numba import prange

from puzzledb.compiled.bitops import atomic_or, lowest_bit, pdep, pext, popcount
from puzzledb.compiled import jit

EVEN_BITS = 0x5555555555555555  # bit 2j of every 2-bit field j of a word

# One group's data: k tiles, the digit weights of its placement numbers, md_cost[i, c] the
# Manhattan distance of its tile i from cell c to home; the board's adjacency, width and
# masks (full: every cell; not_first / not_last: the cells outside the first / last column).
GroupTables = namedtuple("GroupTables",
                         "k weights md_cost goal_cells adjacent width full not_first not_last")


@jit(inline="always")
def _popcount(x):
    return np.int64(popcount(np.uint64(x)))


@jit(inline="always")
def _lowest(x):
    return np.int64(lowest_bit(np.uint64(x)))


@jit(inline="always")
def _pdep(value, mask):
    return np.int64(pdep(np.uint64(value), np.uint64(mask)))


@jit(inline="always")
def _pext(value, mask):
    return np.int64(pext(np.uint64(value), np.uint64(mask)))


# --- placements ---------------------------------------------------------------------------
#
# A placement lists the cells of a group's tiles in group order.  Its number has digit
# d_i = c_i - #{j < i : c_j < c_i} (the rank of tile i's cell among the cells the tiles before
# it leave free) of radix cells - i, tile 0 the most significant: dense over
# cells! / (cells - k)! placements.  A move of tile i changes only digits i and later.


@jit(inline="always")
def rank_placement(cells, k, weights):
    """The number of the placement cells[0..k)."""
    used = 0
    r = 0
    for i in range(k):
        c = cells[i]
        r += (c - _popcount(used & ((1 << c) - 1))) * weights[i]
        used |= 1 << c
    return r


@jit(inline="always")
def unrank_placement(r, k, weights, full, out):
    """The cells of placement r into out[0..k); the mask of those cells."""
    used = 0
    for i in range(k):
        d = r // weights[i]
        r -= d * weights[i]
        c = _lowest(_pdep(1 << d, full & ~used))
        out[i] = c
        used |= 1 << c
    return used


@jit
def rank_placements(cells, k, weights):
    """The number of each placement, a row of cells each (for tests and loaders)."""
    out = np.empty(cells.shape[0], dtype=np.int64)
    for n in range(cells.shape[0]):
        out[n] = rank_placement(cells[n], k, weights)
    return out


@jit
def unrank_placements(ranks, k, weights, full):
    out = np.zeros((ranks.size, max(k, 1)), dtype=np.int64)
    for n in range(ranks.size):
        unrank_placement(ranks[n], k, weights, full, out[n])
    return out


@jit(inline="always")
def region_of(start, free, t):
    """The cells of `free` connected to the cell mask `start`: where the blank goes by moving
    tiles outside the group, at no cost."""
    region = start
    while True:
        grow = (region | ((region << 1) & t.not_first) | ((region >> 1) & t.not_last)
                | (region << t.width) | (region >> t.width)) & free
        if grow == region:
            return region
        region = grow


@jit
def region_mask(start, free, t):
    return region_of(start, free, t)


# --- the breadth-first search -------------------------------------------------------------
#
# The abstract state is (placement, blank cell).  A move of a group tile costs 1 and any other
# move 0, so the blank roams its region of free cells for nothing, and a layer of the search
# is a set of (placement, region).  words[p] holds a 2-bit code for each free cell of
# placement p, in cell order: 0 unseen, 3 expanded, 1 / 2 the frontier of an even / odd depth
# (the next layer gets the other code, so a layer never reads what it writes).  A layer
# scans its frontier cells, moves each group tile beside them into them (cost 1) and marks the
# whole region the blank lands in with the next code, by atomic OR: two threads reaching the
# same region write the same bits.  The first layer in which a placement has a frontier and
# nothing expanded is its distance, the minimum over the blank's cells.  The table stores
# (distance - the group's Manhattan distance) / 2 in 4 bits: each move of a group tile changes
# that Manhattan distance by one, so the two have the same parity.


@jit(parallel=True)
def expand_layer(chunks, depth, t, words, values, touched_next, chunk_shift, stats):
    """Expand the frontier of the placements in the given chunks (of 2**chunk_shift, an even
    number, so no byte of values is shared by two chunks).  stats[j] of chunk j: frontier
    placements, placements first reached (their values written), regions marked, values
    that break the encoding."""
    count = words.size
    for j in prange(chunks.size):
        lo = chunks[j] << chunk_shift
        _expand_chunk(lo, min(count, lo + (1 << chunk_shift)), depth, t, words, values,
                      touched_next, chunk_shift, stats[j])


@jit
def _expand_chunk(lo, hi, depth, t, words, values, touched_next, chunk_shift, stats):
    code = 1 + (depth & 1)
    following = 3 - code
    cells = t.adjacent.shape[0]
    at = np.empty(max(t.k, 1), np.int64)
    index_of = np.empty(cells, np.int64)
    target_rank = np.empty(4 * cells, np.int64)
    target_blank = np.empty(4 * cells, np.int64)
    target_used = np.empty(4 * cells, np.int64)
    for p in range(lo, hi):
        w = np.int64(words[p])
        if w == 0:
            continue
        low = _pext(w, EVEN_BITS)
        high = _pext(w >> 1, EVEN_BITS)
        frontier = (low & ~high) if code == 1 else (high & ~low)
        if frontier == 0:
            continue
        stats[0] += 1
        used = unrank_placement(p, t.k, t.weights, t.full, at)
        free = t.full & ~used
        if low & high == 0:  # nothing expanded yet: first reached at this depth
            manhattan = 0
            for i in range(t.k):
                manhattan += t.md_cost[i, at[i]]
            extra = depth - manhattan
            if extra < 0 or extra & 1 or extra > 2 * 15:
                stats[3] += 1
            shift = 4 * (p & 1)
            values[p >> 1] = (values[p >> 1] & ~(0xF << shift)) | (((extra >> 1) & 0xF) << shift)
            stats[1] += 1
        for i in range(t.k):
            index_of[at[i]] = i
        m = 0
        blanks = _pdep(frontier, free)
        while blanks:
            b = _lowest(blanks)
            blanks &= blanks - 1
            for direction in range(4):
                n = t.adjacent[b, direction]
                if n >= 0 and used & (1 << n):  # the group's tile at n slides into b
                    i = index_of[n]
                    at[i] = b
                    target_rank[m] = rank_placement(at, t.k, t.weights)
                    at[i] = n
                    target_blank[m] = n
                    target_used[m] = used ^ (1 << n) ^ (1 << b)
                    m += 1
        for j in range(m):
            r = target_rank[j]
            free_after = t.full & ~target_used[j]
            slot = _popcount(free_after & ((1 << target_blank[j]) - 1))
            if (np.int64(words[r]) >> (2 * slot)) & 3:
                continue
            region = region_of(1 << target_blank[j], free_after, t)
            atomic_or(words, r, np.uint64(_pdep(_pext(region, free_after), EVEN_BITS)
                                          * following))
            touched_next[r >> chunk_shift] = 1
            stats[2] += 1
        atomic_or(words, p, np.uint64(_pdep(frontier, EVEN_BITS) * 3))


@jit
def seed_goal(t, blank, words, touched, chunk_shift):
    """Depth 0: the goal placement, the blank anywhere in its region around its goal cell."""
    r = rank_placement(t.goal_cells, t.k, t.weights)
    used = 0
    for i in range(t.k):
        used |= 1 << t.goal_cells[i]
    free = t.full & ~used
    region = region_of(1 << blank, free, t)
    atomic_or(words, r, np.uint64(_pdep(_pext(region, free), EVEN_BITS)))
    touched[r >> chunk_shift] = 1


@jit(parallel=True)
def unfinished(words, full_word):
    """Placements whose word is not all 'expanded' (none, when the search is complete)."""
    bad = 0
    for p in prange(words.size):
        if np.int64(words[p]) != full_word:
            bad += 1
    return bad


@jit
def nibble_histogram(values, count):
    """How many placements store each 4-bit value."""
    out = np.zeros(16, np.int64)
    for p in range(count):
        out[(values[p >> 1] >> (4 * (p & 1))) & 0xF] += 1
    return out


@jit(inline="always")
def table_value(data, offset, r):
    """The stored value of placement r of the table at data[offset:]."""
    return (np.int64(data[offset + (r >> 1)]) >> (4 * (r & 1))) & 0xF
