"""The kinds of database a build may keep (config `store:`), one object each, registered
here and nowhere else: its name, the store class that keeps it on disk, the sink the
in-memory engine fills it through, the lookup that answers queries from it, what it keeps
in words, and which searches can keep it.  Config check, command line, engine, queries and
report all take a kind from KINDS; adding a kind is one entry (docs/architecture.md)."""

from dataclasses import dataclass
from typing import Callable

from puzzledb.bfs.memory import distance_search_bytes, search_bytes
from puzzledb.bfs.modes import MODES
from puzzledb.errors import ChoiceError, LayerError
from puzzledb.puzzles.symmetric import Classes
from puzzledb.query.lookups import LayerLookup, SampleLookup, TableLookup
from puzzledb.store import COUNTS, DISTANCES, LAYERS, integrity
from puzzledb.store.counts import CountStore
from puzzledb.store.distances import DistanceStore
from puzzledb.store.layers import LayerStore


@dataclass(frozen=True, repr=False)
class StoreKind:
    """One kind of database (config `store:`)."""

    name: str
    store: type  # the store class: its files, written and read back (store/)
    lookup: type  # how queries are answered from it (lookups.py)
    sink: str  # the class of bfs/sinks.py the in-memory engine hands each layer to, by
    #            name: that module loads numba, and planning must not (sink_class)
    layers: bool  # keeps every layer's file: what matching and the analyses of layers read
    whole_space: bool  # kept from a search that holds the whole rank space: only the
    #                    in-memory search of an ungraded puzzle (not the frontier search's
    #                    segments, nor a graded search's two levels)
    describes: str  # what it keeps, in words (`puzzledb build --help`, the report page)
    keeps: str = ""  # the same in short, as a refusal says it ("": every layer)
    contents: str = ""  # the same as `puzzledb info` lists it ("": the default's)
    search_adds: Callable | None = None  # bytes its search adds to the two-bit search's

    def __repr__(self):
        # a search plan's repr is what Snakemake compares to rerun a build: the name says it
        return f"StoreKind({self.name!r})"

    def search_bytes(self, puzzle):
        """Bytes the in-memory search that fills this kind holds (bfs/memory.py)."""
        added = self.search_adds(puzzle) if self.search_adds is not None else 0
        return search_bytes(puzzle) + added

    def check(self, puzzle, mode):
        """ChoiceError naming the key `store` unless the puzzle, searched by `mode` (a
        bfs.modes.SearchMode), can keep this kind."""
        if self.whole_space and not mode.whole_space:
            holders = " or ".join(m.name for m in MODES.values() if m.whole_space)
            kept = " or ".join(k.name for k in KINDS.values() if not k.whole_space)
            raise ChoiceError("store", f"{puzzle.name}: store: {self.name} is the {holders} "
                                       f"search's; {mode.builds} keep {kept}")
        if self.whole_space and puzzle.graded:
            raise ChoiceError("store", f"{puzzle.name}: store: {self.name} is for ungraded "
                                       f"puzzles (a graded search holds two levels, not the "
                                       f"space)")

    def sink_class(self):
        from puzzledb.bfs import sinks  # the engine's side: loaded when a build runs

        return getattr(sinks, self.sink)


KINDS = {kind.name: kind for kind in [
    StoreKind(LAYERS, LayerStore, LayerLookup, "LayerSink", layers=True, whole_space=False,
              describes="every layer's states, a file per depth, from which every query "
                        "and analysis answers"),
    StoreKind(COUNTS, CountStore, SampleLookup, "CountSink", layers=False, whole_space=True,
              keeps="counts only", contents="counts, samples and the deepest positions",
              describes="every layer's count, a sample of each and the deepest positions, "
                        "for a space whose search fits memory but whose layers would not "
                        "fit the disk (no distance or solve from it); the search "
                        "checkpoints itself, and a rerun resumes from the last checkpoint"),
    StoreKind(DISTANCES, DistanceStore, TableLookup, "DistanceSink", layers=False,
              whole_space=True, search_adds=distance_search_bytes, keeps="distances",
              contents="counts, samples, the deepest positions and every position's "
                       "distance",
              describes="the same as counts, and every position's depth modulo 3 (or 4, by "
                        "its colour) in two bits, one file as large as the search, from "
                        "which distance, solve and count answer"),
]}


def kind_of(directory, puzzle):
    """The kind of the database in `directory`, as its manifest says (layers when there is
    no manifest, or it cannot be read: the layer store's reader then says what is wrong)."""
    store = LayerStore(directory, puzzle)
    if not store.manifest_path().exists():
        return KINDS[LAYERS]
    try:
        name = store.manifest().get("store", LAYERS)
    except LayerError:
        return KINDS[LAYERS]
    return KINDS.get(name, KINDS[LAYERS])


def stored(directory, puzzle):
    """The store of the database in `directory`, of its kind (kind_of), for the puzzle as
    it was searched (as_searched)."""
    puzzle = as_searched(directory, puzzle)
    return kind_of(directory, puzzle).store(directory, puzzle)


def as_searched(directory, puzzle):
    """The puzzle as the database in `directory` was searched: its class puzzle
    (puzzles/symmetric.py) when the manifest names a symmetry group, else the puzzle (and
    the puzzle when there is no manifest: the store's reader says what is missing)."""
    try:
        manifest = integrity.read_manifest(directory, "database", "")
    except LayerError:
        return puzzle
    group = puzzle.symmetry_group() if "symmetry" in manifest else None
    return puzzle if group is None or puzzle.symmetric else Classes(puzzle, group)
