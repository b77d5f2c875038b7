"""Queries answered from a finished depth database: distance, an optimal solution, the number
of optimal solutions, positions at a given depth.

Everything here reads the database through its store; nothing reaches into the engine.  For
a reversible puzzle a state at depth d has a neighbour at depth d-1, so descending the
layers (or a distance table's labels) gives an optimal solution, and summing over those
neighbours counts all of them.  `descend` (`descend_many`, many states at once) and
`depths_of` work on any set of layers that answers contains(depth, ranks): the stored
database here, or the goal layers held in memory by matching.py.
"""

from pathlib import Path

import numpy as np

from puzzledb import keys, paths, puzzles
from puzzledb.errors import BoardError, LayerError, PuzzleError
from puzzledb.store import COUNTS, DISTANCES, LAYERS
from puzzledb.store.kinds import stored


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
        return self.layer(depth).contains_many(ranks)

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
        store = db.store
        self.refusal = (f"this database keeps {store.keeps} (store: {store.kind}), not the "
                        f"layers this query reads; build it with store: layers where the "
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
        raise PuzzleError(f"{self.db.puzzle.name}: this database keeps distances (store: "
                          f"distances), not the layer files this query reads")

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


LOOKUPS = {LAYERS: LayerLookup, COUNTS: SampleLookup, DISTANCES: TableLookup}  # by kind


class DepthDatabase:
    """The stored database of one puzzle.  Open with DepthDatabase.open(name, results).

    What it answers depends on its store (LOOKUPS): a layer store everything; a counts-only
    database (store: counts, store/counts.py) what its manifest and samples hold (summary,
    positions_at from the sample, the deepest positions), and refuses in one line what
    needs the layers (contains, distance, solutions: `refusal` says why); a distances
    database (store/distances.py) the same as a counts-only one, and distances, solutions
    and their number from its table."""

    def __init__(self, puzzle, directory):
        self.puzzle = puzzle
        self.store = stored(directory, puzzle)
        self.manifest = self.store.manifest()
        self.max_depth = int(self.manifest["max_depth"])
        self.total = int(self.manifest["total"])
        self.counts = [int(layer["count"]) for layer in self.manifest["layers"]]
        # a search stopped by a depth limit stored layers 0..max_depth of a deeper space
        self.depth_limit = self.manifest.get("depth_limit")
        self.partial = self.depth_limit is not None
        self.lookup = LOOKUPS.get(self.store.kind, LayerLookup)(self)
        self.refusal = self.lookup.refusal  # why queries of routes are refused (None: none)

    @classmethod
    def open(cls, name, results="results"):
        puzzle = puzzles.get(name)
        return cls(puzzle, Path(paths.layers(results, name)))

    def close(self):
        self.lookup.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def check_depth(self, depth):
        if not 0 <= depth <= self.max_depth:
            raise PuzzleError(
                f"{self.puzzle.name}: no layer {depth} (depths are 0..{self.max_depth})"
            )

    def layer(self, depth):
        """Layer `depth` (store.layer.Layer); refused by a store that keeps no layers."""
        return self.lookup.layer(depth)

    def contains(self, depth, ranks):
        """Membership of each rank in layer `depth`, as a bool array."""
        return self.lookup.contains(depth, ranks)

    def depths(self, ranks):
        """The depth of each rank (any order, as int16), -1 for a rank in no layer."""
        return self.lookup.depths(ranks)

    # -- single positions --------------------------------------------------------------
    def locate(self, board_text):
        """Parse a board string; (rank, depth).  The depth is None for a board of a partial
        database that lies beyond its deepest stored layer; BoardError for a board in no
        layer of a complete database."""
        board = self.puzzle.parse(board_text)
        rank = self.puzzle.rank(board)
        if self.puzzle.graded:  # the grading fixes the layer
            level = self.puzzle.level_of(board)
            depths = [level] if 0 <= level <= self.max_depth else []
            depth = int(depths_of([rank], self.contains, depths)[0])
        else:
            depth = int(self.depths(self.puzzle.key_array([rank]))[0])
        if depth < 0 and self.partial:
            return rank, None
        if depth < 0:
            raise BoardError(
                f"{self.puzzle.name}: board {board_text!r} is unreachable (in no layer)"
            )
        return rank, depth

    def distance(self, board_text):
        """The board's distance: an int, or None when it is more than max_depth moves away
        (a partial database)."""
        return self.locate(board_text)[1]

    def _within(self, board_text):
        """(rank, depth) of a board that lies in a stored layer; BoardError otherwise."""
        rank, depth = self.locate(board_text)
        if depth is None:
            raise BoardError(f"{self.puzzle.name}: board {board_text!r} is more than "
                             f"{self.max_depth} moves away, beyond the stored layers")
        return rank, depth

    def _require_reversible(self):
        if not self.puzzle.reversible:
            raise PuzzleError(
                f"{self.puzzle.name}: moves cannot be undone, so its layers give no route "
                f"to the goal; use a tree-search solver"
            )

    def solution(self, board_text):
        """An optimal solution: the ranks from the board to a goal, one per move."""
        self._require_reversible()
        rank, depth = self._within(board_text)
        return self.lookup.route(rank, depth)

    def solve(self, board_text):
        """An optimal solution as board strings, the start first and a goal last."""
        return [self.puzzle.decode(r) for r in self.solution(board_text)]

    def count_solutions(self, board_text):
        """The number of distinct optimal move sequences from the board to the goal set: the
        ways into each state of a layer, carried down layer by layer over the moves to the
        layer below (Python integers: they outgrow 64 bits)."""
        from puzzledb.bfs.labels import neighbour_pairs  # loads numba, as neighbours does

        self._require_reversible()
        rank, depth = self._within(board_text)
        puzzle = self.puzzle
        if puzzle.key_words > 1:
            raise PuzzleError(f"{puzzle.name}: optimal solutions are counted for ranks of one "
                              f"word; this puzzle's keys are {puzzle.key_words} words")
        states = np.array([rank], dtype=np.int64)
        ways = np.array([1], dtype=object)
        for d in range(depth, 0, -1):
            sources, near = neighbour_pairs(states, np.int64(max(puzzle.max_moves, 1)),
                                            np.int64(max(puzzle.work_size, 1)),
                                            puzzle.tables())
            down = self.lookup.below(d - 1, near.astype(np.uint64))
            states, inverse = np.unique(near[down], return_inverse=True)
            following = np.zeros(states.size, dtype=object)
            np.add.at(following, inverse, ways[sources[down]])
            ways = following
        return int(ways.sum())

    # -- whole layers ------------------------------------------------------------------
    def positions_at(self, depth, count=None, seed=0):
        """Ranks at a depth: all of them, or `count` drawn at random (reproducibly).  A
        counts-only database draws from the sample it kept (kept(depth) says how many)."""
        return self.lookup.positions_at(depth, count, seed)

    def boards_at(self, depth, count=None, seed=0):
        """Board strings at a depth, in rank order: positions_at(depth, count, seed)
        decoded."""
        level = depth if self.puzzle.graded else 0
        return [self.puzzle.decode(rank, level)
                for rank in self.positions_at(depth, count, seed)]

    def kept(self, depth):
        """How many positions of layer `depth` the database holds: all of them, except in a
        counts-only database (its sample)."""
        return self.lookup.kept(depth)

    def extent(self):
        """The stored layers in words: 'layers 0..28 of a deeper space' for a partial
        database."""
        if self.partial:
            return f"layers 0..{self.max_depth} of a deeper space (depth limit {self.depth_limit})"
        return f"all {self.max_depth + 1} layers"

    def summary(self):
        """(depth, count, cumulative) rows, counts read from the layer files themselves (from
        the manifest, in a counts-only database)."""
        rows = []
        cumulative = 0
        for depth in range(self.max_depth + 1):
            count = self.lookup.count(depth)
            cumulative += count
            rows.append((depth, count, cumulative))
        return rows
