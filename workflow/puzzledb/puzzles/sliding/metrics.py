"""The two metrics of a sliding puzzle, one of the two parts a SlidingPuzzle composes (the
other is its numbering, rankings.py): SingleTile, a move slides one piece into the blank;
MultiTile, a move slides a run of pieces of the blank's row or column toward it, so the
blank jumps to any cell of its row or column.  A jump of k cells is k single-tile moves, so
the reachable set and the ranks are the same in both; what differs is the kernels' tables,
the layer expansion, and what a move keeps (the blank's colour, Manhattan distance's
bound).  Plain Python; the kernels are in kernels.py and multi_kernels.py.
"""

from collections import namedtuple

import numpy as np

from puzzledb.errors import PuzzleError

# the multi-tile metric's kernel data (multi_kernels.py): either numbering's fields (its
# jump_fields), `distinct` saying which
MultiTileTables = namedtuple("MultiTileTables", "adjacent half_factorial parity_of_blank counts "
                             "weights distinct width")
# multi_kernels.PlaneJumpExpansion writes out the jumps along a column one by one: boards of
# more rows go state by state (MultiTileExpansion)
MAX_JUMPS = 3


class SingleTile:
    """One piece one cell a move: at most 4 moves, the numbering's own kernels and plane
    expansion.  Every move takes the blank to a neighbouring cell, so the chessboard colour
    of the blank's cell flips with every move; and a move lowers a piece's distance to its
    goal by at most one, so Manhattan distance and the pattern databases of abstractions
    are lower bounds."""

    name = "single-tile"
    suffix = ""  # of the description
    additive_refusal = None
    bipartite = True  # the blank's chessboard colour flips (move_parity)

    def __init__(self, ranking, width, height):
        self.ranking, self.width = ranking, width
        self.max_moves = 4
        self.work_size = ranking.work_size

    def definition(self):
        return {}  # a metric is stored only when it is not this one: old layers keep their hash

    def tables(self):
        return self.ranking.tables()

    def layer_expansion(self, puzzle):
        """The plane kernels; None when the numbering's tables would be too large (the
        engine then expands state by state)."""
        if self.ranking.plane_plan is None:
            return None
        return puzzle.compiled.plane_expansion(puzzle)

    def expansion_bytes(self):
        return self.ranking.plane_bytes()

    def move_parity(self, ranks):
        """The chessboard colour of the blank's cell, the rank's leading digit."""
        blank = np.asarray(ranks, dtype=np.int64) // self.ranking.plane
        return (blank // self.width + blank % self.width) & 1

    def parity_run(self):
        """The plane of one blank cell: its ranks are consecutive, its parity the same."""
        return self.ranking.plane

    def heuristics(self, puzzle):
        return {"manhattan": lambda: puzzle.compiled.manhattan_bound(puzzle)}

    def pattern_bound(self, puzzle, abstract, depths):
        return puzzle.compiled.pattern_bound(puzzle, abstract, puzzle.colouring(abstract),
                                             depths)

    def relabelling(self, puzzle):
        return self.ranking.relabelling(puzzle)


class MultiTile:
    """A run of pieces a move: the blank jumps to any of the width + height - 2 other cells
    of its row and column.  A jump of two cells keeps the blank's colour (no move parity),
    and takes a piece several cells at once (no Manhattan or single-tile pattern bound)."""

    name = "multi-tile"
    suffix = ", multi-tile moves"
    additive_refusal = "additive pattern databases count single-tile moves (metric single-tile)"
    bipartite = False

    def __init__(self, ranking, width, height):
        self.ranking, self.width, self.height = ranking, width, height
        self.max_moves = width + height - 2
        self.work_size = ranking.jump_work_size

    def definition(self):
        return {"metric": self.name}

    def tables(self):
        return MultiTileTables(self.ranking.adjacent, *self.ranking.jump_fields(),
                               np.int64(self.width))

    @property
    def plane_jumps(self):
        """Whether the layer expansion goes through the plane tables (PlaneJumpExpansion):
        it writes out at most MAX_JUMPS jumps along a column."""
        return self.ranking.plane_plan is not None and self.height - 1 <= MAX_JUMPS

    def layer_expansion(self, puzzle):
        """multi_kernels.PlaneJumpExpansion (the plane kernels' trackers, one per cell of a
        jump along the column), or MultiTileExpansion (state by state) without plane tables
        or past MAX_JUMPS + 1 rows."""
        kernels = puzzle.compiled
        if self.plane_jumps:
            return kernels.multi_kernels.PlaneJumpExpansion(kernels.plane_expansion(puzzle),
                                                            puzzle)
        return kernels.multi_kernels.MultiTileExpansion(puzzle)

    def expansion_bytes(self):
        return self.ranking.plane_bytes() if self.plane_jumps else 0

    def move_parity(self, ranks):
        return None

    def parity_run(self):
        return None

    def heuristics(self, puzzle):
        return {}

    def pattern_bound(self, puzzle, abstract, depths):
        raise PuzzleError(f"{puzzle.name}: no pattern databases for multi-tile moves (a "
                          f"single-tile distance is no lower bound for them)")

    def relabelling(self, puzzle):
        return None


METRICS = {metric.name: metric for metric in (SingleTile, MultiTile)}
