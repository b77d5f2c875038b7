"""Additive partitions given as data (groups of tiles in the config, named by their tiles) on
any sliding puzzle with distinct tiles, and the 24-puzzle: the partition is checked and named,
its bound never exceeds the true distance read from a depth database (the 8-puzzle and a 5x2
board, built here in seconds), the search with its stored tables solves and replays, and the
24-puzzle (beyond 64-bit ranks) is refused a database and a rank search in one line.  The
24-puzzle's own tables are benchmarks/bench_twentyfour.py's, never built here."""

import threading
import time

import numpy as np
import pytest
import yaml

from building import build_in_memory, plan
from conftest import puzzledb_cli, run_snakemake
from test_additive import all_boards, reference_table, stored_value, walk
from puzzledb import puzzles, solvers
from puzzledb.config import check_config
from puzzledb.errors import ConfigError, PuzzleError, SearchError
from puzzledb.query.database import DepthDatabase
from puzzledb.query.problems import parse_problem, replay
from puzzledb.solvers import additive, additive_search

FIVE_BY_TWO = {"fivetwo": {"family": "sliding", "width": 5, "height": 2,
                           "goal": "12345 67890"}}
FIVETWO_PARTITION = "12367-4589"  # [[1, 2, 3, 6, 7], [4, 5, 8, 9]]: the left and right halves
KORF_FELNER_GOAL = " ".join(str(t) for t in range(25))


def tables_of(partition, threads=2):
    built = [additive.build_group(partition, g, threads=threads)
             for g in range(len(partition.groups))]
    return additive.in_memory(partition, [b.values for b in built])


def depths_of(puzzle, directory):
    """(every reachable board, its depth) from a database built in `directory`."""
    build_in_memory(puzzle, directory, threads=2, progress=False, log=lambda m: None)
    with DepthDatabase(puzzle, directory) as db:
        depths = db.depths(np.arange(puzzle.size, dtype=np.uint64))
    return all_boards(puzzle.size, puzzle.cells, puzzle.tables()), depths


def replays_to_goal(puzzle, board, route):
    """Whether a route (the blank's cell after each move) takes the board to the goal by
    slides, on boards alone (a 5x5's ranks are beyond the kernels)."""
    board = np.array(board)
    for cell in route:
        blank = int(np.flatnonzero(board == 0)[0])
        w = puzzle.width
        if abs(blank // w - cell // w) + abs(blank % w - cell % w) != 1:
            return False
        board[blank], board[cell] = board[cell], 0
    return np.array_equal(board, puzzle.goal)


@pytest.fixture(scope="module")
def fivetwo():
    puzzles.define(FIVE_BY_TWO)
    return puzzles.get("fivetwo")


@pytest.fixture(scope="module")
def fivetwo_tables(fivetwo, tmp_path_factory):
    """A results directory holding the stored tables of FIVETWO_PARTITION and its manifest."""
    results = tmp_path_factory.mktemp("results")
    for label in FIVETWO_PARTITION.split("-"):
        additive.build_table(fivetwo, FIVETWO_PARTITION, label, results / "pdbs" / "fivetwo"
                             / FIVETWO_PARTITION / f"{label}.h5")
    additive.write_manifest(results, fivetwo, FIVETWO_PARTITION)
    return results


# --- a partition as data --------------------------------------------------------------------


def test_a_partition_given_as_groups_is_named_by_its_tiles_ascending():
    eight = puzzles.get("eight")
    partition = eight.additive_partition([[5, 4, 1], [8, 7, 6, 3, 2]])
    assert partition.name == "145-23678" and partition.labels == ("145", "23678")
    assert partition.groups == ((1, 4, 5), (2, 3, 6, 7, 8))
    assert eight.additive_partition("145-23678") == partition
    fifteen = puzzles.get("fifteen")
    assert fifteen.additive_partition([[10, 11, 12, 13, 14, 15], list(range(1, 10))]).name \
        == "123456789-abcdef"


@pytest.mark.parametrize("name, spec, message", [
    ("eight", [[1, 2, 3], [3, 4, 5, 6, 7, 8]], "tile 3 is in groups 1 and 2; groups are "
                                                "disjoint"),
    ("eight", [[1, 2, 2], [3, 4, 5, 6, 7, 8]], "tile 2 is twice in group 1"),
    ("eight", [[1, 2, 3], [4, 5, 6]], "tiles 7, 8 in no group; a partition covers every"),
    ("eight", [[1, 2, 3], [4, 5, 6, 7, 8, 9]], "group 2 has 9, not a tile"),
    ("eight", [[1, 2, 3], []], "group 2 of the partition is not a non-empty list"),
    ("eight", "21-345678", "is written '12-345678'"),
    ("eight", "12-3456xy", "names 'x', 'y', not a tile"),
    ("eight", "5-5-5", r"no additive partition '5-5-5' \(named: none; read as groups of "
                       r"tiles: tile 5 is in groups 1 and 2"),
    ("fifteen-6colour", [[1, 2]], "additive pattern databases need distinct tiles"),
])
def test_a_bad_partition_is_refused_naming_the_problem(name, spec, message):
    with pytest.raises(PuzzleError, match=message):
        puzzles.get(name).additive_partition(spec)


def test_config_pdbs_takes_groups_names_them_and_refuses_bad_ones_naming_the_key():
    config = check_config({"puzzles": ["eight"], "pdbs": {
        "eight": [[[1, 2, 4, 5], [3, 6, 7, 8]], "145-23678"], "fifteen": ["7-8"]}})
    assert config["pdbs"] == {"eight": ["1245-3678", "145-23678"], "fifteen": ["7-8"]}
    with pytest.raises(ConfigError, match=r"^config: pdbs\.eight\.1: eight: tile 2 is in "
                                          r"groups 1 and 2"):
        check_config({"puzzles": ["eight"],
                      "pdbs": {"eight": ["145-23678", [[1, 2], [2, 3, 4, 5, 6, 7, 8]]]}})
    with pytest.raises(ConfigError, match=r"pdbs\.eight\.1: partition 1245-3678 is listed "
                                          r"twice"):
        check_config({"puzzles": ["eight"],
                      "pdbs": {"eight": [[[1, 2, 4, 5], [3, 6, 7, 8]], "1245-3678"]}})
    with pytest.raises(ConfigError, match=r"pdbs\.eight\.0"):
        check_config({"puzzles": ["eight"], "pdbs": {"eight": [[[1, 2, "x"]]]}})
    # as Snakemake's --config gives them: the numbers inside a map as strings
    config = check_config({"puzzles": ["eight"], "pdbs": {
        "eight": [[["1", "2", "4", "5"], ["3", "6", "7", "8"]], "145-23678"]}})
    assert config["pdbs"] == {"eight": ["1245-3678", "145-23678"]}


def test_the_strongest_built_partition_is_the_one_of_most_placements(tmp_path):
    eight = puzzles.get("eight")
    for name in ("1245-3678", "123-456-78"):
        partition = eight.additive_partition(name)
        for label in partition.labels:
            additive.build_table(eight, name, label,
                                 tmp_path / "pdbs" / "eight" / name / f"{label}.h5")
        additive.write_manifest(tmp_path, eight, name)
    (tmp_path / "pdbs" / "eight" / "not-a-partition").mkdir()
    assert additive.built(eight, tmp_path) == ["1245-3678", "123-456-78"]
    assert solvers.default_heuristic(eight, tmp_path) == "additive:1245-3678"


# --- the bound of a partition as data is admissible --------------------------------------------


def test_a_data_partition_of_the_eight_puzzle_never_exceeds_the_depth_of_any_position(
        tmp_path):
    eight = puzzles.get("eight")
    boards, depths = depths_of(eight, tmp_path / "eight" / "layers")
    database = tables_of(eight.additive_partition([[1, 2, 4, 5], [3, 6, 7, 8]]))
    manhattan = solvers.lower_bound(eight, "manhattan").many(np.arange(boards.shape[0]))
    for mirror in (False, True):
        bound = additive_search.AdditiveSearch(database, mirror=mirror).bounds(boards)
        assert np.all(bound <= depths) and np.all(bound >= manhattan)
    assert np.count_nonzero(bound > manhattan) > boards.shape[0] // 3


def test_a_data_partition_of_a_five_by_two_board_is_admissible_and_solves_to_the_database(
        fivetwo, tmp_path):
    boards, depths = depths_of(fivetwo, tmp_path / "fivetwo" / "layers")
    partition = fivetwo.additive_partition([[1, 2, 3, 6, 7], [4, 5, 8, 9]])
    database = tables_of(partition)
    for g in range(2):  # the tables against a plain-Python 0-1 search
        for placed, value in reference_table(partition, g).items():
            assert stored_value(database, g, placed) == value
    search = additive_search.AdditiveSearch(database)
    assert search.tables.lookups == 1  # not square: no mirror
    bound = search.bounds(boards)
    assert np.all(bound <= depths)
    assert bound.mean() > solvers.lower_bound(fivetwo, "manhattan").many(
        np.arange(boards.shape[0])).mean()
    rng = np.random.default_rng(5)
    for r in rng.choice(boards.shape[0], 25, replace=False):
        length, routes, _ = search.run(boards[r])
        assert length == depths[r] and replays_to_goal(fivetwo, boards[r], routes[0])


def test_a_group_on_a_five_by_five_board_is_a_plain_python_0_1_search():
    """25 cells: 23 free cells leave 46 bits of the build's 64-bit word."""
    twentyfour = puzzles.get("twentyfour")
    partition = twentyfour.additive_partition(
        [[1, 7], list(range(2, 7)) + list(range(8, 25))])
    built = additive.build_group(partition, 0)
    database = additive.in_memory(partition, [built.values, built.values])
    reference = reference_table(partition, 0)
    assert len(reference) == 25 * 24
    for placed, value in reference.items():
        assert stored_value(database, 0, placed) == value


# --- the 24-puzzle ------------------------------------------------------------------------------


def test_the_twentyfour_puzzle_has_korf_and_felners_6_6_6_6_and_no_rank_search():
    twentyfour = puzzles.get("twentyfour")
    assert twentyfour.size == 25 * (24 * 23 * 22 * 21 * 20 * 19 * 18 * 17 * 16 * 15 * 14 * 13
                                    * 12 * 11 * 10 * 9 * 8 * 7 * 6 * 5 * 4 * 3) \
        and not twentyfour.ranks_fit
    partition = twentyfour.additive_partitions()["6-6-6-6"]
    # Korf and Felner's groups, goal blank top left, turned by 180 degrees: their cell c is
    # our cell 24 - c, their tile t (home cell t) our tile 25 - t
    theirs = [{1, 2, 5, 6, 7, 12}, {3, 4, 8, 9, 13, 14}, {10, 11, 15, 16, 20, 21},
              {17, 18, 19, 22, 23, 24}]
    assert sorted(map(set, partition.groups), key=min) == sorted(
        ({25 - t for t in group} for group in theirs), key=min)
    assert partition.name == "6-6-6-6"
    assert twentyfour.heuristics() == {}
    with pytest.raises(PuzzleError, match="too many to rank in 64 bits: no depth database"):
        plan(twentyfour, memory_mb=8000)
    frame = twentyfour.goal_frame(KORF_FELNER_GOAL)
    board = frame.parse("14 5 9 2 18 8 23 19 12 17 15 0 10 20 4 6 11 21 1 7 24 3 16 22 13")
    assert twentyfour.unrank(twentyfour.rank(board)).tolist() == board.tolist()


def test_twentyfour_without_tables_is_one_line_and_exit_2(tmp_path):
    result = puzzledb_cli("solve", "twentyfour", "--goal", KORF_FELNER_GOAL,
                          "1 0 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24",
                          "--results", str(tmp_path))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "additive pattern databases" in result.stderr
    with pytest.raises(SearchError, match="beyond 64-bit ranks"):
        solvers.Solver("twentyfour", heuristic="manhattan", results=tmp_path)
    result = puzzledb_cli("build", "twentyfour", "--results", str(tmp_path))
    assert result.returncode == 2 and "too many to rank in 64 bits" in result.stderr


# --- batches on threads ---------------------------------------------------------------------------


def test_a_batch_on_two_threads_gives_the_one_thread_results_in_input_order(
        fivetwo, fivetwo_tables):
    first = solvers.Solver(fivetwo, results=fivetwo_tables)
    assert first.heuristic == f"additive:{FIVETWO_PARTITION}"
    boards = [walk(fivetwo, steps, seed) for steps, seed in ((40, 1), (3, 2), (60, 3),
                                                              (0, 4), (25, 5))]
    done = []
    serial = list(solvers.solve_in_order([first], boards))
    threaded = list(solvers.solve_in_order([first, first.twin()], boards,
                                           solved=lambda i, s: done.append(i)))
    assert [s.length for s in threaded] == [s.length for s in serial]
    assert [s.paths for s in threaded] == [s.paths for s in serial]
    assert [s.nodes for s in threaded] == [s.nodes for s in serial]
    assert sorted(done) == list(range(5)) and serial[3].length == 0


class EndlessOrQuick:
    """A stand-in Solver: "quick" is solved at once, "endless" searches until a progress call
    stops it (as Ctrl-C or another board's error does), "wrong" fails."""

    started = threading.Event()  # an endless search is running

    def __init__(self):
        self.stopped = threading.Event()

    def solve(self, board, progress=None):
        if board == "wrong":
            raise SearchError("no solution")
        while board == "endless":
            self.started.set()
            try:
                progress(0, 1)
            except SearchError:
                self.stopped.set()
                raise
            time.sleep(0.001)
        return board


def test_a_threaded_batch_stops_the_other_searches_when_it_ends_early():
    solvers_ = [EndlessOrQuick(), EndlessOrQuick()]
    batch = solvers.solve_in_order(solvers_, ["quick", "endless", "quick"])
    assert next(batch) == "quick"
    assert EndlessOrQuick.started.wait(10)
    batch.close()  # as an interrupted command: the endless search stops at its next call
    assert any(s.stopped.is_set() for s in solvers_)
    solvers_ = [EndlessOrQuick(), EndlessOrQuick()]
    with pytest.raises(SearchError, match="no solution"):  # the first board's error ends it
        list(solvers.solve_in_order(solvers_, ["wrong", "endless"]))


def test_cli_batch_on_two_threads_keeps_the_input_order_and_reports_each_board(
        fivetwo, fivetwo_tables, tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("puzzles: [eight]\ndefine:\n  fivetwo: {family: sliding, width: 5, "
                      "height: 2, goal: '12345 67890'}\n")
    name = FIVETWO_PARTITION
    boards = [fivetwo.format(walk(fivetwo, steps, seed)) for steps, seed in
              ((50, 1), (2, 2), (45, 3), (30, 4))]
    path = tmp_path / "boards.txt"
    path.write_text("\n".join(boards) + "\n")
    result = puzzledb_cli("solve", "fivetwo", "--batch", str(path), "--threads", "2",
                          "--config", str(config), "--results", str(fivetwo_tables))
    assert result.returncode == 0, result.stderr
    problems = [parse_problem(line) for line in result.stdout.splitlines()]
    assert [p.board for p in problems] == [b.replace(" ", "") for b in boards]
    for problem in problems:
        replay(fivetwo, problem)
    for i in range(1, 5):
        assert f"board {i}: {problems[i - 1].length} moves, " in result.stderr
    assert f"ida (additive:{name}): 4 boards" in result.stderr
    assert "of search on 2 threads" in result.stderr
    single = puzzledb_cli("solve", "fivetwo", boards[0], "--threads", "2",
                          "--config", str(config), "--results", str(fivetwo_tables))
    assert single.returncode == 2 and "--threads is for --batch" in single.stderr


# --- through the workflow -------------------------------------------------------------------------


FIVE_BY_FIVE = {"family": "sliding", "width": 5, "height": 5,
                "goal": "01234 56789 abcde fghij klmno"}  # Korf and Felner's frame


@pytest.mark.slow
def test_a_bad_partition_is_the_same_line_from_snakemake_and_the_command_line(tmp_path):
    config = {"puzzles": ["eight"], "define": {"five": FIVE_BY_FIVE},
              "pdbs": {"five": [[[1, 2, 3], [3] + list(range(4, 25))]]}}
    result = run_snakemake(tmp_path, config, "pdbs", "-n", check=False)
    line = "config.yaml: pdbs.five.0: five: tile 3 is in groups 1 and 2; groups are disjoint"
    assert result.returncode != 0 and line in result.stderr
    command = puzzledb_cli("--config", str(tmp_path / "config.yaml"), "list")
    assert command.returncode == 2
    assert command.stderr == f"puzzledb: error: {tmp_path}/{line}\n"


@pytest.mark.slow
def test_snakemake_pdbs_builds_a_defined_5x5_partition_given_as_groups_and_solve_uses_it(
        tmp_path):
    """Groups of two and three tiles: tables of 600 and 13,800 placements, built in seconds;
    the 5x5 is given in Korf and Felner's frame (blank top left, so the mirror applies)."""
    groups = [[1, 2], [3, 4], [5, 10], [6, 7, 8], [9, 14, 19], [11, 12, 13], [15, 16, 17],
              [18, 23, 24], [20, 21, 22]]
    config = {"puzzles": ["eight"], "define": {"five": FIVE_BY_FIVE},
              "pdbs": {"five": [groups]}}
    name = "12-34-5a-678-9ej-bcd-fgh-ino-klm"
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    info = puzzledb_cli("--config", str(tmp_path / "config.yaml"), "info", "five",
                        "--results", str(tmp_path / "results"))
    assert f"additive pdbs {name} (not built: 2+2+2+3+3+3+3+3+3 tiles; build: 9 table " \
           f"jobs, the largest mem_mb 257, about " in info.stdout  # known before the build
    run_snakemake(tmp_path, config, "pdbs")
    assert (tmp_path / "results" / "pdbs" / "five" / name / "manifest.json").exists()
    puzzles.define({"five": FIVE_BY_FIVE})
    five = puzzles.get("five")
    boards = [five.format(walk(five, steps, seed)) for steps, seed in ((30, 1), (40, 2))]
    (tmp_path / "boards.txt").write_text("\n".join(boards) + "\n")
    result = puzzledb_cli("--config", str(tmp_path / "config.yaml"), "solve", "five",
                          "--batch", str(tmp_path / "boards.txt"), "--results",
                          str(tmp_path / "results"))
    assert result.returncode == 0, result.stderr
    assert f"ida (additive:{name}): 2 boards" in result.stderr
    for line in result.stdout.splitlines():
        problem = parse_problem(line)
        assert problem.length == len(problem.route) <= 40
        assert replays_to_goal(five, five.parse(problem.board), problem.route)
    info = puzzledb_cli("--config", str(tmp_path / "config.yaml"), "info", "five",
                        "--results", str(tmp_path / "results"))
    assert f"additive pdbs {name} (built: 2+2+2+3+3+3+3+3+3 tiles" in info.stdout
