"""A catalogue's definition, checked: every board of a box that holds the goal pieces and any
number of pieces of given shapes (and up to `walls` 1x1 cells that never move, and at least
`min_empty` empty cells), as the definition `catalogue: {pieces: [...], walls: N,
min_empty: N}` declares it.  Plain Python: the box, the classes of pieces, the boards' keys
and the compiled kernels' tables (cluster_search_blocks.py, candidate_walk_blocks.py);
docs/blocks.md, "The catalogue", tells the whole story.

A board is keyed by what covers each cell: the class of the piece there, or nothing, one
field of `bits` bits a cell, cells in reading order from the most significant field of the
first word.  Boards compare as their keys do (a cell holding a piece before an empty one,
lower classes first), so a piece stepping up or left makes a board smaller; the goal
pieces' classes come first.  The tiling of a class's cells by its shape is unique (the
first cell of each piece is its anchor), so the key is the board.
"""

from collections import namedtuple
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from puzzledb.errors import DefinitionError
from puzzledb.puzzles.blocks.drawing import STEPS, Drawing, DrawingError, lane_of, shape_label
from puzzledb.puzzles.blocks.puzzle import METRICS

UP, DOWN, LEFT, RIGHT = range(4)  # drawing.STEPS's order
SEEN_BOUND = 1 << 22  # candidates a job remembers as met (candidate_walk_blocks.SEEN)

# The kernels' data: the box (cells, width, the '#' cells), the metric, the goal classes
# (the first `goals` classes) and where they stand; for every class and anchor the cells it
# covers (0: not an anchor of the class), its neighbouring anchor in each direction it may
# move (-1: none) and the key's fields it sets (XOR with an empty board's key); an empty
# board's key.
CatalogueTables = namedtuple("CatalogueTables", "cells width fixed metric bits per goals "
                             "goal_at goal_mask goal_value masks steps delta empty")


def parse_shape(text):
    """The shape a name gives: 'WxH' a rectangle, or rows of 'X' and '.' separated by '/'
    ('XX/X.'); the (row, column) offsets from its first cell.  ValueError for a name that
    is neither, or cells that do not touch."""
    text = str(text).strip()
    if "x" in text and "/" not in text:
        width, _, height = text.partition("x")
        if not (width.isdigit() and height.isdigit() and int(width) > 0 and int(height) > 0):
            raise ValueError(f"unknown shape {text!r}: WxH (e.g. 2x1) or rows such as XX/X.")
        rows = ["X" * int(width)] * int(height)
    else:
        rows = text.split("/")
        if not text or len({len(r) for r in rows}) != 1 or set(text) - set("X./"):
            raise ValueError(f"unknown shape {text!r}: WxH (e.g. 2x1) or rows such as XX/X.")
    width = len(rows[0])
    cells = [r * width + c for r, row in enumerate(rows) for c, ch in enumerate(row)
             if ch == "X"]
    if not cells:
        raise ValueError(f"unknown shape {text!r}: it has no cell")
    drawing = Drawing.read(" ".join(row.replace("X", "A") for row in rows))
    if len(drawing.pieces) != 1:
        raise ValueError(f"shape {text!r} is in two pieces (its cells must touch side by "
                         f"side)")
    return drawing.shape(drawing.pieces[0])


@dataclass(frozen=True)
class CatalogueClass:
    """Pieces of one class: their shape, the directions they move in (UP..RIGHT), the
    anchors they may stand at (ascending), and a name (a goal piece's letter, else the
    shape's label)."""

    shape: tuple
    directions: tuple
    anchors: tuple
    label: str
    goal: bool = False


class Catalogue:
    """The catalogue's box and classes (goal pieces first, then the shapes in the order
    given), checked when made: DefinitionError naming the key at fault."""

    def __init__(self, name, goal, pieces, walls=0, metric="step", axis="free", min_empty=0):
        self.name = name
        if metric not in METRICS:
            raise DefinitionError("metric", f"{metric!r}: step, line or path")
        try:
            self.drawing = Drawing.read(goal)
        except DrawingError as err:
            raise DefinitionError("goal", str(err)) from None
        if not self.drawing.pieces:
            raise DefinitionError("goal", "no piece: draw where the goal pieces stand")
        if axis not in ("free", "length"):
            raise DefinitionError("axis", f"{axis!r}: free or length (a catalogue's pieces "
                                  f"all move alike)")
        if isinstance(walls, bool) or not isinstance(walls, int) or walls < 0:
            raise DefinitionError("catalogue", f"walls: {walls!r}: a number of 1x1 cells "
                                  f"that never move, 0 or more")
        self.metric, self.axis, self.walls = metric, axis, walls
        self.classes = self._goal_classes() + self._piece_classes(pieces)
        self.min_empty = self._min_empty(min_empty)
        self.bits = len(self.classes).bit_length()  # codes 0..K-1, and 2^bits - 1 empty

    def _goal_classes(self):
        drawing = self.drawing
        found = []
        for piece in drawing.pieces:
            shape = drawing.shape(piece)
            lane = lane_of(drawing, piece, self.axis)
            anchors = drawing.anchors(shape, lane)
            if len(anchors) < 2:
                raise DefinitionError("goal", f"piece {piece.letter!r} has no other place "
                                      f"in its lane: it never moves")
            found.append(CatalogueClass(shape, self._directions(shape), anchors,
                                        piece.letter, goal=True))
        return found

    def _piece_classes(self, pieces):
        if not isinstance(pieces, list) or not pieces:
            raise DefinitionError("catalogue", "pieces: a list of shapes, e.g. [2x1, 1x2]")
        found = []
        for text in pieces:
            try:
                shape = parse_shape(text)
            except (ValueError, DrawingError) as err:
                raise DefinitionError("catalogue", f"pieces: {err}") from None
            if shape in [c.shape for c in found]:
                raise DefinitionError("catalogue", f"pieces: {text!r} twice")
            anchors = self.drawing.anchors(shape)
            if not anchors:
                raise DefinitionError("catalogue", f"pieces: {text!r} does not fit the box")
            found.append(CatalogueClass(shape, self._directions(shape), anchors,
                                        shape_label(shape)))
        return found

    def _min_empty(self, min_empty):
        """The empty cells a board keeps, at least (a board's pieces, hence its empty
        cells, never change by a move: whole clusters are kept or left out)."""
        room = self.cells - len(self.drawing.walls) - sum(
            len(c.shape) for c in self.classes if c.goal)
        if isinstance(min_empty, bool) or not isinstance(min_empty, int) or \
                not 0 <= min_empty <= room:
            raise DefinitionError("catalogue", f"min_empty: {min_empty!r}: the empty cells a "
                                  f"board keeps, a whole number from 0 to {room} (the box's "
                                  f"cells beside the goal pieces)")
        return min_empty

    def _directions(self, shape):
        """The directions a piece of this shape moves in: all four (axis free, or a square
        bounding box), else along its long side."""
        wide = max(c for _, c in shape) - min(c for _, c in shape) + 1
        high = max(r for r, _ in shape) + 1
        if self.axis == "free" or wide == high:
            return (UP, DOWN, LEFT, RIGHT)
        return (LEFT, RIGHT) if wide > high else (UP, DOWN)

    # -- the box ----------------------------------------------------------------------------
    @property
    def width(self):
        return self.drawing.width

    @property
    def cells(self):
        return self.drawing.cells

    @property
    def goals(self):
        return sum(c.goal for c in self.classes)

    def goal_anchor(self, k):
        """Where the goal class k must stand."""
        return self.drawing.piece(self.classes[k].label).anchor

    @cached_property
    def words(self):
        """The key's words: cells of `bits` bits, 64 // bits cells a word."""
        per = 64 // self.bits
        return -(-self.cells // per)

    def field(self, cell):
        """(word, shift) of a cell's field in the key."""
        per = 64 // self.bits
        return cell // per, (per - 1 - cell % per) * self.bits

    @cached_property
    def empty_code(self):
        return (1 << self.bits) - 1

    def tables(self):
        """The kernels' tables (CatalogueTables)."""
        return _tables(self)


def _tables(cat):
    k_count, cells = len(cat.classes), cat.cells
    masks = np.zeros((k_count, cells), np.uint64)
    steps = np.full((k_count, cells, 4), -1, np.int64)
    delta = np.zeros((k_count, cells, cat.words), np.uint64)
    for k, piece_class in enumerate(cat.classes):
        for anchor in piece_class.anchors:
            where = cat.drawing.at(piece_class.shape, anchor)
            masks[k, anchor] = sum(1 << c for c in where)
            for c in where:
                word, shift = cat.field(c)
                delta[k, anchor, word] |= np.uint64((k ^ cat.empty_code) << shift)
        allowed = set(piece_class.anchors)
        for anchor in piece_class.anchors:
            row, col = divmod(anchor, cat.width)
            for d in piece_class.directions:
                dr, dc = STEPS[d]
                if 0 <= col + dc < cat.width and (row + dr) * cat.width + col + dc in allowed:
                    steps[k, anchor, d] = (row + dr) * cat.width + col + dc
    empty = np.zeros(cat.words, np.uint64)
    for c in range(cells):
        word, shift = cat.field(c)
        empty[word] |= np.uint64(cat.empty_code << shift)
    goal_mask = np.zeros(cat.words, np.uint64)
    goal_value = np.zeros(cat.words, np.uint64)
    for k in range(cat.goals):
        for c in cat.drawing.at(cat.classes[k].shape, cat.goal_anchor(k)):
            word, shift = cat.field(c)
            goal_mask[word] |= np.uint64(cat.empty_code << shift)
            goal_value[word] |= np.uint64(k << shift)
    fixed = np.uint64(sum(1 << c for c in cat.drawing.walls))
    return CatalogueTables(np.int64(cells), np.int64(cat.width), fixed,
                           np.int64(METRICS[cat.metric]), np.int64(cat.bits),
                           np.int64(64 // cat.bits), np.int64(cat.goals),
                           np.array([cat.goal_anchor(k) for k in range(cat.goals)], np.int64),
                           goal_mask,
                           goal_value, masks, steps, delta, empty)
