"""The capabilities only some families have, one class each: a family that has one derives
from its class as well as from Puzzle (base.py) and implements its methods, and a caller
reaches them through Puzzle.capability(Kind), which refuses every other puzzle in one line
(`lacking`); a member that cannot answer refuses in its own words (--goal for a sliding
puzzle with repeated pieces).  Also TilePartition, what the shared capability
additive_partitions gives."""

from dataclasses import dataclass


class PatternBounds:
    """Lower bounds looked up in the database of an abstraction (sliding puzzles):
    `solve --heuristic pdb:<puzzle>`."""

    lacking = "no pattern databases of abstractions (pdb: bounds are for sliding puzzles)"

    def pattern_bound(self, abstract, depths):
        """The lower bound that looks positions up in `depths` (the depth of every rank of
        `abstract`, a coarser puzzle whose every move is a move of this one): a
        bounds.LowerBound."""
        raise NotImplementedError


class GoalFrames:
    """Boards written for another goal (sliding puzzles with distinct tiles):
    `solve --goal`."""

    lacking = "boards can be solved towards its own goal only"

    def goal_frame(self, goal):
        """Solving towards another goal (a board string, e.g. the literature's): an object
        whose parse(text) turns a board written for that goal into a board of this puzzle
        at the same distance from this puzzle's goal (BoardError when malformed or not
        solvable towards that goal), format(board, notation) writes such a board back as
        it was given (notation: as for format_as), and cell(c) gives the given board's
        cell of this puzzle's cell c (routes)."""
        raise NotImplementedError


class ChainedMoves:
    """A move metric in which a chain of jumps by one piece is one move (peg solitaire):
    `puzzledb peg-solutions`."""

    lacking = "no move metric of chained jumps (peg-solutions is for peg solitaire)"

    def solutions_in_moves(self, finish, first_move=None, all_solutions=True):
        """The shortest solutions in that metric from the start to one piece left at hole
        `finish` (None: the definition's finish); first_move fixes the first move (the
        holes its piece visits).  A chains.SearchResult whose solutions are lists of moves,
        each a tuple of holes."""
        raise NotImplementedError

    def format_moves(self, moves):
        """Moves as the family writes them (peg solitaire: (0,6)(9,3)(2,0,6)...)."""
        raise NotImplementedError


class Catalogued:
    """A catalogue of puzzles (sliding blocks: every board of a box around its goal pieces,
    docs/blocks.md): `puzzledb catalogue`, and boards answered one by one by a search of
    their cluster (`distance`, `solve`)."""

    lacking = "not a catalogue (declare one with catalogue: instead of board:)"

    def solution(self, board):
        """An optimal solution from the board (the board first), None if it cannot reach
        the goal."""
        raise NotImplementedError


@dataclass(frozen=True)
class TilePartition:
    """Tiles split into disjoint groups, for additive pattern databases: a board of width x
    height cells whose goal (a piece code per cell, 0 the blank) holds every tile once.
    Each group lists its tiles' codes in the order of its placement numbering; `labels`
    names each group by its tiles' symbols (file names)."""

    name: str
    width: int
    height: int
    goal: tuple
    groups: tuple
    labels: tuple
