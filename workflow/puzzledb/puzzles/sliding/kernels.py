"""The compiled kernels of sliding puzzles (puzzle.py): neighbours for distinct tiles and for
repeated pieces, rank and unrank of single boards, the tile renaming of matching, Manhattan
distance and pattern-database lookups, and plane_expansion, the layer expansion of whole
planes (plane_kernels.py, with the vertical moves of distinct_kernels.py and
pool_kernels.py).  Every kernel takes the puzzle's tables.

A horizontal move swaps two cells that are consecutive in cell order, so every digit but the
blank's keeps its value in both rank families: such neighbours cost one addition.
"""

import numpy as np
from numba import prange
from numba.extending import overload

from puzzledb import compiled
from puzzledb.compiled.bitops import pdep, pext
from puzzledb.compiled.bounds import LowerBound
from puzzledb.compiled import jit
from puzzledb.puzzles.ranking import FACTORIAL
from puzzledb.puzzles.ranking_kernels import (
    combination_index,
    multiset_rank,
    multiset_unrank,
    permutation_rank,
    permutation_unrank,
    permutation_unrank_after,
)
from puzzledb.puzzles.sliding.puzzle import ManhattanTables, PatternTables
from puzzledb.puzzles.sliding.rankings import (
    DistinctTiles,
    MultisetTables,
    PermutationTables,
    RelabelTables,
    RepeatedPieces,
)
# importing the two piece families' kernels registers their vertical moves with the sweeps
# of plane_kernels.py (dispatched on the type of their tables)
from puzzledb.puzzles.sliding.distinct_kernels import factored_tables
from puzzledb.puzzles.sliding.plane_kernels import PlaneExpansion
from puzzledb.puzzles.sliding.pool_kernels import pool_tables
from puzzledb.puzzles.sliding import multi_kernels  # noqa: F401  (registers the multi-tile kernel)

ONE = np.uint64(1)


# the plane kernels' tables of each numbering (its vertical moves)
PLANE_TABLES = {DistinctTiles: factored_tables, RepeatedPieces: pool_tables}


def plane_expansion(puzzle):
    """The PlaneExpansion of a sliding puzzle whose numbering's plane_plan is not None."""
    tables = PLANE_TABLES[type(puzzle.ranking)](puzzle)
    return PlaneExpansion(tables, puzzle.cells, puzzle.ranking.plane, puzzle.size)


def board_rank(board, t):
    """The rank of a board under the tables of either rank family (compiled only)."""


def board_unrank(rank, out, t):
    """The board of a rank into out, under the tables of either rank family."""


@overload(board_rank, jit_options=dict(nogil=True))
def _board_rank(board, t):
    if t.instance_class is PermutationTables:
        return lambda board, t: permutation_rank(board, t.half_factorial)
    return lambda board, t: multiset_rank(board, t.counts, t.weights)


@overload(board_unrank, jit_options=dict(nogil=True))
def _board_unrank(rank, out, t):
    if t.instance_class is PermutationTables:
        return lambda rank, out, t: permutation_unrank(rank, t.half_factorial,
                                                       t.parity_of_blank, out)
    return lambda rank, out, t: multiset_unrank(rank, t.counts, t.weights, out)


# The compiled rank and unrank of one board, as the expansions use them; a puzzle's own
# rank and unrank are ranking.py's plain versions, which the tests compare these with.
@jit
def rank(board, t):
    return board_rank(board, t)


@jit
def unrank(rank, out, t):
    board_unrank(rank, out, t)


@jit(inline="always")
def _sideways(rank, s, weight, adjacent, out):
    """The moves along the blank's row (geometry.LEFT, RIGHT): only the blank's digit of
    the rank changes.  Their number."""
    k = 0
    for d in range(2):
        n = adjacent[s, d]
        if n >= 0:
            out[k] = rank + (n - s) * weight
            k += 1
    return k


@jit(inline="always")
def permutation_neighbours(rank, level, out, work, t):
    return _permutation_neighbours(rank, -1, out, work, 0, t)


@jit(inline="always")
def permutation_neighbours_after(rank, prev, level, out, work, t):
    """The neighbours of rank when work holds what the call for prev left (prev < 0:
    nothing): the board is decoded from the digits it does not share with prev's."""
    return _permutation_neighbours(rank, prev, out, work, 3 * (t.adjacent.shape[0] - 1), t)


@jit(inline="always")
def _permutation_neighbours(rank, prev, out, work, memo, t):
    """The neighbours of rank, its board and Lehmer digits decoded into work and memo words
    after them kept for the next rank (none: a rank on its own, whose callers need not pay
    for them)."""
    cells = t.adjacent.shape[0]
    s = rank // t.half_factorial
    k = _sideways(rank, s, t.half_factorial, t.adjacent, out)
    board = work[:cells]
    digits = work[cells + memo:cells + memo + cells - 1]
    permutation_unrank_after(rank, prev, t.half_factorial, t.parity_of_blank, board,
                             work[cells:cells + memo], digits)
    for d in range(2, 4):  # up and down: one tile moves past width - 1 others
        n = t.adjacent[s, d]
        if n >= 0:
            out[k] = _vertical(rank, s, n, board, digits, t)
            k += 1
    return k


@jit(inline="always")
def _vertical(rank, s, n, board, digits, t):
    """The rank after the tile on cell n (above or below the blank's cell s) moves into s:
    in reading order (the blank skipped) a window of `width` tiles turns, so only its
    Lehmer digits change, computed from the board and its digits; the halved code's lost
    bit is the lowest digit (the odd twin's 1)."""
    tiles = digits.size
    half = t.half_factorial
    code = 2 * (rank - s * half) + digits[tiles - 2]
    delta = 0
    smaller = 0
    if n > s:  # down: reading positions s..s+w-1 (cells s+1..s+w), the last to the front
        a, e = s, n - 1
        x = board[n]
        for i in range(a, e):
            bigger = 1 if board[i + 1] > x else 0
            smaller += 1 - bigger
            d = digits[i]
            delta += (d - bigger) * FACTORIAL[tiles - 2 - i] - d * FACTORIAL[tiles - 1 - i]
        d = digits[e]
        delta += (d + smaller) * FACTORIAL[tiles - 1 - a] - d * FACTORIAL[tiles - 1 - e]
    else:  # up: reading positions n..s-1 (the same cells), the first to the end
        a, e = n, s - 1
        y = board[n]
        for i in range(a + 1, e + 1):
            less = 1 if board[i] < y else 0
            smaller += less
            d = digits[i]
            delta += (d + 1 - less) * FACTORIAL[tiles - i] - d * FACTORIAL[tiles - 1 - i]
        d = digits[a]
        delta += (d - smaller) * FACTORIAL[tiles - 1 - e] - d * FACTORIAL[tiles - 1 - a]
    return n * half + ((code + delta) >> 1)


@jit
def multiset_neighbours(rank, level, out, work, t):
    """The board is held as one cell mask per class (work[c]) with the digits of the rank
    kept (work[k + c]): a vertical move of a piece of class p changes only the digits of
    classes 1..p, whose pools it changes."""
    k = t.counts.size
    blank_weight = t.weights[0]
    s = rank // blank_weight
    rest = rank - s * blank_weight
    free = t.full & ~(ONE << np.uint64(s))
    for c in range(1, k - 1):
        d = rest // t.weights[c]
        rest -= d * t.weights[c]
        work[k + c] = d
        m = pdep(t.combinations[c, d], free)
        work[c] = np.int64(m)
        free &= ~m
    work[k - 1] = np.int64(free)
    moves = _sideways(rank, s, blank_weight, t.adjacent, out)
    for direction in range(2, 4):
        n = t.adjacent[s, direction]
        if n >= 0:
            bit = ONE << np.uint64(n)
            p = 1
            while np.uint64(work[p]) & bit == 0:
                p += 1
            r = n * blank_weight
            pool = t.full & ~bit
            for c in range(1, k - 1):
                m = np.uint64(work[c])
                if c > p:
                    r += work[k + c] * t.weights[c]
                    continue
                if c == p:
                    m = (m & ~bit) | (ONE << np.uint64(s))
                r += combination_index(pext(m, pool), t.pools[c], t.counts[c]) * t.weights[c]
                pool &= ~m
            out[moves] = r
            moves += 1
    return moves


@jit
def relabel_by_query(rank, key, t):
    """The state `rank` with its tiles renamed by the query of rank `key` (see
    rankings.SlidingRelabelling): rename[goal[i]] = query[i], the blank to itself."""
    cells = t.goal.size
    work = np.empty(3 * cells, dtype=np.int64)
    query = work[:cells]
    state = work[cells:2 * cells]
    rename = work[2 * cells:]
    permutation_unrank(key, t.half_factorial, t.parity_of_blank, query)
    permutation_unrank(rank, t.half_factorial, t.parity_of_blank, state)
    for i in range(cells):
        rename[t.goal[i]] = query[i]
    for c in range(cells):
        state[c] = rename[state[c]]
    return permutation_rank(state, t.half_factorial)


@jit
def manhattan(rank, work, t):
    cells = t.costs.shape[0]
    board_unrank(rank, work[:cells], t.puzzle)
    total = 0
    for c in range(cells):
        total += t.costs[c, work[c]]
    return total


@jit
def pattern_lookup(rank, work, t):
    cells = t.puzzle.adjacent.shape[0]
    board_unrank(rank, work[:cells], t.puzzle)
    for c in range(cells):
        work[cells + c] = t.colours[work[c]]
    return np.int64(t.depths[board_rank(work[cells:2 * cells], t.abstract)])


compiled.register(PermutationTables, neighbours=permutation_neighbours,
                  neighbours_after=permutation_neighbours_after)
compiled.register(MultisetTables, neighbours=multiset_neighbours)
compiled.register(RelabelTables, relabel=relabel_by_query)
compiled.register(ManhattanTables, lower_bound=manhattan)
compiled.register(PatternTables, lower_bound=pattern_lookup)


def manhattan_bound(puzzle):
    return LowerBound("manhattan", ManhattanTables(puzzle.tables(), puzzle.manhattan_costs()),
                      puzzle.cells)


def pattern_bound(puzzle, abstract, colours, depths):
    return LowerBound(f"pdb:{abstract.name}",
                      PatternTables(puzzle.tables(), abstract.tables(), colours, depths),
                      2 * puzzle.cells)


@jit(parallel=True)
def canonical(ranks, perms, t):
    """Smallest rank among the images of each rank under the cell maps (identity first)."""
    out = np.empty(ranks.size, dtype=np.uint64)
    cells = perms.shape[1]
    step = 4096
    for chunk in prange((ranks.size + step - 1) // step):
        board = np.empty(cells, dtype=np.int64)
        image = np.empty(cells, dtype=np.int64)
        for i in range(chunk * step, min(ranks.size, (chunk + 1) * step)):
            board_unrank(np.int64(ranks[i]), board, t)
            best = np.int64(ranks[i])
            for s in range(perms.shape[0]):
                for c in range(cells):
                    image[c] = board[perms[s, c]]
                best = min(best, board_rank(image, t))
            out[i] = np.uint64(best)
    return out
