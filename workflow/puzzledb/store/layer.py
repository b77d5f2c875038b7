"""One layer file, results/<puzzle>/layers/depth_NNN.h5: its format and the reader Layer.

Dataset `ranks` (uint64, sorted ascending) in chunks of CHUNK ranks with HDF5's standard
shuffle and deflate filters, so any HDF5 reader decodes it; dataset `index` (the first rank
of every chunk, so a lookup reads one chunk); attributes puzzle, depth, count, crc32 (of the
ranks as little-endian uint64), definition_hash, format_version.  This module encodes and
decodes the chunks itself (encode_chunk, decode_chunk: numpy shuffles, ISA-L deflates and
inflates, in POOL's threads); the store (layers.py) writes the files and keeps the manifest.
"""

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import h5py
import numpy as np
from isal import isal_zlib

from puzzledb.errors import LayerError, one_line
from puzzledb.store.integrity import check_crc, crc32

CHUNK = 1 << 16  # ranks per HDF5 chunk: 512 KiB raw, the unit a lookup decompresses
CACHED_CHUNKS = 4  # decoded chunks a reader keeps (Layer.ranks)
# HDF5's shuffle then deflate, the standard filters every HDF5 reader decodes.  The writer
# applies them itself and hands HDF5 the finished chunks: chunks shuffled by numpy and
# deflated by ISA-L (isal, the zlib stream format, about 6 times as fast as zlib's level 1
# for files about a fifth larger; docs/benchmarks.md), in parallel threads, both without the
# GIL.  Deflate's own Adler-32 catches a corrupt chunk when it is read.
FILTERS = dict(compression="gzip", compression_opts=1, shuffle=True)
DEFLATE_LEVEL = 1  # isal's levels 0-3; 1 is its fastest that still compresses well
COMPRESS_THREADS = 2
# The threads that deflate the chunks of a layer being written and inflate those of a long
# read (ISA-L and numpy's copies run without the GIL); created when first used.
POOL = ThreadPoolExecutor(COMPRESS_THREADS)
# A forked child (multiprocessing's default on Linux) has none of the parent's threads, but
# its copy of POOL would count them as idle and wait for them forever: it starts afresh.
os.register_at_fork(after_in_child=lambda: POOL.__init__(COMPRESS_THREADS))


def ranks_crc(ranks, crc=0):
    """The CRC-32 of ranks as little-endian uint64, whatever the machine's byte order."""
    return crc32(np.asarray(ranks, dtype="<u8"), crc)


def encode_chunk(ranks):
    """One full HDF5 chunk (zero-padded) as the shuffle+deflate filters would store it."""
    if ranks.size < CHUNK:
        padded = np.zeros(CHUNK, dtype="<u8")
        padded[: ranks.size] = ranks
        ranks = padded
    shuffled = np.ascontiguousarray(ranks.astype("<u8", copy=False).view(np.uint8)
                                    .reshape(CHUNK, 8).T)
    return isal_zlib.compress(shuffled, DEFLATE_LEVEL)


class _Unfiltered(Exception):
    """A chunk stored without the dataset's filters (HDF5 may skip an optional filter)."""


def decode_chunk(data):
    """The CHUNK ranks of one chunk as encode_chunk stores it (deflated, shuffled)."""
    raw = np.frombuffer(isal_zlib.decompress(data), dtype=np.uint8)
    if raw.size != CHUNK * 8:
        raise ValueError(f"a chunk of {raw.size} bytes, not {CHUNK * 8}")
    # byte k of every rank from plane k: eight strided writes, not numpy's transpose
    # (which took 1.7 times as long)
    out = np.empty((CHUNK, 8), dtype=np.uint8)
    for k, plane in enumerate(raw.reshape(8, CHUNK)):
        out[:, k] = plane
    return out.view("<u8").reshape(CHUNK)


def _filtered_as_written(dataset):
    """Whether the dataset's chunks are what encode_chunk makes (CHUNK uint64 ranks,
    shuffled, deflated, nothing else), so that Layer can decode them itself."""
    return (dataset.chunks == (CHUNK,) and dataset.dtype == np.dtype("<u8")
            and dataset.compression == "gzip" and dataset.shuffle
            and not dataset.fletcher32 and dataset.scaleoffset is None)


def chunks_of(blocks):
    """Re-cut a stream of rank arrays into new CHUNK-sized arrays (the last may be shorter).
    The input arrays may be reused by their producer once the next one is asked for."""
    pending = []
    held = 0
    for block in blocks:
        while block.size:
            take = min(block.size, CHUNK - held)
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
    crc32, definition_hash, format_version (a KeyError if one is missing)."""
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
        if self._ranks.shape != (self.count,) or self._ranks.dtype != np.uint64:
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
                return np.empty(0, dtype=np.uint64)
            first, last = start // CHUNK, (stop - 1) // CHUNK
            ends = {first, last}
            cached = {c: self._cache.pop(c) for c in ends if c in self._cache}
            todo = [c for c in range(first, last + 1) if c not in cached]
            raw = [self._raw_chunk(c) for c in todo]
            out = np.empty(stop - start, dtype=np.uint64)

            def fill(c, chunk):  # chunk c's part of out; chunk itself if it is an end
                lo, hi = max(start, c * CHUNK), min(stop, (c + 1) * CHUNK)
                out[lo - start:hi - start] = chunk[lo - c * CHUNK:hi - c * CHUNK]
                return chunk if c in ends else None

            for c, chunk in cached.items():
                fill(c, chunk)
            if len(todo) == 1:  # a lookup: no thread
                decoded = [fill(todo[0], decode_chunk(raw[0]))]
            else:
                decoded = POOL.map(lambda c, data: fill(c, decode_chunk(data)), todo, raw)
            for c, chunk in [*cached.items(), *zip(todo, decoded)]:
                if chunk is not None:
                    self._keep(c, chunk)
            return out
        except _Unfiltered:
            return self._ranks[start:stop]
        except (OSError, ValueError, isal_zlib.error) as err:
            raise LayerError(f"corrupt layer file {self.path}: {one_line(err)}") from None

    def _raw_chunk(self, c):
        mask, data = self._ranks.id.read_direct_chunk((c * CHUNK,))
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
        """(positions, ranks): every CHUNK-th rank and its position, from the index (nothing
        decoded): the layer's quantiles, to CHUNK ranks."""
        return np.arange(self._index.size, dtype=np.int64) * CHUNK, self._index

    def ranks_between(self, low, high):
        """The stored ranks r with low <= r < high."""
        return self.ranks(*self.positions_between(low, high))

    def positions_between(self, low, high):
        """(start, stop): the positions in the layer of the ranks r with low <= r < high,
        found by reading at most the two chunks where they begin and end (the index gives
        each chunk's first rank)."""
        return self._position(low), self._position(high)

    def _position(self, rank):
        """How many stored ranks are smaller than rank."""
        chunk = int(np.searchsorted(self._index, np.uint64(rank), side="right")) - 1
        if chunk < 0:
            return 0
        block = self.ranks(chunk * CHUNK, min(self.count, (chunk + 1) * CHUNK))
        return chunk * CHUNK + int(np.searchsorted(block, np.uint64(rank)))

    def contains(self, rank):
        return bool(self.contains_many(np.array([rank], dtype=np.uint64))[0])

    def contains_many(self, ranks):
        """Membership of each rank (any order), reading only the chunks that can hold them."""
        ranks = np.asarray(ranks, dtype=np.uint64)
        if self.count == 0 or ranks.size == 0:
            return np.zeros(ranks.size, dtype=bool)
        if np.all(ranks[1:] > ranks[:-1]):
            queries, inverse = ranks, slice(None)
        else:
            queries, inverse = np.unique(ranks, return_inverse=True)
        member = np.zeros(queries.size, dtype=bool)
        if 4 * queries.size >= self.count:
            # about as many queries as stored ranks: stream the layer once instead
            for block in self.iter_chunks():
                at = np.minimum(np.searchsorted(queries, block), queries.size - 1)
                member[at[queries[at] == block]] = True
            return member[inverse]
        chunk_of = np.searchsorted(self._index, queries, side="right") - 1
        starts = np.flatnonzero(np.diff(chunk_of, prepend=-2))
        for a, b in zip(starts, list(starts[1:]) + [queries.size]):
            c = chunk_of[a]
            if c < 0:
                continue
            block = self.ranks(c * CHUNK, min(self.count, (c + 1) * CHUNK))
            at = np.minimum(np.searchsorted(block, queries[a:b]), block.size - 1)
            member[a:b] = block[at] == queries[a:b]
        return member[inverse]

    def verify(self, size=None, progress=None):
        """Read everything back: as many ranks as the file says, strictly ascending, below
        `size` (the rank space) if given, matching the stored CRC-32, and an index that
        holds the first rank of every chunk.  progress(n) is called after each block of n
        ranks."""
        if self._index.shape != (-(-self.count // CHUNK),):
            raise LayerError(f"corrupt layer file {self.path}: index has "
                             f"{self._index.size} entries for {self.count} ranks")
        crc = 0
        last = -1
        read = 0
        for block in self.iter_chunks():
            if int(block[0]) <= last or np.any(block[1:] <= block[:-1]):
                raise LayerError(f"corrupt layer file {self.path}: ranks not strictly ascending")
            firsts = block[::CHUNK]  # blocks start on chunk boundaries
            at = read // CHUNK
            if not np.array_equal(firsts, self._index[at:at + firsts.size]):
                raise LayerError(f"corrupt layer file {self.path}: index does not match the "
                                 f"ranks")
            last = int(block[-1])
            read += block.size
            crc = ranks_crc(block, crc)
            if progress is not None:
                progress(block.size)
        if size is not None and last >= size:
            raise LayerError(f"corrupt layer file {self.path}: rank {last} outside the rank "
                             f"space 0..{size - 1}")
        check_crc(crc, self.crc32, what=f"layer file {self.path}")
