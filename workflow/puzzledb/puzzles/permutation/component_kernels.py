"""The compiled numberings of a rank's component (ranks.py holds the plain-numpy reference):
a component too large for a move table (more than layout.TABLE_MAX values: twelve edges,
a sticker model's orbit) is moved by decoding its value into slots, permuting and twisting
them, and ranking them again.  Lehmer codes for distinct pieces (a popcount per slot),
lexicographic multiset ranks for identical ones, base-k digits for orientations.

A component's data are flat arrays of the puzzle's tables (layout.PermutationTables, the
kc_* fields), indexed by the component's number among the kernel components."""

import numpy as np
from numba import prange

from puzzledb.compiled import jit
from puzzledb.compiled.bitops import lowest_bit, pdep, popcount
from puzzledb.puzzles.ranking import FACTORIAL

PERM, EVEN, MULTISET, ORI, WILD = 0, 1, 2, 3, 4  # ranks.KINDS, in order
ONE = np.uint64(1)


@jit(inline="always")
def _lehmer(cls, n):
    """(lexicographic rank, inversions) of a permutation of 0..n-1: its Lehmer code read
    Horner's way, and the sum of its digits (whose parity is the permutation's)."""
    used = np.uint64(0)
    rank = 0
    inversions = 0
    for i in range(n):
        v = np.uint64(cls[i])
        digit = cls[i] - np.int64(popcount(used & ((ONE << v) - ONE)))
        rank = rank * (n - i) + digit
        inversions += digit
        used |= ONE << v
    return rank, inversions


@jit(inline="always")
def _perm_unrank(value, n, cls):
    used = np.uint64(0)
    for i in range(n):
        weight = FACTORIAL[n - 1 - i]
        d = value // weight
        value -= d * weight
        # the d-th smallest piece not used yet: deposit bit d onto the unused pieces
        v = lowest_bit(pdep(ONE << np.uint64(d), ~used))
        used |= ONE << v
        cls[i] = np.int64(v)


@jit(inline="always")
def _multiset_rank(cls, n, counts, total, remaining):
    """Lexicographic rank of a row of class indices among the arrangements of `counts`
    (total of them); remaining: scratch of counts.size."""
    for v in range(counts.size):
        remaining[v] = counts[v]
    rank = 0
    for i in range(n):
        left = n - i
        a = cls[i]
        for v in range(a):
            rank += total * remaining[v] // left
        total = total * remaining[a] // left
        remaining[a] -= 1
    return rank


@jit(inline="always")
def _multiset_unrank(value, n, counts, total, remaining, cls):
    for v in range(counts.size):
        remaining[v] = counts[v]
    for i in range(n):
        left = n - i
        chosen = 0
        for v in range(counts.size):
            if remaining[v] == 0:
                continue
            block = total * remaining[v] // left
            if value < block:
                chosen = v
                break
            value -= block
        cls[i] = chosen
        total = total * remaining[chosen] // left
        remaining[chosen] -= 1


@jit(inline="always")
def unrank(t, c, value, cls, ori, remaining):
    """Decode value of kernel component c into its slots' classes and orientations."""
    code = t.kc_code[c]
    n = t.kc_n[c]
    k = t.kc_k[c]
    if code == ORI:
        digits = t.kc_digits[c]
        total = 0
        for i in range(digits - 1, -1, -1):
            ori[i] = value % k
            value //= k
            total += ori[i]
        if digits < n:
            ori[n - 1] = (t.kc_total[c] - total) % k
        return
    counts = t.kc_counts[t.kc_class_at[c]:t.kc_class_at[c + 1]]
    if code == WILD:
        scale = k ** t.kc_digits[c]
        _multiset_unrank(value // scale, n, counts, t.kc_arrangements[c], remaining, cls)
        wild = t.kc_wild[t.kc_class_at[c]:t.kc_class_at[c + 1]]
        rest = value % scale
        for i in range(n - 1, -1, -1):
            if not wild[cls[i]]:
                ori[i] = rest % k
                rest //= k
    elif code == MULTISET:
        _multiset_unrank(value, n, counts, t.kc_arrangements[c], remaining, cls)
    elif code == PERM:
        _perm_unrank(value, n, cls)
    else:
        _perm_unrank(2 * value, n, cls)
        if _lehmer(cls, n)[1] & 1 != t.kc_parity[c]:  # the odd twin: the last two swapped
            v = cls[n - 1]
            cls[n - 1] = cls[n - 2]
            cls[n - 2] = v


@jit(inline="always")
def rank(t, c, cls, ori, remaining):
    """The value of kernel component c whose slots hold cls and ori: unrank inverted."""
    code = t.kc_code[c]
    n = t.kc_n[c]
    k = t.kc_k[c]
    if code == ORI:
        value = 0
        for i in range(t.kc_digits[c]):
            value = value * k + ori[i]
        return value
    if code == PERM:
        return _lehmer(cls, n)[0]
    if code == EVEN:
        return _lehmer(cls, n)[0] // 2
    counts = t.kc_counts[t.kc_class_at[c]:t.kc_class_at[c + 1]]
    value = _multiset_rank(cls, n, counts, t.kc_arrangements[c], remaining)
    if code == WILD:
        wild = t.kc_wild[t.kc_class_at[c]:t.kc_class_at[c + 1]]
        for i in range(n):
            if not wild[cls[i]]:
                value = value * k + ori[i]
    return value


@jit(inline="always")
def image(t, c, m, cls, ori, cls2, ori2, remaining):
    """The value of kernel component c after move m (of the metric) of the slots cls, ori;
    -1 when a piece lands where it never stands (Illegal)."""
    n = t.kc_n[c]
    k = t.kc_k[c]
    at = t.kc_move_at[c] + m * n
    slots = t.kc_slot_at[c]
    check = t.kc_code[c] != ORI  # an orientation's slots hold no pieces
    for i in range(n):
        j = t.kc_perm[at + i]
        cls2[i] = cls[j]
        ori2[i] = (ori[j] + t.kc_twist[at + j]) % k
        if check and (t.kc_illegal[slots + i] >> cls2[i]) & 1:
            return -1
    return rank(t, c, cls2, ori2, remaining)


@jit(parallel=True)
def split_high_rows(n, r, parity, inverses, images, select):
    """split.high_table, compiled: for each value v of a split permutation's high part
    (where pieces 0 .. n-r-1 are) and each move m (inverses[m]: minv on the slots), the
    high part's image and the low table's column (parity: -1 for a full permutation, else
    the factor's parity).  split.high_table_reference is the plain numpy one."""
    scale = FACTORIAL[r]
    h = n - r
    for v in prange(images.shape[0]):
        q = np.empty(n, np.int64)
        moved = np.empty(n, np.int64)
        free = np.empty(r, np.int64)
        sigma = np.empty(r, np.int64)
        _perm_unrank(v * scale, n, q)
        low_parity = 0
        if parity >= 0:
            low_parity = (_lehmer(q, n)[1] & 1) ^ parity
        for m in range(inverses.shape[0]):
            for i in range(h):
                moved[i] = inverses[m, q[i]]
            for j in range(r):
                free[j] = inverses[m, q[h + j]]
            for j in range(r):  # sigma[j]: where free[j] stands among the free slots
                below = 0
                for k in range(r):
                    below += free[k] < free[j]
                sigma[j] = below
                moved[h + below] = free[j]
            images[v, m] = _lehmer(moved, n)[0] // scale
            select[v, m] = _lehmer(sigma, r)[0] + low_parity * scale
