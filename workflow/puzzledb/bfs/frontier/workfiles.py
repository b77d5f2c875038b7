"""The work files of the frontier search: the neighbours one expand piece hands to the merge
jobs, a group per target segment, each group sorted, made distinct and coded compactly
(write_piece writes one, PieceFile reads it a group at a time).

A group of segment [low, high) holds ranks r0 < r1 < ...; it is stored as their gaps
(r0 - low, then r1 - r0 - 1, r2 - r1 - 1, ...), each gap in LEB128 (seven bits a byte, low
bits first, the top bit set on every byte but a gap's last), and those bytes deflated by
ISA-L.  Keys of several words are coded word by word (the kernels' header below).  Neighbours of a piece of consecutive ranks crowd into a few narrow stretches of a
segment, so most gaps are short: on the 15-puzzle's layers 26 and 28 a neighbour costs
0.97 to 1.07 bytes instead of 8, for 14 to 17 ns of CPU to write (the sort included) and 6
to 9 ns to read (docs/changelog.md, "Compact work files").

The file's layout and its index are workindex.py's.

A merge job opens every piece of every expand job, so a PieceFile keeps only the index and
opens the file again for each group it reads.
"""

import numpy as np
from isal import isal_zlib

from puzzledb.bfs.frontier.kernels import radix_sort, span_bits
from puzzledb.bfs.frontier.workindex import HEADER, INDEX_COLUMNS, MAGIC, WorkIndex, index_crc
from puzzledb.compiled import jit
from puzzledb.compiled.keys import copy_key, key_less, key_width, keys_equal, prefix, set_word, word
from puzzledb.keys import WORD_LIMIT
from puzzledb.errors import LayerError
from puzzledb.store.files import atomic_file
from puzzledb.store.integrity import crc32

# ISA-L's levels are 0-3.  On the 15-puzzle's pieces level 2 stored 1 to 2 % fewer bytes
# than level 1 (the layer store's) for at most 0.6 ns a neighbour more; level 0 stored
# about as many bytes as LEB128 alone.
DEFLATE_LEVEL = 2
RAW_DEFLATE = -15  # deflate without zlib's wrapper: the index's CRC-32 checks the bytes


def write_piece(path, grouped, offsets, cuts):
    """Write the work file of one expand piece; the bytes written.

    grouped: its neighbours' keys (uint64 ranks, or (n, W) keys of W words), those of
    segment t at offsets[t]:offsets[t + 1], in any order; sorted and made distinct in
    place, so its contents are not kept.  offsets: int64, segments + 1.  cuts: int64,
    segments + 1, segment t being the keys whose first word r has cuts[t] <= r < cuts[t + 1].
    A key outside its segment is a ValueError."""
    grouped, offsets, cuts = _checked_arguments(grouped, offsets, cuts)
    segments = offsets.size - 1
    counts = np.empty(segments, np.int64)
    sizes = np.empty(segments, np.int64)
    _sort_groups(grouped, offsets, cuts, counts, sizes)
    wrong = np.flatnonzero(sizes < 0)
    if wrong.size:
        t = int(wrong[0])
        raise ValueError(f"{path}: a key of segment {t}'s group is outside "
                         f"[{cuts[t]}, {cuts[t + 1]})")
    starts = np.zeros(segments + 1, np.int64)
    np.cumsum(sizes, out=starts[1:])
    leb128 = np.empty(int(starts[-1]), np.uint8)
    _leb128_groups(grouped, offsets, cuts, counts, starts, leb128)

    filled = np.flatnonzero(counts)
    index = np.zeros((INDEX_COLUMNS, filled.size), "<i8")
    stored = []
    for j, t in enumerate(filled):
        block = isal_zlib.compress(leb128[starts[t]:starts[t + 1]], DEFLATE_LEVEL, RAW_DEFLATE)
        stored.append(block)
        index[:, j] = (t, cuts[t], cuts[t + 1], counts[t], sizes[t], len(block),
                       crc32(np.frombuffer(block, np.uint8)))
    header = np.zeros(1, HEADER)
    words = 1 if grouped.ndim == 1 else grouped.shape[1]
    header["magic"], header["segments"], header["groups"] = MAGIC, segments, filled.size
    header["words"] = words
    header["crc32"] = index_crc(segments, filled.size, index, words)
    with atomic_file(path) as tmp:
        with open(tmp, "wb") as f:
            f.write(header.tobytes())
            f.write(index.tobytes())
            for block in stored:
                f.write(block)
    return HEADER.itemsize + index.nbytes + sum(len(block) for block in stored)


def kernels(words):
    """What write_piece and PieceFile.read_group call on keys of `words` words, with
    arguments of their types (compiled.prepare)."""
    keys, column = np.zeros((1, words) if words > 1 else 1, np.uint64), np.zeros(1, np.int64)
    return [(_sort_groups, (keys, column, column, column, column)),
            (_leb128_groups, (keys, column, column, column, column, np.zeros(1, np.uint8))),
            (_decode_group, (np.frombuffer(bytes(1), np.uint8), np.uint64(0), np.uint64(1),
                             keys))]


class PieceFile(WorkIndex):
    """A work file written by write_piece, opened for reading: its header and index are
    read and checked here (WorkIndex), a group when asked for (read_group).  No file stays
    open.  A missing, truncated or corrupt file is a LayerError naming it."""

    def read_group(self, t):
        """The keys of segment t's group (uint64 ranks, or rows of W words), sorted ascending
        and distinct: a key this piece reached more than once is there once."""
        shape = (0,) if self.words == 1 else (0, self.words)
        group = self.group(t)
        if group is None:
            return np.empty(shape, np.uint64)
        low, high, count, leb128_bytes, stored_bytes, crc, start = group
        try:
            with open(self.path, "rb") as f:
                f.seek(start)
                stored = f.read(stored_bytes)
        except OSError as err:
            raise LayerError(f"cannot read work file {self.path}: {err.strerror}") from None
        if len(stored) != stored_bytes:
            raise self.corrupt(f"segment {t}'s group is cut short")
        if crc32(np.frombuffer(stored, np.uint8)) != crc:
            raise self.corrupt(f"checksum mismatch in segment {t}'s group")
        try:
            leb128 = isal_zlib.decompress(stored, RAW_DEFLATE, max(leb128_bytes, 1))
        except isal_zlib.error as err:
            raise self.corrupt(f"segment {t}'s group does not inflate ({err})") from None
        ranks = np.empty((count,) + shape[1:], np.uint64)
        if (len(leb128) != leb128_bytes
                or _decode_group(np.frombuffer(leb128, np.uint8), np.uint64(low),
                                 np.uint64(high), ranks) != leb128_bytes):
            raise self.corrupt(f"segment {t}'s group does not decode to {count} keys "
                               f"in [{low}, {high})")
        return ranks


def _checked_arguments(grouped, offsets, cuts):
    """The arguments of write_piece as the kernels take them; ValueError when they do not
    describe groups of segments."""
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    cuts = np.ascontiguousarray(cuts, dtype=np.int64)
    if grouped.dtype != np.uint64 or grouped.ndim not in (1, 2) or \
            not grouped.flags.c_contiguous:
        raise ValueError("grouped must be a contiguous uint64 array of keys")
    if offsets.size < 1 or cuts.size != offsets.size:
        raise ValueError(f"{offsets.size} offsets and {cuts.size} cuts: both must be "
                         f"segments + 1 long")
    if offsets[0] != 0 or offsets[-1] != len(grouped) or np.any(np.diff(offsets) < 0):
        raise ValueError("offsets must rise from 0 to the number of neighbours")
    if cuts[0] < 0 or np.any(np.diff(cuts) < 0):
        raise ValueError("cuts must rise from 0 or more")
    return grouped, offsets, cuts


# -- the kernels ---------------------------------------------------------------------------------
# A group is a slice of `grouped`.  The LEB128 bytes of a gap g: g & 127 | 128 while
# g >= 128 (then g >>= 7), and g itself last.  A key of W words is coded after `nxt`, the
# key before it with its last word plus one (the least key it can be; the segment's first
# at a group's start), word by word: while its words equal nxt's, a gap of 0; at the first
# that differs, its gap from nxt's (not 0), and the words after it whole; the last word's
# gap, from nxt's, may be 0.  One-word keys are so their gaps from the rank before plus one.
# The kernels run in one thread: a piece's neighbours fall in a few groups, one of which
# holds most of the sorting (the others are in order already), and two threads over the
# groups were no faster on two busy cores.

@jit
def _sort_groups(grouped, offsets, cuts, counts, sizes):
    """Sort each group in place and keep its distinct keys at its start: their number into
    counts[t], the bytes of their LEB128 gaps into sizes[t] (-1: a key's first word lies
    outside [cuts[t], cuts[t + 1]))."""
    nxt = np.zeros(key_width(grouped), np.uint64)
    for t in range(offsets.size - 1):
        group = grouped[offsets[t]:offsets[t + 1]]
        counts[t] = sizes[t] = 0
        if len(group) == 0:
            continue
        _radix_sort(group)
        if prefix(group, 0) < cuts[t] or prefix(group, len(group) - 1) >= cuts[t + 1]:
            sizes[t] = -1
            continue
        n = size = 0
        _start(nxt, cuts[t])
        for i in range(len(group)):
            if n and keys_equal(group, i, group, n - 1):
                continue
            copy_key(group, n, group, i)
            n += 1
            size = _code(group, n - 1, nxt, grouped, size, False)
        counts[t], sizes[t] = n, size


@jit
def _leb128_groups(grouped, offsets, cuts, counts, starts, out):
    """The LEB128 gaps of each group's distinct keys (_sort_groups) into out[starts[t]:]."""
    nxt = np.zeros(key_width(grouped), np.uint64)
    for t in range(offsets.size - 1):
        k = starts[t]
        _start(nxt, cuts[t])
        for i in range(offsets[t], offsets[t] + counts[t]):
            k = _code(grouped, i, nxt, out, k, True)


@jit(inline="always")
def _start(nxt, low):
    """nxt at a group's start: the least key of its segment."""
    nxt[:] = 0
    nxt[0] = np.uint64(low)


@jit(inline="always")
def _code(keys, i, nxt, out, k, write):
    """Code key i after nxt (the header above): into out[k:] if write, else only counted;
    the next k.  nxt becomes the key after key i."""
    width = key_width(keys)
    whole = False
    for w in range(width):
        v = word(keys, i, w)
        g = v if whole else v - nxt[w]
        whole = whole or g != np.uint64(0)
        while g >= np.uint64(128):
            if write:
                out[k] = np.uint8((g & np.uint64(127)) | np.uint64(128))
            g >>= np.uint64(7)
            k += 1
        if write:
            out[k] = np.uint8(g)
        k += 1
        nxt[w] = v
    nxt[width - 1] += np.uint64(1)
    return k


@jit
def _decode_group(data, low, high, out):
    """The keys of LEB128 gaps (as _leb128_groups writes them) into out, each first word
    checked to lie in [low, high) and every word below 2^63; the bytes used, or -1 when the
    bytes are not len(out) such keys."""
    width = key_width(out)
    nxt = np.zeros(width, np.uint64)
    _start(nxt, low)
    k = 0
    for i in range(len(out)):
        whole = False
        for w in range(width):
            g = np.uint64(0)
            shift = np.uint64(0)
            while True:
                if k == data.size:
                    return -1
                b = np.uint64(data[k])
                k += 1
                if shift == np.uint64(63) and b > np.uint64(1):
                    return -1  # a gap of more than 64 bits
                g |= (b & np.uint64(127)) << shift
                if b < np.uint64(128):
                    break
                shift += np.uint64(7)
            if whole:
                v = g
            else:
                bound = high if w == 0 else np.uint64(WORD_LIMIT)
                if nxt[w] >= bound or g >= bound - nxt[w]:
                    return -1
                v = nxt[w] + g
                whole = g != np.uint64(0)
            if v >= np.uint64(WORD_LIMIT):
                return -1
            set_word(out, i, w, v)
            nxt[w] = v
        nxt[width - 1] += np.uint64(1)
    return k


@jit
def _radix_sort(a):
    """Sort the keys a in place.  An already sorted array (most groups: the neighbours by a
    move that keeps the order of the piece's keys) is left as it is; otherwise
    kernels.radix_sort from its least first word.  On the 15-puzzle's pieces numpy's sort
    took 40 to 50 ns a neighbour, a radix sort 2 to 8."""
    n = len(a)
    if n < 2:
        return
    in_order = True
    lo = hi = word(a, 0, 0)
    for i in range(1, n):
        if key_less(a, i, a, i - 1):
            in_order = False
        lo = min(lo, word(a, i, 0))
        hi = max(hi, word(a, i, 0))
    if in_order:
        return
    scratch = np.empty_like(a)
    _, in_scratch = radix_sort(a, lo, span_bits(hi - lo), scratch)
    if in_scratch:
        a[:] = scratch
