"""The symmetries a sliding puzzle is searched under (puzzles/symmetric.py): the board's
reflections and rotations that keep the blank's goal cell, each with the renaming of the
pieces that makes the goal its own image (the 15-puzzle's transpose renames tile 2 as 5, 3
as 9, ...; repeated pieces rename colour to colour).  A move goes to a move, so positions
an element maps onto each other are equally far.  The canonical key of a class is the
least rank among its images (symmetry_kernels.py).  Single-tile metric only (`reason`
says why none otherwise)."""

from collections import namedtuple
from functools import cached_property
from importlib import import_module

import numpy as np

from puzzledb.puzzles.geometry import cell_maps
from puzzledb.puzzles.sliding.metrics import SingleTile
from puzzledb.puzzles.sliding.rankings import MultisetTables, PermutationTables
from puzzledb.puzzles.symmetric import SymmetryGroup

# the base tables' fields, and the symmetries' (one flat namedtuple: numba's parallel loops
# take no nested one): cell maps, their inverses and renamings (one row each), how many,
# where the kernel's scratch starts in its work array.  Each class a module attribute of its
# own name: numba's cache pickles a kernel's argument types, a class by its module and name,
# and a class it cannot find there leaves the kernel uncached (made in a dict comprehension,
# these were: the frontier's layer_neighbours compiled again in every process, 8 s)
SYMMETRY_FIELDS = ("sy_cells", "sy_back", "sy_rename", "sy_count", "sy_work")
SymmetricPermutationTables = namedtuple("SymmetricPermutationTables",
                                        PermutationTables._fields + SYMMETRY_FIELDS)
SymmetricMultisetTables = namedtuple("SymmetricMultisetTables",
                                     MultisetTables._fields + SYMMETRY_FIELDS)
SYMMETRIC = {PermutationTables: SymmetricPermutationTables,
             MultisetTables: SymmetricMultisetTables}


def renamed_maps(puzzle):
    """(cell map, renaming) of each symmetry but the identity: image[c] =
    renaming[board[cells[c]]], the renaming the one that maps the goal onto itself (a
    bijection of piece codes, the blank to itself); a cell map needing none is left out."""
    goal = puzzle.goal
    out = []
    for cells in cell_maps(puzzle.width, puzzle.height)[1:]:
        rename = {}
        for c, source in enumerate(cells):
            if rename.setdefault(int(goal[source]), int(goal[c])) != goal[c]:
                break
        else:
            if rename[0] == 0 and len(set(rename.values())) == len(rename):
                out.append((cells, [rename[code] for code in range(len(rename))]))
    return out


class SlidingSymmetry(SymmetryGroup):
    """The group of one SlidingPuzzle: what puzzles.symmetric.Classes asks of it."""

    kernels = "puzzledb.puzzles.sliding.symmetry_kernels"

    def __init__(self, puzzle):
        self.puzzle = puzzle
        self.maps = renamed_maps(puzzle)
        self.reason = None
        if not isinstance(puzzle.metric, SingleTile):
            self.reason = "the multi-tile metric (not yet searched up to symmetry)"
        elif not self.maps:
            self.reason = "no reflection or rotation of the board keeps the blank's goal cell"

    @property
    def order(self):
        return len(self.maps) + 1

    # a class of two positions halves the keys, but each costs its images' ranks: the
    # 15-puzzle to depth 25 by classes took 1.2x the time and 1.3x the CPU of every position
    # (docs/changelog.md, "Symmetry never a loss by default")
    not_by_default = "classes of a sliding board cost more time than they save"

    def describe(self):
        if self.reason is not None:
            return f"none: {self.reason}"
        return (f"{len(self.maps)} reflection{'s' if len(self.maps) > 1 else ''} or "
                f"rotation{'s' if len(self.maps) > 1 else ''} of the board keeping the "
                f"blank's goal cell, pieces renamed: classes of up to {self.order} "
                f"positions, searched only with `symmetry: classes` (half the disk): "
                f"{self.not_by_default}")

    def as_data(self):
        return {"cells": [list(cells) for cells, _ in self.maps],
                "rename": [list(rename) for _, rename in self.maps],
                "canonical": "least-rank/1"}

    @property
    def max_moves(self):
        return self.puzzle.max_moves

    @property
    def work_size(self):
        return self.puzzle.work_size + 3 * self.puzzle.cells

    @cached_property
    def _tables(self):
        import_module(self.kernels)  # registered before the tables reach numba
        base = self.puzzle.tables()
        cells = np.array([c for c, _ in self.maps], dtype=np.int64)
        return SYMMETRIC[type(base)](
            *base, cells, np.argsort(cells, axis=1),
            np.array([r for _, r in self.maps], dtype=np.int64),
            np.int64(len(self.maps)), np.int64(self.puzzle.work_size))
