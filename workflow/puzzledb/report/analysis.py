"""Products mined from a finished database: summary.csv, antipodes.txt, the counts up to
symmetry and an HTML report (the plot is in plots.py).  Each reads the layers through
DepthDatabase and writes one file atomically (files.write_text).
"""

import csv
import html
import io

import numpy as np

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
    """antipodes.txt; with orbits=True, one board per orbit under the symmetries."""
    boards = antipode_orbits(db) if orbits else antipodes(db)
    if limit is not None:
        boards = boards[:limit]
    write_text(path, "".join(b + "\n" for b in boards))


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


def write_report(entries, path, problem_sets=(), declared=None, counts_only=()):
    """entries: (puzzle, summary rows, antipode boards, plot file name relative to path,
    symmetry, note) where symmetry is None or (symmetry summary rows, antipode boards per
    orbit) and note None or what a partial database stores; problem_sets: (config entry,
    distribution rows, problem file name relative to path); declared: puzzle name -> where
    and how it is defined (puzzles.declaration); counts_only: the puzzles whose database keeps
    counts only (store: counts)."""
    parts = [
        "<!doctype html><meta charset='utf-8'><title>puzzledb report</title>",
        "<style>body{font-family:sans-serif;max-width:60em;margin:auto}"
        "table{border-collapse:collapse}td,th{padding:2px 8px;text-align:right}"
        "tr:nth-child(even){background:#eee}</style>",
        "<h1>puzzledb report</h1>",
    ]
    for puzzle, rows, boards, plot, symmetry, note in entries:
        name = html.escape(puzzle.name)
        parts.append(f"<h2 id='{name}'>{name}</h2><p>{html.escape(puzzle.description)}</p>")
        if declared and puzzle.name in declared:
            parts.append(f"<p>Defined {html.escape(declared[puzzle.name])}</p>")
        if puzzle.name in counts_only:
            parts.append("<p>Counts only (<code>store: counts</code>): every layer was "
                         "counted, not kept; the deepest positions and a random sample of "
                         "each layer were kept.</p>")
        if note:
            parts.append(f"<p><b>Partial database: {html.escape(note)}.</b> {rows[-1][2]:,} "
                         f"positions within {rows[-1][0]} moves; the layer at {rows[-1][0]} "
                         f"holds {rows[-1][1]:,}, and the space goes deeper.</p>")
        else:
            parts.append(f"<p>{rows[-1][2]:,} positions in {len(rows)} layers; the deepest, "
                         f"{rows[-1][0]}, holds {rows[-1][1]:,}.</p>")
        parts.append(f"<img src='{html.escape(plot)}' alt='depth distribution of {name}'>")
        if not note:
            parts.append(_boards_html("Deepest positions", boards))
        orbits = {}
        if symmetry is not None:
            orbit_rows, orbit_boards = symmetry
            orbits = {d: o for d, _, o in orbit_rows}
            parts.append(_boards_html(
                f"Deepest positions up to the {len(puzzle.symmetries()) + 1} symmetries "
                f"({orbit_rows[-1][2]:,} distinct)", orbit_boards))
        parts.append("<table><tr><th>depth</th><th>count</th><th>cumulative</th>"
                     + ("<th>up to symmetry</th>" if orbits else "") + "</tr>")
        parts.extend(
            f"<tr><td>{d}</td><td>{c:,}</td><td>{t:,}</td>"
            + (f"<td>{orbits[d]:,}</td>" if orbits else "") + "</tr>"
            for d, c, t in rows
        )
        parts.append("</table>")
    for entry, rows, problem_file in problem_sets:
        title = f"{entry['puzzle']}: {entry['queries']}, matched against layers 0..{entry['k']}"
        parts.append(f"<h2>Problem set {html.escape(title)}</h2>")
        parts.append(f"<p>{rows[-1][2]:,} positions; the hardest need {rows[-1][0]} moves. "
                     f"Problems with optimal routes: <a href='{html.escape(problem_file)}'>"
                     f"{html.escape(problem_file)}</a>.</p>")
        parts.append("<table><tr><th>distance</th><th>count</th><th>cumulative</th></tr>")
        parts.extend(f"<tr><td>{d}</td><td>{c:,}</td><td>{t:,}</td></tr>" for d, c, t in rows)
        parts.append("</table>")
    write_text(path, "\n".join(parts) + "\n")


def _boards_html(title, boards, limit=20):
    shown = boards[:limit]
    more = f" (first {len(shown)})" if len(boards) > limit else ""
    return f"<p>{title}{more}:</p><pre>" + html.escape("\n".join(shown)) + "</pre>"
