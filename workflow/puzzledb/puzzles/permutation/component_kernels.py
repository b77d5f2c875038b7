"""The compiled numberings of a rank's component (ranks.py holds the plain-numpy reference):
a component too large for a move table (more than layout.TABLE_MAX values: twelve edges,
a sticker model's orbit) is moved by decoding its value into slots, permuting and twisting
them, and ranking them again.  Lehmer codes for distinct pieces (a popcount per slot),
class-by-class combination ranks for identical ones (binomial look-ups, no division: the
lexicographic multiset rank of the tables divides at every slot and class, 1.4 us a rank
of 24 slots in six classes), base-k digits for orientations.

A component's data are flat arrays of the puzzle's tables (layout.PermutationTables, the
kc_* fields), indexed by the component's number among the kernel components."""

import numpy as np
from numba import prange

from puzzledb.compiled import jit
from puzzledb.compiled.bitops import lowest_bit, pdep, pext, popcount
from puzzledb.puzzles.ranking import BINOM, FACTORIAL
from puzzledb.puzzles.ranking_kernels import combination_index

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
def _class_rank(cls, n, counts, weights, base, classes):
    """The rank of a row of class indices class by class (ranks.class_rank_rows): each
    class's slots among those the classes before it left, a chosen slot adding C(pool
    slots after it, pieces of the class still to place).  Each class's slots as a bit mask,
    compressed onto its pool (pext) and numbered by binomial look-ups, one per piece: no
    division, no branch per slot.  The classes' counts and weights are counts[base:] and
    weights[base:]."""
    pool = (ONE << np.uint64(n)) - ONE if n < 64 else ~np.uint64(0)
    size = n
    rank = 0
    for c in range(classes - 1):
        mask = np.uint64(0)
        for i in range(n):  # branch-free, in registers
            mask |= np.uint64(cls[i] == c) << np.uint64(i)
        rank += combination_index(pext(mask, pool), size, counts[base + c]) * \
            weights[base + c]
        pool &= ~mask
        size -= counts[base + c]
    return rank


@jit(inline="always")
def _class_unrank(value, n, counts, weights, base, classes, cls):
    """_class_rank inverted: each class's digit decoded greedily in the combinatorial
    number system (the pool slots after each chosen slot, largest first), deposited onto
    the pool's free slots (pdep)."""
    last = classes - 1
    for i in range(n):
        cls[i] = last
    pool = (ONE << np.uint64(n)) - ONE if n < 64 else ~np.uint64(0)
    size = n
    for c in range(last):
        weight = weights[base + c]
        digit = value // weight
        value -= digit * weight
        packed = np.uint64(0)
        after = size  # one past the pool slots after the last slot chosen
        for left in range(counts[base + c], 0, -1):
            after -= 1
            while BINOM[after, left] > digit:
                after -= 1
            digit -= BINOM[after, left]
            packed |= ONE << np.uint64(size - 1 - after)
        mask = pdep(packed, pool)
        pool &= ~mask
        size -= counts[base + c]
        while mask:
            cls[lowest_bit(mask)] = c
            mask &= mask - ONE


# A component's data, read out of the tables once (component) and handed to unrank, rank
# and image as one tuple: numba counts a reference each time a field of the tables is read,
# and inside the loops and branches of these functions those counts were what a rank cost
# (an atomic add and subtract a read: about 540 ns against 100 ns a rank of 24 slots in
# six classes).


@jit(inline="always")
def component(t, c):
    """(code, n, k, digits, total, parity, base, classes, counts, weights, wild, perm,
    twist, illegal, move_at, slot_at, forward, cuts, parts) of kernel component c; a
    permutation cut into parts (past a word) has parts > 1, part p's Lehmer digits
    cuts[p] .. cuts[p + 1] - 1."""
    base = t.kc_class_at[c]
    first = t.kc_cut_at[c]
    return (t.kc_code[c], t.kc_n[c], t.kc_k[c], t.kc_digits[c], t.kc_total[c],
            t.kc_parity[c], base, t.kc_class_at[c + 1] - base, t.kc_counts, t.kc_weights,
            t.kc_wild, t.kc_perm, t.kc_twist, t.kc_illegal, t.kc_move_at[c],
            t.kc_slot_at[c], t.forward, t.kc_cuts[first:t.kc_cut_at[c + 1]],
            t.kc_cut_at[c + 1] - first - 1)


@jit(inline="always")
def unrank(d, value, cls, ori):
    """Decode value of the component (d: component()) into its slots' classes and
    orientations."""
    code, n, k, digits, total, parity, base, classes, counts, weights, wild = d[:11]
    if code == ORI:
        twists = 0
        for i in range(digits - 1, -1, -1):
            ori[i] = value % k
            value //= k
            twists += ori[i]
        if digits < n:
            ori[n - 1] = (total - twists) % k
    elif code == WILD:
        scale = k ** digits
        _class_unrank(value // scale, n, counts, weights, base, classes, cls)
        rest = value % scale
        for i in range(n - 1, -1, -1):
            if not wild[base + cls[i]]:
                ori[i] = rest % k
                rest //= k
    elif code == MULTISET:
        _class_unrank(value, n, counts, weights, base, classes, cls)
    elif code == PERM:
        _perm_unrank(value, n, cls)
    else:
        _perm_unrank(2 * value, n, cls)
        if _lehmer(cls, n)[1] & 1 != parity:  # the odd twin: the last two swapped
            v = cls[n - 1]
            cls[n - 1] = cls[n - 2]
            cls[n - 2] = v


@jit(inline="always")
def rank(d, cls, ori):
    """The value of the component whose slots hold cls and ori: unrank inverted."""
    code, n, k, digits, total, parity, base, classes, counts, weights, wild = d[:11]
    value = 0
    if code == ORI:
        for i in range(digits):
            value = value * k + ori[i]
    elif code == PERM or code == EVEN:
        value = _lehmer(cls, n)[0]
        if code == EVEN:
            value //= 2
    else:
        value = _class_rank(cls, n, counts, weights, base, classes)
        if code == WILD:
            for i in range(n):
                if not wild[base + cls[i]]:
                    value = value * k + ori[i]
    return value


@jit(inline="always")
def image(d, m, cls, ori, cls2, ori2):
    """The value of the component after move m (of the metric) of the slots cls, ori; -1
    when a piece lands where it never stands (Illegal)."""
    value = -1
    if _moved(d, m, cls, ori, cls2, ori2):
        value = rank(d, cls2, ori2)
    return value


@jit(inline="always")
def _moved(d, m, cls, ori, cls2, ori2):
    """The slots cls, ori after move m into cls2, ori2; whether every piece stands where
    it may (Illegal)."""
    code, n, k = d[0], d[1], d[2]
    perm, twist, illegal, move_at, slot_at, forward = d[11:17]
    at = move_at + m * n
    legal = True
    if code != ORI:  # the pieces
        for i in range(n):
            cls2[i] = cls[perm[at + i]]
        if forward:  # Illegal rules: a piece where it never stands
            for i in range(n):
                if (illegal[slot_at + i] >> cls2[i]) & 1:
                    legal = False
    if code == ORI or code == WILD:  # the twists, without a division
        for i in range(n):
            j = perm[at + i]
            o = ori[j] + twist[at + j]
            ori2[i] = o - k if o >= k else o
    return legal


# A permutation too large for a word is cut into parts (layout._cuts): its Lehmer digits
# in groups, part p the number its digits make (the radices n - i of its digits i), the
# last halved for an even factor.  Each part is a block of the key; a row decodes them
# together (unrank_part each, then pieces_of_digits) and images_of_parts gives every
# part's image after a move.


@jit(inline="always")
def unrank_part(d, p, value, cls):
    """Part p's Lehmer digits, from its value, into cls (digits: pieces_of_digits makes
    them pieces once every part is in)."""
    code, n, cuts = d[0], d[1], d[17]
    start, stop = cuts[p], cuts[p + 1]
    if code == EVEN and stop == n:
        value *= 2
    for i in range(stop - 1, start - 1, -1):
        q = value // (n - i)
        cls[i] = value - q * (n - i)
        value = q


@jit(inline="always")
def pieces_of_digits(d, cls):
    """The permutation whose Lehmer digits cls holds, in place (an even factor's: the
    even one of the two twins)."""
    code, n, parity = d[0], d[1], d[5]
    used = np.uint64(0)
    for i in range(n):
        v = lowest_bit(pdep(ONE << np.uint64(cls[i]), ~used))
        used |= ONE << v
        cls[i] = np.int64(v)
    if code == EVEN and _lehmer(cls, n)[1] & 1 != parity:
        v = cls[n - 1]
        cls[n - 1] = cls[n - 2]
        cls[n - 2] = v


@jit(inline="always")
def images_of_parts(d, m, cls, ori, cls2, ori2, images, at, stride):
    """Each part's value after move m of the slots cls into images[at + p * stride] (-1
    every part when a piece lands where it never stands)."""
    code, n, cuts, parts = d[0], d[1], d[17], d[18]
    legal = _moved(d, m, cls, ori, cls2, ori2)
    used = np.uint64(0)
    for i in range(n):  # the Lehmer digits, into ori2 (a permutation has no orientations)
        v = np.uint64(cls2[i])
        ori2[i] = cls2[i] - np.int64(popcount(used & ((ONE << v) - ONE)))
        used |= ONE << v
    for p in range(parts):
        value = 0
        for i in range(cuts[p], cuts[p + 1]):
            value = value * (n - i) + ori2[i]
        if code == EVEN and cuts[p + 1] == n:
            value //= 2
        images[at + p * stride] = value if legal else -1


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
