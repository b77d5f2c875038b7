"""The plane kernels of sliding puzzles with distinct tiles: their vertical moves, for the
sweeps of plane_kernels.py, registered there for FactoredTables.

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

from puzzledb.compiled.bitops import lowest_bit, pdep
from puzzledb.compiled import jit
from puzzledb.expansion import ONE
from puzzledb.puzzles.ranking import FACTORIAL
from puzzledb.puzzles.sliding.plane_kernels import DOWN, UP, register

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


# A tracker is one row of an int64 table (_scratch; _suffix_table uses one too): its block's
# base and value as _moved reads them at every state, its state (the first rank of its hi
# block, hi, the block's rank change or hi's digit parity), then from column DIGITS its n
# digits, the n tiles they stand for, n + 1 used-tile masks (uint64 bits) and n + 1 digit-sum
# parities, which only a new block reads.  The kernels index the table, and take no view of
# it: numba counts the references to a view, an atomic operation each, and small hi blocks
# (12 ranks on eleven) ask for a new block at nearly every state of a sparse layer.
BASE, VALUE, STATE, DIGITS = 0, 1, 2, 5


@jit
def _window_delta(right, a, width, table, j, n, fact):
    """Change of the full Lehmer code of tracker j (digits and tiles of n tiles in its row)
    when the window [a, a + width) turns right (its last tile to the front: the blank moves
    down from reading position a) or left (its first tile to the end: the blank moves up to
    reading position a)."""
    tiles = DIGITS + n
    delta = 0
    smaller = 0
    e = a + width - 1
    if right:
        x = table[j, tiles + e]
        for i in range(a, e):
            bigger = 1 if table[j, tiles + i] > x else 0
            smaller += 1 - bigger
            d = table[j, DIGITS + i]
            delta += (d - bigger) * fact[i + 1] - d * fact[i]
        d = table[j, DIGITS + e]
        delta += (d + smaller) * fact[a] - d * fact[e]
    else:
        y = table[j, tiles + a]
        for i in range(a + 1, a + width):
            less = 1 if table[j, tiles + i] < y else 0
            smaller += less
            d = table[j, DIGITS + i]
            delta += (d + 1 - less) * fact[i - 1] - d * fact[i]
        d = table[j, DIGITS + a]
        delta += (d - smaller) * fact[e] - d * fact[a]
    return delta


@jit
def _suffix_table(n, a, width, right, fact, out):
    """out[2 lo + e] = p + delta for the suffix (reading positions a..n-1) whose Lehmer
    value is 2 lo + p, where e = p xor (parity of its digits a..n-3)."""
    table = np.zeros((1, DIGITS + 4 * n + 2), np.int64)
    for value in range(out.size):
        rem = value
        par = 0
        for i in range(n - 1, a - 1, -1):
            radix = n - i
            d = rem % radix
            rem //= radix
            table[0, DIGITS + i] = d
            if i <= n - 3:
                par ^= d & 1
        used = np.uint64(0)
        for i in range(a, n):
            # relative ranks 0..n-a-1 stand for the tiles: only their order matters
            t = lowest_bit(pdep(ONE << np.uint64(table[0, DIGITS + i]), ~used))
            table[0, DIGITS + n + i] = np.int64(t)
            used |= ONE << t
        p = table[0, DIGITS + n - 2]
        out[2 * (value >> 1) + (p ^ par)] = p + _window_delta(right, a, width, table, 0, n,
                                                              fact)


@jit(inline="always")
def _prefix_tiles(first, s, n, table, j):
    """Tiles, used-tile masks and digit-sum parities of tracker j's reading positions
    first..s-1."""
    tiles = DIGITS + n
    used = DIGITS + 2 * n
    sums = DIGITS + 3 * n + 1
    full = (ONE << np.uint64(n)) - ONE
    for i in range(first, s):
        d = table[j, DIGITS + i]
        mask = np.uint64(table[j, used + i])
        t = lowest_bit(pdep(ONE << np.uint64(d), full & ~mask))
        table[j, tiles + i] = np.int64(t)
        table[j, used + i + 1] = np.int64(mask | (ONE << t))
        table[j, sums + i + 1] = table[j, sums + i] ^ (d & 1)


@jit(inline="always")
def _track(q, j, t, m, right, table):
    """Bring tracker j (of move m) to the hi block holding rank q."""
    block = t.move_block[m]
    n = t.tiles
    sums = DIGITS + 3 * n + 1
    base = table[j, STATE]
    s = t.move_split[m]
    if base >= 0 and q >= base:
        # a later block: add the step to hi's digits like an odometer (usually the last
        # digit or two change, so the prefix is rebuilt only from there)
        step = 1 if q < base + 2 * block else (q - base) // block
        hi = table[j, STATE + 1] + step
        pos = s - 1
        carry = step
        while True:
            v = table[j, DIGITS + pos] + carry
            radix = n - pos
            if v < radix:
                table[j, DIGITS + pos] = v
                break
            carry = v // radix
            table[j, DIGITS + pos] = v - carry * radix
            pos -= 1
        first = pos
    else:
        hi = q // block
        rem = hi
        for i in range(s - 1, -1, -1):
            radix = n - i
            d = rem // radix
            table[j, DIGITS + i] = rem - d * radix
            rem = d
        first = 0
    table[j, STATE] = hi * block
    table[j, STATE + 1] = hi
    if t.move_kind[m] == 0:
        _prefix_tiles(first, s, n, table, j)
        table[j, STATE + 2] = _window_delta(right, t.move_start[m], t.width, table, j, n,
                                            t.fact) >> 1
    else:
        for i in range(first, s):
            table[j, sums + i + 1] = table[j, sums + i] ^ (table[j, DIGITS + i] & 1)
        table[j, STATE + 2] = table[j, sums + s]


@jit(inline="always")
def _plane_moves(t, b):
    """The two vertical moves of plane b (down, then up): their target planes (-1: none),
    kinds, hi block sizes and suffix table offsets."""
    m = 2 * b
    return (t.move_target[m], t.move_target[m + 1], t.move_kind[m], t.move_kind[m + 1],
            t.move_block[m], t.move_block[m + 1], t.move_offset[m], t.move_offset[m + 1])


@jit(inline="always")
def _moved(q, j, right, m, kind, block, offset, parity, t, table):
    """The place in the target plane of state q of its plane after vertical move m
    (tracker j), the tracker brought to q's block."""
    base = table[j, BASE]
    val = table[j, VALUE]
    if q - base >= block:
        _track(q, j, t, m, right, table)
        base = table[j, STATE]
        val = table[j, STATE + 2] if kind == 0 else parity ^ table[j, STATE + 2]
        table[j, BASE] = base
        table[j, VALUE] = val
    if kind == 0:
        return q + val
    return (2 * q + t.suffix_delta[offset + 2 * (q - base) + val]) >> 1


@jit(inline="always")
def _scratch(t):
    """The trackers' table: a row for the move down, one for the move up (see BASE)."""
    return np.zeros((2, DIGITS + 4 * t.tiles + 2), np.int64)


@jit(inline="always")
def _start(t, b, trackers, directions):
    """Plane b's constants: (whether it has a vertical move, b, the parity of its blank's
    cell, then per move, down and up, its target plane (-1: none, or not asked for in
    directions), kind, hi block size and suffix table offset)."""
    to0, to1, kind0, kind1, block0, block1, off0, off1 = _plane_moves(t, b)
    if directions & DOWN == 0:
        to0 = -1
    if directions & UP == 0:
        to1 = -1
    for j in range(2):
        trackers[j, STATE] = -1  # no hi block decoded yet
    trackers[0, BASE] = -block0  # the first state is in a block of its own
    trackers[1, BASE] = -block1
    return ((to0 >= 0) | (to1 >= 0), b, t.parity_of_blank[b], to0, to1, kind0, kind1, block0,
            block1, off0, off1)


@jit(inline="always")
def _moves(t, q, constants, trackers):
    vertical, b, parity, to0, to1, kind0, kind1, block0, block1, off0, off1 = constants
    down = up = np.int64(-1)
    if to0 >= 0:
        down = to0 * t.plane + _moved(q, 0, True, 2 * b, kind0, block0, off0, parity, t,
                                      trackers)
    if to1 >= 0:
        up = to1 * t.plane + _moved(q, 1, False, 2 * b + 1, kind1, block1, off1, parity, t,
                                    trackers)
    return down, up


register(FactoredTables, _scratch, _start, _moves)
