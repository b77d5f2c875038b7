"""A catalogue as the command line sees it (CataloguePuzzle): its boards parsed, written
and drawn, keyed, and answered one at a time by a search of their cluster; the catalogue
itself (definition.py) is searched by jobs (job.py).  docs/blocks.md, "The catalogue"."""

import numpy as np

from puzzledb.errors import BoardError, DefinitionError, PuzzleError
from puzzledb.puzzles.base import Puzzle
from puzzledb.puzzles.capabilities import Catalogued
from puzzledb.puzzles.blocks.boards import read_board
from puzzledb.puzzles.blocks.catalogue.box import count_boards
from puzzledb.puzzles.blocks.catalogue.definition import SEEN_BOUND, Catalogue
from puzzledb.puzzles.blocks.catalogue.lanes import SPACES, Lanes, is_lane_catalogue
from puzzledb.puzzles.blocks.drawing import EMPTY, WALL, shape_label

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWYZabcdefghijklmnopqrstuvwxyz0123456789"  # format's
JOBS = ("config catalogue_jobs: {name: J}, the blocks of candidates dealt in rounds of J, one "
        "to each job in an order shuffled by the round (split.py); rule catalogue merges "
        "their parts into catalogue.csv")
SPACE_WORDS = {"every": "", "fogleman": ", in Fogleman's space"}  # for the description


class CataloguePuzzle(Puzzle, Catalogued):
    """A catalogue definition as the command line sees it: its boards (any pieces of its
    shapes around the goal pieces, walls '#') parsed, written and drawn, and answered one at
    a time by a search of the board's cluster (candidate_walk_blocks.py).  It has no rank
    space and no database: the `catalogue` rule (job.py's search, report/catalogue.py's
    merge) catalogues its clusters.

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
