"""Flip It (seed 003's Flip It Square is the 4x4 board): a rectangle of cells, one empty and
the others two-sided pieces, black or white.

A piece two or more cells from the empty cell along a line (rows and columns; with
diagonal=True also the diagonals) jumps into it, and every piece it jumps over turns over.
The goal is every piece of the goal colour (white unless declared black), the empty cell
anywhere: one goal state per cell.

The graph is undirected: after a move the mover stands on the old empty cell, in line with
the new empty cell and as far from it, so it can jump straight back over the same pieces and
turn them over again.  Rank = empty cell * 2^(cells-1) + the colours (1 = black) of the
other cells read row-major; the 4x4 boards reach all 16 * 2^15 = 524,288 ranks.  The
compiled kernels are in kernels.py.
"""

from collections import namedtuple

import numpy as np

from puzzledb.errors import BoardError, DefinitionError
from puzzledb.puzzles.base import Puzzle, format_rows
from puzzledb.puzzles.geometry import cell_maps

EMPTY, BLACK, WHITE = 0, 1, 2
SYMBOLS = "SBW"  # the seed's letters: S the empty cell (space), B black, W white
ALIASES = {"_": "S", ".": "S", "0": "S", "1": "B", "2": "W"}
COLOURS = {"white": WHITE, "black": BLACK}
MAX_CELLS = 58  # cells * 2^(cells - 1) ranks must fit in 63 bits

# The kernels' data (see puzzledb.compiled): the moves into each empty cell; the number of pieces,
# the mask of a rank's colour bits and, for each empty cell, the mask of the other cells; the
# corner bound's cells and weights.
FlipItTables = namedtuple("FlipItTables", "moves move_counts pieces colours others")
CornerTables = namedtuple("CornerTables", "corners wrong per_corner first board")


def lines(width, height, diagonal):
    """The lines a piece may jump along: rows and columns, and with diagonal=True the
    diagonals of three or more cells, each as a tuple of cells in order."""
    grid = [[r * width + c for c in range(width)] for r in range(height)]
    out = [tuple(row) for row in grid] + [tuple(col) for col in zip(*grid)]
    if diagonal:
        for dc in (1, -1):
            starts = [(0, c) for c in range(width)] + [(r, 0 if dc > 0 else width - 1)
                                                         for r in range(1, height)]
            for r, c in starts:
                cells = []
                while 0 <= r < height and 0 <= c < width:
                    cells.append(r * width + c)
                    r, c = r + 1, c + dc
                out.append(tuple(cells))
    return [line for line in out if len(line) >= 3]


def move_table(width, height, diagonal):
    """For each empty cell, the moves into it: (mover cell, mask of the cells jumped over),
    padded with -1; and the number of moves per empty cell."""
    cells = width * height
    moves = [[] for _ in range(cells)]
    for line in lines(width, height, diagonal):
        for i, empty in enumerate(line):
            for j, mover in enumerate(line):
                if abs(i - j) >= 2:
                    between = line[min(i, j) + 1:max(i, j)]
                    moves[empty].append((mover, sum(1 << b for b in between)))
    most = max([len(m) for m in moves] + [1])
    table = np.full((cells, most, 2), -1, dtype=np.int64)
    for empty, ms in enumerate(moves):
        for k, (mover, mask) in enumerate(sorted(ms)):
            table[empty, k] = (mover, mask)
    return table, np.array([len(m) for m in moves], dtype=np.int64)


class FlipItPuzzle(Puzzle):
    family = "flipit"
    kernels = "puzzledb.puzzles.flipit.kernels"

    def __init__(self, name, width, height, diagonal=False, goal="white", description=""):
        self.name = name
        self.width, self.height = width, height
        self.cells = width * height
        if not 3 <= self.cells <= MAX_CELLS:
            raise DefinitionError("width", f"a {width}x{height} board has {self.cells} cells: "
                                  f"3 to {MAX_CELLS} can be ranked in 64 bits")
        if goal not in COLOURS:
            raise DefinitionError("goal", f"{goal!r}: the goal colour is white or black")
        self.diagonal = bool(diagonal)
        self.goal_colour = goal
        self.pieces = self.cells - 1
        self.size = self.cells << self.pieces
        self.move_table = move_table(width, height, self.diagonal)
        self.max_moves = int(self.move_table[1].max())
        self.corners = sorted({0, width - 1, self.cells - width, self.cells - 1})
        self.description = description or (
            f"Flip It on a {width}x{height} board, jumps along rows and columns"
            f"{' and diagonals' if self.diagonal else ''}, goal all {goal}")

    def definition(self):
        definition = {"family": "flipit", "width": self.width, "height": self.height,
                      "diagonal": self.diagonal, "ranking": "flipit-empty-mask/1"}
        if self.goal_colour != "white":  # stored only when not white, so that the white
            definition["goal"] = self.goal_colour  # boards keep their definition hash
        return definition

    def make_tables(self):
        cells = np.arange(self.cells, dtype=np.uint64)
        everything = (1 << self.cells) - 1
        others = np.uint64(everything) ^ (np.uint64(1) << cells)
        return FlipItTables(*self.move_table, np.int64(self.pieces),
                            np.uint64((1 << self.pieces) - 1), others)

    def parse(self, text):
        cells = self.cells_of(str(text).upper(), SYMBOLS, ALIASES,
                              hint="use B (black), W (white) and S or _ (the empty cell)")
        board = np.array([SYMBOLS.index(s) for s in cells], dtype=np.int64)
        if np.count_nonzero(board == EMPTY) != 1:
            raise BoardError(f"{self.name}: board {text!r} has "
                             f"{np.count_nonzero(board == EMPTY)} empty cells, expected 1")
        return board

    def format(self, board):
        return format_rows([SYMBOLS[p] for p in board], self.width)

    def rank(self, board):
        board = [int(p) for p in board]
        empty = board.index(EMPTY)
        bits = 0
        k = 0
        for cell, piece in enumerate(board):
            if cell != empty:
                bits |= (piece == BLACK) << k
                k += 1
        return (empty << self.pieces) | bits

    def unrank(self, rank, level=0):
        self.check_rank(rank, level)
        empty, bits = rank >> self.pieces, rank & ((1 << self.pieces) - 1)
        board = np.full(self.cells, WHITE, dtype=np.int64)
        board[empty] = EMPTY
        k = 0
        for cell in range(self.cells):
            if cell != empty:
                if (bits >> k) & 1:
                    board[cell] = BLACK
                k += 1
        return board

    def goal_ranks(self):
        colours = (1 << self.pieces) - 1 if self.goal_colour == "black" else 0
        return (np.arange(self.cells, dtype=np.uint64) << np.uint64(self.pieces)) | \
            np.uint64(colours)

    # -- capabilities ----------------------------------------------------------------------
    def symmetries(self):
        """The rectangle's symmetries (the square's eight): lines go to lines, and a board
        of one colour stays the goal."""
        return tuple(cell_maps(self.width, self.height)[1:])

    def canonical_ranks(self, ranks, level=0):
        return self.compiled.canonical(np.asarray(ranks, dtype=np.uint64),
                                       np.array(cell_maps(self.width, self.height),
                                                dtype=np.int64), self.tables())

    def heuristics(self):
        return {"corner": lambda: self.compiled.corner_lower_bound(self.corner_tables())}

    # The corner bound (seed 003): a corner cell ends every line through it, so a corner
    # piece is never jumped over while it stays.  A corner piece of the wrong colour must
    # move out (a move of its own) and later be jumped over (a move of another piece).  For
    # n such corners this counting proves n + 1 moves on any board: the n departures are
    # moves of n different pieces, and the last move that turns one of these pieces over is
    # not a departure.  The seed's 2 per corner could fail in principle (a departing corner
    # piece may jump over one that left earlier); it is checked against the true distance of
    # every position of the 4x4 boards, both rule sets (tests/test_flipit.py), which proves
    # it there and only there.  Admissible, so IDA* stays optimal; not consistent.

    def corner_tables(self):
        per_corner, first = (2, 0) if (self.width, self.height) == (4, 4) else (1, 1)
        wrong = 0 if self.goal_colour == "black" else 1  # the colour bit of a wrong piece
        return CornerTables(np.array(self.corners, dtype=np.int64), np.int64(wrong),
                            np.int64(per_corner), np.int64(first), self.tables())

    def corner_bound(self, board):
        """The corner bound of a parsed board, in plain Python (flipit_kernels.corner_bound
        is the compiled one)."""
        t = self.corner_tables()
        goal = COLOURS[self.goal_colour]
        n = sum(1 for c in self.corners if board[c] not in (EMPTY, goal))
        return int(t.per_corner) * n + int(t.first) * (n > 0)
