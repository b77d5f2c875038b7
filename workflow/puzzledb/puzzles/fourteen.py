"""The 14-puzzle (seed 002): a 4x4 board with fourteen tiles and a blank that is a horizontal
domino.  A tile beside the domino jumps across it; the two tiles above or below it slide in.

Why the rank is dense: the domino covers one cell of each column parity, so a tile only ever
moves two columns sideways or one row up or down and never leaves its column parity.  Read
the seven tiles of one parity class in row-major order: a jump leaves both sequences alone,
a vertical move swaps two neighbours in each (the moving tile passes exactly one tile of its
class), so both class parities equal the parity of the domino's row distance from the goal
row.  A state is (domino cell, class-0 sequence, class-1 sequence), each sequence with a
fixed parity: 12 * (7!/2)^2 = 76,204,800 ranks, all reachable.
"""

from itertools import permutations
from math import factorial

import numpy as np
from numba import njit

from ..puzzle import BoardError, Puzzle, clean_board_text, format_rows

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


def _lehmer(seq):
    n = len(seq)
    return sum(sum(1 for w in seq[i + 1:] if w < v) * factorial(n - 1 - i)
               for i, v in enumerate(seq))


def _parity(seq):
    return sum(a > b for i, a in enumerate(seq) for b in seq[i + 1:]) & 1


def _permutation_tables():
    perms = np.array(sorted(permutations(range(TILES_PER_CLASS))), dtype=np.int64)
    parity = np.array([_parity(tuple(p)) for p in perms], dtype=np.int64)
    # index_of_rank[p, q]: the Lehmer index of parity p whose half is q
    index_of_rank = np.empty((2, HALF), dtype=np.int64)
    for q in range(HALF):
        for i in (2 * q, 2 * q + 1):
            index_of_rank[parity[i], q] = i
    # swapped[p, j, q]: rank of the sequence (parity p, rank q) with entries j, j+1 swapped
    swapped = np.empty((2, TILES_PER_CLASS - 1, HALF), dtype=np.int64)
    for p in range(2):
        for q in range(HALF):
            seq = list(perms[index_of_rank[p, q]])
            for j in range(TILES_PER_CLASS - 1):
                s = seq.copy()
                s[j], s[j + 1] = s[j + 1], s[j]
                swapped[p, j, q] = _lehmer(s) // 2
    return perms, parity, index_of_rank, swapped


PERM7, PERM7_PARITY, INDEX_OF_RANK, SWAPPED = _permutation_tables()


def _move_table():
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


MOVES, MOVE_COUNTS = _move_table()
ROW_PARITY = np.array([class_parity(int(c) // WIDTH) for c in DOMINO_CELLS], dtype=np.int64)


@njit(nogil=True, cache=True)
def _sequence_index(seq):
    """Lehmer index of a permutation of 0..6 (seq may be longer; its first 7 are used)."""
    used = 0
    index = 0
    for i in range(7):
        v = seq[i]
        smaller_used = 0
        for w in range(v):
            if used >> w & 1:
                smaller_used += 1
        index = index * (7 - i) + (v - smaller_used)
        used |= 1 << v
    return index


@njit(nogil=True, cache=True)
def rank_kernel(board, work):
    """Rank of a board (codes 0..14); work is scratch of 14 int64."""
    d = -1
    n0 = 0
    n1 = 0
    for cell in range(16):
        t = board[cell]
        if t == 0:
            if d < 0:
                d = (cell >> 2) * 3 + (cell & 3)
            continue
        if (t - 1) & 1:
            work[7 + n1] = (t - 1) >> 1
            n1 += 1
        else:
            work[n0] = (t - 1) >> 1
            n0 += 1
    i0 = _sequence_index(work[:7])
    i1 = _sequence_index(work[7:14])
    return d * HALF2 + (i0 >> 1) * HALF + (i1 >> 1)


@njit(nogil=True, cache=True)
def unrank_kernel(rank, out):
    d = rank // HALF2
    rest = rank - d * HALF2
    q0 = rest // HALF
    q1 = rest - q0 * HALF
    p = ROW_PARITY[d]
    seq0 = PERM7[INDEX_OF_RANK[p, q0]]
    seq1 = PERM7[INDEX_OF_RANK[p, q1]]
    left = DOMINO_CELLS[d]
    n0 = 0
    n1 = 0
    for cell in range(16):
        if cell == left or cell == left + 1:
            out[cell] = 0
        elif cell & 1:
            out[cell] = 2 * seq1[n1] + 2
            n1 += 1
        else:
            out[cell] = 2 * seq0[n0] + 1
            n0 += 1


@njit(nogil=True, cache=True)
def neighbours_kernel(rank, level, out, work):
    d = rank // HALF2
    rest = rank - d * HALF2
    q0 = rest // HALF
    q1 = rest - q0 * HALF
    p = ROW_PARITY[d]
    for m in range(MOVE_COUNTS[d]):
        target = MOVES[d, m, 0]
        j0 = MOVES[d, m, 1]
        if j0 < 0:
            # a jump keeps both sequences: only the domino digit changes
            out[m] = rank + (target - d) * HALF2
        else:
            out[m] = (target * HALF2 + SWAPPED[p, j0, q0] * HALF
                      + SWAPPED[p, MOVES[d, m, 2], q1])
    return MOVE_COUNTS[d]


# --- plain-Python references, independent of the tables above ---------------------------------


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
        (_lehmer(seqs[0]) // 2) * HALF + _lehmer(seqs[1]) // 2


def solvable_reference(board):
    """The seed's test, for a board with the domino in the bottom row: in each column-parity
    class, the number of larger tiles before each tile (row-major) sums to an even number."""
    board = list(board)
    for c in (0, 1):
        seq = [t for t in board if t and class_of_tile(t) == c]
        if _parity(seq):
            return False
    return True


# --- relabelling: the ball around a position is the goal's ball with the tiles renamed ------
#
# A move depends only on where the domino is, so renaming tiles maps paths to paths.  A query
# q with its domino where the goal has it is the goal renamed by the renaming sigma_q (goal
# tile at cell c -> q's tile at c); the states j moves from q are those j moves from the goal
# renamed by sigma_q.  sigma_q keeps each column-parity class, so it is a pair of even
# permutations of 0..6 (one per class) and renaming a state composes them with its sequences.


@njit(nogil=True, cache=True)
def _composition_table(perm7, index_of_rank):
    """table[s, i]: rank of (even sequence of rank s) o (sequence of index i); last row: the
    index of each rank, parity 0 then parity 1."""
    table = np.empty((HALF + 1, PERMS), dtype=np.int16)
    seq = np.empty(7, dtype=np.int64)
    for s in range(HALF):
        sigma = perm7[index_of_rank[0, s]]
        for i in range(PERMS):
            x = perm7[i]
            for t in range(7):
                seq[t] = sigma[x[t]]
            table[s, i] = _sequence_index(seq) >> 1
    for p in range(2):
        for q in range(HALF):
            table[HALF, p * HALF + q] = index_of_rank[p, q]
    return table


@njit(nogil=True, cache=True)
def relabel_kernel(rank, key, table):
    """The state `rank` with its tiles renamed by the renaming `key` (from relabel_keys)."""
    d = rank // HALF2
    rest = rank - d * HALF2
    q0 = rest // HALF
    q1 = rest - q0 * HALF
    base = ROW_PARITY[d] * HALF
    s0 = key // HALF
    s1 = key - s0 * HALF
    return (d * HALF2 + np.int64(table[s0, table[HALF, base + q0]]) * HALF
            + np.int64(table[s1, table[HALF, base + q1]]))


class FourteenRelabelling:
    """Tile renaming for matching.py: keys(ranks) gives each query its renaming (-1 where the
    query's domino is not where the goal's is), kernel(rank, key, table) renames a state."""

    def __init__(self, puzzle):
        self.puzzle = puzzle
        self.kernel = relabel_kernel
        self.table = _composition_table(PERM7, INDEX_OF_RANK)
        self.goal_domino = int(puzzle.goal_ranks()[0]) // HALF2

    def keys(self, ranks):
        ranks = np.asarray(ranks, dtype=np.int64)
        d = ranks // HALF2
        # with the domino in the goal row both sequences are even, so the rest of the rank
        # is the pair of class ranks, which is the key
        return np.where(d == self.goal_domino, ranks - d * HALF2, -1)


class FourteenPuzzle(Puzzle):
    name = "fourteen"
    description = "4x4 board, fourteen tiles and a domino-shaped blank (seed 002)"
    cells = CELLS
    width = WIDTH
    size = 12 * HALF2
    max_moves = 4
    work_size = 14

    def __init__(self):
        self.goal = self.parse(GOAL)
        self._relabelling = None

    def definition(self):
        return {
            "family": "fourteen",
            "goal": self.format(self.goal),
            "ranking": "domino cell, then the two column-parity classes' Lehmer indices halved",
        }

    # -- boards --------------------------------------------------------------------------
    def parse(self, text):
        cells = clean_board_text(text).lower().replace("0", "_")
        if len(cells) != CELLS:
            raise BoardError(f"fourteen: board {text!r} has {len(cells)} cells, expected 16")
        unknown = sorted(set(cells) - set(SYMBOLS))
        if unknown:
            raise BoardError(
                f"fourteen: board {text!r} has pieces {''.join(unknown)!r} not in {SYMBOLS!r}")
        for s in SYMBOLS[1:]:
            if cells.count(s) != 1:
                raise BoardError(
                    f"fourteen: board {text!r} has {cells.count(s)} of tile {s!r}, expected 1")
        left = cells.index("_")
        if left % WIDTH == WIDTH - 1 or cells[left + 1] != "_":
            raise BoardError(
                f"fourteen: board {text!r}: the two empty cells must be side by side in a row")
        board = np.array([SYMBOLS.index(s) for s in cells], dtype=np.int64)
        for cell, t in enumerate(board):
            if t and class_of_tile(t) != cell % 2:
                raise BoardError(
                    f"fourteen: board {text!r} is unreachable (tile {SYMBOLS[t]!r} is in a "
                    f"column of the wrong parity; tiles never leave their column parity)")
        want = class_parity(left // WIDTH)
        for c in (0, 1):
            seq = [t for t in board if t and class_of_tile(t) == c]
            if _parity(seq) != want:
                raise BoardError(
                    f"fourteen: board {text!r} is unreachable (the tiles of the "
                    f"{'odd' if c else 'even'} columns have the wrong permutation parity)")
        return board

    def format(self, board):
        return format_rows([SYMBOLS[t] for t in board], WIDTH)

    def rank(self, board):
        board = np.asarray(board, dtype=np.int64)
        return int(rank_kernel(board, np.empty(14, dtype=np.int64)))

    def unrank(self, rank, level=0):
        if not 0 <= rank < self.size:
            raise BoardError(f"fourteen: rank {rank} outside 0..{self.size - 1}")
        out = np.empty(CELLS, dtype=np.int64)
        unrank_kernel(np.int64(rank), out)
        return out

    def goal_ranks(self):
        return np.array([self.rank(self.goal)], dtype=np.uint64)

    def kernel(self):
        return neighbours_kernel

    # -- for matching and problem files --------------------------------------------------
    def parity(self, ranks):
        """Each move moves the domino to a neighbouring cell of the 4x3 grid of its left
        cell, so this colour of that grid flips with every move."""
        d = np.asarray(ranks, dtype=np.int64) // HALF2
        return (d // 3 + d % 3) & 1

    def relabelling(self):
        if self._relabelling is None:
            self._relabelling = FourteenRelabelling(self)
        return self._relabelling

    def solvable_with_domino_at(self, cell=14):
        """Ranks of every reachable position with the domino's left cell at `cell` (the seed's
        6,350,400 problems for the bottom right), ascending.  The domino is the rank's
        leading digit and the two class ranks below it are free, so these are one block."""
        cell = int(cell)
        if cell not in DOMINO_CELLS:
            raise BoardError(f"fourteen: no domino can have its left cell at {cell}")
        d = int(np.flatnonzero(DOMINO_CELLS == cell)[0])
        return np.arange(d * HALF2, (d + 1) * HALF2, dtype=np.uint64)

    def query_sets(self):
        """Named query sets for matching: name -> function returning sorted ranks."""
        return {"domino-bottom-right": lambda: self.solvable_with_domino_at(14)}
