"""Flip It Square (seed 003), both rule sets: the database from the 16 all-white goals, the
seed's figures, moves checked against the rules, symmetry and the corner bound."""

import numba
import numpy as np
import pytest

from building import build_in_memory
from checkers import flipit_moves
from puzzledb.report import analysis

from puzzledb import puzzles, solvers
from puzzledb.query.database import DepthDatabase
from puzzledb.errors import BoardError

ALL_BLACK_EMPTY_AT_5 = "BBBB BSBB BBBB BBBB"

# The seed's published 22-move solution of the orthogonal puzzle, in our notation.
SEED_SOLUTION = [
    "BBBB BSBB BBBB BBBB", "BBBB BBWS BBBB BBBB", "BBBB BBWB BBBW BBBS", "BBBB BBWB BBBW SWWB",
    "BBBB BBWB BBBW WBSB", "BBSB BBBB BBWW WBBB", "SWBB BBBB BBWW WBBB", "BBWS BBBB BBWW WBBB",
    "BBWW BBBW BBWS WBBB", "BBWW BBBW SWBB WBBB", "SBWW WBBW BWBB WBBB", "WBWW BBBW WWBB SBBB",
    "WBWW BBBW WWBB BWWS", "WBWW BBBS WWBW BWWW", "WBWW SWWB WWBW BWWW", "WBWW BWWB BWBW SWWW",
    "SBWW WWWB WWBW WWWW", "WWBS WWWB WWBW WWWW", "WWBW WWWW WWBS WWWW", "WWBW WWWW SBWW WWWW",
    "WWBW WWWW WWSW WWWW", "WWSW WWBW WWBW WWWW", "WWWW WWWW WWWW WWSW",
]

# The seed's four deepest positions of the diagonal rule set, one per orbit.
SEED_DIAGONAL_ANTIPODES = [
    "BBBB BSBB BBWB BBBB", "BBBB BSBB BBBB BBBB", "BBBB BSWB BBBB BBBB", "BBBB BSWB BWWB BBBB",
]


@pytest.fixture(scope="module")
def flipit_results(tmp_path_factory):
    numba.set_num_threads(2)
    flipit_results = tmp_path_factory.mktemp("flipit_results")
    for name in ("flipit-square", "flipit-square-diagonal"):
        build_in_memory(puzzles.get(name), flipit_results / name / "layers", threads=2,
                     progress=False, log=lambda m: None)
    return flipit_results


@pytest.fixture(scope="module")
def square(flipit_results):
    with DepthDatabase.open("flipit-square", flipit_results) as db:
        yield db


@pytest.fixture(scope="module")
def diagonal(flipit_results):
    with DepthDatabase.open("flipit-square-diagonal", flipit_results) as db:
        yield db


def is_move(before, after, diagonal):
    """The rules read straight from the seed, independent of flipit.py: one piece jumps
    from two or more cells away along a row, a column (or a diagonal) into the empty cell,
    keeps its colour, and turns over exactly the pieces strictly between."""
    before, after = before.replace(" ", ""), after.replace(" ", "")
    empty, mover = before.index("S"), after.index("S")
    (r0, c0), (r1, c1) = divmod(empty, 4), divmod(mover, 4)
    dr, dc = r1 - r0, c1 - c0
    steps = max(abs(dr), abs(dc))
    in_line = dr == 0 or dc == 0 or (diagonal and abs(dr) == abs(dc))
    if not in_line or steps < 2 or after[empty] != before[mover]:
        return False
    between = {(r0 + k * dr // steps) * 4 + c0 + k * dc // steps for k in range(1, steps)}
    turned = {"B": "W", "W": "B"}
    return all(after[c] == (turned[before[c]] if c in between else before[c])
               for c in range(16) if c not in (empty, mover))


def replay(boards, diagonal):
    """Each board follows from the one before by a legal move, and the last is all white."""
    assert all(is_move(a, b, diagonal) for a, b in zip(boards, boards[1:]))
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
    assert len(boards) == 23 and boards[0] == ALL_BLACK_EMPTY_AT_5
    replay(boards, diagonal=False)


def test_with_diagonal_jumps_the_same_start_needs_18_moves_and_the_solution_replays(diagonal):
    assert diagonal.distance(ALL_BLACK_EMPTY_AT_5) == 18
    boards = diagonal.solve(ALL_BLACK_EMPTY_AT_5)
    assert len(boards) == 19 and boards[0] == ALL_BLACK_EMPTY_AT_5
    replay(boards, diagonal=True)


def test_all_black_starts_need_19_or_22_moves_and_17_or_18_with_diagonals(square, diagonal):
    starts = ["".join("S" if c == empty else "B" for c in range(16)) for empty in range(16)]
    centre = {5, 6, 9, 10}
    assert [square.distance(b) for b in starts] == [22 if e in centre else 19 for e in range(16)]
    assert [diagonal.distance(b) for b in starts] == [18 if e in centre else 17
                                                      for e in range(16)]


def test_the_seeds_published_solution_is_legal_and_optimal_at_every_step(square):
    replay(SEED_SOLUTION, diagonal=False)
    assert [square.distance(b) for b in SEED_SOLUTION] == list(range(22, -1, -1))


def test_the_move_checker_rejects_what_the_rules_forbid():
    start = "BBBB BSBB BBBB BBBB"
    assert is_move(start, "BBBB BBWS BBBB BBBB", diagonal=False)      # 7 jumps to 5 over 6
    assert not is_move(start, "BBBB BBSB BBBB BBBB", diagonal=False)  # a slide, no jump
    assert not is_move(start, "BBBB BBBS BBBB BBBB", diagonal=False)  # 6 not turned over
    assert not is_move(start, "BBBB BBBB BBWB BBBS", diagonal=False)  # diagonal jump
    assert is_move(start, "BBBB BBBB BBWB BBBS", diagonal=True)


def test_deepest_positions_up_to_symmetry_are_1_and_4_as_in_the_seed(square, diagonal):
    assert analysis.antipode_orbits(square) == [ALL_BLACK_EMPTY_AT_5]
    orbits = analysis.antipode_orbits(diagonal)
    puzzle = diagonal.puzzle
    seed = puzzle.canonical_ranks([puzzle.board_rank(b) for b in SEED_DIAGONAL_ANTIPODES])
    assert len(orbits) == 4 and set(seed.tolist()) == {puzzle.board_rank(b) for b in orbits}
    assert all(diagonal.distance(b) == 18 for b in SEED_DIAGONAL_ANTIPODES)


def test_orbit_counts_agree_with_burnside(square, diagonal):
    """Burnside: orbits = average over the 8 symmetries of the positions each fixes.  Over
    the whole space only the identity (524,288) and the two diagonal reflections fix any
    position (empty cell on the diagonal: 4 * 2^3 * 2^6 = 2,048 each): 66,048 orbits."""
    for db in (square, diagonal):
        puzzle = db.puzzle
        perms = [np.arange(16)] + [np.array(p) for p in puzzle.symmetries()]
        rows = analysis.symmetry_summary(db)
        assert sum(orbits for _, _, orbits in rows) == (2**19 + 2 * 2048) // 8 == 66048
        for depth in (3, 6, db.max_depth - 1):
            boards = [puzzle.unrank(int(r)) for r in db.layer(depth).ranks()]
            fixed = sum(int(np.array_equal(b[p], b)) for b in boards for p in perms)
            assert rows[depth][2] * 8 == fixed


def test_the_symmetries_carry_moves_to_moves_and_goals_to_goals():
    rng = np.random.default_rng(5)
    for name in ("flipit-square", "flipit-square-diagonal"):
        puzzle = puzzles.get(name)
        goals = set(puzzle.goal_ranks().tolist())
        for perm in map(np.array, puzzle.symmetries()):
            image = lambda rank: puzzle.rank(puzzle.unrank(rank)[perm])  # noqa: E731
            assert {image(g) for g in goals} == goals
            for rank in rng.integers(0, puzzle.size, 200).tolist():
                assert sorted(image(n) for n in puzzle.neighbours(rank)) == \
                    sorted(puzzle.neighbours(image(rank)))


def test_the_kernel_gives_the_moves_of_the_rules():
    rng = np.random.default_rng(3)
    for name, diagonal in (("flipit-square", False), ("flipit-square-diagonal", True)):
        puzzle = puzzles.get(name)
        for rank in rng.integers(0, puzzle.size, 1500).tolist():
            board = puzzle.unrank(rank)
            assert puzzle.rank(board) == rank
            expected = sorted(puzzle.rank(b) for b in flipit_moves(board, 4, 4, diagonal))
            assert sorted(puzzle.neighbours(rank)) == expected


def corner_bounds(ranks):
    """The compiled corner bound of each rank."""
    return solvers.lower_bound(puzzles.get("flipit-square"), "corner").many(ranks)


def test_the_corner_bound_never_exceeds_the_true_distance(square, diagonal):
    for db in (square, diagonal):
        for depth in range(db.max_depth + 1):
            assert corner_bounds(db.layer(depth).ranks()).max() <= depth
    start = square.puzzle.parse(ALL_BLACK_EMPTY_AT_5)
    assert square.puzzle.corner_bound(start) == corner_bounds([square.puzzle.rank(start)])[0]
    assert square.puzzle.corner_bound(start) == 8


def test_the_corner_bound_of_a_board_and_of_its_rank_agree():
    puzzle = puzzles.get("flipit-square")
    ranks = np.random.default_rng(7).integers(0, puzzle.size, 2000)
    assert corner_bounds(ranks).tolist() == [puzzle.corner_bound(puzzle.unrank(int(r)))
                                          for r in ranks]


@pytest.mark.parametrize("board, words", [
    ("BBBB BSBB BBBB BBB", "has 15 cells"),
    ("BBBB BSBB BBBB BBBX", "symbols 'X'"),
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
