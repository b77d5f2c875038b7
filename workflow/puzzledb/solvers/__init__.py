"""Solving positions beyond a database: IDA* and iterative deepening over a puzzle's ranks
(tree.py), with the lower bounds a spec names (heuristics.py).  solve() is the entry point
of `puzzledb solve --search` and of the Python API."""

import time
from dataclasses import dataclass

from .. import puzzles
from ..errors import PuzzleError, SearchError
from ..puzzle import Puzzle
from .heuristics import default_heuristic, lower_bound, pattern_database, pattern_depths
from .tree import ALL, TreeSearch

SEARCHES = ("ida", "iddfs")

__all__ = ["SEARCHES", "Solved", "TreeSearch", "default_heuristic", "lower_bound",
           "pattern_database", "pattern_depths", "solve"]


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
        raise SearchError(f"unknown search {search!r}; use one of {', '.join(SEARCHES)}")
    if search == "iddfs" and heuristic:
        raise SearchError("iterative deepening (--search iddfs) uses no heuristic; "
                          "use --search ida with --heuristic")
    if limit is not None and limit < 1:
        raise SearchError(f"limit must be at least 1, not {limit}")
    bound = None
    if search == "ida":
        bound = lower_bound(puzzle, heuristic or default_heuristic(puzzle), results)
    start = puzzle.board_rank(board_text)
    search_tree = TreeSearch(puzzle, bound, max_length)
    search_tree.warm(start)  # load the compiled loop before the clock starts
    began = time.perf_counter()
    length, paths, nodes = search_tree.run(
        start, want=(limit or ALL) if all_solutions else 1, progress=progress)
    seconds = time.perf_counter() - began
    if length is None:
        raise SearchError(f"{puzzle.name}: board {board_text!r} has no solution "
                          f"within {max_length} moves")
    return Solved(puzzle, length, paths, nodes, seconds, bound.name if bound else None)
