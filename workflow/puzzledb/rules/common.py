"""What the rule files share (rules/common.smk): a puzzle's name as a wildcard, and which
puzzles the rules of each search mode build, read from the search plans that common.smk
computes once per parse (config.checked_search_plans: bfs.select's answer, never derived
again)."""

from puzzledb.bfs.modes import IN_MEMORY

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
