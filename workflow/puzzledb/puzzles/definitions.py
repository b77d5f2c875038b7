"""Every built-in puzzle as data: its family and the family's parameters.  This is the one
place a puzzle is declared; the families (sliding.py, fourteen.py, flipit.py, pegs.py) turn a
definition into a Puzzle.
"""

from ..errors import PuzzleError
from .flipit import FlipItPuzzle
from .fourteen import FourteenPuzzle
from .pegs import PegSolitaire, english_board, hoppers_board, triangle_board
from .sliding import SlidingPuzzle

BUILTIN = {
    "fifteen-6colour": dict(
        family="sliding", width=4, height=4, goal="1234 6666 6666 5660",
        description="4x4 sliding puzzle: five distinct pieces, ten identical ones, one blank "
                    "(seed 000)"),
    "fifteen-3colour": dict(
        family="sliding", width=4, height=4, goal="1122 1122 1332 3330",
        description="4x4 sliding puzzle: five pieces each of three colours, one blank "
                    "(seed 000)"),
    "eight": dict(
        family="sliding", width=3, height=3, goal="123 456 780",
        description="the 8-puzzle, 3x3 sliding tiles (seed 004)"),
    "fifteen": dict(
        family="sliding", width=4, height=4, goal="1234 5678 9abc def0",
        description="the 15-puzzle (16!/2 states: too many for a database; solve by IDA*)"),
    "eleven": dict(
        family="sliding", width=4, height=3, goal="1234 5678 9ab0",
        description="the 11-puzzle, 4 wide and 3 high (12!/2 states)"),
    "fourteen": dict(
        family="fourteen",
        description="4x4 board, fourteen tiles and a domino-shaped blank (seed 002)"),
    "flipit-square": dict(
        family="flipit", diagonal=False,
        description="Flip It Square: 4x4, one empty cell, fifteen two-sided pieces; a piece "
                    "jumps into the empty cell and turns over the pieces it passes (seed 003)"),
    "flipit-square-diagonal": dict(
        family="flipit", diagonal=True,
        description="Flip It Square: 4x4, one empty cell, fifteen two-sided pieces; a piece "
                    "jumps into the empty cell and turns over the pieces it passes, also "
                    "along diagonals (seed 003)"),
    "hoppers": dict(
        family="pegs", board="hoppers", start_hole=6,
        description="Hoppers: 13-hole peg solitaire, diagonal and long orthogonal jumps, "
                    "centre empty at the start (seed 004)"),
    "english33": dict(
        family="pegs", board="english", start_hole=16,
        description="the English 33-hole peg solitaire board, centre empty at the start"),
    "triangle15": dict(
        family="pegs", board="triangle", start_hole=0,
        description="the 15-hole triangular peg solitaire board, top hole empty at the "
                    "start"),
}

PEG_BOARDS = {"hoppers": hoppers_board, "english": english_board, "triangle": triangle_board}


def build(name, definition):
    """The Puzzle a definition declares."""
    spec = dict(definition)
    family = spec.pop("family")
    description = spec.pop("description", "")
    if family == "sliding":
        return SlidingPuzzle(name, spec["width"], spec["height"], spec["goal"], description)
    if family == "fourteen":
        return FourteenPuzzle(name, description)
    if family == "flipit":
        return FlipItPuzzle(name, spec["diagonal"], description)
    if family == "pegs":
        return PegSolitaire(name, description, PEG_BOARDS[spec["board"]](), spec["start_hole"])
    raise PuzzleError(f"{name}: unknown family {family!r}")
