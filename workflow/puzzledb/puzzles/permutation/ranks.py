"""The factors of a permutation puzzle's rank: the orbits of each set's slots under the
moves, one Component per arrangement or orientation of an orbit, and their numberings in
plain numpy (rows of slots <-> values), the reference of the compiled ones
(component_kernels.py) and what the move tables are made with (layout.py)."""

from dataclasses import dataclass, field
from math import comb, factorial, prod

import numpy as np

from puzzledb.puzzles.permutation.definition import WILD
from puzzledb.puzzles.ranking import BINOM

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


def multinomial(counts):
    out = factorial(sum(counts))
    for c in counts:
        out //= factorial(c)
    return out


def rank_rows(rows, counts):
    """Lexicographic rank of each row (class indices) among the arrangements of the
    multiset `counts` (distinct pieces: the permutation's lexicographic rank)."""
    count, n = rows.shape
    if all(c == 1 for c in counts):
        return lehmer_rank_rows(rows)
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


def lehmer_rank_rows(rows):
    """rank_rows of distinct pieces: the Lehmer code, slot i's digit the later slots
    holding a smaller piece, of weight (n - 1 - i)!, compared a column at a time."""
    n = rows.shape[1]
    # pieces and counts below n in bytes where they fit: the comparisons read an eighth of
    # the memory (lo33's tables, twelve moves of 9!/2 rows, 0.19 s to 0.08)
    narrow = np.int8 if n <= 127 else np.int64
    columns = np.ascontiguousarray(rows.T, dtype=narrow)
    rank = np.zeros(rows.shape[0], dtype=np.int64)
    smaller = np.empty(rows.shape[0], dtype=narrow)
    less = np.empty(rows.shape[0], dtype=bool)
    for i in range(n - 1):
        smaller[:] = 0
        for j in range(i + 1, n):
            np.less(columns[j], columns[i], out=less)
            smaller += less
        rank += smaller.astype(np.int64) * factorial(n - 1 - i)
    return rank


def lehmer_unrank_rows(values, n):
    """lehmer_rank_rows inverted: the digits, then, from the last slot back, each later piece
    at or above a slot's digit moved up by one (the digit was the rank among them)."""
    values = np.array(values, dtype=np.int64)
    columns = np.empty((n, values.size), dtype=np.int64)
    for i in range(n):
        columns[i], values = np.divmod(values, factorial(n - 1 - i))
    for i in range(n - 2, -1, -1):
        for j in range(i + 1, n):
            columns[j] += columns[j] >= columns[i]
    return np.ascontiguousarray(columns.T)


def unrank_rows(values, counts):
    """The arrangements of the ranks `values`: rank_rows inverted."""
    n = sum(counts)
    if all(c == 1 for c in counts):
        return lehmer_unrank_rows(values, n)
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


def class_weights(counts):
    """The weight of each class's digit in a class-by-class rank (the last class: none)."""
    pools = np.cumsum((0,) + tuple(counts))  # pieces placed before each class
    n = int(pools[-1])
    weights, w = [0] * len(counts), 1
    for c in range(len(counts) - 2, -1, -1):
        weights[c] = w
        w *= comb(n - int(pools[c]), counts[c])
    return weights


def class_rank_rows(rows, counts):
    """Each row's rank among the arrangements of `counts`, class by class: class c placed
    among the slots the classes before it left, a chosen slot adding C(pool slots after it,
    pieces of c still to place), the first class the most significant digit (the
    numbering the compiled multiset rank computes without a division)."""
    count, n = rows.shape
    weights = class_weights(counts)
    rank = np.zeros(count, dtype=np.int64)
    for c in range(len(counts) - 1):
        left = np.full(count, counts[c], dtype=np.int64)  # pieces of c still to place
        after = np.full(count, n - int(sum(counts[:c])), dtype=np.int64)  # pool slots left
        digit = np.zeros(count, dtype=np.int64)
        for i in range(n):
            pooled = rows[:, i] >= c
            after -= pooled
            chosen = rows[:, i] == c
            digit += np.where(chosen & (left > 0), BINOM[after, np.maximum(left, 0)], 0)
            left -= chosen
        rank += digit * weights[c]
    return rank


def class_unrank_rows(values, counts):
    """class_rank_rows inverted."""
    values = np.asarray(values, dtype=np.int64)
    n = sum(counts)
    weights = class_weights(counts)
    rows = np.full((values.size, n), len(counts) - 1, dtype=np.int64)
    for c in range(len(counts) - 1):
        digit = (values // weights[c]) % comb(n - sum(counts[:c]), counts[c])
        left = np.full(values.size, counts[c], dtype=np.int64)
        after = np.full(values.size, n - sum(counts[:c]), dtype=np.int64)
        for i in range(n):
            pooled = rows[:, i] >= c
            after -= pooled
            skip = BINOM[after, np.maximum(left, 0)]
            take = pooled & (left > 0) & (digit >= skip)
            digit -= np.where(take, skip, 0)
            rows[take, i] = c
            left -= take
    return rows


def parity_rows(rows):
    n = rows.shape[1]
    inversions = np.zeros(rows.shape[0], dtype=np.int64)
    for i in range(n):
        for j in range(i + 1, n):
            inversions += rows[:, i] > rows[:, j]
    return inversions & 1


def _digits_value(digits, k):
    value = np.zeros(digits.shape[0], dtype=np.int64)
    for i in range(digits.shape[1]):
        value = value * k + digits[:, i]
    return value


def _value_digits(values, k, width):
    digits = np.zeros((values.size, width), dtype=np.int64)
    v = values.copy()
    for i in range(width - 1, -1, -1):
        digits[:, i] = v % k
        v //= k
    return digits


def component_values(c, classes, oris):
    """The values of rows of a component's slots: class indices and orientations, one
    column per slot (an arrangement reads classes only, 'ori' orientations only).  A factor
    past int64 (cut into parts): Python ints, in an object array."""
    if c.cuts:
        return np.array([digits_value(row_digits(c, cls, ori), c.radices) for cls, ori in
                         zip(np.asarray(classes).tolist(), np.asarray(oris).tolist())],
                        dtype=object)
    if c.kind == "ori":
        return _digits_value(oris[:, :c.digits], c.k)
    if c.split:  # the positions of pieces 0, 1, ... instead of the pieces of slots 0, 1, ...
        classes = inverse_rows(classes)
    rank = (class_rank_rows if c.by_class else rank_rows)(classes, c.counts)
    if c.kind == "wild":
        named = ~np.array(c.wild, dtype=bool)[classes]  # the slots whose twist counts
        digits = oris[named].reshape(classes.shape[0], c.digits)  # in slot order per row
        return rank * c.k ** c.digits + _digits_value(digits, c.k)
    return rank // 2 if c.kind == "even" else rank


def component_rows(c, values):
    """(classes, orientations) of the values of a component: component_values inverted
    (what a component does not hold reads 0)."""
    n = len(c.slots)
    if c.cuts:
        rows = [digits_row(c, value_digits(int(v), c.radices)) for v in values]
        return (np.array([r[0] for r in rows], dtype=np.int64).reshape(len(rows), n),
                np.array([r[1] for r in rows], dtype=np.int64).reshape(len(rows), n))
    values = np.asarray(values, dtype=np.int64)
    classes = np.zeros((values.size, n), dtype=np.int64)
    oris = np.zeros((values.size, n), dtype=np.int64)
    if c.kind == "ori":
        oris[:, :c.digits] = _value_digits(values, c.k, c.digits)
        if c.digits < n:
            oris[:, n - 1] = (c.total - oris[:, :n - 1].sum(axis=1)) % c.k
    elif c.kind == "wild":
        scale = c.k ** c.digits
        classes = (class_unrank_rows if c.by_class else unrank_rows)(values // scale, c.counts)
        named = ~np.array(c.wild, dtype=bool)[classes]
        oris[named] = _value_digits(values % scale, c.k, c.digits).ravel()
    elif c.kind == "even":
        classes = even_rows(values, c.counts, c.parity)
    else:
        classes = (class_unrank_rows if c.by_class else unrank_rows)(values, c.counts)
    if c.split:
        classes = inverse_rows(classes)
    return classes, oris


# --- a factor's digits, in plain Python: the reference of the compiled ones -----------------


def digits_value(digits, radices):
    """The mixed-radix number of digits (a Python int of any size)."""
    value = 0
    for digit, radix in zip(digits, radices):
        value = value * radix + digit
    return value


def value_digits(value, radices):
    """digits_value inverted."""
    digits = []
    for radix in reversed(radices):
        value, digit = divmod(value, radix)
        digits.append(digit)
    return digits[::-1]


def row_digits(c, classes, oris):
    """The digits (Component.radices) of one row of a component's slots: class indices and
    orientations, lists."""
    n, count = len(c.slots), len(c.radices)
    if c.kind == "ori":
        return list(oris[:count])
    if c.kind in ("perm", "even"):  # Lehmer digits: the pieces below each not yet placed
        return [sum(classes[j] < classes[i] for j in range(i + 1, n)) for i in range(count)]
    digits = []
    for v in range(len(c.counts) - 1):  # class v among the slots of classes v and after
        left, after, digit = c.counts[v], sum(x >= v for x in classes), 0
        for x in classes:
            if x >= v:
                after -= 1
                if x == v:
                    digit += comb(after, left)
                    left -= 1
        digits.append(digit)
    return digits + [o for x, o in zip(classes, oris) if c.kind == "wild" and not c.wild[x]]


def digits_row(c, digits):
    """(classes, orientations) of a row of slots from its digits: row_digits inverted."""
    n = len(c.slots)
    classes, oris = [0] * n, [0] * n
    if c.kind == "ori":
        oris[:len(digits)] = digits
        if c.digits < n:
            oris[n - 1] = (c.total - sum(digits)) % c.k
    elif c.kind in ("perm", "even"):
        left = list(range(n))
        classes = [left.pop(d) for d in list(digits) + [0] * (n - len(digits))]
        if c.kind == "even" and local_parity(classes) != c.parity:
            classes[n - 2], classes[n - 1] = classes[n - 1], classes[n - 2]
    else:
        last = len(c.counts) - 1
        classes = [last] * n
        for v in range(last):
            left, digit = c.counts[v], digits[v]
            pool = [i for i in range(n) if classes[i] == last]
            for j, i in enumerate(pool):
                skip = comb(len(pool) - 1 - j, left)
                if left and digit >= skip:
                    digit -= skip
                    classes[i] = v
                    left -= 1
        named = iter(digits[last:])
        oris = [next(named) if c.kind == "wild" and not c.wild[x] else 0 for x in classes]
    return classes, oris


def even_rows(values, counts, parity):
    """The permutations of lexicographic rank 2v or 2v + 1, whichever has the parity."""
    rows = unrank_rows(2 * np.asarray(values, dtype=np.int64), counts)
    n = rows.shape[1]
    wrong = parity_rows(rows) != parity
    rows[wrong, n - 2], rows[wrong, n - 1] = rows[wrong, n - 1], rows[wrong, n - 2].copy()
    return rows


def inverse_rows(rows):
    """Each row's inverse permutation."""
    out = np.empty_like(rows)
    out[np.arange(rows.shape[0])[:, None], rows] = np.arange(rows.shape[1])
    return out


def legal_rows(c, classes):
    """Whether each row keeps the component's Illegal rules (no piece where it never
    stands)."""
    ok = np.ones(classes.shape[0], dtype=bool)
    for slot, cls in c.illegal:
        ok &= classes[:, slot] != cls
    return ok
