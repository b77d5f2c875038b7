"""The designer's table: for a box and a set of pieces, every placement of them, which can
reach the goal and how far, and how they fall apart into components (sets of placements
joined by moves).  It is read from a database whose ranks number every placement
(Puzzle.every_placement: sliding blocks), whose layers are the placements that reach the goal,
and from the components of the whole rank space (compiled/components.py).

results/<puzzle>/design.csv holds it (distance,placements,cumulative,components: distance -1
the placements that cannot reach the goal, components the number of components whose
farthest placement is at that distance); `puzzledb design` prints it with the farthest starts.
"""

import csv
import io
from dataclasses import dataclass

import numpy as np

from puzzledb.errors import PuzzleError
from puzzledb.report import analysis
from puzzledb.store.files import write_text

COLUMNS = ("distance", "placements", "cumulative", "components")


@dataclass
class Design:
    """A designer's table: rows (distance, placements, cumulative, components), distance -1
    first (placements that cannot reach the goal), and the farthest starts' boards."""

    rows: list
    farthest: list

    @property
    def placements(self):
        return self.rows[-1][2]

    @property
    def solvable(self):
        return sum(p for d, p, _, _ in self.rows if d >= 0)

    @property
    def components(self):
        return sum(c for _, _, _, c in self.rows)


def design(db):
    """The designer's table of a finished database (query.database.DepthDatabase).  Holds
    10 bytes a placement: each one's component (8) and distance (2).  PuzzleError when its
    ranks are not every placement, or the database is partial or keeps no layers."""
    puzzle = db.puzzle
    if not puzzle.every_placement:
        raise PuzzleError(f"{puzzle.name}: its ranks do not number every placement of its "
                          f"pieces, so it has no designer's table")
    if db.partial or not db.kind.layers:
        raise PuzzleError(f"{puzzle.name}: the designer's table needs every layer "
                          f"(this database is "
                          f"{'partial' if db.partial else 'store: ' + db.kind.name})")
    from puzzledb.compiled.components import components  # numba: only when computed

    roots = components(puzzle.size, puzzle.max_moves, puzzle.work_size, puzzle.tables())
    depth = np.full(puzzle.size, -1, dtype=np.int16)
    for d in range(db.max_depth + 1):
        depth[db.positions_at(d).astype(np.int64)] = d
    farthest = np.full(puzzle.size, -1, dtype=np.int16)
    np.maximum.at(farthest, roots, depth)  # each component's farthest distance, at its root
    far = farthest[roots == np.arange(puzzle.size)]
    placements = np.bincount(depth.astype(np.int64) + 1, minlength=db.max_depth + 2)
    components = np.bincount(far.astype(np.int64) + 1, minlength=db.max_depth + 2)
    rows = []
    cumulative = 0
    for d in range(-1, db.max_depth + 1):
        cumulative += int(placements[d + 1])
        rows.append((d, int(placements[d + 1]), cumulative, int(components[d + 1])))
    return Design(rows, analysis.antipodes(db))


def write_design(path, table):
    """design.csv: the rows, nothing else (it loads as it is in any CSV reader)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(table.rows)
    write_text(path, out.getvalue())


def read_design(path):
    with open(path) as f:
        return [tuple(int(r[c]) for c in COLUMNS) for r in csv.DictReader(f)]


def summary_line(name, rows):
    """One line: how many placements, how many reach the goal, in how many components."""
    total = rows[-1][2]
    solvable = sum(p for d, p, _, _ in rows if d >= 0)
    joined = sum(c for d, _, _, c in rows if d >= 0)
    return (f"{name}: {total:,} placements of its pieces in {sum(r[3] for r in rows):,} "
            f"components; {solvable:,} reach the goal ({100 * solvable / total:.1f}%), in "
            f"{joined:,} of them")


def lines(name, table, limit=10):
    """The table as `puzzledb design` prints it: the summary line, the rows, the farthest
    starts (at most `limit`)."""
    out = [summary_line(name, table.rows),
           f"{'distance':>8} {'placements':>12} {'cumulative':>12} {'components':>10}"]
    out += [f"{'none' if d < 0 else d:>8} {p:>12,} {c:>12,} {k:>10,}"
            for d, p, c, k in table.rows]
    shown = table.farthest[:limit]
    more = f", the first {len(shown)}" if len(table.farthest) > limit else ""
    out.append(f"farthest from the goal: {len(table.farthest):,} placements at "
               f"{table.rows[-1][0]} moves{more}:")
    return out, shown
