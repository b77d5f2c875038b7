"""One layer file, results/<puzzle>/layers/depth_NNN.h5: its format and the reader Layer.

Dataset `ranks` (uint64, sorted ascending) in chunks of CHUNK ranks with HDF5's standard
shuffle and deflate filters, so any HDF5 reader decodes it; dataset `index` (the first rank
of every chunk, so a lookup reads one chunk); attributes puzzle, depth, count, crc32 (of the
ranks as little-endian uint64), definition_hash, format_version.  A puzzle whose keys are W
>= 2 words (puzzledb/keys.py) stores them as rows: `ranks` of shape (count, W), rows
ascending (word 0 first), chunks of CHUNK rows, `index` of shape (chunks, W), the CRC-32 of
the rows' words in order.  This module encodes and decodes the chunks itself (encode_chunk,
decode_chunk: a compiled loop shuffles, numpy unshuffles, ISA-L deflates and inflates, in
POOL's threads); the store (layers.py) writes the files and keeps the manifest.
"""

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import h5py
import numpy as np
from isal import isal_zlib

from puzzledb import keys
from puzzledb.errors import LayerError, one_line
from puzzledb.store.integrity import check_crc, crc32

CHUNK = 1 << 16  # ranks per HDF5 chunk: 512 KiB raw, the unit a lookup decompresses
CACHED_CHUNKS = 4  # decoded chunks a reader keeps (Layer.ranks)
DECODE_BATCH = 16  # chunks a membership test decodes at a time (8 MiB of keys)
# HDF5's shuffle then deflate, the standard filters every HDF5 reader decodes.  The writer
# applies them itself and hands HDF5 the finished chunks: chunks shuffled by a compiled loop
# (compiled/shuffle.py) and deflated by ISA-L (isal, the zlib stream format, about 6 times
# as fast as zlib's level 1 for files about a fifth larger; docs/benchmarks.md), in
# parallel threads, both without the GIL.  Deflate's own Adler-32 catches a corrupt chunk
# when it is read.
FILTERS = dict(compression="gzip", compression_opts=1, shuffle=True)
DEFLATE_LEVEL = 1  # isal's levels 0-3; 1 is its fastest that still compresses well
COMPRESS_THREADS = 2
# The threads that deflate the chunks of a layer being written and inflate those of a long
# read (ISA-L and numpy's copies run without the GIL); created when first used.
POOL = ThreadPoolExecutor(COMPRESS_THREADS)
# A forked child (multiprocessing's default on Linux) has none of the parent's threads, but
# its copy of POOL would count them as idle and wait for them forever: it starts afresh.
os.register_at_fork(after_in_child=lambda: POOL.__init__(COMPRESS_THREADS))


def read_bytes(words):
    """Bytes an open Layer of keys of `words` words holds at most besides the arrays its reads
    return: its CACHED_CHUNKS decoded chunks, and during a read a chunk being inflated in
    each of POOL's threads (its inflated bytes and its keys).  (A read's raw chunks, deflated,
    are at most as many bytes as the keys it returns: its caller counts them.)"""
    return (CACHED_CHUNKS + 2 * COMPRESS_THREADS) * CHUNK * 8 * words


def ranks_crc(ranks, crc=0):
    """The CRC-32 of ranks as little-endian uint64, whatever the machine's byte order."""
    return crc32(np.asarray(ranks, dtype="<u8"), crc)


def encode_chunk(ranks):
    """One full HDF5 chunk (zero-padded) as the shuffle+deflate filters would store it."""
    if len(ranks) < CHUNK:
        padded = np.zeros((CHUNK, *ranks.shape[1:]), dtype=np.uint64)
        padded[: len(ranks)] = ranks
        ranks = padded
    from puzzledb.compiled.shuffle import shuffle  # numba, loaded by a writer only

    shuffled = np.empty(ranks.size * 8, dtype=np.uint8)
    shuffle(np.ascontiguousarray(ranks, dtype=np.uint64).reshape(-1), shuffled)
    return isal_zlib.compress(shuffled, DEFLATE_LEVEL)


class _Unfiltered(Exception):
    """A chunk stored without the dataset's filters (HDF5 may skip an optional filter)."""


def decode_chunk(data, words=1):
    """The CHUNK keys of one chunk as encode_chunk stores it (deflated, shuffled)."""
    raw = np.frombuffer(isal_zlib.decompress(data), dtype=np.uint8)
    n = CHUNK * words
    if raw.size != n * 8:
        raise ValueError(f"a chunk of {raw.size} bytes, not {n * 8}")
    # byte k of every word from plane k: eight strided writes, not numpy's transpose
    # (which took 1.7 times as long)
    out = np.empty((n, 8), dtype=np.uint8)
    for k, plane in enumerate(raw.reshape(8, n)):
        out[:, k] = plane
    return out.view("<u8").reshape((CHUNK, words) if words > 1 else CHUNK)


def _filtered_as_written(dataset):
    """Whether the dataset's chunks are what encode_chunk makes (CHUNK uint64 keys,
    shuffled, deflated, nothing else), so that Layer can decode them itself."""
    return (dataset.chunks == (CHUNK, *dataset.shape[1:]) and dataset.dtype == np.dtype("<u8")
            and dataset.compression == "gzip" and dataset.shuffle
            and not dataset.fletcher32 and dataset.scaleoffset is None)


def chunks_of(blocks):
    """Re-cut a stream of rank arrays into new CHUNK-sized arrays (the last may be shorter).
    The input arrays may be reused by their producer once the next one is asked for."""
    pending = []
    held = 0
    for block in blocks:
        while len(block):
            take = min(len(block), CHUNK - held)
            pending.append(block[:take].copy())
            held += take
            block = block[take:]
            if held == CHUNK:
                yield pending[0] if len(pending) == 1 else np.concatenate(pending)
                pending, held = [], 0
    if held:
        yield pending[0] if len(pending) == 1 else np.concatenate(pending)


def read_identity(layer, attrs):
    """Set on `layer` what every layer file's attributes say it is: puzzle, depth, count,
    crc32, definition_hash, format_version (a KeyError if one is missing), and positions
    (None unless its keys stand for classes of positions: puzzles/symmetric.py)."""
    layer.positions = int(attrs["positions"]) if "positions" in attrs else None
    layer.puzzle = str(attrs["puzzle"])
    layer.depth = int(attrs["depth"])
    layer.count = int(attrs["count"])
    layer.crc32 = int(attrs["crc32"])
    layer.definition_hash = str(attrs["definition_hash"])
    layer.format_version = int(attrs["format_version"])


class Layer:
    """One stored layer, opened for reading.  Use as a context manager or call close()."""

    def __init__(self, path):
        self.path = Path(path)
        try:
            self._file = h5py.File(self.path, "r")
            read_identity(self, self._file.attrs)
            self._ranks = self._file["ranks"]
            self._index = self._file["index"][:]
            self._direct = _filtered_as_written(self._ranks)
            self._cache = {}  # chunk number -> its ranks, decoded (see ranks)
        except (OSError, KeyError, ValueError) as err:
            raise LayerError(f"corrupt layer file {self.path}: {one_line(err)}") from None
        self.words = self._ranks.shape[1] if self._ranks.ndim == 2 else 1
        self._row = self._ranks.shape[1:]
        if self._ranks.shape[:1] != (self.count,) or self._ranks.dtype != np.uint64 or \
                self._ranks.ndim > 2 or self._index.shape[1:] != self._row:
            raise LayerError(
                f"corrupt layer file {self.path}: ranks has shape {self._ranks.shape}, "
                f"count says {self.count}"
            )

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self._file.close()

    def ranks(self, start=0, stop=None):
        """The sorted ranks (all, or the slice [start, stop)).  The chunks are read raw and
        decoded by this module (inflated by ISA-L and unshuffled by numpy, the chunks of a
        longer read in threads) when the file has the filters the writer uses; by HDF5
        otherwise.  The chunks at the two ends of a read are kept (CACHED_CHUNKS of them):
        a lookup, and the next read of a walk through the layer, starts in one."""
        stop = self.count if stop is None else min(stop, self.count)
        try:
            if not self._direct:
                return self._ranks[start:stop]
            if stop <= start:
                return np.empty((0, *self._row), dtype=np.uint64)
            first, last = start // CHUNK, (stop - 1) // CHUNK
            ends = {first, last}
            cached = {c: self._cache.pop(c) for c in ends if c in self._cache}
            todo = [c for c in range(first, last + 1) if c not in cached]
            out = np.empty((stop - start, *self._row), dtype=np.uint64)

            def fill(c, chunk):  # chunk c's part of out; chunk itself if it is an end
                lo, hi = max(start, c * CHUNK), min(stop, (c + 1) * CHUNK)
                out[lo - start:hi - start] = chunk[lo - c * CHUNK:hi - c * CHUNK]
                return chunk if c in ends else None

            for c, chunk in cached.items():
                fill(c, chunk)
            for c, chunk in [*cached.items(), *zip(todo, self._decoded(todo, fill))]:
                if chunk is not None:
                    self._keep(c, chunk)
            return out
        except _Unfiltered:
            return self._ranks[start:stop]
        except (OSError, ValueError, isal_zlib.error) as err:
            raise self._corrupt(err) from None

    def _decoded(self, cs, each=lambda c, chunk: chunk):
        """each(c, chunk c decoded) for the chunks cs, in order: read raw, then decoded by
        this module, in POOL's threads when there are more than one (a lookup: no thread)."""
        raw = [self._raw_chunk(c) for c in cs]
        if len(cs) == 1:
            return [each(cs[0], decode_chunk(raw[0], self.words))]
        return POOL.map(lambda c, data: each(c, decode_chunk(data, self.words)), cs, raw)

    def _corrupt(self, err):
        return LayerError(f"corrupt layer file {self.path}: {one_line(err)}")

    def _raw_chunk(self, c):
        mask, data = self._ranks.id.read_direct_chunk((c * CHUNK, *(0,) * len(self._row)))
        if mask:  # a chunk HDF5 stored without its filters: not one of ours
            raise _Unfiltered
        return data

    def _keep(self, c, chunk):
        """Keep decoded chunk c among the last CACHED_CHUNKS used (the most recent last)."""
        self._cache[c] = chunk
        if len(self._cache) > CACHED_CHUNKS:
            self._cache.pop(next(iter(self._cache)), None)

    def iter_chunks(self, size=CHUNK * 16):
        for start in range(0, self.count, size):
            yield self.ranks(start, min(self.count, start + size))

    def sampled(self):
        """(positions, keys): every CHUNK-th key and its position, from the index (nothing
        decoded): the layer's quantiles, to CHUNK keys."""
        return np.arange(self._index.size, dtype=np.int64) * CHUNK, self._index

    def ranks_between(self, low, high):
        """The stored keys whose first word r has low <= r < high."""
        return self.ranks(*self.positions_between(low, high))

    def positions_between(self, low, high):
        """(start, stop): the positions in the layer of the keys whose first word r has
        low <= r < high, found by reading at most the two chunks where they begin and end
        (the index gives each chunk's first key)."""
        return self._position(low), self._position(high)

    def _position(self, rank):
        """How many stored keys have a first word smaller than rank."""
        chunk = int(np.searchsorted(keys.prefix(self._index), np.uint64(rank))) - 1
        if chunk < 0:
            return 0
        block = self.ranks(chunk * CHUNK, min(self.count, (chunk + 1) * CHUNK))
        return chunk * CHUNK + int(np.searchsorted(keys.prefix(block), np.uint64(rank)))

    def contains(self, rank):
        return bool(self.contains_many(keys.key_array([rank], self.words))[0])

    def contains_many(self, ranks):
        """Membership of each key (any order), reading only the chunks that can hold them."""
        ranks = keys.key_array(ranks, self.words)
        if self.count == 0 or len(ranks) == 0:
            return np.zeros(len(ranks), dtype=bool)
        if keys.ascending(ranks):
            queries, inverse = ranks, slice(None)
        else:
            queries, inverse = keys.unique(ranks, return_inverse=True)
        member = np.zeros(len(queries), dtype=bool)
        if 4 * len(queries) >= self.count:
            # about as many queries as stored keys: stream the layer once instead
            order = keys.sortable(queries)
            for block in self.iter_chunks():
                stored = keys.sortable(block)
                at = np.minimum(np.searchsorted(order, stored), order.size - 1)
                member[at[order[at] == stored]] = True
            return member[inverse]
        chunk_of = keys.searchsorted(self._index, queries, side="right") - 1
        starts = np.flatnonzero(np.diff(chunk_of, prepend=-2))
        spans = [(a, b) for a, b in zip(starts, [*starts[1:], len(queries)]) if chunk_of[a] >= 0]
        blocks = self._chunks([int(chunk_of[a]) for a, _ in spans])
        for (a, b), block in zip(spans, blocks):
            member[a:b] = keys.member(block, queries[a:b])
        return member[inverse]

    def _chunks(self, cs):
        """The keys of each chunk of cs (chunk numbers, ascending), in order: a lone chunk
        by ranks() (its cache), more a batch at a time decoded in threads (_decoded: the
        deepest positions' routes touch thousands of chunks of a layer)."""
        if len(cs) <= 1 or not self._direct:
            for c in cs:
                yield self.ranks(c * CHUNK, min(self.count, (c + 1) * CHUNK))
            return
        for i in range(0, len(cs), DECODE_BATCH):
            batch = cs[i:i + DECODE_BATCH]
            try:
                decoded = list(self._decoded(batch))
            except _Unfiltered:
                decoded = [self._ranks[c * CHUNK:(c + 1) * CHUNK] for c in batch]
            except (OSError, ValueError, isal_zlib.error) as err:
                raise self._corrupt(err) from None
            for c, block in zip(batch, decoded):
                yield block[:self.count - c * CHUNK]

    def verify(self, bounds=None, progress=None):
        """Read everything back: as many keys as the file says, strictly ascending, each
        word below its bound in `bounds` (the rank space, or each word's values: a key of W
        words) if given, matching the stored CRC-32, and an index that holds the first key
        of every chunk.  progress(n) is called after each block of n keys."""
        if self._index.shape[:1] != (-(-self.count // CHUNK),):
            raise LayerError(f"corrupt layer file {self.path}: index has "
                             f"{len(self._index)} entries for {self.count} ranks")
        crc = 0
        last = None
        read = 0
        for block in self.iter_chunks():
            order = keys.sortable(block)
            if (last is not None and order[0] <= last) or np.any(order[1:] <= order[:-1]):
                raise LayerError(f"corrupt layer file {self.path}: ranks not strictly ascending")
            firsts = block[::CHUNK]  # blocks start on chunk boundaries
            at = read // CHUNK
            if not np.array_equal(firsts, self._index[at:at + len(firsts)]):
                raise LayerError(f"corrupt layer file {self.path}: index does not match the "
                                 f"ranks")
            if bounds is not None:
                self._check_bounds(block, bounds)
            last = order[-1]
            read += len(block)
            crc = ranks_crc(block, crc)
            if progress is not None:
                progress(len(block))
        check_crc(crc, self.crc32, what=f"layer file {self.path}")

    def _check_bounds(self, block, bounds):
        """LayerError unless each word of the keys of block is below its bound."""
        words = block.reshape(len(block), -1)
        for w, bound in enumerate(bounds):
            if bound <= np.iinfo(np.uint64).max and int(words[:, w].max()) >= bound:
                where = "" if self.words == 1 else f"word {w} of "
                raise LayerError(f"corrupt layer file {self.path}: {where}rank "
                                 f"{int(words[:, w].max())} outside the rank space "
                                 f"0..{bound - 1}")
