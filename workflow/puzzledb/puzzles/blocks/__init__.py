"""The sliding-blocks family (docs/blocks.md): one puzzle of a box (`board:`, puzzle.py), or
a catalogue of every board of a box around its goal pieces (`catalogue:`, the package
catalogue/)."""

from puzzledb.errors import DefinitionError
from puzzledb.puzzles.blocks.catalogue.puzzle import CataloguePuzzle
from puzzledb.puzzles.blocks.puzzle import BlocksPuzzle


def blocks(name, *, goal, board=None, catalogue=None, metric="step", axis="free",
           distinct="", ranks="auto", description=""):
    """The family's constructor: a BlocksPuzzle of its board, or, given `catalogue:`
    instead, a CataloguePuzzle of every board around the goal."""
    if (board is None) == (catalogue is None):
        raise DefinitionError("board", "give board (a puzzle) or catalogue (every board "
                              "of the box around the goal), one of the two")
    if board is not None:
        return BlocksPuzzle(name, board, goal, metric, axis, distinct, ranks, description)
    if distinct or ranks != "auto":
        raise DefinitionError("catalogue", "distinct and ranks are for a board, not a "
                              "catalogue")
    return CataloguePuzzle(name, goal, catalogue, metric, axis, description)
