"""The SearchPlans of `puzzledb build` and `puzzledb compile` (cli.py parses their options):
each puzzle planned as the workflow plans it from the config (config.search_plan), each
option given on the command line in place of the config key of its name."""

from pathlib import Path

from puzzledb import puzzles, yamltext
from puzzledb.config import checked_search_plans, search_plan
from puzzledb.errors import ConfigError

PLAN_KEYS = {"memory_mb": False, "depth_limit": True, "shards": True, "store": True,
             "job_states": False, "symmetry": True, "checkpoint_minutes": False}  # by_puzzle


def plan(puzzle, args, **fixed):
    """The puzzle's SearchPlan as the workflow makes it (config.search_plan) from the config
    (./config.yaml, or --config; the schema's defaults without one), each plan option given
    in place of its key (fixed: keys of the puzzle's entry set here, for compile)."""
    settings, given = dict(args.settings), []
    for key, by_puzzle in PLAN_KEYS.items():
        value = fixed.get(key, getattr(args, key, None))
        if value is None:
            continue
        if key not in fixed:
            given.append(f"--{key.replace('_', '-')} {value}")
        settings[key] = {**settings[key], puzzle.name: value} if by_puzzle else value
    source = " with ".join([args.config_file or "the defaults (no config.yaml)"] + given)
    return search_plan(settings, puzzle.name, source)


def compile_plans(args):
    """([(puzzle, SearchPlan)] of each puzzle `puzzledb compile` compiles for, the MiB a
    frontier job holds)."""
    memory_mb = args.memory_mb or args.settings["memory_mb"]
    if not args.names:
        if args.config_file is None:
            raise ConfigError("compile: name puzzles or families, or run it beside a "
                              "config.yaml (its puzzles are compiled)")
        # the config checked whole, as the workflow checks it, then each of its puzzles
        # planned as `build` plans it
        config = yamltext.load(Path(args.config_file).read_text())
        names = checked_search_plans(config, args.config_file)
        return [(puzzles.get(name), plan(puzzles.get(name), args)) for name in names], \
            memory_mb
    chosen = []
    for name in args.names:
        members = puzzles.of_family(name)
        if not members:  # not a family: a puzzle (an unknown name is a PuzzleError)
            chosen.append((puzzles.get(name), plan(puzzles.get(name), args)))
            continue
        for member in members:
            member_plan = _member_plan(puzzles.get(member), args)
            if member_plan is not None:
                chosen.append((puzzles.get(member), member_plan))
    return chosen, memory_mb


def _member_plan(puzzle, args):
    """A family member's plan as plan gives it; a member too large for the in-memory
    search, the frontier search's; None for one no build searches (ranks past 64 bits,
    a catalogue)."""
    try:
        return plan(puzzle, args)
    except ConfigError:  # what search_plan makes of a ChoiceError or a BudgetError
        pass
    try:  # a prefix is what a build of it makes; the depth is no matter to its kernels
        return plan(puzzle, args, shards=1, depth_limit=1)
    except ConfigError:
        return None
