"""The table store: the additive pattern databases of one partition of a puzzle, one HDF5 file
per group's table (paths.pattern_table) and a manifest written last, once every table has been
read back whole.  What the values mean is the solver's (solvers/additive.py builds them and
names their definition by its hash); that a table is whole, of that definition, and listed is
this module's, with the CRC-32, definition hash and manifest of the layers (integrity.py).

A table file holds dataset `values` (uint8, the table's bytes), datasets `first_reached` and
`histogram` (int64, the record of its build) and attributes puzzle, partition, tiles,
placements, max_value, build_seconds, crc32 (of the values), definition_hash and
format_version.  The manifest lists for each table its tiles, file, bytes, placements, crc32,
max_value, definition_hash and build_seconds.
"""

from dataclasses import dataclass
from pathlib import Path

import h5py
import numpy as np

from puzzledb import paths
from puzzledb.errors import LayerError, one_line
from puzzledb.puzzles.base import FORMAT_VERSION
from puzzledb.store import integrity
from puzzledb.store.files import atomic_file, hdf5_file

REBUILD = "; rebuild it (snakemake pdbs)"


@dataclass
class Table:
    """One table in memory, as built and as stored: its values and the record of its build."""

    values: np.ndarray  # uint8, the table's bytes
    placements: int  # the entries it holds
    max_value: int  # the largest distance of a placement (moves of the group's tiles)
    first_reached: list  # placements first reached at each depth of the build's search
    histogram: list  # placements per stored value
    seconds: float  # the build's search


@dataclass(frozen=True)
class TableSpec:
    """What a reader expects of a table: whose tiles it is, the hash of the definition it
    must be built from, and its size in bytes."""

    tiles: str
    definition_hash: str
    bytes: int


def write_table(path, puzzle, partition, spec, table):
    """Write a Table to `path` (through atomic_file, so whole or not at all), stamped with the
    CRC-32 of its values and its definition hash; puzzle and partition: names."""
    with atomic_file(path) as tmp, hdf5_file(tmp) as (f, _):
        f.create_dataset("values", data=table.values)
        f.create_dataset("first_reached", data=np.array(table.first_reached, np.int64))
        f.create_dataset("histogram", data=np.array(table.histogram, np.int64))
        f.attrs.update(
            puzzle=puzzle, partition=partition, tiles=spec.tiles, placements=table.placements,
            max_value=table.max_value, build_seconds=round(table.seconds, 2),
            **integrity.stamp(integrity.crc32(table.values), spec.definition_hash))


def read_table(path, spec, out=None, crc32=None):
    """The values of a stored table (into `out` if given), checked: built from the definition
    spec names, of its size, and matching the stored CRC-32 (and `crc32`, the manifest's, if
    given).  LayerError naming the file otherwise."""
    return _read(path, spec, out, crc32)[0]


def _read(path, spec, out=None, crc32=None):
    """(values, the file's attributes), checked as read_table says."""
    path = Path(path)
    try:
        with h5py.File(path, "r") as f:
            attrs = dict(f.attrs)
            integrity.check_definition(attrs.get("definition_hash"), spec.definition_hash,
                                       f"table {path}", REBUILD)
            values = f["values"]
            if values.shape != (spec.bytes,):
                raise LayerError(f"table {path} holds {values.shape[0]:,} bytes, "
                                 f"expected {spec.bytes:,}")
            out = np.empty(spec.bytes, np.uint8) if out is None else out
            values.read_direct(out)
        listed = () if crc32 is None else (crc32,)
        integrity.check_crc(integrity.crc32(out), attrs["crc32"], *listed,
                            what=f"table {path}")
    except (OSError, KeyError) as err:
        raise LayerError(f"cannot read table {path}: {one_line(err)}") from None
    return out, attrs


class TableStore:
    """The tables of one partition of a puzzle under a results directory (puzzle and
    partition: names); its layout is paths.pattern_databases and paths.pattern_table."""

    def __init__(self, results, puzzle, partition):
        self.results, self.puzzle, self.partition = results, puzzle, partition
        self.directory = Path(paths.pattern_databases(results, puzzle, partition))

    def path(self, tiles):
        return Path(paths.pattern_table(self.results, self.puzzle, self.partition, tiles))

    def complete(self):
        """Whether the manifest is there: every table was written and read back whole."""
        return integrity.manifest_path(self.directory).exists()

    def write_manifest(self, specs):
        """Read back every table of the partition (a TableSpec each, in the partition's
        order) in full and checked, then write the manifest, last; the manifest."""
        groups = []
        for spec in specs:
            path = self.path(spec.tiles)
            values, attrs = _read(path, spec)
            groups.append({"tiles": spec.tiles, "file": path.name, "bytes": int(values.size),
                           "placements": int(attrs["placements"]),
                           "crc32": int(attrs["crc32"]),
                           "max_value": int(attrs["max_value"]),
                           "definition_hash": str(attrs["definition_hash"]),
                           "build_seconds": float(attrs["build_seconds"])})
        return integrity.write_manifest(self.directory, {
            "puzzle": self.puzzle, "partition": self.partition,
            "format_version": FORMAT_VERSION, "groups": groups})

    def read_tables(self, specs, into):
        """Read the tables (a TableSpec each) into the arrays `into` (one each, of its spec's
        size), each checked as read_table does and against the CRC-32 and definition hash the
        manifest lists.  LayerError if the manifest is missing or corrupt, lists no such
        table, or a table is stale or corrupt."""
        path = integrity.manifest_path(self.directory)
        manifest = integrity.read_manifest(
            self.directory, f"additive pattern databases {self.partition} of {self.puzzle}",
            "build them with snakemake pdbs")
        try:
            listed = {entry["tiles"]: (entry["definition_hash"], int(entry["crc32"]))
                      for entry in manifest["groups"]}
        except (KeyError, TypeError, ValueError) as err:
            raise LayerError(f"corrupt manifest {path}: {one_line(err)}") from None
        for spec, out in zip(specs, into, strict=True):
            if spec.tiles not in listed:
                raise LayerError(f"manifest {path} lists no table of tiles {spec.tiles}")
            definition_hash, crc32 = listed[spec.tiles]
            integrity.check_definition(definition_hash, spec.definition_hash,
                                       f"table {spec.tiles} in manifest {path}", REBUILD)
            read_table(self.path(spec.tiles), spec, out, crc32)
