"""The two numberings of a sliding puzzle's positions, one of the two parts a SlidingPuzzle
composes (the other is its metric, metrics.py): DistinctTiles, a permutation whose parity
the blank's row fixes, and RepeatedPieces, a multiset (every arrangement is reachable, since
swapping two equal pieces fixes any parity).  Plain Python; the kernels are in kernels.py.

Both put the blank's cell first: rank = blank * plane + rest, so the states with the blank
in one cell are a plane of consecutive ranks (plane_kernels.py), and a horizontal move
keeps `rest`.
"""

from collections import namedtuple
from functools import cached_property
from math import factorial, prod

import numpy as np

from puzzledb.errors import DefinitionError, PuzzleError
from puzzledb.puzzles.base import RANK_LIMIT
from puzzledb.puzzles.ranking import (
    combination_masks,
    multiset_weights,
    permutation_parity,
    rank_multiset,
    rank_permutation,
    unrank_multiset,
    unrank_permutation,
)
from puzzledb.puzzles.sliding.goal_frame import GoalFrame

# The single-tile kernels' data (see puzzledb.compiled).  Distinct tiles: the permutation
# rank of ranking.py; repeated pieces: the multiset rank, with the unrank table of each
# class's combinations.
PermutationTables = namedtuple("PermutationTables",
                               "adjacent half_factorial parity_of_blank goal")
MultisetTables = namedtuple("MultisetTables",
                            "adjacent counts weights pools combinations full")
RelabelTables = namedtuple("RelabelTables", "half_factorial parity_of_blank goal")

# The plane expansion (distinct_kernels.py) of distinct tiles splits the rank around the
# reading window of each vertical move: a prefix block of at least PREFIX_MIN_BLOCK ranks
# shares one rank change, else a suffix table of at most SUFFIX_MAX_TABLE entries gives it.
# Repeated pieces: a rank table of 2^pool entries per class, pools of at most MAX_POOL cells.
PREFIX_MIN_BLOCK = 60
SUFFIX_MAX_TABLE = 1 << 22
MAX_POOL = 20
# move m = 2 * blank + (0 down, 1 up); kind 0 prefix, 1 suffix; suffix: (window start,
# rotation to the right, entries, offset in the one table array) of each table
FactoredPlan = namedtuple("FactoredPlan", "target start kind split block offset suffixes")


class DistinctTiles:
    """Every piece distinct: half the orders of the tiles for each blank cell, the half
    whose permutation parity the blank's row calls for (an even-width board turns the
    parity over with each vertical move, an odd-width board never does).  Ranks beyond 64
    bits (the 24-puzzle) stay Python integers, for routes: no database or rank kernel, only
    the additive search (Puzzle.ranks_fit)."""

    ranking_id = "permutation-parity/1"
    additive_refusal = None  # the additive pattern databases are for distinct tiles

    def __init__(self, puzzle):
        self.cells, self.width, self.adjacent = puzzle.cells, puzzle.width, puzzle.adjacent
        self.goal, self.goal_blank, self.counts = puzzle.goal, puzzle.goal_blank, puzzle.counts
        self.half_factorial = factorial(self.cells - 1) // 2
        self.size = self.cells * self.half_factorial
        self.plane = self.half_factorial
        goal_parity = permutation_parity(p for p in self.goal if p)
        flips = (self.width - 1) & 1
        self.parity_of_blank = np.array(
            [goal_parity ^ (flips * (b // self.width - self.goal_blank // self.width) & 1)
             for b in range(self.cells)],
            dtype=np.int64,
        )
        # the board, per tile three numbers that let the next rank in order be decoded from
        # where this one differs (permutation_unrank_after) and its Lehmer digit, from which
        # a vertical move's rank is computed (kernels._vertical); the multi-tile kernel
        # decodes the same way
        self.work_size = self.jump_work_size = 5 * self.cells - 4

    def rank(self, board):
        return rank_permutation(board)

    def unrank(self, rank):
        return np.array(unrank_permutation(int(rank), self.parity_of_blank), dtype=np.int64)

    def reachable(self, board):
        """Whether the permutation parity is the one the blank's row calls for."""
        blank = int(np.flatnonzero(board == 0)[0])
        return permutation_parity(p for p in board if p) == self.parity_of_blank[blank]

    def tables(self):
        return PermutationTables(self.adjacent, np.int64(self.half_factorial),
                                 self.parity_of_blank, self.goal)

    def jump_fields(self):
        """MultiTileTables' fields of this numbering: half_factorial parity_of_blank counts
        weights distinct."""
        return (np.int64(self.half_factorial), self.parity_of_blank, self.counts,
                np.zeros(1, np.int64), np.int64(1))

    @cached_property
    def plane_plan(self):
        """A FactoredPlan of each vertical move's rank change; None when a table would be too
        large (the engines then expand state by state)."""
        n, w = self.cells - 1, self.width
        moves = 2 * self.cells
        target, start, kind, split, offset = ([-1] * moves, [0] * moves, [0] * moves,
                                              [0] * moves, [0] * moves)
        block = [1] * moves
        suffixes = {}
        at = 0
        for b in range(self.cells):
            # down: the tile below moves up, the window [b, b + w) of reading positions
            # turns right; up: the window [b - w, b) turns left
            for d, (to, a) in enumerate(((b + w, b), (b - w, b - w))):
                if not 0 <= to < self.cells:
                    continue
                m = 2 * b + d
                target[m], start[m] = to, a
                prefix = factorial(n - a - w) // 2 if n - a - w >= 2 else 0
                if prefix >= PREFIX_MIN_BLOCK or factorial(n - a) > SUFFIX_MAX_TABLE:
                    if prefix < 1:
                        return None
                    kind[m], split[m], block[m] = 0, a + w, prefix
                    continue
                kind[m], split[m], block[m] = 1, a, factorial(n - a) // 2
                key = (a, d == 0)
                if key not in suffixes:
                    suffixes[key] = (a, d == 0, factorial(n - a), at)
                    at += factorial(n - a)
                offset[m] = suffixes[key][3]
        arrays = (np.array(v, dtype=np.int64) for v in (target, start, kind, split, block,
                                                       offset))
        return FactoredPlan(*arrays, tuple(suffixes.values()))

    def plane_bytes(self):
        """Bytes of the plane expansion's tables: its suffix tables, 8 bytes an entry."""
        plan = self.plane_plan
        return 0 if plan is None else 8 * sum(entries for _, _, entries, _ in plan.suffixes)

    def query_sets(self):
        """'blank-at-goal', every position with the blank where the goal has it: one block
        of ranks, the blank's cell being the rank's leading digit."""
        block = self.half_factorial
        return {"blank-at-goal": lambda: np.arange(self.goal_blank * block,
                                                  (self.goal_blank + 1) * block,
                                                  dtype=np.uint64)}

    def relabelling(self, puzzle):
        puzzle.compiled  # the relabel kernel is registered before its tables reach numba
        return SlidingRelabelling(self)

    def goal_frame(self, puzzle, goal):
        return GoalFrame(puzzle, goal)


class RepeatedPieces:
    """Pieces that repeat: the multiset rank, the blank's cell first, then each class's
    cells among those the classes before it leave (a combination each)."""

    ranking_id = "multiset/1"
    additive_refusal = "additive pattern databases need distinct tiles"

    def __init__(self, puzzle):
        self.cells, self.adjacent, self.counts = puzzle.cells, puzzle.adjacent, puzzle.counts
        size = factorial(self.cells) // prod(factorial(int(c)) for c in self.counts)
        if size >= RANK_LIMIT:
            raise DefinitionError("goal", f"{puzzle.width}x{puzzle.height} with these pieces "
                                  f"has {size:,} positions, too many to rank in 64 bits")
        self.weights, self.size = multiset_weights(self.counts)
        self.plane = int(self.weights[0])
        # the cells of each class's combination: those neither blank nor of a class before it
        self.pools = [self.cells - int(self.counts[0]) - int(self.counts[1:c].sum())
                      for c in range(self.counts.size)]
        # the single-tile kernel holds a cell mask and a digit per class; the multi-tile one
        # the board
        self.work_size = 2 * self.counts.size
        self.jump_work_size = self.cells

    def rank(self, board):
        return rank_multiset(board, self.counts)

    def unrank(self, rank):
        return np.array(unrank_multiset(int(rank), self.counts), dtype=np.int64)

    def reachable(self, board):
        """Always: swapping two equal pieces fixes any parity."""
        return True

    def tables(self):
        """The MultisetTables (the single-tile kernels' tables, and the pool kernels' base in
        either metric)."""
        k = self.counts.size
        pools = np.array(self.pools, dtype=np.int64)
        masks = [combination_masks(pools[c], self.counts[c]) for c in range(1, k - 1)]
        combinations = np.zeros((k, max([m.size for m in masks], default=1)), np.uint64)
        for c, table in enumerate(masks, 1):
            combinations[c, : table.size] = table
        return MultisetTables(self.adjacent, self.counts, self.weights, pools, combinations,
                              np.uint64((1 << self.cells) - 1))

    def jump_fields(self):
        """MultiTileTables' fields of this numbering: half_factorial parity_of_blank counts
        weights distinct."""
        return (np.int64(0), np.zeros(1, np.int64), self.counts,
                np.asarray(self.weights, dtype=np.int64), np.int64(0))

    @cached_property
    def plane_plan(self):
        """The pool of each class 1..K-2 (one rank table each); None when a table would be
        too large (the engines then expand state by state)."""
        pools = self.pools[1:-1]
        return None if any(p > MAX_POOL for p in pools) else pools

    def plane_bytes(self):
        """Bytes of the plane expansion's tables: a rank table of 2^pool int32 per class."""
        plan = self.plane_plan
        return 0 if plan is None else 4 * sum(1 << p for p in plan)

    def query_sets(self):
        return {}

    def relabelling(self, puzzle):
        return None  # a renaming of pieces that repeat is no permutation of the tiles

    def goal_frame(self, puzzle, goal):
        raise PuzzleError(f"{puzzle.name}: --goal needs distinct tiles")


class SlidingRelabelling:
    """Tile renaming for query/matching.py.  Moves depend only on where the blank is, so
    renaming the tiles maps paths to paths: a query q with its blank where the goal has it
    is the goal renamed by s (s(goal[i]) = q[i]), and the states j moves from q are the
    goal's layer j renamed by s.  s is even (q and the goal have the same blank cell, hence
    the same parity), so renamed states stay reachable.  The key of such a query is its own
    rank; compiled.relabel(rank, key, tables) renames a state by the query `key`."""

    def __init__(self, ranking):
        self.goal_blank = ranking.goal_blank
        self.block = ranking.half_factorial
        self.tables = RelabelTables(np.int64(ranking.half_factorial), ranking.parity_of_blank,
                                    ranking.goal)

    def keys(self, ranks):
        ranks = np.asarray(ranks, dtype=np.int64)
        return np.where(ranks // self.block == self.goal_blank, ranks, -1)
