"""The ksolve / twsearch text format, read into a Definition: sets of pieces, the solved
state and the moves, each checked where it stands, so that a bad file is one line naming
the file and the line at fault (docs/permutation.md describes the format).

Positions and moves are passive, as twsearch reads them: a permutation line lists, for each
slot, the slot its piece comes from (1-based), so a move takes state (p, o) to
p'[i] = p[m[i]], o'[i] = o[m[i]] + t[m[i]] (mod the set's orientations), t being the move's
orientation line (indexed by the piece's slot before the move).
"""

from dataclasses import dataclass

from puzzledb.errors import DefinitionError

KEYWORDS = ("Name", "Set", "Solved", "Move", "End")


@dataclass(frozen=True)
class PieceSet:
    name: str
    size: int
    orientations: int


@dataclass(frozen=True)
class Move:
    name: str
    line: int  # where its block starts, for messages
    perms: tuple  # per set: a tuple of 0-based source slots
    twists: tuple  # per set: a tuple of orientation changes, by source slot


@dataclass(frozen=True)
class Definition:
    name: str
    sets: tuple  # PieceSet, in the file's order
    solved: tuple  # per set: (labels, orientations), labels 1-based as written
    moves: tuple  # Move, in the file's order

    def as_data(self):
        """A JSON-able form of what fixes the puzzle (its hash goes into every layer)."""
        return {"sets": [[s.name, s.size, s.orientations] for s in self.sets],
                "solved": [[list(labels), list(oris)] for labels, oris in self.solved],
                "moves": [[m.name, [list(p) for p in m.perms], [list(t) for t in m.twists]]
                          for m in self.moves]}


class _Lines:
    """The file's lines with comments and blanks dropped: (line number, tokens)."""

    def __init__(self, text, source, key):
        self.source = source
        self.key = key
        self.items = []
        for number, line in enumerate(text.splitlines(), 1):
            tokens = line.split("#", 1)[0].split()
            if tokens:
                self.items.append((number, tokens))
        self.i = 0

    def error(self, number, message):
        return DefinitionError(self.key, f"{self.source} line {number}: {message}")

    def peek(self):
        return self.items[self.i] if self.i < len(self.items) else (None, None)

    def take(self):
        item = self.peek()
        self.i += 1
        return item


def _numbers(lines, number, tokens, count, what):
    if len(tokens) != count:
        raise lines.error(number, f"{what} has {len(tokens)} numbers, expected {count}")
    try:
        return [int(t) for t in tokens]
    except ValueError:
        bad = next(t for t in tokens if not t.lstrip("-").isdigit())
        raise lines.error(number, f"{what}: {bad!r} is not a number") from None


def _is_number_line(tokens):
    return tokens is not None and tokens[0].lstrip("-").isdigit()


def _block(lines, sets, start, kind):
    """The set entries of a Solved or Move block up to End: set index -> (line, perm
    numbers, orientation numbers or None)."""
    entries = {}
    while True:
        number, tokens = lines.take()
        if tokens is None:
            raise lines.error(start, f"{kind} block has no End")
        if tokens[0] == "End":
            if len(tokens) > 1:
                raise lines.error(number, "End takes nothing after it")
            return entries
        names = [s.name for s in sets]
        if tokens[0] not in names:
            raise lines.error(number, f"{tokens[0]!r} is not a set (sets: {', '.join(names)})"
                              if not _is_number_line(tokens) else
                              "numbers where a set name or End was expected")
        if len(tokens) > 1:
            raise lines.error(number, f"a set name stands alone on its line in a {kind} block")
        index = names.index(tokens[0])
        if index in entries:
            raise lines.error(number, f"set {tokens[0]} given twice in this {kind} block")
        piece_set = sets[index]
        perm_line, perm_tokens = lines.take()
        if not _is_number_line(perm_tokens):
            raise lines.error(perm_line or number, f"set {piece_set.name} needs a line of "
                              f"{piece_set.size} numbers")
        perm = _numbers(lines, perm_line, perm_tokens, piece_set.size,
                        f"set {piece_set.name}'s permutation")
        oris = None
        ori_line, ori_tokens = lines.peek()
        if _is_number_line(ori_tokens):
            lines.take()
            oris = _numbers(lines, ori_line, ori_tokens, piece_set.size,
                            f"set {piece_set.name}'s orientations")
            bad = [o for o in oris if not 0 <= o < piece_set.orientations]
            if bad:
                raise lines.error(ori_line, f"orientation {bad[0]} out of range for set "
                                  f"{piece_set.name} (0..{piece_set.orientations - 1})")
        entries[index] = (perm_line, perm, oris)


def parse(text, source="definition", key="file"):
    """The Definition a ksolve/twsearch text declares; DefinitionError(key, 'SOURCE line
    N: ...') at the first line the family cannot read or does not support (key: the
    definition's parameter that holds the text, `file` or `text`)."""
    lines = _Lines(text, source, key)
    name, sets, solved, moves = "", [], None, []
    while True:
        number, tokens = lines.take()
        if tokens is None:
            break
        word = tokens[0]
        if word == "Name":
            name = " ".join(tokens[1:])
        elif word == "Set":
            if solved is not None or moves:
                raise lines.error(number, "Set lines come before Solved and Move blocks")
            if len(tokens) != 4:
                raise lines.error(number, "Set takes a name, a piece count and a number of "
                                  "orientations")
            if tokens[1] in [s.name for s in sets]:
                raise lines.error(number, f"set {tokens[1]} declared twice")
            size, orientations = _numbers(lines, number, tokens[2:], 2, "Set")
            if size < 1 or orientations < 1:
                raise lines.error(number, "a set has at least one piece and one orientation")
            sets.append(PieceSet(tokens[1], size, orientations))
        elif word == "Solved":
            if solved is not None:
                raise lines.error(number, "a second Solved block")
            if not sets:
                raise lines.error(number, "Solved before any Set")
            solved = (number, _block(lines, sets, number, "Solved"))
        elif word == "Move":
            if len(tokens) != 2:
                raise lines.error(number, "Move takes one name")
            if not sets:
                raise lines.error(number, "Move before any Set")
            if tokens[1] in [m.name for m in moves]:
                raise lines.error(number, f"move {tokens[1]} declared twice")
            if not _move_name_ok(tokens[1]):
                raise lines.error(number, f"move name {tokens[1]!r}: use letters, digits and "
                                  f"_ (its powers are named like R2 and R')")
            moves.append(_move(lines, sets, number, tokens[1]))
        else:
            what = ("is not supported by puzzledb's permutation family"
                    if word in UNSUPPORTED else "is not a keyword of the format")
            raise lines.error(number, f"{word!r} {what} (it reads {', '.join(KEYWORDS)})")
    if not sets:
        raise DefinitionError(key, f"{source}: no Set declared")
    if not moves:
        raise DefinitionError(key, f"{source}: no Move declared")
    return Definition(name, tuple(sets), _solved(lines, sets, solved), tuple(moves))


# twsearch's keywords that this family does not read: an error, never ignored
UNSUPPORTED = ("Illegal", "MoveSequence", "ForbiddenPairs", "ForbiddenGroups", "Block",
               "IgnorePieces", "IgnoreOri", "MoveLimits", "MoveAlias", "MoveTransformation",
               "Symmetry", "StartState", "ScrambleState")


def _move_name_ok(name):
    return name.replace("_", "a").isalnum() and not name[-1].isdigit()


def _move(lines, sets, start, name):
    entries = _block(lines, sets, start, f"Move {name}")
    perms, twists = [], []
    for index, piece_set in enumerate(sets):
        if index not in entries:
            raise lines.error(start, f"move {name} does not give set {piece_set.name}")
        line, perm, oris = entries[index]
        if sorted(perm) != list(range(1, piece_set.size + 1)):
            raise lines.error(line, f"move {name}: set {piece_set.name}'s line is not a "
                              f"permutation of 1..{piece_set.size}")
        perms.append(tuple(p - 1 for p in perm))
        twists.append(tuple(oris) if oris else (0,) * piece_set.size)
    return Move(name, start, tuple(perms), tuple(twists))


def _solved(lines, sets, solved):
    """Per set (labels, orientations); a set the Solved block leaves out, or no block, is
    the identity."""
    entries = solved[1] if solved else {}
    out = []
    for index, piece_set in enumerate(sets):
        if index not in entries:
            out.append((tuple(range(1, piece_set.size + 1)), (0,) * piece_set.size))
            continue
        line, labels, oris = entries[index]
        bad = [x for x in labels if not 1 <= x <= piece_set.size]
        if bad:
            raise lines.error(line, f"Solved: piece {bad[0]} of set {piece_set.name} out of "
                              f"range 1..{piece_set.size}")
        used = sorted(set(labels))
        if used != list(range(1, len(used) + 1)):
            missing = min(set(range(1, len(used) + 1)) - set(used))
            raise lines.error(line, f"Solved: set {piece_set.name} skips piece {missing} "
                              f"(identical pieces share a number; numbers run from 1 up)")
        out.append((tuple(labels), tuple(oris) if oris else (0,) * piece_set.size))
    return tuple(out)
