"""What every kind of store shares (layers.py, counts.py, distances.py): one puzzle's
database in one directory, its manifest written last and checked when read, the removal of
what an earlier build left, and `verify`, which puts a store's scrub (everything read back
and checked against the manifest) and its repair (what is bad removed, for a rebuild)
together."""

import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from puzzledb.errors import LayerError, one_line
from puzzledb.paths import layer_name
from puzzledb.puzzles.base import FORMAT_VERSION
from puzzledb.store import integrity
from puzzledb.store.files import writer_gone


@dataclass
class LayerInfo:
    """A layer as a manifest lists it."""

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


class StoreDirectory:
    """One puzzle's database in one directory, of the kind a subclass keeps.  A subclass
    gives scrub(progress), the full check (a summary whose `seconds` verify fills in, else
    the first LayerError), and repair(err, remove), what is at fault and what to do about
    it (having removed it, when `remove`; None: nothing to add)."""

    kind = None  # its name, as config `store:` gives it and its manifest says

    def __init__(self, directory, puzzle):
        self.directory = Path(directory)
        self.puzzle = puzzle
        self.definition_hash = puzzle.definition_hash()

    def path(self, depth):
        """The file of layer `depth`."""
        return self.directory / layer_name(depth)

    def verify(self, repair=False, progress=None):
        """Scrub the database, as `puzzledb verify` does; its summary when all is well, else
        the scrub's LayerError restated in one line with what is at fault and what to do
        (with `repair`: what is bad removed first, so that the next build rebuilds it).
        progress(n, total) is called as states are read."""
        started = time.perf_counter()
        try:
            verified = self.scrub(progress)
        except LayerError as err:
            where, advice = self.repair(err, remove=repair)
            err.args = (f"{self.puzzle.name}: {where}{err}" + (f"; {advice}" if advice else ""),)
            raise
        verified.seconds = time.perf_counter() - started
        return verified

    def prune(self, keep):
        """Make the directory hold layers 0..keep-1 only: delete the later layers (and
        their parts), the manifest, and the temporary files of writers that are gone."""
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
            **({} if not self.puzzle.symmetric else
               {"positions": sum(i.positions for i in infos),
                "symmetry": self.puzzle.group.describe()}),
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
