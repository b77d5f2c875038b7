"""A layer written in parts: each merge job of the frontier search writes its part of a layer
as a file of its own, and the layer's file maps them.

results/<puzzle>/layers/depth_NNN.parts/part_QQQofPPP.h5 is a layer file of its own
(layer.py's format) holding the ranks of one range of the rank space, [low, high), with the
attributes part, parts, low, high and first_segment, last_segment (the frontier segments it
covers).  depth_NNN.h5 then holds no ranks of its own: its dataset `ranks` is an HDF5 virtual
dataset over the parts' in order (relative file names, so the directory can move), which any
HDF5 reader (h5py, h5dump) reads as one sorted array; beside it part_offsets (where each part
starts in the layer), part_bounds (the rank ranges), part_segments and part_crc32, and the
attributes of a layer file with `parts` added.  The layer's CRC-32 is that of all its ranks,
combined from the parts' (so it equals the same layer written in one file).

PartedLayer reads such a layer with Layer's interface, a part at a time through Layer (so
its chunks are decoded as fast as a single file's), opening at most OPEN_PARTS parts at once:
an open virtual dataset keeps every source open, and past the process's open-file limit
HDF5 reads fill values instead of failing.  Its checks name the part at fault
(PartError), so that one part can be rebuilt alone.
"""

from pathlib import Path

import h5py
import numpy as np
from isal import isal_zlib

from puzzledb import keys
from puzzledb.errors import LayerError, one_line
from puzzledb.paths import part_name
from puzzledb.store import integrity
from puzzledb.store.files import atomic_file, hdf5_file
from puzzledb.store.layer import CHUNK, Layer, read_identity

OPEN_PARTS = 16  # part files a PartedLayer keeps open
MAX_PARTS = 999  # part_QQQofPPP.h5; a layer's parts are merge jobs, config `shards` <= this


class PartError(LayerError):
    """A part of a layer written in parts that is missing, corrupt or not the one its layer
    maps: `part` is its number, `path` its file, `depth` the layer's."""

    def __init__(self, message, depth, part, path):
        super().__init__(message, depth)
        self.part, self.path = part, Path(path)


def part_path(directory, depth, part, parts):
    return Path(directory) / part_name(depth, part, parts)


def is_parted(path):
    """Whether the layer file at `path` maps parts (a LayerError if it cannot be read)."""
    try:
        with h5py.File(path, "r") as f:
            return "parts" in f.attrs
    except OSError as err:
        raise LayerError(f"corrupt layer file {path}: {one_line(err)}") from None


def open_layer_file(path):
    """The layer file at `path` opened for reading: a PartedLayer when it maps parts, else a
    Layer (the one way to open a layer file by its path)."""
    return PartedLayer(path) if is_parted(path) else Layer(path)


def write_mapping(path, depth, attrs, definition_hash, parts, words=1):
    """Write the layer file at `path` (atomically) over its parts: `parts` a list of dicts,
    in order, each with count, crc32, low, high, first_segment, last_segment (as the part
    files' attributes say); `attrs` beside count, parts and integrity's stamp; keys of
    `words` words.  The layer's (count, CRC-32)."""
    count = sum(p["count"] for p in parts)
    crc = 0
    for p in parts:
        crc = isal_zlib.crc32_combine(crc, p["crc32"], 8 * words * p["count"])
    offsets = np.concatenate([[0], np.cumsum([p["count"] for p in parts])]).astype(np.int64)
    row = () if words == 1 else (words,)
    layout = h5py.VirtualLayout(shape=(count, *row), dtype=np.uint64, maxshape=(count, *row))
    total = len(parts)
    for q, p in enumerate(parts):
        if p["count"]:
            # a name relative to the layer file: HDF5 looks for it beside that file
            source = h5py.VirtualSource(part_name(depth, q, total), "ranks",
                                        shape=(p["count"], *row))
            layout[offsets[q]:offsets[q + 1]] = source
    with atomic_file(path) as tmp, hdf5_file(tmp) as (f, _):
        f.create_virtual_dataset("ranks", layout, fillvalue=0)
        f.create_dataset("part_offsets", data=offsets)
        f.create_dataset("part_bounds", data=np.array(
            [parts[0]["low"]] + [p["high"] for p in parts], dtype=np.uint64))
        f.create_dataset("part_segments", data=np.array(
            [parts[0]["first_segment"]] + [p["last_segment"] for p in parts], dtype=np.int64))
        f.create_dataset("part_crc32", data=np.array([p["crc32"] for p in parts],
                                                     dtype=np.uint32))
        f.attrs.update(attrs, count=count, parts=total, **integrity.stamp(crc, definition_hash))
    return count, crc


class PartedLayer:
    """A stored layer written in parts, opened for reading: Layer's interface (ranks,
    iter_chunks, positions_between, ranks_between, contains, contains_many, verify)."""

    def __init__(self, path):
        self.path = Path(path)
        try:
            with h5py.File(self.path, "r") as f:
                read_identity(self, f.attrs)
                self.parts = int(f.attrs["parts"])
                self.offsets = f["part_offsets"][:]
                self.bounds = f["part_bounds"][:]
                self.segments = f["part_segments"][:]
                self.part_crc32 = f["part_crc32"][:]
                shape = f["ranks"].shape
        except (OSError, KeyError, ValueError) as err:
            raise LayerError(f"corrupt layer file {self.path}: {one_line(err)}") from None
        self.words = shape[1] if len(shape) == 2 else 1
        self._row = shape[1:]
        if (shape[:1] != (self.count,) or len(shape) > 2 or self.offsets.shape != (self.parts + 1,)
                or int(self.offsets[-1]) != self.count or self.bounds.shape != (self.parts + 1,)
                or np.any(np.diff(self.offsets) < 0) or np.any(self.bounds[1:] < self.bounds[:-1])):
            raise LayerError(f"corrupt layer file {self.path}: its map of {self.parts} parts "
                             f"does not add up to {self.count:,} ranks")
        self._open = {}  # part number -> Layer, the most recently used last

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        for layer in self._open.values():
            layer.close()
        self._open.clear()

    # -- the parts --------------------------------------------------------------------------
    def part_path(self, q):
        return part_path(self.path.parent, self.depth, q, self.parts)

    def part_count(self, q):
        return int(self.offsets[q + 1] - self.offsets[q])

    def part(self, q):
        """Part q opened (a Layer), checked against the map: a PartError if it is missing or
        is not the part the map lists."""
        if q in self._open:
            self._open[q] = self._open.pop(q)
            return self._open[q]
        path = self.part_path(q)
        if not path.exists():
            raise PartError(f"missing part file {path} of layer {self.depth}", self.depth, q, path)
        try:
            layer = Layer(path)
        except LayerError as err:
            raise PartError(str(err), self.depth, q, path) from None
        with h5py.File(path, "r") as f:
            attrs = dict(f.attrs)
        expected = (self.puzzle, self.depth, self.definition_hash, q, self.parts,
                    self.part_count(q), int(self.part_crc32[q]),
                    int(self.bounds[q]), int(self.bounds[q + 1]))
        found = (layer.puzzle, layer.depth, layer.definition_hash, attrs.get("part"),
                 attrs.get("parts"), layer.count, layer.crc32, attrs.get("low"),
                 attrs.get("high"))
        if tuple(map(_plain, found)) != expected:
            layer.close()
            raise PartError(f"corrupt part file {path}: it is not part {q} of {self.parts} of "
                            f"{self.puzzle} layer {self.depth} as {self.path.name} maps it "
                            f"({self.part_count(q):,} ranks, CRC-32 "
                            f"{int(self.part_crc32[q]):08x})", self.depth, q, path)
        self._open[q] = layer
        if len(self._open) > OPEN_PARTS:
            self._open.pop(next(iter(self._open))).close()
        return layer

    def _reading(self, q, call):
        """call(part q): a PartError naming the part when its data is bad."""
        try:
            return call(self.part(q))
        except PartError:
            raise
        except LayerError as err:
            raise PartError(str(err), self.depth, q, self.part_path(q)) from None

    # -- Layer's interface ----------------------------------------------------------------------
    def ranks(self, start=0, stop=None):
        stop = self.count if stop is None else min(stop, self.count)
        if stop <= start:
            return np.empty((0, *self._row), dtype=np.uint64)
        first = int(np.searchsorted(self.offsets, start, side="right")) - 1
        out = []
        for q in range(first, self.parts):
            low = int(self.offsets[q])
            if low >= stop:
                break
            a, b = max(start, low) - low, min(stop, int(self.offsets[q + 1])) - low
            if b > a:
                out.append(self._reading(q, lambda part: part.ranks(a, b)))
        return out[0] if len(out) == 1 else np.concatenate(out)

    def iter_chunks(self, size=CHUNK * 16):
        for q in range(self.parts):
            for start in range(0, self.part_count(q), size):
                stop = min(self.part_count(q), start + size)
                yield self._reading(q, lambda part: part.ranks(start, stop))

    def sampled(self):
        """Layer.sampled of every part, placed in the layer."""
        samples = [self._reading(q, lambda part: part.sampled()) for q in range(self.parts)]
        return (np.concatenate([p + self.offsets[q] for q, (p, _) in enumerate(samples)]),
                np.concatenate([r for _, r in samples]))

    def ranks_between(self, low, high):
        return self.ranks(*self.positions_between(low, high))

    def positions_between(self, low, high):
        return self._position(low), self._position(high)

    def _position(self, rank):
        """How many stored ranks are smaller than rank."""
        q = int(np.searchsorted(self.bounds, np.uint64(rank), side="right")) - 1
        if q < 0:
            return 0
        if q >= self.parts:
            return self.count
        return int(self.offsets[q]) + self._reading(q, lambda part: part._position(rank))

    def contains(self, rank):
        return bool(self.contains_many(keys.key_array([rank], self.words))[0])

    def contains_many(self, ranks):
        ranks = keys.key_array(ranks, self.words)
        member = np.zeros(len(ranks), dtype=bool)
        of_part = np.searchsorted(self.bounds, keys.prefix(ranks), side="right") - 1
        for q in np.unique(of_part):
            if 0 <= q < self.parts and self.part_count(q):
                where = of_part == q
                member[where] = self._reading(int(q), lambda part: part.contains_many(ranks[where]))
        return member

    def verify(self, bounds=None, progress=None):
        """Every part read back in full (Layer.verify) and checked against the map (its count,
        CRC-32 and rank range), and the layer's CRC-32 combined from them: a PartError naming
        the first bad part."""
        crc = 0
        for q in range(self.parts):
            part = self.part(q)
            self._reading(q, lambda part: part.verify(bounds, progress))
            if part.count:
                first = int(keys.prefix(part.ranks(0, 1))[0])
                last = int(keys.prefix(part.ranks(part.count - 1))[0])
                if first < int(self.bounds[q]) or last >= int(self.bounds[q + 1]):
                    raise PartError(f"corrupt part file {self.part_path(q)}: ranks outside its "
                                    f"range", self.depth, q, self.part_path(q))
            crc = isal_zlib.crc32_combine(crc, part.crc32, 8 * self.words * part.count)
        if crc != self.crc32:
            raise LayerError(f"corrupt layer file {self.path}: its parts' CRC-32 {crc:08x}, "
                             f"the file says {self.crc32:08x}")


def _plain(value):
    """An HDF5 attribute as a plain Python value (numpy scalars as int, bytes as str)."""
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, np.generic):
        return value.item()
    return value
