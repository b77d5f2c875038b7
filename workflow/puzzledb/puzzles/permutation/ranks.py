"""The factors of a permutation puzzle's rank (puzzle.py): the orbits of each set's slots
under the moves, one Component per arrangement or orientation of an orbit, and the ranks of
a component's rows (permutation, even permutation, multiset, orientations in base k)."""

from dataclasses import dataclass
from math import factorial

import numpy as np

@dataclass
class Component:
    """One factor of the rank: the arrangement ('perm', 'even', 'multiset') or the
    orientations ('ori') of the slots of one orbit of one set."""

    kind: str
    set: int
    slots: tuple
    count: int
    classes: tuple = ()  # perm kinds: the solved pieces as class indices 0..K-1
    counts: tuple = ()  # perm kinds: pieces per class
    parity: int = 0  # 'even': the arrangement's parity, that of the solved state
    k: int = 1  # 'ori': orientations
    digits: int = 0  # 'ori': slots ranked (the last is implied when the sum is kept)
    total: int = 0  # 'ori': the kept orientation sum mod k

    def describe(self, sets):
        name, n = sets[self.set].name, len(self.slots)
        if self.kind == "ori":
            kept = ", sum kept" if self.digits < n else ""
            return f"{name} {n}-slot orientations {self.k}^{self.digits}{kept}"
        what = {"perm": f"{n}!", "even": f"{n}!/2 (even)",
                "multiset": "arrangements of identical pieces"}[self.kind]
        return f"{name} {n}-slot {what}"


# --- vectorised ranks of a component: rows of arrangements <-> values -----------------------


def multinomial(counts):
    out = factorial(sum(counts))
    for c in counts:
        out //= factorial(c)
    return out


def _rank_rows(rows, counts):
    """Lexicographic rank of each row (class indices) among the arrangements of the
    multiset `counts` (distinct pieces: the permutation's lexicographic rank)."""
    count, n = rows.shape
    remaining = np.tile(np.array(counts, dtype=np.int64), (count, 1))
    total = np.full(count, multinomial(counts), dtype=np.int64)
    rank = np.zeros(count, dtype=np.int64)
    index = np.arange(count)
    for i in range(n):
        left = n - i
        a = rows[:, i]
        for v in range(len(counts)):
            rank += np.where(a > v, total * remaining[:, v] // left, 0)
        total = total * remaining[index, a] // left
        remaining[index, a] -= 1
    return rank


def _unrank_rows(values, counts):
    """The arrangements of the ranks `values`: _rank_rows inverted."""
    n = sum(counts)
    values = np.array(values, dtype=np.int64)
    count = values.size
    remaining = np.tile(np.array(counts, dtype=np.int64), (count, 1))
    total = np.full(count, multinomial(counts), dtype=np.int64)
    rows = np.empty((count, n), dtype=np.int64)
    index = np.arange(count)
    for i in range(n):
        left = n - i
        chosen = np.full(count, -1, dtype=np.int64)
        for v in range(len(counts)):
            block = total * remaining[:, v] // left
            open_ = chosen < 0
            chosen[open_ & (values < block)] = v
            values = np.where(chosen < 0, values - block, values)
        rows[:, i] = chosen
        total = total * remaining[index, chosen] // left
        remaining[index, chosen] -= 1
    return rows


def parity_rows(rows):
    n = rows.shape[1]
    inversions = np.zeros(rows.shape[0], dtype=np.int64)
    for i in range(n):
        for j in range(i + 1, n):
            inversions += rows[:, i] > rows[:, j]
    return inversions & 1


def component_values(c, rows):
    """The values of rows of a component's slots (class indices or orientations, one
    column per slot)."""
    if c.kind == "ori":
        value = np.zeros(rows.shape[0], dtype=np.int64)
        for i in range(c.digits):
            value = value * c.k + rows[:, i]
        return value
    rank = _rank_rows(rows, c.counts)
    return rank // 2 if c.kind == "even" else rank


def component_rows(c, values):
    """The rows of the values of a component: component_values inverted."""
    values = np.asarray(values, dtype=np.int64)
    n = len(c.slots)
    if c.kind == "ori":
        rows = np.zeros((values.size, n), dtype=np.int64)
        v = values.copy()
        for i in range(c.digits - 1, -1, -1):
            rows[:, i] = v % c.k
            v //= c.k
        if c.digits < n:
            rows[:, n - 1] = (c.total - rows[:, :n - 1].sum(axis=1)) % c.k
        return rows
    if c.kind == "even":
        rows = _unrank_rows(2 * values, c.counts)
        wrong = parity_rows(rows) != c.parity
        rows[wrong, n - 2], rows[wrong, n - 1] = rows[wrong, n - 1], rows[wrong, n - 2].copy()
        return rows
    return _unrank_rows(values, c.counts)


# --- the puzzle ------------------------------------------------------------------------------


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


def local_parity(perm):
    seen, parity = set(), 0
    for start in range(len(perm)):
        length = 0
        x = start
        while x not in seen:
            seen.add(x)
            x = perm[x]
            length += 1
        if length:
            parity ^= (length - 1) & 1
    return parity
