"""Tree search for positions beyond a database: iterative deepening and IDA*.

Both are one function: IDA* with an admissible lower bound (never more than the true
distance), and iterative deepening when the bound is zero.  States are any hashable
values; a puzzle supplies successors(state) -> (move, state) pairs and a goal test.
An optimal path never visits a state twice, so states already on the path are skipped.
"""

from dataclasses import dataclass, field


@dataclass
class SearchResult:
    length: int | None  # the optimal number of moves, None if none within max_length
    solutions: list = field(default_factory=list)  # move lists, in the order found
    nodes: int = 0  # states expanded, over all iterations


def ida_star(start, successors, is_goal, lower_bound=None, max_length=255,
             all_solutions=False, limit=None):
    """Optimal solutions from start by IDA* (iterative deepening if lower_bound is None).

    all_solutions: finish the last iteration to collect every optimal solution (at most
    `limit` of them); otherwise stop at the first."""
    bound_of = lower_bound or (lambda state: 0)
    result = SearchResult(None)
    path_moves = []
    on_path = {start}

    def search(state, cost, bound):
        """The smallest f above bound seen below state; solutions go to result."""
        f = cost + bound_of(state)
        if f > bound:
            return f
        result.nodes += 1
        if is_goal(state):
            result.solutions.append(list(path_moves))
            return None
        smallest = float("inf")
        for move, following in successors(state):
            if following in on_path:
                continue
            on_path.add(following)
            path_moves.append(move)
            found = search(following, cost + 1, bound)
            path_moves.pop()
            on_path.discard(following)
            if found is None:
                if not all_solutions or (limit is not None and len(result.solutions) >= limit):
                    return None
            else:
                smallest = min(smallest, found)
        return None if result.solutions and all_solutions else smallest

    bound = bound_of(start)
    while bound <= max_length:
        following = search(start, 0, bound)
        if result.solutions:
            result.length = bound
            return result
        if following == float("inf"):
            return result
        bound = following
    return result
