"""The workflow configuration, checked once: validated against the schema shipped in the
package (schemas/config.schema.yaml, which also gives every default), plus the checks a
schema cannot make; errors are one line naming the key.  The puzzles a config declares under
`define:` are registered (puzzles.define) for the workflow, its jobs and the command line
alike.  Each puzzle's search plan is made here, once (search_plan): the rules hand it to
their jobs as it is, and `puzzledb build` makes its own by the same call, on the settings
the command line reads (command_settings).  It loads no compiled code, so parsing the
Snakefile stays quick."""

from functools import cache
from importlib.resources import files
from pathlib import Path

from puzzledb import puzzles, yamltext
from puzzledb.bfs import select
from puzzledb.errors import BudgetError, ChoiceError, ConfigError, PuzzleError
from puzzledb.puzzles.capabilities import Catalogued
from puzzledb.query.kinds import KINDS
from puzzledb.store import LAYERS

# package data, so that an installed wheel finds it as a source tree does
SCHEMA = files("puzzledb") / "schemas" / "config.schema.yaml"


@cache
def schema():
    return yamltext.load(SCHEMA.read_text())


def defaults():
    """The default of every top-level key that has one (the schema's), e.g. memory_mb."""
    return {key: spec["default"] for key, spec in schema()["properties"].items()
            if "default" in spec}


def check_config(config, source="config"):
    """Validate `config` in place (filling defaults) and register its `define:` puzzles;
    ConfigError naming the first problem.  source: the config file, for messages.  Returns
    the config."""
    checked_search_plans(config, source)
    return config


def checked_search_plans(config, source="config"):
    """check_config, and the search plans it computed (search_plans): what the workflow
    reads, so that they are computed once per parse."""
    _typed_from_command_line(config, schema())
    _validate(config, schema(), source)
    for key, value in defaults().items():
        config.setdefault(key, value)
    if not config["puzzles"] and not config["catalogues"]:
        raise ConfigError(f"{source}: puzzles: empty, and no catalogues: nothing to build "
                          f"(list a puzzle, or a catalogue under catalogues)")
    define_puzzles(config, source)
    for key in ("shards", "depth_limit", "store", "symmetry"):
        for name in config[key]:
            if name not in config["puzzles"]:
                raise ConfigError(f"{source}: {key}.{name}: {name!r} is not in puzzles")
    _check_catalogues(config, source)
    plans = search_plans(config, source)
    config["pdbs"] = pattern_partitions(config["pdbs"], source)
    _check_problem_sets(config, plans, source)
    return plans


def _check_catalogues(config, source):
    """Catalogues listed under catalogues (and their jobs), puzzles under puzzles."""
    for name in config["catalogues"]:
        try:
            puzzle = puzzles.get(name)
        except PuzzleError as err:
            raise ConfigError(f"{source}: catalogues: {err}") from None
        if not isinstance(puzzle, Catalogued):
            raise ConfigError(f"{source}: catalogues: {name!r} is a puzzle (a catalogue is "
                              f"a blocks definition with catalogue: instead of board:)")
    for name in config["catalogue_jobs"]:
        if name not in config["catalogues"]:
            raise ConfigError(f"{source}: catalogue_jobs.{name}: {name!r} is not in "
                              f"catalogues")
    for name in config["puzzles"]:
        if name in puzzles.names() and isinstance(puzzles.get(name), Catalogued):
            raise ConfigError(f"{source}: puzzles: {name!r} is a catalogue: list it under "
                              f"catalogues")


def _check_problem_sets(config, plans, source):
    """Each problem set's defaults filled, and ConfigError unless its puzzle is listed, has
    the query set, and keeps the layers matching reads (its plan's store)."""
    for i, entry in enumerate(config["problem_sets"]):
        where = f"{source}: problem_sets.{i}"
        for key, value in problem_set_defaults().items():
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
        store = plans[puzzle.name].store
        if not store.layers:
            raise ConfigError(f"{where}: matching reads the goal layers, and {puzzle.name} "
                              f"keeps {store.name} only (store: {store.name})")
        if plans[puzzle.name].symmetric:
            raise ConfigError(f"{where}: matching reads every position of the goal layers, "
                              f"and {puzzle.name}'s keep one a class (symmetry: "
                              f"{{{puzzle.name}: none}} keeps them all)")


def pattern_partitions(pdbs, source="config"):
    """The config's `pdbs` with every partition by its name (Puzzle.additive_partition: a
    partition given as groups of tiles is checked and named by its groups), so that the
    workflow's files and the command line's `additive:<name>` say the same."""
    named = {}
    for name, partitions in pdbs.items():
        try:
            puzzle = puzzles.get(name)
        except PuzzleError as err:
            raise ConfigError(f"{source}: pdbs: {err}") from None
        named[name] = []
        for i, spec in enumerate(partitions):
            try:
                partition = puzzle.additive_partition(spec)
            except PuzzleError as err:
                raise ConfigError(f"{source}: pdbs.{name}.{i}: {err}") from None
            if partition.name in named[name]:
                raise ConfigError(f"{source}: pdbs.{name}.{i}: partition {partition.name} "
                                  f"is listed twice")
            named[name].append(partition.name)
    return named


def search_plans(config, source="config"):
    """name -> bfs.select.SearchPlan of every puzzle of a checked config: how the workflow
    builds it (the rules read this, and never choose themselves)."""
    return {name: search_plan(config, name, source) for name in config["puzzles"]}


def search_plan(config, name, source="config"):
    """The SearchPlan of one puzzle under a checked config (its entries under shards,
    depth_limit, store and symmetry; memory_mb, checkpoint_minutes and job_states);
    ConfigError naming the key that asked for what cannot be, or the budget it exceeds."""
    try:
        puzzle = puzzles.get(name)
    except PuzzleError as err:
        raise ConfigError(f"{source}: puzzles: {err}") from None
    try:
        return select.choose(puzzle, KINDS[config["store"].get(name, LAYERS)],
                             config["memory_mb"], shards=config["shards"].get(name),
                             depth_limit=config["depth_limit"].get(name),
                             checkpoint_minutes=config["checkpoint_minutes"],
                             job_states=config["job_states"],
                             symmetry=config["symmetry"].get(name, "default"))
    except ChoiceError as err:  # it names the key that asked for what cannot be
        where = err.key if err.key == "puzzles" else f"{err.key}.{name}"
        raise ConfigError(f"{source}: {where}: {err}") from None
    except BudgetError as err:
        raise ConfigError(f"{source}: {err}") from None


def _typed_from_command_line(document, spec):
    """Snakemake's --config gives the values inside a map as strings (`depth_limit={fifteen:
    20}` arrives as {'fifteen': '20'}): where the schema asks for an integer or a boolean
    and a string spells one, the value is converted in place, so that any key can be set
    on the command line."""
    if isinstance(document, dict):
        properties = _properties(document, spec)
        for key, value in document.items():
            inner = properties.get(key, spec.get("additionalProperties"))
            if isinstance(inner, dict):
                document[key] = _typed(value, inner)
                _typed_from_command_line(document[key], inner)
    elif isinstance(document, list) and isinstance(spec.get("items"), dict):
        for i, value in enumerate(document):
            item = _branch(value, spec["items"])
            document[i] = _typed(value, item)
            _typed_from_command_line(document[i], item)


def _branch(value, spec):
    """The `anyOf` branch of spec that a value of this shape takes (a list: the array's; a
    pdbs partition is a name or groups of tiles), else spec itself."""
    for branch in spec.get("anyOf", []):
        if isinstance(value, list) == (branch.get("type") == "array"):
            return branch
    return spec


def _properties(document, spec):
    """The schema of each key of a map: its `properties`, and those of every `allOf` branch
    whose `if` the map meets (a definition's parameters, by its family)."""
    properties = dict(spec.get("properties", {}))
    for branch in spec.get("allOf", []):
        import jsonschema  # as in _validate: only where a branch is to be told

        if "if" in branch and jsonschema.Draft202012Validator(branch["if"]).is_valid(document):
            properties.update(branch.get("then", {}).get("properties", {}))
    return properties


def _typed(value, spec):
    if not isinstance(value, str):
        return value
    kinds = spec.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds or []
    if "integer" in kinds and value.strip().lstrip("-").isdigit():
        return int(value)
    if "boolean" in kinds and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return value


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
    """Register the `define:` puzzles of a config file (command_settings), and return its
    `pdbs`, every partition by its name ({} when the file does not set it)."""
    return command_settings(path, required)[0]["pdbs"]


def command_settings(path, required=True):
    """The config file as the command line reads it: checked against the schema as the
    workflow checks it (an unknown or misspelt key is an error here as there), its
    `define:` puzzles registered, every key it leaves out at the schema's default but
    `pdbs`, which is the file's ({} when it does not set it), every partition by its name.
    Returns (settings, the file's name, None when there is no file).  A missing file is a
    ConfigError when it was asked for (required), else the defaults alone."""
    path = Path(path)
    if not path.is_file():
        if required:
            raise ConfigError(f"{path}: no such config file")
        return {**defaults(), "pdbs": {}}, None
    try:
        document = yamltext.load(path.read_text()) or {}
    except (OSError, yamltext.Error) as err:
        raise ConfigError(f"{path}: not a readable YAML file "
                          f"({' '.join(str(err).split())})") from None
    if not isinstance(document, dict):
        raise ConfigError(f"{path}: a config file is a mapping of keys")
    # the whole file against the schema; `puzzles` is the workflow's to require
    _validate(document, {**schema(), "required": []}, str(path))
    define_puzzles(document, str(path))
    # the partitions too, so that a bad one is the workflow's line here as well
    pdbs = pattern_partitions(document.get("pdbs") or {}, str(path))
    return {**defaults(), **document, "pdbs": pdbs}, str(path)


def problem_set(config, puzzle, queries, k):
    """The config entry of one problem set; the defaults if the set was asked for by file
    name only (e.g. `snakemake results/eight/problems/blank-at-goal_k24.txt`)."""
    for entry in config["problem_sets"]:
        if (entry["puzzle"], entry["queries"], entry["k"]) == (puzzle, queries, int(k)):
            return entry
    return {"puzzle": puzzle, "queries": queries, "k": int(k),
            **problem_set_defaults()}


def problem_set_defaults():
    """The defaults the schema gives the keys of a problem set."""
    keys = schema()["properties"]["problem_sets"]["items"]["properties"]
    return {key: spec["default"] for key, spec in keys.items() if "default" in spec}
