"""The compiled kernels' entry points from Python: one state's neighbours, a list's, lower
bounds of many ranks, one relabelling.  Reached as attributes of puzzledb.compiled, which
imports this module on first use."""

import numpy as np

from puzzledb.compiled import jit, lower_bound, neighbours, relabel, scratch


@jit
def neighbours_of(rank, level, out, work, tables):
    return neighbours(rank, level, out, work, tables)


@jit
def neighbours_of_many(ranks, level, max_moves, work_size, tables):
    """Every neighbour of every rank, concatenated (int64)."""
    out = np.empty(ranks.size * max_moves, dtype=np.int64)
    row, work = scratch(max_moves, work_size)
    n = 0
    for i in range(ranks.size):
        k = neighbours(ranks[i], level, row, work, tables)
        for m in range(k):
            out[n] = row[m]
            n += 1
    return out[:n]


@jit
def lower_bounds(ranks, work, tables, out):
    for i in range(ranks.size):
        out[i] = lower_bound(ranks[i], work, tables)


@jit
def relabel_one(rank, key, tables):
    return relabel(rank, key, tables)
