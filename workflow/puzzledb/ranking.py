"""Dense bijective ranks of boards, the families the puzzles share.

Each family has a numba kernel (used by the BFS engine, one board at a time in a hot loop)
and a plain-Python reference that the tests compare it with.
A board here is a sequence of small integers, one per cell; 0 is the blank.
"""

from math import comb, factorial

import numpy as np
from numba import njit

from .bitops import lowest_bit, pdep, popcount

MAX_CELLS = 64


def binomial_table(n=MAX_CELLS):
    """binom[a, b] = C(a, b), zero where b > a."""
    table = np.zeros((n + 1, n + 1), dtype=np.int64)
    for a in range(n + 1):
        for b in range(a + 1):
            table[a, b] = comb(a, b)
    return table


BINOM = binomial_table()


# --- multisets: one blank (class 0) and pieces of classes 1..K-1 with given counts ----------
#
# The blank cell is the most significant digit.  Then each class c = 1..K-2 in turn is
# placed among the cells that are neither blank nor taken by a smaller class, and numbered
# by the combination numbering of seed 000: walking the pool in cell order, a chosen cell
# adds C(cells left after it, pieces still to place), the number of placements that skip
# it.  The last class fills what is left, so it carries no digit.


def multiset_weights(counts):
    """Mixed-radix weights of the digits (blank, class 1, ..., class K-2) and the rank count."""
    counts = [int(c) for c in counts]
    cells = sum(counts)
    radices = [cells]
    pool = cells - counts[0]
    for c in counts[1:-1]:
        radices.append(comb(pool, c))
        pool -= c
    weights = [1] * len(radices)
    for i in range(len(radices) - 2, -1, -1):
        weights[i] = weights[i + 1] * radices[i + 1]
    return np.array(weights + [0], dtype=np.int64), weights[0] * radices[0]


@njit(cache=True, nogil=True)
def multiset_rank(board, counts, weights):
    # class by class, so that the kernel allocates nothing: it runs for every neighbour
    k = counts.size
    rank = 0
    pool = board.size - counts[0]
    for i in range(board.size):
        if board[i] == 0:
            rank = i * weights[0]
            break
    for c in range(1, k - 1):
        n = pool
        r = counts[c]
        value = 0
        for i in range(board.size):
            p = board[i]
            if p < c:
                continue
            if p == c:
                value += BINOM[n - 1, r]
                r -= 1
                if r == 0:
                    break
            n -= 1
        rank += value * weights[c]
        pool -= counts[c]
    return rank


@njit(cache=True, nogil=True)
def multiset_unrank(rank, counts, weights, out):
    k = counts.size
    cells = out.size
    last = k - 1
    for i in range(cells):
        out[i] = last
    out[rank // weights[0]] = 0
    rank %= weights[0]
    pool = cells - counts[0]
    for c in range(1, k - 1):
        v = rank // weights[c]
        rank %= weights[c]
        n = pool
        r = counts[c]
        for i in range(cells):
            if r == 0:
                break
            if out[i] != last:
                continue
            t = BINOM[n - 1, r]
            if v >= t:
                out[i] = c
                v -= t
                r -= 1
            n -= 1
        pool -= counts[c]


# The same numbering on bitmasks, for the hot loop: a class's cells are a mask, its pool the
# mask of cells it may use; pext packs the class mask onto the pool positions and pdep
# spreads them back, so a digit costs a few instructions instead of a walk over the board.


def combination_masks(n, r):
    """unrank table: combination index (seed numbering over n pool positions, r chosen) ->
    mask of the chosen pool positions."""
    masks = np.empty(comb(n, r), dtype=np.uint64)
    for index in range(masks.size):
        v, left, mask = index, r, 0
        for j in range(n):
            t = comb(n - 1 - j, left)
            if left and v >= t:
                mask |= 1 << j
                v -= t
                left -= 1
        masks[index] = mask
    return masks


@njit(cache=True, nogil=True)
def combination_index(packed, n, r):
    """Inverse of combination_masks: a chosen pool position j adds C(n-1-j, chosen still
    to come), the number of combinations that skip it."""
    value = 0
    while packed:
        j = np.int64(lowest_bit(packed))
        packed &= packed - np.uint64(1)
        value += BINOM[n - 1 - j, r]
        r -= 1
    return value


def multiset_rank_reference(board, counts):
    """Plain-Python rank with the seed's numbering, independent of the kernel."""
    k = len(counts)
    rank = board.index(0)
    for c in range(1, k - 1):
        pool = [p for p in board if p >= c]
        left = counts[c]
        value = 0
        for j, p in enumerate(pool):
            if p == c:
                value += comb(len(pool) - j - 1, left)
                left -= 1
        rank = rank * comb(len(pool), counts[c]) + value
    return rank


# --- permutations with a parity constraint: distinct tiles 1..T and one blank ----------------
#
# The blank cell is the most significant digit; the tiles read in cell order (blank skipped)
# form a permutation whose parity is fixed by the blank's cell (parity_of_blank), so the
# Lehmer code halved is a dense rank: the two permutations that differ only in their last
# two tiles have Lehmer codes 2q and 2q+1 and opposite parities.


@njit(cache=True, nogil=True)
def permutation_rank(board, half_factorial):
    used = np.uint64(0)
    blank = 0
    lehmer = 0
    t = board.size - 1
    j = 0
    # fact[j] for the j-th tile: (t-1-j)!, built from half_factorial = t!/2
    for i in range(board.size):
        p = board[i]
        if p == 0:
            blank = i
            continue
        v = p - 1
        below = np.uint64(v)
        smaller_used = np.int64(popcount(used & ((np.uint64(1) << below) - np.uint64(1))))
        lehmer = lehmer * (t - j) + (v - smaller_used)
        used |= np.uint64(1) << below
        j += 1
    return blank * half_factorial + lehmer // 2


FACTORIAL = np.array([factorial(i) for i in range(21)], dtype=np.int64)


@njit(cache=True, nogil=True)
def permutation_unrank(rank, half_factorial, parity_of_blank, out):
    t = out.size - 1
    blank = rank // half_factorial
    lehmer = (rank % half_factorial) * 2
    used = np.uint64(0)
    parity = 0
    j = 0
    last = -1
    before_last = -1
    for i in range(out.size):
        if i == blank:
            out[i] = 0
            continue
        weight = FACTORIAL[t - 1 - j]
        d = lehmer // weight
        lehmer -= d * weight
        parity += d
        # the d-th smallest tile not used yet: deposit bit d onto the unused tiles
        v = np.int64(lowest_bit(pdep(np.uint64(1) << np.uint64(d), ~used)))
        used |= np.uint64(1) << np.uint64(v)
        out[i] = v + 1
        before_last = last
        last = i
        j += 1
    if (parity & 1) != parity_of_blank[blank]:
        # the odd twin: Lehmer code 2q+1 differs only by swapping the last two tiles
        v = out[last]
        out[last] = out[before_last]
        out[before_last] = v


def permutation_parity(tiles):
    """Parity (0 even, 1 odd) of a sequence of distinct numbers, by counting inversions."""
    tiles = list(tiles)
    return sum(a > b for i, a in enumerate(tiles) for b in tiles[i + 1:]) & 1


def permutation_rank_reference(board):
    tiles = [p - 1 for p in board if p != 0]
    t = len(tiles)
    lehmer = 0
    for j, v in enumerate(tiles):
        lehmer += sum(1 for w in tiles[j + 1:] if w < v) * factorial(t - 1 - j)
    return board.index(0) * (factorial(t) // 2) + lehmer // 2
