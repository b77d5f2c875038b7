"""Permutation puzzles declared in the ksolve / twsearch text format (definition.py): twisty
puzzles and any other puzzle whose moves permute and twist pieces.

The rank is factored.  The slots of each set fall into orbits (the slots the moves can carry
a piece between); a piece never leaves its orbit, so each orbit contributes its own
components (ranks.py): the arrangement of its pieces (a permutation rank; half of it when
every move is an even permutation of the orbit; a multiset rank when the orbit holds
identical pieces) and its orientations in base k (one digit fewer when every move keeps the
orbit's orientation sum; with `?` twists, the arrangement and the twists that count in one
component).  layout.py lays the rank out over them and makes the kernels' tables;
boards.py reads and writes boards.

The rank space is the product of the components: it equals the reachable set when the
moves generate every arrangement and orientation the constraints above allow (the 2x2x2,
the corners of the 3x3x3, the pyraminx), and is larger when they tie components together
(a cube's corner and edge parities, the skewb's corner twists); `puzzledb info` says which
(Puzzle.rank_space), and the built database gives the states reached.
"""

from functools import cached_property
from pathlib import Path

from puzzledb.errors import DefinitionError
from puzzledb.puzzles.base import Puzzle
from puzzledb.puzzles.permutation import definition as ksolve
from puzzledb.puzzles.permutation.boards import Boards
from puzzledb.puzzles.permutation.group import as_points, group_order
from puzzledb.puzzles.permutation.layout import Layout, check_size, make_tables, metric_moves
from puzzledb.puzzles.permutation.movenames import power_names
from puzzledb.puzzles.permutation.patterns import (
    StartPositions,
    as_list,
    goal_set,
    read_patterns,
)
from puzzledb.puzzles.permutation.symmetry import PermutationSymmetry
from puzzledb.puzzles.permutation.ranks import components, numbering
from puzzledb.puzzles.permutation.rows import component_rows, component_values

METRICS = ("htm", "qtm")


def read_definition(file, text):
    """The Definition of a `file:` or `text:` parameter (exactly one of them)."""
    if (file is None) == (text is None):
        raise DefinitionError("file", "give the definition as file: (a ksolve/twsearch "
                              "file, relative to the config) or as text:, one of them")
    if file is None:
        return ksolve.parse(str(text), "text", "text")
    path = Path(file)
    try:
        source_text = path.read_text()
    except OSError as err:
        raise DefinitionError("file", f"cannot read {file}: {err.strerror}") from None
    return ksolve.parse(source_text, path.name, "file")


class PermutationPuzzle(Puzzle):
    family = "permutation"
    kernels = "puzzledb.puzzles.permutation.kernels"
    named_moves = True  # the definition's (route_moves)

    def __init__(self, name, file=None, text=None, metric="htm", goal=None, start=None,
                 description=""):
        self.name = name
        self.spec = read_definition(file, text)
        if metric not in METRICS:
            raise DefinitionError("metric", f"{metric!r}: the metric is htm (every power of a "
                                  f"move is one move) or qtm (a move and its inverse)")
        self.metric = metric
        self.sets = self.spec.sets
        self._make_moves()
        # patterns number their goals and starts through the components' own rows: no
        # coupled orbit (ranks.couple) with them
        self.components = components(self.spec, coupling=goal is None and start is None)
        self.layout = Layout(self.components, self.max_moves)
        check_size(self.layout, self.sets, self.max_moves)
        self.size = self.layout.size
        self.key_words = self.layout.key_words
        self.boards = Boards(name, self.spec, self.components)
        self.cells = self.width = self.boards.cells
        self.goal = self.boards.solved
        for key, value in (("goal", goal), ("start", start)):
            if value is not None and self.key_words > 1:
                raise DefinitionError(key, f"patterns need a rank space below 2^63; this "
                                           f"one's keys are {self.key_words} words")
        self.goals = read_patterns(self.boards, as_list(goal), "goal")
        self._goal_ranks = goal_set(self.goals, self.layout) if self.goals else None
        starts = read_patterns(self.boards, as_list(start), "start")
        self.start = StartPositions(starts, self.layout) if starts else None
        self.description = description or (
            f"{self.spec.name or name}: permutation puzzle, {len(self.spec.moves)} moves "
            f"({self.metric.upper()}, {self.max_moves} in all), {self.size:,} ranks")

    def _make_moves(self):
        """self.moves: (name, base move index, power), in the metric's set of moves."""
        self.moves = []
        self.orders = [ksolve.order(self.sets, move) for move in self.spec.moves]
        for b, move in enumerate(self.spec.moves):
            order = self.orders[b]
            names = power_names(move.name, order)
            powers = range(1, order) if self.metric == "htm" else sorted({1, order - 1})
            self.moves += [(names[k - 1], b, k) for k in powers]
        self.max_moves = len(self.moves)
        self.move_names = [m[0] for m in self.moves]

    # -- the rank ------------------------------------------------------------------------------
    def rank(self, board):
        total = 0
        for c in self.components:
            total += self.layout.place(c, int(component_values(c, *self.boards.rows(c, board))[0]))
        return total

    def unrank(self, rank, level=0):
        self.check_rank(rank, level)
        board = self.goal.copy()
        for c in self.components:
            classes, oris = component_rows(c, [self.layout.value(c, rank)])
            self.boards.place(c, classes[0], oris[0], board)
        return self.boards.settle(board)

    def goal_ranks(self):
        if self._goal_ranks is None:
            return super().goal_ranks()
        return self._goal_ranks

    def key_bounds(self, level=0):
        return list(self.layout.word_sizes)

    def start_positions(self):
        return self.start

    def make_tables(self):
        return make_tables(self.layout, metric_moves(self.spec, self.moves),
                           forward=bool(self.spec.illegal))

    @property
    def work_size(self):
        return self.layout.work_size(self.max_moves)

    def expansion_bytes(self):
        return self.layout.table_bytes(self.max_moves)

    def layer_expansion(self):
        return self.compiled.RowExpansion(self.tables(), self.work_size)

    def definition(self):
        # the parsed definition, not the file's name or text: comments and layout do not
        # change the hash, a changed move does ("puzzle" is the hash's key for the name)
        out = {"family": "permutation", "metric": self.metric,
               "sets_and_moves": self.spec.as_data(),
               "ranking": f"permutation-orbits/{numbering(self.spec, self.components)}"}
        if self.goals:  # stored only when given, so that older layers keep their hash
            out["goal"] = [p.labels + p.oris for p in self.goals]
        return out

    def rank_space(self):
        groups = {}  # equal factors (a set's slots that twist in place) said once
        for c in self.components:
            key = (c.count, c.describe(self.sets))
            groups[key] = groups.get(key, 0) + 1
        parts = " x ".join(f"{count:,} ({what})" if n == 1 else
                           f"{count:,}^{n} ({n} orbits: {what})"
                           for (count, what), n in groups.items())
        return f"{self.size:,} ranks = {parts or '1'}; the states reached are the database's"

    @cached_property
    def _group_order(self):
        degree = sum(s.size * s.orientations for s in self.sets)
        return group_order(as_points(self.sets, self.spec.moves), degree)

    def reachable_bound(self):
        """The order of the moves' group, when below the rank space: every state reached is
        the solved state moved by one of its elements."""
        order = self._group_order
        return order if order is not None and order < self.size else None

    @cached_property
    def _symmetry(self):
        return PermutationSymmetry(self)

    def symmetry_group(self):
        """Its rotations, mirrors and inversion, found from the definition (symmetry.py)."""
        return self._symmetry if self._symmetry.reason is None else None

    def info_lines(self):
        lines = [("symmetry", self._symmetry.describe())]
        bound = self.reachable_bound()
        if bound is not None:
            lines.append(("reachable", f"at most {bound:,} states (the order of the moves' "
                          f"group): the rank space is {self.size / bound:,.1f} times that; "
                          f"the in-memory search holds two bits of every rank, the frontier "
                          f"search (taken past memory_mb when ranks far outnumber states) "
                          f"only the states reached"))
        if self.spec.rotations:
            names = " ".join(m.name for m in self.spec.rotations)
            lines.append(("rotations", f"{names}: turns of the whole puzzle, not generators "
                                       f"(boards and MoveSequences may use them)"))
        return lines

    # -- boards --------------------------------------------------------------------------------
    def apply(self, board, move):
        """The board after one move of the definition (a definition Move)."""
        return self.boards.apply(board, move)

    def format(self, board):
        return self.boards.format(board)

    def parse(self, text):
        return self.boards.parse(text)

    def route_moves(self, ranks):
        """The names of the moves that take each rank of a path to the next (the kernel's
        neighbours are in move order unless Illegal rules leave some out)."""
        out = []
        for a, b in zip(ranks, ranks[1:]):
            if not self.spec.illegal:
                out.append(self.move_names[self.neighbours(int(a)).index(int(b))])
                continue
            board = self.unrank(int(a))
            for name, base, power in self.moves:
                moved = board
                for _ in range(power):
                    moved = self.apply(moved, self.spec.moves[base])
                if self.rank(moved) == int(b):
                    out.append(name)
                    break
        return out
