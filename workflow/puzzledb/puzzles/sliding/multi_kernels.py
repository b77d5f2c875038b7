"""The multi-tile metric of sliding puzzles (metrics.MultiTile, metric: multi-tile): one move
slides a whole run of pieces of the blank's row or column toward the blank, so the blank
jumps to any other cell of its row or column.

A jump along the row keeps the pieces in reading order (the rank's blank digit alone
changes), so the CUR states of a word jump together, one word operation per target cell
(the plane kernels' horizontal move, to any cell of the row).  A jump of k cells along the
column turns k disjoint windows of reading positions, one per cell, so its rank change is
the sum of k single vertical moves' changes, each read from the original state's digits
(plane_kernels.plane_jump; distinct tiles keep a tracker per window, repeated pieces one
for all): PlaneJumpExpansion sweeps each plane once, state by state for the column.
Forward, a direction stops at the first state on its way that is OLD or CUR: the jumps on
from there are that state's own.  Backward (late depths), every UNSEEN state looks for a CUR
state one jump away and stops at the first.

Boards without plane tables (plane_plan None) or of more than metrics.MAX_JUMPS + 1 rows go
state by state (MultiTileExpansion): the row's jumps a word at a time, the column's ranked
from the board, decoded from the one before in ascending order.
"""

import numpy as np
from numba import prange

from puzzledb import compiled
from puzzledb.compiled import jit, scratch
from puzzledb.compiled.bitops import lowest_bit
from puzzledb.expansion import LANES, ONE, STATES_PER_WORD, SUB_WORDS
from puzzledb.expansion.words import (
    count_cur_unseen,
    cur_and_unseen,
    cur_lanes,
    lanes_within,
    mark_next,
    mark_next_lanes,
    mark_next_shifted,
    mark_sorted,
    set_bit,
)
from puzzledb.puzzles.ranking_kernels import (
    multiset_rank,
    multiset_unrank,
    permutation_rank,
    permutation_unrank_after,
)
from puzzledb.puzzles.sliding.plane_kernels import (
    plane_jump_start,
    plane_jump,
    plane_scratch,
    runs_for,
    sweep_runs,
    sweep_units,
)
from puzzledb.puzzles.sliding.metrics import MultiTileTables

SORTED_BLOCK = 1 << 14  # ranks of a sorted list a thread takes as one unit (mark)


@jit(inline="always")
def _rank(board, t):
    if t.distinct:
        return permutation_rank(board, t.half_factorial)
    return multiset_rank(board, t.counts, t.weights)


@jit(inline="always")
def _multi_tile(rank, prev, out, work, memo, t, along_row=True):
    """The neighbours of rank (along_row=False: the jumps along the column only); distinct
    tiles decode the board from where rank differs from prev (work and memo hold what the
    call for prev left; prev < 0 or an empty memo: nothing)."""
    cells = t.adjacent.shape[0]
    board = work[:cells]
    plane = t.half_factorial if t.distinct else t.weights[0]
    s = rank // plane
    if t.distinct:
        permutation_unrank_after(rank, prev, t.half_factorial, t.parity_of_blank, board, memo,
                                 memo[:0])
    else:
        multiset_unrank(rank, t.counts, t.weights, board)
    k = 0
    first = s - s % t.width
    for c in range(first, first + t.width):
        if c != s and along_row:
            out[k] = rank + (c - s) * plane
            k += 1
    for step in (-t.width, t.width):
        b = s
        while 0 <= b + step < cells:
            board[b] = board[b + step]
            board[b + step] = 0
            b += step
            out[k] = _rank(board, t)
            k += 1
        while b != s:  # the pieces back where they were (the next call may keep the board)
            board[b] = board[b - step]
            board[b - step] = 0
            b -= step
    return k


@jit
def multi_tile_neighbours(rank, level, out, work, t):
    cells = t.adjacent.shape[0]
    return _multi_tile(rank, -1, out, work, work[cells:cells], t)


@jit
def multi_tile_neighbours_after(rank, prev, level, out, work, t):
    cells = t.adjacent.shape[0]
    memo = work[cells:cells + 3 * (cells - 1)] if t.distinct else work[cells:cells]
    return _multi_tile(rank, prev, out, work, memo, t)


compiled.register(MultiTileTables, neighbours=multi_tile_neighbours,
                  neighbours_after=multi_tile_neighbours_after)


@jit(parallel=True)
def expand_sub_blocks(a, cur_flags, next_flags, found, t, max_moves, work_size):
    """Mark NEXT every UNSEEN neighbour of every CUR state.  The jumps along the row keep
    the rank but for the blank's digit: the CUR states of a word (of one plane) jump
    together, one word operation per target cell.  The jumps along the column go state by
    state, a sub-block's states in ascending order so that each board is decoded from the
    one before."""
    plane = t.half_factorial if t.distinct else t.weights[0]
    for k in prange(cur_flags.size):
        found[k] = 0
        if not cur_flags[k]:
            continue
        out, work = scratch(max_moves, work_size)
        cells = t.adjacent.shape[0]
        memo = work[cells:cells + 3 * (cells - 1)] if t.distinct else work[cells:cells]
        new = 0
        prev = -1
        for w in range(k * SUB_WORDS, min(a.size, (k + 1) * SUB_WORDS)):
            lanes = cur_lanes(a[w])
            g0 = w * STATES_PER_WORD
            while lanes:
                b = (g0 + np.int64(lowest_bit(lanes) >> ONE)) // plane
                end = (b + 1) * plane - g0  # lanes of this plane: below end
                part = lanes
                if end < STATES_PER_WORD:
                    part &= (ONE << np.uint64(2 * end)) - ONE
                lanes &= ~part
                first = b - b % t.width
                for c in range(first, first + t.width):
                    if c != b:
                        new += mark_next_shifted(a, next_flags, g0 + (c - b) * plane, part)
                while part:
                    r = g0 + np.int64(lowest_bit(part) >> ONE)
                    part &= part - ONE
                    n = _multi_tile(r, prev, out, work, memo, t, False)
                    prev = r
                    for j in range(n):
                        new += mark_next(a, next_flags, out[j])
        found[k] = new


class MultiTileExpansion:
    """The layer expansion of a multi-tile sliding puzzle (an expansion.LayerExpansion):
    the jumps along the row a word at a time, those along the column state by state with
    each board decoded from the one before."""

    def __init__(self, puzzle):
        self.tables = puzzle.tables()
        self.max_moves = np.int64(puzzle.max_moves)
        self.work_size = np.int64(puzzle.work_size)
        self.found = None

    def expand(self, state, level):
        kernel, arguments = self._step(state)
        state.run(kernel, *arguments)
        return int(self.found.sum())

    def _step(self, state):
        if self.found is None or self.found.size != state.cur_flags.size:
            self.found = np.zeros(state.cur_flags.size, dtype=np.int64)
        return expand_sub_blocks, (state.words, state.cur_flags, state.next_flags,
                                   self.found, self.tables, self.max_moves, self.work_size)

    def kernels(self, state):
        return [self._step(state)]

    def mark(self, ranks, level, bits):
        kernel, arguments = self._marking(ranks, bits)
        kernel(*arguments)

    def _marking(self, ranks, bits):
        starts = np.append(np.arange(0, ranks.size, SORTED_BLOCK), ranks.size).astype(np.int64)
        return mark_sorted, (ranks, bits, self.tables, starts, self.max_moves, self.work_size)

    def mark_kernels(self, bits):
        return [self._marking(np.zeros(1, np.uint64), bits)]


# --- whole planes: the row's jumps a word of states at a time, the column's from trackers ---

BACKWARD = 1.5  # expand backward once the unseen states are fewer than this times the CUR


@jit(inline="always")
def _row_jumps(a, flags, g0, lanes, plane, col, width, code):
    """The jumps along the row of the CUR states `lanes` of the two-bit word of states
    g0..g0 + 31: the same place of every other plane of the row."""
    new = 0
    for c in range(width):
        if c != col:
            new += mark_next_shifted(a, flags, g0 + (c - col) * plane, lanes, code)
    return new


@jit(inline="always")
def _jump_unit(t, b):
    """What a sweep of plane b starts from: its first rank, the blank's column, and the
    trackers and constants of its jumps along the column (plane_jump_start)."""
    trackers = plane_scratch(t)
    constants = plane_jump_start(t, b, trackers)
    return b * t.plane, b % t.width, trackers, constants


@jit(inline="always")
def _seen_before(a, g):
    """Whether state g of the two-bit array a is OLD or CUR (its x bit)."""
    return (a[g >> 5] >> np.uint64(2 * (g & 31) + 1)) & ONE != 0


MARK, FIND = 0, 1  # what _column_jumps does with the states the jumps reach


@jit(inline="always")
def _column_jump(a, flags, t, q, r, j, previous, constants, trackers, mode):
    """Jump j along the column of state r (q of its plane), previous the rank the jump
    before it in the same direction reached (-1: that direction stopped): what _column_jumps
    counts, and the rank reached (-1: this direction stops here).  MARK: a jump of k cells
    is a jump of k - 1 cells and one more, so once a state on the way is OLD or CUR, the
    jumps on from it are its own, made when it was or is expanded, and this direction
    stops."""
    if j >= constants[2]:
        return 0, previous
    if j == constants[1]:
        previous = r  # the jumps up
    if previous < 0:
        return 0, previous
    g = plane_jump(t, q, j, previous, constants, trackers)
    if mode == FIND:
        return 1 if _is_cur(a, g) else 0, g
    if _seen_before(a, g):
        return 0, np.int64(-1)
    return mark_next(a, flags, g), g


@jit(inline="always")
def _column_jumps(a, flags, t, q, r, constants, trackers, mode):
    """The jumps along the column of state r (q of its plane) in the two-bit array a: MARK,
    how many UNSEEN states they mark NEXT; FIND, 1 if one reaches a CUR state, else 0.
    MAX_JUMPS of them at most, each written out so that its constants are read with a
    constant index, into registers."""
    n, p = _column_jump(a, flags, t, q, r, 0, r, constants, trackers, mode)
    if n == 0 or mode != FIND:
        more, p = _column_jump(a, flags, t, q, r, 1, p, constants, trackers, mode)
        n += more
    if n == 0 or mode != FIND:
        more, p = _column_jump(a, flags, t, q, r, 2, p, constants, trackers, mode)
        n += more
    return n


@jit(inline="always")
def _column_marks(a, flags, t, q, r, constants, trackers, code):
    """_column_jumps marking (Korf's codes: code is 01), as plane_kernels.sweep_units asks."""
    return _column_jumps(a, flags, t, q, r, constants, trackers, MARK)


@jit(parallel=True)
def jump_from_cur(a, cur_flags, next_flags, found, t, unit_plane, unit_first, unit_stop):
    """Mark NEXT every UNSEEN state a jump takes a CUR state to (units of the two-bit
    array: plane_kernels.units_for; found[u]: how many from unit u)."""
    sweep_units(a, cur_flags, next_flags, found, t, unit_plane, unit_first, unit_stop, ONE,
                -1, None, _jump_unit, _row_jumps, _column_marks)


@jit(inline="always")
def _set_column_jumps(bits, t, q, r, constants, trackers):
    """Set in bits every state a jump along the column takes state r (q of its plane) to
    (one loop, not _column_jumps' call site per jump: the frontier's dense depths only)."""
    down, jumps = constants[1], constants[2]
    p = r
    for j in range(jumps):
        if j == down:
            p = r  # the jumps up
        p = plane_jump(t, q, j, p, constants, trackers)
        set_bit(bits, p)


@jit(inline="always")
def _row_bits(bits, r, plane, col, width):
    """The jumps along the row of state r, set in a bitset of the whole space."""
    for c in range(width):
        if c != col:
            set_bit(bits, r + (c - col) * plane)


@jit(parallel=True)
def jump_from_ranks(ranks, bits, t, run_first, run_stop):
    """jump_from_cur over a list of ascending ranks (runs of one plane:
    plane_kernels.runs_for), setting the states reached in bits (a bitset of the level)."""
    sweep_runs(ranks, bits, t, run_first, run_stop, _jump_unit, _row_bits, _set_column_jumps)


@jit(inline="always")
def _is_cur(a, g):
    """Whether state g of the two-bit array a is CUR."""
    return (a[g >> 5] >> np.uint64(2 * (g & 31))) & np.uint64(3) == np.uint64(3)


@jit(inline="always")
def _cur_at(a, g0):
    """The CUR states among g0..g0 + 31 (g0 need not be a multiple of 32, nor in the array:
    states outside it are not CUR), as the y-lanes of a word."""
    w = g0 >> 5
    s = g0 & 31
    if s == 0:
        return cur_lanes(a[w])
    low = cur_lanes(a[w]) >> np.uint64(2 * s) if w >= 0 else np.uint64(0)
    high = cur_lanes(a[w + 1]) << np.uint64(64 - 2 * s) if w + 1 < a.size else np.uint64(0)
    return low | high


@jit(parallel=True)
def jump_to_unseen(a, next_flags, found, t, unit_plane, unit_first, unit_stop):
    """Backward: mark NEXT every UNSEEN state a jump takes to a CUR state (a jump back is a
    jump; found[u]: how many from unit u)."""
    width = t.width
    plane = t.plane
    for u in prange(unit_plane.size):
        found[u] = 0
        lo, col, trackers, constants = _jump_unit(t, unit_plane[u])
        hi = lo + plane
        new = 0
        for w in range(unit_first[u], unit_stop[u]):
            v = a[w]
            lanes = lanes_within(~(v | (v >> ONE)) & LANES, w, lo, hi)
            if lanes == 0:
                continue
            g0 = w * STATES_PER_WORD
            hit = np.uint64(0)
            for c in range(width):
                if c != col:
                    hit |= _cur_at(a, g0 + (c - col) * plane)
            hit &= lanes
            if hit:
                new += mark_next_lanes(a, next_flags, w, hit)
                lanes &= ~hit
            if not constants[0]:  # no jump along the column
                continue
            while lanes:
                r = g0 + np.int64(lowest_bit(lanes) >> ONE)
                lanes &= lanes - ONE
                if _column_jumps(a, next_flags, t, r - lo, r, constants, trackers, FIND):
                    new += mark_next(a, next_flags, r)
        found[u] = new


class PlaneJumpExpansion:
    """The layer expansion of a multi-tile sliding puzzle with plane tables (an
    expansion.LayerExpansion): the row's jumps a word of states at a time, the column's
    state by state from trackers of the plane kernels.  Forward while the frontier is
    smaller than what is left unseen over BACKWARD; backward past that (every UNSEEN state
    looks for a CUR state one jump away and stops at the first)."""

    def __init__(self, plane_expansion, puzzle):
        if not puzzle.metric.plane_jumps:
            raise ValueError(f"{puzzle.name}: no plane jumps for this board "
                             f"(metrics.MultiTile.plane_jumps)")
        self.tables = plane_expansion.tables
        self.units = plane_expansion.units
        self.found = plane_expansion.found
        self.size = puzzle.size
        self.cells = puzzle.cells
        self.directions = []  # 'forward' or 'backward', depth by depth (benchmarks, tests)

    def expand(self, state, level):
        cur, unseen = state.counts or cur_and_unseen(state.words, self.size)
        backward = unseen < BACKWARD * cur
        self.directions.append("backward" if backward else "forward")
        kernel, arguments = self._step(state, backward)
        state.run(kernel, *arguments)
        return int(self.found.sum())

    def _step(self, state, backward):
        if backward:
            return jump_to_unseen, (state.words, state.next_flags, self.found, self.tables,
                                    *self.units)
        return jump_from_cur, (state.words, state.cur_flags, state.next_flags, self.found,
                               self.tables, *self.units)

    def kernels(self, state):
        return [self._step(state, False), self._step(state, True),
                (count_cur_unseen, (state.words,))]

    def mark(self, ranks, level, bits):
        kernel, arguments = self._marking(ranks, bits)
        kernel(*arguments)

    def _marking(self, ranks, bits):
        return jump_from_ranks, (ranks, bits, self.tables,
                                 *runs_for(ranks, int(self.tables.plane), self.cells))

    def mark_kernels(self, bits):
        return [self._marking(np.zeros(1, np.uint64), bits)]
