"""results/report.html: one page over every finished database of a results directory, those
of the run that writes it and those earlier runs left there.  The page stands alone: the plots
are embedded as data URIs and the problem files as downloads, so that a copy keeps them.
"""

import base64
import html
import re
from dataclasses import dataclass, field
from glob import glob, escape
from pathlib import Path

from puzzledb import paths, puzzles
from puzzledb.errors import PuzzleError
from puzzledb.puzzles.base import read_shown_boards, show_boards
from puzzledb.query import problems
from puzzledb.query.database import DepthDatabase
from puzzledb.report import analysis, design, pictures
from puzzledb.query.kinds import KINDS
from puzzledb.store import LAYERS
from puzzledb.store.files import write_text


SOLUTION_LIMIT = 200  # the page draws an optimal solution of at most this many moves
BOARD_FIT = 60  # a board shown beside its moves when its string is at most this long


@dataclass
class ProblemSet:
    """A problem set on disk: its query set, its k, its distribution rows (distance, count,
    cumulative) and its problem file."""
    queries: str
    k: int
    rows: list
    problem_file: Path


@dataclass
class Section:
    """One puzzle's part of the page, as its files in the results directory say it.

    rows: (depth, count, cumulative); boards: the deepest layer's; plot: its PNG or None;
    symmetry: None or (symmetry summary rows, antipode boards per orbit); note: None or what
    a partial database stores; declared: where and how the puzzle is defined; store: the
    kind of its database (config `store:`, a query.kinds.StoreKind), which the page states
    when it keeps less than every layer; moves: for a puzzle whose moves have names, the
    moves that make each of the deepest positions (antipodes_moves.txt), else []."""
    puzzle: object
    declared: str
    rows: list
    boards: list
    plot: Path | None
    symmetry: tuple | None
    note: str | None
    problem_sets: list = field(default_factory=list)
    store: object = KINDS[LAYERS]
    solution: list = field(default_factory=list)  # boards of an optimal solution, pictured
    design: list = field(default_factory=list)  # the designer's table's rows, if written
    moves: list = field(default_factory=list)


def finished_databases(results):
    """The names of the puzzles in `results` with a finished database (its manifest, written
    last) and its summary, in name order."""
    root = Path(results)
    if not root.is_dir():
        return []
    return sorted(d.name for d in root.iterdir()
                  if Path(paths.manifest(results, d.name)).is_file()
                  and Path(paths.summary(results, d.name)).is_file()
                  and Path(paths.antipodes(results, d.name)).is_file())


def problem_sets(results, name):
    """Every problem set of the puzzle in `results` whose two files are there, by query set
    and k; the query set and k are read from the file names (paths.problem_distribution)."""
    pattern = re.compile(re.escape(paths.problem_distribution(results, name))
                         .replace(re.escape("{queries}"), r"(?P<queries>[^/]+)")
                         .replace(re.escape("{k}"), r"(?P<k>\d+)"))
    found = []
    for table in glob(paths.problem_distribution(escape(str(results)), escape(name), "*", "*")):
        match = pattern.fullmatch(table)
        if match is None:
            continue
        queries, k = match["queries"], int(match["k"])
        problem_file = Path(paths.problem_file(results, name, queries, k))
        if problem_file.is_file():
            found.append(ProblemSet(queries, k, problems.read_distribution(table), problem_file))
    return sorted(found, key=lambda s: (s.queries, s.k))


def read_section(results, puzzle, declared):
    """A puzzle's Section from its files in `results`."""
    name = puzzle.name
    boards = read_shown_boards(puzzle, Path(paths.antipodes(results, name)).read_text())
    with DepthDatabase(puzzle, Path(paths.layers(results, name))) as db:
        note = db.extent() if db.partial else None
        store = db.kind
        solution = pictured_solution(db, boards)
    symmetry = None
    orbit_summary = Path(paths.symmetry_summary(results, name))
    orbit_antipodes = Path(paths.symmetry_antipodes(results, name))
    if orbit_summary.is_file() and orbit_antipodes.is_file():
        symmetry = (analysis.read_symmetry_summary(orbit_summary),
                    read_shown_boards(puzzle, orbit_antipodes.read_text()))
    plot = Path(paths.depth_plot(results, name))
    table = Path(paths.design(results, name))
    moves = Path(paths.antipode_moves(results, name))
    return Section(puzzle, declared, analysis.read_summary(paths.summary(results, name)),
                   boards, plot if plot.is_file() else None, symmetry, note,
                   problem_sets(results, name), store, solution,
                   design.read_design(table) if table.is_file() else [],
                   moves.read_text().splitlines() if puzzle.named_moves and moves.is_file()
                   else [])


def pictured_solution(db, boards):
    """An optimal solution from the first of the deepest boards, for the page to draw: the
    boards of a puzzle whose boards are pictures (Puzzle.picture), up to SOLUTION_LIMIT
    moves; none when a counts-only, partial or one-way database has none to give."""
    puzzle = db.puzzle
    if (not boards or db.partial or db.refusal is not None or not puzzle.reversible
            or db.max_depth > SOLUTION_LIMIT
            or puzzle.picture(puzzle.parse(boards[0])) is None):
        return []
    return db.solve(boards[0])


def write_report(path, results, run_puzzles, declared=None):
    """The page at `path` over every finished database in `results`: the run's puzzles
    (run_puzzles) first, in their order, then the others by name.  declared: puzzle name ->
    its declaration (puzzles.declaration) as the run knows it; others are asked of
    puzzles.declaration.  A database of a puzzle this process does not know (defined in
    another config) is named at the end, and not shown."""
    declared = declared or {}
    names = list(run_puzzles)
    names += [n for n in finished_databases(results) if n not in names]
    sections, unknown = [], []
    for name in names:
        try:
            puzzle = puzzles.get(name)
        except PuzzleError:
            unknown.append(name)
            continue
        sections.append(read_section(results, puzzle,
                                     declared.get(name) or puzzles.declaration(name)))
    write_text(path, render(sections, set(run_puzzles), unknown))


def data_uri(path, mime):
    return f"data:{mime};base64,{base64.b64encode(Path(path).read_bytes()).decode('ascii')}"


def render(sections, run_puzzles=(), unknown=()):
    """The page's HTML: an index, then a part for each Section; run_puzzles: the names built
    by this run (the others are marked as left by earlier runs); unknown: the names of
    databases not shown."""
    parts = [
        "<!doctype html><meta charset='utf-8'><title>puzzledb report</title>",
        "<style>body{font-family:sans-serif;max-width:60em;margin:auto}"
        "table{border-collapse:collapse}td,th{padding:2px 8px;text-align:right}"
        "tr:nth-child(even){background:#eee}img{max-width:100%}</style>",
        "<h1>puzzledb report</h1>",
        f"<p>Every finished database of this results directory: {len(sections)} "
        f"puzzle{'s' if len(sections) != 1 else ''}.</p><ul>",
    ]
    for section in sections:
        name = html.escape(section.puzzle.name)
        earlier = "" if section.puzzle.name in run_puzzles else " (left by an earlier run)"
        parts.append(f"<li><a href='#{name}'>{name}</a>: {section.rows[-1][2]:,} positions"
                     f"{earlier}</li>")
    parts.append("</ul>")
    if unknown:
        parts.append("<p>Also here, databases of puzzles this run's config does not define "
                     f"(not shown): {html.escape(', '.join(unknown))}.</p>")
    for section in sections:
        parts.extend(_section_html(section))
    return "\n".join(parts) + "\n"


def _section_html(section):
    puzzle, rows, note = section.puzzle, section.rows, section.note
    name = html.escape(puzzle.name)
    parts = [f"<h2 id='{name}'>{name}</h2><p>{html.escape(puzzle.description)}</p>",
             f"<p>Defined {html.escape(section.declared)}</p>"]
    if not section.store.layers:
        parts.append(f"<p>Its database keeps less than every layer (<code>store: "
                     f"{section.store.name}</code>): {html.escape(section.store.describes)}."
                     f"</p>")
    if note:
        parts.append(f"<p><b>Partial database: {html.escape(note)}.</b> {rows[-1][2]:,} "
                     f"positions within {rows[-1][0]} moves; the layer at {rows[-1][0]} "
                     f"holds {rows[-1][1]:,}, and the space goes deeper.</p>")
    else:
        parts.append(f"<p>{rows[-1][2]:,} positions in {len(rows)} layers; the deepest, "
                     f"{rows[-1][0]}, holds {rows[-1][1]:,}.</p>")
    if section.plot is not None:
        parts.append(f"<img src='{data_uri(section.plot, 'image/png')}' "
                     f"alt='depth distribution of {name}'>")
    if not note and section.moves:
        parts.append(_moves_html(puzzle, "Deepest positions", section.boards, section.moves))
    elif not note:
        parts.append(_boards_html(puzzle, "Deepest positions", section.boards))
    if section.solution:
        parts.append(f"<p>An optimal solution from the first of them, "
                     f"{len(section.solution) - 1} moves:</p>")
        parts.append(pictures.boards_html(puzzle, section.solution, pictures.SMALL_CELL))
    orbits = {}
    if section.symmetry is not None:
        orbit_rows, orbit_boards = section.symmetry
        orbits = {d: o for d, _, o in orbit_rows}
        parts.append(_boards_html(
            puzzle, f"Deepest positions up to the {len(puzzle.symmetries()) + 1} symmetries "
            f"({orbit_rows[-1][2]:,} distinct)", orbit_boards))
    parts.append("<table><tr><th>depth</th><th>count</th><th>cumulative</th>"
                 + ("<th>up to symmetry</th>" if orbits else "") + "</tr>")
    parts.extend(
        f"<tr><td>{d}</td><td>{c:,}</td><td>{t:,}</td>"
        + (f"<td>{orbits[d]:,}</td>" if orbits else "") + "</tr>"
        for d, c, t in rows
    )
    parts.append("</table>")
    if section.design:
        parts.extend(_design_html(puzzle.name, section.design))
    for problem_set in section.problem_sets:
        parts.extend(_problem_set_html(puzzle.name, problem_set))
    return parts


def _design_html(name, rows):
    parts = ["<h3>The designer's table: every placement of the pieces</h3>",
             f"<p>{html.escape(design.summary_line(name, rows))}. The components column "
             f"counts the components whose farthest placement lies at that distance "
             f"(none: cannot reach the goal).</p>",
             "<table><tr><th>distance</th><th>placements</th><th>cumulative</th>"
             "<th>components</th></tr>"]
    parts.extend(f"<tr><td>{'none' if d < 0 else d}</td><td>{p:,}</td><td>{c:,}</td>"
                 f"<td>{k:,}</td></tr>" for d, p, c, k in rows)
    parts.append("</table>")
    return parts


def _problem_set_html(name, problem_set):
    rows, problem_file = problem_set.rows, problem_set.problem_file
    title = f"{name}: {problem_set.queries}, matched against layers 0..{problem_set.k}"
    file_name = html.escape(problem_file.name)
    parts = [f"<h3>Problem set {html.escape(title)}</h3>",
             f"<p>{rows[-1][2]:,} positions; the hardest need {rows[-1][0]} moves. "
             f"Problems with optimal routes: <a download='{file_name}' "
             f"href='{data_uri(problem_file, 'text/plain;charset=utf-8')}'>{file_name}</a>.</p>",
             "<table><tr><th>distance</th><th>count</th><th>cumulative</th></tr>"]
    parts.extend(f"<tr><td>{d}</td><td>{c:,}</td><td>{t:,}</td></tr>" for d, c, t in rows)
    parts.append("</table>")
    return parts


def _moves_html(puzzle, title, boards, moves, limit=20):
    """Positions of a puzzle whose moves have names under a title: each as the moves that
    make it from the goal, and its board beside them where it fits (BOARD_FIT)."""
    shown = list(zip(boards, moves))[:limit]
    more = f" (first {len(shown)})" if len(boards) > limit else ""
    fits = all(len(board) <= BOARD_FIT for board, _ in shown)
    rows = "".join(f"<tr><td><code>{html.escape(made)}</code></td>"
                   + (f"<td><code>{html.escape(board)}</code></td>" if fits else "") + "</tr>"
                   for board, made in shown)
    head = "<tr><th>moves from the goal</th>" + ("<th>position</th>" if fits else "") + "</tr>"
    return f"<p>{title}{more}, each as the moves that make it:</p><table>{head}{rows}</table>"


def _boards_html(puzzle, title, boards, limit=20):
    """Boards under a title: as pictures where the puzzle's boards are pictures, else as
    text (base.show_boards)."""
    shown = boards[:limit]
    more = f" (first {len(shown)})" if len(boards) > limit else ""
    if shown and puzzle.picture(puzzle.parse(shown[0])) is not None:
        return f"<p>{title}{more}:</p>" + pictures.boards_html(puzzle, shown)
    return f"<p>{title}{more}:</p><pre>" + html.escape(show_boards(puzzle, shown)) + "</pre>"
