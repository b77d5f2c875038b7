"""The layer store: one HDF5 file per BFS depth, and a manifest that marks a database complete.

results/<puzzle>/layers/depth_NNN.h5 holds dataset `ranks` (uint64, sorted ascending,
chunked, shuffled and deflated) and dataset `index` (the first rank of every
chunk, so a lookup reads one chunk).  A layer is written under a temporary name and renamed,
so a file with the final name is always whole; a CRC-32 of the ranks, kept in the file and in
the manifest, catches the rest.  manifest.json is written last.  Every file puzzledb writes
(layers, manifests, tables, plots) goes through atomic_file.
"""

import json
import os
import socket
import zlib
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

import h5py
import numpy as np

from .errors import LayerError, StorageError
from .puzzle import FORMAT_VERSION

CHUNK = 1 << 16  # ranks per HDF5 chunk: 512 KiB raw, the unit a lookup decompresses
# HDF5's shuffle then deflate.  The writer applies them itself, chunks compressed in parallel
# threads (zlib releases the GIL), and hands HDF5 the finished chunks; any reader decodes
# them through the declared filters.  Deflate's own Adler-32 catches a corrupt chunk.
FILTERS = dict(compression="gzip", compression_opts=1, shuffle=True)
COMPRESS_THREADS = 2
MANIFEST = "manifest.json"


@dataclass
class LayerInfo:
    depth: int
    count: int
    crc32: int
    bytes: int = 0  # the size of its file


def layer_name(depth):
    return f"depth_{depth:03d}.h5"


def temporary_name(path):
    """Where `path` is written before it is renamed: a name unique to this writer (host and
    process), so that two writers never share a temporary file."""
    path = Path(path)
    return path.with_name(f"{path.name}.{os.getpid()}@{socket.gethostname()}.tmp")


@contextmanager
def atomic_file(path):
    """Yield a temporary path beside `path`; rename it to `path` when the block succeeds and
    remove it when it fails, so a file with the final name is always whole.  A failure to
    write (a full disk, no permission) becomes a StorageError naming the file."""
    path = Path(path)
    tmp = temporary_name(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        yield tmp
        os.replace(tmp, path)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        raise StorageError(f"cannot write {path}: {err.strerror or _one_line(err)}") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_text(path, text):
    """Write a text file through atomic_file."""
    with atomic_file(path) as tmp:
        Path(tmp).write_text(text)


def _writer_gone(tmp):
    """True when the writer named in a temporary file's name (see temporary_name) ran on
    this host and is no longer alive, or the name is not one of ours."""
    try:
        writer, host = tmp.name.removesuffix(".tmp").rsplit("@", 1)
        pid = int(writer.rsplit(".", 1)[1])
    except (IndexError, ValueError):
        return True
    if host != socket.gethostname():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def _crc(ranks, crc=0):
    return zlib.crc32(np.ascontiguousarray(ranks, dtype="<u8").view(np.uint8), crc)


def _encode_chunk(ranks):
    """One full HDF5 chunk (zero-padded) as the shuffle+deflate filters would store it."""
    padded = np.zeros(CHUNK, dtype="<u8")
    padded[: ranks.size] = ranks
    shuffled = padded.view(np.uint8).reshape(CHUNK, 8).T.tobytes()
    return zlib.compress(shuffled, FILTERS["compression_opts"])


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
        except (OSError, KeyError, ValueError) as err:
            raise LayerError(f"corrupt layer file {self.path}: {_one_line(err)}") from None
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
        """The sorted ranks (all, or the slice [start, stop))."""
        try:
            return self._ranks[start:stop]
        except (OSError, ValueError) as err:
            raise LayerError(f"corrupt layer file {self.path}: {_one_line(err)}") from None

    def iter_chunks(self, size=CHUNK * 16):
        for start in range(0, self.count, size):
            yield self.ranks(start, min(self.count, start + size))

    def ranks_between(self, low, high):
        """The stored ranks r with low <= r < high, reading only the chunks that can hold
        them (the index gives each chunk's first rank)."""
        if self.count == 0 or high <= low:
            return np.zeros(0, dtype=np.uint64)
        first = max(int(np.searchsorted(self._index, np.uint64(low), side="right")) - 1, 0)
        last = int(np.searchsorted(self._index, np.uint64(high), side="left"))
        block = self.ranks(first * CHUNK, min(self.count, last * CHUNK))
        return block[np.searchsorted(block, np.uint64(low)):np.searchsorted(block, np.uint64(high))]

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

    def verify(self):
        """Read everything back: sorted, unique, and matching the stored CRC."""
        crc = 0
        last = -1
        for block in self.iter_chunks():
            if block.size and (int(block[0]) <= last or np.any(block[1:] <= block[:-1])):
                raise LayerError(f"corrupt layer file {self.path}: ranks not strictly ascending")
            if block.size:
                last = int(block[-1])
            crc = _crc(block, crc)
        if crc != self.crc32:
            raise LayerError(f"corrupt layer file {self.path}: checksum mismatch")


def _one_line(err):
    return " ".join(str(err).split()) or type(err).__name__


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
        with atomic_file(self.path(depth)) as tmp, h5py.File(tmp, "w") as f, \
                ThreadPoolExecutor(COMPRESS_THREADS) as pool:
            # maxshape None lets a small layer still use full-size chunks
            ds = f.create_dataset("ranks", shape=(count,), maxshape=(None,), dtype=np.uint64,
                                  chunks=(CHUNK,), **FILTERS)
            pending = []

            def flush():
                for offset, job in pending:
                    ds.id.write_direct_chunk((offset,), job.result())
                pending.clear()

            for chunk in _chunks_of(chunks):
                if written + chunk.size > count:
                    raise LayerError(f"layer {depth}: more than the {count} ranks announced")
                index.append(int(chunk[0]))
                crc = _crc(chunk, crc)
                pending.append((written, pool.submit(_encode_chunk, chunk)))
                written += chunk.size
                if len(pending) >= 4 * COMPRESS_THREADS:
                    flush()
            flush()
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

    def good_layers(self):
        """The stored layers 0, 1, ... that read back whole (LayerInfo each), up to the
        first that is missing or does not verify.  Reads every layer in full; changes
        nothing."""
        good = []
        while self.path(len(good)).exists():
            try:
                good.append(self.verified(len(good)))
            except LayerError:
                break
        return good

    def verified(self, depth):
        """The LayerInfo of layer `depth` once it has been read back in full and checked;
        LayerError if it is missing or damaged."""
        with self.open_layer(depth) as layer:
            layer.verify()
            return LayerInfo(depth, layer.count, layer.crc32, self.path(depth).stat().st_size)

    def prune(self, keep):
        """Make the directory hold layers 0..keep-1 only: delete the later layers, the
        manifest, and the temporary files of writers that are gone."""
        self.manifest_path().unlink(missing_ok=True)
        for path in self.directory.glob("depth_*.h5"):
            if int(path.stem.split("_")[1]) >= keep:
                path.unlink()
        for tmp in self.directory.glob("*.tmp"):
            if _writer_gone(tmp):
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
            raise LayerError(f"corrupt manifest {path}: {_one_line(err)}") from None
        if manifest.get("definition_hash") != self.definition_hash:
            raise LayerError(f"manifest {path} was built from another definition of the puzzle")
        return manifest
