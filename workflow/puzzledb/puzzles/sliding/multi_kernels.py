"""The multi-tile metric of sliding puzzles (puzzle.py, metric: multi-tile): one move slides
a whole run of pieces of the blank's row or column toward the blank, so the blank jumps to
any other cell of its row or column.

A jump along the row keeps the pieces in reading order (the rank's blank digit alone
changes), so the CUR states of a word jump together, one word operation per target cell
(the plane kernels' horizontal move, to any cell of the row).  A jump of k cells along the
column is k single vertical moves of the plane kernels (plane_kernels.py), composed a cell
at a time: PlaneJumpExpansion's first sweep makes every move from the CUR states and keeps
the states one cell down (up) whose jump can go on in a bitset; each further sweep takes a
bitset plane by plane in ascending order, as the plane kernels' trackers ask, and moves its
states one more cell the same way.  Every state reached is marked NEXT if it is UNSEEN: a
jump passes over seen states, which is why the bitsets hold them all.

Boards without plane tables (plane_plan None) go state by state (MultiTileExpansion): the
row's jumps a word at a time, the column's ranked from the board, decoded from the one
before in ascending order.
"""

import numpy as np
from numba import prange

from puzzledb import compiled
from puzzledb.compiled import jit
from puzzledb.compiled.bitops import lowest_bit
from puzzledb.expansion import LANES, ONE, STATES_PER_WORD, SUB_WORDS, WORD_BITS, words_for
from puzzledb.expansion.words import (
    cur_and_unseen,
    cur_lanes,
    lanes_within,
    mark_next,
    mark_next_lanes,
    mark_next_shifted,
    set_bit,
    units_active,
)
from puzzledb.puzzles.ranking_kernels import (
    multiset_rank,
    multiset_unrank,
    permutation_rank,
    permutation_unrank_after,
)
from puzzledb.puzzles.sliding.plane_kernels import (
    BOTH,
    DOWN,
    UP,
    plane_moves,
    plane_unit,
    runs_for,
    units_for,
)
from puzzledb.puzzles.sliding.puzzle import MultiTileTables, kept_bitsets

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
        out = np.empty(max_moves, np.int64)
        work = np.empty(work_size, np.int64)
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


@jit(parallel=True)
def mark_sorted(ranks, bits, t, starts, max_moves, work_size):
    """Set in bits every neighbour of the ascending ranks (blocks of them from starts)."""
    for b in prange(starts.size - 1):
        out = np.empty(max_moves, np.int64)
        work = np.empty(work_size, np.int64)
        prev = -1
        for i in range(starts[b], starts[b + 1]):
            r = np.int64(ranks[i])
            n = multi_tile_neighbours_after(r, prev, 0, out, work, t)
            prev = r
            for j in range(n):
                set_bit(bits, out[j])


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
        if self.found is None or self.found.size != state.cur_flags.size:
            self.found = np.zeros(state.cur_flags.size, dtype=np.int64)
        state.run(expand_sub_blocks, state.words, state.cur_flags, state.next_flags,
                  self.found, self.tables, self.max_moves, self.work_size)
        return int(self.found.sum())

    def mark(self, ranks, level, bits):
        starts = np.append(np.arange(0, ranks.size, SORTED_BLOCK), ranks.size).astype(np.int64)
        mark_sorted(ranks, bits, self.tables, starts, self.max_moves, self.work_size)


# --- whole planes: the row's jumps a word at a time, the column's composed of plane moves ----

BACKWARD = 1.5  # expand backward once the unseen states are fewer than this times the CUR
NO_BITS = np.zeros(0, np.uint64)  # a bitset not kept (or, as `found`'s partner, no two-bit array)


@jit(inline="always")
def _mark(a, flags, g):
    """Mark state g: NEXT in the two-bit array a (1 if it was UNSEEN), or, flags empty, its
    bit in the bitset a (0)."""
    if flags.size == 0:
        set_bit(a, g)
        return 0
    return mark_next(a, flags, g)


@jit(inline="always")
def _goes_on(row, height, down_bits, up_bits):
    """Whether a jump down (up) from a row goes on past its first cell, and is kept (an empty
    bitset: not kept)."""
    return down_bits.size > 0 and row + 2 < height, up_bits.size > 0 and row >= 2


@jit(inline="always")
def _row_jumps(a, flags, g0, lanes, plane, col, width):
    """The jumps along the row of the CUR states `lanes` of the two-bit word of states
    g0..g0 + 31: the same place of every other plane of the row."""
    new = 0
    for c in range(width):
        if c != col:
            new += mark_next_shifted(a, flags, g0 + (c - col) * plane, lanes)
    return new


@jit(inline="always")
def _first_cell(a, flags, t, q, constants, trackers, down_bits, up_bits, keep_down,
                keep_up):
    """The column's moves of one cell from state q of the plane: marked, and kept where the
    jump can go on."""
    new = 0
    down, up = plane_moves(t, q, constants, trackers)
    if down >= 0:
        new += _mark(a, flags, down)
        if keep_down:
            set_bit(down_bits, down)
    if up >= 0:
        new += _mark(a, flags, up)
        if keep_up:
            set_bit(up_bits, up)
    return new


@jit(parallel=True)
def jump_from_cur(a, cur_flags, next_flags, found, t, height, down_bits, up_bits,
                  unit_plane, unit_first, unit_stop):
    """Every jump along the row and the first cell of every jump along the column from the
    CUR states (units of the two-bit array: plane_kernels.units_for), marking NEXT the UNSEEN
    states reached (found[u]: how many from unit u); a state one cell down (up) whose jump
    can go on is set in down_bits (up_bits) whether seen or not (an empty bitset: none kept)."""
    width = t.width
    plane = t.plane
    for u in prange(unit_plane.size):
        found[u] = 0
        if not units_active(cur_flags, unit_first[u], unit_stop[u]):
            continue
        lo, col, row, trackers, constants = plane_unit(t, unit_plane[u], BOTH)
        hi = lo + plane
        keep_down, keep_up = _goes_on(row, height, down_bits, up_bits)
        new = 0
        for w in range(unit_first[u], unit_stop[u]):
            lanes = lanes_within(cur_lanes(a[w]), w, lo, hi)
            if lanes == 0:
                continue
            g0 = w * STATES_PER_WORD
            new += _row_jumps(a, next_flags, g0, lanes, plane, col, width)
            if not constants[0]:  # no vertical move
                continue
            while lanes:
                q = g0 + np.int64(lowest_bit(lanes) >> ONE) - lo
                lanes &= lanes - ONE
                new += _first_cell(a, next_flags, t, q, constants, trackers, down_bits,
                                   up_bits, keep_down, keep_up)
        found[u] = new


@jit(parallel=True)
def jump_from_ranks(ranks, bits, t, height, down_bits, up_bits, run_first, run_stop):
    """jump_from_cur over a list of ascending ranks (runs of one plane:
    plane_kernels.runs_for), setting the states reached in bits (a bitset of the level)."""
    width = t.width
    plane = t.plane
    into_bits = np.zeros(0, np.uint64)  # _mark's flags: set the bits
    for k in prange(run_first.size):
        first = run_first[k]
        lo, col, row, trackers, constants = plane_unit(t, np.int64(ranks[first]) // plane, BOTH)
        keep_down, keep_up = _goes_on(row, height, down_bits, up_bits)
        for i in range(first, run_stop[k]):
            r = np.int64(ranks[i])
            for c in range(width):
                if c != col:
                    set_bit(bits, r + (c - col) * plane)
            if constants[0]:
                _first_cell(bits, into_bits, t, r - lo, constants, trackers, down_bits,
                            up_bits, keep_down, keep_up)


@jit(parallel=True)
def jump_on(src, a, flags, found, t, direction, height, keep, backward, unit_plane,
            unit_first, unit_stop):
    """One cell more of the column's jumps in `direction` (DOWN or UP) from the states of
    the bitset src (units of 64-state words: plane_kernels.units_for).  Forward, each state
    reached is marked in a (a two-bit array, NEXT if UNSEEN, found[u] counting them; flags
    empty: a bitset) and set in keep (empty: none kept) if its jump can go on.  Backward (a
    two-bit array; src: the first cells of the jumps of UNSEEN states, height 3), a state
    whose next cell is CUR marks the state its jump came from.  src is left empty but for
    the words two planes share (the caller clears them)."""
    plane = t.plane
    for u in prange(unit_plane.size):  # planes of the rows between the first and the last
        found[u] = 0
        lo, _, row, trackers, constants = plane_unit(t, unit_plane[u],
                                                     BOTH if backward else direction)
        hi = lo + plane
        down_on, up_on = _goes_on(row, height, keep, keep)
        on = down_on if direction == DOWN else up_on
        new = 0
        for w in range(unit_first[u], unit_stop[u]):
            v = src[w]
            if v == 0:
                continue
            g0 = w * WORD_BITS
            if g0 >= lo and g0 + WORD_BITS <= hi:
                src[w] = 0  # this unit's alone
            else:
                if g0 < lo:
                    v &= ~((ONE << np.uint64(lo - g0)) - ONE)
                if g0 + WORD_BITS > hi:
                    v &= (ONE << np.uint64(hi - g0)) - ONE
            while v:
                q = g0 + np.int64(lowest_bit(v)) - lo
                v &= v - ONE
                down, up = plane_moves(t, q, constants, trackers)
                to, back = (down, up) if direction == DOWN else (up, down)
                if backward:
                    if _is_cur(a, to):
                        new += mark_next(a, flags, back)
                    continue
                new += _mark(a, flags, to)
                if on:
                    set_bit(keep, to)
        found[u] = new


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
def jump_to_unseen(a, next_flags, found, t, height, down_bits, up_bits, unit_plane,
                   unit_first, unit_stop):
    """Backward: mark NEXT every UNSEEN state a jump along its row or one cell along its
    column takes to a CUR state (found[u]: how many from unit u); for the others, the first
    cell of their longer jumps down (up) is set in down_bits (up_bits; height 3: jump_on
    backward finishes them)."""
    width = t.width
    plane = t.plane
    for u in prange(unit_plane.size):
        found[u] = 0
        lo, col, row, trackers, constants = plane_unit(t, unit_plane[u], BOTH)
        hi = lo + plane
        keep_down, keep_up = _goes_on(row, height, down_bits, up_bits)
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
            if not constants[0]:  # no vertical move
                continue
            while lanes:
                q = g0 + np.int64(lowest_bit(lanes) >> ONE) - lo
                lanes &= lanes - ONE
                down, up = plane_moves(t, q, constants, trackers)
                if (down >= 0 and _is_cur(a, down)) or (up >= 0 and _is_cur(a, up)):
                    new += mark_next(a, next_flags, lo + q)
                    continue
                if keep_down and down >= 0:
                    set_bit(down_bits, down)
                if keep_up and up >= 0:
                    set_bit(up_bits, up)
        found[u] = new


class PlaneJumpExpansion:
    """The layer expansion of a multi-tile sliding puzzle with plane tables (an
    expansion.LayerExpansion): the row's jumps a word of states at a time, the column's a
    cell at a time through bitsets of the whole space (height - 1 cells at most; none kept
    on two rows, two bitsets on three, three from four: puzzle.kept_bitsets).

    Forward while the frontier is smaller than what is left unseen; backward past that
    (every UNSEEN state looks for a CUR state one move away and stops at the first: a jump
    back is a jump), on boards of two or three rows, where a jump along the column is at
    most two cells."""

    def __init__(self, plane_expansion, puzzle):
        self.tables = plane_expansion.tables
        self.units = plane_expansion.units
        self.found = plane_expansion.found
        self.size = puzzle.size
        self.height = np.int64(puzzle.height)
        self.cells = puzzle.cells
        words = words_for(puzzle.size)
        # a jump that goes on after its first cell is in a row between the first and the last
        plane_of, first, stop = units_for(puzzle.cells, plane_expansion.plane, words,
                                          per_word=WORD_BITS)
        row = plane_of // puzzle.width
        inner = (row >= 1) & (row <= puzzle.height - 2)
        self.bit_units = plane_of[inner], first[inner], stop[inner]
        self.bit_found = np.zeros(self.bit_units[0].size, dtype=np.int64)
        # words two planes share, and a last word past the space: jump_on leaves them
        edges = np.arange(1, puzzle.cells + 1, dtype=np.int64) * plane_expansion.plane
        self.shared = np.unique(edges[edges % WORD_BITS != 0] // WORD_BITS)
        self.bitsets = [np.zeros(words, np.uint64) for _ in range(kept_bitsets(puzzle.height))]
        self.directions = []  # 'forward' or 'backward', depth by depth (benchmarks, tests)

    def _jumps_on(self, a, flags, kept, run, backward=False):
        """The column's jumps from their first cell (kept: the down and up bitsets) to
        their last; how many states marked NEXT."""
        new = 0
        spare = self.bitsets[2] if len(self.bitsets) > 2 else NO_BITS
        for direction, src in zip((DOWN, UP), kept):
            for cell in range(2, int(self.height)):
                keep = spare if cell < self.height - 1 else NO_BITS
                run(jump_on, src, a, flags, self.bit_found, self.tables, np.int64(direction),
                    self.height, keep, backward, *self.bit_units)
                src[self.shared] = 0
                new += int(self.bit_found.sum())
                if keep.size:
                    src, spare = keep, src
        return new

    def expand(self, state, level):
        kept = self.bitsets[:2] if self.bitsets else [NO_BITS, NO_BITS]
        backward = False
        if self.height <= 3:
            cur, unseen = cur_and_unseen(state.words, self.size)
            backward = unseen < BACKWARD * cur
        self.directions.append("backward" if backward else "forward")
        if backward:
            state.run(jump_to_unseen, state.words, state.next_flags, self.found, self.tables,
                      self.height, *kept, *self.units)
        else:
            state.run(jump_from_cur, state.words, state.cur_flags, state.next_flags,
                      self.found, self.tables, self.height, *kept, *self.units)
        return int(self.found.sum()) + self._jumps_on(state.words, state.next_flags, kept,
                                                      state.run, backward)

    def mark(self, ranks, level, bits):
        kept = self.bitsets[:2] if self.bitsets else [NO_BITS, NO_BITS]
        jump_from_ranks(ranks, bits, self.tables, self.height, *kept,
                        *runs_for(ranks, int(self.tables.plane), self.cells))
        self._jumps_on(bits, NO_BITS, kept, lambda kernel, *args: kernel(*args))
