"""The layer store: one HDF5 file per BFS depth, and a manifest that marks a database complete.

results/<puzzle>/layers/depth_NNN.h5 holds dataset `ranks` (uint64, sorted ascending,
chunked, shuffled and deflated) and dataset `index` (the first rank of every
chunk, so a lookup reads one chunk).  A layer is written under a temporary name and renamed,
so a file with the final name is always whole; a CRC-32 of the ranks, kept in the file and in
the manifest, catches the rest.  manifest.json is written last.  Every file puzzledb writes
(layers, manifests, tables, plots) goes through atomic_file.  LayerStore.check_layer is the
one full check of a layer: a resuming build uses it to find the last good layer
(good_layers), `puzzledb verify` and the verify rule to scrub a finished database (verify).
"""

import errno
import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

import h5py
import numpy as np
from isal import isal_zlib

from .errors import LayerError, one_line
from .files import allocate, atomic_file, free_bytes, write_text, writer_gone
from .puzzle import FORMAT_VERSION

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
MANIFEST = "manifest.json"
# The threads that deflate the chunks of a layer being written and inflate those of a long
# read (ISA-L and numpy's copies run without the GIL); created when first used.
_POOL = ThreadPoolExecutor(COMPRESS_THREADS)


@dataclass
class LayerInfo:
    depth: int
    count: int
    crc32: int
    bytes: int = 0  # the size of its file


@dataclass
class Verified:
    """What LayerStore.verify checked; printed as its one-line summary."""

    puzzle: str
    layers: int
    total: int
    seconds: float

    def __str__(self):
        return (f"{self.puzzle}: verified {self.layers} layers (depths 0..{self.layers - 1}), "
                f"{self.total:,} states: order, counts, CRC-32 and definition hash as the "
                f"manifest lists them ({self.seconds:.1f} s)")


def layer_name(depth):
    return f"depth_{depth:03d}.h5"


def _crc(ranks, crc=0):
    """The CRC-32 of ranks as little-endian uint64 (zlib's CRC-32, computed by ISA-L)."""
    return isal_zlib.crc32(np.ascontiguousarray(ranks, dtype="<u8").view(np.uint8), crc)


def _encode_chunk(ranks):
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


def _decode_chunk(data):
    """The CHUNK ranks of one chunk as _encode_chunk stores it (deflated, shuffled)."""
    raw = np.frombuffer(isal_zlib.decompress(data), dtype=np.uint8)
    if raw.size != CHUNK * 8:
        raise ValueError(f"a chunk of {raw.size} bytes, not {CHUNK * 8}")
    return np.ascontiguousarray(raw.reshape(8, CHUNK).T).view("<u8").reshape(CHUNK)


def _filtered_as_written(dataset):
    """Whether the dataset's chunks are what _encode_chunk makes (CHUNK uint64 ranks,
    shuffled, deflated, nothing else), so that Layer can decode them itself."""
    return (dataset.chunks == (CHUNK,) and dataset.dtype == np.dtype("<u8")
            and dataset.compression == "gzip" and dataset.shuffle
            and not dataset.fletcher32 and dataset.scaleoffset is None)


def _chunks_of(blocks):
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


class Layer:
    """One stored layer, opened for reading.  Use as a context manager or call close()."""

    def __init__(self, path):
        self.path = Path(path)
        try:
            self._file = h5py.File(self.path, "r")
            attrs = self._file.attrs
            self.puzzle = str(attrs["puzzle"])
            self.depth = int(attrs["depth"])
            self.count = int(attrs["count"])
            self.crc32 = int(attrs["crc32"])
            self.definition_hash = str(attrs["definition_hash"])
            self.format_version = int(attrs["format_version"])
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
        decoded by this module (inflated by ISA-L and unshuffled by numpy, the inner chunks
        of a long read in threads) when the file has the filters the writer uses; by HDF5
        otherwise.  The chunks at the two ends of a read are kept (CACHED_CHUNKS of them):
        a lookup, and the next read of a walk through the layer, starts in one."""
        stop = self.count if stop is None else min(stop, self.count)
        try:
            if not self._direct:
                return self._ranks[start:stop]
            if stop <= start:
                return np.empty(0, dtype=np.uint64)
            first, last = start // CHUNK, (stop - 1) // CHUNK
            inner = [self._raw_chunk(c) for c in range(first + 1, last)]
            out = np.empty(stop - start, dtype=np.uint64)

            def fill(c, chunk):  # chunk c's part of out
                lo, hi = max(start, c * CHUNK), min(stop, (c + 1) * CHUNK)
                out[lo - start:hi - start] = chunk[lo - c * CHUNK:hi - c * CHUNK]

            fill(first, self._chunk(first))
            if last > first:
                fill(last, self._chunk(last))
            list(_POOL.map(lambda c, data: fill(c, _decode_chunk(data)),
                           range(first + 1, last), inner))
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

    def _chunk(self, c):
        """Chunk c decoded, from the cache of the last chunks decoded or read now."""
        chunk = self._cache.pop(c, None)
        if chunk is None:
            chunk = _decode_chunk(self._raw_chunk(c))
        self._cache[c] = chunk  # the most recent last
        if len(self._cache) > CACHED_CHUNKS:
            self._cache.pop(next(iter(self._cache)), None)
        return chunk

    def iter_chunks(self, size=CHUNK * 16):
        for start in range(0, self.count, size):
            yield self.ranks(start, min(self.count, start + size))

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
            crc = _crc(block, crc)
            if progress is not None:
                progress(block.size)
        if size is not None and last >= size:
            raise LayerError(f"corrupt layer file {self.path}: rank {last} outside the rank "
                             f"space 0..{size - 1}")
        if crc != self.crc32:
            raise LayerError(f"corrupt layer file {self.path}: checksum mismatch")


@contextmanager
def _hdf5_file_with_room(tmp, count):
    """h5py.File(tmp, "w") for a layer of `count` ranks, and a function room(n) to call
    before HDF5 is handed the first n bytes of chunk data.

    h5py cannot recover from a failure of HDF5 to write: a close that fails raises again
    from destructors, and the next HDF5 call can crash the process.  So when the disk could
    fill up while this layer is written (_disk_may_fill), HDF5 is not let run out of space:
    room() allocates the file's blocks ahead of what HDF5 writes, plus room for the
    metadata it writes when it closes the file, and the file is cut back to what HDF5 used
    once it is complete.  A full disk is then an OSError from the allocation, with HDF5
    untouched.  Otherwise (the usual case) room() does nothing and costs nothing."""
    headroom = (64 << 10) + 128 * (count // CHUNK + 1)  # headers, chunk B-tree, index
    if not _disk_may_fill(tmp.parent, count, headroom):
        with h5py.File(tmp, "w") as f:
            yield f, lambda data_bytes: None
        return
    if free_bytes(tmp.parent) < 2 * headroom:  # HDF5 creates the file, then the room
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    f = h5py.File(tmp, "w")
    fd = None
    allocated = 0

    def room(data_bytes):
        nonlocal allocated
        if data_bytes + headroom > allocated:
            allocate(fd, allocated, data_bytes + headroom - allocated)
            allocated = data_bytes + headroom

    try:
        fd = os.open(tmp, os.O_WRONLY)
        room(0)
        yield f, room
        f.flush()
        used = f.id.get_filesize()  # HDF5's end of allocation, not the allocated blocks
        f.close()
        os.ftruncate(fd, used)
    finally:
        f.close()
        if fd is not None:
            os.close(fd)


def _disk_may_fill(directory, count, headroom):
    """Whether the disk has less free space than twice the most a layer file of `count`
    ranks can take: its raw ranks, deflate's worst case (stored blocks, about 0.1 % more)
    and its metadata.  Twice, for other writers on the same disk."""
    most = count * 8 + (count * 8) // 512 + headroom
    return free_bytes(directory) < 2 * most


class LayerStore:
    """The layers of one puzzle in one directory."""

    def __init__(self, directory, puzzle):
        self.directory = Path(directory)
        self.puzzle = puzzle
        self.definition_hash = puzzle.definition_hash()

    def path(self, depth):
        return self.directory / layer_name(depth)

    def write_layer(self, depth, chunks, count):
        """Write layer `depth` from an iterable of sorted uint64 arrays totalling `count`."""
        crc = 0
        written = 0
        index = []
        path = self.path(depth)
        stored = 0  # bytes of compressed chunks handed to HDF5
        with atomic_file(path) as tmp, _hdf5_file_with_room(tmp, count) as (f, room):
            # maxshape None lets a small layer still use full-size chunks
            ds = f.create_dataset("ranks", shape=(count,), maxshape=(None,), dtype=np.uint64,
                                  chunks=(CHUNK,), **FILTERS)
            pending = []  # (offset, compression job), oldest first

            def write_oldest(n):
                # only the oldest n are awaited: the threads keep compressing the newer
                # chunks meanwhile, and this thread reads out the next ones
                nonlocal stored
                encoded = [(offset, job.result()) for offset, job in pending[:n]]
                stored += sum(len(data) for _, data in encoded)
                room(stored)
                for offset, data in encoded:
                    ds.id.write_direct_chunk((offset,), data)
                del pending[:n]

            for chunk in _chunks_of(chunks):
                if written + chunk.size > count:
                    raise LayerError(f"layer {depth}: more than the {count} ranks announced")
                index.append(int(chunk[0]))
                crc = _crc(chunk, crc)
                pending.append((written, _POOL.submit(_encode_chunk, chunk)))
                written += chunk.size
                if len(pending) >= 4 * COMPRESS_THREADS:
                    write_oldest(2 * COMPRESS_THREADS)
            write_oldest(len(pending))
            if written != count:
                raise LayerError(f"layer {depth}: {written} ranks written, {count} announced")
            f.create_dataset("index", data=np.array(index, dtype=np.uint64))
            f.attrs.update(
                puzzle=self.puzzle.name, depth=depth, count=count, crc32=crc,
                definition_hash=self.definition_hash, format_version=FORMAT_VERSION,
            )
        return LayerInfo(depth, count, crc, self.path(depth).stat().st_size)

    def open_layer(self, depth):
        path = self.path(depth)
        if not path.exists():
            raise LayerError(f"missing layer file {path}")
        layer = Layer(path)
        if layer.puzzle != self.puzzle.name or layer.depth != depth:
            layer.close()
            raise LayerError(
                f"layer file {path} holds {layer.puzzle} depth {layer.depth}, "
                f"expected {self.puzzle.name} depth {depth}"
            )
        if layer.definition_hash != self.definition_hash:
            layer.close()
            raise LayerError(
                f"layer file {path} was built from another definition of {self.puzzle.name}"
            )
        return layer

    def check_layer(self, depth, expected=None, progress=None):
        """Read layer `depth` in full and check it: a file of this puzzle's layer `depth`
        built from this definition (its hash), its ranks whole (Layer.verify: count, order,
        rank space, CRC-32, index) and, given `expected` (the manifest's LayerInfo), the
        count and CRC-32 the manifest lists.  Its LayerInfo; a LayerError with .depth set
        when anything is wrong."""
        try:
            with self.open_layer(depth) as layer:
                layer.verify(self.puzzle.level_size(depth if self.puzzle.graded else 0),
                             progress)
                info = LayerInfo(layer.depth, layer.count, layer.crc32,
                                 self.path(depth).stat().st_size)
        except LayerError as err:
            raise LayerError(str(err), depth) from None
        if expected is not None and (info.count, info.crc32) != (expected.count,
                                                                 expected.crc32):
            raise LayerError(
                f"corrupt layer file {self.path(depth)}: {info.count:,} ranks with CRC-32 "
                f"{info.crc32:08x}, the manifest lists {expected.count:,} with "
                f"{expected.crc32:08x}", depth)
        return info

    def good_layers(self):
        """The stored layers 0, 1, ... that read back whole (LayerInfo each), up to the
        first that is missing or does not pass check_layer.  Reads every layer in full;
        changes nothing."""
        good = []
        while self.path(len(good)).exists():
            try:
                good.append(self.check_layer(len(good)))
            except LayerError:
                break
        return good

    def verify(self, repair=False, progress=None):
        """Scrub the database, as `puzzledb verify` does: the manifest, then every layer it
        lists read in full and checked against it (check_layer).  A Verified summary when
        all is well, else a LayerError naming the first bad layer (its depth and file).
        Without a manifest the layers present are checked and the database is reported
        incomplete.  repair: also remove the first bad layer, the layers after it and the
        manifest (prune; a bad manifest alone is removed), so the next build resumes from
        the last good layer.  progress(n, total) is called as ranks are read."""
        started = time.perf_counter()
        name = self.puzzle.name
        complete = self.manifest_path().exists()
        try:
            if complete:
                expected = self.manifest_layers()
                total = sum(info.count for info in expected)
            else:  # the layers present when the scrub starts, none of them listed
                expected, total = [None] * self._layers_present(), None

            def read(n):
                if progress is not None:
                    progress(n, total)

            for depth, info in enumerate(expected):
                self.check_layer(depth, info, read)
        except LayerError as err:
            where = (f"layer {err.depth} is bad" if err.depth is not None
                     else "the manifest is bad")
            if not repair:
                advice = f"`puzzledb verify {name} --repair` removes it"
                if err.depth is not None:
                    advice += ", the layers after it and the manifest"
            elif err.depth is None:
                self.manifest_path().unlink(missing_ok=True)
                advice = "removed it: the next build checks every layer and writes it again"
            else:
                self.prune(err.depth)
                advice = (f"removed it, the layers after it and the manifest: the next build "
                          f"(snakemake, or `puzzledb build {name}`) resumes after layer "
                          f"{err.depth - 1}")
            raise LayerError(f"{name}: {where}: {err}; {advice}", err.depth) from None
        if not complete:
            have = f"layers 0..{len(expected) - 1} are whole" if expected else "no layers"
            raise LayerError(
                f"{name}: no complete database in {self.directory} (no {MANIFEST}; "
                f"{have}): a build is running or was stopped, finish it with snakemake or "
                f"`puzzledb build {name}`")
        return Verified(name, len(expected), total, time.perf_counter() - started)

    def _layers_present(self):
        """How many layer files 0, 1, ... are present in a row."""
        depth = 0
        while self.path(depth).exists():
            depth += 1
        return depth

    def prune(self, keep):
        """Make the directory hold layers 0..keep-1 only: delete the later layers, the
        manifest, and the temporary files of writers that are gone."""
        self.manifest_path().unlink(missing_ok=True)
        for path in self.directory.glob("depth_*.h5"):
            if int(path.stem.split("_")[1]) >= keep:
                path.unlink()
        for tmp in self.directory.glob("*.tmp"):
            if writer_gone(tmp):
                tmp.unlink(missing_ok=True)

    # -- manifest ----------------------------------------------------------------------
    def manifest_path(self):
        return self.directory / MANIFEST

    def write_manifest(self, infos, **extra):
        manifest = {
            "puzzle": self.puzzle.name,
            "definition_hash": self.definition_hash,
            "format_version": FORMAT_VERSION,
            "max_depth": infos[-1].depth,
            "total": sum(i.count for i in infos),
            "layers": [asdict(i) for i in infos],
            **extra,
        }
        write_text(self.manifest_path(), json.dumps(manifest, indent=1) + "\n")
        return manifest

    def manifest_layers(self):
        """The layers the manifest lists (LayerInfo each), after checking that the manifest
        agrees with itself: depths 0..max_depth in order, counts summing to its total."""
        manifest = self.manifest()
        path = self.manifest_path()
        try:
            infos = [LayerInfo(int(e["depth"]), int(e["count"]), int(e["crc32"]))
                     for e in manifest["layers"]]
            max_depth, total = int(manifest["max_depth"]), int(manifest["total"])
        except (KeyError, TypeError, ValueError) as err:
            raise LayerError(f"corrupt manifest {path}: {one_line(err)}") from None
        if [i.depth for i in infos] != list(range(max_depth + 1)):
            raise LayerError(f"corrupt manifest {path}: its layers are not depths "
                             f"0..{max_depth}")
        if sum(i.count for i in infos) != total:
            raise LayerError(f"corrupt manifest {path}: its layer counts do not sum to its "
                             f"total {total:,}")
        return infos

    def manifest(self):
        """The manifest of a complete database; LayerError if there is none or it is stale."""
        path = self.manifest_path()
        if not path.exists():
            raise LayerError(
                f"no complete database of {self.puzzle.name} in {self.directory} "
                f"(missing {MANIFEST}); build it first"
            )
        try:
            manifest = json.loads(path.read_text())
        except ValueError as err:
            raise LayerError(f"corrupt manifest {path}: {one_line(err)}") from None
        if manifest.get("definition_hash") != self.definition_hash:
            raise LayerError(f"manifest {path} was built from another definition of the puzzle")
        return manifest
