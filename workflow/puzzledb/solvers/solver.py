"""The entry point of `puzzledb solve --search/--batch` (Solver) and the Python API's
one-board shortcut (solve): a tree search with the bound a spec names."""

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from queue import Queue
from threading import Event, Lock

import numpy as np

from puzzledb import puzzles
from puzzledb.errors import PuzzleError, SearchError
from puzzledb.puzzles.base import Puzzle
from puzzledb.solvers.additive_search import AdditiveSearch
from puzzledb.solvers.heuristics import (
    ADDITIVE,
    additive_database,
    default_heuristic,
    lower_bound,
    pattern_database,
    pattern_depths,
)
from puzzledb.solvers import SEARCHES
from puzzledb.solvers.tree import ALL, TreeSearch

__all__ = ["Solved", "Solver", "TreeSearch", "AdditiveSearch", "solve_in_order",
           "default_heuristic", "lower_bound", "pattern_database", "pattern_depths", "solve"]


@dataclass
class Solved:
    """Optimal solutions of one position, as rank paths from the start to a goal."""

    puzzle: Puzzle
    length: int
    paths: list  # lists of ranks, start first, a goal last
    nodes: int  # states expanded by the search, all iterations
    seconds: float
    heuristic: str | None = None  # the lower bound IDA* used, None for iddfs
    generated: int | None = None  # children generated (the additive search counts them)

    @property
    def solutions(self):
        """Each solution as board strings, the start first and a goal last."""
        return [[self.puzzle.decode(r) for r in path] for path in self.paths]


class Solver:
    """A tree search ready to solve many boards: its bound read and its loop compiled once.

    search: "ida" (IDA* with `heuristic`) or "iddfs" (plain iterative deepening, no
    heuristic).  heuristic: a lower_bound spec such as "manhattan", "pdb:fifteen-6colour",
    several joined by commas (their max), or "additive:<partition>" (additive pattern
    databases read from results, searched by AdditiveSearch); by default the strongest
    additive databases built in results, else the puzzle's own bound (default_heuristic)."""

    def __init__(self, puzzle, search="ida", heuristic=None, results="results",
                 max_length=255):
        puzzle = puzzles.get(puzzle) if isinstance(puzzle, str) else puzzle
        if puzzle.graded or not puzzle.reversible:
            raise PuzzleError(f"{puzzle.name}: tree search needs a puzzle whose layers start "
                              f"at its goal (this one grows from its start position)")
        if search not in SEARCHES:
            raise SearchError(f"unknown search {search!r}; use one of {', '.join(SEARCHES)}")
        if search == "iddfs" and heuristic:
            raise SearchError("iterative deepening (--search iddfs) uses no heuristic; "
                              "use --search ida with --heuristic")
        self.puzzle = puzzle
        self.heuristic = None
        self.additive = None
        self._arguments = (search, results, max_length)
        bound = None
        if search == "ida":
            self.heuristic = heuristic or default_heuristic(puzzle, results)
        if not puzzle.ranks_fit and not (self.heuristic or "").startswith(ADDITIVE):
            raise SearchError(f"{puzzle.name}: {puzzle.rank_space()}, beyond 64-bit ranks: "
                              f"it is searched by IDA* with its additive pattern databases "
                              f"only (--heuristic additive:<partition>)")
        if search == "ida":
            if self.heuristic.startswith(ADDITIVE):
                self.additive = AdditiveSearch(
                    additive_database(puzzle, self.heuristic, results), max_length=max_length)
                self.additive.warm()  # load the compiled loop before any clock starts
            else:
                bound = lower_bound(puzzle, self.heuristic, results)
        if self.additive is None:
            self.tree = TreeSearch(puzzle, bound, max_length)
            self.tree.warm(int(puzzle.goal_ranks()[0]))
        self.max_length = max_length

    def twin(self):
        """Another Solver like this one, for another thread: its own search state, the same
        tables (read once per process) and compiled loop."""
        search, results, max_length = self._arguments
        return Solver(self.puzzle, search, self.heuristic, results, max_length)

    def solve(self, board, all_solutions=False, limit=None, progress=None):
        """Optimal solutions of a board (a board string, or piece codes as parse gives them):
        a Solved.  all_solutions: every optimal solution (at most limit), else the first.
        progress: called as progress(threshold, nodes) now and then during a long search."""
        if limit is not None and limit < 1:
            raise SearchError(f"limit must be at least 1, not {limit}")
        if isinstance(board, str):
            board = self.puzzle.parse(board)
        board = np.asarray(board, dtype=np.int64)
        want = (limit or ALL) if all_solutions else 1
        began = time.perf_counter()
        generated = None
        if self.additive is not None:
            length, routes, nodes = self.additive.run(board, want=want, progress=progress)
            paths = [self._rank_path(board, route) for route in routes]
            generated = self.additive.generated
        else:
            length, paths, nodes = self.tree.run(self.puzzle.rank(board), want=want,
                                                 progress=progress)
        seconds = time.perf_counter() - began
        if length is None:
            raise SearchError(f"{self.puzzle.name}: board {self.puzzle.format(board)!r} has "
                              f"no solution within {self.max_length} moves")
        return Solved(self.puzzle, length, paths, nodes, seconds, self.heuristic, generated)

    def _rank_path(self, board, route):
        """The ranks of the boards a route (the blank's cell after each move) visits."""
        board = board.copy()
        path = [self.puzzle.rank(board)]
        for cell in route:
            blank = int(np.flatnonzero(board == 0)[0])
            board[blank], board[cell] = board[cell], 0
            path.append(self.puzzle.rank(board))
        return path


def solve_in_order(solvers, boards, solved=None, progress=None):
    """Solve boards (as Solver.solve takes them), one at a time on each of the given Solvers
    (twins: one per thread, the compiled search releases the GIL), and yield their Solved in
    input order.  solved(i, Solved) is called as board i is done (in any order, one call at
    a time); progress(i, threshold, nodes) now and then during a long search.  An exception
    (Ctrl-C too) stops the other searches at their next progress call."""
    if len(solvers) == 1:
        for i, board in enumerate(boards):
            result = solvers[0].solve(board, progress=progress and partial(progress, i))
            if solved:
                solved(i, result)
            yield result
        return
    free = Queue()
    for solver in solvers:
        free.put(solver)
    lock = Lock()
    stop = Event()

    def run(i, board):
        def report(threshold, nodes):
            if stop.is_set():
                raise SearchError("stopped")
            if progress:
                with lock:
                    progress(i, threshold, nodes)

        solver = free.get()
        try:
            result = solver.solve(board, progress=report)
        finally:
            free.put(solver)
        if solved:
            with lock:
                solved(i, result)
        return result

    with ThreadPoolExecutor(len(solvers)) as pool:
        futures = [pool.submit(run, i, board) for i, board in enumerate(boards)]
        try:
            for future in futures:
                yield future.result()
        finally:
            stop.set()
            for future in futures:
                future.cancel()


def solve(puzzle, board_text, search="ida", heuristic=None, all_solutions=False, limit=None,
          results="results", max_length=255, progress=None):
    """Optimal solutions of one board by tree search, without the puzzle's own database
    (see Solver for the options)."""
    solver = Solver(puzzle, search, heuristic, results, max_length)
    return solver.solve(board_text, all_solutions, limit, progress)
