"""A permutation factor too large for a move table, alone in its puzzle (the UFO's 12!, the
dino's 12!/2), split so that its rows stay table look-ups: numbered by where each piece is
(q[piece] = slot, ranks.py's `split`), its lexicographic rank is

    high * r! + low,   high: where pieces 0 .. n-r-1 are (n!/r! values, a move table),
                       low: the order of the last r pieces among the free slots (r!).

A move sends the piece in slot s to slot minv[s], so q'[p] = minv[q[p]]: the high part moves
by itself, and the free slots F go to minv[F], so the low order a (a[j]: the index in F of
piece n-r+j's slot) becomes sigma[a], sigma[k] the index of minv[F[k]] in sorted minv[F]:
a permutation of r things that the row and the move fix.  The high table gives, per value
and move, the image and sigma's rank (the *selector*); the low table is the composition
table sigma x a -> sigma[a], so a state of the row moves by one look-up, as in any row.
An even factor (every move even) halves the low part: lex // 2, the twin of the parity the
high part leaves, and the selector carries that parity too."""

from math import factorial

import numpy as np

from puzzledb.puzzles.permutation.rows import even_rows, parity_rows, rank_rows, unrank_rows

SPLIT_PIECES = 6  # r: rows of 720 (360 even), a composition table of 518,400 entries


def low_radix(c, r=SPLIT_PIECES):
    return factorial(r) // (2 if c.kind == "even" else 1)


def selectors(c, r=SPLIT_PIECES):
    """How many low columns the composition table has: r! orders (twice: per parity)."""
    return factorial(r) * (2 if c.kind == "even" else 1)


def high_table(c, moves, r=SPLIT_PIECES):
    """(images, selectors): int32 arrays (count of the high part, moves) of the high part's
    value after each move (definition Moves, already powered) and the low part's column,
    by the compiled kernel (component_kernels.split_high_rows; numba is loaded here, when
    the tables are made, not when the puzzle is checked)."""
    from puzzledb.puzzles.permutation.component_kernels import split_high_rows

    n = len(c.slots)
    count = factorial(n) // factorial(r)
    images = np.empty((count, len(moves)), dtype=np.int32)
    select = np.empty((count, len(moves)), dtype=np.int32)
    inverses = np.array([_local_inverse(c, move) for move in moves], dtype=np.int64)
    split_high_rows(np.int64(n), np.int64(r), np.int64(c.parity if c.kind == "even" else -1),
                    inverses.reshape(len(moves), n), images, select)
    return images, select


def high_table_reference(c, moves, r=SPLIT_PIECES, chunk=1 << 16):
    """high_table in plain numpy, chunk by chunk: the reference of the compiled one."""
    n = len(c.slots)
    count = factorial(n) // factorial(r)
    images = np.empty((count, len(moves)), dtype=np.int64)
    select = np.empty((count, len(moves)), dtype=np.int64)
    inverses = [_local_inverse(c, move) for move in moves]
    for start in range(0, count, chunk):
        values = np.arange(start, min(count, start + chunk), dtype=np.int64)
        images[values], select[values] = _high_rows(c, values, inverses, r)
    return images, select


def _high_rows(c, values, inverses, r):
    n = len(c.slots)
    h = n - r
    scale = factorial(r)
    q = unrank_rows(values * scale, (1,) * n)  # the rest in slot order: low part 0
    prefix, free = q[:, :h], q[:, h:]
    images = np.empty((values.size, len(inverses)), dtype=np.int64)
    select = np.empty((values.size, len(inverses)), dtype=np.int64)
    parity = (parity_rows(q) ^ c.parity) if c.kind == "even" else 0  # the low part's
    for m, minv in enumerate(inverses):
        moved_free = minv[free]
        rows = np.concatenate([minv[prefix], np.sort(moved_free, axis=1)], axis=1)
        images[:, m] = rank_rows(rows, (1,) * n) // scale
        sigma = np.argsort(np.argsort(moved_free, axis=1), axis=1)
        select[:, m] = rank_rows(sigma, (1,) * r) + parity * scale
    return images, select


def _local_inverse(c, move):
    """minv on the component's local slots: the slot a piece leaving slot s lands in."""
    where = {slot: i for i, slot in enumerate(c.slots)}
    perm = move.perms[c.set]
    out = np.empty(len(c.slots), dtype=np.int64)
    for i, slot in enumerate(c.slots):
        out[where[perm[slot]]] = i
    return out


def composition_table(c, r=SPLIT_PIECES):
    """low' for each (selector, low), selector-major int32 (selectors(c) x low_radix(c)):
    the rank of sigma[a], a the low part's order (of the selector's parity, even)."""
    scale = factorial(r)
    sigma = unrank_rows(np.arange(scale), (1,) * r)
    lows = np.arange(low_radix(c, r))
    out = []
    for parity in ((0, 1) if c.kind == "even" else (None,)):
        orders = unrank_rows(lows, (1,) * r) if parity is None else \
            even_rows(lows, (1,) * r, parity)
        composed = sigma[:, orders]  # composed[s, v, j] = sigma_s[a_v[j]]
        ranks = rank_rows(composed.reshape(-1, r), (1,) * r)
        out.append(ranks if parity is None else ranks // 2)
    return np.concatenate(out).astype(np.int32)
