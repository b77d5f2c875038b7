"""The compiled ranks of ranking.py (multisets and permutations with parity), used by the
kernels of the puzzle families in their hot loops; ranking.py holds the definitions and the
plain-Python references the tests compare these with."""

import numpy as np

from puzzledb.compiled.bitops import lowest_bit, pdep, popcount
from puzzledb.compiled import jit
from puzzledb.puzzles.ranking import BINOM, FACTORIAL


@jit
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


@jit
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


@jit
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


@jit
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


@jit
def permutation_unrank(rank, half_factorial, parity_of_blank, out):
    permutation_unrank_after(rank, -1, half_factorial, parity_of_blank, out, out[:0], out[:0])


@jit(inline="always")
def permutation_unrank_after(rank, prev, half_factorial, parity_of_blank, out, memo,
                             digits):
    """permutation_unrank of rank into out, where out, memo and digits hold what this
    function left there for prev, a smaller rank (prev < 0: nothing).  Ranks in ascending
    order share a prefix of Lehmer digits; only the digits after it are decoded again.  memo
    holds 3 * (out.size - 1) int64: per tile position j, the Lehmer code's value of the
    digits before j, the tiles they use (a bit mask) and their sum; or nothing (size 0: a
    rank decoded on its own, as permutation_unrank does).  digits (out.size - 1 int64, or
    none) receives the board's Lehmer digits, the odd twin's included.

    The tiles read in cell order, the blank skipped, are a permutation whose Lehmer code is
    2 * (rank mod half_factorial) or one more, whichever has the parity the blank's cell
    calls for: the odd twin swaps the last two tiles."""
    t = out.size - 1
    keep = memo.size > 0
    blank = rank // half_factorial
    lehmer = (rank - blank * half_factorial) * 2
    start = 0
    if keep and 0 <= prev < rank and prev // half_factorial == blank:
        # digits before j are prev's while lehmer stays in the block of (t - j)! codes
        # they begin (at least the last two are decoded again: the odd twin swaps them)
        start = t - 2
        while start > 0 and lehmer - memo[start] >= FACTORIAL[t - start]:
            start -= 1
    if start == 0:
        base, used, total = 0, np.uint64(0), 0
        out[blank] = 0
    else:
        base, used, total = memo[start], np.uint64(memo[t + start]), memo[2 * t + start]
    rest = lehmer - base
    for j in range(start, t):
        if keep:
            memo[j] = lehmer - rest
            memo[t + j] = np.int64(used)
            memo[2 * t + j] = total
        weight = FACTORIAL[t - 1 - j]
        d = rest // weight
        rest -= d * weight
        total += d
        if digits.size:
            digits[j] = d
        # the d-th smallest tile not used yet: deposit bit d onto the unused tiles
        v = np.int64(lowest_bit(pdep(np.uint64(1) << np.uint64(d), ~used)))
        used |= np.uint64(1) << np.uint64(v)
        out[j if j < blank else j + 1] = v + 1
    if (total & 1) != parity_of_blank[blank]:
        last = t - 1 if t - 1 < blank else t
        before_last = t - 2 if t - 2 < blank else t - 1
        v = out[last]
        out[last] = out[before_last]
        out[before_last] = v
        if digits.size:
            digits[t - 2] = 1  # the odd twin: the code's lowest digit
