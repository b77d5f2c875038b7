"""The placements of a box's pieces and their canonical 64-bit keys, in plain Python: what the
compiled kernels (kernels.py) compute, written to be read, and what a puzzle needs before any
kernel is loaded (how many placements there are).

Pieces that are interchangeable form a class: one shape, the anchors it may stand at (every
anchor where it fits, or those of its lane when it moves along one axis) and a count.  A
placement puts each class's pieces at distinct anchors, no two pieces on one cell.  Its key
folds identical pieces: class c's anchors, as positions in its list of allowed anchors, form
a combination whose colex rank (sum of C(position_j, j + 1) over the ascending positions) is
one digit of radix C(anchors, count); the key is these digits in mixed radix.  Every
placement has one key, every key below the product of the radices at most one placement.
"""

from dataclasses import dataclass
from functools import cached_property, lru_cache
from math import comb, prod


@dataclass(frozen=True)
class PieceClass:
    """Interchangeable pieces: their shape, the anchors they may stand at (ascending), the
    cell mask of the shape at each of them, and the symbols of its pieces (its count)."""

    shape: tuple
    anchors: tuple
    masks: tuple
    letters: tuple
    named: bool = False  # told apart: a goal piece, one listed in `distinct`, one with its own axis

    @property
    def count(self):
        return len(self.letters)

    @cached_property
    def radix(self):
        return comb(len(self.anchors), self.count)


def key_weights(classes):
    """The mixed-radix weight of each class's digit (the last class's is 1) and the size of
    the key space (the product of the radices)."""
    weights = [1] * len(classes)
    for c in range(len(classes) - 2, -1, -1):
        weights[c] = weights[c + 1] * classes[c + 1].radix
    return weights, prod(c.radix for c in classes)


def colex_rank(positions):
    """The colex rank of a combination (positions in any order)."""
    return sum(comb(p, j + 1) for j, p in enumerate(sorted(positions)))


def colex_unrank(rank, count):
    """The ascending positions of the combination of `count` elements with this colex
    rank."""
    positions = []
    for j in range(count, 0, -1):
        p = j - 1
        while comb(p + 1, j) <= rank:
            p += 1
        positions.append(p)
        rank -= comb(p, j)
    return positions[::-1]


def key_of(classes, weights, anchors):
    """The key of a placement given as each class's anchor cells."""
    return sum(w * colex_rank([c.anchors.index(a) for a in where])
               for c, w, where in zip(classes, weights, anchors))


def anchors_of(classes, weights, key):
    """Each class's anchor cells (ascending) in the placement with this key."""
    return [[c.anchors[p] for p in colex_unrank(key // w % c.radix, c.count)]
            for c, w in zip(classes, weights)]


def count_placements(classes, cells, walls=0, only=None):
    """The number of placements of the classes' pieces in a box of `cells` cells (`walls`:
    the mask of the cells that are none), without listing them: a dynamic program over the
    cells in reading order, where each empty cell is left empty or becomes the anchor of a
    piece, memoised on the cell, the covered cells from it on and the pieces left to place.
    only: class -> the anchors it is restricted to (the goal pieces at their goal)."""
    only = only or {}
    starting = [[] for _ in range(cells)]  # cell -> (class, mask) of the pieces anchored there
    for c, piece_class in enumerate(classes):
        for anchor, mask in zip(piece_class.anchors, piece_class.masks):
            if anchor in only.get(c, (anchor,)):
                starting[anchor].append((c, mask))
    # after[c][x]: anchors of class c at x or beyond; a class needing more is a dead end
    after = [[0] * (cells + 1) for _ in classes]
    for x in range(cells - 1, -1, -1):
        for c in range(len(classes)):
            after[c][x] = after[c][x + 1]
        for c, _ in starting[x]:
            after[c][x] += 1

    @lru_cache(maxsize=None)
    def ways(x, covered, left):
        if not any(left):
            return 1
        if x == cells or any(n > after[c][x] for c, n in enumerate(left)):
            return 0
        if covered & 1:
            return ways(x + 1, covered >> 1, left)
        total = ways(x + 1, covered >> 1, left)  # x stays empty
        for c, mask in starting[x]:
            if left[c] and not (mask >> x) & covered:
                fewer = left[:c] + (left[c] - 1,) + left[c + 1:]
                total += ways(x + 1, (covered | (mask >> x)) >> 1, fewer)
        return total

    total = ways(0, walls, tuple(c.count for c in classes))
    ways.cache_clear()
    return total
