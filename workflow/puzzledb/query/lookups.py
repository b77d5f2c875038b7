"""How a stored database answers queries, one lookup per kind of store (kinds.py names
which): a layer store from its layer files, a counts store from its manifest and samples
(refusing in one line what needs the layers), a distances store from its table of depth
labels.  `descend` (`descend_many`, many states at once) and `depths_of` work on any set of
layers that answers contains(depth, ranks): a stored database, or the goal layers
matching.py holds in memory.
"""

import numpy as np

from puzzledb import keys
from puzzledb.errors import LayerError, PuzzleError


def depths_of(ranks, contains, depths):
    """The depth of each rank among the layers `depths` (int16), -1 for a rank in none;
    contains(depth, ranks) -> bool mask.  ranks: one-word ranks, or a key array
    (Puzzle.key_array)."""
    if not (isinstance(ranks, np.ndarray) and ranks.ndim == 2):
        ranks = np.asarray(ranks, dtype=np.uint64)
    queries, inverse = keys.unique(ranks, return_inverse=True)
    found = np.full(len(queries), -1, dtype=np.int16)
    for depth in depths:
        todo = np.flatnonzero(found < 0)  # sorted and distinct, as contains likes them
        if todo.size == 0:
            break
        found[todo[contains(depth, queries[todo])]] = depth
    return found[inverse]


def descend(puzzle, rank, depth, contains):
    """A path of ranks from a state of layer `depth` to the goal: at each step the smallest
    neighbour one layer down (so the path is reproducible).  LayerError if a state has no
    neighbour one layer down: the layers are inconsistent."""
    path = [int(rank)]
    for d in range(depth - 1, -1, -1):
        near = puzzle.key_array(puzzle.neighbours(path[-1]))
        below = near[contains(d, near)]
        if len(below) == 0:
            raise LayerError(f"{puzzle.name}: state {path[-1]} of layer {d + 1} has no "
                             f"neighbour in layer {d}; the layers are inconsistent")
        path.append(keys.smallest(below))
    return path


def descend_many(puzzle, ranks, depth, contains):
    """descend from each of the states `ranks` of layer `depth` (one-word keys: ranks), all
    of them a step at a time: their paths, a row each (int64), the same as descend's.  Each
    step asks contains once for the neighbours of every path, so a layer's chunks are read
    once for all of them, not once a path."""
    from puzzledb.bfs.labels import neighbour_pairs  # loads numba, as neighbours does

    paths = np.empty((len(ranks), depth + 1), dtype=np.int64)
    paths[:, 0] = ranks
    moves, work = np.int64(max(puzzle.max_moves, 1)), np.int64(max(puzzle.work_size, 1))
    none = np.iinfo(np.int64).max
    for step, d in enumerate(range(depth - 1, -1, -1), start=1):
        sources, near = neighbour_pairs(np.ascontiguousarray(paths[:, step - 1]), moves,
                                        work, puzzle.tables())
        down = contains(d, near.astype(np.uint64))
        best = np.full(len(ranks), none, dtype=np.int64)
        np.minimum.at(best, sources[down], near[down])
        stuck = np.flatnonzero(best == none)
        if stuck.size:
            raise LayerError(f"{puzzle.name}: state {paths[stuck[0], step - 1]} of layer "
                             f"{d + 1} has no neighbour in layer {d}; the layers are "
                             f"inconsistent")
        paths[:, step] = best
    return paths


class LayerLookup:
    """A layer store's answers: every layer's file, opened when first asked for."""

    refusal = None  # every query can be answered
    walks = False  # whether routes are walks down a table (quick enough for solve --batch)

    def __init__(self, db):
        self.db = db
        self._layers = {}

    def layer(self, depth):
        db = self.db
        db.check_depth(depth)
        if depth not in self._layers:
            layer = db.store.open_layer(depth)
            if layer.count != db.counts[depth]:
                layer.close()
                raise LayerError(f"corrupt layer file {layer.path}: {layer.count} ranks, "
                                 f"manifest says {db.counts[depth]}")
            self._layers[depth] = layer
        return self._layers[depth]

    def contains(self, depth, ranks):
        """Membership of each key (a position: its class's key, when the layers keep
        classes) in layer `depth`."""
        return self.layer(depth).contains_many(self.db.class_keys(ranks))

    below = contains  # of a state's neighbours, those one layer nearer the goal

    def depths(self, ranks):
        return depths_of(ranks, self.contains, range(self.db.max_depth + 1))

    def route(self, rank, depth):
        return descend(self.db.puzzle, rank, depth, self.contains)

    def positions_at(self, depth, count, seed):
        layer = self.layer(depth)
        if count is None or count >= layer.count:
            return layer.ranks()
        rng = np.random.default_rng(seed)
        picks = np.sort(rng.choice(layer.count, size=count, replace=False))
        return np.concatenate([layer.ranks(0, 0)] + [layer.ranks(i, i + 1) for i in picks])

    def chunks(self, depth, size):
        return self.layer(depth).iter_chunks(size)

    def kept(self, depth):
        return self.db.counts[depth]

    def count(self, depth):
        """A layer's count, read from its file."""
        return self.layer(depth).count

    def close(self):
        for layer in self._layers.values():
            layer.close()
        self._layers.clear()


class SampleLookup:
    """A counts store's answers (store/counts.py): the manifest's counts and the sample
    kept of each layer; what needs the layers is refused in one line."""

    walks = False

    def __init__(self, db):
        self.db = db
        self.refusal = (f"this database keeps {db.kind.keeps} (store: {db.kind.name}), not "
                        f"the layers this query reads; build it with store: layers where the "
                        f"disk holds them")

    def layer(self, depth):
        raise PuzzleError(f"{self.db.puzzle.name}: {self.refusal}")

    def contains(self, depth, ranks):
        return self.layer(depth)

    below = contains

    def depths(self, ranks):
        return self.layer(0)

    def route(self, rank, depth):
        return self.layer(depth)

    def chunks(self, depth, size):
        return self.layer(depth)

    def positions_at(self, depth, count, seed):
        """Drawn from the sample kept (kept(depth) says how many)."""
        self.db.check_depth(depth)
        ranks, _ = self.db.store.sample(depth)
        if count is None or count >= ranks.size:
            return ranks
        rng = np.random.default_rng(seed)
        return ranks[np.sort(rng.choice(ranks.size, size=count, replace=False))]

    def kept(self, depth):
        self.db.check_depth(depth)
        return self.db.store.sample(depth)[0].size

    def count(self, depth):
        return self.db.counts[depth]

    def close(self):
        pass


class TableLookup(SampleLookup):
    """A distances store's answers (store/distances.py): the counts store's, and each
    position's depth from its label in the table, memory-mapped: a walk down the labels
    (bfs/labels.py) is an optimal route, its length the distance."""

    walks = True

    def __init__(self, db):
        super().__init__(db)
        self.refusal = None  # every query but those of layer files
        self.table = db.store.table()
        self._walker = None

    @property
    def walker(self):
        if self._walker is None:  # loads numba: only when a query walks
            from puzzledb.bfs.labels import Walker

            self._walker = Walker(self.db.puzzle, self.table.words, self.table.labels)
        return self._walker

    def layer(self, depth):
        kind = self.db.kind
        raise PuzzleError(f"{self.db.puzzle.name}: this database keeps {kind.keeps} (store: "
                          f"{kind.name}), not the layer files this query reads")

    def depths(self, ranks):
        """Each rank's depth, the length of its walk (-1: never reached)."""
        ranks = np.asarray(ranks, dtype=np.uint64)
        residues = self.walker.residues(ranks)
        found = np.full(ranks.size, -1, dtype=np.int16)
        for residue in np.unique(residues[residues >= 0]):
            mine = residues == residue
            found[mine] = self.walker.lengths(ranks[mine], residue, self.db.max_depth)
        return found

    def contains(self, depth, ranks):
        return self.depths(ranks) == depth

    def below(self, depth, ranks):
        """Of a state's neighbours, those one layer nearer the goal (layer `depth`): the
        labels alone tell them from the rest, whose depths are depth + 1 and depth + 2."""
        return self.walker.residues(ranks) == depth % self.table.labels.modulus

    def route(self, rank, depth):
        path = self.walker.route(rank, depth)
        if path is None or len(path) != depth + 1:
            raise LayerError(f"{self.db.puzzle.name}: the walk from state {rank} down the "
                             f"distance table does not end at a goal in {depth} moves; the "
                             f"table is inconsistent")
        return path
