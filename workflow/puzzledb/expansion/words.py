"""The compiled word operations of the expansion protocol (see the package's docstring): the
CUR states of a two-bit word (and those of one colour), marking states NEXT with an exact
count when threads race, whether a run of words holds a flagged sub-block, the CUR and
UNSEEN counts a layer expansion weighs forward against backward by, and set_bit, the one
write into the bitset of a level.  The engine's generic step (bfs/twobit.py) and a family's
layer expansion use the same ones, inlined into their loops.

A mark writes the state's code `code`: NEXT (01) by default, 11 in a search that tells the
layer found from the layer expanded by their colours (ExpansionState.mark).  Either sets the
low bit, which is what a racing thread's mark is recognised by."""

import numpy as np

from numba import prange

from puzzledb.compiled import jit, neighbours_after, scratch

from puzzledb.compiled.bitops import atomic_or, popcount
from puzzledb.compiled.bitops import set_bit  # noqa: F401  (the bitset's write, re-exported)
from puzzledb.expansion import LANES, ONE, STATES_PER_WORD, SUB_SHIFT, twobit_words


@jit(inline="always")
def cur_lanes(v):
    """The y-lane mask of the CUR (11) states of a word."""
    return v & (v >> ONE) & LANES


@jit(inline="always")
def lanes_within(lanes, w, lo, hi):
    """The lanes of word w (a lane mask) that hold ranks in [lo, hi)."""
    g0 = w * STATES_PER_WORD
    if g0 < lo:
        lanes &= ~((ONE << np.uint64(2 * (lo - g0))) - ONE)
    if g0 + STATES_PER_WORD > hi:
        lanes &= (ONE << np.uint64(2 * (hi - g0))) - ONE
    return lanes


@jit(inline="always")
def colour_of_block(first, stop, run, colours, colour):
    """Whether the ranks [first, stop) are all of `colour` (1), none of them (0) or some
    (-1: ask colour_lanes word by word); 1 when colour is negative (no colouring).  Asked
    once per sub-block, it spares the words of a run two divisions each."""
    if colour < 0:
        return 1
    last = colours.size - 1
    k0 = min(first // run, last)
    if k0 == min((stop - 1) // run, last):
        return 1 if colours[k0] == colour else 0
    return -1


@jit(inline="always")
def colour_lanes(w, run, colours, colour):
    """The y-lanes of word w whose states are of `colour`, the ranks coloured in runs of
    `run` (colours[k]: the colour of ranks [k run, (k + 1) run)); every lane when colour is
    negative (no colouring: ExpansionState.colour)."""
    if colour < 0:
        return LANES
    g0 = w * STATES_PER_WORD
    last = colours.size - 1
    k0 = min(g0 // run, last)
    k1 = min((g0 + STATES_PER_WORD - 1) // run, last)
    if k0 == k1:
        return LANES if colours[k0] == colour else np.uint64(0)
    lanes = np.uint64(0)
    for i in range(STATES_PER_WORD):
        if colours[min((g0 + i) // run, last)] == colour:
            lanes |= ONE << np.uint64(2 * i)
    return lanes


@jit(inline="always")
def mark_next(a, flags, g, code=ONE):
    """Mark state g NEXT (`code`) if it is UNSEEN; 1 if this call marked it, else 0."""
    w = g >> 5
    bit = ONE << np.uint64(2 * (g & 31))
    v = a[w]
    # a plain read first: most neighbours are seen already, and an atomic OR costs more
    if (v | (v >> ONE)) & bit:
        return 0
    old = atomic_or(a, w, bit * code)
    if old & bit:  # another thread marked it between the read and the OR
        return 0
    flags[w >> SUB_SHIFT] = 1
    return 1


@jit(inline="always")
def mark_next_lanes(a, flags, w, lanes, code=ONE):
    """Mark NEXT (`code`) the UNSEEN states among the y-lanes `lanes` of word w; how many."""
    v = a[w]
    new = lanes & ~(v | (v >> ONE))
    if new == 0:
        return 0
    old = atomic_or(a, w, new * code)
    new &= ~old
    if new == 0:
        return 0
    flags[w >> SUB_SHIFT] = 1
    return np.int64(popcount(new))


@jit(inline="always")
def mark_next_shifted(a, flags, g0, lanes, code=ONE):
    """Mark NEXT (`code`) the UNSEEN states among g0 + i for the set y-lanes i of `lanes`
    (g0 need not be a multiple of 32: the lanes then straddle two words); how many."""
    w = g0 >> 5
    s = g0 & 31
    if s == 0:
        return mark_next_lanes(a, flags, w, lanes, code)
    low = lanes << np.uint64(2 * s)
    high = lanes >> np.uint64(64 - 2 * s)
    found = 0
    if low:
        found += mark_next_lanes(a, flags, w, low, code)
    if high:
        found += mark_next_lanes(a, flags, w + 1, high, code)
    return found


@jit
def units_active(flags, w0, w1):
    """Whether words [w0, w1) meet a flagged sub-block."""
    for k in range(w0 >> SUB_SHIFT, ((w1 - 1) >> SUB_SHIFT) + 1):
        if flags[k]:
            return True
    return False


@jit(parallel=True)
def count_cur_unseen(a):
    """The CUR and the UNSEEN (or padding) states of the two-bit array a."""
    cur = 0
    unseen = 0
    for w in prange(a.size):
        v = a[w]
        cur += popcount(v & (v >> ONE) & LANES)
        unseen += popcount(~(v | (v >> ONE)) & LANES)
    return cur, unseen


def cur_and_unseen(a, size):
    """The CUR and the UNSEEN states of the two-bit array a of `size` states: what an
    expansion that can go backward (every UNSEEN state looks for a CUR neighbour) weighs."""
    cur, unseen = count_cur_unseen(a)
    return int(cur), int(unseen) - (twobit_words(size) * STATES_PER_WORD - int(size))


@jit(parallel=True)
def mark_sorted(ranks, bits, tables, starts, max_moves, work_size):
    """Set in bits (a bitset of the whole space) every neighbour of the ascending ranks,
    state by state through the family's neighbours_after kernel (chosen by the tables'
    type), threads taking the blocks of ranks from starts; each rank is decoded from where
    it differs from the one before.  A layer expansion's mark when its moves do not come a
    word at a time (multi-tile sliding, permutation puzzles)."""
    for b in prange(starts.size - 1):
        out, work = scratch(max_moves, work_size)
        prev = -1
        for i in range(starts[b], starts[b + 1]):
            r = np.int64(ranks[i])
            n = neighbours_after(r, prev, 0, out, work, tables)
            prev = r
            for j in range(n):
                set_bit(bits, out[j])
