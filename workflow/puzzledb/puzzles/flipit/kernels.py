"""The compiled kernels of Flip It (puzzle.py): neighbours, the corner bound and the smallest
rank of an orbit.  A board is held as (empty cell, mask of the black cells)."""

import numpy as np
from numba import prange

from puzzledb import compiled
from puzzledb.compiled.bitops import pdep, pext
from puzzledb.compiled.bounds import LowerBound
from puzzledb.compiled import jit
from puzzledb.puzzles.flipit.puzzle import CornerTables, FlipItTables

ONE = np.uint64(1)


@jit(inline="always")
def _split(rank, t):
    empty = rank >> t.pieces
    return empty, pdep(np.uint64(rank) & t.colours, t.others[empty])


@jit(inline="always")
def _join(empty, black, t):
    return (empty << t.pieces) | np.int64(pext(black, t.others[empty]))


@jit
def neighbours(rank, level, out, work, t):
    empty, black = _split(rank, t)
    for k in range(t.move_counts[empty]):
        mover = t.moves[empty, k, 0]
        flipped = black ^ np.uint64(t.moves[empty, k, 1])
        # the mover keeps its colour on the old empty cell; its own cell empties
        colour = (flipped >> np.uint64(mover)) & ONE
        moved = (flipped & ~(ONE << np.uint64(mover))) | (colour << np.uint64(empty))
        out[k] = _join(mover, moved, t)
    return t.move_counts[empty]


@jit(parallel=True)
def canonical(ranks, perms, t):
    """Smallest rank among the images of each rank under the cell maps (identity included)."""
    out = np.empty(ranks.size, dtype=np.uint64)
    cells = perms.shape[1]
    for i in prange(ranks.size):
        empty, black = _split(np.int64(ranks[i]), t)
        best = np.int64(ranks[i])
        for s in range(perms.shape[0]):
            image_black = np.uint64(0)
            image_empty = 0
            for c in range(cells):
                source = perms[s, c]
                if source == empty:
                    image_empty = c
                image_black |= ((black >> np.uint64(source)) & ONE) << np.uint64(c)
            best = min(best, _join(image_empty, image_black, t))
        out[i] = best
    return out


@jit
def corner_bound(rank, work, t):
    """FlipItPuzzle.corner_bound from a rank: per_corner for each corner piece of the wrong
    colour, plus first if there is one."""
    empty, black = _split(rank, t.board)
    wrong = 0
    for c in t.corners:
        if c != empty and np.int64((black >> np.uint64(c)) & ONE) == t.wrong:
            wrong += 1
    bound = t.per_corner * wrong
    if wrong > 0:
        bound += t.first
    return bound


compiled.register(FlipItTables, neighbours=neighbours)
compiled.register(CornerTables, lower_bound=corner_bound)


def corner_lower_bound(tables):
    return LowerBound("corner", tables)
