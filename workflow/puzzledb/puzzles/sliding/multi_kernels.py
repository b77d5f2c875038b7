"""The multi-tile metric of sliding puzzles (puzzle.py, metric: multi-tile): one move slides
a whole run of pieces of the blank's row or column toward the blank, so the blank jumps to
any other cell of its row or column.  A jump along the row keeps the pieces in reading order
(the rank's blank digit alone changes); a jump along the column is the same number of
single-tile moves in a row, made on the decoded board and ranked.

State by state through the engines' generic steps: the plane kernels (plane_kernels.py)
know only the single-tile moves.
"""

import numpy as np

from puzzledb import compiled
from puzzledb.compiled import jit
from puzzledb.puzzles.ranking_kernels import (
    multiset_rank,
    multiset_unrank,
    permutation_rank,
    permutation_unrank,
)
from puzzledb.puzzles.sliding.puzzle import MultiTileTables


@jit(inline="always")
def _rank(board, t):
    if t.distinct:
        return permutation_rank(board, t.half_factorial)
    return multiset_rank(board, t.counts, t.weights)


@jit
def multi_tile_neighbours(rank, level, out, work, t):
    cells = t.adjacent.shape[0]
    board = work[:cells]
    plane = t.half_factorial if t.distinct else t.weights[0]
    s = rank // plane
    if t.distinct:
        permutation_unrank(rank, t.half_factorial, t.parity_of_blank, board)
    else:
        multiset_unrank(rank, t.counts, t.weights, board)
    k = 0
    first = s - s % t.width
    for c in range(first, first + t.width):
        if c != s:
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
        while b != s:  # the pieces back where they were
            board[b] = board[b - step]
            board[b - step] = 0
            b -= step
    return k


compiled.register(MultiTileTables, neighbours=multi_tile_neighbours)
