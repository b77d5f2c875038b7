"""The layer store: one HDF5 file per BFS depth, and a manifest that marks a database complete.

results/<puzzle>/layers/depth_NNN.h5 holds dataset `ranks` (uint64, sorted ascending,
chunked, shuffled and deflated) and dataset `index` (the first rank of every
chunk, so a lookup reads one chunk).  A layer is written under a temporary name and renamed,
so a file with the final name is always whole; a CRC-32 of the ranks, kept in the file and in
the manifest, catches the rest.  manifest.json is written last.
"""

import json
import os
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import h5py
import numpy as np

from .puzzle import FORMAT_VERSION, PuzzleError

CHUNK = 1 << 16  # ranks per HDF5 chunk: 512 KiB raw, the unit a lookup decompresses
# HDF5's shuffle then deflate.  The writer applies them itself, chunks compressed in parallel
# threads (zlib releases the GIL), and hands HDF5 the finished chunks; any reader decodes
# them through the declared filters.  Deflate's own Adler-32 catches a corrupt chunk.
FILTERS = dict(compression="gzip", compression_opts=1, shuffle=True)
COMPRESS_THREADS = 2
MANIFEST = "manifest.json"


class LayerError(PuzzleError):
    """A layer file or manifest that is missing, truncated, corrupt or of another puzzle."""


@dataclass
class LayerInfo:
    depth: int
    count: int
    crc32: int


def layer_name(depth):
    return f"depth_{depth:03d}.h5"


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

    def contains(self, rank):
        return bool(self.contains_many(np.array([rank], dtype=np.uint64))[0])

    def contains_many(self, ranks):
        """Membership of each rank (any order), reading only the chunks that can hold them."""
        ranks = np.asarray(ranks, dtype=np.uint64)
        found = np.zeros(ranks.size, dtype=bool)
        if self.count == 0 or ranks.size == 0:
            return found
        chunk_of = np.searchsorted(self._index, ranks, side="right") - 1
        for c in np.unique(chunk_of[chunk_of >= 0]):
            pick = np.flatnonzero(chunk_of == c)
            block = self.ranks(c * CHUNK, min(self.count, (c + 1) * CHUNK))
            at = np.searchsorted(block, ranks[pick])
            at = np.minimum(at, block.size - 1)
            found[pick] = block[at] == ranks[pick]
        return found

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
        self.directory.mkdir(parents=True, exist_ok=True)
        final = self.path(depth)
        tmp = final.with_suffix(".h5.tmp")
        crc = 0
        written = 0
        index = []
        with h5py.File(tmp, "w") as f, ThreadPoolExecutor(COMPRESS_THREADS) as pool:
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
                    raise RuntimeError(f"layer {depth}: more than the {count} ranks announced")
                index.append(int(chunk[0]))
                crc = _crc(chunk, crc)
                pending.append((written, pool.submit(_encode_chunk, chunk)))
                written += chunk.size
                if len(pending) >= 4 * COMPRESS_THREADS:
                    flush()
            flush()
            if written != count:
                raise RuntimeError(f"layer {depth}: {written} ranks written, {count} announced")
            f.create_dataset("index", data=np.array(index, dtype=np.uint64))
            f.attrs.update(
                puzzle=self.puzzle.name, depth=depth, count=count, crc32=crc,
                definition_hash=self.definition_hash, format_version=FORMAT_VERSION,
            )
        os.replace(tmp, final)
        return LayerInfo(depth, count, crc)

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
        """Verify the stored layers 0, 1, ... in turn; the first bad one and everything
        after it (and any leftover temporary file) is deleted.  Returns the good ones."""
        for tmp in self.directory.glob("*.tmp"):
            tmp.unlink()
        good = []
        depth = 0
        while self.path(depth).exists():
            try:
                with self.open_layer(depth) as layer:
                    layer.verify()
                    good.append(LayerInfo(depth, layer.count, layer.crc32))
            except LayerError:
                break
            depth += 1
        self.remove_from(depth)
        return good

    def remove_from(self, depth):
        self.manifest_path().unlink(missing_ok=True)
        for path in self.directory.glob("depth_*.h5"):
            if int(path.stem.split("_")[1]) >= depth:
                path.unlink()

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
        tmp = self.manifest_path().with_suffix(".json.tmp")
        tmp.write_text(json.dumps(manifest, indent=1) + "\n")
        os.replace(tmp, self.manifest_path())
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
