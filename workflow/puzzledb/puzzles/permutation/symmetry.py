"""The symmetry group a permutation puzzle is searched under: the symmetries of its moves
found from the definition (automorphisms.py: rotations, mirrors and the rest), or, past the
search's budget, those its file's rotations generate; times inversion where a position and
its inverse are equally far (every piece distinct, no `?` twist, the goal the solved state
alone).  Each acts on positions by conjugation, given to the kernels as slot maps
(slots.py), and the canonical key of a class is the rank of its least member
(symmetry_kernels.py).  Illegal rules turn it off (`reason` says why).
"""

import hashlib
from collections import Counter
from functools import cached_property
from importlib import import_module

import numpy as np

from puzzledb.puzzles.permutation import orbit
from puzzledb.puzzles.permutation.automorphisms import automorphisms, images_of
from puzzledb.puzzles.permutation.group import as_points
from puzzledb.puzzles.permutation.layout import metric_moves
from puzzledb.puzzles.permutation.slots import SlotCoding
from puzzledb.puzzles.permutation.symmetry_tables import symmetric_tables
from puzzledb.puzzles.symmetric import SymmetryGroup

KINDS = ("rotation", "mirror", "other")  # turns to turns, to inverse turns, or neither


class PermutationSymmetry(SymmetryGroup):
    """The group of one PermutationPuzzle: `maps` (point maps, the identity first),
    `inversion`, `order` (positions a class holds at most), `reason` (why there is no
    symmetry, or None)."""

    def __init__(self, puzzle):
        self.puzzle = puzzle
        spec = puzzle.spec
        self.coding = SlotCoding(puzzle.boards)
        self.moves = as_points(spec.sets, metric_moves(spec, puzzle.moves))
        self.reason = self._refusal()
        self.maps, self.images, self.found = [], [], False
        if self.reason is None:
            self._find()
        self.inversion = self.reason is None and self._invertible()
        if self.reason is None and len(self.maps) == 1 and not self.inversion:
            self.reason = "its moves have no symmetry"

    def _refusal(self):
        p = self.puzzle
        if p.spec.illegal:
            return "Illegal rules (a symmetry would have to keep them)"
        if any(c.twin is not None for c in p.components):
            return ("two pieces of an orbit are numbered as one, ordered by the parity of "
                    "others (ranks.couple), which a symmetry need not keep")
        cut = [c for c in p.layout.compiled if c.cuts]
        if cut:  # the class kernels read and write each piece set's value whole
            return (f"a piece set of {cut[0].count:,} values is cut into parts across the "
                    f"key's words, which the class kernels do not take")
        return None

    def _find(self):
        points = self.coding.points
        generators = as_points(self.puzzle.spec.sets, self.puzzle.spec.moves)
        found = automorphisms(points, generators, self.moves)
        self.found = found is not None
        if found is None:  # past the search's budget: the file's rotations' group
            found = self._rotations_group()
        if self.puzzle.goals:
            found = {images: sigma for images, sigma in found.items()
                     if self._keeps_goals(sigma)}
        identity = tuple(range(len(self.moves)))
        ordered = sorted(found, key=lambda images: (images != identity, images))
        self.images = ordered
        self.maps = [found[images] for images in ordered]

    def _rotations_group(self):
        """The symmetries the file's rotations generate (a closure over their products)."""
        points = self.coding.points
        index = {m: i for i, m in enumerate(self.moves)}
        gens = as_points(self.puzzle.spec.sets, self.puzzle.spec.rotations)
        gens = [g for g in gens if images_of(points, g, self.moves, index) is not None]
        found = {tuple(range(len(self.moves))): tuple(range(points.count))}
        frontier = list(found.values())
        while frontier:
            sigma = frontier.pop()
            for g in gens:
                product = tuple(g[x] for x in sigma)
                images = images_of(points, product, self.moves, index)
                if images is not None and images not in found:
                    found[images] = product
                    frontier.append(product)
        return found

    def _keeps_goals(self, sigma):
        goals = {tuple(self.coding.row(b))
                 for b in self._goal_boards()}
        source, image = self.coding.slot_map(sigma, self.coding.relabelling(sigma))
        return all(tuple(image[j, row[source[j]]] for j in range(len(row))) in goals
                   for row in goals)

    def _goal_boards(self):
        p = self.puzzle
        return [p.unrank(int(r)) for r in p.goal_ranks()]

    def _invertible(self):
        """Whether positions are the moves' group elements: every piece distinct, no `?`
        twist, the goal the solved state alone (moves of a metric come with their
        inverses)."""
        c = self.coding
        return (not self.puzzle.goals and not any(any(w) for w in c.wild)
                and all(len(c.kinds[c.orbit[g]]) == len([h for h in range(c.size)
                                                        if c.orbit[h] == c.orbit[g]])
                        for g in range(c.size)))

    @property
    def order(self):
        return len(self.maps) * (2 if self.inversion else 1)

    def kinds(self):
        """How many symmetries of each kind: a rotation takes every generator to a turn of
        the same sense, a mirror to an inverse turn, any other mixes them."""
        out = Counter()
        power = [k for _, _, k in self.puzzle.moves]
        orders = self.puzzle.orders
        base = [b for _, b, _ in self.puzzle.moves]
        for images in self.images:
            senses = {("same" if power[images[m]] == 1 else
                       "inverse" if power[images[m]] == orders[base[images[m]]] - 1 else
                       "mixed") for m, (_, _, k) in enumerate(self.puzzle.moves) if k == 1}
            out[KINDS[0] if senses == {"same"} else KINDS[1] if senses == {"inverse"}
                else KINDS[2]] += 1
        return out

    def describe(self):
        """For `puzzledb info`: what was found, and the group's order."""
        if self.reason is not None:
            return f"none: {self.reason}"
        kinds = self.kinds()
        parts = ", ".join(f"{kinds[k]} {k}{'s' if kinds[k] != 1 else ''}" for k in KINDS
                          if kinds[k])
        how = ("found from the definition" if self.found else
               "generated by the file's rotations (the search for more gave up)")
        text = f"{len(self.maps)} symmetries ({parts}), {how}"
        if self.inversion:
            text += ", times inversion"
        return f"{text}: classes of up to {self.order} positions"

    def as_data(self):
        """What fixes the canonical keys, for the definition hash."""
        digest = hashlib.sha256(repr(self.images).encode()).hexdigest()[:16]
        return {"symmetries": len(self.maps), "inversion": self.inversion,
                "images": digest, "canonical": "conjugation/1"}

    @property
    def in_memory(self):
        """The in-memory search goes by classes for a puzzle of one orbit, whose canonical
        neighbours are made by programs (orbit.py): there a class costs little more than a
        position, and the layers hold a class's key instead of up to `order` positions."""
        return orbit.one_orbit(self.puzzle, self) is not None

    # -- what puzzles.symmetric.Classes asks of a group ----------------------------------------
    kernels = "puzzledb.puzzles.permutation.symmetry_kernels"

    @property
    def max_moves(self):
        """Neighbours a key has: a move's, and with inversion its inverse's."""
        return len(self.puzzle.moves) * (2 if self.inversion else 1)

    @property
    def work_size(self):
        scratch = max(len(c.slots) for c in self.puzzle.components)
        return 4 * self.coding.size + 3 * scratch + self.puzzle.key_words

    @cached_property
    def _tables(self):
        import_module(self.kernels)  # registered before the tables reach numba
        return symmetric_tables(self.puzzle, self)

    @cached_property
    def slot_maps(self):
        """(source, image) arrays of every symmetry, the identity first."""
        maps = [self.coding.slot_map(sigma, self.coding.relabelling(sigma))
                for sigma in self.maps]
        return (np.array([m[0] for m in maps], dtype=np.int64),
                np.array([m[1] for m in maps], dtype=np.int64))

    def move_maps(self):
        """(source, image) arrays of the metric's moves."""
        maps = [self.coding.slot_map(m) for m in self.moves]
        return (np.array([m[0] for m in maps], dtype=np.int64),
                np.array([m[1] for m in maps], dtype=np.int64))

