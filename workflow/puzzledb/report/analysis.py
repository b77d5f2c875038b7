"""Products mined from a finished database: summary.csv, antipodes.txt and the counts up to
symmetry (the plot is plots.py's, the HTML page over them all page.py's).  Each reads the
layers through DepthDatabase and writes one file atomically (files.write_text).
"""

import csv
import io

import numpy as np

from puzzledb.puzzles.base import show_boards
from puzzledb.store.files import write_text


def write_summary(db, path):
    """summary.csv: depth,count,cumulative, nothing else, so that it loads as it is in any
    CSV reader (pandas, R, a spreadsheet).  That a database is partial is the manifest's
    (depth_limit) and the report's to say, not a comment line here."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["depth", "count", "cumulative"])
    writer.writerows(db.summary())
    write_text(path, out.getvalue())


def antipodes(db):
    """Board strings of the deepest layer, in rank order; none for a partial database,
    whose deepest stored layer is not the deepest of the space.  A counts-only database
    keeps the deepest layer whole up to store.counts.DEEPEST_STATES states, else a sample."""
    if db.partial:
        return []
    level = db.max_depth if db.puzzle.graded else 0
    return [db.puzzle.decode(r, level) for r in db.positions_at(db.max_depth)]


def write_antipodes(db, path, limit=None, orbits=False):
    """antipodes.txt, one board a line (drawn boards: a drawing each, a blank line between,
    base.show_boards); with orbits=True, one board per orbit under the symmetries."""
    boards = antipode_orbits(db) if orbits else antipodes(db)
    if limit is not None:
        boards = boards[:limit]
    write_text(path, show_boards(db.puzzle, boards))


def symmetry_summary(db):
    """(depth, count, orbits) rows: each layer counted also up to the puzzle's symmetries.

    A layer is a union of orbits, and each orbit has exactly one member whose rank is the
    smallest of its images, so counting those members counts the orbits, chunk by chunk."""
    puzzle = db.puzzle
    rows = []
    for depth in range(db.max_depth + 1):
        level = depth if puzzle.graded else 0
        layer = db.layer(depth)
        orbits = 0
        for block in layer.iter_chunks():
            orbits += int(np.count_nonzero(puzzle.canonical_ranks(block, level) == block))
        rows.append((depth, layer.count, orbits))
    return rows


def write_symmetry_summary(db, path):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["depth", "count", "orbits"])
    writer.writerows(symmetry_summary(db))
    write_text(path, out.getvalue())


def read_symmetry_summary(path):
    with open(path) as f:
        return [(int(r["depth"]), int(r["count"]), int(r["orbits"]))
                for r in csv.DictReader(f)]


def antipode_orbits(db):
    """The deepest positions up to symmetry: one board per orbit, its smallest rank."""
    level = db.max_depth if db.puzzle.graded else 0
    ranks = db.layer(db.max_depth).ranks()
    canonical = np.unique(db.puzzle.canonical_ranks(ranks, level))
    return [db.puzzle.decode(r, level) for r in canonical]


def read_summary(path):
    with open(path) as f:
        return [(int(r["depth"]), int(r["count"]), int(r["cumulative"]))
                for r in csv.DictReader(f)]
