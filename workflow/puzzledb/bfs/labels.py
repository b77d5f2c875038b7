"""The walk down a distance table's labels: from a state to a goal, at each step to the
smallest neighbour whose code is that of one move less (store/distances.py says how a table
codes depths), so the walk is an optimal route and its length the state's distance.  The
queries walk the finished table (query/database.py), the distances search its own array
while it runs, to check the states it samples (bfs/distances.py).  Also the neighbours of
many states at once, for counting optimal routes layer by layer (neighbour_pairs), and the
kernels the queries of a route call (route_kernels), which a build compiles for them."""

import numpy as np
from numba import prange

from puzzledb import compiled
from puzzledb.compiled import jit
# the queries' walks and pairs call one compiled neighbours of the tables' type, not each
# their own copy inlined (compiling the family's neighbours into every query kernel cost a
# query kernel 3 to 13 s each; the walks and pairs go state by state, where a call is cheap)
from puzzledb.compiled.calls import neighbours_of
from puzzledb.expansion import ONE
from puzzledb.store.distances import Labels

FEW = 16  # walks done one after the other in the caller's thread, not in the threads
WALK_BLOCK = 256  # walks a thread takes at a time


@jit(inline="always")
def code_of(a, r):
    return (a[r >> 5] >> np.uint64(2 * (r & 31))) & np.uint64(3)


@jit
def walk(a, rank, residue, codes, goals, tables, max_moves, work_size, path):
    """From `rank`, whose depth is `residue` modulo codes.size, to a goal: at each step the
    smallest neighbour coded codes[(depth - 1) % modulus], written to path[1], path[2], ...
    (path[0] = rank); the number of steps, or -1 when a state has no such neighbour or the
    walk is longer than path allows (the labels are not those of a finished search)."""
    return walk_with(a, rank, residue, codes, goals, tables, path,
                     np.empty(max_moves, np.int64), np.empty(work_size, np.int64))


@jit(inline="always")
def walk_with(a, rank, residue, codes, goals, tables, path, out, work):
    """walk, with the arrays for the neighbours kernel given (out, work)."""
    modulus = codes.size
    path[0] = rank
    steps = 0
    r = rank
    while True:
        i = np.searchsorted(goals, np.uint64(r))
        if i < goals.size and goals[i] == np.uint64(r):
            return steps
        if steps + 1 >= path.size:
            return -1
        residue = (residue - 1) % modulus
        want = np.uint64(codes[residue])
        n = neighbours_of(r, np.int64(0), out, work, tables)
        best = -1
        for j in range(n):
            if code_of(a, out[j]) == want and (best < 0 or out[j] < best):
                best = out[j]
        if best < 0:
            return -1
        steps += 1
        path[steps] = best
        r = best


@jit(parallel=True)
def walk_lengths(a, ranks, residue, codes, goals, tables, max_moves, work_size, longest):
    """The length of the walk from each rank (all of one residue), -1 where it fails; the
    ranks in blocks of WALK_BLOCK, each block's arrays made once."""
    lengths = np.empty(ranks.size, np.int64)
    for b in prange((ranks.size + WALK_BLOCK - 1) // WALK_BLOCK):
        path = np.empty(longest + 2, np.int64)
        out = np.empty(max_moves, np.int64)
        work = np.empty(work_size, np.int64)
        for i in range(b * WALK_BLOCK, min(ranks.size, (b + 1) * WALK_BLOCK)):
            lengths[i] = walk_with(a, np.int64(ranks[i]), residue, codes, goals, tables,
                                   path, out, work)
    return lengths


@jit
def neighbour_pairs(ranks, max_moves, work_size, tables):
    """Every neighbour of every rank: (the index of its rank, the neighbour), int64 each,
    as a move leads there (a state two moves reach twice)."""
    sources = np.empty(ranks.size * max_moves, dtype=np.int64)
    found = np.empty(ranks.size * max_moves, dtype=np.int64)
    row = np.empty(max_moves, dtype=np.int64)
    work = np.empty(work_size, dtype=np.int64)
    n = 0
    for i in range(ranks.size):
        for m in range(neighbours_of(np.int64(ranks[i]), np.int64(0), row, work, tables)):
            sources[n] = i
            found[n] = row[m]
            n += 1
    return sources[:n], found[:n]


def route_kernels(puzzle):
    """The kernels the queries of routes through layers call (Puzzle.neighbours; count's
    neighbour_pairs), with arguments of their types (compiled.prepare)."""
    moves, work = max(puzzle.max_moves, 1), max(puzzle.work_size, 1)
    tables = puzzle.tables()
    return [(compiled.neighbours_of, (np.int64(0), np.int64(0), np.empty(moves, np.int64),
                                      np.empty(work, np.int64), tables)),
            (neighbour_pairs, (np.zeros(1, np.int64), np.int64(moves), np.int64(work),
                               tables))]


def table_kernels(puzzle):
    """What the queries of a distance table call: route_kernels and a Walker's, over a
    stand-in of the table's type (the Walker takes any table read-only; the codes' values
    do not change their types)."""
    return route_kernels(puzzle) + Walker(puzzle, np.zeros(1, np.uint64),
                                          Labels(3, (3, 1, 2))).kernels()


class Walker:
    """Walks down the labels of a two-bit array for one puzzle."""

    def __init__(self, puzzle, words, labels):
        self.puzzle = puzzle
        # read-only, as a query maps the table: one specialisation of the walks, whether
        # they walk a mapped table or a build's own array (a second one compiled again)
        self.words = words.view()
        self.words.flags.writeable = False
        self.labels = labels
        self.codes = np.asarray(labels.codes, dtype=np.int64)
        self.goals = np.unique(puzzle.goal_ranks().astype(np.uint64))
        self.tables = puzzle.tables()
        self.max_moves = np.int64(max(puzzle.max_moves, 1))
        self.work_size = np.int64(max(puzzle.work_size, 1))

    def residues(self, ranks):
        """The depth of each rank modulo the labels' modulus (int64), -1 for a state the
        search never reached."""
        ranks = np.asarray(ranks, dtype=np.uint64)
        codes = ((self.words[ranks >> np.uint64(5)] >> ((ranks & np.uint64(31)) << ONE))
                 & np.uint64(3)).astype(np.int64)
        lookup = np.full(4, -1, dtype=np.int64)
        for residue, code in enumerate(self.labels.codes):
            lookup[code] = residue if lookup[code] < 0 else lookup[code]
        found = lookup[codes]
        if self.labels.modulus == 4:  # codes hold depth >> 1; the colour gives depth & 1
            odd = self.puzzle.move_parity(ranks) ^ self.labels.goal_colour
            found = np.where(found < 0, -1, 2 * (found // 2) + odd)
        return found

    def route(self, rank, longest):
        """The ranks of the walk from `rank` (its depth at most `longest`) to a goal; None
        when the labels lead nowhere."""
        residue = int(self.residues([rank])[0])
        if residue < 0:
            return None
        path = np.empty(longest + 2, np.int64)
        steps = walk(self.words, np.int64(rank), np.int64(residue), self.codes, self.goals,
                     self.tables, self.max_moves, self.work_size, path)
        return None if steps < 0 else [int(r) for r in path[:steps + 1]]

    def lengths(self, ranks, residue, longest):
        """The walks' lengths from ranks of one residue (-1: none): in threads for many, in
        this one for a few (a query's)."""
        ranks = np.asarray(ranks, dtype=np.uint64)
        if ranks.size <= FEW:
            path = np.empty(longest + 2, np.int64)
            return np.array([walk(self.words, np.int64(r), np.int64(residue), self.codes,
                                  self.goals, self.tables, self.max_moves, self.work_size,
                                  path) for r in ranks], dtype=np.int64)
        return walk_lengths(self.words, ranks, np.int64(residue), self.codes, self.goals,
                            self.tables, self.max_moves, self.work_size, np.int64(longest))

    def kernels(self):
        """The walks, with arguments of their types (compiled.prepare): so benchmarks of
        cold queries load them without reading the table, and a build for its queries."""
        ranks, path = np.zeros(1, np.uint64), np.empty(1, np.int64)
        common = (self.codes, self.goals, self.tables, self.max_moves, self.work_size)
        return [(walk, (self.words, np.int64(0), np.int64(0), *common, path)),
                (walk_lengths, (self.words, ranks, np.int64(0), *common, np.int64(0)))]
