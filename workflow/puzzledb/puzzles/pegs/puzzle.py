"""Peg solitaire (seed 004's Hoppers, the English 33-hole board, the 15-hole triangle, and
any board drawn as text, see Board).

A peg jumps over a neighbouring peg into an empty hole and the jumped peg is removed, so
every move removes one peg: the puzzles are graded.  The search starts from the start
position (every hole full but the start's empty ones), and layer d holds the positions
after d jumps, those with d more empty holes; the layers are disjoint by construction.
Within a level a position is ranked by the combinatorial number system over its peg mask:
the pegs at holes c_1 < ... < c_k have rank C(c_1, 1) + ... + C(c_k, k), dense over the
C(holes, k) masks (compiled by table lookups in kernels.py).  Jumps are bit shifts of
the mask laid out on the board's grid.
"""

from collections import namedtuple
from fractions import Fraction
from functools import cached_property
from itertools import combinations
from math import comb
from types import MappingProxyType

import numpy as np

from puzzledb.errors import BoardError, DefinitionError, PuzzleError
from puzzledb.puzzles.base import ChainedMoves, Puzzle
from puzzledb.puzzles.pegs.chains import ida_star

PEG_SYMBOLS = {"o": 1, "x": 1, "1": 1, "●": 1, ".": 0, "0": 0, "_": 0, "○": 0}
BYTES = 8  # rank tables cover masks of up to 64 holes, one byte at a time
LOW_BITS = 16  # the low part of a mask, ranked and unranked by one lookup

# The kernels' data (see puzzledb.compiled): the byte tables of the rank, the low-part lookups,
# and the jumps as grid shifts; the symmetries as byte tables of mask images.
PegTables = namedtuple("PegTables", "rank_table low_masks low_start low_rank on_grid shifts "
                                    "sources holes start_pegs")


# --- boards as data: holes drawn on a grid, jumps (from, over, to) ---------------------------

PEG, EMPTY_HOLE, WALL = "o", ".", "#"  # how a definition draws a board
DIRECTIONS = {
    "orthogonal": [(0, 1), (0, -1), (1, 0), (-1, 0)],
    "horizontal": [(0, 1), (0, -1)],
    "vertical": [(1, 0), (-1, 0)],
    "diagonal": [(1, 1), (-1, -1), (1, -1), (-1, 1)],
    "diagonal-down": [(1, 1), (-1, -1)],  # the diagonals that go down to the right: \\
    "diagonal-up": [(1, -1), (-1, 1)],  # and up to the right: /
}
GRID_CELLS = 64  # the jump kernel lays a position on the board's grid in one 64-bit word


class Board:
    """A peg-solitaire board drawn as text: rows separated by spaces or newlines, `o` a hole
    with a peg at the start, `.` a hole empty at the start, `#` no hole (a missing cell at
    the end of a row is no hole either).  Holes are numbered row-major.

    jumps maps a direction of DIRECTIONS to its step: a peg jumps over the hole `step` cells
    away into the hole 2 * step cells away, whatever lies between (Hoppers' orthogonal jumps
    have step 2: over a cell with no hole and the hole beyond it)."""

    def __init__(self, text, jumps):
        rows = str(text).split()
        unknown = sorted(set("".join(rows)) - {PEG, EMPTY_HOLE, WALL})
        if unknown:
            raise DefinitionError("board", f"symbols {''.join(unknown)!r}: draw holes with "
                                  f"o (a peg at the start) or . (empty at the start), no "
                                  f"hole with #")
        self.holes = [(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row)
                      if ch != WALL]
        self.index = {h: i for i, h in enumerate(self.holes)}
        self.start_empty = [i for i, (r, c) in enumerate(self.holes)
                            if rows[r][c] == EMPTY_HOLE]
        width = max((c for _, c in self.holes), default=0) + 1
        if len(self.holes) < 3 or len(rows) * width > GRID_CELLS:
            raise DefinitionError("board", f"{len(self.holes)} holes on a {width}x{len(rows)} "
                                  f"grid: at least 3 holes, and at most {GRID_CELLS} cells "
                                  f"of grid")
        if not self.start_empty or len(self.start_empty) == len(self.holes):
            raise DefinitionError("board", "the start needs a peg (o) and an empty hole (.)")
        self.vectors = set()
        for name, step in dict(jumps).items():
            if name not in DIRECTIONS:
                raise DefinitionError("jumps", f"unknown direction {name!r} (known: "
                                      f"{', '.join(DIRECTIONS)})")
            if not isinstance(step, int) or step < 1:
                raise DefinitionError("jumps", f"{name}: step {step!r}, expected 1 or more")
            self.vectors |= {(dr * step, dc * step) for dr, dc in DIRECTIONS[name]}
        self.jumps = sorted(
            (i, self.index[(r + dr, c + dc)], self.index[(r + 2 * dr, c + 2 * dc)])
            for i, (r, c) in enumerate(self.holes) for dr, dc in self.vectors
            if (r + dr, c + dc) in self.index and (r + 2 * dr, c + 2 * dc) in self.index)
        self.symmetries = [p for p in lattice_symmetries(self.holes, self.vectors)
                           if p != tuple(range(len(self.holes)))]

    def rows(self):
        out = {}
        for i, (r, _) in enumerate(self.holes):
            out.setdefault(r, []).append(i)
        return [out[r] for r in sorted(out)]

    def mask_of_drawing(self, text, key):
        """The peg mask of a position drawn like the board (o a peg, . an empty hole, #
        where the board has no hole); DefinitionError naming `key` if it is not."""
        rows = str(text).split()
        holes = [(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch != WALL]
        if holes != self.holes or set("".join(rows)) - {PEG, EMPTY_HOLE, WALL}:
            raise DefinitionError(key, f"{text!r} is not drawn on the board's holes (o a "
                                  f"peg, . an empty hole, # no hole)")
        return sum(1 << self.index[(r, c)] for r, c in holes if rows[r][c] == PEG)


def lattice_symmetries(holes, vectors):
    """The cell maps of the board's symmetries (image board = board[perm]): the linear maps
    that carry the set of jump vectors onto itself, followed by the translation that
    carries the holes onto the holes.  Every such map sends jumps to jumps.  The square grid
    gives the 8 of the square; a triangle drawn row by row (jumps along rows, columns and one
    diagonal) or staggered (jumps along the rows, two cells a step, and both diagonals) the 6
    of the triangle."""
    vectors = sorted(vectors)
    basis = next(((v, w) for v in vectors for w in vectors if v[0] * w[1] != v[1] * w[0]),
                 None)
    if basis is None:  # no jumps, or all along one line: the square's maps that keep them
        maps = [((a, b), (c, d)) for a, b, c, d in
                ((1, 0, 0, 1), (-1, 0, 0, 1), (1, 0, 0, -1), (-1, 0, 0, -1),
                 (0, 1, 1, 0), (0, -1, 1, 0), (0, 1, -1, 0), (0, -1, -1, 0))]
    else:
        (v1, v2), det = basis, basis[0][0] * basis[1][1] - basis[0][1] * basis[1][0]
        maps = []
        for w1 in vectors:  # the map A with A v1 = w1, A v2 = w2: A = W V^-1
            for w2 in vectors:
                a, b, c, d = (Fraction(e, det) for e in (
                    w1[0] * v2[1] - w2[0] * v1[1], w2[0] * v1[0] - w1[0] * v2[0],
                    w1[1] * v2[1] - w2[1] * v1[1], w2[1] * v1[0] - w1[1] * v2[0]))
                maps.append(((a, b), (c, d)))
    index = {h: i for i, h in enumerate(holes)}
    found = set()
    for (a, b), (c, d) in maps:
        if {(a * r + b * s, c * r + d * s) for r, s in vectors} != set(vectors):
            continue
        image = [(a * r + b * s, c * r + d * s) for r, s in holes]
        shift = (min(holes)[0] - min(image)[0], min(holes)[1] - min(image)[1])
        moved = [(r + shift[0], s + shift[1]) for r, s in image]
        if set(moved) == set(index):  # Fractions equal to whole numbers match the holes
            found.add(tuple(index[h] for h in moved))
    return sorted(found)


def parity_invariants(holes, jumps):
    """A basis of the sets S of holes whose number of pegs keeps its parity under every jump
    (as hole masks): a jump empties `from` and `over` and fills `to`, so S works when it
    holds an even number of the three holes of every jump.  Gaussian elimination over GF(2)
    on one row per jump."""
    pivots = {}  # pivot hole -> reduced row (mask)
    for f, o, t in jumps:
        row = (1 << f) ^ (1 << o) ^ (1 << t)
        for hole, pivot_row in pivots.items():
            if row >> hole & 1:
                row ^= pivot_row
        if row:
            hole = row.bit_length() - 1
            for other in pivots:
                if pivots[other] >> hole & 1:
                    pivots[other] ^= row
            pivots[hole] = row
    basis = []
    for free in range(holes):  # the null space: one vector per hole that is no pivot
        if free in pivots:
            continue
        vector = 1 << free
        for hole, row in pivots.items():
            if row >> free & 1:
                vector |= 1 << hole
        basis.append(vector)
    return basis


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


class PegSolitaire(Puzzle, ChainedMoves):
    family = "pegs"
    kernels = "puzzledb.puzzles.pegs.kernels"
    graded = True
    reversible = False  # jumps remove pegs: the layers are distances from the start only

    def __init__(self, name, board, jumps=MappingProxyType({"orthogonal": 1}), finish=None,
                 description=""):
        self.name = name
        self.board = Board(board, jumps)
        self.cells = len(self.board.holes)
        self.jumps = self.board.jumps
        self.start_empty = self.board.start_empty
        self.start_pegs = self.cells - len(self.start_empty)
        self.size = sum(self.levels())
        self.max_moves = len(self.jumps)
        self.finish = self._finish(finish)
        self.description = description or (
            f"peg solitaire on {self.cells} holes, {self.start_pegs} pegs at the start")

    def _finish(self, finish):
        """The finish as a peg mask: a hole number (one peg there) or a drawing of the
        board; DefinitionError if a jump invariant tells it apart from the start.  None
        given: one peg in the start's empty hole, when it has one and no invariant rules it
        out; else no finish."""
        start = self.mask(self.start())
        if finish is None:
            default = 1 << self.start_empty[0] if len(self.start_empty) == 1 else None
            return default if default and self._invariant_apart(start, default) is None \
                else None
        if isinstance(finish, int):
            if not 0 <= finish < self.cells:
                raise DefinitionError("finish", f"no hole {finish}; the holes are "
                                      f"0..{self.cells - 1}")
            mask = 1 << finish
        else:
            mask = self.board.mask_of_drawing(finish, "finish")
        if not 0 < bin(mask).count("1") < bin(start).count("1"):
            raise DefinitionError("finish", "the finish needs at least one peg, and fewer "
                                  "than the start")
        invariant = self._invariant_apart(start, mask)
        if invariant is not None:
            holes = ", ".join(str(h) for h in range(self.cells) if invariant >> h & 1)
            odd = bin(start & invariant).count("1") & 1
            raise DefinitionError(
                "finish", f"unreachable from the start: every jump keeps the parity of the "
                f"pegs on holes {holes}, {'odd' if odd else 'even'} at the start and "
                f"{'even' if odd else 'odd'} at the finish")
        return mask

    def _invariant_apart(self, start, finish):
        """A set of holes (mask) whose peg count parity every jump keeps but which differs
        between the two positions; None if no such parity tells them apart."""
        for invariant in parity_invariants(self.cells, self.jumps):
            if (bin(start & invariant).count("1") ^ bin(finish & invariant).count("1")) & 1:
                return invariant
        return None

    def definition(self):
        definition = {
            "family": "pegs",
            "holes": [list(h) for h in self.board.holes],
            "jumps": [list(j) for j in self.jumps],
            "ranking": "pegs-colex/1",
        }
        # one empty hole, the start of every board before several were allowed, keeps the
        # key it had, so that those boards keep their definition hash
        if len(self.start_empty) == 1:
            definition["start_hole"] = self.start_empty[0]
        else:
            definition["start_holes"] = list(self.start_empty)
        return definition

    def make_tables(self):
        on_grid, shifts, sources = jump_directions(self.board)
        return PegTables(rank_tables(self.cells), *low_tables(), on_grid, shifts, sources,
                         np.int64(self.cells), np.int64(self.start_pegs))

    @property
    def work_size(self):
        return 1  # the unrank cache of kernels.neighbours

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
        empty = sum(1 << h for h in self.start_empty)
        return self.board_of_mask(((1 << self.cells) - 1) ^ empty)

    def goal_ranks(self):
        return np.array([self.rank(self.start())], dtype=np.uint64)

    def symmetries(self):
        """The board's symmetries that keep the start's empty holes: only they carry every
        layer onto itself."""
        empty = set(self.start_empty)
        return tuple(p for p in self.board.symmetries if {p[h] for h in empty} == empty)

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
        move) from the start to a single peg at hole `finish` (None: the definition's
        finish), by iterative deepening (chains.ida_star).  first_move: a tuple of holes
        fixing the first move.  Returns the SearchResult; solutions are lists of hole
        tuples."""
        if finish is None and self.finish is None:
            raise PuzzleError(f"{self.name}: its definition has no finish; give the hole "
                              f"of the last peg")
        if finish is not None and not 0 <= finish < self.cells:
            raise PuzzleError(f"{self.name}: no hole {finish}; the holes are 0..{self.cells - 1}")
        start = self.mask(self.start())
        goal = self.finish if finish is None else 1 << finish
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

    def format_moves(self, moves):
        return format_moves(moves)


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


def format_moves(moves):
    """Moves that are chains of jumps, as the cells the moving piece visits (the notation of
    seed 004): (0,6)(9,3)(2,0,6)..."""
    return "".join("(" + ",".join(str(h) for h in move) + ")" for move in moves)
