"""The compiled side of a permutation puzzle searched up to symmetry (symmetry.py): a key
decoded into a row of slot values (slots.py) and encoded back, the canonical form of a row
(its least image under the group, and how many of the group's elements reach it), and the
neighbours kernel whose neighbours are canonical keys.

A state's neighbour is made in slot values (one look-up a slot), then each of the group's
images of it is compared with the least so far slot by slot in `order`, stopping at the
first slot that differs: most images lose on the first slot or two, so that an image costs
a few look-ups, not a rank.  Only the least is ranked.  With inversion the images of the
neighbour's inverse are compared too.
"""

import numpy as np
from numba import prange

from puzzledb import compiled
from puzzledb.compiled import jit
from puzzledb.compiled.bitops import popcount
from puzzledb.puzzles.permutation.component_kernels import (
    EVEN,
    ORI,
    PERM,
    WILD,
    _class_rank,
    unrank,
)
from puzzledb.puzzles.permutation.symmetry_tables import SymmetricTables

ONE = np.uint64(1)


@jit(inline="always")
def views(t):
    """The tables' arrays read out once into two tuples, (symmetries and moves, components),
    handed down instead of the tables: numba counts a reference at every read of a field
    (component_kernels.py says what that cost)."""
    return ((t.sy_order, t.sy_source, t.sy_image, t.sy_count, t.sy_inverse, t.sy_width,
             t.iv_home, t.iv_class, t.iv_ori, t.iv_k, t.mv_source, t.mv_image, t.moves,
             t.sy_solved, t.iv_shift),
            (t.cp_code, t.cp_n, t.cp_k, t.cp_digits, t.cp_total, t.cp_parity, t.cp_class_at,
             t.cp_counts, t.cp_weights, t.cp_wild, t.cp_at, t.cp_slots, t.cp_lex, t.cp_split,
             t.cp_multi, t.cp_w_hi, t.cp_r_hi, t.cp_w_lo, t.cp_r_lo, t.iv_shift))


@jit(inline="always")
def _component(cv, c):
    """The data component_kernels' rank and unrank read (their component(), for
    component c of every component of the key)."""
    base = cv[6][c]
    return (cv[0][c], cv[1][c], cv[2][c], cv[3][c], cv[4][c], cv[5][c], base,
            cv[6][c + 1] - base, cv[7], cv[8], cv[9])


@jit(inline="always")
def _lex_rank(cls, n, counts, base, classes, total, rem):
    """The lexicographic rank of an arrangement of identical pieces (ranks.rank_rows)."""
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
    """_lex_rank inverted (ranks.unrank_rows)."""
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
def _value(cv, c, key):
    hi, lo, r_lo = cv[15][c], cv[17][c], cv[18][c]
    v = (key // lo) % r_lo
    if hi > 0:
        v += ((key // hi) % cv[16][c]) * r_lo
    return v


@jit(inline="always")
def decode(key, sv, cv, row, cls, ori, rem):
    """The row of slot values of key."""
    solved = sv[13]
    slots, at, shifts = cv[11], cv[10], cv[19]
    for j in range(row.size):
        row[j] = solved[j]
    for c in range(cv[1].size):
        d = _component(cv, c)
        code, n, k, digits, total, parity, base, classes, counts = d[:9]
        v = _value(cv, c, key)
        for i in range(n):
            ori[i] = 0
        if cv[12][c]:
            scale = k ** digits if code == WILD else 1
            _lex_unrank(v // scale, n, counts, base, classes, cv[14][c], rem, cls)
            if code == WILD:
                _wild_digits(v % scale, n, k, base, cv[9], cls, ori)
        else:
            unrank(d, v, cls, ori)
        if cv[13][c]:
            _invert_local(cls, n, rem)
        for i in range(n):  # the slot's shift: an arrangement's component has no k
            g = slots[at[c] + i]
            sh = shifts[g]
            if code == ORI:
                row[g] = ((row[g] >> sh) << sh) + ori[i]
            elif code == WILD:
                row[g] = (cls[i] << sh) + ori[i]
            else:
                row[g] = (cls[i] << sh) + (row[g] & ((1 << sh) - 1))


@jit(inline="always")
def _wild_digits(value, n, k, base, wild, cls, ori):
    for i in range(n - 1, -1, -1):
        if not wild[base + cls[i]]:
            ori[i] = value % k
            value //= k


@jit(inline="always")
def _lehmer_rank(cls, n):
    """The lexicographic rank of a permutation of 0..n-1 (its Lehmer code)."""
    used = np.uint64(0)
    value = 0
    for i in range(n):
        v = np.uint64(cls[i])
        value = value * (n - i) + cls[i] - np.int64(popcount(used & ((ONE << v) - ONE)))
        used |= ONE << v
    return value


@jit(inline="always")
def _rank_component(code, n, k, digits, base, classes, counts, weights, wild, lex, multi,
                    cls, ori, rem):
    """The value of a component whose slots hold cls, ori (component_kernels.rank, and
    ranks.rank_rows for a table component of identical pieces, written out by kind)."""
    value = 0
    if code == ORI:
        for i in range(digits):
            value = value * k + ori[i]
        return value
    if code == PERM or code == EVEN:
        value = _lehmer_rank(cls, n)
        return value >> 1 if code == EVEN else value
    return _rank_identical(code, n, k, base, classes, counts, weights, wild, lex, multi, cls,
                           ori, rem)


@jit
def _rank_identical(code, n, k, base, classes, counts, weights, wild, lex, multi, cls, ori,
                    rem):
    """_rank_component of identical pieces: a call of its own, not inlined (inlined, its
    code made every rank of the others two to four times as slow)."""
    if lex:
        value = _lex_rank(cls, n, counts, base, classes, multi, rem)
    else:
        value = _class_rank(cls, n, counts, weights, base, classes)
    if code == WILD:
        for i in range(n):
            if not wild[base + cls[i]]:
                value = value * k + ori[i]
    return value


@jit
def encode(row, cv, cls, ori, rem):
    """The key of a row of slot values: decode inverted.  (The views' arrays are taken
    out of the tuple once: each take counts a reference, and inside the loops those
    counts were most of the cost.)"""
    codes, ns, ks, digits, class_at, counts, weights, wild = (
        cv[0], cv[1], cv[2], cv[3], cv[6], cv[7], cv[8], cv[9])
    at, slots, lex, halves, multi, w_hi, w_lo, r_lo, shifts = (
        cv[10], cv[11], cv[12], cv[13], cv[14], cv[15], cv[17], cv[18], cv[19])
    key = 0
    for c in range(ns.size):
        n = ns[c]
        for i in range(n):
            g = slots[at[c] + i]
            v = row[g]
            cls[i] = v >> shifts[g]
            ori[i] = v & ((1 << shifts[g]) - 1)
        if halves[c]:
            _invert_local(cls, n, rem)
        base = class_at[c]
        v = _rank_component(codes[c], n, ks[c], digits[c], base, class_at[c + 1] - base,
                            counts, weights, wild, lex[c], multi[c], cls, ori, rem)
        if w_hi[c] > 0:  # a split permutation's two digits
            key += (v % r_lo[c]) * w_lo[c] + (v // r_lo[c]) * w_hi[c]
        else:
            key += v * w_lo[c]
    return key


@jit(inline="always")
def apply_move(sv, m, row, out):
    """out: row after move m, slot by slot (slots.SlotCoding.slot_map)."""
    source, image, width = sv[10], sv[11], sv[5]
    n = row.size
    so, io = m * n, m * n * width
    for j in range(n):
        out[j] = image[io + j * width + row[source[so + j]]]


@jit(inline="always")
def invert(sv, row, out):
    """out: the inverse of the position row (every piece distinct): the piece of class c
    at slot j, twisted o, puts in c's home slot h the class of slot j, twisted
    o_h + o_j - o (o_x the solved orientations; slots.py derives it)."""
    width, home, solved_class, solved_ori, ks = sv[5], sv[6], sv[7], sv[8], sv[9]
    shifts = sv[14]
    for j in range(row.size):
        sh = shifts[j]
        v = row[j]
        o = v & ((1 << sh) - 1)
        h = home[j * width + v - o]
        o = solved_ori[h] + solved_ori[j] - o  # in -k < o < 2k: one correction
        if o < 0:
            o += ks[j]
        elif o >= ks[j]:
            o -= ks[j]
        out[h] = (solved_class[j] << sh) + o


@jit(inline="always")
def _consider(order, source, image, width, s, row, best, count):
    """Compare symmetry s's image of row with best, slot by slot in `order`: best
    becomes it when smaller (count 1), count + 1 when equal, else unchanged."""
    n = row.size
    so, io = s * n, s * n * width
    for q in range(n):
        j = order[q]
        v = image[io + j * width + row[source[so + j]]]
        b = best[j]
        if v > b:
            return count
        if v < b:
            best[j] = v
            for r in range(q + 1, n):
                j = order[r]
                best[j] = image[io + j * width + row[source[so + j]]]
            return 1
    return count + 1


@jit
def canonical(sv, row, inv, best):
    """best: the least image of row under the group (the identity, the symmetries and,
    with inversion, the images of row's inverse, which inv receives); the number of the
    group's elements whose image it is (the size of row's stabiliser)."""
    order, source, image, width, symmetries = sv[0], sv[1], sv[2], sv[5], sv[3]
    for j in range(row.size):
        best[j] = row[j]
    count = 1
    for s in range(1, symmetries):
        count = _consider(order, source, image, width, s, row, best, count)
    if sv[4]:
        invert(sv, row, inv)
        for s in range(symmetries):
            count = _consider(order, source, image, width, s, inv, best, count)
    return count


@jit(inline="always")
def _split_work(t, work):
    n, m = t.sy_slots, t.sy_scratch
    return (work[:n], work[n:2 * n], work[2 * n:3 * n], work[3 * n:4 * n],
            work[4 * n:4 * n + m], work[4 * n + m:4 * n + 2 * m],
            work[4 * n + 2 * m:4 * n + 3 * m])


@jit
def neighbours(key, level, out, work, t):
    """The canonical keys of the neighbours of the state whose canonical key is `key`, one
    a move; with inversion, also those of its inverse, 2 x moves in all.  (A class holds
    x and x^-1, so its neighbours are those of x after a move and before one: the
    neighbours of x^-1 are the inverses of the latter.)  A class reached twice is listed
    twice."""
    sv, cv = views(t)
    row, moved, inv, best, cls, ori, rem = _split_work(t, work)
    decode(key, sv, cv, row, cls, ori, rem)
    count = 0
    for side in range(2 if sv[4] else 1):
        if side == 1:
            invert(sv, row, moved)
            row[:] = moved
        for m in range(sv[12]):
            apply_move(sv, m, row, moved)
            canonical(sv, moved, inv, best)
            out[count] = encode(best, cv, cls, ori, rem)
            count += 1
    return count


compiled.register(SymmetricTables, neighbours=neighbours)


BLOCK = 4096  # keys a thread takes at a time


@jit
def _canonical_block(keys, t, out, stabilisers, first, last):
    """canonical_keys of keys[first:last] (a function of its own: numba's parallel pass
    mistakes the tuples of views() inside a parallel loop)."""
    sv, cv = views(t)
    work = np.empty(4 * t.sy_slots + 3 * t.sy_scratch, np.int64)
    row, moved, inv, best, cls, ori, rem = _split_work(t, work)
    for i in range(first, last):
        decode(np.int64(keys[i]), sv, cv, row, cls, ori, rem)
        stabilisers[i] = canonical(sv, row, inv, best)
        out[i] = encode(best, cv, cls, ori, rem)


@jit(parallel=True)
def canonical_keys(keys, t, out, stabilisers):
    """out[i]: the canonical key of the class of the state keys[i] (any key, not only a
    canonical one); stabilisers[i]: how many of the group's elements fix it."""
    for b in prange((keys.size + BLOCK - 1) // BLOCK):
        _canonical_block(keys, t, out, stabilisers, b * BLOCK, min(keys.size, (b + 1) * BLOCK))


@jit
def _sizes_block(keys, t, out, first, last):
    sv, cv = views(t)
    order = sv[3] * (2 if sv[4] else 1)
    work = np.empty(4 * t.sy_slots + 3 * t.sy_scratch, np.int64)
    row, moved, inv, best, cls, ori, rem = _split_work(t, work)
    for i in range(first, last):
        decode(np.int64(keys[i]), sv, cv, row, cls, ori, rem)
        out[i] = order // canonical(sv, row, inv, best)


@jit(parallel=True)
def class_sizes(keys, t, out):
    """out[i]: the positions of the class whose canonical key is keys[i] (the group's
    order over its stabiliser's)."""
    for b in prange((keys.size + BLOCK - 1) // BLOCK):
        _sizes_block(keys, t, out, b * BLOCK, min(keys.size, (b + 1) * BLOCK))
