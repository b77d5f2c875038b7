"""Admissible lower bounds for tree search, as values: a LowerBound pairs a name with the
tables its compiled kernel reads (compiled.lower_bound picks the kernel from their type).
Puzzles build their bounds (Puzzle.heuristics, PatternBounds.pattern_bound); the solvers
combine them (their max is admissible when each is) and search with them.
"""

from collections import namedtuple

import numpy as np

from puzzledb import compiled
from puzzledb.compiled import jit

ZeroTables = namedtuple("ZeroTables", "unused")


@jit
def _zero(rank, work, tables):
    return 0


compiled.register(ZeroTables, lower_bound=_zero)


class LowerBound:
    """An admissible lower bound on the moves from a rank to the goal.  Call it on one rank,
    or `many` on an array of ranks (for exhaustive checks)."""

    def __init__(self, name, tables, work_size=1):
        self.name = name
        self.tables = tables
        self.work = np.empty(max(int(work_size), 1), dtype=np.int64)

    def __call__(self, rank):
        return int(self.many(np.array([rank], dtype=np.int64))[0])

    def many(self, ranks):
        """The bound of each rank, as an int64 array."""
        ranks = np.asarray(ranks, dtype=np.int64)
        out = np.empty(ranks.size, dtype=np.int64)
        compiled.lower_bounds(ranks, self.work, self.tables, out)
        return out

    def __repr__(self):
        return f"<lower bound {self.name}>"


ZERO = LowerBound("zero", ZeroTables(np.zeros(1, dtype=np.int64)))


def max_bound(bounds):
    """The largest of several bounds: admissible as each of them is.  The kernels run one
    after the other on one scratch array."""
    bounds = list(bounds)
    if len(bounds) == 1:
        return bounds[0]
    return LowerBound(",".join(b.name for b in bounds), tuple(b.tables for b in bounds),
                      max(b.work.size for b in bounds))
