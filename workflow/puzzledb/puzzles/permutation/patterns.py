"""Patterns of a permutation puzzle: a board with `?` for "anything" (`EDGE 1 2 ? ? / 0 0 ? ?`),
the states that match it, component by component.  Several solved states (config `goal:`,
each a board, a move sequence or a pattern) are the goal set of the search; a start pattern
(config `start:`) names the positions whose distances the workflow tabulates: the God's
number between two phases (docs/permutation.md, "Phases")."""

import numpy as np

from puzzledb.errors import BoardError, DefinitionError
from puzzledb.puzzles.permutation.layout import TABLE_MAX
from puzzledb.puzzles.permutation.rows import component_rows, component_values, legal_rows

ANY = -2  # a `?` of a pattern (WILD is a `?` twist of the definition)
GOAL_MAX = 1 << 24  # states a goal set may hold


class Pattern:
    """The states matching one pattern: for each component, None (anything) or what its
    slots must hold ((local slot, class) and (local slot, orientation) pairs)."""

    def __init__(self, boards, text):
        self.text = text
        self.labels, self.oris = _read(boards, text)
        self.constraints = [_constraint(boards, c, self.labels, self.oris, text)
                            for c in boards.components]
        self.components = boards.components
        self._tables = {}  # id(component) -> whether each of its values matches

    def values(self, c, constraint, limit):
        """The values of component c that match (sorted); BoardError past `limit`."""
        if constraint is None:
            if c.count > limit:
                raise _too_many(self.text)
            return np.arange(c.count, dtype=np.int64)
        if c.count > TABLE_MAX:  # compiled: listed only when the pattern gives every slot
            values = _completed(c, constraint, self.text)
        else:
            values = np.arange(c.count, dtype=np.int64)
        keep = values[self.match_values(c, constraint, values)]
        if c.illegal:  # a goal where a piece never stands is no goal
            keep = keep[legal_rows(c, component_rows(c, keep)[0])]
        if keep.size > limit:
            raise _too_many(self.text)
        return keep

    @staticmethod
    def match_values(c, constraint, values):
        """Whether each value of component c meets the constraint."""
        if constraint is None:
            return np.ones(values.size, dtype=bool)
        classes, oris = component_rows(c, values)
        ok = np.ones(values.size, dtype=bool)
        for kind, slot, value in constraint:
            ok &= (classes if kind == "class" else oris)[:, slot] == value
        return ok

    def ranks(self, layout, limit=GOAL_MAX):
        """Every rank that matches, sorted (uint64)."""
        lists = [(c, self.values(c, k, limit)) for c, k in zip(self.components,
                                                                self.constraints)]
        total = 1
        for _, values in lists:
            total *= values.size
        if total > limit:
            raise _too_many(self.text)
        ranks = np.zeros(1, dtype=np.int64)
        for c, values in lists:
            ranks = (ranks[:, None] + layout.place(c, values)[None, :]).ravel()
        return np.unique(ranks).astype(np.uint64)

    def matches(self, ranks, layout):
        """Whether each rank matches (ranks: uint64 array): a look-up per constrained
        component of up to TABLE_MAX values, its slots decoded for a larger one."""
        ranks = np.asarray(ranks, dtype=np.uint64)
        ok = np.ones(ranks.size, dtype=bool)
        for c, constraint in zip(self.components, self.constraints):
            if constraint is None:
                continue
            values = layout.value(c, ranks)
            if c.count > TABLE_MAX:
                ok &= self.match_values(c, constraint, values)
                continue
            if id(c) not in self._tables:
                self._tables[id(c)] = self.match_values(c, constraint, np.arange(c.count))
            ok &= self._tables[id(c)][values]
        return ok


def _completed(c, constraint, text):
    """The one value of a compiled component whose every slot the pattern gives."""
    classes = np.zeros((1, len(c.slots)), dtype=np.int64)
    oris = np.zeros((1, len(c.slots)), dtype=np.int64)
    given = {(kind, slot) for kind, slot, _ in constraint}
    for kind, slot, value in constraint:
        (classes if kind == "class" else oris)[0, slot] = value
    named = [i for i in range(len(c.slots))
             if c.kind == "ori" or (c.kind == "wild" and not c.wild[classes[0, i]])]
    needed = {("class", i) for i in range(len(c.slots)) if c.kind != "ori"} | \
        {("ori", i) for i in named}
    if not needed <= given:
        raise BoardError(f"pattern {text!r}: a ? among the {len(c.slots)} slots of a factor of "
                         f"{c.count:,} values, too many to list: give them all")
    return component_values(c, classes, oris)


def _too_many(text):
    return BoardError(f"pattern {text!r} matches more than {GOAL_MAX:,} states; give more "
                      f"of its slots")


def _read(boards, text):
    """Per set: (labels, orientations) with ANY for a `?`; a board or move sequence (no
    `?`) is the pattern of that one state, and the empty sequence the solved state."""
    tokens = str(text).replace("|", " ").replace(",", " ").split()
    names = [s.name for s in boards.sets]
    if not tokens:  # no moves: the solved state
        return _split(boards, boards.solved, boards.solved)
    if tokens[0] not in names:
        board = boards.parse(text)
        return _split(boards, board, board)
    labels = boards.solved.copy()
    oris = boards.solved.copy()
    for s, pieces, twists in boards.set_entries(text, tokens, "pattern"):
        n, o = boards.sets[s].size, boards.offsets[s]
        _take(pieces, n, labels, o, text, "pieces")
        if twists is not None:
            _take(twists, n, oris, o + n, text, "orientations")
    return _split(boards, labels, oris)


def _take(values, n, into, at, text, what):
    if len(values) != n or not all(v.isdigit() or v == "?" for v in values):
        raise BoardError(f"pattern {text!r}: {n} {what} expected, numbers or ?")
    into[at:at + n] = [ANY if v == "?" else int(v) for v in values]


def _split(boards, labels, oris):
    out_labels, out_oris = [], []
    for s, piece_set in enumerate(boards.sets):
        n, o = piece_set.size, boards.offsets[s]
        out_labels.append(labels[o:o + n].tolist())
        out_oris.append(oris[o + n:o + 2 * n].tolist())
    return out_labels, out_oris


def _constraint(boards, c, labels, oris, text):
    """What component c's slots must hold: a list of ('class', slot, class) and ('ori',
    slot, orientation), or None when nothing is asked."""
    out = []
    for i, slot in enumerate(c.slots):
        label = labels[c.set][slot]
        if c.kind != "ori" and label != ANY:
            if label not in c.labels:
                raise BoardError(f"pattern {text!r}: set {boards.sets[c.set].name}'s slot "
                                 f"{slot + 1} never holds piece {label}")
            out.append(("class", i, c.labels.index(label)))
        twist = oris[c.set][slot]
        # a twist counts in an orientation factor, or for a named piece whose twist is not ?
        counted = c.kind == "ori" or (c.kind == "wild" and label != ANY
                                      and not c.wild[c.labels.index(label)])
        if counted and twist != ANY:
            out.append(("ori", i, twist % c.k))
    return out or None


def read_patterns(boards, texts, key):
    """The Patterns of a config value (`goal` or `start`): DefinitionError naming the key
    for one that is malformed or matches nothing the rank numbers."""
    try:
        return [Pattern(boards, text) for text in texts]
    except BoardError as err:
        raise DefinitionError(key, str(err)) from None


def goal_set(patterns, layout):
    """The sorted ranks of the states matching any of the patterns (several solved
    states); DefinitionError naming `goal` for too many or none."""
    parts = []
    for pattern in patterns:
        try:
            part = pattern.ranks(layout)
        except BoardError as err:
            raise DefinitionError("goal", str(err)) from None
        if part.size == 0:
            raise DefinitionError("goal", f"pattern {pattern.text!r} matches no state the "
                                          f"rank numbers")
        parts.append(part)
    return np.unique(np.concatenate(parts))


class StartPositions:
    """The positions matching any of the start patterns (Puzzle.start_positions)."""

    def __init__(self, patterns, layout):
        self.patterns = patterns
        self.layout = layout
        self.text = " or ".join(repr(p.text) for p in patterns)

    def matches(self, ranks):
        ok = np.zeros(np.asarray(ranks).size, dtype=bool)
        for pattern in self.patterns:
            ok |= pattern.matches(ranks, self.layout)
        return ok


def as_list(value):
    """A config value that is one string or a list of them, as a list."""
    if value is None:
        return []
    return [value] if isinstance(value, str) else [str(v) for v in value]

