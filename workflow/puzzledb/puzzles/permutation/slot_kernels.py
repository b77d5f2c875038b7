"""The compiled side of slots.py: a permutation puzzle's key decoded into a row of slot
values and encoded back (its factors' ranks: distinct pieces by Lehmer codes, identical
pieces by their lexicographic ranks or marks, orientations as digits), for the canonical
form and the neighbours of symmetry_kernels.py.  The tables' layout is symmetry_tables.py's.
"""

import numpy as np
from numba import types
from numba.extending import overload

from puzzledb.compiled import jit
from puzzledb.compiled.bitops import popcount
from puzzledb.compiled.keys import word_of
from puzzledb.puzzles.permutation.component_kernels import (
    EVEN,
    ORI,
    PERM,
    WILD,
    _class_rank,
    unrank,
    wild_twists,
)
from puzzledb.puzzles.permutation.symmetry_tables import (
    AT,
    CLASS_AT,
    CLASS_END,
    CODE,
    COLUMNS,
    DIGITS,
    DTAB,
    K,
    LEX,
    MULTI,
    N,
    PARITY,
    R_LO,
    SPLIT,
    TOTAL,
    WORD_HI,
    WORD_LO,
    W_HI,
    W_LO,
)

ONE = np.uint64(1)


@jit(inline="always")
def _lex_rank(cls, n, counts, base, classes, total, rem):
    """The lexicographic rank of an arrangement of identical pieces (rows.rank_rows)."""
    for v in range(classes):
        rem[v] = counts[base + v]
    value = 0
    for i in range(n):
        left = n - i
        a = cls[i]
        for v in range(a):
            value += total * rem[v] // left
        total = total * rem[a] // left
        rem[a] -= 1
    return value


@jit(inline="always")
def _lex_unrank(value, n, counts, base, classes, total, rem, cls):
    """_lex_rank inverted (rows.unrank_rows)."""
    for v in range(classes):
        rem[v] = counts[base + v]
    for i in range(n):
        left = n - i
        for v in range(classes):
            block = total * rem[v] // left
            if value < block:
                cls[i] = v
                total = block
                rem[v] -= 1
                break
            value -= block


@jit(inline="always")
def _invert_local(cls, n, rem):
    """cls made its inverse permutation (a split component numbers where each piece is)."""
    for i in range(n):
        rem[cls[i]] = i
    for i in range(n):
        cls[i] = rem[i]


@jit(inline="always")
def lehmer_rank(cls, n):
    """The lexicographic rank of a permutation of 0..n-1 (its Lehmer code)."""
    used = np.uint64(0)
    value = 0
    for i in range(n):
        c = cls[np.uint64(i)]
        v = np.uint64(c)
        value = value * (n - i) + c - np.int64(popcount(used & ((ONE << v) - ONE)))
        used |= ONE << v
    return value


@jit
def _rank_identical(code, n, k, base, classes, counts, weights, wild, lex, multi, cls, ori,
                    rem):
    """The value of a component of identical pieces: a call of its own, not inlined
    (inlined, its code made the ranks of the other kinds two to four times as slow)."""
    if lex:
        value = _lex_rank(cls, n, counts, base, classes, multi, rem)
    else:
        value = _class_rank(cls, n, counts, weights, base, classes)
    if code == WILD:
        value = wild_twists(value, n, k, base, wild, cls, ori)
    return value


@jit
def _unrank_identical(code, n, k, digits, base, classes, counts, wild, multi, value, cls,
                      ori, rem):
    """A table component of identical pieces (lexicographic numbering) decoded."""
    scale = k ** digits if code == WILD else 1
    _lex_unrank(value // scale, n, counts, base, classes, multi, rem, cls)
    if code == WILD:
        value %= scale
        for i in range(n - 1, -1, -1):
            if not wild[base + cls[i]]:
                ori[i] = value % k
                value //= k


@jit(inline="always")
def decode(key, row, cls, ori, rem, solved, cp, cp_slots, counts, weights, wild, shifts,
           rows):
    """The row of slot values of key (a one-word rank, or a row of W words); rows: the
    decoding table of the small components (symmetry_tables.DTAB)."""
    for j in range(row.size):
        row[j] = solved[j]
    for c in range(cp.size // COLUMNS):
        p = np.uint64(c * COLUMNS)
        code, n, at = cp[p + CODE], cp[p + N], np.uint64(cp[p + AT])
        v = (np.int64(word_of(key, cp[p + WORD_LO])) // cp[p + W_LO]) % cp[p + R_LO]
        if cp[p + DTAB] >= 0:  # a look-up a slot
            first = np.uint64(cp[p + DTAB] + v * n)
            for i in range(n):
                ui = np.uint64(i)
                g = np.uint64(cp_slots[at + ui])
                sh = shifts[g]
                x = np.int64(rows[first + ui])
                row[g] = ((row[g] >> sh) << sh) + x if code == ORI else \
                    (x << sh) + (row[g] & ((1 << sh) - 1))
            continue
        if cp[p + W_HI] > 0:  # a split permutation's high digit
            v += (np.int64(word_of(key, cp[p + WORD_HI])) // cp[p + W_HI]) * cp[p + R_LO]
        _decode_component(v, row, cls, ori, rem, cp, p, cp_slots, counts, weights, wild,
                          shifts)


@jit(inline="always")
def _decode_component(v, row, cls, ori, rem, cp, p, cp_slots, counts, weights, wild,
                      shifts):
    """A component too large for the decoding table: unranked into cls and ori, then
    written into the row."""
    code, n, k, digits = cp[p + CODE], cp[p + N], cp[p + K], cp[p + DIGITS]
    base = cp[p + CLASS_AT]
    for i in range(n):
        ori[i] = 0
    if cp[p + LEX]:
        _lexicographic(code, n, k, digits, base, cp[p + CLASS_END] - base, counts, wild,
                       cp[p + MULTI], v, cls, ori, rem)
    else:
        unrank((code, n, k, digits, cp[p + TOTAL], cp[p + PARITY], base,
                cp[p + CLASS_END] - base, counts, weights, wild), v, cls, ori)
    if cp[p + SPLIT]:
        _invert_local(cls, n, rem)
    for i in range(n):  # the slot's shift: an arrangement's component has no k
        g = cp_slots[cp[p + AT] + i]
        sh = shifts[g]
        if code == ORI:
            row[g] = ((row[g] >> sh) << sh) + ori[i]
        elif code == WILD:
            row[g] = (cls[i] << sh) + ori[i]
        else:
            row[g] = (cls[i] << sh) + (row[g] & ((1 << sh) - 1))


@jit(inline="always")
def encode(row, key, cls, ori, rem, cp, cp_slots, counts, weights, wild, shifts):
    """key[:W]: the words of the key of a row of slot values (decode inverted).  Ranks of
    distinct pieces and of orientations are read off the row as it is: a value stored in
    scratch (which shares the work array with the row) made the compiler read everything
    again after each store."""
    for w in range(key.size):
        key[w] = 0
    for c in range(cp.size // COLUMNS):
        p = np.uint64(c * COLUMNS)
        code, n, at = cp[p + CODE], cp[p + N], np.uint64(cp[p + AT])
        if code == ORI:
            v, k = 0, cp[p + K]
            for i in range(cp[p + DIGITS]):
                g = np.uint64(cp_slots[at + np.uint64(i)])
                v = v * k + (row[g] & ((1 << shifts[g]) - 1))
        elif (code == PERM or code == EVEN) and not cp[p + SPLIT]:
            used = np.uint64(0)
            v = 0
            for i in range(n):
                g = np.uint64(cp_slots[at + np.uint64(i)])
                piece = row[g] >> shifts[g]
                bit = ONE << np.uint64(piece)
                v = v * (n - i) + piece - np.int64(popcount(used & (bit - ONE)))
                used |= bit
            if code == EVEN:
                v >>= 1
        else:
            v = _gathered(row, cls, ori, rem, cp, p, cp_slots, counts, weights, wild, shifts)
        if cp[p + W_HI] > 0:  # a split permutation's two digits
            key[cp[p + WORD_LO]] += (v % cp[p + R_LO]) * cp[p + W_LO]
            key[cp[p + WORD_HI]] += (v // cp[p + R_LO]) * cp[p + W_HI]
        else:
            key[cp[p + WORD_LO]] += v * cp[p + W_LO]


@jit(inline="always")
def _gathered(row, cls, ori, rem, cp, p, cp_slots, counts, weights, wild, shifts):
    """The value of a component ranked from its slots gathered into cls and ori: a split
    permutation (numbered by where each piece is) or identical pieces."""
    code, n, at = cp[p + CODE], cp[p + N], np.uint64(cp[p + AT])
    split = cp[p + SPLIT]
    for i in range(n):
        g = np.uint64(cp_slots[at + np.uint64(i)])
        v, sh = row[g], shifts[g]
        if split:
            cls[np.uint64(v >> sh)] = i
        else:
            cls[np.uint64(i)] = v >> sh
        ori[np.uint64(i)] = v & ((1 << sh) - 1)
    if code == PERM or code == EVEN:
        v = lehmer_rank(cls, n)
        return v >> 1 if code == EVEN else v
    return _identical(code, n, cp[p + K], cp[p + CLASS_AT], cp[p + CLASS_END], counts,
                      weights, wild, cp[p + LEX], cp[p + MULTI], cls, ori, rem)


def _lexicographic(code, n, k, digits, base, classes, counts, wild, multi, value, cls, ori,
                   rem):
    """_unrank_identical (compiled only)."""
    raise NotImplementedError("called from compiled code only")


@overload(_lexicographic, inline="always")
def _lexicographic_by_marks(code, n, k, digits, base, classes, counts, wild, multi, value,
                            cls, ori, rem):
    """_unrank_identical, compiled in only for tables that have identical pieces (as
    _identical_by_marks)."""
    if wild.dtype == types.uint8:
        return lambda code, n, k, digits, base, classes, counts, wild, multi, value, cls, \
            ori, rem: None

    def call(code, n, k, digits, base, classes, counts, wild, multi, value, cls, ori, rem):
        _unrank_identical(code, n, k, digits, base, classes, counts, wild, multi, value, cls,
                          ori, rem)
    return call


def _identical(code, n, k, base, end, counts, weights, wild, lex, multi, cls, ori, rem):
    """The value of a component of identical pieces (compiled only)."""
    raise NotImplementedError("called from compiled code only")


@overload(_identical, inline="always")
def _identical_by_marks(code, n, k, base, end, counts, weights, wild, lex, multi, cls, ori,
                        rem):
    """_rank_identical, compiled in only for tables that have identical pieces: the `?`
    marks' dtype says which (int64, or uint8 when no component holds identical pieces;
    symmetry_tables.component_data).  A call of it in encode's loop, even one never taken,
    made every other rank four times as slow."""
    if wild.dtype == types.uint8:
        return lambda code, n, k, base, end, counts, weights, wild, lex, multi, cls, ori, \
            rem: 0

    def call(code, n, k, base, end, counts, weights, wild, lex, multi, cls, ori, rem):
        return _rank_identical(code, n, k, base, end - base, counts, weights, wild, lex,
                               multi, cls, ori, rem)
    return call


# -- moving and comparing rows ------------------------------------------------------------------
