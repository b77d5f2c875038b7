"""A catalogue of sliding-block puzzles: every board of a box that holds the goal pieces and
any number of pieces of given shapes (and up to `walls` 1x1 cells that never move, and at
least `min_empty` empty cells), as the definition `catalogue: {pieces: [...], walls: N,
min_empty: N}` declares it.  Plain Python: the box, the classes of pieces and the compiled
kernels' tables (cluster_search_blocks.py, candidate_walk_blocks.py); docs/blocks.md, "The
catalogue", tells the whole story.

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

from puzzledb.errors import BoardError, DefinitionError, PuzzleError
from puzzledb.puzzles.base import Puzzle
from puzzledb.puzzles.capabilities import Catalogued
from puzzledb.puzzles.blocks.drawing import (
    EMPTY,
    WALL,
    Drawing,
    DrawingError,
    STEPS,
    lane_of,
    shape_label,
)
from puzzledb.puzzles.blocks.boards import read_board
from puzzledb.puzzles.blocks.catalogue.box import count_boards
from puzzledb.puzzles.blocks.catalogue.lanes import SPACES, Lanes, is_lane_catalogue
from puzzledb.puzzles.blocks.puzzle import METRICS

UP, DOWN, LEFT, RIGHT = range(4)  # drawing.STEPS's order
SEEN_BOUND = 1 << 22  # candidates a job remembers as met (candidate_walk_blocks.SEEN)
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWYZabcdefghijklmnopqrstuvwxyz0123456789"  # format's
JOBS = ("config catalogue_jobs: {name: J}, the blocks of candidates dealt in rounds of J, one "
        "to each job in an order shuffled by the round (split.py); rule catalogue merges "
        "their parts into catalogue.csv")
SPACE_WORDS = {"every": "", "fogleman": ", in Fogleman's space"}  # for the description

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


class CataloguePuzzle(Puzzle, Catalogued):
    """A catalogue definition as the command line sees it: its boards (any pieces of its
    shapes around the goal pieces, walls '#') parsed, written and drawn, and answered one at
    a time by a search of the board's cluster (candidate_walk_blocks.py).  It has no rank space
    and no database: the `catalogue` rule (report/catalogue.py) catalogues its clusters.

    A board is an int64 array, one code a cell: 0 empty, -1 a wall ('#', the definition's
    or one of the catalogue's `walls`), else 1 + k + K p for the p-th piece in reading order
    of class k (K classes)."""

    family = "blocks"
    kernels = "puzzledb.puzzles.blocks.catalogue.candidate_walk_blocks"
    drawn = True

    def __init__(self, name, goal, catalogue, metric="step", axis="free", description=""):
        if not isinstance(catalogue, dict) or \
                set(catalogue) - {"pieces", "walls", "space", "min_empty"}:
            raise DefinitionError("catalogue", "{pieces: [shapes], walls: N, space: every "
                                  "or fogleman, min_empty: N}")
        self.name = name
        self.catalogue = Catalogue(name, goal, catalogue.get("pieces"),
                                   catalogue.get("walls", 0), metric, axis,
                                   catalogue.get("min_empty", 0))
        self.spec = {"pieces": [str(p) for p in catalogue["pieces"]],
                     "walls": catalogue.get("walls", 0)}
        if self.catalogue.min_empty:  # named only when set: the definitions before it stand
            self.spec["min_empty"] = self.catalogue.min_empty
        space = catalogue.get("space", "every")
        if space not in SPACES:
            raise DefinitionError("catalogue", f"space: {space!r}: {' or '.join(SPACES)}")
        self.lanes = None  # the bars' lanes (lanes.py), when every piece is a bar
        if is_lane_catalogue(self.catalogue):
            if self.catalogue.min_empty:
                raise DefinitionError("catalogue", "min_empty: not for bars moving along "
                                      "their length (Rush Hour's cars and trucks) yet: their "
                                      "layouts do not count their empty cells")
            self.lanes = Lanes(self.catalogue, space)
            self.lanes.check()
        elif space != "every":
            raise DefinitionError("catalogue", f"space: {space!r} is for bars moving along "
                                  f"their length (Rush Hour's cars and trucks)")
        if space != "every":
            self.spec["space"] = space
        self.goal_text, self.metric, self.axis = goal, metric, axis
        cat = self.catalogue
        self.cells, self.width = cat.cells, cat.width
        self.description = description or (
            f"catalogue of sliding blocks, {cat.width}x{cat.drawing.height} box, pieces "
            f"{', '.join(self.spec['pieces'])} around {' '.join(c.label for c in cat.classes if c.goal)}"
            f"{f', up to {cat.walls} walls' if cat.walls else ''}"
            f"{f', at least {cat.min_empty} empty cells' if cat.min_empty else ''}, "
            f"{metric} moves"
            f"{SPACE_WORDS[space]}")

    def definition(self):
        return {"family": "blocks", "goal": " ".join(str(self.goal_text).split()),
                "catalogue": self.spec, "metric": self.metric, "axis": self.axis,
                "ranking": "blocks-catalogue/1"}

    def make_tables(self):
        return self.catalogue.tables()

    def rank(self, board):
        raise PuzzleError(f"{self.name}: a catalogue has no ranks; its boards are answered "
                          f"by a search of their cluster")

    unrank = goal_ranks = rank

    @property
    def ranks_fit(self):
        return False

    def rank_space(self):
        return "none (a catalogue: clusters searched one by one)"

    def board_bytes(self):
        """Bytes a job holds for each board of the cluster it searches, besides 4 a move
        from it (the edges): its key, its pieces' places, its cells covered, its slot and
        two of the table, its place in the edges' index, its depth and place in the queue."""
        cat = self.catalogue
        return 8 * cat.words + 2 * cat.cells + 8 + 8 + 8 + 8 + 4 + 8

    def box_boards(self):
        """How many boards the box holds (box.count_boards): every board the catalogue
        stands for, whether its cluster reaches the goal or not."""
        return count_boards(self.catalogue, self.spec.get("space", "every"))

    def info_lines(self):
        cat = self.catalogue
        classes = ", ".join(f"{c.label} ({'goal, ' if c.goal else ''}"
                            f"{len(c.anchors)} places)" for c in cat.classes)
        seen = 8 * (cat.words + 1) + 8 + 8
        lines = [("classes", classes),
                 ("keys", f"{cat.words} word{'s' * (cat.words > 1)} a board ({cat.bits} "
                          f"bits a cell)")]
        if self.lanes is not None:
            return lines + self.lanes.info_lines()
        return lines + [
                ("job memory", f"{self.board_bytes()} bytes a board and 4 a move of the "
                               f"largest cluster a job searches (twice that while its arrays "
                               f"grow), and at most {SEEN_BOUND * seen / 2**20:,.0f} MiB of "
                               f"candidates met"),
                ("jobs", JOBS)]

    # -- boards ----------------------------------------------------------------------------
    def parse(self, text):
        """The board a drawing shows: the goal pieces by their letters, the others by their
        shapes; BoardError (one line) for another box, a piece of another shape, a goal
        piece missing or off its lane, or more walls than the catalogue's."""
        cat = self.catalogue
        drawing = read_board(self.name, text, cat.width, cat.drawing.height)
        walls = drawing.walls - cat.drawing.walls
        if not cat.drawing.walls <= drawing.walls or len(walls) > cat.walls:
            raise BoardError(f"{self.name}: board {text!r}: its '#' cells are not the box's "
                             f"and at most {cat.walls} more")
        placed = []
        for k, piece_class in enumerate(cat.classes[:cat.goals]):
            piece = drawing.piece(piece_class.label)
            if piece is None or drawing.shape(piece) != piece_class.shape or \
                    piece.anchor not in piece_class.anchors:
                raise BoardError(f"{self.name}: board {text!r}: goal piece "
                                 f"{piece_class.label!r} missing, of another shape or off "
                                 f"its lane")
            placed.append((k, piece.anchor))
        shapes = {c.shape: k for k, c in enumerate(cat.classes) if not c.goal}
        for piece in drawing.pieces:
            if any(piece.letter == c.label for c in cat.classes[:cat.goals]):
                continue
            k = shapes.get(drawing.shape(piece))
            if k is None:
                raise BoardError(f"{self.name}: board {text!r}: piece {piece.letter!r} is "
                                 f"{shape_label(drawing.shape(piece))}, not a shape of the "
                                 f"catalogue ({', '.join(self.spec['pieces'])})")
            placed.append((k, piece.anchor))
        return self.board(sorted(placed, key=lambda kp: kp[1]), walls)

    def board(self, pieces, walls):
        """The board of pieces (class, anchor) in reading order and wall cells."""
        cat = self.catalogue
        board = np.zeros(cat.cells, np.int64)
        board[sorted(cat.drawing.walls | set(walls))] = -1
        for p, (k, anchor) in enumerate(pieces):
            board[list(cat.drawing.at(cat.classes[k].shape, anchor))] = \
                1 + k + len(cat.classes) * p
        return board

    def pieces(self, board):
        """The pieces (class, anchor) of a board in reading order, and its wall cells
        beyond the box's."""
        kinds = len(self.catalogue.classes)
        seen, pieces = set(), []
        for cell, code in enumerate(np.asarray(board).tolist()):
            if code > 0 and code not in seen:
                seen.add(code)
                pieces.append(((code - 1) % kinds, cell))
        walls = {c for c, code in enumerate(np.asarray(board).tolist()) if code < 0}
        return pieces, walls - self.catalogue.drawing.walls

    def format(self, board):
        """The drawing: the goal pieces with their letters, the others lettered A, B, ... in
        reading order (skipping the goal's letters), walls '#'."""
        cat = self.catalogue
        letters = iter(self.letters())
        names = {}
        symbols = []
        for code in np.asarray(board).tolist():
            if code == 0:
                symbols.append(EMPTY)
            elif code < 0:
                symbols.append(WALL)
            else:
                k = (code - 1) % len(cat.classes)
                if code not in names:
                    names[code] = cat.classes[k].label if cat.classes[k].goal else next(letters)
                symbols.append(names[code])
        width = cat.width
        return " ".join("".join(symbols[i:i + width]) for i in range(0, len(symbols), width))

    def letters(self):
        """The letters of the pieces other than the goal's, in reading order."""
        goals = {c.label for c in self.catalogue.classes if c.goal}
        return [ch for ch in LETTERS if ch not in goals]

    def picture(self, board):
        board = np.asarray(board).tolist()
        kinds = len(self.catalogue.classes)
        text = self.format(board).replace(" ", "")
        labels = [ch if code > 0 else "" for ch, code in zip(text, board)]
        pieces = [code if code > 0 else (-2 if code < 0 else -1) for code in board]
        colours = ["goal" if code > 0 and self.catalogue.classes[(code - 1) % kinds].goal
                   else (code - 1) % kinds if code > 0 else "" for code in board]
        return self.catalogue.width, labels, pieces, colours

    # -- keys ------------------------------------------------------------------------------
    def key(self, board):
        """A board's key (cluster_search_blocks) and its walls' cell mask."""
        tables = self.tables()
        key = tables.empty.copy()
        pieces, walls = self.pieces(board)
        for k, anchor in pieces:
            key ^= tables.delta[k, anchor]
        return key, np.uint64(sum(1 << c for c in walls))

    def board_of_key(self, key, walls):
        """The board a key and a walls mask stand for."""
        cat = self.catalogue
        pieces, covered = [], set()
        for cell in range(cat.cells):
            word, shift = cat.field(cell)
            code = (int(key[word]) >> shift) & cat.empty_code
            if code != cat.empty_code and cell not in covered:
                pieces.append((code, cell))
                covered |= set(cat.drawing.at(cat.classes[code].shape, cell))
        return self.board(pieces, [c for c in range(cat.cells) if int(walls) >> c & 1])

    # -- one board's cluster (the Catalogued capability) -----------------------------------
    def solution(self, board):
        """An optimal solution from a board to the goal (the board first), by a search of
        its cluster, at each move the least board one nearer; None when the cluster does not
        reach the goal."""
        key, walls = self.key(board)
        path = self.compiled.solution(key, walls, self.tables())
        if path is None:
            return None
        return [self.board_of_key(k, walls) for k in path]
