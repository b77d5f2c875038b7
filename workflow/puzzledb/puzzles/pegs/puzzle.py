"""Peg solitaire (seed 004's Hoppers, the English 33-hole board, the 15-hole triangle, and
any board drawn as text, see Board).

A peg jumps over a neighbouring peg into an empty hole and the jumped peg is removed, so
every move removes one peg: the puzzles are graded.  The search starts from the start
position (every hole full but the start's empty ones), and layer d holds the positions
after d jumps, those with d more empty holes; the layers are disjoint by construction.
Within a level a position is ranked by the combinatorial number system over its peg mask:
the pegs at holes c_1 < ... < c_k have rank C(c_1, 1) + ... + C(c_k, k), dense over the
C(holes, k) masks (ranks.py; compiled by table lookups in kernels.py).  Jumps are bit
shifts of the mask laid out on the board's grid (board.py, which also reads the board's
drawing and finds its symmetries and the parities every jump keeps).
"""

from functools import cached_property
from math import comb
from types import MappingProxyType

import numpy as np

from puzzledb.errors import BoardError, DefinitionError, PuzzleError
from puzzledb.puzzles.base import Puzzle
from puzzledb.puzzles.capabilities import ChainedMoves
from puzzledb.puzzles.pegs.board import Board, jump_directions, parity_invariants
from puzzledb.puzzles.pegs.chains import ida_star
from puzzledb.puzzles.pegs.ranks import (
    PegTables,
    low_tables,
    rank_reference,
    rank_tables,
    symmetry_tables,
)

PEG_SYMBOLS = {"o": 1, "x": 1, "1": 1, "●": 1, ".": 0, "0": 0, "_": 0, "○": 0}  # in boards


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


def format_moves(moves):
    """Moves that are chains of jumps, as the cells the moving piece visits (the notation of
    seed 004): (0,6)(9,3)(2,0,6)..."""
    return "".join("(" + ",".join(str(h) for h in move) + ")" for move in moves)
