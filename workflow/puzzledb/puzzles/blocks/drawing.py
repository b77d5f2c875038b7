"""Sliding blocks drawn as text, read into a box and its pieces: rows of cells ('.' an empty
cell, '#' no cell, any other symbol a piece made of the cells of that symbol), the shape of
each piece, and the classes of pieces that are interchangeable, over which a placement is
counted (placements.py).  Plain Python: the definition is checked without numba.

A piece's anchor is its first cell in reading order; its shape the (row, column) offsets of
its cells from the anchor.  Pieces slide, never turn: a 1x2 and a 2x1 piece are two shapes.
"""

from dataclasses import dataclass

from puzzledb.puzzles.base import SEPARATORS

EMPTY, WALL = ".", "#"
MAX_CELLS = 64  # the box's cells (walls included) as the bits of one word
STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))  # up, down, left, right: the kernels' order
AXES = ("free", "length", "horizontal", "vertical")  # how a piece may move (axis=)


class DrawingError(ValueError):
    """A drawing that declares no box or no pieces; the caller says whose drawing."""


def rows_of(text):
    """The rows of a drawing: its words (rows separated by spaces or new lines), all of one
    length.  DrawingError otherwise."""
    rows = str(text).split()
    if not rows:
        raise DrawingError("an empty drawing")
    if len({len(row) for row in rows}) != 1:
        raise DrawingError(f"rows of {', '.join(str(len(r)) for r in rows)} cells: every "
                           f"row must be as long as the first")
    odd = sorted({ch for row in rows for ch in row if ch in SEPARATORS})
    if odd:
        raise DrawingError(f"symbols {''.join(odd)!r}: '.' is an empty cell, '#' no cell, "
                           f"letters (or other symbols) the pieces")
    return rows


def shape_of(cells, width):
    """The shape of a set of cells: (row, column) offsets from its first cell, sorted."""
    first_row, first_col = divmod(min(cells), width)
    return tuple(sorted((c // width - first_row, c % width - first_col) for c in cells))


def shape_label(shape):
    """A shape in words: '2x1' for a rectangle (width x height), else its rows ('XX/X.')."""
    rows = [r for r, _ in shape]
    cols = [c for _, c in shape]
    top, left = min(rows), min(cols)
    width, height = max(cols) - left + 1, max(rows) - top + 1
    if len(shape) == width * height:
        return f"{width}x{height}"
    cells = {(r - top, c - left) for r, c in shape}
    return "/".join("".join("X" if (r, c) in cells else "." for c in range(width))
                    for r in range(height))


def is_connected(cells, width):
    """Whether the cells touch side by side as one piece."""
    cells = set(cells)
    seen, todo = set(), [min(cells)]
    while todo:
        cell = todo.pop()
        if cell in seen:
            continue
        seen.add(cell)
        row, col = divmod(cell, width)
        for dr, dc in STEPS:
            if 0 <= col + dc < width and (row + dr) * width + col + dc in cells:
                todo.append((row + dr) * width + col + dc)
    return seen == cells


@dataclass(frozen=True)
class Piece:
    """One piece of a drawing: its symbol and its cells (ascending)."""

    letter: str
    cells: tuple

    @property
    def anchor(self):
        return self.cells[0]


@dataclass(frozen=True)
class Drawing:
    """A drawing read: the box (width, height, its walls) and its pieces by symbol."""

    width: int
    height: int
    walls: frozenset
    pieces: tuple  # Piece, by letter

    @classmethod
    def read(cls, text):
        """The drawing of a text; DrawingError for ragged rows, a box of more than
        MAX_CELLS cells or a piece whose cells do not touch."""
        rows = rows_of(text)
        width, height = len(rows[0]), len(rows)
        if width * height > MAX_CELLS:
            raise DrawingError(f"a {width}x{height} box has {width * height} cells, more "
                               f"than {MAX_CELLS}")
        symbols = "".join(rows)
        cells = {}
        for cell, symbol in enumerate(symbols):
            if symbol not in (EMPTY, WALL):
                cells.setdefault(symbol, []).append(cell)
        for letter, where in cells.items():
            if not is_connected(where, width):
                raise DrawingError(f"piece {letter!r} is in two pieces (the cells of one "
                                   f"symbol must touch side by side)")
        walls = frozenset(c for c, s in enumerate(symbols) if s == WALL)
        pieces = tuple(Piece(letter, tuple(where)) for letter, where in sorted(cells.items()))
        return cls(width, height, walls, pieces)

    @property
    def cells(self):
        return self.width * self.height

    def piece(self, letter):
        return next((p for p in self.pieces if p.letter == letter), None)

    def shape(self, piece):
        return shape_of(piece.cells, self.width)

    def at(self, shape, anchor):
        """The cells of `shape` with its anchor at cell `anchor`, or None where it leaves
        the box or covers a wall."""
        row, col = divmod(anchor, self.width)
        cells = []
        for dr, dc in shape:
            r, c = row + dr, col + dc
            if not (0 <= r < self.height and 0 <= c < self.width):
                return None
            if r * self.width + c in self.walls:
                return None
            cells.append(r * self.width + c)
        return tuple(cells)

    def anchors(self, shape, lane=None):
        """The anchors at which a shape fits the box, ascending; lane ('row' or 'column',
        anchor): only those in the anchor's row or column."""
        found = []
        for anchor in range(self.cells):
            if lane is not None:
                along, start = lane
                same = (anchor // self.width == start // self.width if along == "row" else
                        anchor % self.width == start % self.width)
                if not same:
                    continue
            if self.at(shape, anchor) is not None:
                found.append(anchor)
        return tuple(found)


def lane_of(drawing, piece, axis):
    """The lane a piece moves along under `axis` (AXES): None (free), or ('row' | 'column',
    its anchor).  'length' is the long side of its bounding box; a piece whose box is square
    has none and moves freely."""
    if axis == "free":
        return None
    shape = drawing.shape(piece)
    wide = max(c for _, c in shape) - min(c for _, c in shape) + 1
    high = max(r for r, _ in shape) + 1
    if axis == "length":
        axis = "horizontal" if wide > high else "vertical" if high > wide else "free"
    if axis == "free":
        return None
    return ("row" if axis == "horizontal" else "column", piece.anchor)
