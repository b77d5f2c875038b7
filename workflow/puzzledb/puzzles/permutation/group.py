"""The order of the group a permutation puzzle's moves generate (deterministic Schreier-Sims
over the points (slot, orientation) of every set): no state is reached that is not the
solved state moved by an element of it, so its order bounds the reachable set, and a rank
space far larger than that (identical pieces written as stickers, twists tied across
orbits) is known to be sparse before any search.  The moves as permutations of those points
(move_points, as_points) and their inverse are also what symmetry.py searches."""

from math import prod

# Points past which the order is not computed (None): Schreier-Sims in plain Python, which
# every config check of the puzzle runs (the sparse rank space, bfs.select), took 0.25 s
# for the 3x3x3's 48 points and 1 s for the master pyraminx's 52, but 5 s for the FTO's 60
# and 45 s for the 4x4x4's 72 (a loaded machine); the megaminx's 120 did not end in two
# minutes.  Past it the rank space is not known to be sparse: a depth limit builds a prefix.
MAX_DEGREE = 56


def move_points(sets, move):
    """A definition Move as a permutation of the points (slot, orientation) of all sets:
    the piece leaving slot j with twist o lands in the slot i with m[i] = j, twisted."""
    image, base = [], 0
    for s, piece_set in enumerate(sets):
        n, k = piece_set.size, piece_set.orientations
        target = [0] * n
        for i, j in enumerate(move.perms[s]):
            target[j] = i
        image += [base + target[j] * k + (o + move.twists[s][j]) % k
                  for j in range(n) for o in range(k)]
        base += n * k
    return tuple(image)


def as_points(sets, moves):
    """Each of `moves` as a permutation of the points (move_points)."""
    return [move_points(sets, m) for m in moves]


def _mul(p, q):
    """p, then q."""
    return tuple(q[x] for x in p)


def inverse(p):
    out = [0] * len(p)
    for i, x in enumerate(p):
        out[x] = i
    return tuple(out)


class _Chain:
    """A base and strong generating set, level by level: the base point, the generators
    that fix the points before it, and the transversal (orbit point -> element taking the
    base point there)."""

    def __init__(self, degree):
        self.identity = tuple(range(degree))
        self.base, self.gens, self.trans = [], [], []

    def add_level(self, point):
        self.base.append(point)
        self.gens.append([])
        self.trans.append({point: self.identity})

    def orbit(self, level):
        """The transversal of the level's base point under its generators."""
        trans = {self.base[level]: self.identity}
        frontier = [self.base[level]]
        while frontier:
            x = frontier.pop()
            for g in self.gens[level]:
                y = g[x]
                if y not in trans:
                    trans[y] = _mul(trans[x], g)
                    frontier.append(y)
        self.trans[level] = trans

    def strip(self, g, start):
        """g sifted from level `start` down: (residue, level where it stopped)."""
        for level in range(start, len(self.base)):
            x = g[self.base[level]]
            if x not in self.trans[level]:
                return g, level
            g = _mul(g, inverse(self.trans[level][x]))
        return g, len(self.base)

    def add(self, g, start, stop):
        """A new strong generator g at levels start..stop (a new level if stop is past the
        base), their orbits made again."""
        if stop == len(self.base):
            self.add_level(next(i for i, x in enumerate(g) if x != i))
        for level in range(start, stop + 1):
            self.gens[level].append(g)
            self.orbit(level)


def group_order(generators, degree):
    """The order of the group the permutations generate; None past MAX_DEGREE points."""
    if degree > MAX_DEGREE:
        return None
    chain = _Chain(degree)
    for g in generators:
        if g != chain.identity:
            residue, stop = chain.strip(g, 0)
            if residue != chain.identity:
                chain.add(residue, 0, stop)
    level = len(chain.base) - 1
    while level >= 0:
        level = _check_level(chain, level)
    return prod(len(t) for t in chain.trans)


def _check_level(chain, level):
    """Sift every Schreier generator of the level; the level to check next (a generator
    added further down sends the check there)."""
    trans = chain.trans[level]
    for x, u in list(trans.items()):
        for s in list(chain.gens[level]):
            h = _mul(_mul(u, s), inverse(trans[s[x]]))
            residue, stop = chain.strip(h, level + 1)
            if residue != chain.identity:
                chain.add(residue, level + 1, stop)
                return stop
    return level - 1
