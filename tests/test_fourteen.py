"""The 14-puzzle (seed 002): its rank, its moves, its solvable positions, and the facts of its
full database (built once here, about 5 s on 2 cores), checked against the seed."""

import shutil

import numba
import numpy as np
import pytest

from building import build_in_memory
from checkers import domino_moves, domino_rank
from conftest import assert_reads_alike, parted_depths, puzzledb_cli
from puzzledb import compiled, puzzles

from puzzledb.query import matching, problems
from puzzledb.query.database import DepthDatabase
from puzzledb.errors import BoardError
from puzzledb.bfs.frontier.search import Frontier
from puzzledb.puzzles.ranking import permutation_parity
from puzzledb.store.layers import LayerStore

# seed 002: the 54-move positions with the domino at the bottom right.  The seed prints seven;
# its last, "d4b2 9678 5c1a 3c__", has tile c twice and no e (a typo).
SEED_54 = [
    "b4d2 9678 5c3a 1e__", "d4b2 5678 9c3a 1e__", "d4b2 7698 5c3a 1e__",
    "d4b2 7698 5e3c 1a__", "d4b2 9658 7c3a 1e__", "d4b2 9658 7e3c 1a__",
]
SEED_54_TYPO = "d4b2 9678 5c1a 3c__"
# seed 002: five 32-move problems as the seed's problem file prints them
SEED_32_PROBLEMS = """\
14ba5e729cd638__:32:13|9|5|6|2|1|0|4|8|9|5|4|8|12|13|9|8|4|5|6|10|14|13|9|8|4|0|1|5|6|10|14
12ba7cd436985e__:32:13|9|5|6|10|9|5|6|2|1|0|4|8|12|13|14|10|6|5|4|0|1|2|6|5|4|8|12|13|9|10|14
3e541cd6b89a72__:32:13|12|8|4|5|1|2|6|10|14|13|9|8|4|5|6|10|14|13|12|8|4|5|6|2|1|0|4|5|6|10|14
329e5478dc16ba__:32:13|12|8|4|5|6|10|9|8|4|5|6|2|1|0|4|5|6|10|9|8|4|5|1|2|6|10|14|13|9|10|14
941a3c567eb2d8__:32:13|9|10|6|2|1|5|6|10|9|5|4|0|1|2|6|10|14|13|9|8|4|5|6|2|1|5|6|10|9|13|14
""".splitlines()
# seed 002: positions with the domino at the bottom right, by distance (<= 30 summed)
SEED_DOMINO_BOTTOM_RIGHT = {
    32: 505_055, 34: 754_195, 36: 1_006_354, 38: 1_160_058, 40: 1_071_792, 42: 739_880,
    44: 336_080, 46: 95_763, 48: 16_248, 50: 1_778, 52: 87, 54: 7,
}
SEED_UP_TO_30 = 663_103


def moves_reference(board):
    return domino_moves(board, 4)


def solvable_reference(board):
    """The seed's test, for a board with the domino in the bottom row: in each column-parity
    class, the number of larger tiles before each tile (row-major) sums to an even number."""
    return all(permutation_parity([t for t in board if t and (t - 1) % 2 == c]) == 0
               for c in (0, 1))


@pytest.fixture(scope="module")
def puzzle():
    numba.set_num_threads(2)
    return puzzles.get("fourteen")


def test_fourteen_has_12_times_2520_squared_ranks_and_the_goal_of_the_seed(puzzle):
    assert puzzle.size == 76_204_800 == 12 * 2520 ** 2
    assert puzzle.decode(int(puzzle.goal_ranks()[0])) == "1234 5678 9abc de__"


def test_fourteen_rank_inverts_unrank_and_agrees_with_the_reference(puzzle):
    rng = np.random.default_rng(5)
    seen = set()
    for rank in rng.integers(0, puzzle.size, 2000):
        board = puzzle.unrank(int(rank))
        assert puzzle.rank(board) == rank == domino_rank(puzzle, board)
        assert puzzle.parse(puzzle.format(board)).tolist() == board.tolist()
        seen.add(puzzle.format(board))
    assert len(seen) == 2000


def test_fourteen_kernel_gives_the_moves_of_the_rules(puzzle):
    rng = np.random.default_rng(6)
    for rank in rng.integers(0, puzzle.size, 2000):
        board = list(puzzle.unrank(int(rank)))
        expected = sorted(domino_rank(puzzle, b) for b in moves_reference(board))
        assert sorted(puzzle.neighbours(int(rank))) == expected


def test_a_fourteen_move_keeps_tiles_in_their_column_parity_and_flips_the_parity(puzzle):
    rng = np.random.default_rng(7)
    for rank in rng.integers(0, puzzle.size, 300):
        board = puzzle.unrank(int(rank))
        for n in puzzle.neighbours(int(rank)):
            after = puzzle.unrank(n)
            for cell in range(16):
                if after[cell]:
                    assert (after[cell] - 1) % 2 == cell % 2
            assert puzzle.move_parity([n])[0] != puzzle.move_parity([int(rank)])[0]
        assert board.tolist().count(0) == 2


def test_fourteen_parse_accepts_the_seeds_notation(puzzle):
    assert puzzle.format(puzzle.parse("14ba5e729cd638__")) == "14ba 5e72 9cd6 38__"


@pytest.mark.parametrize("board, words", [
    (SEED_54_TYPO, "2 of tile 'c'"),
    ("1234 5678 9abc d_e_", "side by side"),
    ("1234 5678 9abc ed__", "wrong parity"),  # d and e swap columns
    ("3214 5678 9abc de__", "wrong permutation parity"),  # one swap in the even columns
    ("1234 5678 9abc de_", "15 cells"),
])
def test_fourteen_rejects_malformed_and_unreachable_boards(puzzle, board, words):
    with pytest.raises(BoardError, match=words):
        puzzle.parse(board)


def test_domino_bottom_right_enumeration_has_6350400_solvable_positions(puzzle):
    ranks = puzzle.solvable_with_domino_at(14)
    assert ranks.size == 6_350_400 == (5040 // 2) ** 2
    assert np.all(np.diff(ranks.astype(np.int64)) > 0)
    for rank in np.random.default_rng(8).choice(ranks, 300):
        board = puzzle.unrank(int(rank))
        assert board[14] == board[15] == 0
        assert solvable_reference(board)


def test_the_seeds_inversion_rule_decides_which_bottom_right_boards_are_solvable(puzzle):
    rng = np.random.default_rng(9)
    for _ in range(300):
        odd = rng.permutation([1, 3, 5, 7, 9, 11, 13])
        even = rng.permutation([2, 4, 6, 8, 10, 12, 14])
        board = [t for pair in zip(odd, even) for t in pair] + [0, 0]
        text = "".join("_123456789abcde"[t] for t in board)
        if solvable_reference(board):
            assert puzzle.parse(text).tolist() == board
        else:
            with pytest.raises(BoardError):
                puzzle.parse(text)


def test_relabelling_renames_the_tiles_of_a_state_by_the_querys_tiles(puzzle):
    relabelling = puzzle.relabelling()
    rng = np.random.default_rng(10)
    queries = rng.choice(puzzle.solvable_with_domino_at(14), 20)
    keys = relabelling.keys(queries)
    for query, key in zip(queries, keys):
        q = puzzle.unrank(int(query))
        assert compiled.relabel_one(int(puzzle.goal_ranks()[0]), key, relabelling.tables) == query
        for rank in rng.integers(0, puzzle.size, 20):
            x = puzzle.unrank(int(rank))
            renamed = [q[t - 1] if t else 0 for t in x]  # goal tile t sits at cell t-1
            assert compiled.relabel_one(int(rank), key, relabelling.tables) == puzzle.rank(renamed)
    assert relabelling.keys([int(puzzle.goal_ranks()[0]) - 1])[0] == -1


def test_the_seeds_32_move_problems_replay_to_the_goal(puzzle):
    for line in SEED_32_PROBLEMS:
        problem = problems.parse_problem(line)
        assert len(problems.replay(puzzle, problem)) == 33


# -- the full database ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def database(puzzle, tmp_path_factory):
    directory = tmp_path_factory.mktemp("results") / "fourteen" / "layers"
    report = build_in_memory(puzzle, directory, threads=2, progress=False, log=lambda m: None)
    return report, LayerStore(directory, puzzle)


@pytest.fixture(scope="module")
def goal_layers_27(puzzle, database, tmp_path_factory):
    """Layers 0..27 alone, copied to a directory of their own: matching cannot read more."""
    _, store = database
    directory = tmp_path_factory.mktemp("fourteen-k27")
    for depth in range(28):
        shutil.copy(store.path(depth), directory)
    return matching.open_goal_layers(puzzle, directory, 27)


def test_fourteen_database_has_76204800_states_and_ends_at_55_with_one_position(database):
    report, store = database
    assert report.total == 76_204_800
    assert report.max_depth == 55
    with store.open_layer(55) as layer:
        assert [store.puzzle.decode(r) for r in layer.ranks()] == ["3e__ 5a1c 9876 b2d4"]


def test_fourteen_database_matches_the_seeds_cumulative_counts(database):
    # seed 002: 51,560 states up to 17 moves, 9,993,974 up to 31, 27,305,577 up to 35
    _, store = database
    counts = [layer["count"] for layer in store.manifest()["layers"]]
    assert sum(counts[:18]) == 51_560
    assert sum(counts[:32]) == 9_993_974
    assert sum(counts[:36]) == 27_305_577


def test_the_seeds_54_move_positions_are_exactly_the_deepest_bottom_right_ones(database):
    _, store = database
    puzzle = store.puzzle
    with store.open_layer(54) as layer:
        boards = sorted(b for b in map(puzzle.decode, layer.ranks()) if b.endswith("__"))
    assert len(boards) == 7
    assert set(SEED_54) < set(boards)
    assert "d4b2 9678 5c1a 3e__" in boards  # the typo, corrected


def test_matching_with_layers_to_27_finds_54_moves_for_the_seeds_positions(goal_layers_27):
    puzzle = goal_layers_27.puzzle
    ranks = [puzzle.board_rank(b) for b in SEED_54]
    assert matching.distances(goal_layers_27, ranks).tolist() == [54] * 6
    for rank in ranks:
        path = matching.optimal_route(goal_layers_27, rank)
        assert len(path) == 55
        assert all(b in puzzle.neighbours(a) for a, b in zip(path, path[1:]))


def test_matching_agrees_with_the_full_database_query_by_query(database, goal_layers_27):
    _, store = database
    puzzle = store.puzzle
    queries = np.random.default_rng(11).choice(puzzle.solvable_with_domino_at(14), 30_000,
                                               replace=False)
    full = DepthDatabase(store.puzzle, store.directory).depths(queries)
    assert full.max() > 2 * 27 - 10  # the sample reaches well beyond the stored depth
    assert np.array_equal(matching.distances(goal_layers_27, queries), full)


def test_problem_file_routes_replay_in_exactly_the_stated_moves(goal_layers_27, tmp_path):
    puzzle = goal_layers_27.puzzle
    queries = np.random.default_rng(12).choice(puzzle.solvable_with_domino_at(14), 3000,
                                               replace=False)
    distances = matching.distances(goal_layers_27, queries)
    path = tmp_path / "problems.txt"
    written = problems.write_problems(path, goal_layers_27, queries, distances,
                                      per_distance=3, min_distance=30, seed=1)
    assert written == problems.check_problem_file(path, puzzle) > 0
    again = tmp_path / "again.txt"
    problems.write_problems(again, goal_layers_27, queries, distances,
                            per_distance=3, min_distance=30, seed=1)
    assert again.read_text() == path.read_text()
    lengths = [p.length for p in problems.read_problems(path)]
    assert lengths == sorted(lengths, reverse=True) and lengths[0] == distances.max()


def test_the_frontier_search_in_12_segments_gives_the_same_layers(database, tmp_path):
    """Sharded (12 segments, the layers wider than 2,000,000 states fanned out up to four ways
    and written in parts) and in-memory builds agree layer for layer, and the parts read as
    the single files do."""
    _, store = database
    manifest = Frontier(store.puzzle, tmp_path / "layers", tmp_path / "frontier", 12,
                        2_000_000).build(log=lambda m: None)
    full = store.manifest()
    assert [(x["count"], x["crc32"]) for x in manifest["layers"]] == \
        [(x["count"], x["crc32"]) for x in full["layers"]]
    parted = parted_depths(tmp_path / "layers")
    assert parted, "no depth fanned out"
    assert_reads_alike(tmp_path / "layers", store.directory, store.puzzle, parted[-3:])


def test_bottom_right_distances_from_the_database_reproduce_the_seeds_table(database):
    _, store = database
    distances = DepthDatabase(store.puzzle, store.directory).depths(
        store.puzzle.solvable_with_domino_at(14))
    values, counts = np.unique(distances, return_counts=True)
    table = dict(zip(values.tolist(), counts.tolist()))
    assert sum(c for d, c in table.items() if d <= 30) == SEED_UP_TO_30
    assert {d: c for d, c in table.items() if d > 30} == SEED_DOMINO_BOTTOM_RIGHT


def test_cli_answers_fourteen_boards_in_the_seeds_notation(database):
    _, store = database
    results = str(store.directory.parent.parent)
    distance = puzzledb_cli("distance", "fourteen", "14ba5e729cd638__", "--results", results)
    assert distance.returncode == 0 and distance.stdout.strip() == "32"
    solve = puzzledb_cli("solve", "fourteen", "14ba5e729cd638__", "--results", results)
    boards = solve.stdout.split("\n")[:-1]
    assert len(boards) == 33 and boards[-1] == "1234 5678 9abc de__"
    puzzle = store.puzzle
    for before, after in zip(boards, boards[1:]):
        moves = moves_reference(list(puzzle.parse(before)))
        assert list(puzzle.parse(after)) in [list(b) for b in moves]
    count = puzzledb_cli("count", "fourteen", "14ba 5e72 9cd6 38__", "--results", results)
    assert count.returncode == 0 and int(count.stdout) == optimal_routes(
        store, list(puzzle.parse("14ba 5e72 9cd6 38__")))


def optimal_routes(store, board):
    """The number of optimal solutions of a board, counted with the plain-Python moves and
    the stored distances alone: sum over the moves that go one layer down."""
    puzzle = store.puzzle
    db = DepthDatabase(puzzle, store.directory)
    ways = {tuple(board): 1}
    for _ in range(int(db.depths([puzzle.rank(board)])[0])):
        following = {}
        for b, w in ways.items():
            here = int(db.depths([puzzle.rank(b)])[0])
            near = [tuple(m) for m in moves_reference(list(b))]
            depths = db.depths([puzzle.rank(m) for m in near])
            for m, d in zip(near, depths.tolist()):
                if d == here - 1:
                    following[m] = following.get(m, 0) + w
        ways = following
    return sum(ways.values())
