"""Boards of a sliding-block puzzle: a drawing read as a placement of the definition's
pieces, and a placement written back as a drawing.

A board is an int64 array, one code a cell: 0 empty, WALL no cell, p + 1 the p-th piece in
the canonical order (class by class, a class's pieces by anchor), which is written with the
p-th letter of that order: identical pieces are folded, so their letters follow their places.
A drawing given by a user may letter its pieces as it likes: the pieces the definition tells
apart (the goal's and those of `distinct` or with an axis of their own) are found by their
letters, the others by their shapes (and lanes).
"""

import numpy as np

from puzzledb.errors import BoardError
from puzzledb.puzzles.base import SEPARATORS
from puzzledb.puzzles.blocks.drawing import EMPTY, WALL as WALL_SYMBOL, Drawing, DrawingError
from puzzledb.puzzles.blocks.drawing import shape_label

WALL = -1


def read_board(name, text, width, height):
    """The Drawing of a board given by a user for puzzle `name` in a width x height box (rows
    separated by spaces or new lines, or by nothing: base.SEPARATORS are left out);
    BoardError (one line) for another number of cells or a drawing that cannot be read."""
    cells = "".join(ch for ch in str(text) if ch not in SEPARATORS)
    if len(cells) != width * height:
        raise BoardError(f"{name}: board {text!r} has {len(cells)} cells, expected "
                         f"{width * height} ({width}x{height})")
    try:
        return Drawing.read(" ".join(cells[i:i + width] for i in range(0, len(cells), width)))
    except DrawingError as err:
        raise BoardError(f"{name}: board {text!r}: {err}") from None


class Boards:
    """Parse and format boards of one definition: its box (`drawing`, the start) and its
    classes of pieces (placements.PieceClass, in the key's order)."""

    def __init__(self, name, drawing, classes):
        self.name, self.drawing, self.classes = name, drawing, classes
        self.slots = [(c, j) for c, piece_class in enumerate(classes)
                      for j in range(piece_class.count)]
        self.letters = [classes[c].letters[j] for c, j in self.slots]
        self.first_slot = np.cumsum([0] + [c.count for c in classes]).tolist()

    # -- placements <-> boards -------------------------------------------------------------
    def board(self, anchors, rank=None):
        """The board of a placement given as each class's anchors; BoardError where two
        pieces overlap (a key of the sparse rank space that is no placement)."""
        board = np.zeros(self.drawing.cells, dtype=np.int64)
        board[list(self.drawing.walls)] = WALL
        for c, where in enumerate(anchors):
            for j, anchor in enumerate(sorted(where)):
                cells = list(self.drawing.at(self.classes[c].shape, anchor))
                if board[cells].any():
                    raise BoardError(f"{self.name}: rank {rank} is no placement of the "
                                     f"pieces (two overlap)")
                board[cells] = self.first_slot[c] + j + 1
        return board

    def anchors(self, board):
        """Each class's anchors (ascending) on a board."""
        board = np.asarray(board)
        first = [int(np.flatnonzero(board == p + 1)[0]) for p in range(len(self.slots))]
        return [sorted(first[self.first_slot[c]:self.first_slot[c + 1]])
                for c in range(len(self.classes))]

    def format(self, board):
        symbols = [EMPTY if code == 0 else WALL_SYMBOL if code == WALL else
                   self.letters[code - 1] for code in np.asarray(board).tolist()]
        width = self.drawing.width
        return " ".join("".join(symbols[i:i + width]) for i in range(0, len(symbols), width))

    # -- a drawing given by a user -----------------------------------------------------------
    def parse(self, text):
        """The board a drawing shows, its cells row by row (rows separated by spaces or new
        lines, or by nothing, as every board string: base.SEPARATORS are left out):
        BoardError (one line) for another number of cells, a piece in two pieces, walls
        elsewhere, a piece the definition tells apart missing, or pieces that differ from
        the definition's."""
        mine = self.drawing
        drawing = read_board(self.name, text, mine.width, mine.height)
        if drawing.walls != mine.walls:
            raise BoardError(f"{self.name}: board {text!r} has its '#' cells elsewhere than "
                             f"the definition")
        placed = [[] for _ in self.classes]
        named = {c.letters[0]: k for k, c in enumerate(self.classes) if c.named}
        for letter, k in named.items():
            piece = drawing.piece(letter)
            if piece is None:
                raise BoardError(f"{self.name}: board {text!r} has no piece {letter!r} "
                                 f"(the definition tells it apart by its letter)")
            self._place(text, drawing, piece, [k], placed)
        for piece in drawing.pieces:
            if piece.letter not in named:
                shape = drawing.shape(piece)
                same = [k for k, c in enumerate(self.classes)
                        if not c.named and c.shape == shape]
                self._place(text, drawing, piece, same, placed)
        for k, piece_class in enumerate(self.classes):
            if len(placed[k]) != piece_class.count:
                raise BoardError(self._differ(text, drawing))
        return self.board(placed)

    def _place(self, text, drawing, piece, candidates, placed):
        """Put a piece of the drawing in the one of `candidates` (classes) whose shape it has
        and which may stand at its anchor."""
        shape = drawing.shape(piece)
        fits = [k for k in candidates if self.classes[k].shape == shape]
        if not fits:
            raise BoardError(self._differ(text, drawing, piece))
        for k in fits:
            if piece.anchor in self.classes[k].anchors:
                placed[k].append(piece.anchor)
                return
        raise BoardError(f"{self.name}: board {text!r}: piece {piece.letter!r} cannot stand "
                         f"there (it keeps the lane it has in the definition)")

    def _differ(self, text, drawing, piece=None):
        """The one line saying how a drawing's pieces differ from the definition's."""
        def shapes(pieces_of):
            counts = {}
            for label in pieces_of:
                counts[label] = counts.get(label, 0) + 1
            return counts

        given = shapes(shape_label(drawing.shape(p)) for p in drawing.pieces)
        wanted = shapes(shape_label(c.shape) for c in self.classes for _ in range(c.count))
        if piece is not None and piece.letter in {c.letters[0] for c in self.classes
                                                  if c.named}:
            return (f"{self.name}: board {text!r}: piece {piece.letter!r} is "
                    f"{shape_label(drawing.shape(piece))}, the definition's is another shape")
        diff = ", ".join(f"{given.get(s, 0)} of shape {s} (expected {wanted.get(s, 0)})"
                         for s in sorted(set(given) | set(wanted))
                         if given.get(s, 0) != wanted.get(s, 0))
        return (f"{self.name}: board {text!r}: its pieces differ from the definition's: "
                f"{diff or 'they stand where the definition has none of their kind'}")

    # -- pictures ----------------------------------------------------------------------------
    def picture(self, board, goal_letters):
        """The picture's data (Puzzle.picture): each cell's label, piece and colour key, the
        key a piece's class ('goal' for the goal pieces), so that interchangeable pieces look
        alike from one board of a solution to the next."""
        board = np.asarray(board).tolist()
        labels = [self.letters[c - 1] if c > 0 else "" for c in board]
        pieces = [c - 1 if c > 0 else (-2 if c == WALL else -1) for c in board]
        kinds = ["goal" if label in goal_letters else self.slots[c - 1][0] if c > 0 else ""
                 for label, c in zip(labels, board)]
        return self.drawing.width, labels, pieces, kinds
