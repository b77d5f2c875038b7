"""Sliding blocks of any shape in a box (Klotski, Century, Dad's puzzle, Ma's puzzle, Rush
Hour), declared as drawings: the start board and the goal, where the goal pieces must stand
(anything else anywhere).  docs/blocks.md tells the whole story.

The search starts from every placement that meets the goal (a goal set).  A move takes one
piece elsewhere, the others fixed: one cell (metric step), any distance in a straight line
(line), or anywhere it can reach (path); with `axis`, a piece moves along its long side
only, so it keeps its lane.  Every move can be undone, so the graph is undirected.

Ranks: every placement of the pieces (placements.py) has a canonical 64-bit key, identical
pieces folded; the rank is the key's position among all keys in order (ranks: placements, a
dense rank over every placement), or, for a box with more placements than MAX_PLACEMENTS,
the key itself (ranks: keys, a sparse rank space for the frontier search).  The compiled
kernels are in kernels.py.
"""

from collections import namedtuple
from functools import cached_property

import numpy as np

from puzzledb.errors import BoardError, DefinitionError, ProblemError
from puzzledb.puzzles.base import RANK_LIMIT, Puzzle
from puzzledb.puzzles.blocks.boards import Boards
from puzzledb.puzzles.blocks.drawing import AXES, STEPS, Drawing, DrawingError, lane_of
from puzzledb.puzzles.blocks.placements import (
    PieceClass,
    anchors_of,
    count_placements,
    key_of,
    key_weights,
)
from puzzledb.puzzles.ranking import BINOM

STEP, LINE, PATH = range(3)
METRICS = {"step": STEP, "line": LINE, "path": PATH}
RANKS = ("auto", "placements", "keys")
MAX_PLACEMENTS = 1 << 27  # ranks: auto ranks every placement up to this many (1 GiB of keys)

# The kernels' data (see puzzledb.compiled): the sorted keys (dense ranks) or none (the
# keys are the ranks); each piece's class, each class's first piece and first anchor; the
# cell mask of each anchor and its neighbouring anchor one step up, down, left and right
# (its position in the class's list, -1: none); the keys' mixed radix; C(n, k).
BlockTables = namedtuple("BlockTables", "keys dense metric piece_class class_first "
                         "anchor_first masks steps weights radices binom")


class BlocksPuzzle(Puzzle):
    family = "blocks"
    kernels = "puzzledb.puzzles.blocks.kernels"
    drawn = True

    def __init__(self, name, board, goal, metric="step", axis="free", distinct="",
                 ranks="auto", description=""):
        self.name = name
        if metric not in METRICS:
            raise DefinitionError("metric", f"{metric!r}: step (one piece one cell), line "
                                  f"(one piece any distance in a straight line) or path (one "
                                  f"piece anywhere it can reach)")
        if ranks not in RANKS:
            raise DefinitionError("ranks", f"{ranks!r}: auto, placements or keys")
        self.metric, self.axis, self.distinct_letters = metric, axis, str(distinct)
        self.board_text, self.goal_text = board, goal
        self.start_drawing = _read(board, "board")
        drawing = self.start_drawing
        self.width, self.height, self.cells = drawing.width, drawing.height, drawing.cells
        self.goal_drawing = _read(goal, "goal")
        self.goal_pieces = self._goal_pieces()
        self.classes = self._classes(self._axes())
        self.weights, self.key_space = key_weights(self.classes)
        if self.key_space >= RANK_LIMIT:
            raise DefinitionError("board", f"{self.key_space:,} keys: the placements of "
                                  f"these pieces cannot be keyed in 63 bits")
        self.boards = Boards(name, drawing, self.classes)
        self.goal_only = self._goal_anchors()
        walls = sum(1 << w for w in drawing.walls)
        if count_placements(self.classes, self.cells, walls, self.goal_only) == 0:
            raise DefinitionError("goal", "cannot be met: the other pieces do not fit "
                                  "around the goal pieces")
        placements = count_placements(self.classes, self.cells, walls)
        self.dense = ranks == "placements" or (ranks == "auto" and
                                               placements <= MAX_PLACEMENTS)
        self.size = placements if self.dense else self.key_space
        self.placements = placements
        self.start = self.boards.parse(board)
        self.max_moves = self._most_moves()
        self.description = description or (
            f"sliding blocks, {self.width}x{self.height} box, {len(drawing.pieces)} pieces, "
            f"goal {' '.join(sorted(self.goal_pieces))} in place, {metric} moves")

    # -- the definition ----------------------------------------------------------------------
    def _goal_pieces(self):
        """The goal's pieces: letter -> anchor, each a piece of the board of the same shape."""
        start, goal = self.start_drawing, self.goal_drawing
        if (goal.width, goal.height) != (start.width, start.height):
            raise DefinitionError("goal", f"a {goal.width}x{goal.height} drawing, the board "
                                  f"is {start.width}x{start.height}")
        if not goal.walls <= start.walls:
            raise DefinitionError("goal", "a '#' where the board has a cell")
        if not goal.pieces:
            raise DefinitionError("goal", "no piece: draw where the goal pieces stand")
        found = {}
        for piece in goal.pieces:
            mine = start.piece(piece.letter)
            if mine is None:
                raise DefinitionError("goal", f"piece {piece.letter!r} is not a piece of the "
                                      f"board")
            if start.shape(mine) != goal.shape(piece):
                raise DefinitionError("goal", f"piece {piece.letter!r} has another shape than "
                                      f"on the board")
            found[piece.letter] = piece.anchor
        return found

    def _axes(self):
        """letter -> the axis its piece moves along (AXES); a map of `axis` names pieces."""
        letters = [p.letter for p in self.start_drawing.pieces]
        if isinstance(self.axis, dict):
            for letter, value in self.axis.items():
                if letter not in letters:
                    raise DefinitionError("axis", f"{letter!r} is not a piece of the board")
                if value not in AXES:
                    raise DefinitionError("axis", f"{value!r} for {letter!r}: one of "
                                          f"{', '.join(AXES)}")
            return {letter: self.axis.get(letter, "free") for letter in letters}
        if self.axis not in ("free", "length"):
            raise DefinitionError("axis", f"{self.axis!r}: free, length, or a map of pieces "
                                  f"to {', '.join(AXES)}")
        return dict.fromkeys(letters, self.axis)

    def _classes(self, axes):
        """The classes of interchangeable pieces: pieces told apart (the goal's, those of
        `distinct`, those given an axis of their own) one class each; the others by shape
        and lane."""
        drawing = self.start_drawing
        unknown = sorted(set(self.distinct_letters) - {p.letter for p in drawing.pieces})
        if unknown:
            raise DefinitionError("distinct", f"{''.join(unknown)!r}: not pieces of the board")
        named = set(self.goal_pieces) | set(self.distinct_letters) | (
            set(self.axis) if isinstance(self.axis, dict) else set())
        groups = {}
        for piece in drawing.pieces:
            shape = drawing.shape(piece)
            anchors = drawing.anchors(shape, lane_of(drawing, piece, axes[piece.letter]))
            key = (piece.letter,) if piece.letter in named else (shape, anchors)
            groups.setdefault(key, (shape, anchors, piece.letter in named, []))[3].append(
                piece.letter)
        classes = [PieceClass(shape, anchors, tuple(sum(1 << c for c in drawing.at(shape, a))
                                                    for a in anchors), tuple(letters), named)
                   for shape, anchors, named, letters in groups.values()]
        return sorted(classes, key=lambda c: (-len(c.shape), c.shape, c.anchors, c.letters))

    def _goal_anchors(self):
        """class -> (its goal anchor,) for the goal pieces' classes; DefinitionError when a
        goal piece cannot stand at its goal."""
        only = {}
        for c, piece_class in enumerate(self.classes):
            letter = piece_class.letters[0]
            if piece_class.named and letter in self.goal_pieces:
                anchor = self.goal_pieces[letter]
                if anchor not in piece_class.anchors:
                    raise DefinitionError("goal", f"cannot be met: piece {letter!r} never "
                                          f"stands there (it keeps its lane)")
                only[c] = (anchor,)
        return only

    def _most_moves(self):
        """At most this many moves from any placement: a piece's new cells lie in its own and
        the free ones, so it has at most (its cells + free cells - 1) places to go, and at most
        4 in one step."""
        free = self.cells - len(self.start_drawing.walls) - sum(
            len(c.shape) * c.count for c in self.classes)
        most = 0
        for piece_class in self.classes:
            places = min(len(piece_class.anchors), len(piece_class.shape) + free) - 1
            if self.metric == "step":
                places = min(places, 4)
            most += piece_class.count * max(places, 0)
        return max(most, 1)

    def definition(self):
        definition = {"family": "blocks", "board": " ".join(str(self.board_text).split()),
                      "goal": " ".join(str(self.goal_text).split()), "metric": self.metric,
                      "ranking": f"blocks-{'placements' if self.dense else 'keys'}/1"}
        if self.axis != "free":  # stored only when given, as for every optional parameter
            definition["axis"] = self.axis
        if self.distinct_letters:
            definition["distinct"] = self.distinct_letters
        return definition

    @property
    def work_size(self):
        return sum(c.count for c in self.classes) + 64  # the positions, a flood fill's stack

    def make_tables(self):
        classes = self.classes
        counts = np.array([0] + [c.count for c in classes], dtype=np.int64)
        sizes = np.array([0] + [len(c.anchors) for c in classes], dtype=np.int64)
        steps = np.full((int(sizes.sum()), 4), -1, dtype=np.int64)
        for c, piece_class in enumerate(classes):
            where = {a: i for i, a in enumerate(piece_class.anchors)}
            for i, anchor in enumerate(piece_class.anchors):
                row, col = divmod(anchor, self.width)
                for d, (dr, dc) in enumerate(STEPS):
                    if 0 <= col + dc < self.width:
                        steps[sizes[:c + 1].sum() + i, d] = where.get(
                            (row + dr) * self.width + col + dc, -1)
        tables = BlockTables(
            np.zeros(0, np.int64), np.int64(self.dense), np.int64(METRICS[self.metric]),
            np.repeat(np.arange(len(classes), dtype=np.int64), counts[1:]),
            np.cumsum(counts), np.cumsum(sizes),
            np.array([m for c in classes for m in c.masks], dtype=np.uint64), steps,
            np.array(self.weights, dtype=np.int64),
            np.array([c.radix for c in classes], dtype=np.int64), BINOM)
        if not self.dense:
            return tables
        return tables._replace(keys=self.compiled.sorted_keys(tables, self.allowed()))

    def allowed(self, only=None):
        """Each class's mask of allowed anchor positions (all, or those of `only`)."""
        only = only or {}
        return np.array([sum(1 << i for i, a in enumerate(c.anchors)
                             if a in only.get(k, c.anchors)) for k, c in enumerate(self.classes)],
                        dtype=np.uint64)

    # -- boards --------------------------------------------------------------------------------
    def parse(self, text):
        return self.boards.parse(text)

    def format(self, board):
        return self.boards.format(board)

    def rank(self, board):
        key = key_of(self.classes, self.weights, self.boards.anchors(board))
        if not self.dense:
            return key
        keys = self.tables().keys
        rank = int(np.searchsorted(keys, key))
        if rank == keys.size or keys[rank] != key:
            raise BoardError(f"{self.name}: board {self.format(board)!r} is no placement")
        return rank

    def unrank(self, rank, level=0):
        self.check_rank(rank, level)
        key = int(self.tables().keys[rank]) if self.dense else int(rank)
        return self.boards.board(anchors_of(self.classes, self.weights, key), rank)

    def goal_ranks(self):
        if not self.dense:
            only = self.allowed(self.goal_only)
            return self.compiled.sorted_keys(self.tables(), only).astype(np.uint64)
        keys = self.tables().keys
        meets = np.ones(keys.size, dtype=bool)
        for c, (anchor,) in self.goal_only.items():
            digit = self.classes[c].anchors.index(anchor)  # one piece: its position
            meets &= keys // self.weights[c] % self.classes[c].radix == digit
        return np.flatnonzero(meets).astype(np.uint64)

    # -- capabilities --------------------------------------------------------------------------
    def kernel_bytes(self):
        """The sorted keys the neighbours kernel searches (8 bytes a placement), held by
        every search and every frontier job."""
        return 8 * self.size if self.dense else 0

    def picture(self, board):
        return self.boards.picture(board, set(self.goal_pieces))

    def route_cell(self, before, after):
        """A move in a problem file's route: a x cells + b, the moved piece's first cell a
        before and b after (the blank's cell tells no block's move apart)."""
        old, new = ({(c, a) for c, where in enumerate(self.boards.anchors(board))
                     for a in where} for board in (before, after))
        if len(old - new) != 1 or len(new - old) != 1:
            raise ProblemError(f"{self.name}: {self.format(after)!r} is not one move from "
                               f"{self.format(before)!r}")
        [(_, a)], [(_, b)] = old - new, new - old
        return a * self.cells + b

    def query_sets(self):
        """'placements': every placement of the pieces (ranks: placements), whose distances
        meet-in-the-middle finds from the goal's first layers (the designer's question)."""
        if not self.dense:
            return {}
        return {"placements": lambda: np.arange(self.size, dtype=np.uint64)}

    @cached_property
    def every_placement(self):
        """Whether the ranks number every placement of the pieces (the designer's table)."""
        return self.dense


def _read(text, key):
    try:
        return Drawing.read(text)
    except DrawingError as err:
        raise DefinitionError(key, str(err)) from None
