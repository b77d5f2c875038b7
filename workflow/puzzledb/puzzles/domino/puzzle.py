"""Sliding puzzles whose blank is a horizontal domino: two side-by-side empty cells that never
separate (seed 002's 14-puzzle is the 4x4 one).  A tile beside the domino in its row jumps two
cells, across it; the two tiles directly above or below it both slide one row into it.

Why the rank is dense, on a board W wide and H high.  The domino covers one cell of each
column parity, so a tile moves two columns sideways or one row and never leaves its column
parity: the tiles fall into two classes, class p living in the n_p columns of parity p
(n_0 = ceil(W/2), n_1 = floor(W/2)), m_p = H * n_p - 1 tiles.  Read each class's tiles in
row-major order, numbered by their order in the goal.  A jump leaves both sequences alone.
A slide moves one tile of each class one row, past the n_p - 1 tiles of its class between
its old and new cell: a rotation of n_p consecutive entries, n_p - 1 transpositions.  So the
parity of class p is (n_p - 1) * (the domino's row distance from its goal row) mod 2: fixed
when n_p is odd, tied to the row when n_p is even.  When n_p = 1 (the middle column of a
3-wide board) no tile ever passes another: the class keeps its goal order.

A state is (domino cell, class-0 sequence, class-1 sequence) with those parities:
H (W - 1) * M_0 * M_1 ranks, M_p = m_p!/2 (1 for a class that keeps its order).  That every
one is reachable was checked by breadth-first search on 3x2..3x5, 4x2..4x4, 5x2, 5x3, 6x2,
7x2 and 8x2 (tests/test_definitions.py, docs/fourteen.md); 4x4 is the seed's 76,204,800.
A single row (no slides: the tiles keep their order) or two columns (the rows only cycle)
is not dense, and is refused.  A class of more than MAX_CLASS tiles is refused too: its
kernel tables hold all m_p! sequences.  The compiled kernels are in kernels.py; the
plain-Python references here are what the tests compare them with.
"""

from collections import namedtuple
from functools import cached_property
from itertools import permutations
from math import factorial

import numpy as np

from puzzledb.errors import BoardError, DefinitionError
from puzzledb.puzzles.base import Puzzle, format_rows
from puzzledb.puzzles.ranking import permutation_parity

SYMBOLS = "_123456789abcdefghijklmnopqrstuvwxyz"  # code 0 is an empty cell
# tiles per class: the tables of a class hold its m! sequences.  It bounds the board (W <= 10,
# H <= 5) and keeps every rank below 2^40, inside the 2^52 of kernels._divide.
MAX_CLASS = 9
MAX_RELABEL_CLASS = 7  # the renaming tables of matching hold m!/2 x m! entries

# The kernels' data (see puzzledb.compiled): per class p, every sequence by Lehmer index (perms),
# the index of each (parity, rank) and each rank with a window of n_p entries rotated
# (rot[direction, parity, window start, rank]); the moves of each domino cell; the weights
# of the rank's digits and their inverses (kernels.py divides by multiplying).
DominoTables = namedtuple(
    "DominoTables",
    "perms0 perms1 index0 index1 rot0 rot1 moves move_counts parity0 parity1 domino_cells "
    "domino_of_cell cell_class tile_class tile_label tile_of weight1 weight01 inverse1 inverse01")
# The renaming of matching: composition_p[s, i] = rank of (even sequence s) o (sequence i).
DominoRelabelTables = namedtuple(
    "DominoRelabelTables",
    "parity0 parity1 index0 index1 composition0 composition1 weight1 weight01 inverse1 "
    "inverse01")

JUMP, SLIDE_DOWN, SLIDE_UP = -1, 0, 1  # a slide down rotates a window left, up right


class ColumnClass:
    """The tiles of one column parity: n columns, m tiles, their count of ranks."""

    def __init__(self, parity, width, height):
        self.parity = parity
        self.columns = (width + 1 - parity) // 2
        self.tiles = height * self.columns - 1
        self.free = self.columns >= 2  # tiles pass each other only with 2+ columns
        self.ranks = factorial(self.tiles) // 2 if self.free else 1

    def row_parity(self, row_distance):
        """The permutation parity of the class with the domino this many rows from its goal
        row: each slide is n - 1 transpositions."""
        return ((self.columns - 1) * row_distance) & 1

    def cell_index(self, row, col):
        """A cell's index among the cells of this class, row-major."""
        return row * self.columns + col // 2


def sequence_tables(column_class):
    """(perms, index_of_rank, rotated) of one class, see DominoTables.  A class that keeps
    its order has the identity alone, of rank 0 in both parities."""
    m, n = column_class.tiles, column_class.columns
    windows = max(m - n + 1, 1)
    if not column_class.free:
        return (np.arange(m, dtype=np.int8)[None, :], np.zeros((2, 1), dtype=np.int32),
                np.zeros((2, 2, windows, 1), dtype=np.int32))
    perms = np.array(list(permutations(range(m))), dtype=np.int8)  # in Lehmer order
    parity = inversions(perms) & 1
    index_of_rank = np.empty((2, perms.shape[0] // 2), dtype=np.int32)
    index = np.arange(perms.shape[0])
    index_of_rank[parity, index // 2] = index  # 2q and 2q+1 have opposite parities
    rotated = np.empty((2, 2, windows, index_of_rank.shape[1]), dtype=np.int32)
    for p in range(2):
        seqs = perms[index_of_rank[p]]
        for j in range(windows):
            for direction, shift in ((SLIDE_DOWN, -1), (SLIDE_UP, 1)):
                moved = seqs.copy()
                moved[:, j:j + n] = np.roll(seqs[:, j:j + n], shift, axis=1)
                rotated[direction, p, j] = lehmer_indices(moved) // 2
    return perms, index_of_rank, rotated


def inversions(perms):
    """The Lehmer digits of each row summed: its number of inversions (rows of perms)."""
    return sum((perms[:, i + 1:] < perms[:, i:i + 1]).sum(axis=1) for i in range(perms.shape[1]))


def lehmer_indices(perms):
    """The Lehmer index of each row of a 2-D array of permutations (vectorised)."""
    m = perms.shape[1]
    index = np.zeros(perms.shape[0], dtype=np.int64)
    for i in range(m):
        index = index * (m - i) + (perms[:, i + 1:] < perms[:, i:i + 1]).sum(axis=1)
    return index


class DominoRelabelling:
    """Tile renaming for query/matching.py: keys(ranks) gives each query its renaming (-1 where the
    query's domino is not where the goal's is); compiled.relabel(rank, key, tables) renames a
    state.

    A move depends only on where the domino is, so renaming tiles maps paths to paths.  A
    query q with its domino where the goal has it is the goal renamed by sigma_q (goal tile
    at cell c -> q's tile at c); the states j moves from q are those j moves from the goal
    renamed by sigma_q.  sigma_q keeps each column class and, with the domino in the goal
    row, each class sequence of q is even: renaming a state composes those even sequences
    with its own."""

    def __init__(self, puzzle):
        t = puzzle.tables()
        self.tables = DominoRelabelTables(
            t.parity0, t.parity1, t.index0, t.index1,
            puzzle.compiled.composition(t.perms0, t.index0),
            puzzle.compiled.composition(t.perms1, t.index1), t.weight1, t.weight01,
            t.inverse1, t.inverse01)
        self.weight = int(t.weight01)
        self.goal_domino = int(puzzle.goal_ranks()[0]) // self.weight

    def keys(self, ranks):
        ranks = np.asarray(ranks, dtype=np.int64)
        d = ranks // self.weight
        # with the domino in the goal row both sequences are even, so the rest of the rank
        # is the pair of class ranks, which is the key
        return np.where(d == self.goal_domino, ranks - d * self.weight, -1)


class DominoPuzzle(Puzzle):
    family = "domino"
    kernels = "puzzledb.puzzles.domino.kernels"
    bipartite = True  # the place of the domino's colour (move_parity)
    max_moves = 4

    def __init__(self, name, width, height, goal, description=""):
        self.name, self.width, self.height = name, width, height
        self.cells = width * height
        if width < 3:
            raise DefinitionError("width", f"{width} is too narrow for a domino blank: at "
                                  f"least 3 (on 2 columns the rows only cycle)")
        if height < 2:
            raise DefinitionError("height", f"{height} row: at least 2 (on one row the "
                                  f"tiles never pass each other)")
        self.classes = [ColumnClass(p, width, height) for p in (0, 1)]
        for c in self.classes:
            if c.free and c.tiles > MAX_CLASS:
                raise DefinitionError(
                    "height" if height > 2 else "width",
                    f"{width}x{height} puts {c.tiles} tiles in one column-parity class; its "
                    f"rank tables hold all their orders, so at most {MAX_CLASS}")
        self.size = height * (width - 1) * self.classes[0].ranks * self.classes[1].ranks
        cells = self.goal_cells(goal, SYMBOLS, {"0": "_"},
                                "use 1-9 and a-z for tiles, _ (or 0) for the two empty cells")
        if cells.count("_") != 2 or "__" not in cells or cells.index("_") % width == width - 1:
            raise DefinitionError("goal", f"{goal!r}: the two empty cells (_) must be side by "
                                  f"side in a row")
        doubled = sorted(s for s in set(cells) - {"_"} if cells.count(s) > 1)
        if doubled:
            raise DefinitionError("goal", f"{goal!r} has tile {doubled[0]!r} more than once; "
                                  f"the tiles of a domino puzzle are distinct")
        self.symbols = "_" + "".join(sorted(set(cells) - {"_"}, key=SYMBOLS.index))
        goal = [self.symbols.index(s) for s in cells]
        self.goal_row = cells.index("_") // width
        # each tile's class (its goal column parity) and its place in its class's goal order
        self.tile_class = np.zeros(len(self.symbols), dtype=np.int64)
        self.tile_label = np.zeros(len(self.symbols), dtype=np.int64)
        self.tile_of = np.zeros((2, max(c.tiles for c in self.classes)), dtype=np.int64)
        seen = [0, 0]
        for cell, t in enumerate(goal):
            if t:
                p = cell % width % 2
                self.tile_class[t], self.tile_label[t] = p, seen[p]
                self.tile_of[p, seen[p]] = t
                seen[p] += 1
        self.goal = np.array(goal, dtype=np.int64)
        self.domino_cells = np.array([r * width + c for r in range(height)
                                      for c in range(width - 1)], dtype=np.int64)
        self.description = description or (
            f"{width}x{height} sliding puzzle with a domino blank, goal {self.format(self.goal)}")

    def definition(self):
        return {"family": "domino", "width": self.width, "height": self.height,
                "goal": self.format(self.goal), "ranking": "domino-column-classes/1"}

    def parities(self, p):
        """The parity class p must have with the domino at each of its places."""
        return np.array([self.classes[p].row_parity(abs(int(c) // self.width - self.goal_row))
                         for c in self.domino_cells], dtype=np.int64)

    def move_table(self):
        """For each domino place: its moves as (target place, JUMP or the slide's direction,
        window start in class 0, window start in class 1), and their number."""
        w = self.width
        moves = np.full((self.domino_cells.size, 4, 4), -1, dtype=np.int64)
        counts = np.zeros(self.domino_cells.size, dtype=np.int64)
        place = {int(c): d for d, c in enumerate(self.domino_cells)}
        for d, cell in enumerate(self.domino_cells):
            row, col = divmod(int(cell), w)
            out = []
            for dc in (-1, 1):  # a jump: the domino moves one column
                if 0 <= col + dc <= w - 2:
                    out.append((place[cell + dc], JUMP, -1, -1))
            for dr, direction in ((-1, SLIDE_DOWN), (1, SLIDE_UP)):
                if 0 <= row + dr < self.height:
                    windows = []
                    for p in (0, 1):
                        c = self.classes[p]
                        column = col if col % 2 == p else col + 1
                        # down: the tile above enters, window from its cell; up: the tile
                        # below enters, window from the domino's own cell of the class
                        windows.append(c.cell_index(row + min(dr, 0), column))
                    out.append((place[cell + dr * w], direction, *windows))
            moves[d, :len(out)] = out
            counts[d] = len(out)
        return moves, counts

    def make_tables(self):
        (perms0, index0, rot0), (perms1, index1, rot1) = map(sequence_tables, self.classes)
        moves, counts = self.move_table()
        domino_of_cell = np.full(self.cells, -1, dtype=np.int64)
        domino_of_cell[self.domino_cells] = np.arange(self.domino_cells.size)
        cell_class = np.arange(self.cells, dtype=np.int64) % self.width % 2
        weight1 = self.classes[1].ranks
        weight01 = self.classes[0].ranks * weight1
        return DominoTables(perms0, perms1, index0, index1, rot0, rot1, moves, counts,
                            self.parities(0), self.parities(1), self.domino_cells,
                            domino_of_cell, cell_class, self.tile_class, self.tile_label,
                            self.tile_of, np.int64(weight1), np.int64(weight01),
                            1.0 / weight1, 1.0 / weight01)

    @property
    def work_size(self):
        return self.cells

    # -- boards --------------------------------------------------------------------------
    def parse(self, text):
        cells = self.cells_of(str(text).lower(), self.symbols, {"0": "_"})
        for s in self.symbols[1:]:
            if cells.count(s) != 1:
                raise BoardError(f"{self.name}: board {text!r} has {cells.count(s)} of tile "
                                 f"{s!r}, expected 1")
        left = cells.index("_")
        if left % self.width == self.width - 1 or cells[left + 1] != "_":
            raise BoardError(f"{self.name}: board {text!r}: the two empty cells must be side "
                             f"by side in a row")
        board = np.array([self.symbols.index(s) for s in cells], dtype=np.int64)
        for cell, t in enumerate(board):
            if t and self.tile_class[t] != cell % self.width % 2:
                raise BoardError(
                    f"{self.name}: board {text!r} is unreachable (tile {self.symbols[t]!r} is "
                    f"in a column of the wrong parity; tiles never leave their column parity)")
        distance = abs(left // self.width - self.goal_row)
        for p, c in enumerate(self.classes):
            labels = [self.tile_label[t] for t in board if t and self.tile_class[t] == p]
            if not c.free and labels != sorted(labels):
                raise BoardError(f"{self.name}: board {text!r} is unreachable (the tiles of "
                                 f"the middle column never pass each other)")
            if c.free and permutation_parity(labels) != c.row_parity(distance):
                raise BoardError(
                    f"{self.name}: board {text!r} is unreachable (the tiles of the "
                    f"{'odd' if p else 'even'} columns have the wrong permutation parity)")
        return board

    def format(self, board):
        return format_rows([self.symbols[t] for t in board], self.width)

    def rank(self, board):
        board = np.asarray(board, dtype=np.int64)
        return int(self.compiled.rank(board, np.empty(self.cells, dtype=np.int64),
                                      self.tables()))

    def unrank(self, rank, level=0):
        self.check_rank(rank, level)
        out = np.empty(self.cells, dtype=np.int64)
        self.compiled.unrank(np.int64(rank), out, self.tables())
        return out

    # -- capabilities: matching and problem files ------------------------------------------
    def move_parity(self, ranks):
        """Each move takes the domino to a neighbouring place of the H x (W-1) grid of its
        left cell, so this colouring of that grid flips with every move."""
        d = np.asarray(ranks, dtype=np.int64) // self.parity_run()
        return (d // (self.width - 1) + d % (self.width - 1)) & 1

    def parity_run(self):
        """The ranks of one place of the domino: consecutive, of one parity."""
        return int(self.tables().weight01)

    def relabelling(self):
        """The renaming of matching, for classes of at most MAX_RELABEL_CLASS tiles (its
        tables hold m!/2 x m! entries per class); None for larger ones."""
        if max(c.tiles for c in self.classes if c.free) > MAX_RELABEL_CLASS:
            return None
        return self._relabelling

    @cached_property
    def _relabelling(self):  # its composition tables take about a second to compute
        return DominoRelabelling(self)

    def solvable_with_domino_at(self, cell):
        """Ranks of every reachable position with the domino's left cell at `cell` (the seed's
        6,350,400 problems of the 14-puzzle for the bottom right, cell 14), ascending.  The
        domino is the rank's leading digit and the class ranks below it are free, so these
        are one block."""
        cell = int(cell)
        if cell not in self.domino_cells:
            raise BoardError(f"{self.name}: no domino can have its left cell at {cell}")
        d = int(np.flatnonzero(self.domino_cells == cell)[0])
        block = int(self.tables().weight01)
        return np.arange(d * block, (d + 1) * block, dtype=np.uint64)

    def query_sets(self):
        """'domino-bottom-right' (the seed's problems) and 'domino-at-goal', every reachable
        position with the domino in that place."""
        goal_left = int(np.flatnonzero(self.goal == 0)[0])
        return {"domino-bottom-right": lambda: self.solvable_with_domino_at(self.cells - 2),
                "domino-at-goal": lambda: self.solvable_with_domino_at(goal_left)}
