"""The compiled numberings of a rank's component (rows.py holds the plain-numpy reference):
a component too large for a move table (more than layout.TABLE_MAX values: twelve edges,
a sticker model's orbit) is moved by decoding its value into slots, permuting and twisting
them, and ranking them again.  Lehmer codes for distinct pieces (a popcount per slot),
class-by-class combination ranks for identical ones (binomial look-ups, no division: the
lexicographic multiset rank of the tables divides at every slot and class, 1.4 us a rank
of 24 slots in six classes), base-k digits for orientations.

A component's data are flat arrays of the puzzle's tables (layout.PermutationTables, the
kc_* fields), indexed by the component's number among the kernel components."""

from math import comb

import numpy as np
from numba import prange

from puzzledb.compiled import jit
from puzzledb.compiled.bitops import lowest_bit, pdep, pext, popcount
from puzzledb.puzzles.permutation.ranks import MAX_SLOTS
from puzzledb.puzzles.ranking import BINOM, FACTORIAL
from puzzledb.puzzles.ranking_kernels import combination_index

PERM, EVEN, MULTISET, ORI, WILD = 0, 1, 2, 3, 4  # ranks.KINDS, in order
ONE = np.uint64(1)


def _slot_binomials(n=MAX_SLOTS):
    """C(a, b) for a, b <= n as int64, those past int64 held at 2^63 - 1: the class digits
    of more than 64 slots (a digit is below 2^63, so a held value is only ever compared)."""
    table = np.zeros((n + 1, n + 1), dtype=np.int64)
    for a in range(n + 1):
        for b in range(a + 1):
            table[a, b] = min(comb(a, b), 2**63 - 1)
    return table


SLOT_BINOM = _slot_binomials()


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
    """The rank of a row of class indices class by class (rows.class_rank_rows): each
    class's slots among those the classes before it left, a chosen slot adding C(pool
    slots after it, pieces of the class still to place).  Each class's slots as a bit mask,
    compressed onto its pool (pext) and numbered by binomial look-ups, one per piece: no
    division, no branch per slot.  The classes' counts and weights are counts[base:] and
    weights[base:]."""
    pool = _all_slots(n)
    size = n
    rank = 0
    for c in range(classes - 1):
        digit, mask = _class_digit(cls, n, c, counts[base + c], pool, size)
        rank += digit * weights[base + c]
        pool &= ~mask
        size -= counts[base + c]
    return rank


@jit(inline="always")
def _all_slots(n):
    return (ONE << np.uint64(n)) - ONE if n < 64 else ~np.uint64(0)


@jit(inline="always")
def _class_digit(cls, n, c, count, pool, size):
    """(digit, mask): class c's slots (mask) numbered among the pool's `size` slots."""
    mask = np.uint64(0)
    for i in range(n):  # branch-free, in registers
        mask |= np.uint64(cls[i] == c) << np.uint64(i)
    return combination_index(pext(mask, pool), size, count), mask


@jit(inline="always")
def _class_slots(digit, count, size, pool):
    """The slots (a mask) of a class of `count` pieces whose digit among the pool's `size`
    slots is `digit`: decoded greedily in the combinatorial number system (the pool slots
    after each chosen slot, largest first), deposited onto the pool's slots (pdep)."""
    packed = np.uint64(0)
    after = size  # one past the pool slots after the last slot chosen
    for left in range(count, 0, -1):
        after -= 1
        while BINOM[after, left] > digit:
            after -= 1
        digit -= BINOM[after, left]
        packed |= ONE << np.uint64(size - 1 - after)
    return pdep(packed, pool)


@jit(inline="always")
def _class_unrank(value, n, counts, weights, base, classes, cls):
    """_class_rank inverted: class by class, its digit's slots (_class_slots)."""
    last = classes - 1
    for i in range(n):
        cls[i] = last
    pool = _all_slots(n)
    size = n
    for c in range(last):
        weight = weights[base + c]
        digit = value // weight
        value -= digit * weight
        mask = _class_slots(digit, counts[base + c], size, pool)
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
    twist, illegal, move_at, slot_at, forward, cuts, parts, radices) of kernel component
    c; a factor cut into parts (past a word) has parts > 1, part p its digits cuts[p] ..
    cuts[p + 1] - 1 of radices."""
    base = t.kc_class_at[c]
    first = t.kc_cut_at[c]
    return (t.kc_code[c], t.kc_n[c], t.kc_k[c], t.kc_digits[c], t.kc_total[c],
            t.kc_parity[c], base, t.kc_class_at[c + 1] - base, t.kc_counts, t.kc_weights,
            t.kc_wild, t.kc_perm, t.kc_twist, t.kc_illegal, t.kc_move_at[c],
            t.kc_slot_at[c], t.forward, t.kc_cuts[first:t.kc_cut_at[c + 1]],
            t.kc_cut_at[c + 1] - first - 1, t.kc_radix[t.kc_radix_at[c]:t.kc_radix_at[c + 1]])


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
            value = wild_twists(value, n, k, base, wild, cls, ori)
    return value


@jit(inline="always")
def wild_twists(value, n, k, base, wild, cls, ori):
    """value followed by the twists (digits of k) of the slots whose piece's class is not
    wild ('?'), slot by slot: a WILD component's value after its classes' rank."""
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


# A factor too large for a word is cut into parts (layout._cuts) between the digits of its
# numbering (ranks.Component.radices: Lehmer digits, class digits, orientations), part p
# the mixed-radix number of its digits cuts[p] .. cuts[p + 1] - 1.  Each part is a block of
# the key; a row decodes them together (unrank_part each, then of_digits) and
# images_of_parts gives every part's image after a move.  ranks.row_digits and digits_row
# are the plain-Python reference.


@jit(inline="always")
def unrank_part(d, p, value, digits):
    """Part p's digits, from its value, into digits."""
    cuts, radices = d[17], d[19]
    for i in range(cuts[p + 1] - 1, cuts[p] - 1, -1):
        q = value // radices[i]
        digits[i] = value - q * radices[i]
        value = q


@jit(inline="always")
def of_digits(d, digits, cls, ori):
    """The slots cls, ori whose digits `digits` holds (an even factor's: the even one of
    the two twins)."""
    code, n, k, count, total, parity, base, classes, counts = d[:9]
    wild = d[10]
    size = d[19].size
    if code == ORI:
        twists = 0
        for i in range(size):
            ori[i] = digits[i]
            twists += digits[i]
        if size < n:
            ori[n - 1] = (total - twists) % k
    elif code == PERM or code == EVEN:
        used = np.uint64(0)
        for i in range(n):
            digit = np.uint64(digits[i]) if i < size else np.uint64(0)
            v = lowest_bit(pdep(ONE << digit, ~used))
            used |= ONE << v
            cls[i] = np.int64(v)
        if code == EVEN and _lehmer(cls, n)[1] & 1 != parity:
            v = cls[n - 1]
            cls[n - 1] = cls[n - 2]
            cls[n - 2] = v
    else:
        for i in range(n):
            cls[i] = classes - 1
        pool = _all_slots(n)
        size = n
        for c in range(classes - 1):
            if n > 64:
                _class_of_digit(digits[c], c, n, counts[base + c], cls)
                continue
            mask = _class_slots(digits[c], counts[base + c], size, pool)
            pool &= ~mask
            size -= counts[base + c]
            while mask:
                cls[lowest_bit(mask)] = c
                mask &= mask - ONE
        j = classes - 1
        for i in range(n):
            ori[i] = 0
            if code == WILD and not wild[base + cls[i]]:
                ori[i] = digits[j]
                j += 1


# Past 64 slots a class's slots are no mask: its digit is made and read slot by slot.


@jit(inline="always")
def _class_digit_of_many(cls, n, c, left):
    """_class_digit of more than 64 slots: a slot of class c adds C(slots of classes c and
    after that follow it, pieces of c still to place, itself included)."""
    after = 0
    for i in range(n):
        after += cls[i] >= c
    digit = 0
    for i in range(n):
        if cls[i] >= c:
            after -= 1
            if cls[i] == c:
                digit += SLOT_BINOM[after, left]
                left -= 1
    return digit


@jit(inline="always")
def _class_of_digit(digit, c, n, left, cls):
    """_class_slots of more than 64 slots: class c's slots among those still free (cls[i]
    past c) from its digit, a slot chosen when the digit reaches C(free slots after it,
    pieces of c still to place)."""
    after = 0
    for i in range(n):
        after += cls[i] > c
    for i in range(n):
        if cls[i] > c:
            after -= 1
            if left > 0 and digit >= SLOT_BINOM[after, left]:
                digit -= SLOT_BINOM[after, left]
                cls[i] = c
                left -= 1


@jit(inline="always")
def digits_of(d, cls, ori, digits):
    """The digits of the slots cls, ori (of_digits inverted)."""
    code, n, k, count, total, parity, base, classes, counts = d[:9]
    wild = d[10]
    size = d[19].size
    if code == ORI:
        for i in range(size):
            digits[i] = ori[i]
    elif code == PERM or code == EVEN:
        used = np.uint64(0)
        for i in range(size):
            v = np.uint64(cls[i])
            digits[i] = cls[i] - np.int64(popcount(used & ((ONE << v) - ONE)))
            used |= ONE << v
    else:
        pool = _all_slots(n)
        size = n
        for c in range(classes - 1):
            if n > 64:
                digits[c] = _class_digit_of_many(cls, n, c, counts[base + c])
                continue
            digits[c], mask = _class_digit(cls, n, c, counts[base + c], pool, size)
            pool &= ~mask
            size -= counts[base + c]
        j = classes - 1
        if code == WILD:
            for i in range(n):
                if not wild[base + cls[i]]:
                    digits[j] = ori[i]
                    j += 1


@jit(inline="always")
def images_of_parts(d, m, cls, ori, cls2, ori2, digits, images, at, stride):
    """Each part's value after move m of the slots cls, ori into images[at + p * stride]
    (-1 every part when a piece lands where it never stands)."""
    cuts, parts, radices = d[17], d[18], d[19]
    legal = _moved(d, m, cls, ori, cls2, ori2)
    digits_of(d, cls2, ori2, digits)
    for p in range(parts):
        value = 0
        for i in range(cuts[p], cuts[p + 1]):
            value = value * radices[i] + digits[i]
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
