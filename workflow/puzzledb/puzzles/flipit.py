"""Flip It Square (seed 003): a 4x4 board, one empty cell and fifteen two-sided pieces.

A piece two or more cells from the empty cell along a line (rows and columns; for the
diagonal variant also the diagonals of three or four cells) jumps into it, and every piece
it jumps over turns over.  The goal is all fifteen pieces white, the empty cell anywhere.

The graph is undirected: after a move the mover stands on the old empty cell, in line with
the new empty cell and as far from it, so it can jump straight back over the same pieces and
turn them over again.  Rank = empty cell * 2^15 + the colours (1 = black) of the other
fifteen cells read row-major: 16 * 2^15 = 524,288 ranks, all reachable.  The compiled
kernels are in flipit_kernels.py.
"""

from collections import namedtuple

import numpy as np

from ..errors import BoardError
from ..puzzle import Puzzle, format_rows
from .geometry import cell_maps

SIDE = 4
CELLS = 16
PIECES = CELLS - 1
CORNERS = (0, 3, 12, 15)
EMPTY, BLACK, WHITE = 0, 1, 2
SYMBOLS = "SBW"  # the seed's letters: S the empty cell (space), B black, W white
ALIASES = {"_": "S", ".": "S", "0": "S", "1": "B", "2": "W"}

# The kernels' data (see compiled.py): the moves into each empty cell; the corner cells.
FlipItTables = namedtuple("FlipItTables", "moves move_counts")
CornerTables = namedtuple("CornerTables", "corners")


def lines(diagonal):
    """The lines a piece may jump along: rows and columns, and with diagonal=True the
    diagonals of three or four cells, each as a tuple of cells in order."""
    grid = [[r * SIDE + c for c in range(SIDE)] for r in range(SIDE)]
    out = [tuple(row) for row in grid] + [tuple(col) for col in zip(*grid)]
    if diagonal:
        for r0, c0, dr, dc in ((0, 0, 1, 1), (0, 1, 1, 1), (1, 0, 1, 1),
                               (0, 3, 1, -1), (0, 2, 1, -1), (1, 3, 1, -1)):
            cells = []
            r, c = r0, c0
            while 0 <= r < SIDE and 0 <= c < SIDE:
                cells.append(r * SIDE + c)
                r, c = r + dr, c + dc
            out.append(tuple(cells))
    return out


def move_table(diagonal):
    """For each empty cell, the moves into it: (mover cell, mask of the cells jumped over),
    padded with -1; and the number of moves per empty cell."""
    moves = [[] for _ in range(CELLS)]
    for line in lines(diagonal):
        for i, empty in enumerate(line):
            for j, mover in enumerate(line):
                if abs(i - j) >= 2:
                    between = line[min(i, j) + 1:max(i, j)]
                    moves[empty].append((mover, sum(1 << b for b in between)))
    width = max(len(m) for m in moves)
    table = np.full((CELLS, width, 2), -1, dtype=np.int64)
    for empty, ms in enumerate(moves):
        for k, (mover, mask) in enumerate(sorted(ms)):
            table[empty, k] = (mover, mask)
    return table, np.array([len(m) for m in moves], dtype=np.int64)


def corner_bound(board):
    """The seed's lower bound on the moves still needed to turn every piece white: 2 for
    each black piece on a corner.  `board` is a parsed board (BLACK = 1 per black cell).

    Why it is admissible.  Every line a piece jumps along (row, column, diagonal) ends at a
    corner, so a piece on a corner is never jumped over: it keeps its colour while it stays.
    A black corner piece must therefore move out (a move of its own) and later be jumped
    over (a move of another piece): two different moves, so one black corner needs 2.  For
    n black corners this counting alone proves n + 1: the n departures are moves of n
    different pieces, and the last move that turns one of these pieces white is not a
    departure (a piece still on its corner would have to be turned later).  The full 2n
    could in principle fail, since a departing corner piece may jump over one that left
    earlier; that it never exceeds the true distance is checked on all 524,288 positions of
    both rule sets (tests/test_flipit.py), which proves it for this board.  The compiled
    version is flipit_kernels.corner_bound.

    Admissible, so IDA* stays optimal, but not consistent: a black piece leaving a corner
    lowers the bound by 2 in one move."""
    return 2 * sum(1 for c in CORNERS if board[c] == BLACK)


def moves_reference(board, diagonal):
    """Every board one move away, by the rules as stated (plain Python, for tests)."""
    board = list(board)
    empty = board.index(EMPTY)
    out = []
    for line in lines(diagonal):
        if empty not in line:
            continue
        i = line.index(empty)
        for j, mover in enumerate(line):
            if abs(i - j) < 2:
                continue
            b = board.copy()
            for cell in line[min(i, j) + 1:max(i, j)]:
                b[cell] = BLACK + WHITE - b[cell]
            b[empty], b[mover] = b[mover], EMPTY
            out.append(b)
    return out


class FlipItPuzzle(Puzzle):
    family = "flipit"
    kernels = "puzzledb.puzzles.flipit_kernels"
    cells = CELLS
    width = SIDE
    size = CELLS << PIECES

    def __init__(self, name, diagonal=False, description=""):
        self.name = name
        self.diagonal = diagonal
        self.description = description
        self.move_table = move_table(diagonal)
        self.max_moves = int(self.move_table[1].max())

    def definition(self):
        return {"family": "flipit", "width": SIDE, "height": SIDE, "diagonal": self.diagonal,
                "ranking": "flipit-empty-mask/1"}

    def make_tables(self):
        return FlipItTables(*self.move_table)

    def parse(self, text):
        cells = self.cells_of(str(text).upper(), SYMBOLS, ALIASES,
                              hint="use B (black), W (white) and S or _ (the empty cell)")
        board = np.array([SYMBOLS.index(s) for s in cells], dtype=np.int64)
        if np.count_nonzero(board == EMPTY) != 1:
            raise BoardError(f"{self.name}: board {text!r} has "
                             f"{np.count_nonzero(board == EMPTY)} empty cells, expected 1")
        return board

    def format(self, board):
        return format_rows([SYMBOLS[p] for p in board], SIDE)

    def rank(self, board):
        board = [int(p) for p in board]
        empty = board.index(EMPTY)
        bits = 0
        k = 0
        for cell, piece in enumerate(board):
            if cell != empty:
                bits |= (piece == BLACK) << k
                k += 1
        return (empty << PIECES) | bits

    def unrank(self, rank, level=0):
        self.check_rank(rank, level)
        empty, bits = rank >> PIECES, rank & ((1 << PIECES) - 1)
        board = np.full(CELLS, WHITE, dtype=np.int64)
        board[empty] = EMPTY
        k = 0
        for cell in range(CELLS):
            if cell != empty:
                if (bits >> k) & 1:
                    board[cell] = BLACK
                k += 1
        return board

    def goal_ranks(self):
        return np.arange(CELLS, dtype=np.uint64) << np.uint64(PIECES)

    # -- capabilities ----------------------------------------------------------------------
    def symmetries(self):
        """The square's eight symmetries: lines go to lines, and all-white stays the goal."""
        return tuple(cell_maps(SIDE, SIDE)[1:])

    def canonical_ranks(self, ranks, level=0):
        return self.compiled.canonical(np.asarray(ranks, dtype=np.uint64),
                                       np.array(cell_maps(SIDE, SIDE), dtype=np.int64))

    def heuristics(self):
        return {"corner": lambda: self.compiled.corner_lower_bound()}
