"""Boards of a permutation puzzle: the int64 array of each set's pieces by slot then their
orientations, its board string (`CORNERS 1 2 3 ... / 0 0 0 ... | EDGES ...`), a move
sequence from the solved state (`R U' F2`, rotations and aliases too), and the checks
that a board is one the rank numbers (each orbit holding its own pieces, the kept parities
and sums, no piece where it never stands)."""

import numpy as np

from puzzledb.errors import BoardError
from puzzledb.puzzles.permutation.definition import WILD
from puzzledb.puzzles.permutation.ranks import character, orbits
from puzzledb.puzzles.permutation.rows import legal_rows, parity_rows


class Boards:
    """What board strings mean for one definition (spec) and its components."""

    def __init__(self, name, spec, components):
        self.name = name
        self.spec = spec
        self.sets = spec.sets
        self.components = components
        self.offsets = np.cumsum([0] + [2 * s.size for s in self.sets]).tolist()
        self.cells = self.offsets[-1]
        self.named = spec.named_moves()
        self.solved = self._solved()
        # (index, component) of each coupled orbit, and the solved characters its rule reads
        self.coupled = [(j, c) for j, c in enumerate(components) if c.twin is not None]
        needed = {i for j, c in self.coupled for i in (j, *c.rule)}
        self._solved_characters = {i: self._character(components[i], self.solved)
                                   for i in needed}

    def _solved(self):
        board = np.zeros(self.cells, dtype=np.int64)
        for s, (labels, oris) in enumerate(self.spec.solved):
            n, o = self.sets[s].size, self.offsets[s]
            board[o:o + n] = labels
            board[o + n:o + 2 * n] = [max(x, 0) for x in oris]  # a `?` twist reads 0
        return board

    def apply(self, board, move):
        """The board after one move (a definition Move)."""
        out = board.copy()
        for s, piece_set in enumerate(self.sets):
            n, o = piece_set.size, self.offsets[s]
            perm = np.array(move.perms[s])
            labels, oris = board[o:o + n], board[o + n:o + 2 * n]
            out[o:o + n] = labels[perm]
            out[o + n:o + 2 * n] = (oris[perm] + np.array(move.twists[s])[perm]) % \
                piece_set.orientations
        return self.normal(out)

    def normal(self, board):
        """The board with the orientations of `?`-twist pieces read as 0."""
        for s, (labels, oris) in enumerate(self.spec.solved):
            wild = {label for label, o in zip(labels, oris) if o == WILD}
            if wild:
                n, o = self.sets[s].size, self.offsets[s]
                board[o + n:o + 2 * n][np.isin(board[o:o + n], list(wild))] = 0
        return board

    # -- strings ------------------------------------------------------------------------------
    def format(self, board):
        parts = []
        for s, piece_set in enumerate(self.sets):
            n, o = piece_set.size, self.offsets[s]
            text = f"{piece_set.name} " + " ".join(str(x) for x in board[o:o + n])
            if piece_set.orientations > 1:
                wild = self._wild_labels(s)
                text += " / " + " ".join("?" if board[o + i] in wild else str(board[o + n + i])
                                         for i in range(n))
            parts.append(text)
        return " | ".join(parts)

    def _wild_labels(self, s):
        labels, oris = self.spec.solved[s]
        return {label for label, o in zip(labels, oris) if o == WILD}

    def parse(self, text):
        """A board as format writes it (each set's name, its pieces by slot and, after /,
        their orientations; sets in any order, a set left out is solved), or a sequence of
        moves applied to the solved state (e.g. "R U' F2")."""
        tokens = str(text).replace("|", " ").replace(",", " ").split()
        if not tokens:
            raise BoardError(f"{self.name}: empty board")
        names = [s.name for s in self.sets]
        if tokens[0] not in names:
            return self.after_moves(text, tokens)
        board = self.solved.copy()
        for s, labels, oris in self.set_entries(text, tokens, "board"):
            self._fill(board, text, s, labels, oris)
        self.check(board, text)
        return self.normal(board)

    def set_entries(self, text, tokens, what):
        """The sets a board (or pattern) string lists: (set index, its piece tokens, its
        orientation tokens or None) for each."""
        names = [s.name for s in self.sets]
        out, i = [], 0
        while i < len(tokens):
            if tokens[i] not in names:
                raise BoardError(f"{self.name}: {what} {text!r}: {tokens[i]!r} where a set "
                                 f"name ({', '.join(names)}) was expected")
            s = names.index(tokens[i])
            n = self.sets[s].size
            labels, i = tokens[i + 1:i + 1 + n], i + 1 + n
            oris = None
            if i < len(tokens) and tokens[i] == "/":
                oris, i = tokens[i + 1:i + 1 + n], i + 1 + n
            out.append((s, labels, oris))
        return out

    def _fill(self, board, text, s, labels, oris):
        n, o = self.sets[s].size, self.offsets[s]
        for what, values, at in (("pieces", labels, o), ("orientations", oris, o + n)):
            if values is None:
                continue
            wild_ok = what == "orientations"
            if len(values) != n or not all(v.isdigit() or (wild_ok and v == "?")
                                           for v in values):
                raise BoardError(f"{self.name}: board {text!r}: set {self.sets[s].name} "
                                 f"needs {n} {what}, numbers")
            board[at:at + n] = [int(v) if v != "?" else WILD for v in values]

    def after_moves(self, text, tokens):
        board = self.solved.copy()
        for token in tokens:
            if token not in self.named:
                raise BoardError(f"{self.name}: board {text!r}: {token!r} is neither a set "
                                 f"name nor a move ({', '.join(sorted(self.named))})")
            board = self.apply(board, self.named[token])
        self.check(board, text)
        return board

    # -- what the rank numbers ------------------------------------------------------------------
    def check(self, board, text):
        """BoardError unless the board is one the rank numbers: pieces of the solved
        state's kinds, each orbit holding its own pieces, the kept parities and sums."""
        def unreachable(why):
            return BoardError(f"{self.name}: board {text!r} is unreachable: {why}")

        for s, piece_set in enumerate(self.sets):
            self._check_set(board, text, s, unreachable)
        for j, c in enumerate(self.components):
            classes, oris = self.rows(c, board)
            name, slots = self.sets[c.set].name, [i + 1 for i in c.slots]
            if c.kind == "even" and int(parity_rows(classes)[0]) != c.parity:
                raise unreachable(f"set {name}: an odd permutation of slots {slots} (every "
                                  f"move is even)")
            if c.kind == "ori" and c.digits < len(c.slots):
                total = int(oris.sum()) % c.k
                if total != c.total:
                    raise unreachable(f"set {name}: orientations of slots {slots} sum to "
                                      f"{total} mod {c.k}, every move keeps {c.total}")
            if c.illegal and not legal_rows(c, classes)[0]:
                raise unreachable(f"set {name}: a piece in a slot where it never stands "
                                  f"(Illegal)")
            if c.twin is not None and self._character(c, board) != self._wanted(j, c, board):
                raise unreachable(f"set {name}: slots {slots} hold their pieces in an order "
                                  f"whose parity the other orbits rule out (the moves change "
                                  f"their parities together)")

    def _check_set(self, board, text, s, unreachable):
        piece_set = self.sets[s]
        n, o = piece_set.size, self.offsets[s]
        labels, oris = board[o:o + n], board[o + n:o + 2 * n]
        solved_labels, solved_oris = self.spec.solved[s]
        wild = np.isin(labels, list(self._wild_labels(s)))
        if (oris[~wild] >= piece_set.orientations).any() or (oris[~wild] < 0).any():
            raise BoardError(f"{self.name}: board {text!r}: set {piece_set.name} has "
                             f"orientations 0..{piece_set.orientations - 1} (? only for a "
                             f"piece whose twist is ?)")
        if sorted(labels.tolist()) != sorted(solved_labels):
            raise unreachable(f"set {piece_set.name} holds other pieces than solved")
        moves = [m.perms[s] for m in self.spec.moves]
        twisted = {slot for c in self.components if c.set == s and c.kind in ("ori", "wild")
                   for slot in c.slots}
        for orbit in orbits(n, moves):
            here = sorted(int(board[o + i]) for i in orbit)
            if here != sorted(solved_labels[i] for i in orbit):
                raise unreachable(f"set {piece_set.name}: slots {[i + 1 for i in orbit]} "
                                  f"cannot hold pieces {here}")
            if orbit[0] not in twisted and any(board[o + n + i] != max(solved_oris[i], 0)
                                               and not wild[i] for i in orbit):
                raise unreachable(f"set {piece_set.name}: slot {orbit[0] + 1}'s "
                                  f"orientation never changes")

    def rows(self, c, board):
        """The component's slots of the board: (classes, orientations), one row each."""
        o = self.offsets[c.set]
        n = self.sets[c.set].size
        classes = [c.class_of(int(board[o + i])) if c.labels else 0 for i in c.slots]
        oris = [int(board[o + n + i]) for i in c.slots]
        return (np.array([classes], dtype=np.int64), np.array([oris], dtype=np.int64))

    def place(self, c, classes, oris, board):
        """Write the component's slots (classes, orientations: one row) into the board."""
        o = self.offsets[c.set]
        n = self.sets[c.set].size
        for i, slot in enumerate(c.slots):
            if c.kind != "ori":
                board[o + slot] = c.labels[classes[i]]
            if c.kind in ("ori", "wild"):
                board[o + n + slot] = oris[i]

    def settle(self, board):
        """After place() of every component: the two pieces of each coupled orbit (placed
        as one class, both with its first label) told apart, in the order its parity rule
        gives (ranks.couple)."""
        for j, c in self.coupled:
            o = self.offsets[c.set]
            first, second = [o + i for i in c.slots if board[o + i] == c.labels[-1]]
            board[second] = c.twin
            if self._character(c, board) != self._wanted(j, c, board):
                board[first], board[second] = c.twin, c.labels[-1]
        return board

    def _character(self, c, board):
        """A component's character (ranks.character) on the board; a coupled orbit's with
        its two pieces apart."""
        if c.twin is None:
            return int(character(c, *self.rows(c, board))[0])
        o = self.offsets[c.set]
        pieces = c.labels + (c.twin,)
        classes = np.array([[pieces.index(int(board[o + i])) for i in c.slots]])
        return int(character(c, classes, None)[0])

    def _wanted(self, j, c, board):
        """The character the rule of coupled orbit c (component j) gives it on the board."""
        wanted = self._solved_characters[j]
        for i in c.rule:
            wanted ^= self._character(self.components[i], board) ^ self._solved_characters[i]
        return wanted
