"""Klotski's box as a catalogue (docs/blocks.md, "Klotski's box"): one 2x2 block and any
number of 1x2, 2x1 and 1x1 blocks, at least `min_empty` cells empty.  Small boxes against a
plain enumeration and breadth-first search written here; the whole 4x5 box (slow) against
the published enumeration of dnomd343/klotski: 29,334,498 layouts, the largest cluster
964,656."""

from collections import Counter
from functools import lru_cache

import pandas
import pytest

from checkers import breadth_first
from test_catalogue import kernel_rows
from puzzledb import paths, puzzles
from puzzledb.cli import main
from puzzledb.errors import ConfigError
from puzzledb.puzzles.definitions import build
from puzzledb.report.catalogue import write_hardest, write_totals

PIECES = ["1x2", "2x1", "1x1"]
SHAPES = {"goal": (2, 2), "1x2": (1, 2), "2x1": (2, 1), "1x1": (1, 1)}  # (width, height)


def klotski_box(goal, min_empty, metric="step"):
    return build("klotski-box", {"family": "blocks", "axis": "free", "metric": metric,
                                 "goal": goal,
                                 "catalogue": {"pieces": PIECES, "min_empty": min_empty}})


class PlainBox:
    """Every layout of a width x height box (one 2x2, any 1x2, 2x1 and 1x1 blocks, at least
    min_empty cells empty) as a frozenset of (shape, row, column), and its clusters under
    moves of one block one cell: plain Python, sharing nothing with the catalogue."""

    def __init__(self, width, height, min_empty, goal_at):
        self.width, self.height, self.min_empty, self.goal_at = width, height, min_empty, goal_at

    def cells(self, shape, row, col):
        w, h = SHAPES[shape]
        return {(row + i, col + j) for i in range(h) for j in range(w)}

    def fits(self, shape, row, col):
        w, h = SHAPES[shape]
        return 0 <= row and row + h <= self.height and 0 <= col and col + w <= self.width

    def layouts(self):
        every = [(r, c) for r in range(self.height) for c in range(self.width)]
        found = []

        def fill(i, board, covered, empty):
            if i == len(every):
                if any(s == "goal" for s, _, _ in board) and empty >= self.min_empty:
                    found.append(frozenset(board))
                return
            if every[i] in covered:
                fill(i + 1, board, covered, empty)
                return
            fill(i + 1, board, covered, empty + 1)
            for shape in SHAPES:
                if shape == "goal" and any(s == "goal" for s, _, _ in board):
                    continue
                place = self.cells(shape, *every[i])
                if self.fits(shape, *every[i]) and not place & covered:
                    fill(i + 1, board | {(shape, *every[i])}, covered | place, empty)

        fill(0, set(), set(), 0)
        return found

    def moves(self, board):
        for piece in board:
            shape, row, col = piece
            rest = set().union(*(self.cells(*p) for p in board if p != piece))
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                if self.fits(shape, row + dr, col + dc) and \
                        not self.cells(shape, row + dr, col + dc) & rest:
                    yield board - {piece} | {(shape, row + dr, col + dc)}

    def clusters(self):
        """Each cluster's boards, and their distances from its goal boards (the 2x2 at
        goal_at), empty when it has none."""
        done = set()
        for board in self.layouts():
            if board in done:
                continue
            cluster = set(breadth_first([board], self.moves))
            done |= cluster
            yield cluster, breadth_first([b for b in cluster if ("goal", *self.goal_at) in b],
                                         self.moves)


def catalogue_of(puzzle, tmp_path, jobs=2):
    """The catalogue by its kernels (test_catalogue.kernel_rows), and its totals."""
    table = kernel_rows(puzzle, tmp_path, jobs)
    return table, pandas.read_csv(tmp_path / "totals.csv").to_dict("records")[0]


@pytest.mark.parametrize("goal, width, height, goal_at, min_empty", [
    (".... .XX. .XX.", 4, 3, (1, 1), 2),  # Klotski's box cut to three rows
    ("... ... .XX .XX", 3, 4, (2, 1), 3),
])
def test_a_small_box_keeping_empty_cells_is_a_plain_enumeration_and_search(
        goal, width, height, goal_at, min_empty, tmp_path):
    """The box's boards, its clusters reaching the goal (their sizes and farthest
    distances), the boards of the others and the largest, as a plain enumeration of the
    layouts with min_empty cells empty or more and a search of each cluster find them."""
    plain = PlainBox(width, height, min_empty, goal_at)
    layouts = plain.layouts()
    found = list(plain.clusters())
    reaching = sorted((max(depth.values()), len(cluster)) for cluster, depth in found if depth)
    puzzle = klotski_box(goal, min_empty)
    assert puzzle.box_boards() == len(layouts)
    table, totals = catalogue_of(puzzle, tmp_path)
    assert sorted(zip(table.moves, table.states)) == reaching
    assert totals == {"boards": len(layouts), "clusters_reaching": len(reaching),
                      "boards_reaching": sum(s for _, s in reaching),
                      "boards_not_reaching": len(layouts) - sum(s for _, s in reaching),
                      "largest_reaching": max(s for _, s in reaching)}
    # the empty cells kept are whole clusters left out: fewer boards than with none kept
    assert len(layouts) < len(PlainBox(width, height, 0, goal_at).layouts())


def test_the_reports_page_draws_the_hardest_puzzles_first(tmp_path):
    """catalogue_hardest.html: the catalogue's first rows, each board a picture, its moves,
    its cluster's boards and its drawing as text."""
    puzzle = klotski_box(".... .XX. .XX.", 2)
    table, _ = catalogue_of(puzzle, tmp_path)
    write_hardest(puzzle, tmp_path / "catalogue.csv", tmp_path / "hardest.html", count=3)
    page = (tmp_path / "hardest.html").read_text()
    assert page.count("<svg") == 3 and page.startswith("<!DOCTYPE html>")
    first = table.iloc[0]
    assert page.index(f"{first.moves} moves, {first.states:,} boards") < page.index("</figure>")
    assert "<pre>" + "\n".join(first.board.split()) + "</pre>" in page


def test_the_summary_names_the_box_largest_when_the_clusters_not_searched_hold_fewer(
        tmp_path, capsys):
    """As in Klotski's box: 421,409 boards outside the clusters searched, fewer than the
    largest searched, 964,656, which is then the largest of the box."""
    results = tmp_path / "results"
    (results / "klotski-box").mkdir(parents=True)
    (results / "klotski-box" / "catalogue.csv").write_text("moves,board,states,minimal,counts\n")
    write_totals(paths.catalogue_totals(results, "klotski-box"), 2_286_065, 3, 1_864_656,
                 964_656)
    assert main(["--results", str(results), "catalogue", "klotski-box", "--summary"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == (
        "3 clusters reach the goal, holding 1,864,656 boards; the largest 964,656 (the "
        "largest of the box: the clusters that cannot reach the goal hold fewer boards all "
        "together)")


def test_the_klotski_box_counts_the_published_layouts_in_203_mixes():
    """dnomd343/klotski's 29,334,498 layouts of the 4x5 box in 203 mixes of pieces, counted
    cell by cell in plain Python by mix (the 204th mix that fits, seven 1x2 blocks, has no
    layout: each column keeps an odd number of cells), and by box.count_boards.  The mix
    of one 1x2, one 2x1 and six 1x1 holds 964,656 layouts: the largest cluster's size."""
    width, height = 4, 5

    @lru_cache(maxsize=None)
    def mixes(x, covered, goal):
        """{(empty, 1x2, 2x1, 1x1): layouts} of the cells from x on."""
        if x == width * height:
            return Counter({(0, 0, 0, 0): 1}) if goal else Counter()
        here = 1 << x
        if covered & here:
            return mixes(x + 1, covered & ~here, goal)
        found = Counter({(e + 1, v, h, s): n for (e, v, h, s), n in
                         mixes(x + 1, covered, goal).items()})
        row, col = divmod(x, width)
        for shape, (w, h) in SHAPES.items():
            cells = sum(1 << ((row + i) * width + col + j) for i in range(h) for j in range(w))
            if (shape == "goal" and goal) or row + h > height or col + w > width or \
                    cells & covered:
                continue
            add = {"goal": (0, 0, 0, 0), "1x2": (0, 1, 0, 0), "2x1": (0, 0, 1, 0),
                   "1x1": (0, 0, 0, 1)}[shape]
            for mix, n in mixes(x + 1, (covered | cells) & ~here, goal or shape == "goal").items():
                found[tuple(a + b for a, b in zip(mix, add))] += n
        return found

    kept = Counter()
    for (empty, *mix), n in mixes(0, 0, False).items():
        if empty >= 2:
            kept[tuple(mix)] += n
    assert (len(kept), sum(kept.values())) == (203, 29_334_498)
    assert max(kept.values()) == kept[1, 1, 6] == 964_656
    assert klotski_box(".... .... .... .XX. .XX.", 2).box_boards() == 29_334_498


@pytest.mark.parametrize("min_empty, message", [
    (-1, "min_empty: -1: the empty cells a board keeps, a whole number from 0 to 16"),
    (17, "min_empty: 17: .* from 0 to 16"),
    ("2", "min_empty: '2'"),
    (True, "min_empty: True"),
])
def test_a_bad_min_empty_is_one_line_naming_the_key(min_empty, message):
    definition = {"family": "blocks", "axis": "free", "metric": "step",
                  "goal": ".... .... .... .XX. .XX.",
                  "catalogue": {"pieces": PIECES, "min_empty": min_empty}}
    with pytest.raises(ConfigError, match=message) as err:
        build("bad", definition, "config.yaml: define.bad")
    assert "\n" not in str(err.value)
    assert str(err.value).startswith("config.yaml: define.bad.catalogue: min_empty: ")


def test_min_empty_is_refused_in_one_line_for_bars_it_does_not_yet_filter():
    definition = {"family": "blocks", "axis": "length", "metric": "line",
                  "goal": ".... .... ..XX ....",
                  "catalogue": {"pieces": ["2x1", "1x2"], "min_empty": 2}}
    with pytest.raises(ConfigError, match="min_empty: not for bars") as err:
        build("bad", definition, "config.yaml: define.bad")
    assert "\n" not in str(err.value)


@pytest.mark.slow
def test_the_whole_klotski_box_is_the_published_enumeration(tmp_path):
    """dnomd343/klotski: 29,334,498 layouts with two cells empty or more, the largest
    cluster 964,656 (it reaches the goal, and the boards of the clusters that do not are
    fewer: so it is the largest of all; its mix has as many layouts, so it is that mix).  The classic start's cluster (Klotski's 25,955
    positions) is a row of the catalogue, its start 81 moves (Gardner's) from the goal.  A
    job of about a minute of CPU (docs/changelog.md, "Klotski's box")."""
    puzzle = klotski_box(".... .... .... .XX. .XX.", 2, "path")
    table, totals = catalogue_of(puzzle, tmp_path, jobs=1)
    assert totals["boards"] == 29_334_498
    assert totals["largest_reaching"] == 964_656
    assert totals["boards_not_reaching"] < totals["largest_reaching"]
    assert table.states.max() == 964_656
    largest = table.board[table.states.idxmax()]  # one 1x2, one 2x1, six 1x1: the whole mix
    pieces, _ = puzzle.pieces(puzzle.parse(largest))
    assert sorted(Counter(k for k, _ in pieces).items()) == [(0, 1), (1, 1), (2, 1), (3, 6)]
    klotski = puzzles.get("klotski")
    start = klotski.board_rank(puzzles.definition("klotski")["board"])
    seen, todo = {start}, [start]
    while todo:
        for n in klotski.neighbours(todo.pop()):
            if n not in seen:
                seen.add(n)
                todo.append(n)
    cluster = {tuple(puzzle.key(puzzle.parse(klotski.format(klotski.unrank(r)).replace(
        "@", "X")))[0]) for r in seen}
    rows = [row for row in table.itertuples()
            if tuple(puzzle.key(puzzle.parse(row.board))[0]) in cluster]
    assert [(row.states, row.moves) for row in rows] == [(25_955, 93)]
    assert len(puzzle.solution(puzzle.parse("BXXC BXXC DEEF DGHF I..J"))) - 1 == 81
