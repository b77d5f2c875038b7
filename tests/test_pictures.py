"""Boards as pictures (report/pictures.py), drawn boards as text (base.show_boards), the
report page's pictures, and the designer's table (report/design.py) against plain Python."""

import re
import xml.etree.ElementTree as ET

import numba
import pytest

from building import build_in_memory
from conftest import ROOT, read_csv_as_pandas_does
from puzzledb import puzzles

from puzzledb.cli import main
from puzzledb.errors import PuzzleError
from puzzledb.puzzles.base import read_shown_boards, show_boards
from puzzledb.puzzles.definitions import build
from puzzledb.query.database import DepthDatabase
from puzzledb.report import analysis, design, page, pictures

SVG = "{http://www.w3.org/2000/svg}"
KLOTSKI = "A@@B A@@B CDDE CFGE H..I"


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """klotski, rush-hour-card and eight built, with their summaries and deepest positions."""
    numba.set_num_threads(1)
    results = tmp_path_factory.mktemp("pictures")
    for name in ("klotski", "rush-hour-card", "eight"):
        build_in_memory(puzzles.get(name), results / name / "layers", threads=1,
                        progress=False, log=lambda m: None)
        with DepthDatabase.open(name, results) as db:
            analysis.write_summary(db, results / name / "summary.csv")
            analysis.write_antipodes(db, results / name / "antipodes.txt")
    return results


def edges_between_different_cells(puzzle, board):
    """The unit edges a picture must outline, counted from the board string alone: between
    two cells of different pieces (or a piece and an empty cell), and the box's border."""
    rows = puzzle.format(board).split()
    height, width = len(rows), len(rows[0])

    def at(r, c):
        return rows[r][c] if 0 <= r < height and 0 <= c < width else None

    count = 0
    for r in range(height + 1):
        for c in range(width):
            count += at(r - 1, c) != at(r, c)
    for c in range(width + 1):
        for r in range(height):
            count += at(r, c - 1) != at(r, c)
    return count


def test_a_picture_outlines_each_piece_labels_it_once_and_paints_the_goal_red():
    klotski = puzzles.get("klotski")
    board = klotski.parse(KLOTSKI)
    root = ET.fromstring(pictures.board_svg(klotski, board))
    labels = sorted(t.text for t in root.iter(f"{SVG}text"))
    assert labels == sorted(set(KLOTSKI) - set(". "))  # ten pieces, a label each
    fills = {p.get("fill"): p.get("d").count("M") for p in root.iter(f"{SVG}path")
             if p.get("fill") != "none"}
    assert fills[pictures.GOAL_COLOUR] == 4  # the 2x2 block's four cells
    assert fills[pictures.EMPTY_COLOUR] == 2
    [outline] = [p for p in root.iter(f"{SVG}path") if p.get("fill") == "none"]
    assert outline.get("d").count("M") == edges_between_different_cells(klotski, board)


def test_interchangeable_pieces_share_a_colour_and_other_pieces_do_not():
    klotski = puzzles.get("klotski")
    width, labels, pieces, kinds = klotski.picture(klotski.parse(KLOTSKI))
    kind = dict(zip(labels, kinds))
    assert kind["A"] == kind["B"] == kind["C"] == kind["E"]  # the four 1x2 pieces
    assert kind["F"] == kind["G"] == kind["H"] == kind["I"] != kind["A"]
    assert kind["@"] == pictures.GOAL and len(set(pieces) - {-1}) == 10 and width == 4


def test_sliding_tiles_are_pictured_a_tile_a_cell_and_twisty_puzzles_not_at_all():
    eight = puzzles.get("eight")
    width, labels, pieces, _ = eight.picture(eight.parse("867 254 301"))
    assert (width, "".join(labels), pieces.count(-1)) == (3, "86725431", 1)
    assert sorted(p for p in pieces if p >= 0) == [0, 1, 2, 3, 4, 5, 6, 8]
    corners = build("corners", {"family": "permutation", "file": str(
        ROOT / "workflow/puzzledb/puzzles/permutation/examples/corners.tws")})
    assert corners.picture(corners.unrank(0)) is None


def test_puzzledb_show_writes_the_picture_where_it_says(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["show", "klotski", *KLOTSKI.split()]) == 0
    assert capsys.readouterr().out == "klotski: wrote klotski.svg\n"
    assert ET.parse(tmp_path / "klotski.svg").getroot().tag == f"{SVG}svg"
    assert main(["show", "eight", "867 254 301", "--output", "e.svg"]) == 0
    assert (tmp_path / "e.svg").is_file()
    assert main(["show", "klotski", "A@@B"]) == 2
    assert "has 4 cells, expected 20" in capsys.readouterr().err


def test_drawn_boards_are_shown_one_row_a_line_and_read_back():
    klotski, eight = puzzles.get("klotski"), puzzles.get("eight")
    boards = [KLOTSKI, "A@@B A@@B CDDE CFGE H.I."]
    text = show_boards(klotski, boards)
    assert text == "A@@B\nA@@B\nCDDE\nCFGE\nH..I\n\nA@@B\nA@@B\nCDDE\nCFGE\nH.I.\n"
    assert read_shown_boards(klotski, text) == boards
    assert show_boards(eight, ["867 254 301"]) == "867 254 301\n"


def test_solve_prints_a_drawn_solution_with_a_blank_line_between_boards(results, capsys):
    assert main(["solve", "rush-hour-card", "TTTBCD EFFBCD E.XXCD GGH... .IH.JJ .IKKLL",
                 "--results", str(results)]) == 0
    blocks = capsys.readouterr().out.split("\n\n")
    assert len(blocks) == 49 + 1  # the card's 49 moves (metric line)
    assert all(len(b.split("\n")) == 6 for b in blocks[:-1])
    assert blocks[-1].split("\n")[2].endswith("XX")


def test_the_antipodes_file_of_a_drawn_puzzle_holds_drawings(results):
    text = (results / "klotski" / "antipodes.txt").read_text()
    with DepthDatabase.open("klotski", results) as db:
        assert read_shown_boards(puzzles.get("klotski"), text) == analysis.antipodes(db)
    assert text.count("\n\n") == len(analysis.antipodes(db)) - 1


def test_the_report_pictures_the_deepest_positions_and_an_optimal_solution(results):
    page.write_report(results / "report.html", results, ["klotski", "eight"])
    text = (results / "report.html").read_text()
    klotski = text[text.index("<h2 id='klotski'>"):text.index("<h2 id='eight'>")]
    with DepthDatabase.open("klotski", results) as db:
        deepest, depth = len(analysis.antipodes(db)), db.max_depth
    assert len(re.findall("<svg", klotski)) == deepest + depth + 1
    assert f"An optimal solution from the first of them, {depth} moves" in klotski
    eight = text[text.index("<h2 id='eight'>"):text.index("<h2 id='rush-hour-card'>")]
    assert eight.count("<svg") == 2 + 32  # its two deepest positions, 31 moves


def test_the_designers_table_counts_every_placement_and_its_components(results):
    klotski = puzzles.get("klotski")
    with DepthDatabase.open("klotski", results) as db:
        table = design.design(db)
        assert table.placements == klotski.size == 65_880
        assert table.solvable == db.total
        assert [(d, p) for d, p, _, _ in table.rows[1:]] == [(d, c) for d, c, _ in db.summary()]
    assert table.rows[0][1] == klotski.size - table.solvable  # cannot reach the goal
    # the components by a plain search from every placement not yet seen
    seen, farthest = {}, []
    depth = {}
    with DepthDatabase.open("klotski", results) as db:
        for d in range(db.max_depth + 1):
            depth.update(dict.fromkeys(db.positions_at(d).tolist(), d))
    for start in range(klotski.size):
        if start in seen:
            continue
        seen[start] = start
        todo, far = [start], depth.get(start, -1)
        while todo:
            for n in klotski.neighbours(todo.pop()):
                if n not in seen:
                    seen[n] = start
                    todo.append(n)
                    far = max(far, depth.get(n, -1))
        farthest.append(far)
    assert table.components == len(farthest) == 898
    assert [c for _, _, _, c in table.rows] == [farthest.count(d) for d, *_ in table.rows]


def test_the_designers_table_is_a_plain_csv_and_a_table_on_the_page(results, capsys):
    with DepthDatabase.open("klotski", results) as db:
        design.write_design(results / "klotski" / "design.csv", design.design(db))
    table = read_csv_as_pandas_does(results / "klotski" / "design.csv")
    assert list(table.columns) == list(design.COLUMNS) and table["distance"].iloc[0] == -1
    page.write_report(results / "report.html", results, ["klotski"])
    assert "The designer's table" in (results / "report.html").read_text()
    assert main(["design", "klotski", "--results", str(results)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("klotski: 65,880 placements of its pieces in 898 components; "
                          "53,954 reach the goal (81.9%)")
    assert main(["design", "eight", "--results", str(results)]) == 2
    assert "no designer's table" in capsys.readouterr().err


def test_a_puzzle_whose_boards_are_no_grid_has_no_picture():
    class NoGrid:
        name = "no-grid"

        def picture(self, board):
            return None

    with pytest.raises(PuzzleError, match="no grid"):
        pictures.board_svg(NoGrid(), None)
