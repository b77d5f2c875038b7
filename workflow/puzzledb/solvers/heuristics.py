"""Which lower bound a spec names: a puzzle's own bounds (Puzzle.heuristics), pattern
databases read from stored depth databases of an abstraction ("pdb:<puzzle>"), the max of
several, and additive pattern databases ("additive:<partition>", searched by their own
kernel, additive_search.py).  Built once per process: compiling and loading take a while."""

import numpy as np

from puzzledb.compiled.bounds import max_bound
from puzzledb.query.database import DepthDatabase
from puzzledb.errors import PuzzleError, SearchError
from puzzledb.puzzles.capabilities import PatternBounds
from puzzledb.solvers.additive import built, load

ADDITIVE = "additive:"
_built = {}


def default_heuristic(puzzle, results=None):
    """The name of the bound IDA* uses when none is named: the strongest additive pattern
    databases of the puzzle built in `results` (when given), else the puzzle's preferred
    bound.  SearchError for a puzzle that has neither."""
    if results is not None:
        for name in built(puzzle, results):
            return ADDITIVE + name
    names = list(puzzle.heuristics())
    if not names and not puzzle.ranks_fit:
        raise SearchError(f"{puzzle.name}: {puzzle.rank_space()}, beyond 64-bit ranks: it is "
                          f"searched by IDA* with its additive pattern databases only, and "
                          f"none is built in {results} (snakemake pdbs --config "
                          f"'pdbs={{\"{puzzle.name}\": [...]}}')")
    if not names:
        raise SearchError(f"{puzzle.name}: no lower bound is known; use --search iddfs "
                          f"or --heuristic pdb:<puzzle>")
    return names[0]


def lower_bound(puzzle, spec, results="results"):
    """The bound named by spec: one of the puzzle's heuristics (e.g. "manhattan",
    "corner"), "pdb:<puzzle>" (the stored database of an abstraction, read from results),
    or several of them joined by commas, combined by max."""
    parts = [p.strip() for p in str(spec).split(",") if p.strip()]
    if not parts:
        raise SearchError(f"empty heuristic {spec!r}")
    bounds = []
    for part in parts:
        key = (puzzle.name, part, str(results) if part.startswith("pdb:") else None)
        if key not in _built:
            _built[key] = _build(puzzle, part, results)
        bounds.append(_built[key])
    return max_bound(bounds)


def _build(puzzle, part, results):
    own = puzzle.heuristics()
    if part in own:
        return own[part]()
    if part.startswith("pdb:"):
        with DepthDatabase.open(part[4:], results) as db:
            return pattern_database(puzzle, db)
    if part.startswith(ADDITIVE):
        raise SearchError(f"{part} is a bound of its own search; it does not combine with "
                          f"other bounds (it is never below Manhattan distance)")
    known = ", ".join(list(own) + ["pdb:<puzzle>"] +
                      [ADDITIVE + name for name in puzzle.additive_partitions()])
    raise SearchError(f"{puzzle.name}: unknown heuristic {part!r}; use {known}")


def additive_database(puzzle, spec, results="results"):
    """The tables a spec "additive:<partition>" names, read from results once per process."""
    name = spec.removeprefix(ADDITIVE)
    try:
        puzzle.additive_partition(name)
    except PuzzleError as err:
        raise SearchError(f"unknown heuristic {spec!r}: {err}") from None
    key = (puzzle.name, spec, str(results))
    if key not in _built:
        _built[key] = load(puzzle, name, results)
    return _built[key]


def pattern_depths(db):
    """The depth of every rank of a complete database, as a dense uint8 array (one byte a
    state: 5.8 MB for fifteen-6colour), filled layer by layer through the store."""
    size = db.puzzle.size
    if db.total != size or db.max_depth > 254:
        raise PuzzleError(f"{db.puzzle.name}: a pattern database needs every rank stored "
                          f"({db.total:,} of {size:,})")
    depths = np.full(size, 255, dtype=np.uint8)
    for depth in range(db.max_depth + 1):
        for ranks in db.layer(depth).iter_chunks():
            depths[ranks.astype(np.int64)] = depth
    return depths


def pattern_database(puzzle, db):
    """The bound read from db, the database of an abstraction of puzzle (see
    puzzles.capabilities.PatternBounds; a puzzle without them is refused before db is
    read)."""
    return puzzle.capability(PatternBounds).pattern_bound(db.puzzle, pattern_depths(db))

