"""Additive partitions of a sliding puzzle's tiles (solvers/additive.py builds and searches
their tables): the named ones of a board shape, and those given as data, groups of tiles,
checked and named by their tiles.  Plain Python: the config check and the workflow read
partitions without loading a kernel.

Tile n is the tile the decimal notation writes n, symbol n of 0-9a-z (int(symbol, 36)).
"""

import re

from puzzledb.errors import PuzzleError
from puzzledb.puzzles.capabilities import TilePartition

# Named additive partitions of a board shape as the goal cells of each group's tiles,
# strongest first, for a goal whose blank is in the bottom right cell.  4x4, 7-8: the top two
# rows and the rest, the split of Korf and Felner (2002) (turned by 180 degrees, their goal
# having the blank top left).  6-6-3: the left column with the middle of column 1, the right
# block with the bottom row's last two, and the top row's right three.  5x5, 6-6-6-6: Korf and
# Felner's four groups of six for the 24-puzzle, {1,2,5,6,7,12} {3,4,8,9,13,14}
# {10,11,15,16,20,21} {17,18,19,22,23,24} (tile t's home is cell t, the blank's cell 0),
# turned by 180 degrees: their cell c is our cell 24 - c.
NAMED_PARTITIONS = {
    (4, 4): {
        "7-8": ((0, 1, 2, 3, 4, 5, 6, 7), (8, 9, 10, 11, 12, 13, 14)),
        "6-6-3": ((0, 4, 5, 8, 9, 12), (6, 7, 10, 11, 13, 14), (1, 2, 3)),
    },
    (5, 5): {
        "6-6-6-6": ((0, 1, 2, 5, 6, 7), (3, 4, 8, 9, 13, 14), (10, 11, 15, 16, 20, 21),
                    (12, 17, 18, 19, 22, 23)),
    },
}
GROUPS_NAME = re.compile(r"[1-9a-z]+(-[1-9a-z]+)*")  # a partition named by its groups' tiles
MAX_GROUP_FREE = 32  # free cells a group leaves: 2 bits each in the build's 64-bit word


def named(puzzle):
    """The named partitions of the puzzle's board shape (NAMED_PARTITIONS) when its tiles
    are distinct and its blank's goal is the bottom right cell; none otherwise (partitions
    given as groups still work)."""
    shapes = NAMED_PARTITIONS.get((puzzle.width, puzzle.height), {})
    if refusal(puzzle) or puzzle.goal_blank != puzzle.cells - 1:
        return {}
    return {name: puzzle.partition(name, groups) for name, groups in shapes.items()}


def partition_of(puzzle, spec):
    """A partition given as a name (a named one, or the symbols of each group's tiles
    joined by '-', the name a partition given as groups gets) or as groups of tiles (tile
    numbers as the decimal notation writes them: tile n is symbol n).  Its groups are
    disjoint and cover every tile, each group's tiles in ascending order, the groups
    ordered by their first tile; its name is their symbols joined by '-' (e.g.
    `1256-3478`), in paths and in `--heuristic additive:<name>`.  PuzzleError naming
    the problem otherwise."""
    why = refusal(puzzle)
    if why:
        raise PuzzleError(f"{puzzle.name}: {why}")
    known = named(puzzle)
    if isinstance(spec, str):
        if spec in known:
            return known[spec]
        if not GROUPS_NAME.fullmatch(spec):
            raise PuzzleError(
                f"{puzzle.name}: no additive partition {spec!r} (named: "
                f"{', '.join(known) or 'none'}; or groups of tiles, named by their "
                f"symbols joined by '-', e.g. {_example_name(puzzle)})")
        strange = sorted(set(spec) - set(puzzle.symbols[1:]) - {"-"})
        if strange:
            raise PuzzleError(f"{puzzle.name}: additive partition {spec!r} names "
                              f"{', '.join(map(repr, strange))}, not a tile")
        try:
            partition = _of_groups(puzzle, 
                [[int(ch, 36) for ch in label] for label in spec.split("-")])
        except PuzzleError as err:
            raise PuzzleError(f"{puzzle.name}: no additive partition {spec!r} (named: "
                              f"{', '.join(known) or 'none'}; read as groups of tiles: "
                              f"{str(err).removeprefix(puzzle.name + ': ')})") from None
        if partition.name != spec:
            raise PuzzleError(f"{puzzle.name}: additive partition {spec!r} is written "
                              f"{partition.name!r} (tiles ascending, groups by first "
                              f"tile)")
        return partition
    return _of_groups(puzzle, spec)

def refusal(puzzle):
    """Why the puzzle has no additive pattern databases, or None: its numbering's reason
    (they need distinct tiles), its metric's (they count single-tile moves), its size's."""
    why = puzzle.ranking.additive_refusal or puzzle.metric.additive_refusal
    if why:
        return why
    if puzzle.cells > 63:
        return "additive pattern databases take at most 63 cells (int64 cell masks)"
    return None

def _example_name(puzzle):
    tiles = puzzle.symbols[1:]
    half = len(tiles) // 2
    return f"{tiles[:half]}-{tiles[half:]}"

def _of_groups(puzzle, groups):
    """The TilePartition of groups of tile numbers, checked (see additive_partition)."""
    tiles = set(range(1, len(puzzle.symbols)))
    number = {int(s, 36): puzzle.code[s] for s in puzzle.symbols[1:]}  # tile n -> code
    if not isinstance(groups, (list, tuple)) or not groups:
        raise PuzzleError(f"{puzzle.name}: a partition is a list of groups of tiles")
    seen = {}
    codes = []
    for i, group in enumerate(groups, 1):
        if not isinstance(group, (list, tuple)) or not group:
            raise PuzzleError(f"{puzzle.name}: group {i} of the partition is not a "
                              f"non-empty list of tiles")
        members = []
        for t in group:
            if isinstance(t, bool) or not isinstance(t, int) or t not in number:
                raise PuzzleError(f"{puzzle.name}: group {i} has {t!r}, not a tile (tiles "
                                  f"are {', '.join(str(n) for n in sorted(number))})")
            if t in seen:
                where = (f"twice in group {i}" if seen[t] == i else
                         f"in groups {seen[t]} and {i}")
                raise PuzzleError(f"{puzzle.name}: tile {t} is {where}; groups are "
                                  f"disjoint")
            seen[t] = i
            members.append(number[t])
        if puzzle.cells - len(members) > MAX_GROUP_FREE:
            raise PuzzleError(f"{puzzle.name}: group {i} has {len(members)} tiles; a "
                              f"group leaves at most {MAX_GROUP_FREE} free cells "
                              f"(2 bits each in a 64-bit word while it is built)")
        codes.append(sorted(members))
    missing = sorted(n for n, c in number.items() if c in tiles - {c for g in codes
                                                                     for c in g})
    if missing:
        raise PuzzleError(f"{puzzle.name}: tile{'s' * (len(missing) > 1)} "
                          f"{', '.join(map(str, missing))} in no group; a partition "
                          f"covers every tile")
    codes.sort()
    labels = tuple("".join(puzzle.symbols[c] for c in g) for g in codes)
    return TilePartition("-".join(labels), puzzle.width, puzzle.height,
                         tuple(int(p) for p in puzzle.goal), tuple(tuple(g) for g in codes),
                         labels)
