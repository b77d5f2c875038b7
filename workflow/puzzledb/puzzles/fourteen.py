"""The 14-puzzle (seed 002): a 4x4 board with fourteen tiles and a blank that is a horizontal
domino.  A tile beside the domino jumps across it; the two tiles above or below it slide in.

Why the rank is dense: the domino covers one cell of each column parity, so a tile only ever
moves two columns sideways or one row up or down and never leaves its column parity.  Read
the seven tiles of one parity class in row-major order: a jump leaves both sequences alone,
a vertical move swaps two neighbours in each (the moving tile passes exactly one tile of its
class), so both class parities equal the parity of the domino's row distance from the goal
row.  A state is (domino cell, class-0 sequence, class-1 sequence), each sequence with a
fixed parity: 12 * (7!/2)^2 = 76,204,800 ranks, all reachable.  The compiled kernels are in
fourteen_kernels.py; the plain-Python references here are what the tests compare them with.
"""

from collections import namedtuple
from functools import cached_property
from itertools import permutations
from math import factorial

import numpy as np

from ..errors import BoardError
from ..puzzle import Puzzle, format_rows
from ..ranking import lehmer_code, permutation_parity

SYMBOLS = "_123456789abcde"  # code 0 is an empty cell, 1..14 the tiles
WIDTH = 4
CELLS = 16
TILES_PER_CLASS = 7
PERMS = factorial(TILES_PER_CLASS)  # 5040 sequences of one class
HALF = PERMS // 2  # 2520 of a given parity
HALF2 = HALF * HALF
DOMINO_CELLS = np.array([r * WIDTH + c for r in range(4) for c in range(3)], dtype=np.int64)
GOAL = "1234 5678 9abc de__"
GOAL_ROW = 3

# The kernels' data (see compiled.py): the class sequences and their parities, each
# sequence rank with two neighbouring entries swapped, and the moves of each domino cell.
FourteenTables = namedtuple("FourteenTables", "perm7 index_of_rank swapped moves move_counts "
                                              "row_parity domino_cells")
# The renaming of matching: composition[s, i] = rank of (even sequence s) o (sequence i).
FourteenRelabelTables = namedtuple("FourteenRelabelTables", "row_parity composition")


def class_of_tile(tile):
    """Column parity of the tile's goal cell: 1,3,..,d are in columns 0 and 2, the rest in 1, 3."""
    return (tile - 1) % 2


def label_of_tile(tile):
    """The tile's place 0..6 in its class's goal sequence."""
    return (tile - 1) // 2


def class_parity(domino_row):
    """Parity both class sequences must have with the domino in this row."""
    return (GOAL_ROW - domino_row) & 1


def slot_of(cell):
    """A cell's index 0..7 among the cells of its column parity, row-major."""
    return 2 * (cell // WIDTH) + (cell % WIDTH) // 2


# --- 7-element permutations: Lehmer index 0..5039; a class rank is the index halved ----------
#
# The last Lehmer digit (weight 1!) is the only odd weight, so the indices 2q and 2q+1 differ
# only by swapping the last two entries and have opposite parities: index // 2 is a dense rank
# of the sequences of either parity.


def permutation_tables():
    """(every sequence by Lehmer index, the parity of each, index_of_rank, swapped):
    index_of_rank[p, q] is the Lehmer index of parity p whose half is q; swapped[p, j, q] the
    rank of the sequence (parity p, rank q) with entries j, j+1 swapped."""
    perms = np.array(sorted(permutations(range(TILES_PER_CLASS))), dtype=np.int64)
    parity = np.array([permutation_parity(p) for p in perms], dtype=np.int64)
    index_of_rank = np.empty((2, HALF), dtype=np.int64)
    for q in range(HALF):
        for i in (2 * q, 2 * q + 1):
            index_of_rank[parity[i], q] = i
    swapped = np.empty((2, TILES_PER_CLASS - 1, HALF), dtype=np.int64)
    for p in range(2):
        for q in range(HALF):
            seq = list(perms[index_of_rank[p, q]])
            for j in range(TILES_PER_CLASS - 1):
                s = seq.copy()
                s[j], s[j + 1] = s[j + 1], s[j]
                swapped[p, j, q] = lehmer_code(s) // 2
    return perms, parity, index_of_rank, swapped


def move_table():
    """For each domino cell index, its moves: target index, and for a vertical move the
    sequence position swapped in class 0 and in class 1 (-1 for a jump)."""
    moves = np.full((12, 4, 3), -1, dtype=np.int64)
    counts = np.zeros(12, dtype=np.int64)
    for d, cell in enumerate(DOMINO_CELLS):
        row, col = divmod(int(cell), WIDTH)
        slots = {col % 2: slot_of(cell), (col + 1) % 2: slot_of(cell + 1)}
        out = []
        for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):
            r, c = row + dr, col + dc
            if not (0 <= r < 4 and 0 <= c < 3):
                continue
            target = r * 3 + c
            if dr == 0:
                out.append((target, -1, -1))
            else:
                # up: the tile two slots back moves in, swapping sequence entries e-2, e-1;
                # down: the tile two slots on moves in, swapping entries e, e+1
                out.append((target, *[slots[k] - 2 if dr < 0 else slots[k] for k in (0, 1)]))
        moves[d, : len(out)] = out
        counts[d] = len(out)
    return moves, counts


ROW_PARITY = np.array([class_parity(int(c) // WIDTH) for c in DOMINO_CELLS], dtype=np.int64)


# --- plain-Python references, independent of the tables and kernels --------------------------


def moves_reference(board):
    """Every board one move away, by the rules as stated: jumps across the domino in its row,
    and the pair of tiles above or below sliding in."""
    board = list(board)
    left = board.index(0)
    row, col = divmod(left, WIDTH)
    out = []
    if col > 0:  # the tile on the left jumps to the domino's right cell
        b = board.copy()
        b[left + 1], b[left - 1] = b[left - 1], 0
        out.append(b)
    if col < 2:  # the tile on the right jumps to the domino's left cell
        b = board.copy()
        b[left], b[left + 2] = b[left + 2], 0
        out.append(b)
    for dr in (-1, 1):
        if 0 <= row + dr < 4:
            b = board.copy()
            src = left + dr * WIDTH
            b[left], b[left + 1] = b[src], b[src + 1]
            b[src] = b[src + 1] = 0
            out.append(b)
    return out


def rank_reference(board):
    """Rank from the definition: domino index, then each class's Lehmer index halved."""
    board = list(board)
    left = board.index(0)
    seqs = [[label_of_tile(t) for t in board if t and class_of_tile(t) == c] for c in (0, 1)]
    return ((left // WIDTH) * 3 + left % WIDTH) * HALF2 + \
        (lehmer_code(seqs[0]) // 2) * HALF + lehmer_code(seqs[1]) // 2


def solvable_reference(board):
    """The seed's test, for a board with the domino in the bottom row: in each column-parity
    class, the number of larger tiles before each tile (row-major) sums to an even number."""
    board = list(board)
    for c in (0, 1):
        seq = [t for t in board if t and class_of_tile(t) == c]
        if permutation_parity(seq):
            return False
    return True


class FourteenRelabelling:
    """Tile renaming for matching.py: keys(ranks) gives each query its renaming (-1 where the
    query's domino is not where the goal's is); compiled.relabel(rank, key, tables) renames a
    state.

    A move depends only on where the domino is, so renaming tiles maps paths to paths.  A
    query q with its domino where the goal has it is the goal renamed by the renaming
    sigma_q (goal tile at cell c -> q's tile at c); the states j moves from q are those j
    moves from the goal renamed by sigma_q.  sigma_q keeps each column-parity class, so it
    is a pair of even permutations of 0..6 (one per class) and renaming a state composes
    them with its sequences."""

    def __init__(self, puzzle):
        self.tables = FourteenRelabelTables(ROW_PARITY,
                                            puzzle.compiled.composition(puzzle.tables()))
        self.goal_domino = int(puzzle.goal_ranks()[0]) // HALF2

    def keys(self, ranks):
        ranks = np.asarray(ranks, dtype=np.int64)
        d = ranks // HALF2
        # with the domino in the goal row both sequences are even, so the rest of the rank
        # is the pair of class ranks, which is the key
        return np.where(d == self.goal_domino, ranks - d * HALF2, -1)


class FourteenPuzzle(Puzzle):
    name = "fourteen"
    family = "fourteen"
    kernels = "puzzledb.puzzles.fourteen_kernels"
    cells = CELLS
    width = WIDTH
    size = 12 * HALF2
    max_moves = 4
    work_size = 14

    def __init__(self, name="fourteen", description=""):
        self.name = name
        self.description = description
        self.goal = self.parse(GOAL)

    def definition(self):
        return {"family": "fourteen", "goal": self.format(self.goal),
                "ranking": "domino-column-classes/1"}

    def make_tables(self):
        perm7, _, index_of_rank, swapped = permutation_tables()
        moves, counts = move_table()
        return FourteenTables(perm7, index_of_rank, swapped, moves, counts, ROW_PARITY,
                              DOMINO_CELLS)

    # -- boards --------------------------------------------------------------------------
    def parse(self, text):
        cells = self.cells_of(str(text).lower(), SYMBOLS, {"0": "_"})
        for s in SYMBOLS[1:]:
            if cells.count(s) != 1:
                raise BoardError(f"{self.name}: board {text!r} has {cells.count(s)} of tile "
                                 f"{s!r}, expected 1")
        left = cells.index("_")
        if left % WIDTH == WIDTH - 1 or cells[left + 1] != "_":
            raise BoardError(f"{self.name}: board {text!r}: the two empty cells must be side "
                             f"by side in a row")
        board = np.array([SYMBOLS.index(s) for s in cells], dtype=np.int64)
        for cell, t in enumerate(board):
            if t and class_of_tile(t) != cell % 2:
                raise BoardError(
                    f"{self.name}: board {text!r} is unreachable (tile {SYMBOLS[t]!r} is in a "
                    f"column of the wrong parity; tiles never leave their column parity)")
        want = class_parity(left // WIDTH)
        for c in (0, 1):
            if permutation_parity(t for t in board if t and class_of_tile(t) == c) != want:
                raise BoardError(
                    f"{self.name}: board {text!r} is unreachable (the tiles of the "
                    f"{'odd' if c else 'even'} columns have the wrong permutation parity)")
        return board

    def format(self, board):
        return format_rows([SYMBOLS[t] for t in board], WIDTH)

    def rank(self, board):
        board = np.asarray(board, dtype=np.int64)
        return int(self.compiled.rank(board, np.empty(14, dtype=np.int64)))

    def unrank(self, rank, level=0):
        self.check_rank(rank, level)
        out = np.empty(CELLS, dtype=np.int64)
        self.compiled.unrank(np.int64(rank), out, self.tables())
        return out

    def goal_ranks(self):
        return np.array([self.rank(self.goal)], dtype=np.uint64)

    # -- capabilities: matching and problem files ------------------------------------------
    def move_parity(self, ranks):
        """Each move moves the domino to a neighbouring cell of the 4x3 grid of its left
        cell, so this colour of that grid flips with every move."""
        d = np.asarray(ranks, dtype=np.int64) // HALF2
        return (d // 3 + d % 3) & 1

    def relabelling(self):
        return self._relabelling

    @cached_property
    def _relabelling(self):  # its composition table takes about a second to compute
        return FourteenRelabelling(self)

    def solvable_with_domino_at(self, cell=14):
        """Ranks of every reachable position with the domino's left cell at `cell` (the seed's
        6,350,400 problems for the bottom right), ascending.  The domino is the rank's
        leading digit and the two class ranks below it are free, so these are one block."""
        cell = int(cell)
        if cell not in DOMINO_CELLS:
            raise BoardError(f"{self.name}: no domino can have its left cell at {cell}")
        d = int(np.flatnonzero(DOMINO_CELLS == cell)[0])
        return np.arange(d * HALF2, (d + 1) * HALF2, dtype=np.uint64)

    def query_sets(self):
        return {"domino-bottom-right": lambda: self.solvable_with_domino_at(14)}
