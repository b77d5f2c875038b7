"""Iterative deepening A* over any hashable Python states: the tree search of peg
solitaire's move metric, where a chain of jumps by one peg is one move and no compiled
kernel describes the moves.  The compiled search over a puzzle's ranks is
solvers.tree.TreeSearch."""

from dataclasses import dataclass, field


@dataclass
class SearchResult:
    length: int | None  # the optimal number of moves, None if none within max_length
    solutions: list = field(default_factory=list)  # move lists, in the order found
    nodes: int = 0  # states expanded, over all iterations


def ida_star(start, successors, is_goal, lower_bound=None, max_length=255,
             all_solutions=False, limit=None):
    """Optimal solutions from start by IDA* (iterative deepening if lower_bound is None).

    States are any hashable values; successors(state) gives (move, state) pairs.  An optimal
    path never visits a state twice, so states already on the path are skipped.
    all_solutions: finish the last iteration to collect every optimal solution (at most
    `limit` of them); otherwise stop at the first."""
    bound_of = lower_bound or (lambda state: 0)

    def expand(state):
        return [(move, following, bound_of(following)) for move, following in successors(state)]

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
