"""`puzzledb info`: what a puzzle is (its definition, size and key), what its searches need
(memory, and the disk a distances table takes), and what is stored for it (its database,
its additive pattern databases)."""

from pathlib import Path

from puzzledb import paths, puzzles
from puzzledb.config import defaults
from puzzledb.errors import PuzzledbError
from puzzledb.puzzles.capabilities import Catalogued
from puzzledb.query.database import DepthDatabase
from puzzledb.query.kinds import KINDS
from puzzledb.store import DISTANCES, LAYERS, label_modulus
from puzzledb.store.distances import table_bytes


def describe(puzzle, results, pdbs, out):
    """The definition, its size and memory, what store: distances would take on disk, the
    stored database under `results` and the additive pattern databases (pdbs: the files
    given for it on the command line)."""
    print(f"puzzle        {puzzle.name}: {puzzle.description}", file=out)
    print(f"defined       {puzzles.declaration(puzzle.name)}", file=out)
    if isinstance(puzzle, Catalogued):
        for label, text in puzzle.info_lines():
            print(f"{label:13s} {text}", file=out)
        return
    print(f"hash          {puzzle.definition_hash()} "
          f"(ranking {puzzle.definition()['ranking']})", file=out)
    print(f"rank space    {puzzle.rank_space()}", file=out)
    for label, text in puzzle.info_lines():
        print(f"{label:13s} {text}", file=out)
    board = len(puzzle.symmetries())  # the analyses' orbits, not the search's classes
    print("orbits        " + (f"under {board + 1} board symmetries (summary_symmetry.csv)"
                              if board else "none: no board symmetry keeps the goal"), file=out)
    words = puzzle.key_words
    bounds = ", ".join(f"{b:,}" for b in puzzle.key_bounds())
    if words == 1 and not puzzle.ranks_fit:  # a sliding board past 2^64 (the 24-puzzle)
        print("key           none: its ranks pass 64 bits, and this family has no wider key",
              file=out)
    else:
        print(f"key           {words} word{'s' * (words > 1)} of 64 bits (below {bounds}): "
              f"{8 * words} bytes a stored state before compression", file=out)
    if words > 1:
        print(f"search memory frontier search only (keys of {words} words: no in-memory "
              f"search), a job's bounded by its piece or segment; a prefix with depth_limit "
              f"unless the space is sparse (reachable)", file=out)
    elif puzzle.ranks_fit:
        print(f"search memory {KINDS[LAYERS].search_bytes(puzzle) / 2**20:,.1f} MiB in "
              f"memory (frontier mode: bounded by segment)", file=out)
        if not puzzle.graded:  # what store: distances would take
            print(f"table         {table_bytes(puzzle) / 2**20:,.1f} MiB on disk with "
                  f"store: distances (depth modulo {label_modulus(puzzle)}), its search "
                  f"{KINDS[DISTANCES].search_bytes(puzzle) / 2**20:,.1f} MiB", file=out)
    else:
        print("search memory none: ranks beyond 64 bits, no database (tree search)",
              file=out)
    try:
        with DepthDatabase.open(puzzle.name, results) as db:
            contents = f" ({db.kind.contents})" if db.kind.contents else ""
            states = (f"{sum(db.positions):,} positions in {db.total:,} classes"
                      if db.symmetric else f"{db.total:,} states")
            print(f"database      {states}, max depth {db.max_depth}, "
                  f"{db.extent()}, built {db.manifest.get('mode', 'in-memory')}, "
                  f"store {db.kind.name}{contents}, in {db.store.directory}", file=out)
    except PuzzledbError as err:
        print(f"database      none ({err})", file=out)
    if (puzzle.additive_partitions() or pdbs
            or Path(paths.pattern_partitions(results, puzzle.name)).is_dir()):
        from puzzledb.solvers import additive  # loads numba: only when there is any

        for line in additive.describe(puzzle, results, defaults()["threads"],
                                      pdbs):
            print(f"additive pdbs {line}", file=out)
