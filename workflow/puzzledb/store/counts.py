"""The counts store (config `store: {<puzzle>: counts}`): a database that keeps how many
states each layer holds, not the states, for a space whose two-bit search fits in memory but
whose layer files would not fit on the disk (the 7x2 puzzle's 43.6 billion states).

Its manifest is the layer store's, marked "store": "counts", and lists every layer's count
and the CRC-32 of the layer's sample.  Beside it one file, samples.h5, keeps a sample of
each layer: dataset depth_NNN, the layer's ranks when it holds at most SAMPLE_STATES, else
SAMPLE_STATES of them drawn at random (sorted, attributes count and whole); the deepest layer
whole when it holds at most DEEPEST_STATES (its antipodes).  The sample answers `puzzledb
sample`; what needs the layers themselves (distance, solve) is refused in one line
(query/database.py).  A long search resumes from its checkpoint (bfs/checkpoint.py), not
from layers.
"""

from dataclasses import dataclass

import h5py
import numpy as np

from puzzledb.errors import LayerError, one_line
from puzzledb.paths import SAMPLES
from puzzledb.store import COUNTS, integrity
from puzzledb.store.files import atomic_file, hdf5_file
from puzzledb.store.directory import LayerInfo, StoreDirectory
from puzzledb.store.layer import ranks_crc

SAMPLE_STATES = 4096  # states kept of each layer, drawn at random from a larger one
DEEPEST_STATES = 1 << 20  # the deepest layer is kept whole up to this many states


@dataclass
class VerifiedCounts:
    """What CountStore.verify checked; printed as its one-line summary."""

    puzzle: str
    layers: int
    total: int
    kept: int
    seconds: float = 0.0
    what: str = "a counts-only"  # the database's kind, as the line says it
    table_bytes: int = 0  # the distance table's, read back (store/distances.py)

    def __str__(self):
        table = (f" and the distance table's {self.table_bytes / 2**20:,.1f} MiB"
                 if self.table_bytes else "")
        return (f"{self.puzzle}: verified {self.what} database of {self.layers} layers "
                f"(depths 0..{self.layers - 1}), {self.total:,} states: the manifest, the "
                f"{self.kept:,} states sampled{table}, against their CRC-32 "
                f"({self.seconds:.1f} s); it keeps no layers to read back")


def sample_name(depth):
    return f"depth_{depth:03d}"


class CountStore(StoreDirectory):
    """The counts and samples of one puzzle's layers in one directory."""

    kind = COUNTS
    files = "samples"  # its files besides the manifest, as verify --repair names them

    def __init__(self, directory, puzzle):
        super().__init__(directory, puzzle)
        self.samples = {}  # depth -> the sorted ranks kept

    def samples_path(self):
        return self.directory / SAMPLES

    def prune(self, keep):
        """Remove the manifest and samples (the database is being built again), the layer
        files of an earlier build (keep is ignored: there are none to keep) and the
        temporary files of writers that are gone."""
        super().prune(0)
        self.samples_path().unlink(missing_ok=True)

    def keep_layer(self, depth, count, sample):
        """Record layer `depth` of `count` states, of which `sample` (ranks) is kept; its
        LayerInfo (the CRC-32 is the sample's)."""
        sample = np.sort(np.asarray(sample, dtype=np.uint64))
        self.samples[depth] = sample
        return LayerInfo(depth, int(count), ranks_crc(sample), 0)

    def write_manifest(self, infos, **extra):
        """samples.h5, then the manifest (last)."""
        crc = 0
        with atomic_file(self.samples_path()) as tmp, hdf5_file(tmp) as (f, _):
            for info in infos:
                sample = self.samples[info.depth]
                ds = f.create_dataset(sample_name(info.depth), data=sample)
                ds.attrs.update(count=info.count, whole=sample.size == info.count)
                crc = ranks_crc(sample, crc)
            f.attrs.update(puzzle=self.puzzle.name, **integrity.stamp(crc, self.definition_hash))
        return super().write_manifest(infos, store=self.kind, samples=SAMPLES, **extra)

    def sample(self, depth):
        """(the ranks kept of layer `depth`, whether they are the whole layer), checked
        against the manifest's CRC-32."""
        info = self.manifest_layers()[depth]
        path = self.samples_path()
        try:
            with h5py.File(path, "r") as f:
                integrity.check_definition(f.attrs.get("definition_hash"),
                                           self.definition_hash, f"samples file {path}")
                ds = f[sample_name(depth)]
                ranks = ds[()].astype(np.uint64)
                whole = bool(ds.attrs["whole"])
        except (OSError, KeyError) as err:
            raise LayerError(f"corrupt samples file {path}: {one_line(err)}") from None
        integrity.check_crc(ranks_crc(ranks), info.crc32, what=f"samples file {path}")
        return ranks, whole

    def repair(self, err, remove):
        """What to do about what the scrub found bad: there are no layers to resume from, so
        `puzzledb verify --repair` removes the manifest and the store's files (with
        `remove`, it has), and the next build searches again."""
        name = self.puzzle.name
        if remove:
            self.prune(0)
            return "", f"removed the manifest and {self.files}: the next build searches again"
        return "", f"`puzzledb verify {name} --repair` removes it"

    def scrub(self, progress=None):
        """The scrub of `puzzledb verify`: the manifest and every layer's sample checked
        against it (and, in a subclass, what else the store keeps); a VerifiedCounts, else
        the first LayerError."""
        infos = self.manifest_layers()
        kept = 0
        for info in infos:
            ranks, _ = self.sample(info.depth)
            kept += ranks.size
            if progress is not None:
                progress(ranks.size, None)
        return VerifiedCounts(self.puzzle.name, len(infos), sum(i.count for i in infos), kept)
