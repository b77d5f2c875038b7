"""The numberings of a permutation puzzle's factors in plain numpy: rows of a component's
slots (class indices and orientations) <-> values, the reference of the compiled ones
(component_kernels.py) and what the move tables are made with (layout.py).  The factors
themselves (Component, the orbits) are ranks.py's."""

from math import comb, factorial

import numpy as np

from puzzledb.puzzles.ranking import BINOM


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
    return lehmer_rank_columns(np.ascontiguousarray(rows.T, dtype=narrow_type(n)))


def narrow_type(n):
    """The dtype lehmer_rank_columns compares n pieces in."""
    return np.int8 if n <= 127 else np.int64


def lehmer_rank_columns(columns):
    """lehmer_rank_rows of the rows whose columns are given (n x rows, narrow_type)."""
    n, count = columns.shape
    narrow = columns.dtype
    rank = np.zeros(count, dtype=np.int64)
    smaller = np.empty(count, dtype=narrow)
    less = np.empty(count, dtype=bool)
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
