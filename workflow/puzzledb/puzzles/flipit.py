"""Flip It Square (seed 003): a 4x4 board, one empty cell and fifteen two-sided pieces.

A piece two or more cells from the empty cell along a line (rows and columns; for the
diagonal variant also the diagonals of three or four cells) jumps into it, and every piece
it jumps over turns over.  The goal is all fifteen pieces white, the empty cell anywhere.

The graph is undirected: after a move the mover stands on the old empty cell, in line with
the new empty cell and as far from it, so it can jump straight back over the same pieces and
turn them over again.  Rank = empty cell * 2^15 + the colours (1 = black) of the other
fifteen cells read row-major: 16 * 2^15 = 524,288 ranks, all reachable.
"""

import numpy as np
from numba import njit, prange

from ..bitops import pdep, pext
from ..puzzle import BoardError, Puzzle, clean_board_text, format_rows

SIDE = 4
CELLS = 16
PIECES = CELLS - 1
FULL = (1 << CELLS) - 1
CORNERS = (0, 3, 12, 15)
EMPTY, BLACK, WHITE = 0, 1, 2
SYMBOLS = "SBW"  # the seed's letters: S the empty cell (space), B black, W white
ALIASES = {"S": "S", "_": "S", ".": "S", "0": "S", "B": "B", "1": "B", "W": "W", "2": "W"}


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


def square_symmetries():
    """The 8 symmetries of the square as cell maps perm (image board = board[perm])."""
    maps = []
    for transpose in (False, True):
        for flip_r in (False, True):
            for flip_c in (False, True):
                perm = []
                for r in range(SIDE):
                    for c in range(SIDE):
                        rr, cc = (c, r) if transpose else (r, c)
                        rr = SIDE - 1 - rr if flip_r else rr
                        cc = SIDE - 1 - cc if flip_c else cc
                        perm.append(rr * SIDE + cc)
                maps.append(tuple(perm))
    return maps


# --- compiled rank arithmetic: a board is (empty cell, 16-bit mask of black cells) ----------


@njit(nogil=True, inline="always")
def _split(rank):
    empty = rank >> PIECES
    others = np.uint64(FULL ^ (1 << empty))
    return empty, pdep(np.uint64(rank & ((1 << PIECES) - 1)), others)


@njit(nogil=True, inline="always")
def _join(empty, black):
    others = np.uint64(FULL ^ (1 << empty))
    return (empty << PIECES) | np.int64(pext(black, others))


def _kernel(table, counts):
    @njit(nogil=True)
    def neighbours(rank, level, out, work):
        empty, black = _split(rank)
        for k in range(counts[empty]):
            mover = table[empty, k, 0]
            flipped = black ^ np.uint64(table[empty, k, 1])
            # the mover keeps its colour on the old empty cell; its own cell empties
            colour = (flipped >> np.uint64(mover)) & np.uint64(1)
            moved = (flipped & ~(np.uint64(1) << np.uint64(mover))) | (colour << np.uint64(empty))
            out[k] = _join(mover, moved)
        return counts[empty]

    return neighbours


@njit(nogil=True, parallel=True)
def _canonical(ranks, perms):
    """Smallest rank among the images of each rank under the cell maps (identity included)."""
    out = np.empty(ranks.size, dtype=np.uint64)
    for i in prange(ranks.size):
        empty, black = _split(np.int64(ranks[i]))
        best = np.int64(ranks[i])
        for s in range(perms.shape[0]):
            image_black = np.uint64(0)
            image_empty = 0
            for c in range(CELLS):
                source = perms[s, c]
                if source == empty:
                    image_empty = c
                image_black |= ((black >> np.uint64(source)) & np.uint64(1)) << np.uint64(c)
            best = min(best, _join(image_empty, image_black))
        out[i] = best
    return out


@njit(nogil=True)
def corner_bound_kernel(rank):
    """corner_bound from a rank, for compiled searches: 2 per black corner piece."""
    _, black = _split(rank)
    bound = 0
    for c in CORNERS:
        bound += 2 * np.int64((black >> np.uint64(c)) & np.uint64(1))
    return bound


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
    both rule sets (tests/test_flipit.py), which proves it for this board.

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
    cells = CELLS
    width = SIDE
    size = CELLS << PIECES

    def __init__(self, diagonal=False):
        self.diagonal = diagonal
        self.name = "flipit-square-diagonal" if diagonal else "flipit-square"
        self.description = (
            "Flip It Square: 4x4, one empty cell, fifteen two-sided pieces; a piece jumps "
            "into the empty cell and turns over the pieces it passes"
            + (", also along diagonals" if diagonal else "") + " (seed 003)"
        )
        self.table, self.counts = move_table(diagonal)
        self.max_moves = int(self.counts.max())
        self.symmetries = tuple(square_symmetries()[1:])
        self._perms = np.array(square_symmetries(), dtype=np.int64)
        self._kernel = None

    def definition(self):
        return {
            "family": "flipit",
            "diagonal": self.diagonal,
            "ranking": "empty cell * 2^15 + black bits of the other cells, row-major",
        }

    def parse(self, text):
        cells = clean_board_text(text).upper()
        if len(cells) != CELLS:
            raise BoardError(
                f"{self.name}: board {text!r} has {len(cells)} cells, expected {CELLS}")
        unknown = sorted(set(cells) - set(ALIASES))
        if unknown:
            raise BoardError(f"{self.name}: board {text!r} has pieces {''.join(unknown)!r}; "
                             f"use B (black), W (white) and S or _ (the empty cell)")
        board = np.array([SYMBOLS.index(ALIASES[s]) for s in cells], dtype=np.int64)
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
        if not 0 <= rank < self.size:
            raise BoardError(f"{self.name}: rank {rank} outside 0..{self.size - 1}")
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

    def kernel(self):
        if self._kernel is None:
            self._kernel = _kernel(self.table, self.counts)
        return self._kernel

    def canonical_ranks(self, ranks, level=0):
        return _canonical(np.asarray(ranks, dtype=np.uint64), self._perms)
