"""The kinds of store a database may be (config `store:`), by name: the class that keeps
each, and the store of a finished database as its manifest says (`puzzledb verify`, the
queries).  What each keeps: store/__init__.py."""

from puzzledb.errors import LayerError
from puzzledb.store import COUNTS, DISTANCES, LAYERS
from puzzledb.store.counts import CountStore
from puzzledb.store.distances import DistanceStore
from puzzledb.store.layers import LayerStore

STORE_CLASSES = {LAYERS: LayerStore, COUNTS: CountStore, DISTANCES: DistanceStore}


def stored(directory, puzzle):
    """The store of the database in `directory`, as its manifest says (a LayerStore when
    there is no manifest, or it cannot be read: the reader then says what is wrong)."""
    store = LayerStore(directory, puzzle)
    if store.manifest_path().exists():
        try:
            kind = store.manifest().get("store", LAYERS)
        except LayerError:
            return store
        return STORE_CLASSES.get(kind, LayerStore)(directory, puzzle)
    return store
