"""The puzzles by name: the built-in definitions (definitions.py) and those a config declares
under `define:` (registered with `define`).  The engine, the store and the queries look
puzzles up here and nowhere else."""

from importlib.resources import files
from pathlib import Path

import yaml

from puzzledb.errors import ConfigError, PuzzleError
from puzzledb.puzzles.definitions import BUILTIN, build

BUILT_IN = "built-in"

_defined = {}  # name -> (definition, where it was declared), from configs
_cache = {}


def define(definitions, source="config"):
    """Declare the puzzles of a config's `define:` map (name -> definition), read from
    `source` (a file name, for messages and `puzzledb list`).  Each is built at once, so a
    bad definition is a one-line ConfigError naming its key.  Declaring a name again
    replaces its definition; a built-in name cannot be declared."""
    for name, definition in (definitions or {}).items():
        where = f"{source}: define.{name}"
        if name in BUILTIN:
            raise ConfigError(f"{where}: {name!r} is a built-in puzzle; choose another name")
        if _defined.get(name, (None,))[0] == definition:
            continue
        base = Path(source).parent if Path(source).is_file() else None
        _cache[name] = build(name, definition, where, base)
        _defined[name] = (dict(definition), source)


def names():
    return sorted({*BUILTIN, *_defined})


def of_family(family):
    """The names of the puzzles known (built in, or defined) of `family`, and of the
    family's example files shipped with the package (the permutation family's
    examples/*.tws, defined here as `example-<file>`), sorted; [] for an unknown family."""
    if family == "permutation":
        shipped = files("puzzledb.puzzles.permutation") / "examples"
        define({f"example-{Path(str(path)).stem}": {"family": family, "file": str(path)}
                for path in shipped.iterdir() if path.name.endswith(".tws")}, "examples")
    return [name for name in names() if definition(name).get("family") == family]


def get(name):
    """The puzzle called name; PuzzleError naming the known ones if there is none."""
    if name not in BUILTIN and name not in _defined:
        raise PuzzleError(f"unknown puzzle {name!r}; known: {', '.join(names())}")
    if name not in _cache:
        _cache[name] = build(name, BUILTIN[name])
    return _cache[name]


def source(name):
    """Where a puzzle is declared: BUILT_IN, or the config file of its definition."""
    get(name)
    return BUILT_IN if name in BUILTIN else _defined[name][1]


def definition(name):
    """The definition a puzzle was built from (family and parameters), as declared."""
    get(name)
    return dict(BUILTIN[name]) if name in BUILTIN else dict(_defined[name][0])


def declaration(name):
    """One line: where the puzzle is defined, and its definition in config.yaml's syntax
    (a board drawn on several lines is written on one, rows separated by spaces)."""
    spec = {key: " ".join(value.split()) if isinstance(value, str) else value
            for key, value in definition(name).items() if key != "description"}
    text = yaml.safe_dump(spec, default_flow_style=True, sort_keys=False, width=10**6).strip()
    where = source(name)
    return f"{where}: {text}" if where == BUILT_IN else f"in {where}: {name}: {text}"
