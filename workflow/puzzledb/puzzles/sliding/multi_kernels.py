"""The multi-tile metric of sliding puzzles (puzzle.py, metric: multi-tile): one move slides
a whole run of pieces of the blank's row or column toward the blank, so the blank jumps to
any other cell of its row or column.  A jump along the row keeps the pieces in reading order
(the rank's blank digit alone changes); a jump along the column is the same number of
single-tile moves in a row, made on the decoded board and ranked.

A layer is expanded by MultiTileExpansion: the jumps along the row a word of states at a
time (the same word operation as the plane kernels' horizontal moves, to any cell of the
row), those along the column state by state in ascending order, each board of distinct tiles
decoded from where its rank differs from the one before.  The plane kernels'
vertical sweeps (plane_kernels.py) know only single-tile moves.
"""

import numpy as np
from numba import prange

from puzzledb import compiled
from puzzledb.compiled import jit
from puzzledb.compiled.bitops import lowest_bit
from puzzledb.expansion import ONE, STATES_PER_WORD, SUB_WORDS
from puzzledb.expansion.words import cur_lanes, mark_next, mark_next_shifted, set_bit
from puzzledb.puzzles.ranking_kernels import (
    multiset_rank,
    multiset_unrank,
    permutation_rank,
    permutation_unrank_after,
)
from puzzledb.puzzles.sliding.puzzle import MultiTileTables

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
        permutation_unrank_after(rank, prev, t.half_factorial, t.parity_of_blank, board, memo)
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
