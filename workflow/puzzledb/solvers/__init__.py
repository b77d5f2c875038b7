"""Solving positions beyond a database: IDA* and iterative deepening over a puzzle's ranks
(tree.py) with the lower bounds a spec names (heuristics.py), and IDA* over boards with
additive pattern databases (additive_search.py, tables built by additive.py).  Solver is the
entry point of `puzzledb solve --search/--batch`; solve() the one-board shortcut of the
Python API."""

SEARCHES = ("ida", "iddfs")  # the tree searches of Solver (`puzzledb solve --search`)


def __getattr__(name):
    # The solvers load numba; the package itself does not, so that the command line can
    # name the searches (SEARCHES) without it.  Solver and the rest come from solver.py on
    # first use (PEP 562).
    from importlib import import_module

    solver = import_module("puzzledb.solvers.solver")
    if name in solver.__all__:
        return getattr(solver, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
