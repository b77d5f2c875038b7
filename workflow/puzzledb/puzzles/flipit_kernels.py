"""The compiled kernels of Flip It Square (flipit.py): neighbours, the corner bound and the
smallest rank of an orbit.  A board is held as (empty cell, 16-bit mask of black cells)."""

import numpy as np
from numba import prange

from .. import compiled
from ..bitops import pdep, pext
from ..bounds import LowerBound
from ..compiled import jit
from .flipit import CELLS, CORNERS, PIECES, CornerTables, FlipItTables

FULL = (1 << CELLS) - 1


@jit(inline="always")
def _split(rank):
    empty = rank >> PIECES
    others = np.uint64(FULL ^ (1 << empty))
    return empty, pdep(np.uint64(rank & ((1 << PIECES) - 1)), others)


@jit(inline="always")
def _join(empty, black):
    others = np.uint64(FULL ^ (1 << empty))
    return (empty << PIECES) | np.int64(pext(black, others))


@jit
def neighbours(rank, level, out, work, t):
    empty, black = _split(rank)
    for k in range(t.move_counts[empty]):
        mover = t.moves[empty, k, 0]
        flipped = black ^ np.uint64(t.moves[empty, k, 1])
        # the mover keeps its colour on the old empty cell; its own cell empties
        colour = (flipped >> np.uint64(mover)) & np.uint64(1)
        moved = (flipped & ~(np.uint64(1) << np.uint64(mover))) | (colour << np.uint64(empty))
        out[k] = _join(mover, moved)
    return t.move_counts[empty]


@jit(parallel=True)
def canonical(ranks, perms):
    """Smallest rank among the images of each rank under the cell maps (identity included)."""
    out = np.empty(ranks.size, dtype=np.uint64)
    for i in prange(ranks.size):
        empty, black = _split(np.int64(ranks[i]))
        best = np.int64(ranks[i])
        for s in range(perms.shape[0]):
            image_black = np.uint64(0)
            image_empty = 0
            for c in range(CELLS):
                source = perms[s, c]
                if source == empty:
                    image_empty = c
                image_black |= ((black >> np.uint64(source)) & np.uint64(1)) << np.uint64(c)
            best = min(best, _join(image_empty, image_black))
        out[i] = best
    return out


@jit
def corner_bound(rank, work, t):
    """flipit.corner_bound from a rank: 2 per black corner piece."""
    _, black = _split(rank)
    bound = 0
    for c in t.corners:
        bound += 2 * np.int64((black >> np.uint64(c)) & np.uint64(1))
    return bound


compiled.register(FlipItTables, neighbours=neighbours)
compiled.register(CornerTables, lower_bound=corner_bound)


def corner_lower_bound():
    return LowerBound("corner", CornerTables(np.array(CORNERS, dtype=np.int64)))
