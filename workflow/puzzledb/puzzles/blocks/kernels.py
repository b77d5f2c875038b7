"""The compiled kernels of sliding blocks (puzzle.py): every placement's key, and the
neighbours of a placement in each metric.  placements.py is their plain-Python reference.

A placement is held as each piece's position in its class's list of allowed anchors (the
pieces of a class consecutive and ascending) and the mask of the cells covered.  A move
takes one piece to another allowed anchor whose cells are free once the piece has left its
own: one step (step), any number of steps in one direction (line), or any anchor reachable
by steps with the other pieces fixed (path: a flood fill over the piece's anchors).
"""

import numpy as np

from puzzledb import compiled
from puzzledb.compiled import jit
from puzzledb.puzzles.blocks.puzzle import PATH, STEP, BlockTables

ONE = np.uint64(1)
ZERO = np.uint64(0)


@jit(inline="always")
def _decode(key, work, t):
    """Each piece's anchor position into work[:pieces] (colex unrank of each class's
    digit); the mask of the cells the placement covers."""
    covered = ZERO
    for c in range(t.radices.size):
        digit = (key // t.weights[c]) % t.radices[c]
        first, base = t.class_first[c], t.anchor_first[c]
        p = t.anchor_first[c + 1] - base
        for j in range(t.class_first[c + 1] - first, 0, -1):
            p -= 1
            while t.binom[p, j] > digit:
                p -= 1
            digit -= t.binom[p, j]
            work[first + j - 1] = p
            covered |= t.masks[base + p]
    return covered


@jit(inline="always")
def _digit_with(work, piece, position, c, t):
    """The colex rank of class c's positions with piece's position replaced."""
    digit = 0
    first, last = t.class_first[c], t.class_first[c + 1]
    for q in range(first, last):
        v = position if q == piece else work[q]
        below = 0
        for q2 in range(first, last):
            if (position if q2 == piece else work[q2]) < v:
                below += 1
        digit += t.binom[v, below + 1]
    return digit


@jit(inline="always")
def _target(key, work, piece, position, t):
    """The rank of the placement with one piece moved to another position."""
    c = t.piece_class[piece]
    digit = (key // t.weights[c]) % t.radices[c]
    moved = key + (_digit_with(work, piece, position, c, t) - digit) * t.weights[c]
    if t.dense:
        return np.int64(np.searchsorted(t.keys, moved))
    return moved


@jit
def neighbours(rank, level, out, work, t):
    pieces = t.piece_class.size
    key = t.keys[rank] if t.dense else rank
    covered = _decode(key, work, t)
    n = 0
    for p in range(pieces):
        base = t.anchor_first[t.piece_class[p]]
        here = work[p]
        rest = covered & ~t.masks[base + here]
        if t.metric == PATH:
            seen = ONE << np.uint64(here)
            work[pieces] = here
            top = 1
            while top:
                top -= 1
                at = work[pieces + top]
                for d in range(4):
                    j = t.steps[base + at, d]
                    if j >= 0 and not (seen >> np.uint64(j)) & ONE and \
                            not t.masks[base + j] & rest:
                        seen |= ONE << np.uint64(j)
                        work[pieces + top] = j
                        top += 1
                        out[n] = _target(key, work, p, j, t)
                        n += 1
            continue
        for d in range(4):
            j = t.steps[base + here, d]
            while j >= 0 and not t.masks[base + j] & rest:
                out[n] = _target(key, work, p, j, t)
                n += 1
                if t.metric == STEP:
                    break
                j = t.steps[base + j, d]
    return n


@jit(inline="always")
def _key(position, t):
    key = 0
    for c in range(t.radices.size):
        first = t.class_first[c]
        digit = 0
        for q in range(first, t.class_first[c + 1]):
            digit += t.binom[position[q], q - first + 1]
        key += digit * t.weights[c]
    return key


@jit
def placements(t, allowed, out):
    """The number of placements, each class's pieces at positions of its mask allowed[c];
    their keys into out (in enumeration order) unless out is empty.  Backtracking piece by
    piece, a class's pieces at ascending positions so that each placement comes once."""
    pieces = t.piece_class.size
    position = np.zeros(pieces, np.int64)
    covered = np.zeros(pieces + 1, np.uint64)
    count = 0
    p = 0
    while p >= 0:
        c = t.piece_class[p]
        base = t.anchor_first[c]
        i = position[p]
        if i >= t.anchor_first[c + 1] - base:
            p -= 1
            if p >= 0:
                position[p] += 1
            continue
        mask = t.masks[base + i]
        if not (allowed[c] >> np.uint64(i)) & ONE or mask & covered[p]:
            position[p] += 1
            continue
        if p == pieces - 1:
            if out.size:
                out[count] = _key(position, t)
            count += 1
            position[p] += 1
            continue
        covered[p + 1] = covered[p] | mask
        p += 1
        position[p] = position[p - 1] + 1 if t.piece_class[p] == c else 0
    return count


def sorted_keys(tables, allowed):
    """Every placement's key under the masks `allowed`, ascending (int64)."""
    keys = np.empty(placements(tables, allowed, np.empty(0, np.int64)), np.int64)
    placements(tables, allowed, keys)
    keys.sort()
    return keys


compiled.register(BlockTables, neighbours=neighbours)
