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
from puzzledb.puzzles.sliding.plane_kernels import register

FactoredTables = namedtuple(
    "FactoredTables",
    "width cells tiles plane parity_of_blank fact "
    "move_target move_start move_kind move_split move_block move_offset suffix_delta")

# Lehmer digits L[i] (the tiles after reading position i smaller than tile i): the full code
# is sum L[i] (n-1-i)!, the rank that halved, since L[n-2] (its lowest bit) is fixed by the
# parity that the blank's cell calls for.  digits[0..n-3] are the mixed-radix digits of the
# rank (radix n - i), digits[n-2] the parity bit, digits[n-1] = 0.


def factored_tables(puzzle):
    ranking = puzzle.ranking  # rankings.DistinctTiles
    plan = ranking.plane_plan
    n = puzzle.cells - 1
    fact = FACTORIAL[n - 1 - np.arange(n)].copy()
    suffix = np.zeros(max(1, sum(entries for _, _, entries, _ in plan.suffixes)), np.int64)
    for start, right, entries, offset in plan.suffixes:
        _suffix_table(n, start, puzzle.width, right, fact, suffix[offset:offset + entries])
    return FactoredTables(
        np.int64(puzzle.width), np.int64(puzzle.cells), np.int64(n),
        np.int64(ranking.half_factorial), np.asarray(ranking.parity_of_blank, np.int64), fact,
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
    """The trackers' table: a row for the move down and one for the move up, or one for
    each window of a plane's jumps along the column (height - 1 at most; see BASE)."""
    return np.zeros((max(2, t.cells // t.width - 1), DIGITS + 4 * t.tiles + 2), np.int64)


@jit(inline="always")
def _start(t, b, trackers):
    """Plane b's constants: (whether it has a vertical move, b, the parity of its blank's
    cell, then per move, down and up, its target plane (-1: none), kind, hi block size and
    suffix table offset)."""
    to0, to1, kind0, kind1, block0, block1, off0, off1 = _plane_moves(t, b)
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


# A jump of k cells down the column from plane b is the single moves down from planes b,
# b + width, ..., b + (k - 1) width in turn, and each turns its own window of reading
# positions: [b, b + width), then the next width positions, and so on.  The windows are
# disjoint, and a turn changes only the Lehmer digits of its window, by an amount that
# depends on the window's digits and tiles alone, which the turns before it leave as they
# were.  So the jump's rank change is the jump before it's plus its last move's, read by a
# tracker of its own on the states of plane b in ascending order; the tables are those of
# the single moves.  (The halved rank: only the window holding digit n - 2, if any, changes
# the parity bit; every other change is even.)  Up the column, the same with the moves up.


@jit(inline="always")
def _window(t, trackers, j, b, down):
    """The constants of jump j of plane b (its last move, the move's kind, hi block size and
    suffix table offset, and the rank change of its plane), tracker j made ready for it;
    (-1, ...): no such jump."""
    w = t.width
    if j < down:
        m, shift = 2 * (b + j * w), w * t.plane
    elif j - down < b // w:
        m, shift = 2 * (b - (j - down) * w) + 1, -w * t.plane
    else:
        return (np.int64(-1), np.int64(0), np.int64(1), np.int64(0), np.int64(0))
    trackers[j, STATE] = -1  # no hi block decoded yet
    trackers[j, BASE] = -t.move_block[m]  # the first state is in a block of its own
    return (np.int64(m), t.move_kind[m], t.move_block[m], t.move_offset[m], np.int64(shift))


@jit(inline="always")
def _jump_start(t, b, trackers):
    """Plane b's constants for its jumps along the column: (whether it has one, how many go
    down, how many in all, the parity of its blank's cell, then each jump's _window)."""
    row = b // t.width
    down = t.cells // t.width - 1 - row
    return (down + row > 0, down, down + row, t.parity_of_blank[b],
            (_window(t, trackers, 0, b, down), _window(t, trackers, 1, b, down),
             _window(t, trackers, 2, b, down)))  # MAX_JUMPS of them


@jit(inline="always")
def _jump(t, q, j, previous, constants, trackers):
    """The rank after jump j of state q of the plane (q not below the state asked about
    before), previous the rank after the jump before it in the same direction (the first:
    the state's own)."""
    m, kind, block, offset, shift = constants[4][j]
    return previous + shift + _moved(q, j, j < constants[1], m, kind, block, offset,
                                     constants[3], t, trackers) - q


register(FactoredTables, _scratch, _start, _moves, _jump_start, _jump)
