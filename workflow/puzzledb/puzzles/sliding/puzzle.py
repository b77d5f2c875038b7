"""Sliding-tile puzzles on a rectangle with one blank: the coloured 15-puzzles, the 8-puzzle,
the 15-puzzle.

A puzzle is data: its width, height and goal string.  Pieces that repeat make a multiset
(every arrangement is reachable, since swapping two equal pieces fixes any parity); distinct
tiles make a permutation whose parity is tied to the blank's row (an even-width board turns
the parity over with each vertical move, an odd-width board never does).  The compiled
kernels are in kernels.py.
"""

import re
from collections import Counter, namedtuple
from functools import cached_property
from math import factorial, prod

import numpy as np

from puzzledb.errors import BoardError, DefinitionError, PuzzleError
from puzzledb.puzzles.base import (
    RANK_LIMIT,
    SEPARATORS,
    GoalFrames,
    PatternBounds,
    Puzzle,
    TilePartition,
    format_rows,
)
from puzzledb.puzzles.ranking import (
    combination_masks,
    multiset_weights,
    permutation_parity,
    rank_multiset,
    rank_permutation,
    unrank_multiset,
    unrank_permutation,
)
from puzzledb.puzzles.geometry import cell_maps, grid_adjacency
from puzzledb.puzzles.sliding import partitions
from puzzledb.puzzles.sliding.goal_frame import GoalFrame

SYMBOLS = "0123456789abcdefghijklmnopqrstuvwxyz"
MAX_CELLS = 64  # a board's cells as the bits of one word (repeated pieces)

# The kernels' data (see puzzledb.compiled).  Distinct tiles: the permutation rank of ranking.py;
# repeated pieces: the multiset rank, with the unrank table of each class's combinations.
PermutationTables = namedtuple("PermutationTables",
                               "adjacent half_factorial parity_of_blank goal")
MultisetTables = namedtuple("MultisetTables",
                            "adjacent counts weights pools combinations full")
ManhattanTables = namedtuple("ManhattanTables", "puzzle costs")
PatternTables = namedtuple("PatternTables", "puzzle abstract colours depths")
RelabelTables = namedtuple("RelabelTables", "half_factorial parity_of_blank goal")
# the multi-tile metric (multi_kernels.py): either rank family's data, `distinct` says which
MultiTileTables = namedtuple("MultiTileTables", "adjacent half_factorial parity_of_blank counts "
                             "weights distinct width")
METRICS = ("single-tile", "multi-tile")
# multi_kernels.PlaneJumpExpansion writes out the jumps along a column one by one: boards of
# more rows go state by state (MultiTileExpansion)
MAX_JUMPS = 3


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


class SlidingPuzzle(Puzzle, GoalFrames, PatternBounds):
    family = "sliding"
    kernels = "puzzledb.puzzles.sliding.kernels"
    max_moves = 4

    def __init__(self, name, width, height, goal, metric="single-tile", description=""):
        self.name = name
        if metric not in METRICS:
            raise DefinitionError("metric", f"{metric!r}: single-tile (one piece a move) or "
                                  f"multi-tile (a run of pieces of a row or column a move)")
        # multi-tile: the blank jumps to any cell of its row or column; a jump of k cells
        # is k single-tile moves, so the reachable set and the ranks are the same
        self.multi_tile = metric == "multi-tile"
        self.max_moves = width + height - 2 if self.multi_tile else 4
        self.width = width
        self.height = height
        self.cells = width * height
        for key, length in (("width", width), ("height", height)):
            if length < 2:
                raise DefinitionError(key, f"{length}: at least 2 (on a single row or column "
                                      f"the pieces never pass each other)")
        if self.cells > MAX_CELLS:
            raise DefinitionError("width", f"a {width}x{height} board has {self.cells} cells, "
                                  f"more than {MAX_CELLS}")
        given = goal
        goal = self.goal_cells(goal, SYMBOLS, {"_": "0"},
                               "use 1-9 and a-z for pieces, 0 for the blank")
        if goal.count("0") != 1:
            raise DefinitionError("goal", f"{given!r} has {goal.count('0')} blanks (0), "
                                  f"expected exactly one")
        self.symbols = "0" + "".join(sorted(set(goal) - {"0"}))
        self.code = {s: i for i, s in enumerate(self.symbols)}
        self.goal = np.array([self.code[s] for s in goal], dtype=np.int64)
        self.goal_blank = goal.index("0")
        self.counts = np.array([goal.count(s) for s in self.symbols], dtype=np.int64)
        self.adjacent = grid_adjacency(width, height)
        self.distinct = bool(np.all(self.counts == 1))
        # distinct tiles: half the orders of the tiles, for each blank cell; repeated pieces:
        # every arrangement (swapping two equal pieces fixes any parity)
        size = (self.cells * (factorial(self.cells - 1) // 2) if self.distinct else
                factorial(self.cells) // prod(factorial(int(c)) for c in self.counts))
        if size >= RANK_LIMIT and not self.distinct:
            raise DefinitionError("goal", f"{width}x{height} with these pieces has {size:,} "
                                  f"positions, too many to rank in 64 bits")
        # distinct tiles beyond 64-bit ranks (the 24-puzzle): ranks stay Python integers for
        # routes; no database or rank kernel, only the additive search (Puzzle.ranks_fit)
        if self.distinct:
            self.half_factorial = factorial(len(self.symbols) - 1) // 2
            self.size = self.cells * self.half_factorial
            goal_parity = permutation_parity(p for p in self.goal if p)
            flips = (width - 1) & 1
            self.parity_of_blank = np.array(
                [goal_parity ^ (flips * (b // width - self.goal_blank // width) & 1)
                 for b in range(self.cells)],
                dtype=np.int64,
            )
        else:
            self.weights, self.size = multiset_weights(self.counts)
        self.description = description or (
            f"{width}x{height} sliding puzzle, goal {self.format(self.goal)}"
            f"{', multi-tile moves' if self.multi_tile else ''}")

    @property
    def work_size(self):
        # distinct tiles: the board, per tile three numbers that let the next rank in order
        # be decoded from where this one differs (permutation_unrank_after) and its Lehmer
        # digit, from which a vertical move's rank is computed (kernels._vertical)
        if self.multi_tile and not self.distinct:
            return self.cells
        return 5 * self.cells - 4 if self.distinct else 2 * self.counts.size

    def definition(self):
        definition = {
            "family": "sliding",
            "width": self.width,
            "height": self.height,
            "goal": self.format(self.goal),
            "ranking": "permutation-parity/1" if self.distinct else "multiset/1",
        }
        if self.multi_tile:  # stored only then: single-tile layers keep their hash
            definition["metric"] = "multi-tile"
        return definition

    def make_tables(self):
        if self.multi_tile:
            weights = np.zeros(1, np.int64) if self.distinct else self.weights
            return MultiTileTables(
                self.adjacent, np.int64(self.half_factorial if self.distinct else 0),
                self.parity_of_blank if self.distinct else np.zeros(1, np.int64),
                self.counts, np.asarray(weights, dtype=np.int64), np.int64(self.distinct),
                np.int64(self.width))
        if self.distinct:
            return PermutationTables(self.adjacent, np.int64(self.half_factorial),
                                     self.parity_of_blank, self.goal)
        return self.multiset_tables()

    def multiset_tables(self):
        """The MultisetTables of repeated pieces (the single-tile kernels' tables, and the
        pool kernels' base in either metric)."""
        k = self.counts.size
        pools = np.array([self.cells - self.counts[0] - self.counts[1:c].sum()
                          for c in range(k)], dtype=np.int64)
        masks = [combination_masks(pools[c], self.counts[c]) for c in range(1, k - 1)]
        combinations = np.zeros((k, max([m.size for m in masks], default=1)), np.uint64)
        for c, table in enumerate(masks, 1):
            combinations[c, : table.size] = table
        return MultisetTables(self.adjacent, self.counts, self.weights, pools, combinations,
                              np.uint64((1 << self.cells) - 1))

    # -- the layer expansion: whole planes of the engine's two-bit array --------------------
    #
    # Both rank families put the blank's cell first, so the states with the blank in cell b
    # are one plane of consecutive ranks, and a horizontal move keeps the rest of the rank:
    # a whole word of states moves to the next plane at once.  See plane_kernels.py.

    def layer_expansion(self):
        """The plane kernels; multi-tile moves: multi_kernels.PlaneJumpExpansion (the plane
        kernels' trackers, one per cell of a jump along the column), or MultiTileExpansion
        (state by state) without plane tables or past MAX_JUMPS + 1 rows; None for a
        single-tile board whose tables would be too large (the engine then expands state by
        state)."""
        kernels = self.compiled
        if self.plane_jumps:
            return kernels.multi_kernels.PlaneJumpExpansion(kernels.plane_expansion(self), self)
        if self.multi_tile:
            return kernels.multi_kernels.MultiTileExpansion(self)
        if self.plane_plan is None:
            return None
        return kernels.plane_expansion(self)

    @property
    def plane_jumps(self):
        """Whether the multi-tile expansion goes through the plane tables (PlaneJumpExpansion):
        it writes out at most MAX_JUMPS jumps along a column."""
        return (self.multi_tile and self.plane_plan is not None
                and self.height - 1 <= MAX_JUMPS)

    def expansion_bytes(self):
        plan = self.plane_plan
        if plan is None or (self.multi_tile and not self.plane_jumps):
            return 0
        return (8 * sum(entries for _, _, entries, _ in plan.suffixes) if self.distinct else
                4 * sum(1 << p for p in plan))

    @cached_property
    def plane_plan(self):
        """Distinct tiles: a FactoredPlan; repeated pieces: the pool of each class 1..K-2 (one
        rank table each); None when a table would be too large."""
        if not self.distinct:
            k = self.counts.size
            pools = [self.cells - int(self.counts[0]) - int(self.counts[1:c].sum())
                     for c in range(1, k - 1)]
            return None if any(p > MAX_POOL for p in pools) else pools
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

    # -- boards --------------------------------------------------------------------------
    def parse(self, text):
        board = self.pieces(text)
        if not self.reachable(board):
            raise BoardError(f"{self.name}: board {text!r} is unreachable (wrong "
                             f"permutation parity)")
        return board

    def pieces(self, text):
        """The piece codes of a board string holding the goal's pieces, reachable or not.
        Besides symbols, the literature's notation is read: one decimal number a cell
        (`14 13 15 7 ...`), tile n being symbol n."""
        text = decimal_symbols(text, self.cells) or text
        cells = self.cells_of(str(text).lower(), self.symbols, {"_": "0"})
        have = Counter(cells)
        for symbol, want in zip(self.symbols, self.counts):
            if have[symbol] != want:
                raise BoardError(f"{self.name}: board {text!r} has {have[symbol]} of piece "
                                 f"{symbol!r}, expected {want}")
        return np.array([self.code[s] for s in cells], dtype=np.int64)

    def reachable(self, board):
        """Whether the goal reaches the board: always with repeated pieces; with distinct
        tiles when its permutation parity is the one its blank's row calls for."""
        if not self.distinct:
            return True
        blank = int(np.flatnonzero(board == 0)[0])
        return permutation_parity(p for p in board if p) == self.parity_of_blank[blank]

    def format(self, board):
        return format_rows([self.symbols[p] for p in board], self.width)

    def notation(self, text):
        return "decimal" if decimal_symbols(text, self.cells) else "symbols"

    def format_as(self, board, notation):
        """"decimal": one number a cell, separated by spaces, as the literature writes
        boards (`14 13 15 7 ...`); otherwise format's symbols."""
        if notation == "decimal":
            return " ".join(str(SYMBOLS.index(self.symbols[p])) for p in board)
        return self.format(board)

    # One board is ranked and decoded in plain Python (ranking.py), without the kernels:
    # a job that decodes a few boards then never loads numba.
    def rank(self, board):
        if self.distinct:
            return rank_permutation(board)
        return rank_multiset(board, self.counts)

    def unrank(self, rank, level=0):
        self.check_rank(rank, level)
        if self.distinct:
            board = unrank_permutation(int(rank), self.parity_of_blank)
        else:
            board = unrank_multiset(int(rank), self.counts)
        return np.array(board, dtype=np.int64)

    # -- capabilities ----------------------------------------------------------------------
    def move_parity(self, ranks):
        """Every move takes the blank to a neighbouring cell, so the chessboard colour of the
        blank's cell (the rank's leading digit) flips with every move.  Multi-tile moves:
        none (a jump of two cells keeps the colour)."""
        if self.multi_tile or not self.ranks_fit:  # no engine searches such a puzzle
            return None
        blank = np.asarray(ranks, dtype=np.int64) // self.parity_run()
        return (blank // self.width + blank % self.width) & 1

    def parity_run(self):
        """The plane of one blank cell: its ranks are consecutive, its parity the same."""
        if self.multi_tile or not self.ranks_fit:
            return None
        return self.half_factorial if self.distinct else int(self.weights[0])

    def symmetries(self):
        """The rectangle's symmetries (the square's eight) that map the goal onto itself,
        piece for piece: moves go to moves, so layers are unions of orbits.  Only a goal
        with repeated pieces can have one (distinct tiles would need renaming)."""
        return tuple(p for p in cell_maps(self.width, self.height)[1:]
                     if np.array_equal(self.goal[list(p)], self.goal))

    def canonical_ranks(self, ranks, level=0):
        ranks = np.asarray(ranks, dtype=np.uint64)
        if not self.symmetries():
            return ranks.copy()
        perms = np.array([tuple(range(self.cells)), *self.symmetries()], dtype=np.int64)
        return self.compiled.canonical(ranks, perms, self.tables())

    # Multi-tile moves take a piece several cells at once: Manhattan distance and the
    # single-tile pattern databases are no lower bounds for them.
    def heuristics(self):
        if self.multi_tile or not self.ranks_fit:  # the compiled bounds read int64 ranks
            return {}
        return {"manhattan": lambda: self.compiled.manhattan_bound(self)}

    def pattern_bound(self, abstract, depths):
        if self.multi_tile:
            raise PuzzleError(f"{self.name}: no pattern databases for multi-tile moves (a "
                              f"single-tile distance is no lower bound for them)")
        return self.compiled.pattern_bound(self, abstract, self.colouring(abstract), depths)

    def query_sets(self):
        """Distinct tiles: 'blank-at-goal', every position with the blank where the goal has
        it, one block of ranks because the blank's cell is the rank's leading digit."""
        if not self.distinct or not self.ranks_fit:
            return {}
        block = self.half_factorial
        return {"blank-at-goal": lambda: np.arange(self.goal_blank * block,
                                                  (self.goal_blank + 1) * block,
                                                  dtype=np.uint64)}

    def relabelling(self):
        """Distinct tiles: the tile renaming that meet-in-the-middle matching exploits (see
        SlidingRelabelling); None for pieces that repeat."""
        return (SlidingRelabelling(self) if self.distinct and not self.multi_tile
                and self.ranks_fit else None)

    def additive_partitions(self):
        """The named partitions of the board's shape (partitions.NAMED_PARTITIONS: the
        15-puzzle's 7-8 and 6-6-3, the 24-puzzle's 6-6-6-6), for distinct tiles and a blank
        whose goal is the bottom right cell; none otherwise."""
        return partitions.named(self)

    def additive_partition(self, spec):
        """A partition given by name or as groups of tiles (partitions.partition_of)."""
        return partitions.partition_of(self, spec)

    def partition(self, name, groups):
        """A TilePartition of this board from groups of goal cells (the blank's left out)."""
        tiles = [tuple(int(self.goal[c]) for c in cells if c != self.goal_blank)
                 for cells in groups]
        return TilePartition(name, self.width, self.height, tuple(int(p) for p in self.goal),
                             tuple(tiles),
                             tuple("".join(self.symbols[t] for t in g) for g in tiles))

    def goal_frame(self, goal):
        """Distinct tiles: a GoalFrame towards `goal`, the same tiles in another order."""
        if not self.distinct:
            raise PuzzleError(f"{self.name}: --goal needs distinct tiles")
        return GoalFrame(self, goal)

    # -- Manhattan distance and pattern databases --------------------------------------------
    #
    # Manhattan distance, for distinct or repeated pieces.  Admissible: a move takes one piece
    # one cell, so it lowers that piece's distance to its nearest goal cell of its kind by
    # at most one, and at the goal every such distance is zero.  With distinct tiles the
    # nearest goal cell is the tile's own: the classic Manhattan distance.

    def manhattan_costs(self):
        """costs[cell, piece]: rows plus columns from cell to the nearest goal cell of piece
        (0 for the blank)."""
        w = self.width
        costs = np.zeros((self.cells, len(self.symbols)), dtype=np.int64)
        for piece in range(1, len(self.symbols)):
            targets = np.flatnonzero(self.goal == piece)
            for cell in range(self.cells):
                costs[cell, piece] = min(abs(cell // w - t // w) + abs(cell % w - t % w)
                                         for t in targets)
        return costs

    def manhattan_reference(self, board):
        """Manhattan distance of a board, in plain Python (tests compare the kernel)."""
        w = self.width
        goal = [int(p) for p in self.goal]
        return sum(min(abs(cell // w - t // w) + abs(cell % w - t % w)
                       for t, g in enumerate(goal) if g == piece)
                   for cell, piece in enumerate(int(p) for p in board) if piece)

    # An abstraction colours the pieces (tile -> colour, the blank stays the blank) so that
    # the goal becomes the abstract puzzle's goal, on a board of the same shape.  Admissible:
    # moves depend only on where the blank is, so every move maps to a move of the abstract
    # puzzle and every solution to an abstract solution of the same length; the abstract
    # distance, read from its database, is at most the true one.

    def colouring(self, abstract, colour_of=None):
        """The colour (abstract piece code) of each piece code, as an int64 array.

        colour_of: {piece symbol: abstract symbol}; by default read off the two goals cell by
        cell.  PuzzleError unless it maps the blank to the blank and the goal onto the
        goal."""
        refused = f"{abstract.name} is not an abstraction of {self.name}"
        if abstract.family != self.family or abstract.cells != self.cells or \
                abstract.width != self.width:
            raise PuzzleError(f"{refused}: pattern databases need two sliding puzzles of "
                              f"the same shape")
        if colour_of is None:
            colour_of = {}
            for p, a in zip(self.goal, abstract.goal):
                symbol, colour = self.symbols[p], abstract.symbols[a]
                if colour_of.setdefault(symbol, colour) != colour:
                    raise PuzzleError(f"{refused}: piece {symbol!r} would get two colours")
        missing = [s for s in self.symbols if s not in colour_of]
        if missing:
            raise PuzzleError(f"{refused}: no colour for piece {missing[0]!r}")
        colours = np.array([abstract.code[colour_of[s]] for s in self.symbols],
                           dtype=np.int64)
        blank_ok = colours[0] == 0 and np.count_nonzero(colours == 0) == 1
        if not blank_ok or not np.array_equal(colours[self.goal], abstract.goal):
            raise PuzzleError(f"{refused}: the colouring does not map the goal onto the goal")
        return colours


def decimal_symbols(text, cells):
    """A board written one decimal number a cell (`14 13 15 7 ...`, tile n being symbol n) as
    a string of symbols; None when text is not written so (the one reader of the notation)."""
    tokens = [t for t in re.split(f"[{re.escape(SEPARATORS)}]+", str(text)) if t]
    if len(tokens) == cells and all(t.isdecimal() and int(t) < len(SYMBOLS) for t in tokens):
        return "".join(SYMBOLS[int(t)] for t in tokens)
    return None


class SlidingRelabelling:
    """Tile renaming for query/matching.py.  Moves depend only on where the blank is, so renaming
    the tiles maps paths to paths: a query q with its blank where the goal has it is the goal
    renamed by s (s(goal[i]) = q[i]), and the states j moves from q are the goal's layer j
    renamed by s.  s is even (q and the goal have the same blank cell, hence the same
    parity), so renamed states stay reachable.  The key of such a query is its own rank;
    compiled.relabel(rank, key, tables) renames a state by the query `key`."""

    def __init__(self, puzzle):
        puzzle.compiled  # the relabel kernel is registered before its tables reach numba
        self.goal_blank = puzzle.goal_blank
        self.block = puzzle.half_factorial
        self.tables = RelabelTables(np.int64(puzzle.half_factorial), puzzle.parity_of_blank,
                                    puzzle.goal)

    def keys(self, ranks):
        ranks = np.asarray(ranks, dtype=np.int64)
        return np.where(ranks // self.block == self.goal_blank, ranks, -1)
