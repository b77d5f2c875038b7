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
from puzzledb.puzzles.permutation.slot_kernels import decode, encode, lehmer_rank
from puzzledb.puzzles.permutation.symmetry_tables import (
    COLUMNS,
    R_LO,
    WORD_LO,
    W_LO,
    SymmetricTables,
)

ONE = np.uint64(1)
BLOCK = 4096  # keys a thread takes at a time


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
    v = lehmer_rank(cls, n)
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


@jit(inline="always")
def _neighbours_by_images(key, level, out, work, t):
    """neighbours, each image made and compared slot by slot."""
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


@jit(inline="always")
def _run(program, at, n, x):
    """A program of orbit.py on the orientations x (two bits a slot): for each of its n
    words, the orientation of the slot it reads, through its function, to its place."""
    out = np.int64(0)
    for q in range(n):
        w = np.int64(program[at + np.uint64(q)])
        o = (x >> ((w & 7) << 1)) & 3
        out |= ((w >> (6 + (o << 1))) & 3) << ((w >> 2) & 14)
    return out


@jit(inline="always")
def _least(program, first, last, n, x):
    """(the least result of programs first..last-1 on x, how many give it)."""
    best = _run(program, np.uint64(first * n), n, x)
    count = 1
    for e in range(first + 1, last):
        y = _run(program, np.uint64(e * n), n, x)
        if y < best:
            best, count = y, 1
        elif y == best:
            count += 1
    return best, count


@jit(inline="always")
def _neighbours_by_programs(key, level, out, work, t):
    """neighbours of a puzzle of one orbit, by its programs (orbit.py): the same keys in
    the same order."""
    n, twists, moves = t.fo_slots, t.fo_twists, t.moves
    lead_move, start, program, least = t.ld_move, t.fo_start, t.fo_program, t.fo_lead
    moved, ranked = t.fo_move, t.fo_rank_ordered
    u, v = key // twists, key % twists
    count = 0
    for side in range(2 if t.sy_inverse else 1):
        if side == 1:
            v = t.fo_rank[_run(t.fo_inverse, np.uint64(u * n), n, t.fo_unrank[v])]
            u = np.int64(t.ld_invert[u])
        for m in range(moves):
            u2 = np.int64(lead_move[np.uint64(u * moves + m)])
            x = moved[np.uint64(v * moves + m)]
            best, _ = _least(program, start[u2], start[u2 + 1], n, x)
            out[count] = least[u2] * twists + ranked[best]
            count += 1
    return count


def _neighbours(program, key, level, out, work, t):
    """neighbours by programs or by images (compiled only)."""
    raise NotImplementedError("called from compiled code only")


@overload(_neighbours, inline="always")
def _neighbours_by_kind(program, key, level, out, work, t):
    """By programs when the tables have them (fo_program uint16; orbit.py), else by
    images: a kernel holds the code of one of them only."""
    if program.dtype == types.uint16:
        return lambda program, key, level, out, work, t: _neighbours_by_programs(
            key, level, out, work, t)
    return lambda program, key, level, out, work, t: _neighbours_by_images(
        key, level, out, work, t)


@jit
def neighbours(key, level, out, work, t):
    """The canonical keys of the neighbours of the state whose canonical key is `key`, one
    a move; with inversion, also those of its inverse, 2 x moves in all.  (A class holds
    x and x^-1, so its neighbours are those of x after a move and before one: the
    neighbours of x^-1 are the inverses of the latter.)  A class reached twice is listed
    twice."""
    return _neighbours(t.fo_program, key, level, out, work, t)


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


@jit
def class_images(keys, t, out):
    """out[i * order + e]: the image of the state keys[i] under the group's element e (the
    symmetries, then with inversion each after inverting): every member of its class,
    each as many times as its stabiliser has elements."""
    source, image, width, symmetries, inverse = (
        t.sy_source, t.sy_image, t.sy_width, t.sy_count, t.sy_inverse)
    cp, cp_slots, counts, weights, wild, shifts = (
        t.cp_table, t.cp_slots, t.cp_counts, t.cp_weights, t.cp_wild, t.sl_shift)
    work = np.empty(4 * t.sy_slots + 3 * t.sy_scratch + t.sy_words, np.int64)
    row, moved, inv, best, cls, ori, rem, words_of = _split_work(work, t.sy_slots,
                                                                 t.sy_scratch, t.sy_words)
    sides = 2 if inverse else 1
    for i in range(len(keys)):
        decode(_key_at(keys, i), row, cls, ori, rem, t.sy_solved, cp, cp_slots, counts,
               weights, wild, shifts, t.dc_table)
        for side in range(sides):
            if side == 1:
                invert(row, inv, t.sl_data, t.iv_home, width)
                row[:] = inv
            for s in range(symmetries):
                apply_map(source, image, width, s, row, best)
                encode(best, words_of, cls, ori, rem, cp, cp_slots, counts, weights, wild,
                       shifts)
                _put(out, (i * sides + side) * symmetries + s, words_of)


@jit(parallel=True)
def canonical_keys(keys, t, out, stabilisers):
    """out[i]: the canonical key of the class of the state keys[i] (any key, not only a
    canonical one); stabilisers[i]: how many of the group's elements fix it."""
    n = len(keys)
    for b in prange((n + BLOCK - 1) // BLOCK):
        _canonical(t.fo_program, keys, t, out, stabilisers, b * BLOCK,
                   min(n, (b + 1) * BLOCK))


def _canonical(program, keys, t, out, stabilisers, first, last):
    """canonical_keys of keys[first:last] (compiled only)."""
    raise NotImplementedError("called from compiled code only")


@overload(_canonical, inline="always")
def _canonical_by_kind(program, keys, t, out, stabilisers, first, last):
    """By programs when the tables have them (fo_program uint16; orbit.py): the least of
    the key's arrangement's programs on its orientations, as the neighbours take it (and
    no generic kernel compiled for such a puzzle's queries); else by images."""
    if program.dtype == types.uint16 and keys.ndim == 1:
        def by_programs(program, keys, t, out, stabilisers, first, last):
            n, twists, start = t.fo_slots, t.fo_twists, t.fo_start
            for i in range(first, last):
                u, v = np.int64(keys[i]) // twists, np.int64(keys[i]) % twists
                best, count = _least(program, start[u], start[u + 1], n, t.fo_unrank[v])
                out[i] = np.int64(t.fo_lead[u]) * twists + t.fo_rank_ordered[best]
                stabilisers[i] = count
        return by_programs
    return lambda program, keys, t, out, stabilisers, first, last: _canonical_block(
        keys, t, out, stabilisers, first, last)


@jit(inline="always")
def _stabiliser_by_programs(key, t):
    """The stabiliser's size of the canonical key of a puzzle of one orbit: how many of
    its lead value's programs (orbit.py) give its own orientations back."""
    n, twists, start, program = t.fo_slots, t.fo_twists, t.fo_start, t.fo_program
    u, v = key // twists, key % twists
    _, count = _least(program, start[u], start[u + 1], n, t.fo_unrank[v])
    return count


def _stabilisers(program, keys, t, out, first, last):
    """out[first:last]: the stabilisers' sizes of canonical keys (compiled only)."""
    raise NotImplementedError("called from compiled code only")


@overload(_stabilisers, inline="always")
def _stabilisers_by_kind(program, keys, t, out, first, last):
    if program.dtype == types.uint16 and keys.ndim == 1:
        def by_programs(program, keys, t, out, first, last):
            for i in range(first, last):
                out[i] = _stabiliser_by_programs(np.int64(keys[i]), t)
        return by_programs
    return lambda program, keys, t, out, first, last: _canonical_block(
        keys, t, None, out, first, last)


@jit(parallel=True)
def class_sizes(keys, t, out):
    """out[i]: the positions of the class whose canonical key is keys[i] (the group's
    order over its stabiliser's size)."""
    n = len(keys)
    for b in prange((n + BLOCK - 1) // BLOCK):
        _stabilisers(t.fo_program, keys, t, out, b * BLOCK, min(n, (b + 1) * BLOCK))
    order = t.sy_count * (2 if t.sy_inverse else 1)
    for i in prange(n):
        out[i] = order // out[i]
