"""Sliding-tile puzzles on a rectangle with one blank: the coloured 15-puzzles, the 8-puzzle,
the 15-puzzle, and any other given as data: its width, height, goal string and metric.

A SlidingPuzzle is its board (the goal, its pieces, boards written as text) and two parts
chosen independently: its numbering (rankings.py: DistinctTiles, a permutation whose
parity the blank's row fixes, or RepeatedPieces, a multiset) and its metric (metrics.py:
SingleTile or MultiTile).  The puzzle asks them; it never asks which they are.  The
compiled kernels are in kernels.py.
"""

import re
from collections import Counter, namedtuple

from functools import cached_property

import numpy as np

from puzzledb.errors import BoardError, DefinitionError, PuzzleError
from puzzledb.puzzles.base import SEPARATORS, Puzzle, format_rows
from puzzledb.puzzles.capabilities import GoalFrames, PatternBounds, TilePartition
from puzzledb.puzzles.geometry import cell_maps, grid_adjacency
from puzzledb.puzzles.sliding import partitions
from puzzledb.puzzles.sliding.metrics import METRICS
from puzzledb.puzzles.sliding.symmetry import SlidingSymmetry
from puzzledb.puzzles.sliding.rankings import DistinctTiles, RepeatedPieces

SYMBOLS = "0123456789abcdefghijklmnopqrstuvwxyz"
MAX_CELLS = 64  # a board's cells as the bits of one word (repeated pieces)

# The bounds' data (see puzzledb.compiled); the numberings' and the metrics' are theirs.
ManhattanTables = namedtuple("ManhattanTables", "puzzle costs")
PatternTables = namedtuple("PatternTables", "puzzle abstract colours depths")


class SlidingPuzzle(Puzzle, GoalFrames, PatternBounds):
    family = "sliding"
    kernels = "puzzledb.puzzles.sliding.kernels"

    def __init__(self, name, width, height, goal, metric="single-tile", description=""):
        self.name = name
        if metric not in METRICS:
            raise DefinitionError("metric", f"{metric!r}: single-tile (one piece a move) or "
                                  f"multi-tile (a run of pieces of a row or column a move)")
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
        # the two parts: every piece once is a permutation, pieces that repeat a multiset
        distinct = bool(np.all(self.counts == 1))
        self.ranking = (DistinctTiles if distinct else RepeatedPieces)(self)
        self.metric = METRICS[metric](self.ranking, width, height)
        self.size = self.ranking.size
        self.bipartite = self.metric.bipartite and self.ranks_fit  # the blank's colour
        self.max_moves = self.metric.max_moves
        self.description = description or (
            f"{width}x{height} sliding puzzle, goal {self.format(self.goal)}"
            f"{self.metric.suffix}")

    @property
    def work_size(self):
        return self.metric.work_size

    def definition(self):
        return {
            "family": "sliding",
            "width": self.width,
            "height": self.height,
            "goal": self.format(self.goal),
            "ranking": self.ranking.ranking_id,
            **self.metric.definition(),
        }

    def make_tables(self):
        return self.metric.tables()

    # Both numberings put the blank's cell first, so the states with the blank in cell b are
    # one plane of consecutive ranks, and a horizontal move keeps the rest of the rank: a
    # whole word of states moves to the next plane at once.  See plane_kernels.py.
    def layer_expansion(self):
        return self.metric.layer_expansion(self)

    def expansion_bytes(self):
        return self.metric.expansion_bytes()

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
        return self.ranking.reachable(board)

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
        return self.ranking.rank(board)

    def unrank(self, rank, level=0):
        self.check_rank(rank, level)
        return self.ranking.unrank(rank)

    # -- capabilities: the metric's and the numbering's; none for ranks beyond 64 bits,
    # which no engine searches and the compiled bounds cannot read --------------------------
    def move_parity(self, ranks):
        """Single-tile: the blank's chessboard colour (metrics.SingleTile)."""
        return self.metric.move_parity(ranks) if self.ranks_fit else None

    def parity_run(self):
        return self.metric.parity_run() if self.ranks_fit else None

    def symmetries(self):
        """The rectangle's symmetries (the square's eight) that map the goal onto itself,
        piece for piece: moves go to moves, so layers are unions of orbits.  Only a goal
        with repeated pieces can have one (distinct tiles would need renaming)."""
        return tuple(p for p in cell_maps(self.width, self.height)[1:]
                     if np.array_equal(self.goal[list(p)], self.goal))

    def info_lines(self):
        return [("symmetry", self._symmetry.describe())]

    def symmetry_group(self):
        """The board's symmetries that keep the blank's goal cell, pieces renamed
        (symmetry.py), when there are any and the metric is single-tile."""
        group = self._symmetry
        return group if group.reason is None else None

    @cached_property
    def _symmetry(self):
        return SlidingSymmetry(self)

    def canonical_ranks(self, ranks, level=0):
        ranks = np.asarray(ranks, dtype=np.uint64)
        if not self.symmetries():
            return ranks.copy()
        perms = np.array([tuple(range(self.cells)), *self.symmetries()], dtype=np.int64)
        return self.compiled.canonical(ranks, perms, self.tables())

    def heuristics(self):
        """Single-tile: Manhattan distance (metrics.SingleTile)."""
        return self.metric.heuristics(self) if self.ranks_fit else {}

    def pattern_bound(self, abstract, depths):
        return self.metric.pattern_bound(self, abstract, depths)

    def query_sets(self):
        """Distinct tiles: 'blank-at-goal' (rankings.DistinctTiles)."""
        return self.ranking.query_sets() if self.ranks_fit else {}

    def relabelling(self):
        """Distinct tiles, single-tile: the tile renaming that meet-in-the-middle matching
        exploits (rankings.SlidingRelabelling)."""
        return self.metric.relabelling(self) if self.ranks_fit else None

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
        return self.ranking.goal_frame(self, goal)

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
