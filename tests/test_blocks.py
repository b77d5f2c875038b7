"""Sliding blocks (family blocks, docs/blocks.md): the databases against a plain-Python model of
the rules (checkers.BlocksModel, written from the rules alone) on small boxes in each metric;
the count of placements; boards given with other letters; bad drawings; the keys as a sparse
rank space; the classics' published figures."""


import numba
import numpy as np
import pytest

from checkers import BlocksModel
from building import build_in_memory, plan
from puzzledb import puzzles
from puzzledb.bfs import select
from puzzledb.errors import BoardError, ConfigError
from puzzledb.puzzles.definitions import build
from puzzledb.query import problems
from puzzledb.query.database import DepthDatabase

SMALL = {  # name -> board, goal, axis: small boxes with every kind of piece
    "bars": ("AAB. .CB. .DDE", "..AA .... ....", "free"),
    "ells": ("AAB. A.BB CC..", ".... ..AA ..A.", "free"),
    "walls": ("AB#. A.CC .DD.", ".... .... ...B", "free"),
    "square": ("@@B. @@BC D...", ".... ..@@ ..@@", "free"),
    "cars": ("AAB. C.B. CDDE ...E", ".... .... ..DD ....", "length"),
}


def define(name, board, goal, metric, axis="free", **more):
    definition = {"family": "blocks", "board": board, "goal": goal, "metric": metric,
                  **more}
    if axis != "free":
        definition["axis"] = axis
    puzzles.define({name: definition}, "test_blocks")
    return puzzles.get(name)


def built(tmp_path, puzzle):
    numba.set_num_threads(1)
    build_in_memory(puzzle, tmp_path / puzzle.name / "layers", threads=1, progress=False,
                    log=lambda m: None)
    return DepthDatabase.open(puzzle.name, tmp_path)


@pytest.mark.parametrize("metric", ["step", "line", "path"])
@pytest.mark.parametrize("small", sorted(SMALL))
def test_small_boxes_have_the_distances_of_a_plain_bfs_of_the_rules(tmp_path, small, metric):
    board, goal, axis = SMALL[small]
    model = BlocksModel(board, goal, metric, axis)
    expected = model.distances()
    puzzle = define(f"small-{small}-{metric}", board, goal, metric, axis)
    assert puzzle.size == len(model.placements())
    with built(tmp_path, puzzle) as db:
        assert db.total == len(expected)
        for depth in range(db.max_depth + 1):
            for text in db.boards_at(depth):
                assert expected[model.position(text)] == depth, text


@pytest.mark.parametrize("metric", ["step", "line", "path"])
def test_the_kernel_gives_the_moves_of_the_rules_from_every_placement(metric):
    board, goal, axis = SMALL["ells"]
    model = BlocksModel(board, goal, metric, axis)
    puzzle = define(f"moves-ells-{metric}", board, goal, metric, axis)
    for rank in range(puzzle.size):
        here = model.position(puzzle.decode(rank))
        got = [model.position(puzzle.decode(n)) for n in puzzle.neighbours(rank)]
        assert len(got) == len(set(got)) <= puzzle.max_moves
        assert set(got) == model.moves(here)


def test_the_placements_are_counted_without_listing_them_and_ranked_densely():
    puzzle = define("count-walls", "AB#.. A.CC. .DD.E", "..... ..... ...E.", "step")
    model = BlocksModel("AB#.. A.CC. .DD.E", "..... ..... ...E.", "step")
    assert puzzle.size == puzzle.placements == len(model.placements())
    boards = {model.position(puzzle.decode(r)) for r in range(puzzle.size)}
    assert boards == model.placements()
    assert [puzzle.board_rank(puzzle.decode(r)) for r in range(puzzle.size)] == \
        list(range(puzzle.size))


def test_a_board_may_letter_its_pieces_as_it_likes_but_the_goal_pieces_keep_theirs():
    klotski = puzzles.get("klotski")
    start = klotski.board_rank("A@@B A@@B CDDE CFGE H..I")
    assert klotski.board_rank("Z@@Y Z@@Y XWWV XUTV S..R") == start
    assert klotski.board_rank("A@@B\nA@@B\nCDDE\nCFGE\nH..I") == start
    assert klotski.board_rank("A@@BA@@BCDDECFGEH..I") == start  # as every board string
    with pytest.raises(BoardError, match="no piece '@'"):
        klotski.parse("AXXB AXXB CDDE CFGE H..I")


@pytest.mark.parametrize("board, words", [
    ("A@@B A@@B CDDE CFGE H..", "has 19 cells, expected 20"),
    ("A@@B A@@B CDDE CFGE H..A", "piece 'A' is in two pieces"),
    ("A@@B A@@B CDDE CFGE HZZI", "its pieces differ from the definition's: 2 of shape 2x1"),
    ("A@@B A@@B CDDE CFGE H..I ....", "has 24 cells, expected 20 \\(4x5\\)"),
    ("A@@B A@@B CDDE CFGE H#.I", "'#' cells elsewhere"),
    ("A@B@ A@@B CDDE CFGE H..I", "piece '@' is in two pieces"),
])
def test_a_bad_board_is_one_line_naming_the_problem(board, words):
    with pytest.raises(BoardError, match=words) as err:
        puzzles.get("klotski").parse(board)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("change, words", [
    ({"board": "AAB. .CB. .DD"}, "board: rows of 4, 4, 3 cells"),
    ({"board": "AAB. .CB. .DA."}, "board: piece 'A' is in two pieces"),
    ({"goal": ".... .... ...Z"}, "goal: piece 'Z' is not a piece of the board"),
    ({"goal": ".... .... ..A."}, "goal: piece 'A' has another shape"),
    ({"goal": ".... .... ...."}, "goal: no piece"),
    ({"board": "AAB .BB", "goal": "... AA."}, "goal: cannot be met: the other pieces do "
                                               "not fit"),
    ({"axis": "length", "goal": ".... AA.. ...."}, "goal: cannot be met: piece 'A' never"),
    ({"metric": "jump"}, "metric: 'jump': step"),
    ({"axis": "sideways"}, "axis: 'sideways'"),
    ({"axis": {"Q": "length"}}, "axis: 'Q' is not a piece"),
    ({"distinct": "Q"}, "distinct: 'Q': not pieces"),
])
def test_a_bad_blocks_definition_is_one_line_naming_its_key(change, words):
    definition = {"family": "blocks", "board": "AAB. .CB. .DD.", "goal": "..AA .... ....",
                  **change}
    with pytest.raises(ConfigError, match=words) as err:
        build("bad", definition, "config.yaml: define.bad")
    assert str(err.value).startswith("config.yaml: define.bad.") and "\n" not in str(err.value)


def test_pieces_told_apart_are_placements_of_their_own(tmp_path):
    folded = define("folded", "AB.. CD.. ....", "...A .... ....", "step")
    apart = define("apart", "AB.. CD.. ....", "...A .... ....", "step", distinct="BC")
    # B and C told apart: the three 1x1 pieces B, C and D, one class when folded, are three
    # classes, so every placement of the folded puzzle is 3! of them
    assert apart.size == 6 * folded.size
    assert apart.board_rank("AC.. BD.. ....") != apart.board_rank("AB.. CD.. ....")
    assert folded.board_rank("AC.. BD.. ....") == folded.board_rank("AB.. CD.. ....")


def test_the_keys_as_ranks_search_sparse_and_give_the_layers_of_the_dense_ranks(tmp_path):
    board, goal, _ = SMALL["square"]
    dense = define("square-dense", board, goal, "line")
    sparse = define("square-sparse", board, goal, "line", ranks="keys")
    assert sparse.size == sparse.key_space > dense.size
    chosen = plan(sparse, memory_mb=1, depth_limit=50, job_states=1000)
    assert chosen.mode == select.FRONTIER
    select.build(sparse, tmp_path / sparse.name / "layers", tmp_path / "work", chosen,
                 threads=1, progress=False, log=lambda m: None)
    with built(tmp_path, dense) as a, DepthDatabase.open(sparse.name, tmp_path) as b:
        assert a.max_depth == b.max_depth
        for depth in range(a.max_depth + 1):
            assert sorted(a.boards_at(depth)) == sorted(b.boards_at(depth))


def test_a_problem_set_of_every_placement_has_the_databases_distances_and_routes_that_replay(
        tmp_path):
    board, goal, _ = SMALL["bars"]
    puzzle = define("bars-problems", board, goal, "line")
    with built(tmp_path, puzzle) as db:
        expected = db.depths(np.arange(puzzle.size, dtype=np.uint64))
    found = problems.extract(puzzle, tmp_path / puzzle.name / "layers", 2, "placements",
                             tmp_path / "distances.csv", tmp_path / "problems.txt",
                             per_distance=5)
    assert np.array_equal(found, expected) and found.max() > 2
    assert problems.check_problem_file(tmp_path / "problems.txt", puzzle) > 0


def brute_component(puzzle, board):
    start = puzzle.board_rank(board)
    seen, todo = {start}, [start]
    while todo:
        for n in puzzle.neighbours(todo.pop()):
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen)


# The published figures (docs/blocks.md names the sources): puzzle, metric -> the start's
# distance; and the number of positions reachable from the start.
PUBLISHED = {
    ("klotski", "path"): 81, ("klotski", "line"): 90, ("klotski", "step"): 116,
    ("dads-puzzle", "path"): 59,
    ("century", "path"): 99, ("century", "line"): 111,
    ("supercentury", "path"): 138, ("supercentury", "line"): 150,
    ("supercentury", "step"): 179,
    ("mas-puzzle", "path"): 23, ("mas-puzzle", "line"): 26,
    ("rush-hour-card", "step"): 93,
}
COMPONENTS = {"klotski": 25_955, "dads-puzzle": 1_398, "mas-puzzle": 110_804,
              "rush-hour-card": 24_132}
FAST = {("klotski", "path"), ("dads-puzzle", "path"), ("rush-hour-card", "step")}


def as_metric(name, metric):
    """The built-in puzzle `name` with another metric, defined under another name."""
    definition = {**puzzles.definition(name), "metric": metric}
    definition.pop("description", None)
    puzzles.define({f"{name}-as-{metric}": definition}, "test_blocks")
    return puzzles.get(f"{name}-as-{metric}")


@pytest.mark.parametrize("name, metric", [
    pytest.param(*key, marks=() if key in FAST else pytest.mark.slow) for key in PUBLISHED])
def test_the_classics_need_the_published_number_of_moves(tmp_path, name, metric):
    puzzle = as_metric(name, metric)
    board = puzzles.definition(name)["board"]
    with built(tmp_path, puzzle) as db:
        assert db.distance(board) == PUBLISHED[name, metric]
        route = db.solve(board)
        assert len(route) == PUBLISHED[name, metric] + 1
        assert route[-1] in {puzzle.decode(r) for r in puzzle.goal_ranks()}


@pytest.mark.parametrize("name", sorted(COMPONENTS))
def test_the_classics_reach_the_published_number_of_positions_from_their_start(name):
    puzzle = puzzles.get(name)
    assert brute_component(puzzle, puzzles.definition(name)["board"]) == COMPONENTS[name]


def test_supercentury_starts_from_the_placements_of_centurys_pieces_farthest_from_the_goal(
        tmp_path):
    century = as_metric("century", "path")
    with built(tmp_path, century) as db:
        assert db.max_depth == PUBLISHED["supercentury", "path"]
        deepest = db.boards_at(db.max_depth)
    start = puzzles.definition("supercentury")["board"]
    assert century.decode(century.board_rank(start)) in deepest  # in Century's letters
