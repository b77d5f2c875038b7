"""The ksolve / twsearch text format, read as twsearch's own reader reads it (Set, Solved,
Move, MoveSequence, MoveAlias, Illegal, `?` twists; docs/permutation.md): forgiving about
what a file leaves out, one line naming the file and the line for what is really wrong.

Positions and moves are passive, as twsearch reads them: a permutation line lists, for each
slot, the slot its piece comes from (1-based), so a move takes state (p, o) to
p'[i] = p[m[i]], o'[i] = o[m[i]] + t[m[i]] (mod the set's orientations), t being the move's
orientation line (indexed by the piece's slot before the move).
"""

from dataclasses import dataclass

from puzzledb.errors import DefinitionError
from puzzledb.puzzles.permutation.movenames import is_rotation, power_names

WILD = -1  # a `?` orientation of Solved: that piece's twist is not part of the state
KEYWORDS = ("Name", "Set", "Solved", "StartState", "Move", "MoveTransformation",
            "MoveSequence", "MoveAlias", "Illegal", "End")


@dataclass(frozen=True)
class PieceSet:
    name: str
    size: int
    orientations: int


@dataclass(frozen=True)
class Move:
    name: str
    line: int  # where it is declared, for messages
    perms: tuple  # per set: a tuple of 0-based source slots
    twists: tuple  # per set: a tuple of orientation changes, by source slot


@dataclass(frozen=True)
class Definition:
    name: str
    sets: tuple  # PieceSet, in the file's order
    solved: tuple  # per set: (labels, orientations), labels as written, WILD for `?`
    moves: tuple  # Move: the generators (Move blocks, then MoveSequences, as twsearch)
    rotations: tuple = ()  # Move: x, y, z, names ending in v: not generators
    aliases: tuple = ()  # Move: MoveAlias, a name for a sequence: not a generator
    illegal: tuple = ()  # (set index, slot 0-based, label): a piece never stands there

    def as_data(self):
        """A JSON-able form of what fixes the state graph (its hash goes into every layer):
        rotations and aliases, which are not generators, are not part of it."""
        data = {"sets": [[s.name, s.size, s.orientations] for s in self.sets],
                "solved": [[list(labels), list(oris)] for labels, oris in self.solved],
                "moves": [[m.name, [list(p) for p in m.perms], [list(t) for t in m.twists]]
                          for m in self.moves]}
        if self.illegal:
            data["illegal"] = [list(x) for x in self.illegal]
        return data

    def named_moves(self):
        """Every name a move sequence may use: each power of a generator, a rotation or an
        alias (R, R2, R', x, Fv) -> its Move; the first declared wins a name, as in
        twsearch."""
        out = {}
        for move in self.moves + self.rotations:
            for name, power in zip(power_names(move.name, order(self.sets, move)),
                                   powers(self.sets, move)):
                out.setdefault(name, power)
        for alias in self.aliases:
            out.setdefault(alias.name, alias)
        return out


# --- moves as data: composition and order ----------------------------------------------------


def identity(sets, name="", line=0):
    return Move(name, line, tuple(tuple(range(s.size)) for s in sets),
                tuple((0,) * s.size for s in sets))


def compose(sets, a, b, name="", line=0):
    """Move a, then move b, as one move."""
    perms, twists = [], []
    for s, piece_set in enumerate(sets):
        pa, ta, pb, tb = a.perms[s], a.twists[s], b.perms[s], b.twists[s]
        perm = tuple(pa[pb[i]] for i in range(piece_set.size))
        twist = [0] * piece_set.size
        for i in range(piece_set.size):
            twist[perm[i]] = (ta[perm[i]] + tb[pb[i]]) % piece_set.orientations
        perms.append(perm)
        twists.append(tuple(twist))
    return Move(name, line, tuple(perms), tuple(twists))


def powers(sets, move):
    """The moves move^1 .. move^(order-1)."""
    out, power = [], move
    unit = identity(sets)
    while (power.perms, power.twists) != (unit.perms, unit.twists):
        out.append(power)
        power = compose(sets, power, move)
    return out


def order(sets, move):
    return len(powers(sets, move)) + 1


# --- reading --------------------------------------------------------------------------------


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


def _numbers(lines, number, tokens, count, what, wild=False):
    if len(tokens) != count:
        raise lines.error(number, f"{what} has {len(tokens)} numbers, expected {count}")
    out = []
    for t in tokens:
        if wild and t == "?":
            out.append(WILD)
        elif t.isdigit():
            out.append(int(t))
        else:
            hint = " (a ? stands only in Solved's orientation lines)" if t == "?" else ""
            raise lines.error(number, f"{what}: {t!r} is not a number{hint}")
    return out


def _is_number_line(tokens):
    return tokens is not None and (tokens[0].isdigit() or tokens[0] == "?")


def _entry(lines, piece_set, number, wild):
    """One set's lines in a block: (line, numbers, orientations or None)."""
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
                        f"set {piece_set.name}'s orientations", wild)
        bad = [o for o in oris if o != WILD and not 0 <= o < piece_set.orientations]
        if bad:
            raise lines.error(ori_line, f"orientation {bad[0]} out of range for set "
                              f"{piece_set.name} (0..{piece_set.orientations - 1})")
    return perm_line, perm, oris


def _block(lines, sets, start, kind, wild=False):
    """The set entries of a Solved or Move block up to End: set index -> (line, numbers,
    orientations or None).  A set the block leaves out is not in it."""
    entries = {}
    names = [s.name for s in sets]
    while True:
        number, tokens = lines.take()
        if tokens is None:
            raise lines.error(start, f"{kind} block has no End")
        if tokens[0] == "End":
            if len(tokens) > 1:
                raise lines.error(number, "End takes nothing after it")
            return entries
        if tokens[0] not in names:
            raise lines.error(number, f"{tokens[0]!r} is not a set (sets: {', '.join(names)})"
                              if not _is_number_line(tokens) else
                              "numbers where a set name or End was expected")
        if len(tokens) > 1:
            raise lines.error(number, f"a set name stands alone on its line in a {kind} block")
        index = names.index(tokens[0])
        if index in entries:
            raise lines.error(number, f"set {tokens[0]} given twice in this {kind} block")
        entries[index] = _entry(lines, sets[index], number, wild)


class _Reader:
    """What the file has declared so far, keyword by keyword."""

    def __init__(self, lines):
        self.lines = lines
        self.name, self.sets, self.solved, self.moves = "", [], None, []
        self.sequences, self.illegal = [], []  # (kind, name, line, tokens), (line, tokens)

    def read(self, number, tokens):
        word = tokens[0]
        handler = {"Name": self.read_name, "Set": self.read_set, "Solved": self.read_solved,
                   "StartState": self.read_solved, "Move": self.read_move,
                   "MoveTransformation": self.read_move, "MoveSequence": self.read_sequence,
                   "MoveAlias": self.read_sequence, "Illegal": self.read_illegal}.get(word)
        if handler is None:
            raise self.lines.error(number, f"{word!r} is not a keyword of the format "
                                   f"(puzzledb reads {', '.join(KEYWORDS)})")
        if word not in ("Name", "Set") and not self.sets:
            raise self.lines.error(number, f"{word} before any Set")
        handler(number, tokens)

    def read_name(self, number, tokens):
        self.name = " ".join(tokens[1:])

    def read_set(self, number, tokens):
        if self.solved is not None or self.moves:
            raise self.lines.error(number, "Set lines come before Solved and Move blocks")
        if len(tokens) != 4:
            raise self.lines.error(number, "Set takes a name, a piece count and a number of "
                                   "orientations")
        if tokens[1] in [s.name for s in self.sets]:
            raise self.lines.error(number, f"set {tokens[1]} declared twice")
        size, orientations = _numbers(self.lines, number, tokens[2:], 2, "Set")
        if size < 1 or orientations < 1:
            raise self.lines.error(number, "a set has at least one piece and one orientation")
        self.sets.append(PieceSet(tokens[1], size, orientations))

    def read_solved(self, number, tokens):
        if self.solved is not None:
            raise self.lines.error(number, "a second Solved block")
        if len(tokens) > 1:
            raise self.lines.error(number, f"{tokens[0]} takes nothing after it")
        entries = _block(self.lines, self.sets, number, tokens[0], wild=True)
        if tokens[0] == "StartState":  # twsearch's new style: pieces numbered from 0
            entries = {s: (line, [p + 1 for p in perm], oris)
                       for s, (line, perm, oris) in entries.items()}
        self.solved = (number, entries)

    def read_move(self, number, tokens):
        if len(tokens) != 2:
            raise self.lines.error(number, f"{tokens[0]} takes one name")
        name = _check_name(self.lines, number, tokens[1], self.declared())
        entries = _block(self.lines, self.sets, number, f"Move {name}")
        self.moves.append(_move(self.lines, self.sets, number, name, entries,
                                new_style=tokens[0] == "MoveTransformation"))

    def read_sequence(self, number, tokens):
        if len(tokens) < 3 or (tokens[0] == "MoveAlias" and len(tokens) != 3):
            raise self.lines.error(number, f"{tokens[0]} takes a name and "
                                   + ("the move it names" if tokens[0] == "MoveAlias"
                                      else "the moves it makes"))
        name = _check_name(self.lines, number, tokens[1], self.declared())
        self.sequences.append((tokens[0], name, number, tokens[2:]))

    def read_illegal(self, number, tokens):
        if len(tokens) < 4:
            raise self.lines.error(number, "Illegal takes a set, a slot and one or more "
                                   "pieces that never stand there")
        self.illegal.append((number, tokens))

    def declared(self):
        return [m.name for m in self.moves] + [s[1] for s in self.sequences]


def _check_name(lines, number, name, declared):
    if name in declared:
        raise lines.error(number, f"move {name} declared twice")
    if any(c in name for c in ",|/?"):
        raise lines.error(number, f"move name {name!r}: a move name has none of , | / ?")
    return name


def parse(text, source="definition", key="file"):
    """The Definition a ksolve/twsearch text declares; DefinitionError(key, 'SOURCE line
    N: ...') at the first line it cannot read (key: the definition's parameter that holds
    the text, `file` or `text`)."""
    lines = _Lines(text, source, key)
    reader = _Reader(lines)
    while True:
        number, tokens = lines.take()
        if tokens is None:
            break
        reader.read(number, tokens)
    if not reader.sets:
        raise DefinitionError(key, f"{source}: no Set declared")
    sets = tuple(reader.sets)
    solved = _solved(lines, sets, reader.solved)
    base = [m for m in reader.moves if not is_rotation(m.name)]
    rotations = [m for m in reader.moves if is_rotation(m.name)]
    generators, rotations, aliases = _sequences(lines, sets, base, rotations,
                                                reader.sequences)
    if not generators:
        raise DefinitionError(key, f"{source}: no Move declared (rotations such as x, y, z "
                                   f"and Fv are not generators)")
    illegal = _illegal(lines, sets, solved, reader.illegal)
    return Definition(reader.name, sets, solved, tuple(generators), tuple(rotations),
                      tuple(aliases), illegal)


def _move(lines, sets, start, name, entries, new_style=False):
    """A Move block: a set it leaves out is unchanged (as twsearch reads it).  new_style
    (MoveTransformation): slots numbered from 0, orientation changes by target slot."""
    perms, twists = [], []
    for index, piece_set in enumerate(sets):
        if index not in entries:
            perms.append(tuple(range(piece_set.size)))
            twists.append((0,) * piece_set.size)
            continue
        line, perm, oris = entries[index]
        low = 0 if new_style else 1
        if sorted(perm) != list(range(low, piece_set.size + low)):
            raise lines.error(line, f"move {name}: set {piece_set.name}'s line is not a "
                              f"permutation of {low}..{piece_set.size - 1 + low}")
        perm = tuple(p - low for p in perm)
        twist = tuple(oris) if oris else (0,) * piece_set.size
        if new_style:
            by_source = [0] * piece_set.size
            for i, t in enumerate(twist):
                by_source[perm[i]] = t
            twist = tuple(by_source)
        perms.append(perm)
        twists.append(twist)
    move = Move(name, start, tuple(perms), tuple(twists))
    if move.perms == identity(sets).perms and move.twists == identity(sets).twists:
        raise lines.error(start, f"move {name} moves nothing")
    return move


def _sequences(lines, sets, generators, rotations, sequences):
    """MoveSequence and MoveAlias resolved, in any order (one may use another declared
    after it), as twsearch does: (generators, rotations, aliases)."""
    generators, rotations, aliases = list(generators), list(rotations), []
    waiting = list(sequences)
    while waiting:
        known = Definition("", sets, (), tuple(generators), tuple(rotations),
                           tuple(aliases)).named_moves()
        ready = [s for s in waiting if all(t in known for t in s[3])]
        if not ready:
            kind, name, number, tokens = waiting[0]
            missing = next(t for t in tokens if t not in known)
            raise lines.error(number, f"{kind} {name}: {missing!r} is not a move (nor a "
                              f"power, rotation or sequence of them)")
        for kind, name, number, tokens in ready:
            waiting.remove((kind, name, number, tokens))
            move = identity(sets, name, number)
            for token in tokens:
                move = compose(sets, move, known[token], name, number)
            if kind == "MoveAlias":
                aliases.append(move)
            elif move.perms == identity(sets).perms and move.twists == identity(sets).twists:
                raise lines.error(number, f"MoveSequence {name} moves nothing")
            else:
                (rotations if is_rotation(name) else generators).append(move)
    return generators, rotations, aliases


def _solved(lines, sets, solved):
    """Per set (labels, orientations); a set the Solved block leaves out, or no block, is
    the identity.  Piece numbers need not be contiguous; identical pieces (one number) are
    all `?` or none."""
    entries = solved[1] if solved else {}
    out = []
    for index, piece_set in enumerate(sets):
        if index not in entries:
            out.append((tuple(range(1, piece_set.size + 1)), (0,) * piece_set.size))
            continue
        line, labels, oris = entries[index]
        oris = list(oris) if oris else [0] * piece_set.size
        if piece_set.orientations == 1:
            oris = [0] * piece_set.size  # `?` of a set without orientations: nothing
        for label in set(labels):
            wild = {oris[i] == WILD for i in range(piece_set.size) if labels[i] == label}
            if len(wild) > 1:
                raise lines.error(line, f"Solved: set {piece_set.name}'s identical pieces "
                                  f"{label} have a ? orientation on some and not others")
        if 0 in labels:
            raise lines.error(line, f"Solved: set {piece_set.name}'s pieces are numbered "
                              f"from 1")
        out.append((tuple(labels), tuple(oris)))
    return tuple(out)


def _illegal(lines, sets, solved, rules):
    """Illegal SET SLOT PIECE ...: (set, slot, label) triples; the solved state obeys
    them."""
    names = [s.name for s in sets]
    out = []
    for number, tokens in rules:
        if tokens[1] not in names:
            raise lines.error(number, f"Illegal: {tokens[1]!r} is not a set (sets: "
                              f"{', '.join(names)})")
        s = names.index(tokens[1])
        slot, *pieces = _numbers(lines, number, tokens[2:], len(tokens) - 2, "Illegal")
        if not 1 <= slot <= sets[s].size:
            raise lines.error(number, f"Illegal: slot {slot} out of range for set "
                              f"{tokens[1]} (1..{sets[s].size})")
        for piece in pieces:
            if solved[s][0][slot - 1] == piece:
                raise lines.error(number, f"Illegal: piece {piece} stands in slot {slot} of "
                                  f"set {tokens[1]} in the solved state")
            out.append((s, slot - 1, piece))
    return tuple(sorted(set(out)))
