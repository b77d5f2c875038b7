"""Dense bijective ranks of boards, the numberings the puzzle families share, in plain Python:
the definitions, the tables the compiled versions (ranking_kernels.py) use, and reference
implementations that the tests compare the compiled ones with.

A board here is a sequence of small integers, one per cell; 0 is the blank.

Multisets (one blank, pieces of classes 1..K-1 with given counts): the blank cell is the most
significant digit.  Then each class c = 1..K-2 in turn is placed among the cells that are
neither blank nor taken by a smaller class, and numbered by the combination numbering of
seed 000: walking the pool in cell order, a chosen cell adds C(cells left after it, pieces
still to place), the number of placements that skip it.  The last class fills what is left,
so it carries no digit.

Permutations with a parity constraint (distinct tiles 1..T and one blank): the blank cell is
the most significant digit; the tiles read in cell order (blank skipped) form a permutation
whose parity is fixed by the blank's cell, so the Lehmer code halved is a dense rank: the two
permutations that differ only in their last two tiles have Lehmer codes 2q and 2q+1 and
opposite parities.
"""

from math import comb, factorial

import numpy as np

MAX_CELLS = 64


def binomial_table(n=MAX_CELLS):
    """binom[a, b] = C(a, b), zero where b > a."""
    table = np.zeros((n + 1, n + 1), dtype=np.int64)
    for a in range(n + 1):
        for b in range(a + 1):
            table[a, b] = comb(a, b)
    return table


BINOM = binomial_table()
FACTORIAL = np.array([factorial(i) for i in range(21)], dtype=np.int64)


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


def permutation_parity(tiles):
    """Parity (0 even, 1 odd) of a sequence of distinct numbers, by counting inversions."""
    tiles = list(tiles)
    return sum(a > b for i, a in enumerate(tiles) for b in tiles[i + 1:]) & 1


def lehmer_code(sequence):
    """The Lehmer index of a sequence of distinct numbers (0 for the sorted one)."""
    sequence = list(sequence)
    n = len(sequence)
    return sum(sum(1 for w in sequence[i + 1:] if w < v) * factorial(n - 1 - i)
               for i, v in enumerate(sequence))


def permutation_rank_reference(board):
    board = list(board)
    tiles = [p - 1 for p in board if p != 0]
    return board.index(0) * (factorial(len(tiles)) // 2) + lehmer_code(tiles) // 2
