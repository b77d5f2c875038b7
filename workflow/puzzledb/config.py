"""The workflow configuration: validated against workflow/schemas/config.schema.yaml (which
also gives the defaults), plus the checks a schema cannot make; errors are one line.  The
puzzles a config declares under `define:` are registered here (puzzles.define), for the
workflow, its scripts and the command line alike.  It loads no compiled code, so parsing
the Snakefile stays quick."""

from pathlib import Path

import yaml

from puzzledb import puzzles
from puzzledb.errors import ConfigError, PuzzleError
from puzzledb.bfs.memory import (
    SPARSE_SEGMENTS,
    frontier_job_mb,
    job_mb,
    search_mib,
)
from puzzledb.solvers.memory import pattern_job_mb

SCHEMA = Path(__file__).resolve().parent.parent / "schemas" / "config.schema.yaml"


def check_config(config, schema_path=SCHEMA, source="config"):
    """Validate `config` in place (filling defaults) and register its `define:` puzzles;
    ConfigError naming the first problem.  source: the config file, for messages."""
    schema = yaml.safe_load(Path(schema_path).read_text())
    _validate(config, schema, "config")
    for key, spec in schema["properties"].items():
        if "default" in spec:
            config.setdefault(key, spec["default"])
    define_puzzles(config, source)
    for key in ("shards", "depth_limit"):
        for name in config[key]:
            if name not in config["puzzles"]:
                raise ConfigError(f"config: {key}.{name}: {name!r} is not in puzzles")
    for name in config["puzzles"]:
        try:
            puzzle = puzzles.get(name)
        except PuzzleError as err:
            raise ConfigError(f"config: puzzles: {err}") from None
        need = search_mib(puzzle)
        if need > config["memory_mb"] and name not in config["shards"] \
                and name not in config["depth_limit"]:
            raise ConfigError(
                f"config: {name} needs {need:,.0f} MiB for its in-memory search, more than "
                f"memory_mb: {config['memory_mb']}; give it a depth_limit (a partial "
                f"database, built sparse) or shards, or raise memory_mb"
            )
        if name in frontier_settings(config) and not (puzzle.reversible or puzzle.graded):
            raise ConfigError(f"config: shards.{name}: the frontier search needs moves that "
                              f"can be undone, or a graded puzzle")
    for name, partitions in config["pdbs"].items():
        try:
            known = puzzles.get(name).additive_partitions()
        except PuzzleError as err:
            raise ConfigError(f"config: pdbs: {err}") from None
        for partition in partitions:
            if partition not in known:
                raise ConfigError(f"config: pdbs.{name}: no additive partition "
                                  f"{partition!r} (known: {', '.join(known) or 'none'})")
    for i, entry in enumerate(config["problem_sets"]):
        where = f"config: problem_sets.{i}"
        for key, value in problem_set_defaults(schema).items():
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


def frontier_settings(config):
    """name -> {segments, depth_limit} of the puzzles the frontier workflow builds: those in
    `shards`, and those with a depth limit whose in-memory search exceeds memory_mb."""
    settings = {}
    for name in config["puzzles"]:
        limit = config["depth_limit"].get(name)
        if name in config["shards"]:
            settings[name] = {"segments": config["shards"][name], "depth_limit": limit}
        elif limit is not None and search_mib(puzzles.get(name)) > config["memory_mb"]:
            settings[name] = {"segments": SPARSE_SEGMENTS, "depth_limit": limit}
    return settings


def frontier_mem_mb(config, name, count):
    """mem_mb of a frontier job of the puzzle on a layer of `count` states."""
    return frontier_job_mb(puzzles.get(name), count, frontier_settings(config)[name]["segments"])


def _validate(document, schema, where):
    import jsonschema  # here: a rule job, which only registers a checked config, never needs it

    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(document))
    # a definition whose family-specific part fails leaves its keys "unevaluated": the
    # failure itself is the error to report
    named = [e for e in errors if e.validator != "unevaluatedProperties"]
    error = jsonschema.exceptions.best_match(named or errors)
    if error is not None:
        path = ".".join(str(p) for p in error.absolute_path)
        raise ConfigError(f"{where}{': ' + path if path else ''}: {error.message}")


def define_puzzles(config, source="config"):
    """Register the puzzles of a validated config's `define:` (for the rule scripts, which
    get the config the Snakefile checked)."""
    puzzles.define(config.get("define") or {}, source)


def load_definitions(path, required=True):
    """Register the `define:` puzzles of a config file, for the command line: only that
    section is checked, against its part of the schema.  A missing file is a ConfigError
    when it was asked for (required), else nothing."""
    path = Path(path)
    if not path.is_file():
        if required:
            raise ConfigError(f"{path}: no such config file")
        return
    try:
        document = yaml.safe_load(path.read_text()) or {}
    except (OSError, yaml.YAMLError) as err:
        raise ConfigError(f"{path}: not a readable YAML file "
                          f"({' '.join(str(err).split())})") from None
    if not isinstance(document, dict):
        raise ConfigError(f"{path}: a config file is a mapping of keys")
    schema = yaml.safe_load(SCHEMA.read_text())
    section = {"define": document.get("define") or {}}
    _validate(section, {**schema, "required": [], "properties": {
        "define": schema["properties"]["define"]}}, str(path))
    define_puzzles(section, str(path))


def problem_set(config, puzzle, queries, k):
    """The config entry of one problem set; the defaults if the set was asked for by file
    name only (e.g. `snakemake results/eight/problems/blank-at-goal_k24.txt`)."""
    for entry in config["problem_sets"]:
        if (entry["puzzle"], entry["queries"], entry["k"]) == (puzzle, queries, int(k)):
            return entry
    return {"puzzle": puzzle, "queries": queries, "k": int(k),
            **problem_set_defaults(yaml.safe_load(SCHEMA.read_text()))}


def problem_set_defaults(schema):
    """The defaults the schema gives the keys of a problem set."""
    keys = schema["properties"]["problem_sets"]["items"]["properties"]
    return {key: spec["default"] for key, spec in keys.items() if "default" in spec}


def search_mem_mb(name):
    """mem_mb of a build job of the puzzle, for Snakemake's scheduler."""
    return job_mb(puzzles.get(name))


# A search of fewer states than this runs on one thread whatever config `threads` says: its
# BFS takes well under a second, a second thread would save a fraction of that, and the
# core it would hold lets Snakemake start another puzzle's job instead.
ONE_THREAD_STATES = 1 << 25


def search_threads(name, threads):
    """Threads of a build job of the puzzle: config `threads`, or one for a small space."""
    return 1 if puzzles.get(name).size < ONE_THREAD_STATES else threads


def pdb_labels(name, partition):
    """The tables (named by their tiles) of one additive partition of a puzzle."""
    return puzzles.get(name).additive_partitions()[partition].labels


def pdb_job_mb(name, partition, label):
    """mem_mb of the job building one additive pattern database table."""
    part = puzzles.get(name).additive_partitions()[partition]
    return pattern_job_mb(part.width * part.height, len(label))
