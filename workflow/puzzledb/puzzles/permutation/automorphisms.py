"""The symmetries of a permutation puzzle's move set, found from its definition: the
permutations s of the points (slot, orientation) of every set that carry a piece's points
onto one piece's points, orientations mapped by o -> a o + b, that carry the set of moves
onto itself (s m s^-1 is a move for every move m) and keep the solved state's labels (a
class of identical pieces goes to a class).  Rotations, mirrors (which map turns to
inverse turns) and combinatorial ones (the 4x4x4's inner slices exchanged) alike.

The search fixes the image of one piece, then the image of each generator among the moves
of its cycle type, and propagates s(g(p)) = h(s(p)) until every point is mapped or a
contradiction shows; the rest of each orbit follows from one piece.  Two such maps that
move the moves alike act alike on positions (they differ by a map that commutes with every
move), so a symmetry is kept once per action on the moves.
"""

from collections import Counter
from dataclasses import dataclass
from math import gcd

from puzzledb.puzzles.permutation.group import inverse

MAX_NODES = 200_000  # search steps past which the search gives up (None)


def cycle_type(p):
    seen, out = [False] * len(p), []
    for i in range(len(p)):
        length, j = 0, i
        while not seen[j]:
            seen[j] = True
            j = p[j]
            length += 1
        if length:
            out.append(length)
    return tuple(sorted(out))


@dataclass(frozen=True)
class Points:
    """The points of a definition's sets: piece b (a global slot) has points first[b] ..
    first[b] + k[b] - 1, one per orientation; labels[p]: the solved state's label of point
    p (identical pieces share theirs)."""

    first: tuple
    k: tuple
    labels: tuple

    @property
    def count(self):
        return len(self.labels)

    def block(self, b, a, image):
        """The point pairs (p, q) mapping piece b's points onto piece `image`'s by
        o -> a o."""
        k = self.k[b]
        return [(self.first[b] + o, self.first[image] + a * o % k) for o in range(k)]


class _Search:
    """One search: the generators and the moves as point permutations."""

    def __init__(self, points, generators, moves):
        self.points = points
        self.gens = [tuple(g) for g in generators]
        self.gens_inv = [inverse(g) for g in self.gens]
        self.moves = [tuple(m) for m in moves]
        self.moves_inv = [inverse(m) for m in self.moves]
        self.index = {m: i for i, m in enumerate(self.moves)}
        types = [cycle_type(m) for m in self.moves]
        self.candidates = [[i for i, t in enumerate(types) if t == cycle_type(g)]
                           for g in self.gens]
        self.block_of = [b for b, k in enumerate(points.k) for _ in range(k)]
        self.roots = self._largest_orbits_first()
        self.found = {}
        self.nodes = 0

    def _largest_orbits_first(self):
        """The pieces in the order a new orbit's first piece is taken: from the orbits of
        most points first, which fix the most generators' images."""
        orbit = list(range(len(self.points.k)))

        def root(b):
            while orbit[b] != b:
                orbit[b] = orbit[orbit[b]]
                b = orbit[b]
            return b

        for g in self.gens:
            for p, q in enumerate(g):
                orbit[root(self.block_of[p])] = root(self.block_of[q])
        points = Counter()
        for b, k in enumerate(self.points.k):
            points[root(b)] += k
        return sorted(range(len(self.points.k)), key=lambda b: (-points[root(b)], b))

    def assign(self, state, pairs):
        """Map each p to q in `pairs`, then propagate through the generators mapped so far;
        False on a contradiction (state is then spoilt)."""
        sigma, sinv, mu = state
        queue = []
        for p, q in pairs:
            if not self._set(sigma, sinv, p, q, queue):
                return False
            if queue[-1:] != [p]:
                queue.append(p)  # mapped before, and now to propagate through mu
        while queue:
            p = queue.pop()
            q = sigma[p]
            for g, h in enumerate(mu):
                if h >= 0 and not (
                        self._set(sigma, sinv, self.gens[g][p], self.moves[h][q], queue)
                        and self._set(sigma, sinv, self.gens_inv[g][p],
                                      self.moves_inv[h][q], queue)):
                    return False
        return True

    @staticmethod
    def _set(sigma, sinv, p, q, queue):
        if sigma[p] == q:
            return True
        if sigma[p] >= 0 or sinv[q] >= 0:
            return False
        sigma[p], sinv[q] = q, p
        queue.append(p)
        return True

    def run(self, state, settle):
        """Extend state to complete symmetries (recorded in self.found); with settle, stop
        at the first (the moves' images are then fixed, and any completion acts alike).
        Whether one was found."""
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise _GiveUp
        sigma, sinv, mu = state
        for g, h in enumerate(mu):
            if h < 0:
                p = next((p for p in range(len(sigma)) if sigma[p] >= 0
                          and self.gens[g][p] != p), None)
                if p is not None:
                    return self._map_generator(state, g, p, settle)
        if min(sigma) >= 0:
            return min(mu) >= 0 and self._record(sigma)
        settle = settle or min(mu) >= 0
        b = next(b for b in self.roots if sigma[self.points.first[b]] < 0)
        any_found = False
        for image in range(len(self.points.k)):
            if self.points.k[image] != self.points.k[b] or sinv[self.points.first[image]] >= 0:
                continue
            k = self.points.k[b]
            for a in [a for a in range(1, k) if gcd(a, k) == 1] or [1]:
                # o -> a o only: a shift b as well is this map after twisting the whole
                # orbit by b / a, which commutes with every move and keeps the labels'
                # classes (it turns every label of the orbit alike), so it acts alike
                child = (sigma[:], sinv[:], mu[:])
                if self.assign(child, self.points.block(b, a, image)) and \
                        self.run(child, settle):
                    if settle:
                        return True
                    any_found = True
        return any_found

    def _map_generator(self, state, g, p, settle):
        """Branch on generator g's image, which must take s(p) to s(g(p))."""
        sigma, sinv, mu = state
        q, target = sigma[p], sigma[self.gens[g][p]]
        any_found = False
        for h in self.candidates[g]:
            hq = self.moves[h][q]
            if h in mu or (target >= 0 and hq != target) or (target < 0 and hq == q):
                continue
            child = (sigma[:], sinv[:], mu[:])
            child[2][g] = h
            pairs = [(x, sigma[x]) for x in range(len(sigma)) if sigma[x] >= 0]
            if self.assign(child, pairs) and self.run(child, settle):
                if settle:
                    return True
                any_found = True
        return any_found

    def _record(self, sigma):
        """Keep a complete map if it is a symmetry (images_of)."""
        images = images_of(self.points, sigma, self.moves, self.index)
        if images is not None:
            self.found.setdefault(images, tuple(sigma))
        return images is not None


def images_of(points, sigma, moves, index):
    """The moves' images under the point map sigma (m -> sigma m sigma^-1, as indices into
    `moves`; index: move -> its index), or None unless sigma keeps the labels' classes
    (a class of points with one label goes to one class) and carries the moves onto the
    moves."""
    labels, relabel = points.labels, {}
    for p, q in enumerate(sigma):
        if relabel.setdefault(labels[p], labels[q]) != labels[q]:
            return None
    if len(set(relabel.values())) != len(relabel):
        return None
    sinv = inverse(sigma)
    images = []
    for m in moves:
        image = index.get(tuple(sigma[m[sinv[x]]] for x in range(len(sigma))))
        if image is None:
            return None
        images.append(image)
    return tuple(images) if len(set(images)) == len(images) else None


class _GiveUp(Exception):
    pass


def automorphisms(points, generators, moves):
    """{images of the moves: point map} for every symmetry (identity included): generators
    and moves as point permutations (the moves closed under the generators' powers: the
    metric's); None when the search passes MAX_NODES steps."""
    search = _Search(points, generators, moves)
    state = ([-1] * points.count, [-1] * points.count, [-1] * len(search.gens))
    try:
        search.run(state, False)
    except _GiveUp:
        return None
    return search.found


def definition_points(spec, orbit_of):
    """The Points of a Definition: labels (orbit, piece label, orientation relative to the
    solved one; '?' for a `?` twist), orbit_of(set, slot) naming a slot's orbit."""
    first, ks, labels = [], [], []
    for s, piece_set in enumerate(spec.sets):
        names, oris = spec.solved[s]
        k = piece_set.orientations
        for i in range(piece_set.size):
            first.append(len(labels))
            ks.append(k)
            labels += [(orbit_of(s, i), names[i], "?" if oris[i] < 0 else (o - oris[i]) % k)
                       for o in range(k)]
    return Points(tuple(first), tuple(ks), tuple(labels))
