"""Additive pattern databases: every table equals a plain-Python 0-1 search of its abstraction,
the bound never exceeds the true distance (over the whole 8-puzzle and on 15-puzzle walks),
the incremental bound equals a full recomputation after every move, and the search's
solutions are optimal and replay.  The tables here are small (8-puzzle groups, 15-puzzle
groups of three tiles); the 7-8 and 6-6-3 tables and Korf's 100 are benchmarks/bench_solvers.py's."""

import random
from collections import deque

import h5py
import numpy as np
import pytest

from checkers import cells, is_slide
from building import build_in_memory
from conftest import puzzledb_cli

from puzzledb import puzzles, solvers
from puzzledb.cli import main
from puzzledb.compiled import jit
from puzzledb.config import check_config
from puzzledb.query.database import DepthDatabase
from puzzledb.errors import BoardError, BudgetError, ConfigError, LayerError, SearchError
from puzzledb.query.problems import parse_problem, replay
from puzzledb.puzzles.sliding.kernels import unrank
from puzzledb.solvers import additive, additive_search
from puzzledb.solvers.additive_kernels import rank_placements, region_mask, unrank_placements

EIGHT_START = "867 254 301"
KORF_GOAL = "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15"
KORF_1 = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"  # 57 moves (Korf 1985)


# --- plain-Python references, written from the definitions ---------------------------------


def neighbours(cell, width, height):
    r, c = divmod(cell, width)
    return [(r + dr) * width + c + dc for dr, dc in ((0, -1), (0, 1), (-1, 0), (1, 0))
            if 0 <= r + dr < height and 0 <= c + dc < width]


def reference_table(partition, g):
    """{cells of the group's tiles: fewest moves of those tiles to bring them home}, by a 0-1
    breadth-first search over (cells, blank) from the goal: moving the blank onto a group
    tile costs 1, onto any other cell 0; the value is the least over the blank's cells."""
    goal = list(partition.goal)
    start = (tuple(goal.index(t) for t in partition.groups[g]), goal.index(0))
    cost = {start: 0}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        placed, blank = state
        for n in neighbours(blank, partition.width, partition.height):
            step = 1 if n in placed else 0
            following = (tuple(blank if c == n else c for c in placed), n)
            if cost.get(following, 1 << 30) > cost[state] + step:
                cost[following] = cost[state] + step
                queue.append(following) if step else queue.appendleft(following)
    table = {}
    for (placed, _), value in cost.items():
        table[placed] = min(value, table.get(placed, 1 << 30))
    return table


def reference_rank(placed, cells_count):
    rank = 0
    for i, c in enumerate(placed):
        rank = rank * (cells_count - i) + c - sum(1 for b in placed[:i] if b < c)
    return rank


def stored_value(database, g, placed):
    """Manhattan distance of the group + twice its 4-bit value, read in plain Python."""
    p = database.partition
    goal = list(p.goal)
    rank = reference_rank(placed, len(goal))
    nibble = (int(database.data[database.offsets[g] + rank // 2]) >> (4 * (rank % 2))) & 15
    w = p.width
    return nibble * 2 + sum(abs(c // w - goal.index(t) // w) + abs(c % w - goal.index(t) % w)
                            for t, c in zip(p.groups[g], placed))


def walk(puzzle, steps, seed):
    """Piece codes of the goal after `steps` random slides that never undo the last one."""
    rng = random.Random(seed)
    board, previous = [int(x) for x in puzzle.goal], None
    for _ in range(steps):
        blank = board.index(0)
        n = rng.choice([c for c in neighbours(blank, puzzle.width, puzzle.height)
                        if c != previous])
        board[blank], board[n], previous = board[n], 0, blank
    return np.array(board, dtype=np.int64)


@jit
def all_boards(size, cells_count, tables):
    boards = np.empty((size, cells_count), np.int64)
    for r in range(size):
        unrank(r, boards[r], tables)
    return boards


# --- fixtures ---------------------------------------------------------------------------------


def tables_of(puzzle, name, groups):
    """An AdditiveDatabase built in memory from groups of goal cells."""
    partition = puzzle.partition(name, groups)
    built = [additive.build_group(partition, g, threads=2)
             for g in range(len(partition.groups))]
    return additive.in_memory(partition, [b.values for b in built])


@pytest.fixture(scope="module")
def eight():
    return puzzles.get("eight")


@pytest.fixture(scope="module")
def eight_44(eight):
    return tables_of(eight, "4-4", ((0, 1, 2, 3), (4, 5, 6, 7)))


@pytest.fixture(scope="module")
def eight_332(eight):
    return tables_of(eight, "3-3-2", ((0, 1, 3), (2, 4, 5), (6, 7)))


@pytest.fixture(scope="module")
def fifteen_3s():
    return tables_of(puzzles.get("fifteen"), "3-3-3-3-3",
                     ((0, 1, 2), (3, 7, 11), (4, 5, 6), (8, 9, 12), (10, 13, 14)))


@pytest.fixture(scope="module")
def eight_depths(eight, tmp_path_factory):
    """(every reachable 8-puzzle board, its depth in the stored database)."""
    directory = tmp_path_factory.mktemp("eight") / "eight" / "layers"
    build_in_memory(eight, directory, threads=2, progress=False, log=lambda m: None)
    with DepthDatabase(eight, directory) as db:
        depths = db.depths(np.arange(eight.size, dtype=np.uint64))
    return all_boards(eight.size, eight.cells, eight.tables()), depths


# --- the interface --------------------------------------------------------------------------


def test_the_fifteen_puzzle_declares_the_7_8_and_6_6_3_partitions_and_no_other_puzzle_any():
    partitions = puzzles.get("fifteen").additive_partitions()
    assert list(partitions) == ["7-8", "6-6-3"]
    assert partitions["7-8"].labels == ("12345678", "9abcdef")
    assert partitions["6-6-3"].labels == ("1569ad", "78bcef", "234")
    for partition in partitions.values():
        assert sorted(t for g in partition.groups for t in g) == list(range(1, 16))
    for name in ("eight", "eleven", "fifteen-6colour", "fourteen", "flipit-square"):
        assert puzzles.get(name).additive_partitions() == {}


def test_config_pdbs_default_to_both_partitions_and_an_unknown_one_is_refused():
    config = check_config({"puzzles": ["eight"]})
    assert config["pdbs"] == {"fifteen": ["7-8", "6-6-3"]}
    with pytest.raises(ConfigError, match="no additive partition '5-5-5'"):
        check_config({"puzzles": ["eight"], "pdbs": {"fifteen": ["5-5-5"]}})


def test_a_table_build_over_the_memory_budget_is_refused_before_it_starts(tmp_path):
    with pytest.raises(BudgetError, match="needs 1,2"):
        additive.build_table(puzzles.get("fifteen"), "7-8", "12345678", tmp_path / "t.h5",
                             memory_mb=1000)


# --- the tables -------------------------------------------------------------------------------


@pytest.mark.parametrize("cells_count, k", [(16, 3), (16, 8), (9, 4), (12, 5)])
def test_placement_numbers_are_the_plain_python_ones_and_unrank_inverts_them(cells_count, k):
    rng = random.Random(k)
    placed = np.array([rng.sample(range(cells_count), k) for _ in range(500)], np.int64)
    weights = additive.placement_weights(cells_count, k)
    ranks = rank_placements(placed, k, weights)
    assert ranks.tolist() == [reference_rank(list(p), cells_count) for p in placed]
    full = (1 << cells_count) - 1
    assert np.array_equal(unrank_placements(ranks, k, weights, full), placed)
    last = additive.placements(cells_count, k) - 1
    assert reference_rank(list(unrank_placements(np.array([last]), k, weights, full)[0]),
                          cells_count) == last


@pytest.mark.parametrize("name", ["fifteen", "eleven", "eight"])
def test_the_blanks_region_is_its_connected_free_cells(name):
    puzzle = puzzles.get(name)
    width, height, cells_count = puzzle.width, puzzle.height, puzzle.cells
    t = additive.group_tables(puzzle.partition("one tile", ((0,),)), 0)
    rng = random.Random(width * height)
    for _ in range(300):
        taken = set(rng.sample(range(cells_count), rng.randint(2, cells_count - 2)))
        start = rng.choice([c for c in range(cells_count) if c not in taken])
        seen, todo = {start}, [start]
        while todo:
            for n in neighbours(todo.pop(), width, height):
                if n not in taken and n not in seen:
                    seen.add(n)
                    todo.append(n)
        free = t.full & ~sum(1 << c for c in taken)
        assert region_mask(1 << start, free, t) == sum(1 << c for c in seen)


@pytest.mark.parametrize("name, groups", [
    ("eight", ((0, 1, 2, 3), (4, 5, 6, 7))),
    ("eight", ((0, 4, 8), (1, 2), (3, 5, 6, 7))),
    ("eleven", ((0, 5, 10),)),
    ("fifteen", ((1, 2, 3),)),
])
def test_every_table_value_is_that_of_a_plain_python_0_1_search(name, groups):
    database = tables_of(puzzles.get(name), "test", groups)
    for g in range(len(database.partition.groups)):
        reference = reference_table(database.partition, g)
        assert len(reference) == additive.placements(len(database.partition.goal),
                                                     len(database.partition.groups[g]))
        for placed, value in reference.items():
            assert stored_value(database, g, placed) == value


def test_a_group_value_can_jump_by_five_in_one_move_so_the_bound_is_not_consistent():
    """Taking the least value over the blank's cells makes a table inconsistent: tiles 2, 3,
    4 on cells 1, 2, 7 need 1 move (the blank in the corner cell 3), one cell further left
    they need 6.  IDA* needs admissibility only."""
    reference = reference_table(puzzles.get("fifteen").additive_partitions()["6-6-3"], 2)
    assert reference[(1, 2, 7)] == 1 and reference[(1, 2, 6)] == 6


def test_tables_are_stored_checked_and_a_corrupt_or_stale_one_is_refused(tmp_path):
    fifteen = puzzles.get("fifteen")
    partition = fifteen.additive_partitions()["6-6-3"]
    built = additive.build_group(partition, 2)  # tiles 2, 3, 4: 3,360 placements
    path = tmp_path / "234.h5"
    additive.write_group(path, fifteen, partition, 2, built)
    assert np.array_equal(additive.read_group(path, fifteen, partition, 2), built.values)
    assert not list(tmp_path.glob("*.tmp"))
    assert built.max_value == 15 and sum(built.first_reached) == 3360
    with pytest.raises(LayerError, match="missing manifest.json"):
        additive.load(fifteen, "6-6-3", tmp_path)
    with h5py.File(path, "r+") as f:
        f["values"][7] ^= 1
    with pytest.raises(LayerError, match="checksum mismatch"):
        additive.read_group(path, fifteen, partition, 2)
    with pytest.raises(LayerError, match="another definition"):
        additive.read_group(path, fifteen, fifteen.additive_partitions()["7-8"], 1)


# --- the bound --------------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["eight_44", "eight_332"])
def test_the_additive_bound_never_exceeds_the_depth_of_any_eight_position(
        which, eight_depths, request):
    database = request.getfixturevalue(which)
    boards, depths = eight_depths
    manhattan = solvers.lower_bound(puzzles.get("eight"), "manhattan").many(
        np.arange(boards.shape[0]))
    for mirror in (False, True):
        bound = additive_search.AdditiveSearch(database, mirror=mirror).bounds(boards)
        assert np.all(bound <= depths)
        assert np.all(bound >= manhattan)  # each group's value is at least its Manhattan
    assert np.count_nonzero(bound > manhattan) > boards.shape[0] // 2


def test_the_mirrored_bound_is_the_bound_of_the_mirrored_board(fifteen_3s):
    search = additive_search.AdditiveSearch(fifteen_3s, mirror=False)
    both = additive_search.AdditiveSearch(fifteen_3s)
    fifteen = puzzles.get("fifteen")
    goal = [int(x) for x in fifteen.goal]
    home = {t: goal.index(t) for t in goal}

    def mirrored(board):
        out = [0] * 16
        for c, t in enumerate(board):
            out[(c % 4) * 4 + c // 4] = goal[(home[t] % 4) * 4 + home[t] // 4]
        return out

    for seed in range(40):
        board = walk(fifteen, 60, seed)
        direct, mirror = search.bounds([board, mirrored(board)])
        assert both.bounds(board)[0] == max(direct, mirror)


def test_the_bound_never_exceeds_the_length_of_a_random_walk(fifteen_3s):
    search = additive_search.AdditiveSearch(fifteen_3s)
    fifteen = puzzles.get("fifteen")
    for steps in range(0, 120, 3):
        boards = [walk(fifteen, steps, seed) for seed in range(10)]
        assert search.bounds(boards).max() <= steps


def test_the_incremental_bound_equals_a_full_recomputation_after_every_move(fifteen_3s,
                                                                           eight_332):
    for database in (fifteen_3s, eight_332):
        search = additive_search.AdditiveSearch(database)
        t, st = search.tables, search.state
        partition = database.partition
        rng = random.Random(1)
        for start in (np.array(partition.goal), walk(puzzles.get(
                "fifteen" if partition.width == 4 else "eight"), 80, 3)):
            st.board[:] = start
            path = [additive_search.init_state(t, st)]
            saved = np.zeros((3000, 2, 2), np.int64)
            for _ in range(2000):
                if len(path) > 1 and rng.random() < 0.3:
                    additive_search.unmove(path[-2], path[-1], t, st, *saved[len(path) - 1])
                    path.pop()
                else:
                    b = path[-1]
                    n = rng.choice(neighbours(b, partition.width, partition.height))
                    additive_search.move(b, n, t, st, *saved[len(path)])
                    path.append(n)
                again = additive_search.new_state(t)
                again.board[:] = st.board
                additive_search.init_state(t, again)
                for mine, full in zip(st, again):
                    assert np.array_equal(mine, full)


# --- the search -------------------------------------------------------------------------------


def test_eight_start_needs_31_moves_and_has_40_optimal_solutions_by_the_additive_search(
        eight, eight_44):
    search = additive_search.AdditiveSearch(eight_44)
    length, routes, nodes = search.run(eight.parse(EIGHT_START), want=1000)
    assert length == 31 and len(routes) == len({tuple(r) for r in routes}) == 40
    for route in routes:
        replay(eight, parse_problem(f"{EIGHT_START.replace(' ', '')}:31:"
                                    f"{'|'.join(map(str, route))}"))


def test_additive_search_finds_the_database_distance_of_sampled_eight_positions(
        eight_332, eight_depths):
    boards, depths = eight_depths
    search = additive_search.AdditiveSearch(eight_332)
    rng = np.random.default_rng(0)
    for i in rng.choice(boards.shape[0], 60, replace=False):
        assert search.run(boards[i])[0] == depths[i]


@pytest.fixture(scope="module")
def eleven_443():
    """The 3x4 board: not square, so no mirror."""
    return tables_of(puzzles.get("eleven"), "4-4-3", ((0, 1, 2, 3), (4, 5, 6, 7), (8, 9, 10)))


@pytest.mark.parametrize("name, which", [("fifteen", "fifteen_3s"), ("eleven", "eleven_443")])
def test_additive_search_is_optimal_on_walks_and_its_routes_replay(name, which, request):
    puzzle = puzzles.get(name)
    search = additive_search.AdditiveSearch(request.getfixturevalue(which))
    assert search.tables.lookups == (2 if name == "fifteen" else 1)
    manhattan = solvers.Solver(puzzle, heuristic="manhattan")
    goal = cells(puzzle.format(puzzle.goal).replace(" ", ""))
    for steps, seed in ((30, 1), (40, 2), (50, 3), (60, 4), (45, 5)):
        board = walk(puzzle, steps, seed)
        length, (route,), _ = search.run(board)
        assert length == manhattan.solve(board).length
        boards = [puzzle.format(board).replace(" ", "")]
        for cell in route:  # the blank's cell after each move
            b = cells(boards[-1])
            blank = b.index("0")
            b[blank], b[cell] = b[cell], "0"
            boards.append("".join(b))
        assert all(is_slide(x, y, puzzle.width) for x, y in zip(boards, boards[1:]))
        assert cells(boards[-1]) == goal


def test_a_search_paused_every_few_nodes_resumes_to_the_same_solutions(
        eight, eight_332, monkeypatch):
    whole = additive_search.AdditiveSearch(eight_332).run(eight.parse(EIGHT_START), want=50)
    monkeypatch.setattr(additive_search, "_BUDGET", 97)
    paused = []
    result = additive_search.AdditiveSearch(eight_332).run(
        eight.parse(EIGHT_START), want=50, progress=lambda t, n: paused.append(n))
    assert result == whole and len(paused) > 10


def test_more_solutions_than_the_first_pass_has_room_for_are_all_collected(
        eight, eight_332, monkeypatch):
    monkeypatch.setattr(solvers.tree, "_ROOM", 3)  # the 40 overflow: the pass runs again
    length, routes, _ = additive_search.AdditiveSearch(eight_332).run(
        eight.parse(EIGHT_START), want=1000)
    assert len(routes) == 40
    _, seven, _ = additive_search.AdditiveSearch(eight_332).run(eight.parse(EIGHT_START),
                                                               want=7)
    assert seven == routes[:7]


# --- other goals, and the command line ------------------------------------------------------------


def test_korfs_goal_maps_to_ours_and_his_first_instance_to_the_benchmarks_board():
    fifteen = puzzles.get("fifteen")
    korf = fifteen.goal_frame(KORF_GOAL)
    assert fifteen.format(korf.parse(KORF_GOAL)) == "1234 5678 9abc def0"
    assert fifteen.format(korf.parse(KORF_1)) == "d68c fe0a b745 9132"
    assert korf.format(korf.parse(KORF_1)) == "edf7 bc95 6021 48a3"
    assert [korf.cell(c) for c in (15, 0, 5)] == [0, 15, 10]
    with pytest.raises(BoardError, match="unreachable from goal"):
        korf.parse("0 1 2 3 4 5 6 7 8 9 10 11 12 13 15 14")
    with pytest.raises(BoardError):  # unreachable from ours: the same tiles in order
        fifteen.parse(KORF_GOAL)
    assert fifteen.format(fifteen.parse("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0")) == \
        "1234 5678 9abc def0"


def test_cli_batch_prints_one_replayable_line_per_board_in_order_and_a_summary(tmp_path):
    fifteen = puzzles.get("fifteen")
    boards = [fifteen.format(walk(fifteen, steps, seed)) for steps, seed in
              ((20, 1), (0, 0), (30, 2), (25, 3))]
    path = tmp_path / "boards.txt"
    path.write_text("# four boards\n" + "\n".join(boards[:2]) + "\n\n" + "\n".join(boards[2:]))
    result = puzzledb_cli("solve", "fifteen", "--batch", str(path), "--results", str(tmp_path))
    assert result.returncode == 0, result.stderr
    problems = [parse_problem(line) for line in result.stdout.splitlines()]
    assert [p.board for p in problems] == [b.replace(" ", "") for b in boards]
    assert problems[1].length == 0
    for problem in problems:
        replay(fifteen, problem)
    assert "ida (manhattan): 4 boards" in result.stderr and " nodes in " in result.stderr


def test_cli_batch_takes_korfs_notation_with_his_goal_and_answers_in_it(tmp_path):
    fifteen = puzzles.get("fifteen")
    korf = fifteen.goal_frame(KORF_GOAL)
    ours = walk(fifteen, 35, 7)
    given = " ".join(str(int(ch, 16)) for ch in korf.format(ours).replace(" ", ""))
    (tmp_path / "korf.txt").write_text(given + "\n")
    result = puzzledb_cli("solve", "fifteen", "--batch", str(tmp_path / "korf.txt"),
                          "--goal", KORF_GOAL, "--results", str(tmp_path))
    assert result.returncode == 0, result.stderr
    problem = parse_problem(result.stdout)
    assert problem.board == given  # his notation: one decimal number a cell
    board = [int(x) for x in problem.board.split()]
    for cell in problem.route:  # Korf's cells: his goal has the blank top left
        blank = board.index(0)
        board[blank], board[cell] = board[cell], 0
    assert board == list(range(16))
    assert problem.length == solvers.solve(fifteen, fifteen.format(ours),
                                           heuristic="manhattan").length


def test_cli_batch_answers_each_board_in_the_notation_it_came_in(tmp_path):
    fifteen = puzzles.get("fifteen")
    symbols = fifteen.format(walk(fifteen, 12, 4))
    decimal = " ".join(str(int(ch, 16)) for ch in fifteen.format(walk(fifteen, 9, 5))
                       if ch != " ")
    (tmp_path / "boards.txt").write_text(f"{decimal}\n{symbols}\n")
    result = puzzledb_cli("solve", "fifteen", "--batch", str(tmp_path / "boards.txt"),
                          "--results", str(tmp_path))
    assert result.returncode == 0, result.stderr
    problems = [parse_problem(line) for line in result.stdout.splitlines()]
    assert [p.board for p in problems] == [decimal, symbols.replace(" ", "")]
    for problem in problems:
        replay(fifteen, problem)
    one = puzzledb_cli("solve", "fifteen", decimal, "--results", str(tmp_path))
    assert one.stdout.splitlines()[0] == decimal
    assert one.stdout.splitlines()[-1] == "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0"


def test_cli_batch_shows_a_progress_bar_over_its_boards_on_stderr(tmp_path, capsys):
    fifteen = puzzles.get("fifteen")
    path = tmp_path / "boards.txt"
    path.write_text("".join(fifteen.format(walk(fifteen, 10, seed)) + "\n"
                            for seed in range(3)))
    assert main(["solve", "fifteen", "--batch", str(path), "--results", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 3
    # shown when stderr is not a terminal too (a batch may run for minutes into a log)
    assert "ida fifteen:   0%|" in captured.err and "| 0/3 " in captured.err
    assert captured.err.splitlines()[-1].startswith("ida (manhattan): 3 boards")


def test_cli_without_the_additive_tables_says_in_one_line_which_bound_and_what_pdbs_buy(
        tmp_path, capsys):
    board = "1438 7260 59bc aedf"  # 28 moves
    (tmp_path / "boards.txt").write_text(board + "\n")
    hint = "the additive pattern databases (`snakemake pdbs`) solve random positions " \
           "thousands of times faster"
    for args, first in ((["solve", "fifteen", board],
                         "puzzledb: no database of fifteen in {results}: solving by tree "
                         "search (manhattan); "),
                        (["solve", "fifteen", "--batch", str(tmp_path / "boards.txt")],
                         "puzzledb: solving by tree search (manhattan); ")):
        assert main([*args, "--results", str(tmp_path)]) == 0
        err = capsys.readouterr().err.splitlines()
        assert err[0] == first.format(results=tmp_path) + hint
        assert sum(hint in line for line in err) == 1
    assert main(["solve", "fifteen", board, "--heuristic", "manhattan",
                 "--results", str(tmp_path)]) == 0  # a bound asked for: no advice
    assert "snakemake pdbs" not in capsys.readouterr().err
    assert main(["solve", "eight", "867 254 301", "--search", "ida",
                 "--results", str(tmp_path)]) == 0  # no additive tables to build
    assert "snakemake pdbs" not in capsys.readouterr().err


@pytest.mark.parametrize("lines, args, message", [
    (["1234 5678 9abc def0", "1234 5678 9abc dfe0"], (), "line 2: fifteen: board "),
    (["1234 5678 9abc def"], (), "line 1: fifteen: board"),
    (["1234 5678 9abc def0"], ("--goal", "0123"), "board '0123' has 4 cells"),
    (["1234 5678 9abc def0"], ("1234 5678 9abc def0",), "either a board or --batch"),
])
def test_cli_batch_errors_are_one_line_with_exit_status_2(tmp_path, capsys, lines, args,
                                                          message):
    path = tmp_path / "boards.txt"
    path.write_text("\n".join(lines) + "\n")
    status = main(["solve", "fifteen", *args, "--batch", str(path), "--results", str(tmp_path)])
    stderr = capsys.readouterr().err
    assert status == 2 and stderr.count("\n") == 1 and message in stderr, stderr


def test_an_additive_heuristic_is_refused_in_a_combination_and_when_unknown(tmp_path):
    fifteen = puzzles.get("fifteen")
    with pytest.raises(SearchError, match="does not combine"):
        solvers.Solver(fifteen, heuristic="manhattan,additive:7-8", results=tmp_path)
    with pytest.raises(SearchError, match=r"partition .5-5-5. \(named: 7-8, 6-6-3;"):
        solvers.Solver(fifteen, heuristic="additive:5-5-5", results=tmp_path)
    with pytest.raises(LayerError, match="snakemake pdbs"):
        solvers.Solver(fifteen, heuristic="additive:7-8", results=tmp_path)


# --- the workflow -------------------------------------------------------------------------------


def test_snakemake_pdbs_builds_each_table_and_the_manifest_last(pdbs_663):
    directory = pdbs_663 / "pdbs" / "fifteen" / "6-6-3"
    manifest = directory / "manifest.json"
    tables = sorted(directory.glob("*.h5"))
    assert [t.name for t in tables] == ["1569ad.h5", "234.h5", "78bcef.h5"]
    assert all(t.stat().st_mtime <= manifest.stat().st_mtime for t in tables)
    assert all((directory / "logs" / f"{t.stem}.log").exists() for t in tables)
    assert not (pdbs_663 / "eight").exists()  # pdbs builds the tables only


def test_cli_solves_with_the_strongest_tables_built_and_says_so(pdbs_663):
    result = puzzledb_cli("solve", "fifteen", "d68c fe0a b745 9132", "--results", str(pdbs_663))
    assert result.returncode == 0, result.stderr
    assert "no database of fifteen" in result.stderr and "(additive:6-6-3)" in result.stderr
    assert "ida (additive:6-6-3): an optimal solution of 57 moves" in result.stderr
    assert len(result.stdout.splitlines()) == 58
    assert "snakemake pdbs" not in result.stderr  # built: nothing to advise


def test_cli_batch_with_the_tables_shows_its_progress_bar_too(pdbs_663, tmp_path):
    fifteen = puzzles.get("fifteen")
    path = tmp_path / "boards.txt"
    path.write_text("".join(fifteen.format(walk(fifteen, 30, seed)) + "\n"
                            for seed in range(2)))
    result = puzzledb_cli("solve", "fifteen", "--batch", str(path), "--results", str(pdbs_663))
    assert result.returncode == 0, result.stderr
    assert "ida fifteen:   0%|" in result.stderr and "| 0/2 " in result.stderr
    assert result.stderr.splitlines()[-1].startswith("ida (additive:6-6-3): 2 boards")
