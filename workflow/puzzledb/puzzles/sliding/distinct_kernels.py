"""The plane kernels of sliding puzzles with distinct tiles (see sliding_plane_kernels.py):
the vertical moves.

For each vertical move the rank is split at a position s, rank = hi * K + lo with
K = (n - s)! / 2 (n tiles).  When the window lies in the digits of hi (prefix kind), the rank
change depends on hi alone: it is computed once per block of K consecutive ranks, and a sweep
in rank order advances hi's digits like an odometer.  When it lies in the digits of lo
(suffix kind), the change is read from a table of (n - s)! entries indexed by lo and one
parity bit of hi.  The targets of a move stay in the same hi block of the target plane, so
the writes mostly hit the cache.
"""

from collections import namedtuple

import numpy as np
from numba import prange

from puzzledb.compiled.bitops import lowest_bit, pdep, set_bit
from puzzledb.compiled import jit
from puzzledb.expansion import ONE, STATES_PER_WORD
from puzzledb.puzzles.ranking import FACTORIAL
from puzzledb.expansion.words import mark_next, units_active
from puzzledb.puzzles.sliding.plane_kernels import (
    SORTED_BLOCK,
    _horizontal,
    _horizontal_bits,
    _plane_lanes,
)

FactoredTables = namedtuple(
    "FactoredTables",
    "width cells tiles plane parity_of_blank fact "
    "move_target move_start move_kind move_split move_block move_offset suffix_delta")

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
            _horizontal_bits(bits, r, plane, col, width)
            if to0 >= 0:
                q2, base0, val0 = _moved(q, 0, True, 2 * b, kind0, block0, off0, parity, base0,
                                         val0, t, state, digits, tiles, used, sums)
                set_bit(bits, to0 * plane + q2)
            if to1 >= 0:
                q2, base1, val1 = _moved(q, 1, False, 2 * b + 1, kind1, block1, off1, parity,
                                         base1, val1, t, state, digits, tiles, used, sums)
                set_bit(bits, to1 * plane + q2)
