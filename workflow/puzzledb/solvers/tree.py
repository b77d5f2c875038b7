"""The compiled tree search: IDA* over the ranks of any puzzle with a neighbours kernel, the
kernel and a lower bound's kernel called inside one numba loop (compiled.neighbours and
compiled.lower_bound, so the loop is compiled once and cached).
"""

import numpy as np

from puzzledb.compiled.bounds import ZERO
from puzzledb.compiled import jit, lower_bound, neighbours

ALL = 2**62  # want: "every solution"
_BUDGET = 1 << 22  # nodes per compiled call: progress and Ctrl-C get a turn between calls
INFINITE = 2**62  # a smallest cut f this large: nothing was cut
_ROOM = 64  # solution paths the first pass of an iteration has room for


class TreeSearch:
    """IDA* over ranks, compiled: the puzzle's move kernel (the one the BFS uses) and a
    bound's kernel inside one numba loop with an explicit stack.

    Depth d of the stack holds path[d] and its successors sorted by bound (the most
    promising first), with the index of the next one to try.  A successor is cut when
    moves made + its bound exceeds the iteration's threshold, and skipped when it is already
    on the path (an optimal path never revisits a state).  The loop stops after a budget of
    nodes and resumes where it stopped, so a long search reports progress and can be
    interrupted."""

    def __init__(self, puzzle, bound=None, max_length=255):
        self.puzzle = puzzle
        self.bound = bound or ZERO
        self.max_length = max_length
        self.goals = np.unique(puzzle.goal_ranks().astype(np.int64))
        self.tables = puzzle.tables()
        moves = max(puzzle.max_moves, 1)
        self.path = np.zeros(max_length + 1, dtype=np.int64)
        self.out = np.zeros((max_length + 1, moves), dtype=np.int64)
        self.bounds = np.zeros_like(self.out)
        self.counts = np.zeros(max_length + 1, dtype=np.int64)
        self.index = np.zeros_like(self.counts)
        self.work = np.empty(max(puzzle.work_size, 1), dtype=np.int64)
        self.scalars = np.zeros(_SCALARS, dtype=np.int64)

    def warm(self, start):
        """Compile the loop (a call with no budget), so that timings leave it out."""
        self._step_on(int(self.bound(start)), 1, 0, np.zeros((1, 1), dtype=np.int64))

    def run(self, start, want=1, progress=None):
        """(length, rank paths, nodes): the optimal length (None if above max_length) and
        up to `want` optimal paths, start first, in the order found."""
        length, solutions, nodes = deepen(
            int(self.bound(start)), want, self.max_length,
            lambda threshold, capacity, before: self._iteration(
                start, threshold, want, capacity, progress, before))
        if length is None:
            return None, [], nodes
        return length, [row[:length + 1].tolist() for row in solutions], nodes

    def _iteration(self, start, threshold, want, capacity, progress, nodes_before):
        """One depth-first pass within threshold: (solutions found, smallest cut f,
        nodes, solutions array)."""
        solutions = np.zeros((capacity, threshold + 1), dtype=np.int64)
        s = self.scalars
        s[:] = 0
        s[_PENDING], s[_SMALLEST] = 1, INFINITE
        self.path[0] = start
        while not self._step_on(threshold, want, _BUDGET, solutions):
            if progress is not None:
                progress(threshold, nodes_before + int(s[_NODES]))
        return int(s[_FOUND]), int(s[_SMALLEST]), int(s[_NODES]), solutions

    def _step_on(self, threshold, want, budget, solutions):
        """The compiled loop on this search's arrays: True when the pass has ended."""
        return _step(threshold, want, budget, self.goals, self.path, self.out, self.bounds,
                     self.counts, self.index, self.work, self.tables, self.bound.work,
                     self.bound.tables, solutions, self.scalars)


def deepen(threshold, want, max_length, iteration):
    """IDA*'s outer loop: depth-first passes at rising thresholds, from `threshold`, until
    one finds a solution.  iteration(threshold, capacity, nodes so far) runs one pass and
    returns (solutions found, smallest cut f, nodes, an array with room for capacity
    solutions); a pass that found more solutions than it had room for runs again with room
    for all.  (length or None, the solutions array, nodes of all passes kept)."""
    nodes = 0
    capacity = min(want, _ROOM)
    while threshold <= max_length:
        found, smallest, spent, solutions = iteration(threshold, capacity, nodes)
        if found > capacity:
            capacity = found
            found, smallest, spent, solutions = iteration(threshold, capacity, nodes)
        nodes += spent
        if found:
            return threshold, solutions[:found], nodes
        if smallest >= INFINITE:
            break
        threshold = int(smallest)
    return None, None, nodes


# the scalars of a paused iteration: depth of the top node, whether it awaits its visit,
# solutions found, smallest cut f, nodes expanded
_DEPTH, _PENDING, _FOUND, _SMALLEST, _NODES = range(5)
_SCALARS = 5


@jit
def _step(threshold, want, budget, goals, path, out, bounds, counts, index, work, tables,
          bound_work, bound_tables, solutions, s):
    """Run the iteration on until it ends (True) or has spent budget nodes (False)."""
    d, pending, found, smallest = s[_DEPTH], s[_PENDING], s[_FOUND], s[_SMALLEST]
    nodes = s[_NODES]
    stop = nodes + budget
    finished = False
    while True:
        if pending:
            pending = 0
            nodes += 1
            r = path[d]
            g = np.searchsorted(goals, r)
            if g < goals.size and goals[g] == r:
                if found < solutions.shape[0]:
                    solutions[found, :d + 1] = path[:d + 1]
                found += 1
                if found >= want:
                    finished = True
                    break
                d -= 1
            else:
                row, hs = out[d], bounds[d]
                count = neighbours(r, 0, row, work, tables)
                for i in range(count):  # insertion sort by bound, smallest first
                    q = row[i]
                    h = lower_bound(q, bound_work, bound_tables)
                    j = i
                    while j > 0 and hs[j - 1] > h:
                        row[j] = row[j - 1]
                        hs[j] = hs[j - 1]
                        j -= 1
                    row[j] = q
                    hs[j] = h
                counts[d] = count
                index[d] = 0
            if nodes >= stop:
                break
            continue
        if d < 0:
            finished = True
            break
        i = index[d]
        if i == counts[d]:
            d -= 1
            continue
        index[d] = i + 1
        f = d + 1 + bounds[d, i]
        if f > threshold:
            if f < smallest:
                smallest = f
            continue
        q = out[d, i]
        seen = False
        for j in range(d + 1):
            if path[j] == q:
                seen = True
                break
        if seen:
            continue
        d += 1
        path[d] = q
        pending = 1
    s[_DEPTH], s[_PENDING], s[_FOUND], s[_SMALLEST] = d, pending, found, smallest
    s[_NODES] = nodes
    return finished
