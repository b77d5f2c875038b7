"""Boards of a sliding puzzle written for another goal of the same tiles (the literature's
15-puzzle goal, blank top left): the goal frame that maps them to ours and back, through a
symmetry of the grid."""

import numpy as np

from puzzledb.errors import BoardError


class GoalFrame:
    """Boards written for another goal of the same tiles, e.g. the literature's 15-puzzle
    goal with the blank top left.  A symmetry of the grid that takes that goal's blank cell to
    ours, then the renaming of tiles that takes that goal onto ours, map every board to a board
    at the same distance from our goal: both commute with moves.  Routes map back cell by
    cell through the inverse symmetry."""

    def __init__(self, puzzle, goal):
        self.puzzle = puzzle
        self.text = goal
        given = puzzle.pieces(goal)
        w, h = puzzle.width, puzzle.height
        blank = int(np.flatnonzero(given == 0)[0])
        for cell_map in grid_symmetries(w, h):  # cell_map[c]: where cell c goes
            if cell_map[blank] == puzzle.goal_blank:
                break
        else:
            raise BoardError(f"{puzzle.name}: no symmetry of the board takes the blank of "
                             f"goal {goal!r} to cell {puzzle.goal_blank}")
        self.cell_map = cell_map
        self.back = np.argsort(cell_map)
        self.rename = np.zeros(puzzle.cells, dtype=np.int64)
        self.rename[given] = puzzle.goal[cell_map]

    def parse(self, text):
        board = np.zeros(self.puzzle.cells, dtype=np.int64)
        board[self.cell_map] = self.rename[self.puzzle.pieces(text)]
        if not self.puzzle.reachable(board):
            raise BoardError(f"{self.puzzle.name}: board {text!r} is unreachable from goal "
                             f"{self.text!r} (wrong permutation parity)")
        return board

    def format(self, board, notation="symbols"):
        given = np.argsort(self.rename)[np.asarray(board)[self.cell_map]]
        return self.puzzle.format_as(given, notation)

    def cell(self, c):
        return int(self.back[c])


def grid_symmetries(width, height):
    """The symmetries of a width x height grid as cell maps (new cell of each cell), the
    identity first: the four flips and turns, and on a square the four more that transpose."""
    rows, cols = np.divmod(np.arange(width * height), width)
    maps = [(rows, cols), (rows, width - 1 - cols), (height - 1 - rows, cols),
            (height - 1 - rows, width - 1 - cols)]
    if width == height:
        maps += [(c, r) for r, c in maps]
    return [r * width + c for r, c in maps]
