"""The compiled pieces of the frontier engine (expand.py, merge.py, dense.py): the neighbours of a slice of a
layer grouped by the segment they fall in, a radix sort of one segment's keys, and set
operations on sorted key arrays and on the bitset of one segment.  Each is written once
for keys of any width (compiled/keys.py): a 1-D array of ranks, or an (n, W) array of keys
of W words, the operations on a key chosen when the loop is compiled."""

import numpy as np
from numba import prange, types
from numba.extending import overload

from puzzledb.compiled import jit, neighbours_after, scratch
from puzzledb.compiled.keys import copy_key, key_less, key_width, keys_equal, prefix, word
from puzzledb.expansion.words import set_bit

BLOCK = 4096  # states a thread expands with one scratch array


@jit
def layer_neighbours(ranks, level, tables, max_moves, work_size, out, counts):
    """The neighbours of each rank (ascending) into out[i * max_moves:], their number into
    counts[i]."""
    _by_block(ranks, level, tables, max_moves, work_size, out, counts, None)


@jit
def mark_neighbours(ranks, level, tables, max_moves, work_size, bits):
    """Set in bits (a bitset of the whole level) the neighbours of each rank (ascending);
    threads OR atomically (a bit already set is not written)."""
    _by_block(ranks, level, tables, max_moves, work_size, None, None, bits)


@jit(parallel=True)
def _by_block(ranks, level, tables, max_moves, work_size, out, counts, bits):
    """The neighbours of each rank into out and counts, or set in bits (see _keep).  Threads
    take blocks of consecutive ranks, and a kernel may decode each rank from where it
    differs from the one before (compiled.neighbours_after)."""
    n = len(ranks)
    for b in prange((n + BLOCK - 1) // BLOCK):
        row, work = _scratch(ranks, max_moves, work_size)
        first = b * BLOCK
        for i in range(first, min(n, first + BLOCK)):
            key, prev = _source(ranks, i, first)
            k = neighbours_after(key, prev, level, row, work, tables)
            _keep(row, k, i, max_moves, out, counts, bits)


def _scratch(ranks, max_moves, work_size):
    """A thread's arrays for the neighbours kernel: its neighbours' keys (int64 ranks, or
    (max_moves, W) uint64 keys) and its work (compiled only)."""
    raise NotImplementedError("called from compiled code only")


def _source(ranks, i, first):
    """(key, prev) for neighbours_after: rank i and the rank before it in the block (-1 at
    its first); a key of W words is its row, and prev says only whether the call before was
    for the key before it (0) or not (-1)."""
    raise NotImplementedError("called from compiled code only")


@overload(_scratch, inline="always")
def _scratch_by_width(ranks, max_moves, work_size):
    if ranks.ndim == 1:
        return lambda ranks, max_moves, work_size: scratch(max_moves, work_size)
    return lambda ranks, max_moves, work_size: (
        np.empty((max_moves, ranks.shape[1]), np.uint64), np.empty(work_size, np.int64))


@overload(_source, inline="always")
def _source_by_width(ranks, i, first):
    if ranks.ndim == 1:
        return lambda ranks, i, first: (
            np.int64(ranks[i]), np.int64(ranks[i - 1]) if i > first else np.int64(-1))
    return lambda ranks, i, first: (ranks[i], np.int64(0) if i > first else np.int64(-1))


def _keep(row, k, i, max_moves, out, counts, bits):
    """Keep the k neighbours in row of rank i: into out and counts when bits is None, else
    set in bits (compiled only; the choice is made when the caller is compiled)."""
    raise NotImplementedError("called from compiled code only")


@overload(_keep, inline="always")
def _keep_by_type(row, k, i, max_moves, out, counts, bits):
    if isinstance(bits, types.NoneType):
        def into_rows(row, k, i, max_moves, out, counts, bits):
            for j in range(k):
                copy_key(out, i * max_moves + j, row, j)
            counts[i] = k
        return into_rows

    def into_bits(row, k, i, max_moves, out, counts, bits):
        for j in range(k):
            set_bit(bits, row[j])
    return into_bits


@jit(parallel=True)
def group_by_segment(out, counts, max_moves, cuts, lookup, shift, grouped, offsets):
    """The neighbours of layer_neighbours grouped by segment (segment t holds the keys
    whose first word is cuts[t] .. cuts[t + 1] - 1; segment_of finds it), in order within a segment; offsets[t]
    is where segment t's group starts in grouped, offsets[-1] the number of neighbours.
    A counting sort: each block of states counts its neighbours per segment, the counts
    give every block its places, and the blocks scatter in parallel.  The two parallel
    loops are the only ones: an array expression here (np.zeros, a column's sum) would be
    a parallel region of its own, and each costs a wake-up of every thread, which on a
    loaded machine took five times the work."""
    segments = offsets.size - 1
    blocks = (counts.size + BLOCK - 1) // BLOCK
    tally = np.empty((blocks, segments), np.int64)
    for b in prange(blocks):
        for t in range(segments):
            tally[b, t] = 0
        for i in range(b * BLOCK, min(counts.size, (b + 1) * BLOCK)):
            for j in range(counts[i]):
                tally[b, segment_of(prefix(out, i * max_moves + j), cuts, lookup, shift)] += 1
    place = _block_places(tally, offsets)
    for b in prange(blocks):
        here = place[b]
        for i in range(b * BLOCK, min(counts.size, (b + 1) * BLOCK)):
            for j in range(counts[i]):
                at = i * max_moves + j
                t = segment_of(prefix(out, at), cuts, lookup, shift)
                copy_key(grouped, here[t], out, at)
                here[t] += 1


@jit
def segment_of(r, cuts, lookup, shift):
    """The segment t with cuts[t] <= r < cuts[t + 1]: lookup[r >> shift] and
    lookup[(r >> shift) + 1] bound it (the segments of the first and last rank of r's
    bucket, see segment_lookup), and a binary search between them finds it."""
    b = r >> shift
    low, high = lookup[b], lookup[b + 1]
    while low < high:
        middle = (low + high + 1) >> 1
        if cuts[middle] <= r:
            low = middle
        else:
            high = middle - 1
    return low


@jit
def _block_places(tally, offsets):
    """Where each block's group of each segment starts (segments in order, the blocks in
    order within a segment); offsets[t] where segment t starts, offsets[-1] the total."""
    blocks, segments = tally.shape
    place = np.empty((blocks, segments), np.int64)
    at = 0
    for t in range(segments):
        offsets[t] = at
        for b in range(blocks):
            place[b, t] = at
            at += tally[b, t]
    offsets[segments] = at
    return place


@jit
def radix_passes(bits):
    """The passes radix_sort makes over a word of `bits` bits: the fewest of at most 11 bits."""
    return max(1, (bits + 10) // 11)


@jit
def span_bits(span):
    """The bits of a word's span of values (hi - lo): at least 1."""
    bits = 1
    while bits < 64 and (span >> np.uint64(bits)) != np.uint64(0):
        bits += 1
    return bits


@jit
def radix_sort(a, low, bits, spare):
    """Sort the keys a (every first word in [low, low + 2^bits)) by a least-significant-digit
    radix sort: each later word over the span of its values, last word first, then the
    first word's offsets from low, each in the fewest passes of at most 11 bits; spare: an
    array as large as a, used between passes.  (sorted, in_spare): the sorted keys end in a
    or in spare, the one returned.  (np.sort took 4 to 5 times as long on a merge's
    segments: docs/benchmarks.md.)"""
    src, dst = a, spare
    n = len(a)
    passes = 0
    for w in range(key_width(a) - 1, 0, -1):
        if n:
            lo = hi = word(src, 0, w)
            for i in range(1, n):
                lo = min(lo, word(src, i, w))
                hi = max(hi, word(src, i, w))
            if hi > lo:
                p = _sort_word(src, dst, w, lo, span_bits(hi - lo))
                if p % 2 == 1:
                    src, dst = dst, src
                passes += p
    p = _sort_word(src, dst, 0, np.uint64(low), bits)
    if p % 2 == 1:
        src, dst = dst, src
    return src, (passes + p) % 2 == 1


@jit
def _sort_word(src, dst, w, base, bits):
    """The keys of src sorted stably by word w (every one in [base, base + 2^bits)),
    passing between src and dst; the passes made (the keys end in dst when they are
    odd)."""
    n = len(src)
    passes = radix_passes(bits)
    width = (bits + passes - 1) // passes
    mask = np.uint64((1 << width) - 1)
    count = np.empty((1 << width) + 1, np.int64)
    for p in range(passes):
        shift = np.uint64(p * width)
        count[:] = 0
        for i in range(n):
            count[((word(src, i, w) - base) >> shift & mask) + 1] += 1
        for k in range(1 << width):
            count[k + 1] += count[k]
        for i in range(n):
            d = (word(src, i, w) - base) >> shift & mask
            copy_key(dst, count[d], src, i)
            count[d] += 1
        src, dst = dst, src
    return passes


@jit
def unique_sorted(a):
    """Drop repeated keys of a sorted array in place; the number kept."""
    n = len(a)
    if n == 0:
        return 0
    k = 1
    for i in range(1, n):
        if not keys_equal(a, i, a, k - 1):
            copy_key(a, k, a, i)
            k += 1
    return k


@jit
def merge_sorted(a, b, out):
    """The keys of two sorted arrays, sorted, into out (len(a) + len(b) long)."""
    i = j = k = 0
    while i < len(a) and j < len(b):
        if key_less(b, j, a, i):
            copy_key(out, k, b, j)
            j += 1
        else:
            copy_key(out, k, a, i)
            i += 1
        k += 1
    while i < len(a):
        copy_key(out, k, a, i)
        i += 1
        k += 1
    while j < len(b):
        copy_key(out, k, b, j)
        j += 1
        k += 1


@jit
def difference_sorted(a, b):
    """Remove from the sorted, distinct keys a those that are in the sorted array b, in
    place; the number kept."""
    j = k = 0
    for i in range(len(a)):
        while j < len(b) and key_less(b, j, a, i):
            j += 1
        if j < len(b) and keys_equal(b, j, a, i):
            continue
        copy_key(a, k, a, i)
        k += 1
    return k
