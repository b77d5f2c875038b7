"""What the rule files share (rules/common.smk): a puzzle's name as a wildcard, which
puzzles the rules of each search mode build, read from the search plans that common.smk
computes once per parse (config.checked_search_plans: bfs.select's answer, never derived
again), and how a mistake found while planning ends the run (one_line_exit)."""

import sys
from contextlib import contextmanager

from puzzledb.bfs.modes import IN_MEMORY
from puzzledb.errors import PuzzledbError, one_line

PUZZLE_NAME = r"[a-z0-9][a-z0-9-]*"  # a puzzle's (or a query set's) name, as a wildcard


def puzzles_built(plans, mode):
    """A wildcard pattern for the puzzles whose layers the rules of `mode` (a bfs.modes
    mode) build, given the search plans.  The in-memory rule also takes any name no other
    mode has, so that a puzzle not in the config can still be asked for by file name."""
    if mode == IN_MEMORY:
        others = [name for name, plan in plans.items() if plan.mode != mode]
        if not others:
            return PUZZLE_NAME
        return rf"(?!(?:{'|'.join(others)})(?![a-z0-9-])){PUZZLE_NAME}"
    names = [name for name, plan in plans.items() if plan.mode == mode]
    return "|".join(names) if names else "(?!)"


@contextmanager
def one_line_exit():
    """A known error (a PuzzledbError) raised in the block ends the run while the Snakefile
    is read or its jobs planned: one line and status 2, as the command line reports the same
    mistake."""
    try:
        yield
    except PuzzledbError as err:
        print(f"puzzledb: error: {one_line(err)}", file=sys.stderr)
        sys.exit(2)
