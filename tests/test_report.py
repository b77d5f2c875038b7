"""The report's views of a database: the depth distribution's axis marked at whole depths
only, and the deepest positions of a puzzle whose moves have names shown as the moves that
make them (report/plots.py, report/page.py)."""

import html
import re

from building import build_in_memory
from puzzledb import paths, puzzles
from puzzledb.query.database import DepthDatabase
from puzzledb.report import analysis, page, plots
from test_permutation import CUBE2_RU


def test_the_depth_axis_is_marked_at_whole_depths_only():
    for deepest in (3, 11, 15, 58):
        rows = [(d, d + 1, (d + 1) * (d + 2) // 2) for d in range(deepest + 1)]
        axis = plots.depth_figure(rows, "t").axes[0]
        ticks = [t for t in axis.get_xticks() if 0 <= t <= deepest]
        assert len(ticks) >= 2 and all(t == int(t) for t in ticks), (deepest, ticks)


def test_the_page_shows_a_twisty_puzzles_deepest_positions_as_the_moves_that_make_them(
        tmp_path):
    definition = tmp_path / "ru.tws"
    definition.write_text(CUBE2_RU)
    puzzles.define({"cube-ru": {"family": "permutation", "file": str(definition)}}, "test")
    results, name = tmp_path / "results", "cube-ru"
    build_in_memory(puzzles.get(name), paths.layers(results, name))
    with DepthDatabase.open(name, results) as db:
        analysis.write_summary(db, paths.summary(results, name))
        analysis.write_antipodes(db, paths.antipodes(results, name))
        analysis.write_antipode_moves(db, paths.antipode_moves(results, name))
        deepest = db.boards_at(db.max_depth)
        depth = db.max_depth
    made = (results / name / "antipodes_moves.txt").read_text().splitlines()
    page.write_report(results / "report.html", results, [name])
    text = (results / "report.html").read_text()
    shown = [(html.unescape(moves), html.unescape(board)) for moves, board in re.findall(
        r"<tr><td><code>([^<]*)</code></td><td><code>([^<]*)</code></td></tr>", text)]
    assert shown == list(zip(made, deepest))[:20] and len(shown) == min(20, len(deepest))
    assert all(len(moves.split()) == depth for moves, _ in shown)
