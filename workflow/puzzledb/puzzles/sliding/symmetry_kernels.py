"""The compiled side of a sliding puzzle searched up to symmetry (symmetry.py): the
neighbours kernel whose neighbours are canonical ranks (the least rank among a board's
images), and the canonical rank and class size of many ranks.  The board's own neighbours
come from the family's kernel, each then decoded and its images ranked."""

import numpy as np
from numba import prange
from numba.extending import overload

from puzzledb import compiled
from puzzledb.compiled import jit
from puzzledb.compiled.bitops import popcount
from puzzledb.puzzles.ranking_kernels import (
    multiset_rank,
    multiset_unrank,
    permutation_rank,
    permutation_unrank,
)
from puzzledb.puzzles.sliding.kernels import (
    _vertical,
    multiset_neighbours,
    permutation_neighbours,
)
from puzzledb.puzzles.sliding.symmetry import SYMMETRIC

BLOCK = 4096  # ranks a thread takes at a time
ONE = np.uint64(1)


def _distinct(t):
    return "half_factorial" in t.fields  # distinct tiles' tables (rankings.py), else multiset


def base_neighbours(rank, level, out, work, t):
    """The board's own neighbours, from the family's kernel (compiled only)."""
    raise NotImplementedError("called from compiled code only")


@overload(base_neighbours, inline="always")
def _base_neighbours(rank, level, out, work, t):
    if _distinct(t):
        return lambda rank, level, out, work, t: permutation_neighbours(rank, level, out,
                                                                        work, t)
    return lambda rank, level, out, work, t: multiset_neighbours(rank, level, out, work, t)


def rank_board(board, t):
    """A board's rank (compiled only)."""
    raise NotImplementedError("called from compiled code only")


@overload(rank_board, inline="always")
def _rank_board(board, t):
    if _distinct(t):
        return lambda board, t: permutation_rank(board, t.half_factorial)
    return lambda board, t: multiset_rank(board, t.counts, t.weights)


def unrank_board(rank, out, t):
    """A rank's board into out (compiled only)."""
    raise NotImplementedError("called from compiled code only")


@overload(unrank_board, inline="always")
def _unrank_board(rank, out, t):
    if _distinct(t):
        return lambda rank, out, t: permutation_unrank(rank, t.half_factorial,
                                                       t.parity_of_blank, out)
    return lambda rank, out, t: multiset_unrank(rank, t.counts, t.weights, out)


@jit(inline="always")
def _rank_with_digits(board, digits, half_factorial):
    """A board's rank (ranking_kernels.permutation_rank) and its tiles' Lehmer digits in
    reading order, the blank skipped (as the family's kernel keeps them for _vertical)."""
    used = np.uint64(0)
    blank = 0
    lehmer = 0
    tiles = board.size - 1
    j = 0
    for i in range(board.size):
        piece = board[i]
        if piece == 0:
            blank = i
            continue
        below = np.uint64(piece - 1)
        d = piece - 1 - np.int64(popcount(used & ((ONE << below) - ONE)))
        digits[j] = d
        lehmer = lehmer * (tiles - j) + d
        used |= ONE << below
        j += 1
    return blank * half_factorial + lehmer // 2


@jit(inline="always")
def least(rank, board, image, cells, rename, count, t):
    """(the least rank among the board's and its images', how many give it: the size of
    the board's stabiliser)."""
    best, ties = rank, 1
    for s in range(count):
        for c in range(board.size):
            image[c] = rename[s, board[cells[s, c]]]
        r = rank_board(image, t)
        if r < best:
            best, ties = r, 1
        elif r == best:
            ties += 1
    return best, ties


@jit
def neighbours(rank, level, out, work, t):
    """The canonical ranks of the neighbours of a state (a canonical rank): the family's
    neighbours, each replaced by the least rank of its images (images_moved).  (Inlined
    where it is called, as the family's own kernel is, it ran faster but took minutes to
    compile.)"""
    return images_moved(rank, level, out, work, t)


def images_moved(rank, level, out, work, t):
    """The family's neighbours, each replaced by the least rank of its images (compiled
    only)."""
    raise NotImplementedError("called from compiled code only")


@overload(images_moved)
def _images_moved(rank, level, out, work, t):
    if not _distinct(t):
        def each_decoded(rank, level, out, work, t):
            """Each neighbour decoded and its images ranked."""
            k = base_neighbours(rank, level, out, work, t)
            cells, rename, count, at = t.sy_cells, t.sy_rename, t.sy_count, t.sy_work
            n = t.adjacent.shape[0]
            board, image = work[at:at + n], work[at + n:at + 2 * n]
            for j in range(k):
                unrank_board(out[j], board, t)
                out[j] = least(out[j], board, image, cells, rename, count, t)[0]
            return k
        return each_decoded

    def moved_images(rank, level, out, work, t):
        """Distinct tiles: the state's board and Lehmer digits are decoded once (by the
        family's kernel); a neighbour's image matters only when its blank's cell comes
        before the neighbour's own (the blank's cell is a rank's leading digit), and then
        it is the board's image (ranked once, with its digits, when first needed) moved by
        the image of the move, ranked as the family's kernel ranks a move (a slide along a
        row changes the blank's digit alone, a slide along a column a window of
        digits)."""
        k = permutation_neighbours(rank, level, out, work, t)
        n = t.adjacent.shape[0]
        board = work[:n]
        at = t.sy_work
        image, image_digits = work[at:at + n], work[at + n:at + 2 * n - 1]
        half, adjacent, back = t.half_factorial, t.adjacent, t.sy_back
        s = rank // half
        for e in range(t.sy_count):
            blank = back[e, s]
            image_rank = -1
            j = 0
            for d in range(4):  # the family's kernel's order: along the row, then the column
                target = adjacent[s, d]
                if target < 0:
                    continue
                moved = back[e, target]
                if moved <= target:
                    if image_rank < 0:
                        for c in range(n):
                            image[c] = t.sy_rename[e, board[t.sy_cells[e, c]]]
                        image_rank = _rank_with_digits(image, image_digits, half)
                    if moved == adjacent[blank, 0] or moved == adjacent[blank, 1]:
                        r = image_rank + (moved - blank) * half
                    else:
                        r = _vertical(image_rank, blank, moved, image, image_digits, t)
                    if r < out[j]:
                        out[j] = r
                j += 1
        return k
    return moved_images


for _type in SYMMETRIC.values():
    compiled.register(_type, neighbours=neighbours)


def blank_cell(rank, t):
    """The blank's cell of a rank, when its rank says it (distinct tiles: the leading
    digit), else -1 (compiled only)."""
    raise NotImplementedError("called from compiled code only")


@overload(blank_cell, inline="always")
def _blank_cell(rank, t):
    if _distinct(t):
        return lambda rank, t: rank // t.half_factorial
    return lambda rank, t: -1


@jit(inline="always")
def _alone(rank, t):
    """True when every image of the board puts its blank on a later cell, so that each has
    a greater rank (the blank's cell leads a rank): the rank is its class's least and no
    symmetry fixes the board, known without decoding it (under the 15-puzzle's transpose:
    every class whose least board has its blank off the diagonal, 3 in 4)."""
    s = blank_cell(rank, t)
    if s < 0:
        return False
    for e in range(t.sy_count):
        if t.sy_back[e, s] <= s:
            return False
    return True


@jit
def _block(ranks, t, out, sizes, first, last):
    """canonical_keys (out given) or class_sizes (out None) of ranks[first:last]."""
    n = t.adjacent.shape[0]
    board, image = np.empty(n, np.int64), np.empty(n, np.int64)
    for i in range(first, last):
        rank = np.int64(ranks[i])
        if _alone(rank, t):
            best, ties = rank, 1
        else:
            unrank_board(rank, board, t)
            best, ties = least(rank, board, image, t.sy_cells, t.sy_rename, t.sy_count, t)
        if out is not None:
            out[i] = best
            sizes[i] = ties
        else:
            sizes[i] = (t.sy_count + 1) // ties


@jit(parallel=True)
def canonical_keys(ranks, t, out, stabilisers):
    """out[i]: the canonical rank of ranks[i]'s class; stabilisers[i]: how many of the
    group's elements (the identity one) fix it."""
    for b in prange((ranks.size + BLOCK - 1) // BLOCK):
        _block(ranks, t, out, stabilisers, b * BLOCK, min(ranks.size, (b + 1) * BLOCK))


@jit(parallel=True)
def class_sizes(ranks, t, out):
    """out[i]: the positions of the class whose canonical rank is ranks[i]."""
    for b in prange((ranks.size + BLOCK - 1) // BLOCK):
        _block(ranks, t, None, out, b * BLOCK, min(ranks.size, (b + 1) * BLOCK))
