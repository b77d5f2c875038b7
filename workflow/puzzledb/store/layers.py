"""The layer store: one HDF5 file per BFS depth, and a manifest that marks a database complete.

results/<puzzle>/layers/depth_NNN.h5 holds dataset `ranks` (uint64, sorted ascending,
chunked, shuffled and deflated) and dataset `index` (the first rank of every
chunk, so a lookup reads one chunk): the format, its chunks' coding and the reader Layer
are in layer.py.  A layer is written under a temporary name and renamed,
so a file with the final name is always whole; a CRC-32 of the ranks, kept in the file and in
the manifest, catches the rest.  manifest.json is written last.  (The CRC-32, the definition
hash and the manifest are integrity.py's, shared with the table store, tables.py; what
every kind of store shares, the manifest's reading and verify, is directory.py's.)  Every
file puzzledb writes (layers, manifests, tables, plots) goes through atomic_file.
LayerStore.check_layer is the one full check of a layer: a resuming build uses it to find the
last good layer (good_layers), `puzzledb verify` and the verify rule to scrub a finished
database (scrub, and repair for what it finds).
"""

import shutil
from dataclasses import dataclass

import numpy as np

from puzzledb.errors import LayerError
from puzzledb.paths import MANIFEST
from puzzledb.store import LAYERS, integrity
from puzzledb.store.directory import LayerInfo, StoreDirectory
from puzzledb.store.files import atomic_file, hdf5_file
from puzzledb.store.parts import (
    MAX_PARTS,
    PartError,
    PartedLayer,
    open_layer_file,
    part_path,
    write_mapping,
)
from puzzledb.store.layer import (
    CHUNK,
    COMPRESS_THREADS,
    FILTERS,
    POOL,
    Layer,
    chunks_of,
    encode_chunk,
    ranks_crc,
)


@dataclass
class Verified:
    """What LayerStore.verify checked; printed as its one-line summary."""

    puzzle: str
    layers: int
    total: int
    seconds: float = 0.0

    def __str__(self):
        return (f"{self.puzzle}: verified {self.layers} layers (depths 0..{self.layers - 1}), "
                f"{self.total:,} states: order, counts, CRC-32 and definition hash as the "
                f"manifest lists them ({self.seconds:.1f} s)")


# The chunks of CHUNK keys write_ranks holds at most: its queue of WRITE_QUEUE chunks and
# their deflated copies (at most as large), a chunk being shuffled in each thread, and the
# chunk chunks_of fills with the one it joins them into, and its class sizes (weigh).
WRITE_QUEUE = 4 * COMPRESS_THREADS
WRITE_CHUNKS = 2 * WRITE_QUEUE + COMPRESS_THREADS + 3


def write_bytes(words):
    """Bytes write_ranks holds at most, besides the arrays it is given, for keys of `words`
    words: WRITE_CHUNKS chunks, whatever the size of the file (a chunk is compressed and
    written, and then dropped, as the next ones come; the index keeps a key a chunk)."""
    return WRITE_CHUNKS * CHUNK * 8 * words


def write_ranks(path, chunks, count, attrs, definition_hash, what, exact=True, words=1,
                weigh=None):
    """Write a file of the layer format (layer.py) at `path`, atomically, from an iterable of
    sorted uint64 arrays of keys (ranks, or rows of `words` words): `count` keys in all, or
    at most `count` when not `exact` (a part of a layer, whose size is known once written).
    `attrs` go into the file beside count and integrity's stamp (crc32, definition_hash,
    format_version); with weigh (keys -> the positions they stand for), `positions` too.
    (count, CRC-32, positions or None) of what was written."""
    crc = 0
    written = 0
    positions = None if weigh is None else 0
    index = []
    row = () if words == 1 else (words,)
    with atomic_file(path) as tmp, hdf5_file(tmp) as (f, check_writes):
        # maxshape None lets a small layer still use full-size chunks
        ds = f.create_dataset("ranks", shape=(count, *row), maxshape=(None, *row),
                              dtype=np.uint64, chunks=(CHUNK, *row), **FILTERS)
        pending = []  # (offset, compression job), oldest first

        def write_oldest(n):
            # only the oldest n are awaited: the threads keep compressing the newer
            # chunks meanwhile, and this thread reads out the next ones
            encoded = [(offset, job.result()) for offset, job in pending[:n]]
            check_writes()  # a write failed (a full disk): stop here, not at the end
            for offset, data in encoded:
                ds.id.write_direct_chunk((offset, *(0,) * len(row)), data)
            del pending[:n]

        for chunk in chunks_of(chunks):
            if written + len(chunk) > count:
                raise LayerError(f"{what}: more than the {count} ranks announced")
            # a copy: chunk[0] of keys of several words is a view, which would keep the
            # whole chunk, and so every key written, alive (issue 56)
            index.append(chunk[0].copy())
            crc = ranks_crc(chunk, crc)
            if weigh is not None:
                positions += weigh(chunk)
            pending.append((written, POOL.submit(encode_chunk, chunk)))
            written += len(chunk)
            if len(pending) >= WRITE_QUEUE:
                write_oldest(WRITE_QUEUE // 2)
        write_oldest(len(pending))
        if exact and written != count:
            raise LayerError(f"{what}: {written} ranks written, {count} announced")
        if written != count:
            ds.resize((written, *row))  # the chunks past it were never written
        f.create_dataset("index", data=np.array(index, dtype=np.uint64).reshape(-1, *row))
        weighed = {} if positions is None else dict(positions=positions)
        f.attrs.update(count=written, **attrs, **weighed,
                       **integrity.stamp(crc, definition_hash))
    return written, crc, positions


class IncompleteError(LayerError):
    """A database whose build has not written its manifest: running, or stopped."""


class LayerStore(StoreDirectory):
    """The layers of one puzzle in one directory."""

    kind = LAYERS

    def __init__(self, directory, puzzle):
        super().__init__(directory, puzzle)
        # keys that stand for classes are weighed as they are written: each layer's file and
        # listing say the positions beside the keys (puzzles/symmetric.py)
        self.weigh = (lambda keys: int(puzzle.class_sizes(keys).sum())) \
            if puzzle.symmetric else None

    def write_layer(self, depth, chunks, count, exact=True):
        """Write layer `depth` from an iterable of sorted uint64 arrays totalling `count` (at
        most `count` when not `exact`)."""
        path = self.path(depth)
        count, crc, positions = write_ranks(
            path, chunks, count, dict(puzzle=self.puzzle.name, depth=depth),
            self.definition_hash, f"layer {depth}", exact, self.puzzle.key_words, self.weigh)
        return LayerInfo(depth, count, crc, path.stat().st_size, positions=positions)

    def remove(self, depth):
        """Remove layer `depth`: its file and, if it was written in parts, its parts."""
        self.path(depth).unlink(missing_ok=True)
        shutil.rmtree(self.path(depth).with_suffix(".parts"), ignore_errors=True)

    def write_part(self, depth, part, parts, chunks, bound, low, high, segments):
        """Write part `part` of `parts` of layer `depth` (parts.py): at most `bound` sorted
        ranks, all in [low, high), those of the frontier segments `segments` (a range).  Its
        entry for write_parted: count, crc32, bytes, low, high, first_segment, last_segment."""
        if parts > MAX_PARTS:
            raise LayerError(f"layer {depth}: {parts} parts, more than the {MAX_PARTS} a layer "
                             f"file maps")
        path = part_path(self.directory, depth, part, parts)
        entry = dict(low=int(low), high=int(high), first_segment=segments.start,
                     last_segment=segments.stop)
        count, crc, positions = write_ranks(
            path, chunks, bound, dict(puzzle=self.puzzle.name, depth=depth, part=part,
                                      parts=parts, **entry),
            self.definition_hash, f"layer {depth} part {part}", exact=False,
            words=self.puzzle.key_words, weigh=self.weigh)
        weighed = {} if positions is None else dict(positions=positions)
        return dict(count=count, crc32=crc, bytes=path.stat().st_size, **entry, **weighed)

    def write_parted(self, depth, parts):
        """Write layer `depth` as the map of its parts, once every part is written (`parts`:
        write_part's entries, in order; each part file is checked against its entry)."""
        for q, entry in enumerate(parts):
            with Layer(part_path(self.directory, depth, q, len(parts))) as part:
                if (part.count, part.crc32) != (entry["count"], entry["crc32"]):
                    raise PartError(f"part file {part.path} holds {part.count:,} ranks with "
                                    f"CRC-32 {part.crc32:08x}, not the part written", depth, q,
                                    part.path)
        path = self.path(depth)
        positions = None if self.weigh is None else sum(e["positions"] for e in parts)
        attrs = dict(puzzle=self.puzzle.name, depth=depth)
        if positions is not None:
            attrs["positions"] = positions
        count, crc = write_mapping(path, depth, attrs, self.definition_hash, parts,
                                   self.puzzle.key_words)
        listed = [{k: entry[k] for k in ("count", "crc32", "bytes")} for entry in parts]
        return LayerInfo(depth, count, crc, path.stat().st_size + sum(e["bytes"] for e in parts),
                         listed, positions)

    def open_layer(self, depth):
        path = self.path(depth)
        if not path.exists():
            raise LayerError(f"missing layer file {path}")
        layer = open_layer_file(path)
        if layer.puzzle != self.puzzle.name or layer.depth != depth:
            layer.close()
            raise LayerError(
                f"layer file {path} holds {layer.puzzle} depth {layer.depth}, "
                f"expected {self.puzzle.name} depth {depth}"
            )
        try:
            integrity.check_definition(layer.definition_hash, self.definition_hash,
                                       f"layer file {path}", f" of {self.puzzle.name}")
        except LayerError:
            layer.close()
            raise
        return layer

    def check_layer(self, depth, expected=None, progress=None):
        """Read layer `depth` in full and check it: a file of this puzzle's layer `depth`
        built from this definition (its hash), its ranks whole (Layer.verify: count, order,
        rank space, CRC-32, index) and, given `expected` (the manifest's LayerInfo), the
        count and CRC-32 the manifest lists.  Its LayerInfo; a LayerError with .depth set
        when anything is wrong."""
        try:
            with self.open_layer(depth) as layer:
                layer.verify(self.puzzle.key_bounds(depth if self.puzzle.graded else 0),
                             progress)
                info = LayerInfo(layer.depth, layer.count, layer.crc32,
                                 self.path(depth).stat().st_size, positions=layer.positions)
                if isinstance(layer, PartedLayer):
                    info.parts = [dict(count=layer.part_count(q), crc32=int(layer.part_crc32[q]),
                                       bytes=layer.part_path(q).stat().st_size)
                                  for q in range(layer.parts)]
                    info.bytes += sum(p["bytes"] for p in info.parts)
        except PartError:
            raise
        except LayerError as err:
            raise LayerError(str(err), depth) from None
        if expected is not None and expected.parts is not None and info.parts is not None:
            for q, (mine, listed) in enumerate(zip(info.parts, expected.parts)):
                if (mine["count"], mine["crc32"]) != (listed["count"], listed["crc32"]):
                    path = part_path(self.directory, depth, q, len(info.parts))
                    raise PartError(f"corrupt part file {path}: {mine['count']:,} ranks with "
                                    f"CRC-32 {mine['crc32']:08x}, the manifest lists "
                                    f"{listed['count']:,} with {listed['crc32']:08x}", depth, q,
                                    path)
        if expected is not None and (info.count, info.crc32) != (expected.count,
                                                                 expected.crc32):
            raise LayerError(
                f"corrupt layer file {self.path(depth)}: {info.count:,} ranks with CRC-32 "
                f"{info.crc32:08x}, the manifest lists {expected.count:,} with "
                f"{expected.crc32:08x}", depth)
        if (info.positions is None) != (self.weigh is None) or (
                expected is not None and info.positions != expected.positions):
            raise LayerError(
                f"corrupt layer file {self.path(depth)}: it says {info.positions} positions "
                f"for its {info.count:,} classes, the manifest "
                f"{None if expected is None else expected.positions}", depth)
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

    def scrub(self, progress=None):
        """The scrub of `puzzledb verify`: the manifest, then every layer it lists read in
        full and checked against it (check_layer); a Verified, else the first LayerError
        (its depth: the layer at fault; None: the manifest; a PartError: a part).  Without
        a manifest the layers present are checked, and then the database is incomplete (a
        LayerError no repair mends: a build is under way, or was stopped)."""
        complete = self.manifest_path().exists()
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
        if not complete:
            have = f"layers 0..{len(expected) - 1} are whole" if expected else "no layers"
            raise IncompleteError(
                f"no complete database in {self.directory} (no {MANIFEST}; {have}): a build "
                f"is running or was stopped, finish it with snakemake or `puzzledb build "
                f"{self.puzzle.name}`")
        return Verified(self.puzzle.name, len(expected), total)

    def repair(self, err, remove):
        """What the scrub's `err` finds at fault, and what to do: `puzzledb verify --repair`,
        or with `remove` what it did: a bad part removed with the manifest (the next build
        rebuilds the part alone), a bad layer with the layers after it and the manifest
        (prune: the next build resumes after the last good layer), a bad manifest alone."""
        name = self.puzzle.name
        if isinstance(err, IncompleteError):
            return "", None  # its message says what to do
        if isinstance(err, PartError):
            if remove:
                err.path.unlink(missing_ok=True)
                self.manifest_path().unlink(missing_ok=True)
                return (f"part {err.part} of layer {err.depth} is bad: ",
                        f"removed it and the manifest: the next build (snakemake, or "
                        f"`puzzledb build {name}`) rebuilds that part alone")
            return (f"part {err.part} of layer {err.depth} is bad: ",
                    f"`puzzledb verify {name} --repair` removes it and the manifest")
        if err.depth is None:
            if remove:
                self.manifest_path().unlink(missing_ok=True)
                return ("the manifest is bad: ", "removed it: the next build checks every "
                        "layer and writes it again")
            return "the manifest is bad: ", f"`puzzledb verify {name} --repair` removes it"
        if remove:
            self.prune(err.depth)
            return (f"layer {err.depth} is bad: ", f"removed it, the layers after it and the "
                    f"manifest: the next build (snakemake, or `puzzledb build {name}`) "
                    f"resumes after layer {err.depth - 1}")
        return (f"layer {err.depth} is bad: ", f"`puzzledb verify {name} --repair` removes "
                f"it, the layers after it and the manifest")

    def _layers_present(self):
        """How many layer files 0, 1, ... are present in a row."""
        depth = 0
        while self.path(depth).exists():
            depth += 1
        return depth
