"""Peg solitaire (seed 004): Hoppers, the English 33-hole board and the 15-hole triangle.

A peg jumps over a neighbouring peg into an empty hole and the jumped peg is removed, so
every move removes one peg: the puzzles are graded.  The search starts from the start
position (every hole full but one), and layer d holds the positions after d jumps, those
with d + 1 empty holes; the layers are disjoint by construction.  Within a level a position
is ranked by the combinatorial number system over its peg mask: the pegs at holes
c_1 < ... < c_k have rank C(c_1, 1) + ... + C(c_k, k), dense over the C(holes, k) masks
(compiled by table lookups in pegs_kernels.py).  Jumps are bit shifts of the mask laid out
on the board's grid.
"""

from collections import namedtuple
from functools import cached_property
from itertools import combinations
from math import comb

import numpy as np

from ..errors import BoardError, PuzzleError
from ..puzzle import Puzzle
from ..search import ida_star
from .geometry import grid_transforms

PEG_SYMBOLS = {"o": 1, "x": 1, "1": 1, "●": 1, ".": 0, "0": 0, "_": 0, "○": 0}
BYTES = 8  # rank tables cover masks of up to 64 holes, one byte at a time
LOW_BITS = 16  # the low part of a mask, ranked and unranked by one lookup

# The kernels' data (see compiled.py): the byte tables of the rank, the low-part lookups,
# and the jumps as grid shifts; the symmetries as byte tables of mask images.
PegTables = namedtuple("PegTables", "rank_table low_masks low_start low_rank on_grid shifts "
                                    "sources holes start_pegs")


# --- boards as data: holes on a grid, jumps (from, over, to) --------------------------------


class Board:
    """A peg-solitaire board: its holes (grid coordinates, numbered row-major), the jumps
    (from, over, to) between them, and the cell maps of its symmetries."""

    def __init__(self, holes, directions, symmetries):
        self.holes = sorted(holes)
        self.index = {h: i for i, h in enumerate(self.holes)}
        jumps = []
        for i, (r, c) in enumerate(self.holes):
            for dr, dc, step in directions:
                over = (r + dr * step, c + dc * step)
                to = (r + 2 * dr * step, c + 2 * dc * step)
                if over in self.index and to in self.index:
                    jumps.append((i, self.index[over], self.index[to]))
        self.jumps = sorted(jumps)
        # image board = board[perm]: the hole a symmetry sends each hole to is read back
        self.symmetries = []
        for transform in symmetries:
            perm = tuple(self.index[transform(*h)] for h in self.holes)
            if perm != tuple(range(len(self.holes))):
                self.symmetries.append(perm)

    def rows(self):
        out = {}
        for i, (r, _) in enumerate(self.holes):
            out.setdefault(r, []).append(i)
        return [out[r] for r in sorted(out)]


ORTHOGONAL = [(0, 1, 1), (0, -1, 1), (1, 0, 1), (-1, 0, 1)]


def hoppers_board():
    """13 holes at the cells of a 5x5 grid with even row + column; a peg jumps diagonally
    over the next hole, or along a row or column over the hole two cells away."""
    holes = [(r, c) for r in range(5) for c in range(5) if (r + c) % 2 == 0]
    directions = [(1, 1, 1), (1, -1, 1), (-1, 1, 1), (-1, -1, 1),
                  (0, 1, 2), (0, -1, 2), (1, 0, 2), (-1, 0, 2)]
    return Board(holes, directions, grid_transforms(5, 5))


def english_board():
    """The English cross of 33 holes on a 7x7 grid; orthogonal jumps."""
    holes = [(r, c) for r in range(7) for c in range(7) if 2 <= r <= 4 or 2 <= c <= 4]
    return Board(holes, ORTHOGONAL, grid_transforms(7, 7))


def triangle_board():
    """15 holes in a triangle, row r holding columns 0..r; jumps along the three directions
    of the triangular lattice.  Only the left-right mirror keeps the top hole in place."""
    holes = [(r, c) for r in range(5) for c in range(r + 1)]
    directions = ORTHOGONAL[:2] + [(1, 0, 1), (-1, 0, 1), (1, 1, 1), (-1, -1, 1)]
    return Board(holes, directions, [lambda r, c: (r, c), lambda r, c: (r, r - c)])


def low_tables():
    """The 16-bit masks by bit count then value, where each count's run starts, and each
    mask's index within its run: the low part of a rank is one lookup both ways."""
    order = sorted(range(1 << LOW_BITS), key=lambda m: (bin(m).count("1"), m))
    masks = np.array(order, dtype=np.uint16)
    start = np.cumsum([0] + [comb(LOW_BITS, j) for j in range(LOW_BITS + 1)]).astype(np.int64)
    rank = np.empty(1 << LOW_BITS, dtype=np.uint16)
    rank[masks] = np.arange(1 << LOW_BITS) - start[[bin(m).count("1") for m in order]]
    return masks, start, rank


def rank_tables(holes):
    """T[b, v, below] = the rank contribution of the pegs in byte b of a mask, with byte
    value v, when `below` pegs lie in the lower bytes: sum of C(position, index)."""
    table = np.zeros((BYTES, 256, holes + 1), dtype=np.int64)
    for b in range(BYTES):
        for v in range(256):
            bits = [8 * b + j for j in range(8) if (v >> j) & 1]
            if bits and bits[-1] >= holes:
                continue
            for below in range(holes + 1 - len(bits)):
                table[b, v, below] = sum(comb(p, below + i + 1) for i, p in enumerate(bits))
    return table


def rank_reference(mask):
    """The combinatorial-number-system rank, in plain Python."""
    pegs = [p for p in range(64) if (mask >> p) & 1]
    return sum(comb(p, i + 1) for i, p in enumerate(pegs))


def jump_directions(board):
    """The jumps as bitboard directions: holes embedded in a grid of the board's width,
    each direction a grid shift s with the mask of the holes a peg may jump from (over
    the hole s further, to the hole 2s further).  Returns (grid mask of the holes, shifts,
    source masks)."""
    width = max(c for _, c in board.holes) + 1
    grid = [r * width + c for r, c in board.holes]
    if max(grid) >= 64:
        raise PuzzleError("a peg board must fit a 64-cell grid")
    sources = {}
    for f, o, t in board.jumps:
        shift = grid[o] - grid[f]
        if grid[t] - grid[o] != shift:
            raise PuzzleError(f"jump {f}-{o}-{t} is not along a straight line of the grid")
        sources[shift] = sources.get(shift, 0) | (1 << grid[f])
    shifts = sorted(sources)
    return (np.uint64(sum(1 << g for g in grid)), np.array(shifts, dtype=np.int64),
            np.array([sources[s] for s in shifts], dtype=np.uint64))


def symmetry_tables(perms):
    """S[s, b, v] = the image, under symmetry s, of the pegs of byte b of a mask when that
    byte is v: a mask's image is the OR of one lookup per byte."""
    table = np.zeros((len(perms), BYTES, 256), dtype=np.uint64)
    for s, perm in enumerate(perms):
        for b in range(BYTES):
            for v in range(256):
                table[s, b, v] = sum(1 << int(perm[8 * b + j]) for j in range(8)
                                     if (v >> j) & 1 and 8 * b + j < len(perm))
    return table


# --- the puzzle ---------------------------------------------------------------------------------


class PegSolitaire(Puzzle):
    family = "pegs"
    kernels = "puzzledb.puzzles.pegs_kernels"
    graded = True
    reversible = False  # jumps remove pegs: the layers are distances from the start only

    def __init__(self, name, description, board, start_hole):
        self.name = name
        self.description = description
        self.board = board
        self.cells = len(board.holes)
        self.jumps = board.jumps
        self.start_hole = start_hole
        self.start_pegs = self.cells - 1
        self.size = sum(self.levels())
        self.max_moves = len(self.jumps)

    def definition(self):
        return {
            "family": "pegs",
            "holes": [list(h) for h in self.board.holes],
            "jumps": [list(j) for j in self.jumps],
            "start_hole": self.start_hole,
            "ranking": "pegs-colex/1",
        }

    def make_tables(self):
        on_grid, shifts, sources = jump_directions(self.board)
        return PegTables(rank_tables(self.cells), *low_tables(), on_grid, shifts, sources,
                         np.int64(self.cells), np.int64(self.start_pegs))

    @property
    def work_size(self):
        return 1  # the unrank cache of pegs_kernels.neighbours

    # -- levels: layer d has start_pegs - d pegs ----------------------------------------
    def pegs_at(self, level):
        return self.start_pegs - level

    def level_size(self, level):
        pegs = self.pegs_at(level)
        return comb(self.cells, pegs) if 1 <= pegs <= self.start_pegs and level >= 0 else 0

    def level_of(self, board):
        return self.start_pegs - int(np.count_nonzero(board))

    # -- boards --------------------------------------------------------------------------
    def parse(self, text):
        cells = self.cells_of(str(text).lower(), "".join(PEG_SYMBOLS), noun="holes",
                              hint="use o for a peg and . for an empty hole")
        board = np.array([PEG_SYMBOLS[s] for s in cells], dtype=np.int64)
        if not 1 <= np.count_nonzero(board) <= self.start_pegs:
            raise BoardError(f"{self.name}: board {text!r} has {np.count_nonzero(board)} "
                             f"pegs; positions after a jump have 1..{self.start_pegs}")
        return board

    def format(self, board):
        return " ".join("".join("o" if board[i] else "." for i in row)
                        for row in self.board.rows())

    def mask(self, board):
        return sum(1 << i for i, peg in enumerate(board) if peg)

    def board_of_mask(self, mask):
        return np.array([(mask >> i) & 1 for i in range(self.cells)], dtype=np.int64)

    def rank(self, board):
        return rank_reference(self.mask(board))

    def unrank(self, rank, level=0):
        self.check_rank(rank, level)
        return self.board_of_mask(int(self.compiled.unrank(np.int64(rank),
                                                           self.pegs_at(level), self.tables())))

    def start(self):
        return self.board_of_mask(((1 << self.cells) - 1) ^ (1 << self.start_hole))

    def goal_ranks(self):
        return np.array([self.rank(self.start())], dtype=np.uint64)

    def symmetries(self):
        """The board's symmetries that keep the start's empty hole: only they carry every
        layer onto itself."""
        return tuple(p for p in self.board.symmetries if p[self.start_hole] == self.start_hole)

    def canonical_ranks(self, ranks, level=0):
        ranks = np.asarray(ranks, dtype=np.uint64)
        if not self.symmetries():
            return ranks.copy()
        return self.compiled.canonical(ranks, self.pegs_at(level), self._images, self.tables())

    @cached_property
    def _images(self):
        # the image of a mask is the mask of board[perm]: the peg at hole h moves to
        # argsort(perm)[h]
        return symmetry_tables([np.argsort(p) for p in self.symmetries()])

    # -- moves of the move metric: chains of jumps by one peg ----------------------------
    def jumps_from(self, mask, hole):
        """(over, to) of every jump the peg at `hole` can make on peg mask `mask`."""
        return [(o, t) for f, o, t in self.jumps
                if f == hole and (mask >> o) & 1 and not (mask >> t) & 1]

    def chain_moves(self, mask):
        """Every move of the move metric from peg mask `mask`: one peg making one or more
        consecutive jumps.  Yields (holes visited, the mask after), the first hole being
        where the peg started."""
        def extend(path, current):
            for over, to in self.jumps_from(current, path[-1]):
                after = current ^ (1 << path[-1]) ^ (1 << over) ^ (1 << to)
                yield (*path, to), after
                yield from extend((*path, to), after)

        for hole in range(self.cells):
            if (mask >> hole) & 1:
                yield from extend((hole,), mask)

    def solutions_in_moves(self, finish, first_move=None, all_solutions=True):
        """Shortest solutions in the move metric (consecutive jumps by one peg are one
        move) from the start to a single peg at hole `finish` (None: the hole empty at the
        start), by iterative deepening
        (search.ida_star).  first_move: a tuple of holes fixing the first move.
        Returns the SearchResult; solutions are lists of hole tuples."""
        finish = self.start_hole if finish is None else finish
        if not 0 <= finish < self.cells:
            raise PuzzleError(f"{self.name}: no hole {finish}; the holes are 0..{self.cells - 1}")
        start = self.mask(self.start())
        goal = 1 << finish
        prefix = []
        if first_move is not None:
            first_move = tuple(first_move)
            after = dict(self.chain_moves(start)).get(first_move)
            if after is None:
                raise BoardError(f"{self.name}: {first_move} is not a move from the start")
            prefix, start = [first_move], after

        def lower_bound(mask):
            # a position with pegs left other than the finishing one needs a move
            return 0 if mask == goal else 1

        result = ida_star(start, self.chain_moves, lambda mask: mask == goal, lower_bound,
                          max_length=self.start_pegs, all_solutions=all_solutions)
        if result.length is not None:
            result.length += len(prefix)
            result.solutions = [prefix + s for s in result.solutions]
        return result


def replay_moves(puzzle, moves):
    """The peg mask after playing `moves` (hole tuples) from the start, checking each jump
    by the rules in plain Python: the landing hole is empty and two steps away in a line,
    with a peg between.  Raises BoardError on an illegal jump."""
    mask = puzzle.mask(puzzle.start())
    legal = {(f, t): o for f, o, t in puzzle.jumps}
    for move in moves:
        for a, b in zip(move, move[1:]):
            over = legal.get((a, b))
            if over is None or not (mask >> a) & 1 or not (mask >> over) & 1 or (mask >> b) & 1:
                raise BoardError(f"{puzzle.name}: illegal jump {a}->{b}")
            mask ^= (1 << a) | (1 << over) | (1 << b)
    return mask


def reachable_finishes(db):
    """The holes where a single last peg can stand, from the one-peg layer of a peg
    solitaire DepthDatabase (layer start_pegs - 1); [] when no position gets that far."""
    puzzle = db.puzzle
    last = puzzle.start_pegs - 1
    if db.max_depth < last:
        return []
    return sorted(int(np.flatnonzero(puzzle.unrank(int(r), last))[0])
                  for r in db.layer(last).ranks())


def moves_reference(puzzle, board):
    """Every board one jump away, from the board's cells and the board geometry alone."""
    out = []
    for f, o, t in puzzle.jumps:
        if board[f] and board[o] and not board[t]:
            b = list(board)
            b[f], b[o], b[t] = 0, 0, 1
            out.append(b)
    return out


def all_masks(holes, pegs):
    """Every mask with `pegs` pegs, in rank order (small boards only; for tests)."""
    masks = [sum(1 << p for p in c) for c in combinations(range(holes), pegs)]
    return sorted(masks, key=rank_reference)
