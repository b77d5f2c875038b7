"""The compiled side of a permutation puzzle searched up to symmetry (symmetry.py): a key
decoded into a row of slot values (slots.py) and encoded back, the canonical form of a row,
and the neighbours kernel whose neighbours are canonical keys.

The canonical form of a position is its least image under the group: least by the value of
the lead factor (lead.py) first, then slot by slot in `order`.  A neighbour is made in slot
values (a look-up a slot); its lead factor's value comes from a move table, and the table's
mask names the elements whose images take the least value, most often one: only those
images are made, compared slot by slot (stopping at the first slot that differs) and the
least ranked.  Without a lead factor every image is compared, which most lose on their
first slot or two.  With inversion the images of the inverse are candidates too.

Every array is taken out of the tables once per call and handed down as an argument: numba
counts a reference at each take, and taken in the loops those counts were most of the cost
(component_kernels.py saw the same).
"""

import numpy as np
from numba import prange, types
from numba.extending import overload

from puzzledb import compiled
from puzzledb.compiled import jit
from puzzledb.compiled.bitops import lowest_bit, popcount
from puzzledb.compiled.keys import word_of
from puzzledb.puzzles.permutation.component_kernels import (
    EVEN,
    ORI,
    PERM,
    WILD,
    _class_rank,
    unrank,
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
    W_HI,
    W_LO,
    WORD_HI,
    WORD_LO,
    SymmetricTables,
)

ONE = np.uint64(1)
BLOCK = 4096  # keys a thread takes at a time


# -- keys and rows ----------------------------------------------------------------------------


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
def _lehmer_rank(cls, n):
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
        for i in range(n):
            if not wild[base + cls[i]]:
                value = value * k + ori[i]
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
        v = _lehmer_rank(cls, n)
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


# Indices here are unsigned: numba checks a signed index for wrapping around from the end,
# which in these loops of look-ups took a third of the time.


@jit(inline="always")
def _at(s, j, n, width, value):
    """Where slot map s's image of `value` for slot j stands in its image table."""
    return (s * n + j) * width + np.uint64(value)


@jit(inline="always")
def apply_map(source, image, width, m, row, out):
    """out: row after slot map m (a move, or a symmetry's conjugation; slots.py)."""
    n, w, um = np.uint64(row.size), np.uint64(width), np.uint64(m)
    for j in range(row.size):
        uj = np.uint64(j)
        out[uj] = image[_at(um, uj, n, w, row[np.uint64(source[um * n + uj])])]


@jit(inline="always")
def invert(row, out, slot_data, home, width):
    """out: the inverse of the position row (every piece distinct): the piece of class c
    at slot j, twisted o, puts in c's home slot h the class solved at j, twisted
    o_h + o_j - o (o_x the solved orientations; slot_data: k, shift, solved class and
    orientation of each slot)."""
    w = np.uint64(width)
    for j in range(row.size):
        uj = np.uint64(j)
        k, sh = slot_data[4 * uj], slot_data[4 * uj + np.uint64(1)]
        v = row[uj]
        o = v & ((1 << sh) - 1)
        h = np.uint64(home[uj * w + np.uint64(v - o)])
        o = slot_data[4 * h + np.uint64(3)] + slot_data[4 * uj + np.uint64(3)] - o
        if o < 0:  # in -k < o < 2k: one correction
            o += k
        elif o >= k:
            o -= k
        out[h] = (slot_data[4 * uj + np.uint64(2)] << sh) + o


@jit(inline="always")
def _consider(order, source, image, width, s, row, best, count):
    """Compare symmetry s's image of row with best, slot by slot in `order`: best becomes
    it when smaller (count 1), count + 1 when equal, else unchanged."""
    n, w, us = np.uint64(row.size), np.uint64(width), np.uint64(s)
    for q in range(row.size):
        j = np.uint64(order[q])
        v = image[_at(us, j, n, w, row[np.uint64(source[us * n + j])])]
        b = best[j]
        if v > b:
            return count
        if v < b:
            best[j] = v
            for r in range(q + 1, row.size):
                j = np.uint64(order[r])
                best[j] = image[_at(us, j, n, w, row[np.uint64(source[us * n + j])])]
            return 1
    return count + 1


@jit(inline="always")
def canonical_all(row, inv, best, order, source, image, width, symmetries, inverse,
                  slot_data, home):
    """best: the least image of row under the group, every image compared (the identity,
    the symmetries and, with inversion, the images of row's inverse, which inv
    receives); how many of the group's elements give it (the size of row's
    stabiliser)."""
    for j in range(row.size):
        best[j] = row[j]
    count = 1
    for s in range(1, symmetries):
        count = _consider(order, source, image, width, s, row, best, count)
    if inverse:
        invert(row, inv, slot_data, home, width)
        for s in range(symmetries):
            count = _consider(order, source, image, width, s, inv, best, count)
    return count


@jit(inline="always")
def canonical_lead(lead, row, inv, best, order, source, image, width, symmetries, slot_data,
                   home, mask, words):
    """canonical_all when the lead factor's value of row is `lead`: only the elements the
    lead table names are compared."""
    count = 0
    inverted = False
    for w in range(words):
        bits = mask[np.uint64(lead * words + w)]
        while bits:
            e = w * 64 + np.int64(lowest_bit(bits))
            bits &= bits - ONE
            if e < symmetries:
                if count == 0:
                    apply_map(source, image, width, e, row, best)
                count = _consider(order, source, image, width, e, row, best, count) \
                    if count else 1
                continue
            if not inverted:
                invert(row, inv, slot_data, home, width)
                inverted = True
            if count == 0:
                apply_map(source, image, width, e - symmetries, inv, best)
            count = _consider(order, source, image, width, e - symmetries, inv, best,
                              count) if count else 1
    return count


def canonical(lead, row, inv, best, order, source, image, width, symmetries, inverse,
              slot_data, home, mask, words):
    """best: the least image of row; the size of row's stabiliser (compiled only)."""
    raise NotImplementedError("called from compiled code only")


@overload(canonical, inline="always")
def _canonical_by_lead(lead, row, inv, best, order, source, image, width, symmetries,
                       inverse, slot_data, home, mask, words):
    """canonical_lead for tables with a lead factor, canonical_all for the others: the lead
    mask's dtype says which (uint64, or uint8 without a lead factor: lead.py), so that a
    kernel holds the code of one of them only (both in one loop made it half as fast)."""
    if mask.dtype == types.uint8:
        def every(lead, row, inv, best, order, source, image, width, symmetries, inverse,
                  slot_data, home, mask, words):
            return canonical_all(row, inv, best, order, source, image, width, symmetries,
                                 inverse, slot_data, home)
        return every

    def led(lead, row, inv, best, order, source, image, width, symmetries, inverse,
            slot_data, home, mask, words):
        return canonical_lead(lead, row, inv, best, order, source, image, width, symmetries,
                              slot_data, home, mask, words)
    return led


@jit(inline="always")
def lead_value(row, slots, shifts, cls, even):
    """The lead factor's value in a row: the rank of its classes."""
    n = slots.size
    for i in range(n):
        cls[i] = row[slots[i]] >> shifts[slots[i]]
    v = _lehmer_rank(cls, n)
    return v >> 1 if even else v


# -- the kernels ----------------------------------------------------------------------------------


@jit(inline="always")
def _split_work(work, n, scratch, words):
    """(row, moved, inv, best, cls, ori, rem, key) in one int64 work array (its length:
    4 n + 3 scratch + words, PermutationSymmetry.work_size)."""
    at = 4 * n + 3 * scratch
    return (work[:n], work[n:2 * n], work[2 * n:3 * n], work[3 * n:4 * n],
            work[4 * n:4 * n + scratch], work[4 * n + scratch:4 * n + 2 * scratch],
            work[4 * n + 2 * scratch:at], work[at:at + words])


def _put(out, count, key):
    """Neighbour `count` of out (ranks, or rows of words) = the key's words (compiled
    only)."""
    raise NotImplementedError("called from compiled code only")


@overload(_put, inline="always")
def _put_by_width(out, count, key):
    if out.ndim == 1:
        def rank(out, count, key):
            out[count] = key[0]
        return rank

    def words(out, count, key):
        for w in range(key.size):
            out[count, w] = np.uint64(key[w])
    return words


def _key_at(keys, i):
    """Key i of a key array: an int64 rank, or the row of its words (compiled only)."""
    raise NotImplementedError("called from compiled code only")


@overload(_key_at, inline="always")
def _key_at_by_width(keys, i):
    if keys.ndim == 1:
        return lambda keys, i: np.int64(keys[i])
    return lambda keys, i: keys[i]


@jit
def neighbours(key, level, out, work, t):
    """The canonical keys of the neighbours of the state whose canonical key is `key`, one
    a move; with inversion, also those of its inverse, 2 x moves in all.  (A class holds
    x and x^-1, so its neighbours are those of x after a move and before one: the
    neighbours of x^-1 are the inverses of the latter.)  A class reached twice is listed
    twice."""
    order, source, image, width, symmetries, inverse = (
        t.sy_order, t.sy_source, t.sy_image, t.sy_width, t.sy_count, t.sy_inverse)
    mv_source, mv_image, moves, slot_data, home = (
        t.mv_source, t.mv_image, t.moves, t.sl_data, t.iv_home)
    cp, cp_slots, counts, weights, wild, shifts = (
        t.cp_table, t.cp_slots, t.cp_counts, t.cp_weights, t.cp_wild, t.sl_shift)
    lead_size, lead_slots, lead_move, lead_invert, mask, words = (
        t.ld_size, t.ld_slots, t.ld_move, t.ld_invert, t.ld_mask, t.ld_words)
    row, moved, inv, best, cls, ori, rem, words_of = _split_work(work, t.sy_slots,
                                                                 t.sy_scratch, t.sy_words)
    decode(key, row, cls, ori, rem, t.sy_solved, cp, cp_slots, counts, weights, wild, shifts,
           t.dc_table)
    lead = lead_value(row, lead_slots, shifts, cls, t.ld_even) if lead_size else 0
    count = 0
    for side in range(2 if inverse else 1):
        if side == 1:
            invert(row, moved, slot_data, home, width)
            row[:] = moved
            lead = np.int64(lead_invert[lead]) if lead_size else 0
        for m in range(moves):
            apply_map(mv_source, mv_image, width, m, row, moved)
            canonical(np.int64(lead_move[lead * moves + m]) if lead_size else 0, moved, inv,
                      best, order, source, image, width, symmetries, inverse, slot_data, home,
                      mask, words)
            encode(best, words_of, cls, ori, rem, cp, cp_slots, counts, weights, wild, shifts)
            _put(out, count, words_of)
            count += 1
    return count


compiled.register(SymmetricTables, neighbours=neighbours)


@jit
def _canonical_block(keys, t, out, stabilisers, first, last):
    """The canonical key of each key's class (out, unless None: keys and out alike one-word
    ranks or rows of W words) and its stabiliser's size, for keys[first:last] (a function
    of its own: numba's parallel pass mistakes the many arrays taken out of the tables
    inside a parallel loop)."""
    order, source, image, width, symmetries, inverse = (
        t.sy_order, t.sy_source, t.sy_image, t.sy_width, t.sy_count, t.sy_inverse)
    slot_data, home = t.sl_data, t.iv_home
    cp, cp_slots, counts, weights, wild, shifts = (
        t.cp_table, t.cp_slots, t.cp_counts, t.cp_weights, t.cp_wild, t.sl_shift)
    lead_size, lead_slots, mask, words = t.ld_size, t.ld_slots, t.ld_mask, t.ld_words
    work = np.empty(4 * t.sy_slots + 3 * t.sy_scratch + t.sy_words, np.int64)
    row, moved, inv, best, cls, ori, rem, words_of = _split_work(work, t.sy_slots,
                                                                 t.sy_scratch, t.sy_words)
    for i in range(first, last):
        key = _key_at(keys, i)
        if out is None and lead_size and _alone(key, cp, t.ld_component, mask, words):
            stabilisers[i] = 1  # no element but the identity keeps the lead factor least
            continue
        decode(key, row, cls, ori, rem, t.sy_solved, cp, cp_slots, counts, weights, wild,
               shifts, t.dc_table)
        lead = lead_value(row, lead_slots, shifts, cls, t.ld_even) if lead_size else 0
        stabilisers[i] = canonical(lead, row, inv, best, order, source, image, width,
                                   symmetries, inverse, slot_data, home, mask, words)
        if out is not None:
            encode(best, words_of, cls, ori, rem, cp, cp_slots, counts, weights, wild, shifts)
            _put(out, i, words_of)


@jit(inline="always")
def _alone(key, cp, c, mask, words):
    """Whether the lead table names the identity alone for a canonical key's lead factor
    (read off the key: its component's digit), so that its stabiliser is trivial: the
    elements that fix a canonical position are among those keeping its lead value least."""
    p = c * COLUMNS
    lead = (np.int64(word_of(key, cp[p + WORD_LO])) // cp[p + W_LO]) % cp[p + R_LO]
    bits = 0
    for w in range(words):
        bits += popcount(np.uint64(mask[lead * words + w]))
    return bits == 1


@jit(parallel=True)
def canonical_keys(keys, t, out, stabilisers):
    """out[i]: the canonical key of the class of the state keys[i] (any key, not only a
    canonical one); stabilisers[i]: how many of the group's elements fix it."""
    n = len(keys)
    for b in prange((n + BLOCK - 1) // BLOCK):
        _canonical_block(keys, t, out, stabilisers, b * BLOCK, min(n, (b + 1) * BLOCK))


@jit(parallel=True)
def class_sizes(keys, t, out):
    """out[i]: the positions of the class whose canonical key is keys[i] (the group's
    order over its stabiliser's size)."""
    n = len(keys)
    for b in prange((n + BLOCK - 1) // BLOCK):
        _canonical_block(keys, t, None, out, b * BLOCK, min(n, (b + 1) * BLOCK))
    order = t.sy_count * (2 if t.sy_inverse else 1)
    for i in prange(n):
        out[i] = order // out[i]
