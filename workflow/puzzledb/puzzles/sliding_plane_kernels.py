"""The layer expansion of sliding puzzles on the engine's two-bit array (twobit.py): whole
planes at a time instead of state by state, in the ranks of sliding.py.

Both rank families put the blank's cell first: rank = blank * plane + rest, `rest` numbering
the arrangement of the pieces read row by row with the blank skipped.  So the states with the
blank in cell b are one contiguous plane of the array, and

- a horizontal move keeps `rest` (the pieces stay in reading order): the 32 states of a word
  go to the same place of plane b +- 1 in one word operation (two words when the plane size
  is not a multiple of 32);
- a vertical move takes one piece past width - 1 others: only the digits of a window of
  `width` reading positions change.

Distinct tiles (FactoredTables): for each vertical move the rank is split at a position s,
rank = hi * K + lo with K = (n - s)! / 2 (n tiles).  When the window lies in the digits of
hi (prefix kind), the rank change depends on hi alone: it is computed once per block of K
consecutive ranks, and a sweep in rank order advances hi's digits like an odometer.  When it
lies in the digits of lo (suffix kind), the change is read from a table of (n - s)! entries
indexed by lo and one parity bit of hi.  The targets of a move stay in the same hi block of
the target plane, so the writes mostly hit the cache.

Repeated pieces (PoolTables): the state's cell mask per class is decoded incrementally (a
class's mask is kept while its digit stays), and a moved class's digit is read from a table
of 2^pool entries indexed by its mask packed onto its pool (pext), not counted cell by cell.
"""

from collections import namedtuple

import numpy as np
from numba import prange

from ..bitops import lowest_bit, pdep, pext, set_bit
from ..compiled import jit
from ..memory import STATES_PER_WORD, twobit_words
from ..ranking import FACTORIAL, combination_masks
from ..twobit import ONE, cur_lanes, mark_next, mark_next_shifted, units_active

UNIT_WORDS = 1 << 12  # words of one plane a thread sweeps as one unit of work
SORTED_BLOCK = 1 << 14  # ranks of a sorted list a thread takes as one unit of work (mark)

FactoredTables = namedtuple(
    "FactoredTables",
    "width cells tiles plane parity_of_blank fact "
    "move_target move_start move_kind move_split move_block move_offset suffix_delta")
PoolTables = namedtuple(
    "PoolTables",
    "width height cells plane classes counts weights pools unrank_table rank_offset "
    "rank_table")


class PlaneExpansion:
    """The expansion kernel of one puzzle, its tables and its units of work (plane, first
    word, stop word): see Puzzle.layer_expansion."""

    def __init__(self, kernel, marker, tables, cells, plane, size):
        self.kernel = kernel
        self.marker = marker
        self.tables = tables
        self.units = units_for(cells, plane, twobit_words(size))
        self.found = np.zeros(self.units[0].size, dtype=np.int64)

    def expand(self, state, level):
        state.run(self.kernel, state.words, state.cur_flags, state.next_flags, self.found,
                  self.tables, *self.units)
        return int(self.found.sum())

    def mark(self, ranks, level, bits):
        """Set in bits (a bitset of the whole space) every neighbour of the ascending
        ranks."""
        self.marker(ranks, bits, self.tables)


def plane_expansion(puzzle):
    """The PlaneExpansion of a sliding puzzle whose plane_plan is not None."""
    if puzzle.distinct:
        tables = factored_tables(puzzle)
        return PlaneExpansion(expand_factored, mark_factored, tables, puzzle.cells,
                              puzzle.half_factorial, puzzle.size)
    tables = pool_tables(puzzle)
    return PlaneExpansion(expand_pools, mark_pools, tables, puzzle.cells,
                          int(puzzle.weights[0]), puzzle.size)


def units_for(cells, plane, total_words, unit_words=UNIT_WORDS):
    """Each plane's words cut into runs of unit_words: three int64 arrays (plane, first
    word, stop word); a word shared by two planes is in a unit of each."""
    units = []
    for b in range(cells):
        first = b * plane // STATES_PER_WORD
        stop = min(total_words, ((b + 1) * plane - 1) // STATES_PER_WORD + 1)
        units += [(b, w, min(stop, w + unit_words)) for w in range(first, stop, unit_words)]
    return tuple(np.array(column, dtype=np.int64) for column in zip(*units))


@jit(inline="always")
def _plane_lanes(a, w, lo, hi):
    """The CUR lanes of word w that lie in the plane [lo, hi)."""
    lanes = cur_lanes(a[w])
    g0 = w * STATES_PER_WORD
    if g0 < lo:
        lanes &= ~((ONE << np.uint64(2 * (lo - g0))) - ONE)
    if g0 + STATES_PER_WORD > hi:
        lanes &= (ONE << np.uint64(2 * (hi - g0))) - ONE
    return lanes


@jit(inline="always")
def _horizontal(a, next_flags, g0, lanes, plane, col, width):
    """The horizontal moves of the CUR states `lanes` of the word of states g0..g0 + 31:
    the blank one cell left or right is the same place of the plane before or after."""
    new = 0
    if col > 0:
        new += mark_next_shifted(a, next_flags, g0 - plane, lanes)
    if col < width - 1:
        new += mark_next_shifted(a, next_flags, g0 + plane, lanes)
    return new


# --- distinct tiles --------------------------------------------------------------------------
#
# Lehmer digits L[i] (the tiles after reading position i smaller than tile i): the full code
# is sum L[i] (n-1-i)!, the rank that halved, since L[n-2] (its lowest bit) is fixed by the
# parity that the blank's cell calls for.  digits[0..n-3] are the mixed-radix digits of the
# rank (radix n - i), digits[n-2] the parity bit, digits[n-1] = 0.


def factored_tables(puzzle):
    plan = puzzle.plane_plan
    n = puzzle.cells - 1
    fact = FACTORIAL[n - 1 - np.arange(n)].copy()
    suffix = np.zeros(max(1, sum(entries for _, _, entries, _ in plan.suffixes)), np.int64)
    for start, right, entries, offset in plan.suffixes:
        _suffix_table(n, start, puzzle.width, right, fact, suffix[offset:offset + entries])
    return FactoredTables(
        np.int64(puzzle.width), np.int64(puzzle.cells), np.int64(n),
        np.int64(puzzle.half_factorial), np.asarray(puzzle.parity_of_blank, np.int64), fact,
        plan.target, plan.start, plan.kind, plan.split, plan.block, plan.offset, suffix)


@jit
def _window_delta(right, a, width, digits, tiles, fact):
    """Change of the full Lehmer code when the window [a, a + width) turns right (its last
    tile to the front: the blank moves down from reading position a) or left (its first tile
    to the end: the blank moves up to reading position a)."""
    delta = 0
    smaller = 0
    e = a + width - 1
    if right:
        x = tiles[e]
        for i in range(a, e):
            bigger = 1 if tiles[i] > x else 0
            smaller += 1 - bigger
            delta += (digits[i] - bigger) * fact[i + 1] - digits[i] * fact[i]
        delta += (digits[e] + smaller) * fact[a] - digits[e] * fact[e]
    else:
        y = tiles[a]
        for i in range(a + 1, a + width):
            less = 1 if tiles[i] < y else 0
            smaller += less
            delta += (digits[i] + 1 - less) * fact[i - 1] - digits[i] * fact[i]
        delta += (digits[a] - smaller) * fact[e] - digits[a] * fact[a]
    return delta


@jit
def _suffix_table(n, a, width, right, fact, out):
    """out[2 lo + e] = p + delta for the suffix (reading positions a..n-1) whose Lehmer
    value is 2 lo + p, where e = p xor (parity of its digits a..n-3)."""
    digits = np.zeros(n, np.int64)
    tiles = np.zeros(n, np.int64)
    for value in range(out.size):
        rem = value
        par = 0
        for i in range(n - 1, a - 1, -1):
            radix = n - i
            d = rem % radix
            rem //= radix
            digits[i] = d
            if i <= n - 3:
                par ^= d & 1
        used = np.uint64(0)
        for i in range(a, n):
            # relative ranks 0..n-a-1 stand for the tiles: only their order matters
            t = lowest_bit(pdep(ONE << np.uint64(digits[i]), ~used))
            tiles[i] = np.int64(t)
            used |= ONE << t
        p = digits[n - 2]
        out[2 * (value >> 1) + (p ^ par)] = p + _window_delta(right, a, width, digits, tiles,
                                                              fact)


@jit(inline="always")
def _prefix_tiles(first, s, n, digits, tiles, used, sums):
    """Tiles, used-tile masks and digit-sum parities of reading positions first..s-1."""
    full = (ONE << np.uint64(n)) - ONE
    for i in range(first, s):
        t = lowest_bit(pdep(ONE << np.uint64(digits[i]), full & ~used[i]))
        tiles[i] = np.int64(t)
        used[i + 1] = used[i] | (ONE << t)
        sums[i + 1] = sums[i] ^ (digits[i] & 1)


@jit(inline="always")
def _track(q, j, t, m, right, state, digits, tiles, used, sums):
    """Bring tracker j (of move m) to the hi block holding rank q: state[j] = (first rank of
    the block, hi, the block's rank change (prefix kind) or hi's digit parity (suffix))."""
    block = t.move_block[m]
    base = state[j, 0]
    s = t.move_split[m]
    n = t.tiles
    dg = digits[j]
    if base >= 0 and q >= base:
        # a later block: add the step to hi's digits like an odometer (usually the last
        # digit or two change, so the prefix is rebuilt only from there)
        step = 1 if q < base + 2 * block else (q - base) // block
        hi = state[j, 1] + step
        pos = s - 1
        carry = step
        while True:
            v = dg[pos] + carry
            radix = n - pos
            if v < radix:
                dg[pos] = v
                break
            carry = v // radix
            dg[pos] = v - carry * radix
            pos -= 1
        first = pos
    else:
        hi = q // block
        rem = hi
        for i in range(s - 1, -1, -1):
            radix = n - i
            d = rem // radix
            dg[i] = rem - d * radix
            rem = d
        first = 0
    state[j, 0] = hi * block
    state[j, 1] = hi
    sm = sums[j]
    if t.move_kind[m] == 0:
        _prefix_tiles(first, s, n, dg, tiles[j], used[j], sm)
        state[j, 2] = _window_delta(right, t.move_start[m], t.width, dg, tiles[j], t.fact) >> 1
    else:
        for i in range(first, s):
            sm[i + 1] = sm[i] ^ (dg[i] & 1)
        state[j, 2] = sm[s]


@jit(inline="always")
def _trackers(n):
    """The scratch of the two trackers (move down, move up) of one thread: digits, tiles,
    used-tile masks, digit-sum parities, and state (see _track), none decoded yet."""
    return (np.zeros((2, n), np.int64), np.zeros((2, n), np.int64),
            np.zeros((2, n + 1), np.uint64), np.zeros((2, n + 1), np.int64),
            np.full((2, 3), -1, np.int64))


@jit(inline="always")
def _plane_moves(t, b):
    """The two vertical moves of plane b (down, then up): their target planes (-1: none),
    kinds, hi block sizes and suffix table offsets."""
    m = 2 * b
    return (t.move_target[m], t.move_target[m + 1], t.move_kind[m], t.move_kind[m + 1],
            t.move_block[m], t.move_block[m + 1], t.move_offset[m], t.move_offset[m + 1])


@jit(inline="always")
def _moved(q, j, right, m, kind, block, offset, parity, base, val, t, state, digits, tiles,
           used, sums):
    """The place in the target plane of state q of its plane after vertical move m
    (tracker j), and the tracker's hi block base and value, brought to q's block."""
    if q - base >= block:
        _track(q, j, t, m, right, state, digits, tiles, used, sums)
        base = state[j, 0]
        val = state[j, 2] if kind == 0 else parity ^ state[j, 2]
    if kind == 0:
        return q + val, base, val
    return (2 * q + t.suffix_delta[offset + 2 * (q - base) + val]) >> 1, base, val


@jit(parallel=True)
def expand_factored(a, cur_flags, next_flags, found, t, unit_plane, unit_first, unit_stop):
    """Mark NEXT every UNSEEN neighbour of every CUR state (distinct tiles); found[u] is the
    number marked from unit u."""
    n = t.tiles
    width = t.width
    plane = t.plane
    for u in prange(unit_plane.size):
        found[u] = 0
        if not units_active(cur_flags, unit_first[u], unit_stop[u]):
            continue
        b = unit_plane[u]
        lo = b * plane
        hi = lo + plane
        col = b % width
        parity = t.parity_of_blank[b]
        digits, tiles, used, sums, state = _trackers(n)
        # tracker 0 the move down, 1 the move up: their constants in registers
        to0, to1, kind0, kind1, block0, block1, off0, off1 = _plane_moves(t, b)
        base0 = -block0  # no hi block decoded yet
        base1 = -block1
        val0 = 0
        val1 = 0
        vertical = to0 >= 0 or to1 >= 0
        new = 0
        for w in range(unit_first[u], unit_stop[u]):
            lanes = _plane_lanes(a, w, lo, hi)
            if lanes == 0:
                continue
            g0 = w * STATES_PER_WORD
            new += _horizontal(a, next_flags, g0, lanes, plane, col, width)
            if not vertical:
                continue
            while lanes:
                q = g0 + np.int64(lowest_bit(lanes) >> ONE) - lo
                lanes &= lanes - ONE
                if to0 >= 0:
                    q2, base0, val0 = _moved(q, 0, True, 2 * b, kind0, block0, off0, parity,
                                             base0, val0, t, state, digits, tiles, used, sums)
                    new += mark_next(a, next_flags, to0 * plane + q2)
                if to1 >= 0:
                    q2, base1, val1 = _moved(q, 1, False, 2 * b + 1, kind1, block1, off1,
                                             parity, base1, val1, t, state, digits, tiles,
                                             used, sums)
                    new += mark_next(a, next_flags, to1 * plane + q2)
        found[u] = new


@jit(parallel=True)
def mark_factored(ranks, bits, t):
    """Set in bits (a bitset of the whole space) every neighbour of the ascending ranks
    (distinct tiles): the plane sweep of expand_factored over a list of ranks.  Threads take
    blocks of SORTED_BLOCK consecutive ranks; the trackers start again at each plane."""
    n = t.tiles
    width = t.width
    plane = t.plane
    for k in prange((ranks.size + SORTED_BLOCK - 1) // SORTED_BLOCK):
        digits, tiles, used, sums, state = _trackers(n)
        lo = -plane
        b = col = parity = 0
        to0 = to1 = kind0 = kind1 = off0 = off1 = 0
        block0 = block1 = base0 = base1 = val0 = val1 = 0
        for i in range(k * SORTED_BLOCK, min(ranks.size, (k + 1) * SORTED_BLOCK)):
            r = np.int64(ranks[i])
            if r - lo >= plane:  # a new plane: its moves, the trackers from scratch
                b = r // plane
                lo = b * plane
                col = b % width
                parity = t.parity_of_blank[b]
                to0, to1, kind0, kind1, block0, block1, off0, off1 = _plane_moves(t, b)
                base0 = -block0
                base1 = -block1
                state[0, 0] = state[1, 0] = -1
            q = r - lo
            if col > 0:
                set_bit(bits, r - plane)
            if col < width - 1:
                set_bit(bits, r + plane)
            if to0 >= 0:
                q2, base0, val0 = _moved(q, 0, True, 2 * b, kind0, block0, off0, parity, base0,
                                         val0, t, state, digits, tiles, used, sums)
                set_bit(bits, to0 * plane + q2)
            if to1 >= 0:
                q2, base1, val1 = _moved(q, 1, False, 2 * b + 1, kind1, block1, off1, parity,
                                         base1, val1, t, state, digits, tiles, used, sums)
                set_bit(bits, to1 * plane + q2)


# --- repeated pieces -------------------------------------------------------------------------
#
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
            if col > 0:
                set_bit(bits, r - plane)
            if col < width - 1:
                set_bit(bits, r + plane)
            if not (down or up):
                continue
            _pool_digits(rest, t, masks, digits, free, start, stop)
            if down:
                set_bit(bits, _pool_vertical(b, b + width, t, masks, digits))
            if up:
                set_bit(bits, _pool_vertical(b, b - width, t, masks, digits))
