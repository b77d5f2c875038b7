"""The connected components of a puzzle's whole rank space, over its neighbours kernel: a
union-find whose roots are the smallest rank of each component.  For a space whose ranks
number every placement, reachable from the goal or not (the designer's table,
report/design.py).  Plain-Python reference: tests/test_pictures.py (the designer's table)."""

import numpy as np

from puzzledb.compiled import jit, neighbours


@jit(inline="always")
def _root(parent, r):
    while parent[r] != r:  # path halving
        parent[r] = parent[parent[r]]
        r = parent[r]
    return r


@jit
def components(size, max_moves, work_size, tables):
    """For every rank, the smallest rank of its component (int64).  Holds 8 bytes a rank."""
    parent = np.arange(size, dtype=np.int64)
    out = np.empty(max(max_moves, 1), dtype=np.int64)
    work = np.empty(max(work_size, 1), dtype=np.int64)
    for r in range(size):
        for m in range(neighbours(r, 0, out, work, tables)):
            a, b = _root(parent, r), _root(parent, out[m])
            if a != b:
                parent[max(a, b)] = min(a, b)
    for r in range(size):  # in rank order, so a rank's parent already points at its root
        parent[r] = parent[parent[r]]
    return parent
