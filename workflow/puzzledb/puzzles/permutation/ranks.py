"""The factors of a permutation puzzle's rank: the orbits of each set's slots under the
moves, and one Component per arrangement or orientation of an orbit (its kind, slots,
pieces and count).  Their numberings, rows of slots <-> values, are rows.py's."""

from dataclasses import dataclass, field, replace
from math import comb, factorial, prod

import numpy as np

from puzzledb.puzzles.permutation.definition import WILD
from puzzledb.puzzles.permutation.rows import local_parity, multinomial, parity_rows

KINDS = ("perm", "even", "multiset", "ori", "wild")  # their codes in the kernels: the index
MAX_SLOTS = 128  # slots of a factor numbered digit by digit (component_kernels.SLOT_BINOM)
# A rank space past this once coupled orbits are halved (couple) keeps every piece apart: up
# to here the in-memory search holds two bits of every rank and gains from fewer, past it
# the frontier search by classes of symmetric positions (which a coupled orbit turns off)
COUPLED_MAX = 1 << 36


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
    twin: object = None  # a coupled orbit's (couple): the label numbered as a second piece of
    #                      the last class, the order of the two set by the parity `rule`
    rule: tuple = ()  # coupled: the components whose characters (character()) add up to its
    #                   own, each taken relative to the solved state

    def class_of(self, label):
        """The class index of a piece label (a coupled orbit's twin: the last class)."""
        return len(self.labels) - 1 if label == self.twin else self.labels.index(label)

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
        if self.twin is not None:
            return (f"{name} {n}-slot {n}!/2 (pieces {self.labels[-1]} and {self.twin} "
                    f"ordered by the parity of other orbits)")
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


def components(spec, coupling=True):
    """The components of a Definition's rank, set by set and orbit by orbit; with
    `coupling`, the arrangements whose parity the others fix halved (couple)."""
    out = []
    for s, piece_set in enumerate(spec.sets):
        perms = [m.perms[s] for m in spec.moves]
        twists = [m.twists[s] for m in spec.moves]
        illegal = [(slot, label) for t, slot, label in spec.illegal if t == s]
        for orbit in orbits(piece_set.size, perms):
            out += _orbit_components(spec, s, orbit, perms, twists, illegal)
    return couple(spec, out) if coupling and not spec.illegal else out


# --- coupled parities -------------------------------------------------------------------------
# Each arrangement of distinct pieces has a parity and each orientation factor of even k
# whose sum is free an orientation sum mod 2: its character, over GF(2).  A move adds a
# constant to each (its parity on the orbit, its twists' sum), so a reachable state's
# characters are the solved state's plus a sum of the moves' vectors.  When an arrangement's
# character is, on those vectors, the sum of other characters, it is set by them, and the
# arrangement is numbered with its two last pieces as one class (n!/2 values): the moves
# act on that numbering (they move slots, not labels), and a board is made whole again by
# ordering the two as the parity says (Boards.settle).  The mastermorphix's five orbits of
# four centres or corners, each move a transposition of several of them: 32 times fewer
# ranks.


def character(c, classes, oris):
    """The character of rows of a component's slots: the arrangement's parity, or the
    orientations' sum mod 2."""
    if c.kind == "ori":
        return oris.sum(axis=1) % 2
    return parity_rows(classes)


def _vectors(spec, comps):
    """The components with a character the moves change, and each one's vector over the
    moves (an int, bit m the change move m makes)."""
    out = []
    for j, c in enumerate(comps):
        if c.kind == "perm":
            bits = [_move_parity(c.slots, m.perms[c.set]) for m in spec.moves]
        elif c.kind == "ori" and c.k % 2 == 0 and c.digits == len(c.slots):
            bits = [sum(m.twists[c.set][i] for i in c.slots) % 2 for m in spec.moves]
        else:
            continue
        vector = sum(b << m for m, b in enumerate(bits))
        if vector:
            out.append((j, vector))
    return out


def _combination(target, vectors):
    """The indices of `vectors` whose sum (XOR) is `target` as a bit mask, or None."""
    basis = {}  # highest bit -> (vector, mask of the vectors it sums)
    for i, v in enumerate(vectors):
        v, mask = _reduced(v, 1 << i, basis)
        if v:
            basis[v.bit_length() - 1] = (v, mask)
    rest, mask = _reduced(target, 0, basis)
    return None if rest else mask


def _reduced(v, mask, basis):
    while v and v.bit_length() - 1 in basis:
        b, m = basis[v.bit_length() - 1]
        v, mask = v ^ b, mask ^ m
    return v, mask


def couple(spec, comps):
    """The components with every arrangement of distinct pieces (three or more) whose
    character is a sum of the others' kept ones halved, largest first, unless the rank
    space stays past COUPLED_MAX."""
    vectors = dict(_vectors(spec, comps))
    kept = dict(vectors)
    coupled = []
    for j, v in sorted(vectors.items(), key=lambda x: (-comps[x[0]].count, x[0])):
        if comps[j].kind != "perm" or len(comps[j].slots) < 3:
            continue
        others = [u for i, u in kept.items() if i != j]
        if _combination(v, others) is not None:
            del kept[j]
            coupled.append(j)
    if not coupled or prod(c.count for c in comps) >> len(coupled) > COUPLED_MAX:
        return comps
    out = list(comps)
    order = list(kept)
    for j in coupled:
        mask = _combination(vectors[j], [kept[i] for i in order])
        c = comps[j]
        n = len(c.slots)
        out[j] = replace(c, kind="multiset", count=c.count // 2,
                         classes=tuple(min(x, n - 2) for x in c.classes),
                         counts=c.counts[:-2] + (2,), labels=c.labels[:-1], twin=c.labels[-1],
                         rule=tuple(i for b, i in enumerate(order) if mask >> b & 1))
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
        elif not any(_move_parity(orbit, p) for p in perms):
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


def _move_parity(orbit, perm):
    """The parity of a move's permutation of an orbit's slots."""
    where = {slot: i for i, slot in enumerate(orbit)}
    return local_parity([where[perm[i]] for i in orbit])


def _constant(orbit, oris, twists):
    """Whether the orbit's orientations never change: no move twists a slot of it and its
    solved pieces all have the same orientation (half turns of a cube's corners)."""
    return not any(t[i] for t in twists for i in orbit) and len({oris[i] for i in orbit}) == 1


def numbering(spec, comps=()):
    """The version of the rank's numbering (the ranking id of the definition hash): 3 when
    an orbit is coupled (couple), 2 when an orbit whose pieces are never twisted drops the
    orientation factor version 1 gave it (every digit constant), else 1, so that layers
    built before keep their hash."""
    if any(c.twin is not None for c in comps):
        return 3
    for s, piece_set in enumerate(spec.sets):
        twists = [m.twists[s] for m in spec.moves]
        for orbit in orbits(piece_set.size, [m.perms[s] for m in spec.moves]):
            if piece_set.orientations > 1 and len(orbit) > 1 and \
                    _constant(orbit, spec.solved[s][1], twists):
                return 2
    return 1


# --- vectorised ranks of a component: rows of slots <-> values --------------------------------
