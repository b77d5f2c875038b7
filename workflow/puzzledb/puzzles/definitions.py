"""Every puzzle is declared as data: a family and the family's parameters.  The built-in
puzzles are declared in builtin.yaml (BUILTIN), in the syntax of config.yaml's `define:`,
which declares more of the same kind (schema-checked by config.py, registered by
puzzles.define).  `build` turns either into a Puzzle, so there is one way to make a puzzle.

A family is a Puzzle class (or a function choosing one: blocks, a puzzle or a catalogue)
whose constructor takes the name, the family's parameters as keywords (their defaults are
the defaults of a definition) and a description; it raises DefinitionError naming the
parameter at fault.
"""

import inspect
from importlib.resources import files
from pathlib import Path

from puzzledb import yamltext
from puzzledb.errors import ConfigError, DefinitionError
from puzzledb.puzzles.blocks import blocks
from puzzledb.puzzles.domino.puzzle import DominoPuzzle
from puzzledb.puzzles.flipit.puzzle import FlipItPuzzle
from puzzledb.puzzles.pegs.puzzle import PegSolitaire
from puzzledb.puzzles.permutation.puzzle import PermutationPuzzle
from puzzledb.puzzles.sliding.puzzle import SlidingPuzzle

FAMILIES = {"sliding": SlidingPuzzle, "domino": DominoPuzzle, "flipit": FlipItPuzzle,
            "pegs": PegSolitaire, "permutation": PermutationPuzzle, "blocks": blocks}

# read as package data, so that an installed wheel finds it as a source tree does
BUILTIN_FILE = files("puzzledb.puzzles") / "builtin.yaml"
BUILTIN = yamltext.load(BUILTIN_FILE.read_text())


def parameters(family):
    """The parameters of a family: name -> default (inspect.Parameter.empty if required)."""
    signature = inspect.signature(FAMILIES[family])
    return {name: p.default for name, p in signature.parameters.items()
            if name not in ("name", "description")}


def build(name, definition, where=None, base=None):
    """The Puzzle a definition declares.  `where` says where the definition stands (e.g.
    "config.yaml: define.ten") for the one-line ConfigError naming the key at fault; a
    relative `file:` parameter is a path from the directory `base` (the config's; None: the
    working directory)."""
    where = where or f"built-in puzzle {name}"
    spec = dict(definition)
    if isinstance(spec.get("file"), str) and base is not None:
        spec["file"] = str(Path(base) / spec["file"])
    family = spec.pop("family", None)
    if family not in FAMILIES:
        known = ", ".join(FAMILIES)
        what = f"unknown family {family!r}" if family else "no family given"
        raise ConfigError(f"{where}.family: {what} (known: {known})")
    description = spec.pop("description", "")
    known = parameters(family)
    for key in spec:
        if key not in known:
            raise ConfigError(f"{where}.{key}: not a parameter of the {family} family "
                              f"(its parameters: {', '.join(known)})")
    for key, default in known.items():
        if default is inspect.Parameter.empty and key not in spec:
            raise ConfigError(f"{where}.{key}: missing; the {family} family needs it")
    try:
        return FAMILIES[family](name, description=description, **spec)
    except DefinitionError as err:
        raise ConfigError(f"{where}.{err.key}: {err.message}") from None
