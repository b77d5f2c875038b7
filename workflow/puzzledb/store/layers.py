"""The layer store: one HDF5 file per BFS depth, and a manifest that marks a database complete.

results/<puzzle>/layers/depth_NNN.h5 holds dataset `ranks` (uint64, sorted ascending,
chunked, shuffled and deflated) and dataset `index` (the first rank of every
chunk, so a lookup reads one chunk): the format, its chunks' coding and the reader Layer
are in layer.py.  A layer is written under a temporary name and renamed,
so a file with the final name is always whole; a CRC-32 of the ranks, kept in the file and in
the manifest, catches the rest.  manifest.json is written last.  (The CRC-32, the definition
hash and the manifest are integrity.py's, shared with the table store, tables.py.)  Every file
puzzledb writes (layers, manifests, tables, plots) goes through atomic_file.
LayerStore.check_layer is the one full check of a layer: a resuming build uses it to find the
last good layer (good_layers), `puzzledb verify` and the verify rule to scrub a finished
database (verify).
"""

import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from puzzledb.errors import LayerError, one_line
from puzzledb.paths import MANIFEST, layer_name
from puzzledb.store import LAYERS, integrity
from puzzledb.store.files import atomic_file, hdf5_file, writer_gone
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
from puzzledb.puzzles.base import FORMAT_VERSION


@dataclass
class LayerInfo:
    depth: int
    count: int
    crc32: int
    bytes: int = 0  # the size of its file (and of its parts' files)
    # a layer written in parts (parts.py): each part's count, crc32 and bytes; None: one file
    parts: list | None = None
    # the positions its keys stand for, when they stand for classes (the class sizes summed:
    # puzzles/symmetric.py); None: each key is one position
    positions: int | None = None

    def listed(self):
        """As the manifest and the step records list it (no `parts` for a single file)."""
        return {k: v for k, v in asdict(self).items() if v is not None}


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
            index.append(chunk[0])
            crc = ranks_crc(chunk, crc)
            if weigh is not None:
                positions += weigh(chunk)
            pending.append((written, POOL.submit(encode_chunk, chunk)))
            written += len(chunk)
            if len(pending) >= 4 * COMPRESS_THREADS:
                write_oldest(2 * COMPRESS_THREADS)
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


class LayerStore:
    """The layers of one puzzle in one directory."""

    kind = LAYERS  # the config's `store:` value (store/__init__.py: the others)
    contents = ""  # what `puzzledb info` adds about it: nothing, a layer store is the default

    def __init__(self, directory, puzzle):
        self.directory = Path(directory)
        self.puzzle = puzzle
        self.definition_hash = puzzle.definition_hash()
        # keys that stand for classes are weighed as they are written: each layer's file and
        # listing say the positions beside the keys (puzzles/symmetric.py)
        self.weigh = (lambda keys: int(puzzle.class_sizes(keys).sum())) \
            if puzzle.symmetric else None

    def path(self, depth):
        return self.directory / layer_name(depth)

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
        except PartError as err:
            where = f"part {err.part} of layer {err.depth} is bad"
            if not repair:
                advice = f"`puzzledb verify {name} --repair` removes it and the manifest"
            else:
                err.path.unlink(missing_ok=True)
                self.manifest_path().unlink(missing_ok=True)
                advice = (f"removed it and the manifest: the next build (snakemake, or "
                          f"`puzzledb build {name}`) rebuilds that part alone")
            raise PartError(f"{name}: {where}: {err}; {advice}", err.depth, err.part,
                            err.path) from None
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
        for path in self.directory.glob("depth_*.parts"):
            if int(path.name[len("depth_"):-len(".parts")]) >= keep:
                shutil.rmtree(path)
        for tmp in self.directory.glob("*.tmp"):
            if writer_gone(tmp):
                tmp.unlink(missing_ok=True)

    # -- manifest ----------------------------------------------------------------------
    def manifest_path(self):
        return integrity.manifest_path(self.directory)

    def write_manifest(self, infos, **extra):
        """Write the manifest, last: after every layer it lists (`infos`, LayerInfo each)."""
        return integrity.write_manifest(self.directory, {
            "puzzle": self.puzzle.name,
            "definition_hash": self.definition_hash,
            "format_version": FORMAT_VERSION,
            "max_depth": infos[-1].depth,
            "total": sum(i.count for i in infos),
            "layers": [i.listed() for i in infos],
            **({} if self.weigh is None else
               {"positions": sum(i.positions for i in infos)}),
            **extra,
        })

    def manifest_layers(self):
        """The layers the manifest lists (LayerInfo each), after checking that the manifest
        agrees with itself: depths 0..max_depth in order, counts summing to its total."""
        manifest = self.manifest()
        path = self.manifest_path()
        try:
            infos = [LayerInfo(int(e["depth"]), int(e["count"]), int(e["crc32"]),
                               parts=_listed_parts(e.get("parts")),
                               positions=None if e.get("positions") is None
                               else int(e["positions"]))
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
        manifest = integrity.read_manifest(
            self.directory, f"complete database of {self.puzzle.name}", "build it first")
        integrity.check_definition(manifest.get("definition_hash"), self.definition_hash,
                                   f"manifest {self.manifest_path()}", " of the puzzle")
        return manifest


def _listed_parts(parts):
    """A manifest entry's parts, checked for their fields (None: a layer in one file)."""
    if parts is None:
        return None
    return [dict(count=int(p["count"]), crc32=int(p["crc32"]), bytes=int(p.get("bytes", 0)))
            for p in parts]
