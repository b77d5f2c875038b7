"""Tree search beyond a database: IDA* and iterative deepening agree with the stored depths,
every lower bound is admissible over a whole database, and every solution is replayed by
the plain move checkers below, written from the rules and sharing no code with the kernels."""

import random

import numba
import numpy as np
import pytest

from checkers import cells, is_slide, manhattan
from building import build_in_memory
from conftest import puzzledb_cli

from puzzledb import puzzles, solvers
from puzzledb.query.database import DepthDatabase
from puzzledb.query.problems import parse_problem
from puzzledb.errors import PuzzleError
from puzzledb.puzzles.sliding.puzzle import SlidingPuzzle

EIGHT_START = "867 254 301"
BOTH_PDBS = "pdb:fifteen-6colour,pdb:fifteen-3colour"


# --- independent move checkers -------------------------------------------------------------


def is_flip_jump(before, after):
    """after follows from before by a flip-it jump along a row or column: a piece two or
    more cells from the empty cell jumps into it and turns over every piece it passes."""
    a, b = cells(before), cells(after)
    empty, mover = a.index("S"), b.index("S")
    (er, ec), (mr, mc) = divmod(empty, 4), divmod(mover, 4)
    if er == mr and abs(ec - mc) >= 2:
        between = [er * 4 + c for c in range(min(ec, mc) + 1, max(ec, mc))]
    elif ec == mc and abs(er - mr) >= 2:
        between = [r * 4 + ec for r in range(min(er, mr) + 1, max(er, mr))]
    else:
        return False
    expect = list(a)
    expect[empty], expect[mover] = a[mover], "S"
    for cell in between:
        expect[cell] = {"B": "W", "W": "B"}[a[cell]]
    return expect == b


def check_path(boards, start, goal_test, step):
    assert cells(boards[0]) == cells(start)
    assert goal_test(boards[-1])
    for before, after in zip(boards, boards[1:]):
        assert step(before, after), (before, after)


def check_eight(boards, start):
    check_path(boards, start, lambda b: cells(b) == cells("123 456 780"),
               lambda x, y: is_slide(x, y, 3))


def check_fifteen(boards, start):
    check_path(boards, start, lambda b: cells(b) == cells("123456789abcdef0"),
               lambda x, y: is_slide(x, y, 4))


def random_walk(start, steps, width, seed):
    """A board `steps` slides from start, never undoing the last slide (plain Python)."""
    rng = random.Random(seed)
    board, previous = cells(start), None
    height = len(board) // width
    for _ in range(steps):
        blank = board.index("0")
        r, c = divmod(blank, width)
        near = [n for n, ok in ((blank - width, r > 0), (blank + width, r < height - 1),
                                (blank - 1, c > 0), (blank + 1, c < width - 1))
                if ok and n != previous]
        n = rng.choice(near)
        board[blank], board[n], previous = board[n], board[blank], blank
    return " ".join("".join(board[i:i + width]) for i in range(0, len(board), width))


# --- fixtures ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def eight_db(results):
    with DepthDatabase.open("eight", results) as db:
        yield db


@pytest.fixture(scope="module")
def flipit_db(tmp_path_factory):
    numba.set_num_threads(2)
    directory = tmp_path_factory.mktemp("flipit") / "flipit-square" / "layers"
    build_in_memory(puzzles.get("flipit-square"), directory, threads=2, progress=False,
                 log=lambda m: None)
    with DepthDatabase(puzzles.get("flipit-square"), directory) as db:
        yield db


def every_layer(db):
    """(depth, ranks) of every stored layer."""
    for depth in range(db.max_depth + 1):
        yield depth, db.layer(depth).ranks().astype(np.int64)


def assert_admissible(bound, db):
    """The bound never exceeds the stored depth, over every position of the database."""
    for depth, ranks in every_layer(db):
        assert int(bound.many(ranks).max()) <= depth, f"{bound.name} at depth {depth}"


# --- the 8-puzzle -----------------------------------------------------------------------------


def test_eight_start_needs_31_moves_and_has_exactly_40_optimal_solutions_all_replayable():
    solved = solvers.solve("eight", EIGHT_START, search="ida", all_solutions=True)
    assert solved.length == 31
    assert len(solved.paths) == len({tuple(p) for p in solved.paths}) == 40
    for boards in solved.solutions:
        assert len(boards) == 32
        check_eight(boards, EIGHT_START)


def test_manhattan_distance_of_the_eight_start_is_21_as_in_the_seed():
    puzzle = puzzles.get("eight")
    assert solvers.lower_bound(puzzle, "manhattan")(puzzle.board_rank(EIGHT_START)) == 21


def test_ida_star_finds_the_database_distance_of_sampled_eight_positions(eight_db):
    puzzle = eight_db.puzzle
    for depth in range(0, eight_db.max_depth + 1, 3):
        for rank in eight_db.positions_at(depth, count=2, seed=depth):
            board = puzzle.decode(int(rank))
            solved = solvers.solve(puzzle, board, search="ida")
            assert solved.length == depth
            check_eight(solved.solutions[0], board)


def test_iterative_deepening_finds_the_database_distance_of_shallow_eight_positions(eight_db):
    puzzle = eight_db.puzzle
    for depth in range(0, 13, 4):
        for rank in eight_db.positions_at(depth, count=2, seed=depth):
            board = puzzle.decode(int(rank))
            solved = solvers.solve(puzzle, board, search="iddfs")
            assert solved.length == depth and solved.heuristic is None
            check_eight(solved.solutions[0], board)


def test_all_optimal_solutions_by_ida_star_number_as_the_database_counts(eight_db):
    puzzle = eight_db.puzzle
    for rank in eight_db.positions_at(20, count=3, seed=1):
        board = puzzle.decode(int(rank))
        solved = solvers.solve(puzzle, board, all_solutions=True)
        assert len(solved.paths) == eight_db.count_solutions(board)


def test_a_search_paused_every_few_nodes_resumes_to_the_same_solutions(monkeypatch):
    whole = solvers.solve("eight", EIGHT_START, all_solutions=True)
    calls = []
    monkeypatch.setattr(solvers.tree, "_BUDGET", 997)  # pause and resume the compiled loop often
    paused = solvers.solve("eight", EIGHT_START, all_solutions=True,
                           progress=lambda threshold, nodes: calls.append((threshold, nodes)))
    assert paused.paths == whole.paths and paused.nodes == whole.nodes
    assert len(calls) >= whole.nodes // 997 - 20  # every iteration pauses on its own
    assert [t for t, _ in calls] == sorted(t for t, _ in calls)
    assert [n for _, n in calls] == sorted(n for _, n in calls)


def test_more_optimal_solutions_than_the_first_pass_has_room_for_are_all_collected(
        monkeypatch):
    whole = solvers.solve("eight", EIGHT_START, all_solutions=True)
    monkeypatch.setattr(solvers.tree, "_ROOM", 3)  # the 40 solutions overflow: the pass reruns
    solved = solvers.solve("eight", EIGHT_START, all_solutions=True)
    assert solved.paths == whole.paths and len(solved.paths) == 40
    limited = solvers.solve("eight", EIGHT_START, all_solutions=True, limit=7)
    assert limited.paths == whole.paths[:7]


def test_manhattan_distance_never_exceeds_the_depth_of_any_eight_position(eight_db):
    assert_admissible(solvers.lower_bound(eight_db.puzzle, "manhattan"), eight_db)


@pytest.mark.parametrize("name", ["fifteen-6colour", "fifteen-3colour"])
def test_manhattan_with_repeated_pieces_never_exceeds_the_depth_of_any_position(results, name):
    with DepthDatabase.open(name, results) as db:
        assert_admissible(solvers.lower_bound(db.puzzle, "manhattan"), db)


@pytest.mark.parametrize("name", ["eight", "fifteen", "fifteen-6colour", "fifteen-3colour"])
def test_compiled_manhattan_matches_the_plain_python_reference(name):
    puzzle = puzzles.get(name)
    bound = solvers.lower_bound(puzzle, "manhattan")
    rng = np.random.default_rng(7)
    for rank in rng.integers(0, puzzle.size, size=300).tolist():
        assert bound(rank) == manhattan(puzzle, puzzle.unrank(rank))


# --- pattern databases ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def eight_by_rows(tmp_path_factory):
    """An abstraction of the 8-puzzle built here: tiles 1-3, 4-6, 7-8 coloured by goal row."""
    puzzle = SlidingPuzzle("eight-rows", 3, 3, "111 222 330")
    directory = tmp_path_factory.mktemp("abstract") / "layers"
    build_in_memory(puzzle, directory, progress=False, log=lambda m: None)
    with DepthDatabase(puzzle, directory) as db:
        yield db


def test_pattern_database_of_an_eight_abstraction_never_exceeds_the_true_depth(
        eight_db, eight_by_rows):
    assert eight_by_rows.total == 5040  # 9! / (3! 3! 2!)
    assert_admissible(solvers.pattern_database(eight_db.puzzle, eight_by_rows), eight_db)


def test_pattern_database_reads_the_distance_of_the_coloured_board(eight_db, eight_by_rows):
    puzzle, bound = eight_db.puzzle, solvers.pattern_database(eight_db.puzzle, eight_by_rows)
    colour = str.maketrans("12345678", "11122233")
    for rank in np.random.default_rng(3).integers(0, puzzle.size, size=200).tolist():
        coloured = puzzle.decode(rank).translate(colour)
        assert bound(rank) == eight_by_rows.distance(coloured)


def test_the_coloured_fifteen_puzzles_are_abstractions_of_the_fifteen_puzzle():
    fifteen = puzzles.get("fifteen")
    six = fifteen.colouring(puzzles.get("fifteen-6colour"))
    assert six.tolist() == [0, 1, 2, 3, 4, 6, 6, 6, 6, 6, 6, 6, 6, 5, 6, 6]  # tile 13 -> 5
    three = fifteen.colouring(puzzles.get("fifteen-3colour"))
    assert three.tolist() == [0, 1, 1, 2, 2, 1, 1, 2, 2, 1, 3, 3, 2, 3, 3, 3]


def test_a_colouring_that_does_not_send_the_goal_to_the_goal_is_refused():
    fifteen, six = puzzles.get("fifteen"), puzzles.get("fifteen-6colour")
    swapped = {s: "6" for s in "56789abcdef"} | {"0": "0", "1": "2", "2": "1", "3": "3",
                                                  "4": "4", "d": "5"}
    with pytest.raises(PuzzleError, match="does not map the goal onto the goal"):
        fifteen.colouring(six, swapped)
    with pytest.raises(PuzzleError, match="same shape"):
        puzzles.get("eight").colouring(six)
    with pytest.raises(PuzzleError, match="two colours"):
        six.colouring(puzzles.get("fifteen-3colour"))


def test_pattern_database_guided_ida_agrees_with_manhattan_on_fifteen_puzzle_walks(results):
    fifteen = puzzles.get("fifteen")
    bounds = [solvers.lower_bound(fifteen, spec, results)
              for spec in ("manhattan", "pdb:fifteen-6colour", "pdb:fifteen-3colour")]
    # seeded walks whose optimal lengths are 28, 38 and 30 moves: moderate, fast
    for steps, seed in ((60, 1), (60, 2), (80, 1)):
        board = random_walk("1234 5678 9abc def0", steps, 4, seed)
        by_manhattan = solvers.solve(fifteen, board, heuristic="manhattan")
        by_pdbs = solvers.solve(fifteen, board, heuristic=f"manhattan,{BOTH_PDBS}",
                                results=results)
        assert by_pdbs.length == by_manhattan.length >= 28
        check_fifteen(by_pdbs.solutions[0], board)
        # along an optimal path the distances are known exactly: no bound exceeds them
        path = by_pdbs.paths[0]
        for left, rank in zip(range(len(path) - 1, -1, -1), path):
            assert all(bound(rank) <= left for bound in bounds)


# --- flip-it ----------------------------------------------------------------------------------


def test_corner_bound_never_exceeds_the_depth_of_any_flipit_position(flipit_db):
    assert_admissible(solvers.lower_bound(flipit_db.puzzle, "corner"), flipit_db)


def test_ida_star_with_the_corner_bound_solves_all_16_all_black_starts_as_the_database(
        flipit_db):
    lengths = []
    for empty in range(16):
        board = "".join("S" if c == empty else "B" for c in range(16))
        solved = solvers.solve(flipit_db.puzzle, board, search="ida", heuristic="corner")
        assert solved.length == flipit_db.distance(board)
        check_path(solved.solutions[0], board, lambda b: "B" not in b, is_flip_jump)
        lengths.append(solved.length)
    assert lengths.count(22) == 4 and lengths.count(19) == 12  # the centre cells need 22


# --- the command line ---------------------------------------------------------------------------


def test_cli_solves_the_eight_start_by_ida_star_without_any_database(tmp_path):
    result = puzzledb_cli("solve", "eight", EIGHT_START, "--search", "ida",
                          "--results", str(tmp_path))
    assert result.returncode == 0, result.stderr
    boards = result.stdout.splitlines()
    assert len(boards) == 32
    check_eight(boards, EIGHT_START)


def test_cli_takes_a_board_given_after_the_options_as_before_them(tmp_path):
    result = puzzledb_cli("solve", "eight", "--search", "ida", "--results", str(tmp_path),
                          *EIGHT_START.split())
    assert result.returncode == 0, result.stderr
    check_eight(result.stdout.splitlines(), EIGHT_START)
    bad = puzzledb_cli("distance", "eight", "--bogus", EIGHT_START)
    assert bad.returncode == 2 and "unrecognized arguments: --bogus" in bad.stderr


def test_cli_solve_without_a_database_searches_instead_and_says_so(tmp_path):
    board = "1438 7260 59bc aedf"  # 28 moves from the 15-puzzle goal
    result = puzzledb_cli("solve", "fifteen", board, "--results", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "no database of fifteen" in result.stderr and "28 moves" in result.stderr
    boards = result.stdout.splitlines()
    assert len(boards) == 29
    check_fifteen(boards, board)
    (tmp_path / "eight" / "layers").mkdir(parents=True)
    (tmp_path / "eight" / "layers" / "manifest.json").write_text("{")  # corrupt: reported
    broken = puzzledb_cli("solve", "eight", EIGHT_START, "--results", str(tmp_path))
    assert broken.returncode == 2 and broken.stderr.count("\n") == 1


def test_cli_lists_the_40_optimal_eight_solutions_as_replayable_routes(tmp_path):
    result = puzzledb_cli("solve", "eight", EIGHT_START, "--all", "--results", str(tmp_path))
    assert result.returncode == 0, result.stderr
    problems = [parse_problem(line) for line in result.stdout.splitlines()]
    assert len({tuple(p.route) for p in problems}) == 40
    assert "40 optimal solutions of 31 moves" in result.stderr
    for problem in problems:
        assert problem.length == len(problem.route) == 31
        board = cells(EIGHT_START)
        boards = [EIGHT_START]
        for cell in problem.route:  # the blank's cell after each move
            blank = board.index("0")
            board[blank], board[cell] = board[cell], "0"
            boards.append("".join(board))
        check_eight(boards, EIGHT_START)


def test_cli_refuses_a_heuristic_for_iterative_deepening_in_one_line(tmp_path):
    result = puzzledb_cli("solve", "eight", EIGHT_START, "--search", "iddfs",
                          "--heuristic", "manhattan")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "uses no heuristic" in result.stderr


def test_fifteen_puzzle_is_known_but_its_database_is_refused_in_one_line(tmp_path):
    info = puzzledb_cli("info", "fifteen", "--results", str(tmp_path))
    assert "10,461,394,944,000" in info.stdout
    build = puzzledb_cli("build", "fifteen", "--results", str(tmp_path))
    assert build.returncode == 2
    assert build.stderr.count("\n") == 1 and "more than memory_mb" in build.stderr
