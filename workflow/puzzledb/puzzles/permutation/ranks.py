"""The factors of a permutation puzzle's rank: the orbits of each set's slots under the
moves, and one Component per arrangement or orientation of an orbit (its kind, slots,
pieces and count).  Their numberings, rows of slots <-> values, are rows.py's."""

from dataclasses import dataclass, field
from math import comb, factorial, prod

import numpy as np

from puzzledb.puzzles.permutation.definition import WILD
from puzzledb.puzzles.permutation.rows import local_parity, multinomial, parity_rows

KINDS = ("perm", "even", "multiset", "ori", "wild")  # their codes in the kernels: the index
MAX_SLOTS = 128  # slots of a factor numbered digit by digit (component_kernels.SLOT_BINOM)


@dataclass
class Component:
    """One factor of the rank, over the slots of one orbit of one set: the arrangement of
    its pieces ('perm' distinct, 'even' an even permutation, 'multiset' identical pieces),
    their orientations ('ori', base k), or both at once ('wild': the arrangement times the
    orientations of the pieces whose twist counts, when others have a `?` twist)."""

    kind: str
    set: int
    slots: tuple
    count: int
    classes: tuple = ()  # arrangements: the solved pieces as class indices 0..K-1
    counts: tuple = ()  # arrangements: pieces per class
    parity: int = 0  # 'even': the arrangement's parity, that of the solved state
    k: int = 1  # 'ori', 'wild': orientations
    digits: int = 0  # 'ori': slots ranked (the last implied when the sum is kept);
    #                  'wild': the pieces whose twist counts
    total: int = 0  # 'ori': the kept orientation sum mod k
    wild: tuple = ()  # 'wild': per class, whether its twist is a `?`
    labels: tuple = ()  # arrangements: the piece number of each class
    illegal: tuple = field(default=())  # (local slot, class) never together (Illegal)
    split: int = 0  # 'perm', 'even': numbered by where each piece is (layout.py's split)
    by_class: bool = False  # 'multiset', 'wild': numbered class by class (compiled ones)
    cuts: tuple = ()  # a factor past a word: where its parts' digits (radices) start

    @property
    def radices(self):
        """The radices of the factor's digits, most significant first, its value being
        their mixed-radix number (what a factor past a word is cut along): a permutation's
        Lehmer digits, n, n - 1, ..., 2 (to 3 for an even one, whose value is the
        lexicographic rank halved: the digit of radix 2 is its parity's); an arrangement of
        identical pieces numbered class by class, C(slots left, pieces of the class) for
        each class but the last, then a `?`-twist factor's orientations, k each; an
        orientation factor's digits, k each."""
        n = len(self.slots)
        if self.kind in ("perm", "even"):
            return list(range(n, 2 if self.kind == "even" else 1, -1))
        if self.kind == "ori":
            return [self.k] * self.digits
        assert self.by_class, "a lexicographic multiset rank has no digits"
        pools = n - np.cumsum((0,) + self.counts)
        radices = [comb(int(pools[c]), self.counts[c]) for c in range(len(self.counts) - 1)]
        return radices + [self.k] * (self.digits if self.kind == "wild" else 0)

    @property
    def part_radices(self):
        """The values of each part of a factor cut into parts (cuts): the product of its
        digits' radices; [count] for a factor in one piece."""
        if not self.cuts:
            return [self.count]
        radices = self.radices
        bounds = (0, *self.cuts, len(radices))
        return [prod(radices[s:e]) for s, e in zip(bounds, bounds[1:])]

    @property
    def code(self):
        return KINDS.index(self.kind)

    def describe(self, sets):
        name, n = sets[self.set].name, len(self.slots)
        if self.kind == "ori":
            kept = ", sum kept" if self.digits < n else ""
            return f"{name} {n}-slot orientations {self.k}^{self.digits}{kept}"
        if self.kind == "wild":
            return (f"{name} {n}-slot arrangements of identical pieces and the "
                    f"orientations {self.k}^{self.digits} of those not ?")
        what = {"perm": f"{n}!", "even": f"{n}!/2 (even)",
                "multiset": "arrangements of identical pieces"}[self.kind]
        return f"{name} {n}-slot {what}"


# --- the orbits and their components ---------------------------------------------------------


def orbits(size, perms):
    parent = list(range(size))

    def root(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for perm in perms:
        for i, j in enumerate(perm):
            parent[root(i)] = root(j)
    groups = {}
    for i in range(size):
        groups.setdefault(root(i), []).append(i)
    return sorted(tuple(g) for g in groups.values())


def components(spec):
    """The components of a Definition's rank, set by set and orbit by orbit."""
    out = []
    for s, piece_set in enumerate(spec.sets):
        perms = [m.perms[s] for m in spec.moves]
        twists = [m.twists[s] for m in spec.moves]
        illegal = [(slot, label) for t, slot, label in spec.illegal if t == s]
        for orbit in orbits(piece_set.size, perms):
            out += _orbit_components(spec, s, orbit, perms, twists, illegal)
    return out


def _orbit_components(spec, s, orbit, perms, twists, illegal):
    labels, oris = spec.solved[s]
    k = spec.sets[s].orientations
    pieces = [labels[i] for i in orbit]
    kinds = sorted(set(pieces))
    classes = tuple(kinds.index(p) for p in pieces)
    counts = tuple(pieces.count(x) for x in kinds)
    wild = tuple(oris[orbit[pieces.index(x)]] == WILD for x in kinds)
    where = {slot: i for i, slot in enumerate(orbit)}
    forbidden = tuple(sorted((where[slot], kinds.index(label)) for slot, label in illegal
                             if slot in where and label in kinds))
    arrangement = dict(set=s, slots=orbit, classes=classes, counts=counts,
                       labels=tuple(kinds), illegal=forbidden)
    live = (len(orbit) > 1 or any(t[orbit[0]] for t in twists)) and not _constant(
        orbit, oris, twists)
    if k > 1 and live and any(wild) and not all(wild):
        named = sum(c for c, w in zip(counts, wild) if not w)
        return [Component("wild", count=multinomial(counts) * k ** named, k=k, digits=named,
                          wild=wild, **arrangement)]
    out = []
    if len(orbit) > 1 and len(kinds) > 1:
        if len(kinds) < len(orbit):
            out.append(Component("multiset", count=multinomial(counts), **arrangement))
        elif all(local_parity([where[p[i]] for i in orbit]) == 0 for p in perms):
            parity = int(parity_rows(np.array([classes]))[0])
            out.append(Component("even", count=factorial(len(orbit)) // 2, parity=parity,
                                 **arrangement))
        else:
            out.append(Component("perm", count=factorial(len(orbit)), **arrangement))
    if k > 1 and live and not all(wild):
        kept = all(sum(t[i] for i in orbit) % k == 0 for t in twists)
        digits = len(orbit) - 1 if kept else len(orbit)
        out.append(Component("ori", s, orbit, k ** digits, k=k, digits=digits,
                             total=sum(oris[i] for i in orbit) % k))
    return out


def _constant(orbit, oris, twists):
    """Whether the orbit's orientations never change: no move twists a slot of it and its
    solved pieces all have the same orientation (half turns of a cube's corners)."""
    return not any(t[i] for t in twists for i in orbit) and len({oris[i] for i in orbit}) == 1


def numbering(spec):
    """The version of the rank's numbering (the ranking id of the definition hash): 2 when
    an orbit whose pieces are never twisted drops the orientation factor version 1 gave it
    (every digit constant), else 1, so that layers built before keep their hash."""
    for s, piece_set in enumerate(spec.sets):
        twists = [m.twists[s] for m in spec.moves]
        for orbit in orbits(piece_set.size, [m.perms[s] for m in spec.moves]):
            if piece_set.orientations > 1 and len(orbit) > 1 and \
                    _constant(orbit, spec.solved[s][1], twists):
                return 2
    return 1


# --- vectorised ranks of a component: rows of slots <-> values --------------------------------
