"""The lanes of a catalogue of bars (Rush Hour's cars and trucks: every piece an Nx1 or 1xN
bar sliding along its length), the tables of its compiled search (cluster_search_lanes.py).
Plain Python; docs/blocks.md, "The catalogue", tells the story.

A bar never leaves its row or column (its *line*), and the bars of a line never pass one
another, so a board's *layout* (each line's bars in order, its *content*, and the walls)
never changes by a move.  Within a layout each line's bars stand at one of the content's
placements, numbered from 0 (a *digit*), and a board is its digits in mixed radix: a dense
rank over the layout, so that a cluster is searched with two bits a rank instead of a set
of keys.  A board's digits are also kept packed, a field of bits a line, so that a move is
one addition to each.
"""

from collections import namedtuple
from functools import cached_property
from math import prod

import numpy as np

from puzzledb.errors import DefinitionError

SPACES = ("every", "fogleman")  # catalogue: {space: ...}
MARK_LIMIT = 1 << 33  # ranks of a layout, at most: its marks (two bits a rank) in 2 GiB

# The kernels' data.  Lines are the rows (top first), then the columns (left first); line
# i's contents are the ids content_first[i] .. content_first[i + 1] - 1.  For a content t:
# its line, radix (placements), bars and each one's class; for each digit d the cells it
# covers (mask), each bar's anchor, whether the goal bars stand at their goal (goal; true
# on a line without one) and its moves, move_first[t, d] .. move_first[t, d + 1] - 1 in the
# flat arrays: the digit after, the cells it must find empty (require) and the bar moved,
# in the order of Fogleman's solver (the bars in order, each back nearest first, then
# forward); removed bar j: the content (remove[t, j], -1 for a goal bar) and digit
# (removed[t, d, j]) left.  Line i's digit is field i of a board's packed digits (shift,
# field: its mask); rows: the number of rows; horizontal: whether line i is a row.
# The moves again, by what stands on the line: its cells covered (walls and every line's
# bars) as a pattern, cell k of the line its bit k, gathered from a board's cells in
# chunks: the sum over gather[i, :] of (shift, spread, magic, drop, mask, at):
# (((cells >> shift) & spread) * magic >> drop & mask) << at; the digits after the moves
# not blocked are legal_target[legal_first[x] .. legal_first[x + 1] - 1], x = (t * most +
# d) * patterns + the pattern, in the order of the moves above.
LaneTables = namedtuple("LaneTables", "lines rows horizontal content_first line_of radix bars "
                        "klass mask anchor goal move_first move_target move_require "
                        "move_bar remove removed shift field fixed goal_lines gather "
                        "patterns legal_first legal_target")


def is_lane_catalogue(cat):
    """Whether every class of a catalogue (definition.Catalogue) is a bar moving along its
    length: a piece of one row (or one column) of two cells or more that moves along it."""
    for piece_class in cat.classes:
        rows = {r for r, _ in piece_class.shape}
        cols = {c for _, c in piece_class.shape}
        across = len(rows) == 1 and len(cols) > 1 and set(piece_class.directions) == {2, 3}
        down = len(cols) == 1 and len(rows) > 1 and set(piece_class.directions) == {0, 1}
        if not (across or down):
            return False
    return True


class Lanes:
    """A lane catalogue's lines, their contents and placements, and the kernels' tables.
    `space`: every board (every), or Fogleman's (fogleman): no bar beside a goal bar in
    its line, no row full of bars and walls, no column full of bars."""

    def __init__(self, cat, space="every"):
        self.cat, self.space = cat, space
        box = cat.drawing
        self.lines = ([tuple(range(r * box.width, (r + 1) * box.width))
                       for r in range(box.height)] +
                      [tuple(range(c, box.cells, box.width)) for c in range(box.width)])
        self.horizontal = [i < box.height for i in range(len(self.lines))]
        self.free = [sum(c not in box.walls for c in line) for line in self.lines]
        self.contents = [self._contents(i) for i in range(len(self.lines))]

    # -- what stands on a line ------------------------------------------------------------
    def _classes_of(self, i):
        """The classes that may stand on line i, each with its anchors there."""
        cat, found = self.cat, []
        for k, piece_class in enumerate(cat.classes):
            if self.horizontal[i] != (len({r for r, _ in piece_class.shape}) == 1):
                continue
            anchors = [a for a in piece_class.anchors if a in self.lines[i]]
            if piece_class.goal and cat.goal_anchor(k) not in self.lines[i]:
                continue
            if anchors:
                found.append((k, anchors))
        return found

    def _placements(self, i):
        """Every placement of bars on line i: (classes in order, anchors in order)."""
        line, found = self.lines[i], []
        at = {a: [(k, len(self.cat.classes[k].shape)) for k, anchors in self._classes_of(i)
                  if a in anchors] for a in line}

        def fill(x, classes, anchors):
            if x >= len(line):
                found.append((tuple(classes), tuple(anchors)))
                return
            fill(x + 1, classes, anchors)
            for k, length in at[line[x]]:
                fill(x + length, classes + [k], anchors + [line[x]])

        fill(0, [], [])
        return found

    def _allowed(self, i, classes):
        """Whether a content may stand on line i: each goal class of the line exactly once,
        and in Fogleman's space no other bar beside it, no line full of bars."""
        cat = self.cat
        goals = [k for k, _ in self._classes_of(i) if cat.classes[k].goal]
        if any(classes.count(k) != 1 for k in goals):
            return False
        if self.space == "fogleman":
            if goals and len(classes) != len(goals):
                return False
            if sum(len(cat.classes[k].shape) for k in classes) == self.free[i]:
                return False
        return True

    def _contents(self, i):
        """Line i's contents: {classes: [anchors of each placement, in order]}, the contents
        by bars then classes, the placements in order of their anchors."""
        found = {}
        for classes, anchors in self._placements(i):
            if self._allowed(i, classes):
                found.setdefault(classes, []).append(anchors)
        return {c: sorted(found[c]) for c in sorted(found, key=lambda c: (len(c), c))}

    # -- the bounds -------------------------------------------------------------------------
    def max_ranks(self):
        """The most ranks a layout can have: the product of its lines' radices, at most,
        over every choice of contents that fits the box's cells."""
        best = {0: 1}  # cells covered -> the largest product
        for contents in self.contents:
            now = {}
            for classes, placements in contents.items():
                cells = sum(len(self.cat.classes[k].shape) for k in classes)
                for used, product in best.items():
                    if used + cells <= self.cat.cells:
                        now[used + cells] = max(now.get(used + cells, 0),
                                                product * len(placements))
            best = now
        return max(best.values())

    def field_bits(self):
        """The bits of each line's field in the packed digits."""
        return [max(len(p) - 1 for p in contents.values()).bit_length()
                for contents in self.contents]

    def check(self):
        """DefinitionError when the kernels cannot take this catalogue: packed digits past a
        word, or a layout past MARK_LIMIT ranks."""
        if sum(self.field_bits()) > 64:
            raise DefinitionError("catalogue", f"the digits of its {len(self.lines)} lines "
                                  f"take {sum(self.field_bits())} bits, more than 64")
        if self.max_ranks() > MARK_LIMIT:
            raise DefinitionError("catalogue", f"a layout may have {self.max_ranks():,} "
                                  f"boards, more than {MARK_LIMIT:,}: the box is too large")

    def info_lines(self):
        """`puzzledb info`'s lines: the units of work, a job's memory (job_lanes.py)."""
        wall_sets, rows = units(self)
        ranks = self.max_ranks()
        return [("layouts", f"{len(wall_sets) * rows:,} units of work (a choice of each "
                            f"row's bars{' and of the walls' if self.cat.walls else ''}), a "
                            f"layout at most {ranks:,} boards"),
                ("job memory", f"{ranks * 3 / 8 / 2**20:,.1f} MiB of marks (three bits a "
                               f"board of the largest layout), 64 bytes a board of the "
                               f"largest cluster (its queues, doubled as needed), and 40 "
                               f"bytes a cluster found and 4 a distance count"),
                ("jobs", "config catalogue_jobs: {name: J}, the units dealt in rounds of J, "
                         "one to each job in an order shuffled by the round (split.py); rule "
                         "catalogue merges their parts into catalogue.csv")]

    # -- the kernels' tables ------------------------------------------------------------------
    def tables(self):
        return self._built

    @cached_property
    def _built(self):
        return _tables(self)


def _moves(lanes, classes, anchors, placements, metric_step):
    """The moves of one placement (anchors of the bars `classes`): (digit after, cells to
    find empty, bar), each bar back nearest first, then forward."""
    cat, found = lanes.cat, []
    index = {p: d for d, p in enumerate(placements)}
    for j, k in enumerate(classes):
        shape = cat.classes[k].shape
        stride = 1 if len({r for r, _ in shape}) == 1 else cat.width
        for sign in (-1, 1):
            need, at = set(), anchors[j]
            while True:
                at += sign * stride
                moved = anchors[:j] + (at,) + anchors[j + 1:]
                if moved not in index:
                    break
                need |= set(cat.drawing.at(shape, at)) - set(cat.drawing.at(shape, anchors[j]))
                found.append((index[moved], sum(1 << c for c in need), j))
                if metric_step:
                    break
    return found


def _gather(cells, chunks):
    """A line's gather (the tables' comment): its cells in chunks, each gathered by one
    multiplication, exact when a chunk's cells are no more than their stride (their bits'
    products never meet); `chunks` rows, the unused ones gathering nothing."""
    stride = cells[1] - cells[0] if len(cells) > 1 else 1
    size = stride if stride > 1 else len(cells)  # the cells of a chunk, at most
    found = []
    for at in range(0, len(cells), size):
        part = cells[at:at + size]
        spread = sum(1 << (stride * k) for k in range(len(part)))
        if stride == 1:
            found.append((part[0], spread, 1, 0, (1 << len(part)) - 1, at))
            continue
        magic = sum(1 << ((stride - 1) * j) for j in range(1, len(part) + 1))
        found.append((part[0], spread, magic, (stride - 1) * len(part),
                      (1 << len(part)) - 1, at))
    return found + [(0, 0, 0, 0, 0, 0)] * (chunks - len(found))


def _chunks(lanes):
    """The most chunks a line's cells are gathered in (_gather)."""
    return max(-(-len(line) // (line[1] - line[0] if line[1] - line[0] > 1 else len(line)))
               for line in lanes.lines if len(line) > 1)


def _legal(lanes, rows, move_first, moves, most):
    """legal_first and legal_target (the tables' comment): each content, digit and pattern
    of its line's cells, the moves whose cells to find empty are empty in the pattern."""
    patterns = 1 << max(len(line) for line in lanes.lines)
    first, targets = [0], []
    for t, (i, _, placements) in enumerate(rows):
        bit = {c: k for k, c in enumerate(lanes.lines[i])}
        for d in range(most):
            needs = [(moves[m][0], sum(1 << bit[c] for c in range(64) if moves[m][1] >> c & 1))
                     for m in range(move_first[t, d], move_first[t, d + 1])]
            for pattern in range(patterns):
                targets += [e for e, need in needs if not need & pattern]
                first.append(len(targets))
    return patterns, np.array(first, np.int64), np.array(targets, np.int64)


def _content_rows(lanes):
    """Every content of every line, in order: (line, classes, placements)."""
    return [(i, classes, placements) for i, contents in enumerate(lanes.contents)
            for classes, placements in contents.items()]


def _tables(lanes):
    cat = lanes.cat
    rows = _content_rows(lanes)
    count, most = len(rows), max(len(p) for _, _, p in rows)
    bars = max(len(c) for _, c, _ in rows) or 1
    content_first = np.cumsum([0] + [len(c) for c in lanes.contents]).astype(np.int64)
    klass = np.full((count, bars), -1, np.int64)
    mask = np.zeros((count, most), np.uint64)
    anchor = np.full((count, most, bars), -1, np.int64)
    goal = np.zeros((count, most), np.bool_)
    move_first = np.zeros((count, most + 1), np.int64)
    remove = np.full((count, bars), -1, np.int64)
    removed = np.full((count, most, bars), -1, np.int64)
    moves = []
    ids = {(i, classes): t for t, (i, classes, _) in enumerate(rows)}
    for t, (i, classes, placements) in enumerate(rows):
        klass[t, :len(classes)] = classes
        for j, k in enumerate(classes):
            if not cat.classes[k].goal:
                fewer = classes[:j] + classes[j + 1:]
                remove[t, j] = ids[(i, fewer)]
                left = {p: d for d, p in enumerate(lanes.contents[i][fewer])}
                for d, anchors in enumerate(placements):
                    removed[t, d, j] = left[anchors[:j] + anchors[j + 1:]]
        for d, anchors in enumerate(placements):
            mask[t, d] = sum(1 << c for a, k in zip(anchors, classes)
                             for c in cat.drawing.at(cat.classes[k].shape, a))
            anchor[t, d, :len(anchors)] = anchors
            goal[t, d] = all(a == cat.goal_anchor(k) for a, k in zip(anchors, classes)
                             if cat.classes[k].goal)
            move_first[t, d] = len(moves)
            moves += _moves(lanes, classes, anchors, placements, cat.metric == "step")
        move_first[t, len(placements):] = len(moves)
    bits = lanes.field_bits()
    shift = np.cumsum([0] + bits[:-1]).astype(np.int64)
    goal_lines = [i for i in range(len(lanes.lines)) if any(
        cat.classes[k].goal for classes in lanes.contents[i] for k in classes)]
    return LaneTables(
        np.int64(len(lanes.lines)), np.int64(cat.drawing.height),
        np.array(lanes.horizontal, np.bool_), content_first,
        np.array([i for i, _, _ in rows], np.int64),
        np.array([len(p) for _, _, p in rows], np.int64),
        np.array([len(c) for _, c, _ in rows], np.int64), klass, mask, anchor, goal,
        move_first, np.array([m[0] for m in moves], np.int64),
        np.array([m[1] for m in moves], np.uint64), np.array([m[2] for m in moves], np.int64),
        remove, removed, shift, np.array([(1 << b) - 1 for b in bits], np.uint64),
        np.uint64(sum(1 << c for c in cat.drawing.walls)), np.array(goal_lines, np.int64),
        np.array([_gather(line, _chunks(lanes)) for line in lanes.lines], np.uint64),
        *_legal(lanes, rows, move_first, moves, most))


def units(lanes):
    """The units of work of a lane catalogue, in order: a set of walls (cell masks, fewer
    walls first) and the contents of every row (a layout's rows; its columns are chosen in
    the unit).  Returns the wall masks and the number of row choices per wall set: unit u
    is wall set u // rows, row choice u % rows (mixed radix over the rows, the last row's
    digit fastest)."""
    cat = lanes.cat
    goal_cells = set()
    for k in range(cat.goals):
        goal_cells |= set(cat.drawing.at(cat.classes[k].shape, cat.goal_anchor(k)))
    free = [c for c in range(cat.cells) if c not in cat.drawing.walls and c not in goal_cells]
    sets = [()]
    for count in range(1, cat.walls + 1):
        sets += [s + (c,) for s in sets if len(s) == count - 1 for c in free
                 if not s or c > s[-1]]
    rows = prod(len(lanes.contents[i]) for i in range(cat.drawing.height))
    return np.array([sum(1 << c for c in s) for s in sets], np.uint64), rows
