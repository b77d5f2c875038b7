"""Products mined from a finished database: summary.csv, antipodes.txt, the counts up to
symmetry, the deepest positions as move sequences and the distances of a start pattern's
positions (the plot is plots.py's, the HTML page over them all page.py's).  Each reads the
layers through DepthDatabase and writes one file atomically (files.write_text).
"""

import csv
import io

import numpy as np

from puzzledb import keys
from puzzledb.puzzles.base import show_boards
from puzzledb.query.lookups import descend, descend_many
from puzzledb.store.files import write_text

ANTIPODE_ROUTES = 1000  # deepest positions written as move sequences, at most


def write_summary(db, path):
    """summary.csv: depth,count,cumulative (positions), and classes when the database was
    searched up to symmetry, nothing else, so that it loads as it is in any CSV reader
    (pandas, R, a spreadsheet).  That a database is partial is the manifest's (depth_limit)
    and the report's to say, not a comment line here."""
    _write_csv(path, ["depth", "count", "cumulative"] + (["classes"] if db.symmetric else []),
               db.summary())


def _write_csv(path, header, rows):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
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
    _write_csv(path, ["depth", "count", "orbits"], symmetry_summary(db))


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


def antipode_moves(db, limit=ANTIPODE_ROUTES):
    """The first `limit` deepest positions (in antipodes.txt's order), each as the moves
    that make it from the goal: an optimal solution read backwards, in the puzzle's move
    names (a line a permutation puzzle reads as a board).  None for a partial database."""
    if db.partial:
        return []
    ranks = db.positions_at(db.max_depth)[:limit]
    if db.puzzle.key_words == 1:  # all at once (descend_many); wide keys one by one
        paths = descend_many(db.puzzle, ranks, db.max_depth, db.contains).tolist()
    else:
        paths = [descend(db.puzzle, key, db.max_depth, db.contains)
                 for key in keys.key_ints(ranks)]
    return [" ".join(db.puzzle.route_moves(path[::-1])) for path in paths]


def write_antipode_moves(db, path):
    write_text(path, "".join(line + "\n" for line in antipode_moves(db)))


def start_distribution(db):
    """(depth, count, cumulative) rows of the positions matching the puzzle's start pattern
    (Puzzle.start_positions), from depth 0 to the deepest that holds one: the last row's
    depth is the God's number between the two phases (of the stored layers, for a partial
    database).  Searched up to symmetry, the positions of each class are its members, and
    each row adds the classes holding one (as summary.csv)."""
    start = db.puzzle.start_positions()
    group = db.searched.group if db.symmetric else None
    rows, total = [], 0
    for depth in range(db.max_depth + 1):
        count = classes = 0
        for block in db.layer(depth).iter_chunks():
            if group is None:
                count += int(np.count_nonzero(start.matches(block)))
                continue
            hits = start.matches(group.members(block)).reshape(len(block), group.order)
            hits = hits.sum(axis=1)  # a member as often as its class's stabiliser fixes it
            count += int((hits * group.class_sizes(block)).sum()) // group.order
            classes += int(np.count_nonzero(hits))
        total += count
        rows.append((depth, count, total) + ((classes,) if group else ()))
    while rows and rows[-1][1] == 0:
        rows.pop()
    return rows


def write_start_distribution(db, path):
    _write_csv(path, ["depth", "count", "cumulative"] + (["classes"] if db.symmetric else []),
               start_distribution(db))
