"""Tree search for positions beyond a database: iterative deepening and IDA*.

Both are IDA*: with an admissible lower bound (never more than the true distance), and
iterative deepening when the bound is zero.  `solve` runs it compiled (TreeSearch) on the
ranks of any puzzle with a move kernel; `ida_star` is the same search over any Python
states and successor function (the peg-solitaire move metric uses it).  `lower_bound`
builds the bounds (Manhattan distance, the flip-it corner bound, pattern databases: stored
depth databases of an abstraction) and their max.
"""

import time
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from . import puzzles
from .database import DepthDatabase
from .puzzle import Puzzle, PuzzleError
from .puzzles.flipit import FlipItPuzzle, corner_bound_kernel
from .puzzles.sliding import SlidingPuzzle
from .ranking import multiset_rank, multiset_unrank, permutation_rank, permutation_unrank

SEARCHES = ("ida", "iddfs")


@dataclass
class SearchResult:
    length: int | None  # the optimal number of moves, None if none within max_length
    solutions: list = field(default_factory=list)  # move lists, in the order found
    nodes: int = 0  # states expanded, over all iterations


def ida_star(start, successors, is_goal, lower_bound=None, max_length=255,
             all_solutions=False, limit=None, with_bounds=False):
    """Optimal solutions from start by IDA* (iterative deepening if lower_bound is None).

    States are any hashable values; successors(state) gives (move, state) pairs, or with
    with_bounds=True (move, state, bound) triples whose bound is lower_bound(state) computed
    along with the moves (solve does both in one compiled call); lower_bound is then called
    on the start only.  An optimal path never visits a state twice, so states already on
    the path are skipped.  all_solutions: finish the last iteration to collect every optimal
    solution (at most `limit` of them); otherwise stop at the first."""
    bound_of = lower_bound or (lambda state: 0)
    if with_bounds:
        expand = successors
    else:
        def expand(state):
            return [(move, following, bound_of(following))
                    for move, following in successors(state)]
    result = SearchResult(None)
    path_moves = []
    on_path = {start}
    nodes = 0
    inf = float("inf")

    def search(state, cost, bound):
        """Expand state, whose f is within bound; the smallest f above bound seen below it,
        or None when a solution was found and the search is to stop."""
        nonlocal nodes
        nodes += 1
        if is_goal(state):
            result.solutions.append(list(path_moves))
            return None
        smallest = inf
        cost += 1
        for move, following, h in expand(state):
            f = cost + h
            if f > bound:  # pruned here rather than in a call: most successors are
                if f < smallest:
                    smallest = f
                continue
            if following in on_path:
                continue
            on_path.add(following)
            path_moves.append(move)
            found = search(following, cost, bound)
            path_moves.pop()
            on_path.discard(following)
            if found is None:
                if not all_solutions or (limit is not None and len(result.solutions) >= limit):
                    return None
            elif found < smallest:
                smallest = found
        return None if result.solutions and all_solutions else smallest

    bound = bound_of(start)
    try:
        while bound <= max_length:
            following = search(start, 0, bound)
            if result.solutions:
                result.length = bound
                return result
            if following == inf:
                return result
            bound = following
        return result
    finally:
        result.nodes = nodes


# --- solving a puzzle's positions ------------------------------------------------------------
#
# States are ranks (Python ints) and successors come from the puzzle's numba kernel, the same
# one the BFS uses: every puzzle with a kernel can be searched, moves are right by the same
# tests that check the databases, and a state costs one int in the path set.  A lower bound
# is a compiled function of the rank (it unranks into a scratch array it is given).


@dataclass
class Solved:
    """Optimal solutions of one position, as rank paths from the start to a goal."""

    puzzle: Puzzle
    length: int
    paths: list  # lists of ranks, start first, a goal last
    nodes: int  # states expanded by the search, all iterations
    seconds: float
    heuristic: str | None = None  # the lower bound IDA* used, None for iddfs

    @property
    def solutions(self):
        """Each solution as board strings, the start first and a goal last."""
        return [[self.puzzle.decode(r) for r in path] for path in self.paths]


def solve(puzzle, board_text, search="ida", heuristic=None, all_solutions=False, limit=None,
          results="results", max_length=255, progress=None):
    """Optimal solutions of a board by tree search, without the puzzle's own database.

    search: "ida" (IDA* with `heuristic`, by default the puzzle's own bound, see
    default_heuristic) or "iddfs" (plain iterative deepening, no heuristic).
    heuristic: a lower_bound spec such as "manhattan", "pdb:fifteen-6colour", or several
    joined by commas (their max).  all_solutions: every optimal solution (at most limit).
    progress: called as progress(threshold, nodes) now and then during a long search."""
    puzzle = puzzles.get(puzzle) if isinstance(puzzle, str) else puzzle
    if puzzle.graded or not puzzle.reversible:
        raise PuzzleError(f"{puzzle.name}: tree search needs a puzzle whose layers start at "
                          f"its goal (this one grows from its start position)")
    if search not in SEARCHES:
        raise PuzzleError(f"unknown search {search!r}; use one of {', '.join(SEARCHES)}")
    if search == "iddfs" and heuristic:
        raise PuzzleError("iterative deepening (--search iddfs) uses no heuristic; "
                          "use --search ida with --heuristic")
    if limit is not None and limit < 1:
        raise PuzzleError(f"limit must be at least 1, not {limit}")
    if search == "ida":
        heuristic = heuristic or default_heuristic(puzzle)
    bound = lower_bound(puzzle, heuristic, results) if search == "ida" else None
    start = puzzle.board_rank(board_text)
    search_tree = TreeSearch(puzzle, bound, max_length)
    search_tree.warm(start)  # compile before the clock starts
    began = time.perf_counter()
    length, paths, nodes = search_tree.run(
        start, want=(limit or _ALL) if all_solutions else 1, progress=progress)
    seconds = time.perf_counter() - began
    if length is None:
        raise PuzzleError(f"{puzzle.name}: board {board_text!r} has no solution "
                          f"within {max_length} moves")
    return Solved(puzzle, length, paths, nodes, seconds, bound.name if bound else None)


_ALL = 2**62  # "every solution"
_BUDGET = 1 << 22  # nodes per compiled call: progress and Ctrl-C get a turn between calls
_INF = 2**62
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
        self.bound = bound or LowerBound("zero", _zero, 1)
        self.max_length = max_length
        self.goals = np.unique(puzzle.goal_ranks().astype(np.int64))
        self._step = _stepper(puzzle.kernel(), self.bound.kernel)
        moves = max(puzzle.max_moves, 1)
        self.path = np.zeros(max_length + 1, dtype=np.int64)
        self.out = np.zeros((max_length + 1, moves), dtype=np.int64)
        self.bounds = np.zeros_like(self.out)
        self.counts = np.zeros(max_length + 1, dtype=np.int64)
        self.index = np.zeros_like(self.counts)
        self.work = np.empty(max(puzzle.work_length(), 1), dtype=np.int64)
        self.scalars = np.zeros(_SCALARS, dtype=np.int64)

    def warm(self, start):
        """Compile the loop (a call with no budget), so that timings leave it out."""
        self._step_on(int(self.bound(start)), 1, 0, np.zeros((1, 1), dtype=np.int64))

    def run(self, start, want=1, progress=None):
        """(length, rank paths, nodes): the optimal length (None if above max_length) and
        up to `want` optimal paths, start first, in the order found."""
        threshold = int(self.bound(start))
        nodes = 0
        capacity = min(want, _ROOM)
        while threshold <= self.max_length:
            found, smallest, spent, solutions = self._iteration(
                start, threshold, want, capacity, progress, nodes)
            if found > capacity:  # more solutions than room: the same pass, room for all
                capacity = found
                found, smallest, spent, solutions = self._iteration(
                    start, threshold, want, capacity, progress, nodes)
            nodes += spent
            if found:
                paths = [solutions[k, :threshold + 1].tolist() for k in range(found)]
                return threshold, paths, nodes
            if smallest >= _INF:
                break
            threshold = int(smallest)
        return None, [], nodes

    def _iteration(self, start, threshold, want, capacity, progress, nodes_before):
        """One depth-first pass within threshold: (solutions found, smallest cut f,
        nodes, solutions array)."""
        solutions = np.zeros((capacity, threshold + 1), dtype=np.int64)
        s = self.scalars
        s[:] = 0
        s[_PENDING], s[_SMALLEST] = 1, _INF
        self.path[0] = start
        while not self._step_on(threshold, want, _BUDGET, solutions):
            if progress is not None:
                progress(threshold, nodes_before + int(s[_NODES]))
        return int(s[_FOUND]), int(s[_SMALLEST]), int(s[_NODES]), solutions

    def _step_on(self, threshold, want, budget, solutions):
        """The compiled loop on this search's arrays: True when the pass has ended."""
        return self._step(threshold, want, budget, self.goals, self.path, self.out,
                          self.bounds, self.counts, self.index, self.work, self.bound.work,
                          self.bound.table, solutions, self.scalars)


# the scalars of a paused iteration: depth of the top node, whether it awaits its visit,
# solutions found, smallest cut f, nodes expanded
_DEPTH, _PENDING, _FOUND, _SMALLEST, _NODES = range(5)
_SCALARS = 5
_steppers = {}


def _stepper(kernel, bound_kernel):
    """The compiled IDA* loop of one move kernel and one bound kernel (see TreeSearch)."""
    key = (kernel, bound_kernel)
    if key in _steppers:
        return _steppers[key]

    @njit(nogil=True)
    def step(threshold, want, budget, goals, path, out, bounds, counts, index, work,
             bound_work, table, solutions, s):
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
                    count = kernel(r, 0, row, work)
                    for i in range(count):  # insertion sort by bound, smallest first
                        q = row[i]
                        h = bound_kernel(q, bound_work, table)
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

    _steppers[key] = step
    return step


@njit(nogil=True)
def _zero(rank, work, table):
    return 0


# --- lower bounds ------------------------------------------------------------------------------


class LowerBound:
    """An admissible lower bound on the moves from a rank to the goal.

    Call it on one rank, or `many` on an array of ranks (for exhaustive checks).  kernel is
    a numba function (rank, work, table) -> int; table is an array passed at every call
    rather than baked into the compiled code (a pattern database has millions of entries)."""

    def __init__(self, name, kernel, work_size, table=None):
        self.name = name
        self.kernel = kernel
        self.work = np.empty(max(work_size, 1), dtype=np.int64)
        self.table = table if table is not None else np.zeros(1, dtype=np.uint8)
        self._many = None

    def __call__(self, rank):
        return self.kernel(rank, self.work, self.table)

    def many(self, ranks):
        """The bound of each rank, as an int64 array."""
        if self._many is None:
            self._many = _batch(self.kernel)
        ranks = np.asarray(ranks, dtype=np.int64)
        out = np.empty(ranks.size, dtype=np.int64)
        self._many(ranks, self.work, self.table, out)
        return out

    def __repr__(self):
        return f"<lower bound {self.name}>"


class MaxBound(LowerBound):
    """The largest of several admissible bounds, admissible as each of them is: one
    compiled kernel over the tuples of their scratch arrays and tables."""

    def __init__(self, bounds):
        bounds = list(bounds)
        kernel, work, table = bounds[0].kernel, bounds[0].work, bounds[0].table
        for b in bounds[1:]:
            kernel, work, table = _max_kernel(kernel, b.kernel), (work, b.work), (table, b.table)
        self.name = ",".join(b.name for b in bounds)
        self.bounds = bounds
        self.kernel, self.work, self.table = kernel, work, table
        self._many = None


def _max_kernel(f, g):
    @njit(nogil=True)
    def kernel(rank, work, table):
        return max(f(rank, work[0], table[0]), g(rank, work[1], table[1]))

    return kernel


def _batch(kernel):
    @njit(nogil=True)
    def many(ranks, work, table, out):
        for i in range(ranks.size):
            out[i] = kernel(ranks[i], work, table)

    return many


def default_heuristic(puzzle):
    """The bound IDA* uses when none is named: Manhattan distance for sliding puzzles, the
    corner bound for flip-it; PuzzleError for a puzzle that has none."""
    if isinstance(puzzle, SlidingPuzzle):
        return "manhattan"
    if isinstance(puzzle, FlipItPuzzle):
        return "corner"
    raise PuzzleError(f"{puzzle.name}: no lower bound is known; use --search iddfs "
                      f"or --heuristic pdb:<puzzle>")


_bounds = {}


def lower_bound(puzzle, spec, results="results"):
    """The bound named by spec: "manhattan" (sliding puzzles), "corner" (flip-it),
    "pdb:<puzzle>" (the stored database of an abstraction, read from results), or several
    of them joined by commas, combined by max."""
    parts = [p.strip() for p in str(spec).split(",") if p.strip()]
    if not parts:
        raise PuzzleError(f"empty heuristic {spec!r}")
    bounds = []
    for part in parts:
        key = (puzzle, part, str(results) if part.startswith("pdb:") else None)
        if key not in _bounds:  # built once: compiling and loading take a while
            _bounds[key] = _build_bound(puzzle, part, results)
        bounds.append(_bounds[key])
    if len(bounds) == 1:
        return bounds[0]
    key = (puzzle, tuple(b.name for b in bounds), str(results))
    if key not in _bounds:
        _bounds[key] = MaxBound(bounds)
    return _bounds[key]


def _build_bound(puzzle, part, results):
    if part == "manhattan" and isinstance(puzzle, SlidingPuzzle):
        return manhattan(puzzle)
    if part == "corner" and isinstance(puzzle, FlipItPuzzle):
        return corner(puzzle)
    if part.startswith("pdb:"):
        with DepthDatabase.open(part[4:], results) as db:
            return pattern_database(puzzle, db)
    raise PuzzleError(f"{puzzle.name}: unknown heuristic {part!r}; use "
                      f"{default_heuristic_names(puzzle)} or pdb:<puzzle>")


def default_heuristic_names(puzzle):
    try:
        return default_heuristic(puzzle)
    except PuzzleError:
        return "none built in"


# Manhattan distance, for sliding puzzles with distinct or repeated pieces.  Admissible: a
# move takes one piece one cell, so it lowers that piece's distance to its nearest goal cell
# of its kind by at most one, and at the goal every such distance is zero.  With distinct
# tiles the nearest goal cell is the tile's own: the classic Manhattan distance.


def manhattan_costs(puzzle):
    """costs[cell, piece]: rows plus columns from cell to the nearest goal cell of piece
    (0 for the blank)."""
    w = puzzle.width
    costs = np.zeros((puzzle.cells, len(puzzle.symbols)), dtype=np.int64)
    for piece in range(1, len(puzzle.symbols)):
        targets = np.flatnonzero(puzzle.goal == piece)
        for cell in range(puzzle.cells):
            costs[cell, piece] = min(abs(cell // w - t // w) + abs(cell % w - t % w)
                                     for t in targets)
    return costs


def manhattan_reference(puzzle, board):
    """Manhattan distance of a board, in plain Python (tests compare the kernel with it)."""
    w = puzzle.width
    goal = [int(p) for p in puzzle.goal]
    total = 0
    for cell, piece in enumerate(int(p) for p in board):
        if piece:
            total += min(abs(cell // w - t // w) + abs(cell % w - t % w)
                         for t, g in enumerate(goal) if g == piece)
    return total


def manhattan(puzzle):
    costs = manhattan_costs(puzzle)
    cells = puzzle.cells
    unrank = _sliding_unrank(puzzle)

    @njit(nogil=True)
    def kernel(rank, work, table):
        unrank(rank, work)
        total = 0
        for c in range(cells):
            total += costs[c, work[c]]
        return total

    return LowerBound("manhattan", kernel, cells)


def _sliding_unrank(puzzle):
    """A compiled unrank(rank, out) of a sliding puzzle, out holding puzzle.cells codes."""
    if puzzle.distinct:
        half, parity = puzzle.half_factorial, puzzle.parity_of_blank

        @njit(nogil=True, inline="always")
        def unrank(rank, out):
            permutation_unrank(rank, half, parity, out)
    else:
        counts, weights = puzzle.counts, puzzle.weights

        @njit(nogil=True, inline="always")
        def unrank(rank, out):
            multiset_unrank(rank, counts, weights, out)
    return unrank


def _sliding_rank(puzzle):
    """A compiled rank(board) of a sliding puzzle."""
    if puzzle.distinct:
        half = puzzle.half_factorial

        @njit(nogil=True, inline="always")
        def rank(board):
            return permutation_rank(board, half)
    else:
        counts, weights = puzzle.counts, puzzle.weights

        @njit(nogil=True, inline="always")
        def rank(board):
            return multiset_rank(board, counts, weights)
    return rank


# The flip-it corner bound lives with its puzzle (puzzles/flipit.py, with its argument).


def corner(puzzle):
    @njit(nogil=True)
    def kernel(rank, work, table):
        return corner_bound_kernel(rank)

    return LowerBound("corner", kernel, 1)


# Pattern databases.  An abstraction colours the pieces of a sliding puzzle (tile -> colour,
# the blank stays the blank) so that the full goal becomes the abstract puzzle's goal, on a
# board of the same shape.  Admissible: moves depend only on where the blank is, so every
# move maps to a move of the abstract puzzle and every solution to an abstract solution of
# the same length; the abstract distance, read from its database, is at most the true one.


def abstraction(puzzle, abstract, colour_of=None):
    """The colour (abstract piece code) of each piece code of puzzle, as an int64 array.

    colour_of: {piece symbol: abstract symbol}; by default read off the two goals cell by
    cell.  PuzzleError unless it maps the blank to the blank and the goal onto the goal."""
    if not (isinstance(puzzle, SlidingPuzzle) and isinstance(abstract, SlidingPuzzle)
            and (puzzle.width, puzzle.height) == (abstract.width, abstract.height)):
        raise PuzzleError(f"{abstract.name} is not an abstraction of {puzzle.name}: "
                          f"pattern databases need two sliding puzzles of the same shape")
    if colour_of is None:
        colour_of = {}
        for p, a in zip(puzzle.goal, abstract.goal):
            symbol, colour = puzzle.symbols[p], abstract.symbols[a]
            if colour_of.setdefault(symbol, colour) != colour:
                raise PuzzleError(f"{abstract.name} is not an abstraction of {puzzle.name}: "
                                  f"piece {symbol!r} would get two colours")
    try:
        colours = np.array([abstract.code[colour_of[s]] for s in puzzle.symbols],
                           dtype=np.int64)
    except KeyError as err:
        raise PuzzleError(f"{abstract.name} is not an abstraction of {puzzle.name}: "
                          f"no colour for piece {err.args[0]!r}") from None
    blank_ok = colours[0] == 0 and np.count_nonzero(colours == 0) == 1
    if not blank_ok or not np.array_equal(colours[puzzle.goal], abstract.goal):
        raise PuzzleError(f"{abstract.name} is not an abstraction of {puzzle.name}: the "
                          f"colouring does not map the goal onto the goal")
    return colours


def pattern_depths(db):
    """The depth of every rank of a complete database, as a dense uint8 array (one byte a
    state: 5.8 MB for fifteen-6colour), filled layer by layer through the store."""
    size = db.puzzle.size
    if db.total != size or db.max_depth > 254:
        raise PuzzleError(f"{db.puzzle.name}: a pattern database needs every rank stored "
                          f"({db.total:,} of {size:,})")
    depths = np.full(size, 255, dtype=np.uint8)
    for depth in range(db.max_depth + 1):
        for ranks in db.layer(depth).iter_chunks():
            depths[ranks.astype(np.int64)] = depth
    return depths


def pattern_database(puzzle, db, colour_of=None):
    """The bound read from db, the database of an abstraction of puzzle (see abstraction)."""
    abstract = db.puzzle
    colours = abstraction(puzzle, abstract, colour_of)
    depths = pattern_depths(db)
    cells = puzzle.cells
    unrank = _sliding_unrank(puzzle)
    rank_abstract = _sliding_rank(abstract)

    @njit(nogil=True)
    def kernel(rank, work, table):
        unrank(rank, work[:cells])
        for c in range(cells):
            work[cells + c] = colours[work[c]]
        return np.int64(table[rank_abstract(work[cells:])])

    return LowerBound(f"pdb:{abstract.name}", kernel, 2 * cells, depths)
