"""Queries answered from a finished depth database: distance, an optimal solution, the number
of optimal solutions, positions at a given depth.

Everything here reads the database through its store, and answers through the lookup of
its kind (kinds.py, lookups.py); nothing reaches into the engine.  For a reversible puzzle a
state at depth d has a neighbour at depth d-1, so descending the layers (or a distance
table's labels) gives an optimal solution, and summing over those neighbours counts all of
them.
"""

from pathlib import Path

import numpy as np

from puzzledb import keys, paths, puzzles
from puzzledb.errors import BoardError, PuzzleError
from puzzledb.query.kinds import as_searched, kind_of
from puzzledb.query.lookups import depths_of


class DepthDatabase:
    """The stored database of one puzzle.  Open with DepthDatabase.open(name, results).

    What it answers depends on its kind (`kind`, kinds.py), through that kind's lookup: a
    layer store everything; a counts-only database (store: counts, store/counts.py) what its
    manifest and samples hold (summary, positions_at from the sample, the deepest
    positions), and refuses in one line what needs the layers (contains, distance,
    solutions: `refusal` says why); a distances database (store/distances.py) the same as a
    counts-only one, and distances, solutions and their number from its table.

    A database searched up to the puzzle's symmetries (puzzles/symmetric.py) keeps one key
    a class: `counts` are its classes, `positions` the positions they stand for, and a
    position is looked up by its class (class_keys), so that every query walks the real
    positions of the puzzle and finds each in the layer of its class."""

    def __init__(self, puzzle, directory):
        self.puzzle = puzzle
        searched = self.searched = as_searched(directory, puzzle)
        self.symmetric = searched.symmetric
        self.class_keys = (lambda keys: searched.canonical(keys)[0]) if self.symmetric \
            else (lambda keys: keys)
        self.kind = kind_of(directory, searched)
        self.store = self.kind.store(directory, searched)
        self.manifest = self.store.manifest()
        self.max_depth = int(self.manifest["max_depth"])
        self.total = int(self.manifest["total"])
        self.counts = [int(layer["count"]) for layer in self.manifest["layers"]]
        self.positions = [int(layer.get("positions", layer["count"]))
                          for layer in self.manifest["layers"]]
        # a search stopped by a depth limit stored layers 0..max_depth of a deeper space
        self.depth_limit = self.manifest.get("depth_limit")
        self.partial = self.depth_limit is not None
        self.lookup = self.kind.lookup(self)
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
        self._require_reversible()
        rank, depth = self._within(board_text)
        states = self.puzzle.key_array([rank])
        ways = np.array([1], dtype=object)
        for d in range(depth, 0, -1):
            sources, near = self._neighbour_pairs(states)
            down = self.lookup.below(d - 1, near)
            states, inverse = keys.unique(near[down], return_inverse=True)
            following = np.zeros(len(states), dtype=object)
            np.add.at(following, inverse.ravel(), ways[sources[down]])
            ways = following
        return int(ways.sum())

    def _neighbour_pairs(self, states):
        """Every neighbour of every state of a key array: (the index of its state, the
        neighbour's key), as a move leads there.  Keys of one word by one compiled call;
        wider keys (a few states a layer, for count) one state at a time."""
        from puzzledb.bfs.labels import neighbour_pairs  # loads numba, as neighbours does

        puzzle = self.puzzle
        if puzzle.key_words == 1:
            sources, near = neighbour_pairs(states.astype(np.int64),
                                            np.int64(max(puzzle.max_moves, 1)),
                                            np.int64(max(puzzle.work_size, 1)),
                                            puzzle.tables())
            return sources, near.astype(np.uint64)
        found = [puzzle.neighbours(state) for state in keys.key_ints(states)]
        sources = np.repeat(np.arange(len(found)), [len(f) for f in found])
        return sources, puzzle.key_array([n for f in found for n in f])

    # -- whole layers ------------------------------------------------------------------
    def positions_at(self, depth, count=None, seed=0):
        """Ranks at a depth: all of them, or `count` drawn at random (reproducibly).  A
        counts-only database draws from the sample it kept (kept(depth) says how many)."""
        return self.lookup.positions_at(depth, count, seed)

    def boards_at(self, depth, count=None, seed=0):
        """Board strings at a depth, in rank order: positions_at(depth, count, seed)
        decoded."""
        return self.boards(self.positions_at(depth, count, seed), depth)

    def boards(self, ranks, depth):
        """The board strings of ranks of layer `depth`, as `puzzledb decode` shows them (a
        graded puzzle's ranks are numbered within their level, the layer's)."""
        level = depth if self.puzzle.graded else 0
        return [self.puzzle.decode(rank, level) for rank in ranks]

    def chunks_at(self, depth, size):
        """The keys of layer `depth` in rank order, `size` at a time (one chunk of the layer
        file in memory at once, whatever the layer's size); refused by a store that keeps no
        layers."""
        return self.lookup.chunks(depth, size)

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
        the manifest, in a counts-only database); searched up to symmetry, (depth,
        positions, cumulative positions, classes), the positions the manifest's."""
        rows = []
        cumulative = 0
        for depth in range(self.max_depth + 1):
            count = self.lookup.count(depth)
            positions = self.positions[depth] if self.symmetric else count
            cumulative += positions
            rows.append((depth, positions, cumulative) + ((count,) if self.symmetric else ()))
        return rows
