"""The workflow configuration: validated against workflow/schemas/config.schema.yaml (which
also gives the defaults), plus the checks a schema cannot make; errors are one line."""

from pathlib import Path

import jsonschema
import yaml

from . import puzzles
from .engine import memory_needed
from .puzzle import PuzzleError

SCHEMA = Path(__file__).resolve().parent.parent / "schemas" / "config.schema.yaml"

# What a search process holds besides its bitsets: the interpreter, numba, h5py.
PROCESS_OVERHEAD_MB = 400


class ConfigError(PuzzleError):
    pass


def check_config(config, schema_path=SCHEMA):
    """Validate `config` in place (filling defaults); ConfigError naming the first problem."""
    schema = yaml.safe_load(Path(schema_path).read_text())
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema).iter_errors(config)
    )
    if error is not None:
        where = ".".join(str(p) for p in error.absolute_path)
        raise ConfigError(f"config{': ' + where if where else ''}: {error.message}")
    for key, spec in schema["properties"].items():
        if "default" in spec:
            config.setdefault(key, spec["default"])
    for name in config["puzzles"]:
        try:
            puzzle = puzzles.get(name)
        except PuzzleError as err:
            raise ConfigError(f"config: puzzles: {err}") from None
        need = memory_needed(puzzle) / 2**20
        if need > config["memory_mb"]:
            raise ConfigError(
                f"config: {name} needs {need:,.0f} MiB for its search, "
                f"more than memory_mb: {config['memory_mb']}"
            )
    for i, entry in enumerate(config["problem_sets"]):
        where = f"config: problem_sets.{i}"
        for key, value in (("per_distance", 200), ("seed", 0)):
            entry.setdefault(key, value)
        if entry["puzzle"] not in config["puzzles"]:
            raise ConfigError(f"{where}: puzzle {entry['puzzle']!r} is not in puzzles")
        puzzle = puzzles.get(entry["puzzle"])
        if entry["queries"] not in puzzle.query_sets():
            known = ", ".join(sorted(puzzle.query_sets())) or "none"
            raise ConfigError(f"{where}: {puzzle.name} has no query set "
                              f"{entry['queries']!r} (known: {known})")
        if not puzzle.reversible:
            raise ConfigError(f"{where}: matching needs a reversible puzzle, "
                              f"{puzzle.name} is not")
    return config


def problem_set(config, puzzle, queries, k):
    """The config entry of one problem set; the defaults if the set was asked for by file
    name only (e.g. `snakemake results/eight/problems/blank-at-goal_k24.txt`)."""
    for entry in config["problem_sets"]:
        if (entry["puzzle"], entry["queries"], entry["k"]) == (puzzle, queries, int(k)):
            return entry
    return {"puzzle": puzzle, "queries": queries, "k": int(k), "per_distance": 200, "seed": 0}


def search_mem_mb(name):
    return int(memory_needed(puzzles.get(name)) / 2**20) + PROCESS_OVERHEAD_MB
