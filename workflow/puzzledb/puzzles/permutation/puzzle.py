"""Permutation puzzles declared in the ksolve / twsearch text format (definition.py): twisty
puzzles and any other puzzle whose moves permute and twist pieces.

The rank is factored.  The slots of each set fall into orbits (the slots the moves can carry
a piece between); a piece never leaves its orbit, so each orbit contributes its own
components: the arrangement of its pieces (a permutation rank; half of it when every move
is an even permutation of the orbit; a multiset rank when the orbit holds identical pieces)
and its orientations in base k (one digit fewer when every move keeps the orbit's
orientation sum).  Under the twsearch convention a move changes each component as a
function of that component alone, so a move is a table look-up per component.  Small
components are grouped into blocks of at most BLOCK_MAX values with a table of their own,
and rank = (high blocks, mixed radix) * L + low block: the kernels (kernels.py) decode the
high part once per row of L ranks and then apply a move to a state with one look-up.

The rank space is the product of the components: it equals the reachable set when the
moves generate every arrangement and orientation the constraints above allow (the 2x2x2,
the corners of the 3x3x3, the pyraminx), and is larger when they tie components together
(a cube's corner and edge parities, the skewb's corner twists); `puzzledb info` says which
(Puzzle.rank_space), and the built database gives the states reached.
"""

from collections import namedtuple
from math import factorial, prod
from pathlib import Path

import numpy as np

from puzzledb.errors import BoardError, DefinitionError
from puzzledb.puzzles.base import Puzzle
from puzzledb.puzzles.permutation import definition as ksolve
from puzzledb.puzzles.permutation.ranks import (
    Component,
    component_rows,
    component_values,
    local_parity,
    multinomial,
    orbits,
    parity_rows,
)

METRICS = ("htm", "qtm")
BLOCK_MAX = 4096  # values of a block of components with a table of its own
MAX_COMPONENT = 1 << 21  # values of one component: its move table holds them all
MAX_TABLE_BYTES = 512 << 20
MAX_RANKS = 1 << 62

# The kernels' data: the low block's table (value * moves + move -> value, and the same by
# move: move * L + value), the high blocks' tables one after another (offset, radix, weight
# in rows), the size of a row (L) and of the whole space.
PermutationTables = namedtuple(
    "PermutationTables",
    "lo_table lo_moves lo_size moves hi_tables hi_offset hi_radix hi_weight size")


def power_names(name, order):
    """The names of the powers 1..order-1 of a move: R, R2, R' for a quarter turn."""
    out = []
    for k in range(1, order):
        if 2 * k <= order:
            out.append(name + (str(k) if k > 1 else ""))
        else:
            out.append(name + (str(order - k) if order - k > 1 else "") + "'")
    return out


class PermutationPuzzle(Puzzle):
    family = "permutation"
    kernels = "puzzledb.puzzles.permutation.kernels"

    def __init__(self, name, file=None, text=None, metric="htm", description=""):
        self.name = name
        if (file is None) == (text is None):
            raise DefinitionError("file", "give the definition as file: (a ksolve/twsearch "
                                  "file, relative to the config) or as text:, one of them")
        if file is not None:
            path = Path(file)
            try:
                source_text = path.read_text()
            except OSError as err:
                raise DefinitionError("file", f"cannot read {file}: {err.strerror}") from None
            self.spec = ksolve.parse(source_text, path.name, "file")
        else:
            self.spec = ksolve.parse(str(text), "text", "text")
        if metric not in METRICS:
            raise DefinitionError("metric", f"{metric!r}: the metric is htm (every power of a "
                                  f"move is one move) or qtm (a move and its inverse)")
        self.metric = metric
        self.sets = self.spec.sets
        self.offsets = np.cumsum([0] + [2 * s.size for s in self.sets]).tolist()
        self.cells = self.offsets[-1]
        self.width = self.cells
        self.goal = self._solved_board()
        self._make_moves()
        self._make_components()
        self.description = description or (
            f"{self.spec.name or name}: permutation puzzle, {len(self.spec.moves)} moves "
            f"({self.metric.upper()}, {self.max_moves} in all), {self.size:,} ranks")

    # -- the moves ---------------------------------------------------------------------------
    def _solved_board(self):
        board = np.zeros(self.cells, dtype=np.int64)
        for s, (labels, oris) in enumerate(self.spec.solved):
            n = self.sets[s].size
            board[self.offsets[s]:self.offsets[s] + n] = labels
            board[self.offsets[s] + n:self.offsets[s + 1]] = oris
        return board

    def apply(self, board, move):
        """The board after one base move of the definition (a ksolve.Move)."""
        out = board.copy()
        for s, piece_set in enumerate(self.sets):
            n, o = piece_set.size, self.offsets[s]
            perm = np.array(move.perms[s])
            labels, oris = board[o:o + n], board[o + n:o + 2 * n]
            out[o:o + n] = labels[perm]
            out[o + n:o + 2 * n] = (oris[perm] + np.array(move.twists[s])[perm]) % \
                piece_set.orientations
        return out

    def _make_moves(self):
        """self.moves: (name, base move index, power), in the metric's set of moves."""
        identity = np.concatenate([np.concatenate([np.arange(1, s.size + 1),
                                                   np.zeros(s.size, dtype=np.int64)])
                                   for s in self.sets]).astype(np.int64)
        self.moves = []
        self.orders = []
        for b, move in enumerate(self.spec.moves):
            board, order = self.apply(identity, move), 1
            while not np.array_equal(board, identity):
                board, order = self.apply(board, move), order + 1
            if order == 1:
                raise DefinitionError("file", f"move {move.name} (line {move.line}) moves "
                                      f"nothing")
            self.orders.append(order)
            names = power_names(move.name, order)
            powers = range(1, order) if self.metric == "htm" else sorted({1, order - 1})
            self.moves += [(names[k - 1], b, k) for k in powers]
        self.max_moves = len(self.moves)
        self.move_names = [m[0] for m in self.moves]

    # -- the rank: components, blocks, tables --------------------------------------------------
    def _make_components(self):
        components = []
        for s, piece_set in enumerate(self.sets):
            labels, oris = self.spec.solved[s]
            perms = [m.perms[s] for m in self.spec.moves]
            twists = [m.twists[s] for m in self.spec.moves]
            k = piece_set.orientations
            for orbit in orbits(piece_set.size, perms):
                pieces = [labels[i] for i in orbit]
                if len(orbit) > 1 and len(set(pieces)) > 1:
                    kinds = sorted(set(pieces))
                    classes = tuple(kinds.index(p) for p in pieces)
                    counts = tuple(pieces.count(x) for x in kinds)
                    where = {slot: i for i, slot in enumerate(orbit)}
                    if len(kinds) < len(orbit):
                        components.append(Component("multiset", s, orbit,
                                                    multinomial(counts), classes, counts))
                    elif all(local_parity([where[p[i]] for i in orbit]) == 0 for p in perms):
                        parity = int(parity_rows(np.array([classes]))[0])
                        components.append(Component("even", s, orbit,
                                                    factorial(len(orbit)) // 2, classes,
                                                    counts, parity=parity))
                    else:
                        components.append(Component("perm", s, orbit, factorial(len(orbit)),
                                                    classes, counts))
                live = len(orbit) > 1 or any(t[orbit[0]] for t in twists)
                if k > 1 and live:
                    kept = all(sum(t[i] for i in orbit) % k == 0 for t in twists)
                    digits = len(orbit) - 1 if kept else len(orbit)
                    components.append(Component("ori", s, orbit, k ** digits, k=k,
                                                digits=digits,
                                                total=sum(oris[i] for i in orbit) % k))
        for c in components:
            if c.count > MAX_COMPONENT:
                raise DefinitionError("file", f"{c.describe(self.sets)}: {c.count:,} values, "
                                      f"more than the {MAX_COMPONENT:,} a move table takes")
        self.components = components
        self.size = prod(c.count for c in components)
        if self.size > MAX_RANKS:
            raise DefinitionError("file", f"{self.size:,} ranks: more than 2^62")
        # blocks: the components in ascending size, grouped while a block stays small
        blocks = []
        for c in sorted(components, key=lambda c: c.count):
            if blocks and prod(x.count for x in blocks[-1]) * c.count <= BLOCK_MAX:
                blocks[-1].append(c)
            else:
                blocks.append([c])
        if not blocks:
            blocks = [[]]
        sizes = [prod(x.count for x in b) for b in blocks]
        # the low block: the largest up to BLOCK_MAX (rows that stay in the cache), else
        # the smallest
        small = [i for i, n in enumerate(sizes) if n <= BLOCK_MAX]
        low = max(small, key=lambda i: sizes[i]) if small else min(range(len(blocks)),
                                                                   key=lambda i: sizes[i])
        self.blocks = [b for i, b in enumerate(blocks) if i != low] + [blocks[low]]
        self.block_sizes = [prod(x.count for x in b) for b in self.blocks]
        self.lo_size = self.block_sizes[-1]
        # each component's weight in the whole rank
        weight = 1
        self.weights = {}
        for block in reversed(self.blocks):
            for c in reversed(block):
                self.weights[id(c)] = weight
                weight *= c.count
        table_bytes = 4 * self.max_moves * sum(self.block_sizes)
        if table_bytes > MAX_TABLE_BYTES:
            raise DefinitionError("file", f"move tables of {table_bytes >> 20:,} MiB: more "
                                  f"than {MAX_TABLE_BYTES >> 20} MiB")

    def _component_tables(self, c):
        """value -> value under each move of the metric: an int64 array (moves, count)."""
        values = np.arange(c.count, dtype=np.int64)
        rows = component_rows(c, values)
        where = {slot: i for i, slot in enumerate(c.slots)}
        base = []
        for move in self.spec.moves:
            perm = move.perms[c.set]
            local = np.array([where[perm[slot]] for slot in c.slots], dtype=np.int64)
            moved = rows[:, local]
            if c.kind == "ori":
                twist = np.array([move.twists[c.set][slot] for slot in c.slots])
                moved = (moved + twist[local]) % c.k
            base.append(component_values(c, moved))
        out = np.empty((self.max_moves, c.count), dtype=np.int64)
        for m, (_, b, power) in enumerate(self.moves):
            table = values
            for _ in range(power):
                table = base[b][table]
            out[m] = table
        return out

    def _block_table(self, block):
        """value of the block -> value under each move, as int32 (value * moves + move)."""
        count = prod(c.count for c in block)
        values = np.arange(count, dtype=np.int64)
        out = np.zeros((count, self.max_moves), dtype=np.int64)
        weight = 1
        for c in reversed(block):
            digit = (values // weight) % c.count
            out += self._component_tables(c).T[digit] * weight
            weight *= c.count
        return out.astype(np.int32).ravel()

    def make_tables(self):
        hi = self.blocks[:-1]
        tables = [self._block_table(b) for b in hi]
        offsets = np.cumsum([0] + [t.size for t in tables])[:-1].astype(np.int64)
        weights, w = [], 1
        for n in reversed(self.block_sizes[:-1]):
            weights.append(w)
            w *= n
        low = self._block_table(self.blocks[-1])
        return PermutationTables(
            low, np.ascontiguousarray(low.reshape(-1, self.max_moves).T).ravel(),
            np.int64(self.lo_size),
            np.int64(self.max_moves),
            np.concatenate(tables) if tables else np.zeros(1, dtype=np.int32), offsets,
            np.array(self.block_sizes[:-1], dtype=np.int64),
            np.array(weights[::-1], dtype=np.int64), np.int64(self.size))

    @property
    def work_size(self):
        return max(len(self.blocks), 1)

    def expansion_bytes(self):
        return 4 * self.max_moves * (sum(self.block_sizes) + self.lo_size)

    def layer_expansion(self):
        return self.compiled.RowExpansion(self.tables())

    def definition(self):
        # the parsed definition, not the file's name or text: comments and layout do not
        # change the hash, a changed move does ("puzzle" is the hash's key for the name)
        return {"family": "permutation", "metric": self.metric,
                "sets_and_moves": self.spec.as_data(), "ranking": "permutation-orbits/1"}

    def rank_space(self):
        groups = {}  # equal factors (a set's slots that twist in place) said once
        for c in self.components:
            key = (c.count, c.describe(self.sets))
            groups[key] = groups.get(key, 0) + 1
        parts = " x ".join(f"{count:,} ({what})" if n == 1 else
                           f"{count:,}^{n} ({n} orbits: {what})"
                           for (count, what), n in groups.items())
        return f"{self.size:,} ranks = {parts or '1'}; the states reached are the database's"

    # -- boards --------------------------------------------------------------------------------
    def format(self, board):
        parts = []
        for s, piece_set in enumerate(self.sets):
            n, o = piece_set.size, self.offsets[s]
            text = f"{piece_set.name} " + " ".join(str(x) for x in board[o:o + n])
            if piece_set.orientations > 1:
                text += " / " + " ".join(str(x) for x in board[o + n:o + 2 * n])
            parts.append(text)
        return " | ".join(parts)

    def parse(self, text):
        """A board as format writes it (each set's name, its pieces by slot and, after /,
        their orientations; sets in any order, a set left out is solved), or a sequence of
        moves applied to the solved state (e.g. "R U' F2")."""
        tokens = str(text).replace("|", " ").replace(",", " ").split()
        if not tokens:
            raise BoardError(f"{self.name}: empty board")
        names = [s.name for s in self.sets]
        if tokens[0] not in names:
            return self._after_moves(text, tokens)
        board = self.goal.copy()
        i = 0
        while i < len(tokens):
            if tokens[i] not in names:
                raise BoardError(f"{self.name}: board {text!r}: {tokens[i]!r} where a set "
                                 f"name ({', '.join(names)}) was expected")
            s = names.index(tokens[i])
            n, o = self.sets[s].size, self.offsets[s]
            labels = tokens[i + 1:i + 1 + n]
            i += 1 + n
            oris = None
            if i < len(tokens) and tokens[i] == "/":
                oris = tokens[i + 1:i + 1 + n]
                i += 1 + n
            for what, values, at in (("pieces", labels, o), ("orientations", oris, o + n)):
                if values is None:
                    continue
                if len(values) != n or not all(v.isdigit() for v in values):
                    raise BoardError(f"{self.name}: board {text!r}: set {names[s]} needs "
                                     f"{n} {what}, numbers")
                board[at:at + n] = [int(v) for v in values]
        self._check(board, text)
        return board

    def _after_moves(self, text, tokens):
        by_name = {}
        for b, move in enumerate(self.spec.moves):
            for k, name in enumerate(power_names(move.name, self.orders[b]), 1):
                by_name[name] = (b, k)
        board = self.goal.copy()
        for token in tokens:
            if token not in by_name:
                raise BoardError(f"{self.name}: board {text!r}: {token!r} is neither a set "
                                 f"name nor a move ({', '.join(sorted(by_name))})")
            b, k = by_name[token]
            for _ in range(k):
                board = self.apply(board, self.spec.moves[b])
        return board

    def _check(self, board, text):
        """BoardError unless the board is one the rank numbers: pieces of the solved
        state's kinds, each orbit holding its own pieces, the kept parities and sums."""
        def unreachable(why):
            return BoardError(f"{self.name}: board {text!r} is unreachable: {why}")

        for s, piece_set in enumerate(self.sets):
            n, o = piece_set.size, self.offsets[s]
            labels, oris = board[o:o + n], board[o + n:o + 2 * n]
            if (oris >= piece_set.orientations).any():
                raise BoardError(f"{self.name}: board {text!r}: set {piece_set.name} has "
                                 f"orientations 0..{piece_set.orientations - 1}")
            solved_labels, solved_oris = self.spec.solved[s]
            if sorted(labels.tolist()) != sorted(solved_labels):
                raise unreachable(f"set {piece_set.name} holds other pieces than solved")
        for s, piece_set in enumerate(self.sets):
            perms = [m.perms[s] for m in self.spec.moves]
            o, n = self.offsets[s], piece_set.size
            for orbit in orbits(n, perms):
                solved_labels, solved_oris = self.spec.solved[s]
                here = sorted(int(board[o + i]) for i in orbit)
                if here != sorted(solved_labels[i] for i in orbit):
                    raise unreachable(f"set {piece_set.name}: slots {[i + 1 for i in orbit]} "
                                      f"cannot hold pieces {here}")
                kinds = [c.kind for c in self.components if (c.set, c.slots) == (s, orbit)]
                if "ori" not in kinds and any(board[o + n + i] != solved_oris[i]
                                              for i in orbit):
                    raise unreachable(f"set {piece_set.name}: slot {orbit[0] + 1}'s "
                                      f"orientation never changes")
        for c in self.components:
            o, n = self.offsets[c.set], self.sets[c.set].size
            if c.kind == "even":
                row = self._class_row(c, board)
                if int(parity_rows(row[None, :])[0]) != c.parity:
                    raise unreachable(f"set {self.sets[c.set].name}: an odd permutation of "
                                      f"slots {[i + 1 for i in c.slots]} (every move is even)")
            if c.kind == "ori" and c.digits < len(c.slots):
                total = sum(int(board[o + n + i]) for i in c.slots) % c.k
                if total != c.total:
                    raise unreachable(f"set {self.sets[c.set].name}: orientations of slots "
                                      f"{[i + 1 for i in c.slots]} sum to {total} mod {c.k}, "
                                      f"every move keeps {c.total}")

    def _class_row(self, c, board):
        o = self.offsets[c.set]
        solved = self.spec.solved[c.set][0]
        kinds = sorted({solved[i] for i in c.slots})
        return np.array([kinds.index(int(board[o + i])) for i in c.slots], dtype=np.int64)

    def _component_row(self, c, board):
        if c.kind == "ori":
            o = self.offsets[c.set] + self.sets[c.set].size
            return np.array([board[o + i] for i in c.slots], dtype=np.int64)
        return self._class_row(c, board)

    def rank(self, board):
        board = np.asarray(board, dtype=np.int64)
        return int(sum(int(component_values(c, self._component_row(c, board)[None, :])[0])
                       * self.weights[id(c)] for c in self.components))

    def unrank(self, rank, level=0):
        self.check_rank(rank, level)
        board = self.goal.copy()
        for c in self.components:
            value = (int(rank) // self.weights[id(c)]) % c.count
            row = component_rows(c, [value])[0]
            o = self.offsets[c.set]
            if c.kind == "ori":
                o += self.sets[c.set].size
                for i, slot in enumerate(c.slots):
                    board[o + slot] = row[i]
            else:
                solved = self.spec.solved[c.set][0]
                kinds = sorted({solved[i] for i in c.slots})
                for i, slot in enumerate(c.slots):
                    board[o + slot] = kinds[row[i]]
        return board

    # -- routes ---------------------------------------------------------------------------------
    def route_moves(self, ranks):
        """The names of the moves that take each rank of a path to the next."""
        out = []
        for a, b in zip(ranks, ranks[1:]):
            following = self.neighbours(int(a))
            out.append(self.move_names[following.index(int(b))])
        return out
