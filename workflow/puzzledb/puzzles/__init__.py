"""The puzzles by name.  Each is declared as data in definitions.py; the engine, the store and
the queries look puzzles up here and nowhere else."""

from ..errors import PuzzleError
from .definitions import BUILTIN, build

_cache = {}


def names():
    return sorted(BUILTIN)


def get(name):
    """The puzzle called name; PuzzleError naming the known ones if there is none."""
    if name not in BUILTIN:
        raise PuzzleError(f"unknown puzzle {name!r}; known: {', '.join(names())}")
    if name not in _cache:
        _cache[name] = build(name, BUILTIN[name])
    return _cache[name]
