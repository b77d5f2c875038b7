"""Boards on a grid of cells: orthogonal neighbours and the symmetries of a rectangle.

A symmetry is given both as a map of grid coordinates (row, column) -> (row, column) and as a
cell map `perm` of a row-major board, with the convention used everywhere in puzzledb: the
image of board b is b[perm].
"""

import numpy as np


LEFT, RIGHT, UP, DOWN = range(4)


def grid_adjacency(width, height):
    """adjacent[cell, d]: the neighbour of cell in direction d (LEFT, RIGHT, UP, DOWN), -1
    at the edge of the board."""
    adjacent = np.full((width * height, 4), -1, dtype=np.int64)
    for cell in range(width * height):
        row, col = divmod(cell, width)
        for d, (dr, dc) in enumerate(((0, -1), (0, 1), (-1, 0), (1, 0))):
            if 0 <= row + dr < height and 0 <= col + dc < width:
                adjacent[cell, d] = (row + dr) * width + col + dc
    return adjacent


def grid_transforms(width, height):
    """The symmetries of a width x height rectangle as coordinate maps, the identity first:
    the 8 of the square's dihedral group, or the 4 of a rectangle that is not square."""
    h, w = height - 1, width - 1
    maps = [lambda r, c: (r, c), lambda r, c: (r, w - c), lambda r, c: (h - r, c),
            lambda r, c: (h - r, w - c)]
    if width == height:
        maps += [lambda r, c: (c, r), lambda r, c: (c, w - r), lambda r, c: (w - c, r),
                 lambda r, c: (w - c, w - r)]
    return maps


def cell_maps(width, height):
    """The same symmetries as cell maps perm (image board = board[perm]), identity first."""
    return [tuple(row * width + col for row, col in
                  (transform(r, c) for r in range(height) for c in range(width)))
            for transform in grid_transforms(width, height)]
