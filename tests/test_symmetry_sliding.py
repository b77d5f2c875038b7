"""Sliding puzzles searched up to the board's symmetries (issue 42): the eight puzzle's
transpose with its tiles renamed, and a board of three colours whose transpose exchanges
two of them, built by the frontier search and compared with a plain BFS over board strings
whose classes come from transposing the strings (checkers.py's slides, nothing of the
family's)."""

import pytest

from checkers import slides
from building import plan
from published_figures import EIGHT_CORNER
from puzzledb import puzzles
from puzzledb.bfs.frontier.search import Frontier
from puzzledb.puzzles.sliding.puzzle import SlidingPuzzle
from puzzledb.puzzles.symmetric import Classes

# A 3x3 board whose transpose is its goal again once colours 2 and 3 are exchanged.
SWAPPED = "122 312 330"


def transposed(board, width, rename):
    """The board string read column by column, its pieces renamed."""
    rows = [board[r * width:(r + 1) * width] for r in range(len(board) // width)]
    return "".join(rename.get(rows[r][c], rows[r][c]) for c in range(width)
                   for r in range(len(rows)))


def plain_layers(goal, width, rename):
    """Per depth: (positions, classes), a class being a board and its renamed transpose."""
    layer, seen, out = {goal}, {goal}, []
    while layer:
        out.append((len(layer), len({min(b, transposed(b, width, rename)) for b in layer})))
        following = set()
        for board in layer:
            for moved in slides(board, width):
                moved = "".join(moved)
                if moved not in seen:
                    seen.add(moved)
                    following.add(moved)
        layer = following
    return out


@pytest.mark.parametrize("name,goal,rename", [
    ("eight", "123456780", {"2": "4", "4": "2", "3": "7", "7": "3", "6": "8", "8": "6"}),
    ("swapped", SWAPPED.replace(" ", ""), {"2": "3", "3": "2"}),
])
def test_a_sliding_board_by_classes_equals_a_plain_bfs_over_its_transposes(tmp_path, name,
                                                                          goal, rename):
    puzzle = puzzles.get(name) if name == "eight" else SlidingPuzzle(name, 3, 3, SWAPPED)
    group = puzzle.symmetry_group()
    assert group.order == 2
    manifest = Frontier(Classes(puzzle, group), tmp_path / "layers", tmp_path / "frontier",
                        4, 2000).build(log=lambda m: None)
    found = [(layer["positions"], layer["count"]) for layer in manifest["layers"]]
    assert found == plain_layers(goal, 3, rename)
    if name == "eight":
        assert [positions for positions, _ in found] == EIGHT_CORNER


def test_the_fifteen_puzzles_only_symmetry_is_its_transpose_renamed():
    group = puzzles.get("fifteen").symmetry_group()
    assert group.order == 2
    (cells, rename), = group.maps
    assert cells[1] == 4 and rename[2] == 5  # the goal's 2 stands where the transpose puts 5


@pytest.mark.parametrize("name", ["eight", "fifteen"])
def test_a_sliding_board_keeps_every_position_unless_classes_are_asked_for(name):
    """Its classes cost more time than they save (docs/changelog.md, "Symmetry never a
    loss by default"): the frontier search keeps every position by default and says why,
    and goes by classes when told."""
    puzzle = puzzles.get(name)
    assert not plan(puzzle, shards=2).symmetric
    assert plan(puzzle, shards=2, symmetry="classes").symmetric
    assert not plan(puzzle, shards=2, symmetry="none").symmetric
    assert "searched only with `symmetry: classes`" in dict(puzzle.info_lines())["symmetry"]
