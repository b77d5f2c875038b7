"""Dense bijective ranks of boards, the numberings the puzzle families share, in plain Python:
the definitions, the tables the compiled versions (ranking_kernels.py) use, and the rank and
unrank of one board, which the tests compare the compiled ones with.  A puzzle ranks and
decodes a single board with these: a job that decodes a few boards (the antipodes, a
command-line query) then never imports numba, which costs half a second of CPU a process.

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


def multiset_radices(counts):
    """The radix of each digit of a multiset rank: the blank's cell, then the placements
    of each class c = 1..K-2 among the cells the earlier digits left."""
    counts = [int(c) for c in counts]
    radices = [sum(counts)]
    pool = radices[0] - counts[0]
    for c in counts[1:-1]:
        radices.append(comb(pool, c))
        pool -= c
    return radices


def multiset_weights(counts):
    """Mixed-radix weights of the digits (blank, class 1, ..., class K-2) and the rank count."""
    radices = multiset_radices(counts)
    weights = [1] * len(radices)
    for i in range(len(radices) - 2, -1, -1):
        weights[i] = weights[i + 1] * radices[i + 1]
    return np.array(weights + [0], dtype=np.int64), weights[0] * radices[0]


def combination_mask(index, n, r):
    """The mask of the r pool positions (of n) a combination index chooses, in the seed's
    numbering: walking the pool, a position skipped passes over the C(positions after it,
    still to choose) combinations that take it."""
    mask = 0
    for j in range(n):
        skipped = comb(n - 1 - j, r)
        if r and index >= skipped:
            mask |= 1 << j
            index -= skipped
            r -= 1
    return mask


def combination_masks(n, r):
    """unrank table: combination index -> mask of the chosen pool positions."""
    return np.array([combination_mask(i, n, r) for i in range(comb(n, r))], dtype=np.uint64)


def rank_multiset(board, counts):
    """The rank of a board (a sequence of piece classes, 0 the blank) with the seed's
    numbering."""
    board = [int(p) for p in board]
    radices = multiset_radices(counts)
    rank = board.index(0)
    for c in range(1, len(counts) - 1):
        pool = [p for p in board if p >= c]
        left = int(counts[c])
        value = 0
        for j, p in enumerate(pool):
            if p == c:
                value += comb(len(pool) - j - 1, left)
                left -= 1
        rank = rank * radices[c] + value
    return rank


def unrank_multiset(rank, counts):
    """The board (a list of piece classes) of a multiset rank: rank_multiset inverted."""
    radices = multiset_radices(counts)
    digits = []
    for radix in reversed(radices[1:]):
        rank, value = divmod(rank, radix)
        digits.append(value)
    last = len(counts) - 1
    board = [last] * radices[0]
    board[rank] = 0
    for c, value in zip(range(1, last), reversed(digits)):
        pool = [i for i, p in enumerate(board) if p == last]
        mask = combination_mask(value, len(pool), int(counts[c]))
        for j, cell in enumerate(pool):
            if mask >> j & 1:
                board[cell] = c
    return board


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


def rank_permutation(board):
    """The rank of a board of distinct tiles 1..T and one blank (0): its blank's cell, then
    the Lehmer index of its tiles halved (lehmer_code, counted with a mask of the tiles
    already read)."""
    board = [int(p) for p in board]
    blank = board.index(0)
    t = len(board) - 1
    used = code = 0
    for j, v in enumerate(p - 1 for p in board if p):
        code = code * (t - j) + v - (used & ((1 << v) - 1)).bit_count()
        used |= 1 << v
    return blank * (factorial(t) // 2) + code // 2


def unrank_permutation(rank, parity_of_blank):
    """The board (a list) of a permutation rank, given the tiles' permutation parity that
    each blank cell calls for: of the two Lehmer codes the rank halves, the one of that
    parity (the odd one of the two swaps the last two tiles, and the parity of a
    permutation is that of its Lehmer digits' sum)."""
    t = len(parity_of_blank) - 1
    blank, code = divmod(rank, factorial(t) // 2)
    code *= 2
    left = list(range(1, t + 1))
    board = []
    parity = 0
    for i in range(t):
        digit, code = divmod(code, factorial(t - 1 - i))
        board.append(left.pop(digit))
        parity ^= digit & 1
    if parity != parity_of_blank[blank]:
        board[-2], board[-1] = board[-1], board[-2]
    board.insert(blank, 0)
    return board
