"""Queries answered from a finished depth database: distance, an optimal solution, the number
of optimal solutions, positions at a given depth.

Everything here reads layers through the store; nothing reaches into the engine.  For a
reversible puzzle a state at depth d has a neighbour at depth d-1, so descending the layers
gives an optimal solution, and summing over those neighbours counts all of them.
"""

from pathlib import Path

import numpy as np

from . import puzzles
from .puzzle import PuzzleError
from .store import LayerError, LayerStore


def layer_directory(results, name):
    return Path(results) / name / "layers"


class DepthDatabase:
    """The stored layers of one puzzle.  Open with DepthDatabase.open(name, results)."""

    def __init__(self, puzzle, directory):
        self.puzzle = puzzle
        self.store = LayerStore(directory, puzzle)
        self.manifest = self.store.manifest()
        self.max_depth = int(self.manifest["max_depth"])
        self.total = int(self.manifest["total"])
        self.counts = [int(layer["count"]) for layer in self.manifest["layers"]]
        self._layers = {}

    @classmethod
    def open(cls, name, results="results"):
        puzzle = puzzles.get(name)
        return cls(puzzle, layer_directory(results, name))

    def close(self):
        for layer in self._layers.values():
            layer.close()
        self._layers.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def layer(self, depth):
        if not 0 <= depth <= self.max_depth:
            raise PuzzleError(
                f"{self.puzzle.name}: no layer {depth} (depths are 0..{self.max_depth})"
            )
        if depth not in self._layers:
            layer = self.store.open_layer(depth)
            if layer.count != self.counts[depth]:
                layer.close()
                raise LayerError(
                    f"corrupt layer file {layer.path}: {layer.count} ranks, "
                    f"manifest says {self.counts[depth]}"
                )
            self._layers[depth] = layer
        return self._layers[depth]

    # -- single positions --------------------------------------------------------------
    def depth_of_rank(self, rank, level=None):
        """The layer holding rank, or None.  A graded puzzle's level fixes the layer."""
        depths = [level] if level is not None else range(self.max_depth + 1)
        for depth in depths:
            if 0 <= depth <= self.max_depth and self.layer(depth).contains(rank):
                return depth
        return None

    def locate(self, board_text):
        """Parse a board string; (rank, depth).  PuzzleError if it is in no layer."""
        board = self.puzzle.parse(board_text)
        rank = self.puzzle.rank(board)
        level = self.puzzle.level_of(board) if self.puzzle.graded else None
        depth = self.depth_of_rank(rank, level)
        if depth is None:
            raise PuzzleError(
                f"{self.puzzle.name}: board {board_text!r} is unreachable (in no layer)"
            )
        return rank, depth

    def distance(self, board_text):
        return self.locate(board_text)[1]

    def _require_reversible(self):
        if not self.puzzle.reversible:
            raise PuzzleError(
                f"{self.puzzle.name}: moves cannot be undone, so its layers give no route "
                f"to the goal; use a tree-search solver"
            )

    def solution(self, board_text):
        """An optimal solution: the ranks from the board to a goal, one per move."""
        self._require_reversible()
        rank, depth = self.locate(board_text)
        path = [rank]
        for d in range(depth, 0, -1):
            ranks = np.array(self.puzzle.neighbours(path[-1]), dtype=np.uint64)
            below = ranks[self.layer(d - 1).contains_many(ranks)]
            path.append(int(below.min()))  # the smallest rank: reproducible
        return path

    def solve(self, board_text):
        """An optimal solution as board strings, the start first and a goal last."""
        return [self.puzzle.decode(r) for r in self.solution(board_text)]

    def count_solutions(self, board_text):
        """The number of distinct optimal move sequences from the board to the goal set."""
        self._require_reversible()
        rank, depth = self.locate(board_text)
        ways = {rank: 1}
        for d in range(depth, 0, -1):
            sources = list(ways.items())
            succ = [np.array(self.puzzle.neighbours(r), dtype=np.uint64) for r, _ in sources]
            flat = np.concatenate(succ)
            inside = self.layer(d - 1).contains_many(flat)
            following = {}
            at = 0
            for (r, w), ranks in zip(sources, succ):
                for n, ok in zip(ranks.tolist(), inside[at:at + ranks.size].tolist()):
                    if ok:
                        following[n] = following.get(n, 0) + w
                at += ranks.size
            ways = following
        return sum(ways.values())

    # -- whole layers ------------------------------------------------------------------
    def positions_at(self, depth, count=None, seed=0):
        """Ranks at a depth: all of them, or `count` drawn at random (reproducibly)."""
        layer = self.layer(depth)
        if count is None or count >= layer.count:
            return layer.ranks()
        rng = np.random.default_rng(seed)
        picks = np.sort(rng.choice(layer.count, size=count, replace=False))
        return np.array([layer.ranks(i, i + 1)[0] for i in picks], dtype=np.uint64)

    def summary(self):
        """(depth, count, cumulative) rows, counts read from the layer files themselves."""
        rows = []
        cumulative = 0
        for depth in range(self.max_depth + 1):
            count = self.layer(depth).count
            cumulative += count
            rows.append((depth, count, cumulative))
        return rows
