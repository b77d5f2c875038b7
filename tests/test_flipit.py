"""Flip It Square (seed 003), both rule sets: the database from the 16 all-white goals, the
seed's figures, moves checked against the rules, symmetry and the corner bound."""

import numba
import numpy as np
import pytest

from puzzledb import analysis, engine, puzzles
from puzzledb.database import DepthDatabase
from puzzledb.puzzle import BoardError
from puzzledb.puzzles.flipit import corner_bound, corner_bound_kernel, moves_reference

ALL_BLACK_EMPTY_AT_5 = "BBBB BSBB BBBB BBBB"


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    numba.set_num_threads(2)
    results = tmp_path_factory.mktemp("results")
    for name in ("flipit-square", "flipit-square-diagonal"):
        engine.build(puzzles.get(name), results / name / "layers", threads=2,
                     progress=False, log=lambda m: None)
    return results


@pytest.fixture(scope="module")
def square(results):
    with DepthDatabase.open("flipit-square", results) as db:
        yield db


@pytest.fixture(scope="module")
def diagonal(results):
    with DepthDatabase.open("flipit-square-diagonal", results) as db:
        yield db


def replay(start, boards, diagonal):
    """Check each board follows from the one before by a legal move; the last is a goal."""
    puzzle = puzzles.get("flipit-square-diagonal" if diagonal else "flipit-square")
    assert boards[0] == puzzle.format(puzzle.parse(start))
    for before, after in zip(boards, boards[1:]):
        following = [puzzle.format(b) for b in moves_reference(puzzle.parse(before), diagonal)]
        assert after in following
    assert "B" not in boards[-1]


def test_both_rule_sets_reach_all_524288_positions(square, diagonal):
    assert square.total == diagonal.total == 16 * 2**15
    assert square.counts[0] == diagonal.counts[0] == 16  # all white, empty cell anywhere


def test_flipit_orthogonal_deepest_layer_is_22_with_four_positions(square):
    assert square.max_depth == 22 and square.counts[22] == 4
    assert ALL_BLACK_EMPTY_AT_5 in analysis.antipodes(square)


def test_flipit_diagonal_deepest_layer_is_18_with_twenty_positions(diagonal):
    assert diagonal.max_depth == 18 and diagonal.counts[18] == 20


def test_all_black_with_the_empty_cell_at_5_needs_22_moves_and_the_solution_replays(square):
    assert square.distance(ALL_BLACK_EMPTY_AT_5) == 22
    boards = square.solve(ALL_BLACK_EMPTY_AT_5)
    assert len(boards) == 23
    replay(ALL_BLACK_EMPTY_AT_5, boards, diagonal=False)


def test_with_diagonal_jumps_the_same_start_needs_18_moves_and_the_solution_replays(diagonal):
    assert diagonal.distance(ALL_BLACK_EMPTY_AT_5) == 18
    boards = diagonal.solve(ALL_BLACK_EMPTY_AT_5)
    assert len(boards) == 19
    replay(ALL_BLACK_EMPTY_AT_5, boards, diagonal=True)


def test_deepest_positions_up_to_symmetry_are_1_and_4_as_in_the_seed(square, diagonal):
    assert analysis.antipode_orbits(square) == [ALL_BLACK_EMPTY_AT_5]
    assert len(analysis.antipode_orbits(diagonal)) == 4


def test_orbit_counts_agree_with_burnside(square):
    """Burnside: orbits = average over the 8 symmetries of the positions each fixes."""
    puzzle = square.puzzle
    perms = [np.arange(16)] + [np.array(p) for p in puzzle.symmetries]
    rows = analysis.symmetry_summary(square)
    for depth in (3, 10, 21):
        boards = [puzzle.unrank(int(r)) for r in square.layer(depth).ranks()]
        fixed = sum(int(np.array_equal(b[p], b)) for b in boards for p in perms)
        assert rows[depth][2] * 8 == fixed


def test_the_kernel_gives_the_moves_of_the_rules():
    rng = np.random.default_rng(3)
    for name, diagonal in (("flipit-square", False), ("flipit-square-diagonal", True)):
        puzzle = puzzles.get(name)
        for rank in rng.integers(0, puzzle.size, 1500).tolist():
            board = puzzle.unrank(rank)
            assert puzzle.rank(board) == rank
            expected = sorted(puzzle.rank(b) for b in moves_reference(board, diagonal))
            assert sorted(puzzle.neighbours(rank)) == expected


def test_the_corner_bound_never_exceeds_the_true_distance(square, diagonal):
    for db in (square, diagonal):
        for depth in range(db.max_depth + 1):
            ranks = db.layer(depth).ranks()
            bounds = np.array([corner_bound_kernel(np.int64(r)) for r in ranks.tolist()])
            assert bounds.max() <= depth
    start = square.puzzle.parse(ALL_BLACK_EMPTY_AT_5)
    assert corner_bound(start) == corner_bound_kernel(square.puzzle.rank(start)) == 8


@pytest.mark.parametrize("board, words", [
    ("BBBB BSBB BBBB BBB", "has 15 cells"),
    ("BBBB BSBB BBBB BBBX", "pieces 'X'"),
    ("BBBB BSBB BBBB BBBS", "2 empty cells"),
])
def test_malformed_flipit_boards_are_one_line_errors(board, words):
    with pytest.raises(BoardError, match=words) as err:
        puzzles.get("flipit-square").parse(board)
    assert "\n" not in str(err.value)


def test_the_seeds_notations_are_accepted():
    puzzle = puzzles.get("flipit-square")
    seed_row = "[ B B B B B S B B B B B B B B B B ]"
    assert puzzle.format(puzzle.parse(seed_row)) == ALL_BLACK_EMPTY_AT_5
    assert puzzle.format(puzzle.parse("1111 1011 1111 1111")) == ALL_BLACK_EMPTY_AT_5
