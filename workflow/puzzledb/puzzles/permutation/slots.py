"""A permutation puzzle's position as one small value per slot, (class << shift) +
orientation (shift: the bits of k - 1, so that the kernels split a value without a
division): the class of its piece among its orbit's kinds (0 for an orbit of one kind) and its
orientation (0 for a `?` twist; the solved one where the orbit's never changes), the form
in which symmetry_kernels.py moves, conjugates and compares positions.

Positions as labellings of points.  A point is (slot, orientation) as group.move_points
numbers them, and the solved labelling gives point (h, f) the label (orbit, piece, f - o_h)
(o_h the solved orientation; `?` for a `?` twist: definition_points).  A position P labels
point (i, e) with (orbit, its piece at i, e - o_i).  A move X makes P o X^-1; a symmetry s
(a point map that keeps the labels' classes, automorphisms.py) makes l o P o s^-1, l the
relabelling with l(L(p)) = L(s(p)).  Either moves each slot's value as a function of one
slot's value: a *slot map*, out[j] = image[j, row[source[j]]], made here from the point map.
"""

import numpy as np

from puzzledb.puzzles.permutation.automorphisms import definition_points
from puzzledb.puzzles.permutation.definition import WILD
from puzzledb.puzzles.permutation.group import inverse
from puzzledb.puzzles.permutation.ranks import orbits


class SlotCoding:
    """The slots of a definition (the sets' slots one after another) and their values."""

    def __init__(self, boards):
        spec, components = boards.spec, boards.components
        self.spec = spec
        self.offsets = boards.offsets  # where each set's pieces start in a board
        self.solved = boards.solved
        twisted = {(c.set, s) for c in components if c.kind in ("ori", "wild")
                   for s in c.slots}
        orbit_of, self.kinds, self.wild = {}, [], []
        for s, piece_set in enumerate(spec.sets):
            labels, oris = spec.solved[s]
            for orbit in orbits(piece_set.size, [m.perms[s] for m in spec.moves]):
                for i in orbit:
                    orbit_of[(s, i)] = len(self.kinds)
                kinds = tuple(sorted({labels[i] for i in orbit}))
                self.kinds.append(kinds)
                self.wild.append(tuple(any(oris[i] == WILD for i in orbit if labels[i] == x)
                                       for x in kinds))
        self.orbit_of = orbit_of
        self.points = definition_points(spec, lambda s, i: orbit_of[(s, i)])
        self.set_of, self.k, self.orbit, self.fixed = [], [], [], []
        for s, piece_set in enumerate(spec.sets):
            oris = spec.solved[s][1]
            for i in range(piece_set.size):
                self.set_of.append(s)
                self.k.append(piece_set.orientations)
                self.orbit.append(orbit_of[(s, i)])
                self.fixed.append(-1 if (s, i) in twisted else max(oris[i], 0))
        self.size = len(self.k)
        self.shift = [(k - 1).bit_length() for k in self.k]
        self.first = np.cumsum([0] + [s.size for s in spec.sets]).tolist()
        self.width = max(len(self.kinds[self.orbit[g]]) << self.shift[g]
                         for g in range(self.size))

    def pack(self, g, c, o):
        """Slot g's value of class c, orientation o."""
        return (c << self.shift[g]) + o

    def unpack(self, g, value):
        """(class, orientation) of slot g's value."""
        value = int(value)
        return value >> self.shift[g], value & ((1 << self.shift[g]) - 1)

    def slot(self, g):
        """(set, slot in the set) of global slot g."""
        s = self.set_of[g]
        return s, g - self.first[s]

    def label(self, g, value):
        """The label a position whose slot g holds `value` gives point (g, 0)."""
        k, orbit = self.k[g], self.orbit[g]
        c, o = self.unpack(g, value)
        return (orbit, self.kinds[orbit][c], "?" if self.wild[orbit][c] else (-o) % k)

    def value_of_label(self, g, label):
        """The value of slot g whose point (g, 0) carries `label`."""
        orbit, kind, f = label
        if orbit != self.orbit[g]:
            raise ValueError(f"a label of orbit {orbit} at a slot of orbit {self.orbit[g]}")
        c = self.kinds[orbit].index(kind)
        return self.pack(g, c, 0 if f == "?" else (-f) % self.k[g])

    def values(self, g):
        """The values slot g may hold."""
        k, orbit = self.k[g], self.orbit[g]
        return [self.pack(g, c, o) for c in range(len(self.kinds[orbit])) for o in range(k)
                if not (self.wild[orbit][c] and o) and self.fixed[g] in (-1, o)]

    def slot_map(self, sigma, relabel=None):
        """(source, image) of the point map sigma (a move: relabel None; a symmetry: the
        relabelling of its labels), image -1 for a value a slot never holds."""
        first, labels = self.points.first, self.points.labels
        sinv = inverse(sigma)
        source = np.empty(self.size, dtype=np.int64)
        image = np.full((self.size, self.width), -1, dtype=np.int64)
        block = [g for g in range(self.size) for _ in range(self.k[g])]
        for j in range(self.size):
            x = sinv[first[j]]
            i, e = block[x], x - first[block[x]]
            source[j] = i
            for v in self.values(i):
                orbit, kind, f = self.label(i, v)
                label = (orbit, kind, "?" if f == "?" else (f + e) % self.k[i])
                if relabel is not None:
                    label = relabel[label]
                image[j, v] = self.value_of_label(j, label)
        return source, image

    def relabelling(self, sigma):
        """The relabelling l of a symmetry: l(L(p)) = L(sigma(p))."""
        labels = self.points.labels
        return {labels[p]: labels[q] for p, q in enumerate(sigma)}

    def row(self, board):
        """A board's row of slot values."""
        offsets = self.offsets
        out = np.empty(self.size, dtype=np.int64)
        for g in range(self.size):
            s, i = self.slot(g)
            n = self.spec.sets[s].size
            c = self.kinds[self.orbit[g]].index(int(board[offsets[s] + i]))
            o = int(board[offsets[s] + n + i]) % self.k[g]
            out[g] = self.pack(g, c, 0 if self.wild[self.orbit[g]][c] else o)
        return out

    def board(self, row):
        """row inverted."""
        offsets = self.offsets
        board = self.solved.copy()
        for g in range(self.size):
            s, i = self.slot(g)
            n = self.spec.sets[s].size
            c, o = self.unpack(g, row[g])
            board[offsets[s] + i] = self.kinds[self.orbit[g]][c]
            board[offsets[s] + n + i] = o
        return board
