"""The compiled pieces of the frontier engine (expand.py, merge.py, dense.py): the neighbours of a slice of a
layer grouped by the segment they fall in, a radix sort of one segment's ranks, and set
operations on sorted rank arrays and on the bitset of one segment."""

import numpy as np
from numba import prange, types
from numba.extending import overload

from puzzledb.compiled import jit, neighbours_after, scratch
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
    n = ranks.size
    for b in prange((n + BLOCK - 1) // BLOCK):
        row, work = scratch(max_moves, work_size)
        first = b * BLOCK
        for i in range(first, min(n, first + BLOCK)):
            prev = np.int64(ranks[i - 1]) if i > first else np.int64(-1)
            k = neighbours_after(np.int64(ranks[i]), prev, level, row, work, tables)
            _keep(row, k, i, max_moves, out, counts, bits)


def _keep(row, k, i, max_moves, out, counts, bits):
    """Keep the k neighbours in row of rank i: into out and counts when bits is None, else
    set in bits (compiled only; the choice is made when the caller is compiled)."""
    raise NotImplementedError("called from compiled code only")


@overload(_keep, inline="always")
def _keep_by_type(row, k, i, max_moves, out, counts, bits):
    if isinstance(bits, types.NoneType):
        def into_rows(row, k, i, max_moves, out, counts, bits):
            for j in range(k):
                out[i * max_moves + j] = row[j]
            counts[i] = k
        return into_rows

    def into_bits(row, k, i, max_moves, out, counts, bits):
        for j in range(k):
            set_bit(bits, row[j])
    return into_bits


@jit(parallel=True)
def group_by_segment(out, counts, max_moves, cuts, lookup, shift, grouped, offsets):
    """The neighbours of layer_neighbours grouped by segment (segment t holds the ranks
    cuts[t] .. cuts[t + 1] - 1; segment_of finds it), in order within a segment; offsets[t]
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
                tally[b, segment_of(out[i * max_moves + j], cuts, lookup, shift)] += 1
    place = _block_places(tally, offsets)
    for b in prange(blocks):
        here = place[b]
        for i in range(b * BLOCK, min(counts.size, (b + 1) * BLOCK)):
            for j in range(counts[i]):
                r = out[i * max_moves + j]
                t = segment_of(r, cuts, lookup, shift)
                grouped[here[t]] = np.uint64(r)
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
    """The passes radix_sort makes over keys of `bits` bits: the fewest of at most 11 bits."""
    return max(1, (bits + 10) // 11)


@jit
def radix_sort(a, low, bits, spare):
    """Sort a (uint64, every value in [low, low + 2^bits)) by a least-significant-digit radix
    sort of the offsets from low, in the fewest passes of at most 11 bits; spare: an array as
    large as a, used between passes.  The sorted values end in a or in spare: the one
    returned.  (np.sort took 4 to 5 times as long on a merge's segments: docs/benchmarks.md.)"""
    n = a.size
    passes = radix_passes(bits)
    width = (bits + passes - 1) // passes
    mask = np.uint64((1 << width) - 1)
    count = np.empty((1 << width) + 1, np.int64)
    base = np.uint64(low)
    src, dst = a, spare
    for p in range(passes):
        shift = np.uint64(p * width)
        count[:] = 0
        for i in range(n):
            count[((src[i] - base) >> shift & mask) + 1] += 1
        for k in range(1 << width):
            count[k + 1] += count[k]
        for i in range(n):
            d = (src[i] - base) >> shift & mask
            dst[count[d]] = src[i]
            count[d] += 1
        src, dst = dst, src
    return src


@jit
def unique_sorted(a):
    """Drop repeated values of a sorted array in place; the number kept."""
    if a.size == 0:
        return 0
    k = 1
    for i in range(1, a.size):
        if a[i] != a[k - 1]:
            a[k] = a[i]
            k += 1
    return k


@jit
def merge_sorted(a, b, out):
    """The values of two sorted arrays, sorted, into out (a.size + b.size long)."""
    i = j = k = 0
    while i < a.size and j < b.size:
        if b[j] < a[i]:
            out[k] = b[j]
            j += 1
        else:
            out[k] = a[i]
            i += 1
        k += 1
    while i < a.size:
        out[k] = a[i]
        i += 1
        k += 1
    while j < b.size:
        out[k] = b[j]
        j += 1
        k += 1


@jit
def difference_sorted(a, b):
    """Remove from the sorted, distinct values a those that are in the sorted array b, in
    place; the number kept."""
    j = k = 0
    for i in range(a.size):
        v = a[i]
        while j < b.size and b[j] < v:
            j += 1
        if j < b.size and b[j] == v:
            continue
        a[k] = v
        k += 1
    return k

