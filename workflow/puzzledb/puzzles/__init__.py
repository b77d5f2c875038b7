"""The registry of puzzles by name: the one place to add a puzzle.

Each entry builds a Puzzle (see puzzledb.puzzle); the engine, the store and the queries
look puzzles up here and nowhere else.
"""

from ..puzzle import PuzzleError
from .flipit import FlipItPuzzle
from .fourteen import FourteenPuzzle
from .pegs import PegSolitaire, english_board, hoppers_board, triangle_board
from .sliding import SlidingPuzzle

_FACTORIES = {
    "fifteen-6colour": lambda: SlidingPuzzle(
        "fifteen-6colour", 4, 4, "1234 6666 6666 5660",
        "4x4 sliding puzzle: five distinct pieces, ten identical ones, one blank (seed 000)",
    ),
    "fifteen-3colour": lambda: SlidingPuzzle(
        "fifteen-3colour", 4, 4, "1122 1122 1332 3330",
        "4x4 sliding puzzle: five pieces each of three colours, one blank (seed 000)",
    ),
    "eight": lambda: SlidingPuzzle(
        "eight", 3, 3, "123 456 780", "the 8-puzzle, 3x3 sliding tiles (seed 004)",
    ),
    "fifteen": lambda: SlidingPuzzle(
        "fifteen", 4, 4, "1234 5678 9abc def0",
        "the 15-puzzle (16!/2 states: too many for a database; solve --search ida)",
    ),
    "eleven": lambda: SlidingPuzzle(
        "eleven", 4, 3, "1234 5678 9ab0", "the 11-puzzle, 4 wide and 3 high (12!/2 states)",
    ),
    "fourteen": FourteenPuzzle,
    "flipit-square": lambda: FlipItPuzzle(diagonal=False),
    "flipit-square-diagonal": lambda: FlipItPuzzle(diagonal=True),
    "hoppers": lambda: PegSolitaire(
        "hoppers", "Hoppers: 13-hole peg solitaire, diagonal and long orthogonal jumps, "
        "centre empty at the start (seed 004)", hoppers_board(), start_hole=6,
    ),
    "english33": lambda: PegSolitaire(
        "english33", "the English 33-hole peg solitaire board, centre empty at the start",
        english_board(), start_hole=16,
    ),
    "triangle15": lambda: PegSolitaire(
        "triangle15", "the 15-hole triangular peg solitaire board, top hole empty at the start",
        triangle_board(), start_hole=0,
    ),
}

_cache = {}


def names():
    return sorted(_FACTORIES)


def get(name):
    """The puzzle called name; PuzzleError naming the known ones if there is none."""
    if name not in _FACTORIES:
        raise PuzzleError(f"unknown puzzle {name!r}; known: {', '.join(names())}")
    if name not in _cache:
        _cache[name] = _FACTORIES[name]()
    return _cache[name]
