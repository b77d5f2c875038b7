"""The permutation family: puzzles read from ksolve/twsearch definitions (docs/permutation.md).
Layers checked against a plain-Python BFS over sets of states that reads the format on its
own, and against the published 2x2x2 tables."""

import itertools
import math
import os
import subprocess
import sys

import numba
import numpy as np
import pytest

from building import build_in_memory, plan
from conftest import ROOT
from plain_permutation import bfs_plain, board_text

from puzzledb.bfs.searches import TwoBitSearch
from puzzledb.config import check_config
from puzzledb.expansion.words import cur_and_unseen
from puzzledb.errors import BoardError, BudgetError, ConfigError
from puzzledb.puzzles.permutation import kernels
from puzzledb.puzzles.permutation.puzzle import PermutationPuzzle
from puzzledb.puzzles.permutation.rows import rank_rows, unrank_rows
from puzzledb.store.layers import LayerStore
from puzzledb.store.parts import open_layer_file

EXAMPLES = ROOT / "workflow/puzzledb/puzzles/permutation/examples"

# The 2x2x2 with one corner fixed (Rokicki's and Jaap's tables): positions by depth.
CUBE2_HTM = [1, 9, 54, 321, 1847, 9992, 50136, 227536, 870072, 1887748, 623800, 2644]
CUBE2_QTM = [1, 6, 27, 120, 534, 2256, 8969, 33058, 114149, 360508, 930588, 1350852,
             782536, 90280, 276]

# A toy with an odd swap that twists, a set without orientations and an untwisted 3-cycle.
TOY = """Name toy
Set A 4 2
Set B 3 1
Move X
A
2 1 3 4
1 1 0 0
B
2 3 1
End
Move Y
A
1 3 4 2
0 0 0 1
B
1 2 3
End
"""

# Identical pieces, two orbits (slots 1-4 and 5-6), a move of order 6.
IDENTICAL = """Set P 6 3
Solved
P
1 1 2 2 3 3
End
Move S
P
2 3 4 1 6 5
1 0 0 2 1 1
End
Move T
P
1 4 2 3 5 6
0 1 1 1 0 0
End
"""

# Two orbits whose parities the moves change together with a flip: every move's parity on A
# is its parity on B plus its flip (X: odd, even, flip; Y: odd, odd; Z: even, odd, flip), so
# A's order is set by B's and F's and its last two pieces are numbered as one (ranks.couple).
COUPLED = """Name coupled
Set A 4 1
Set B 4 1
Set F 1 2
Move X
A
2 1 3 4
B
2 1 4 3
F
1
1
End
Move Y
A
1 2 4 3
B
1 3 2 4
End
Move Z
A
2 3 1 4
B
1 2 4 3
F
1
1
End
"""

# The 2x2x2 turned by R and U only: a sparse rank space (29,160 of 174,960 reached).
CUBE2_RU = (EXAMPLES / "2x2x2.tws").read_text().split("Move F")[0]


def engine_layers(puzzle, directory):
    numba.set_num_threads(2)
    build_in_memory(puzzle, directory, threads=2, progress=False, log=lambda m: None)
    return [open_layer_file(path).ranks() for path in sorted(directory.glob("depth_*.h5"))]


def build_into(tmp_path, puzzle):
    return engine_layers(puzzle, tmp_path / puzzle.name / "layers")


def positions_by_depth(tmp_path, puzzle):
    """The positions of each layer the in-memory build finds: its keys, or the positions
    they stand for where the build went by classes (a puzzle of one orbit)."""
    directory = tmp_path / puzzle.name / "layers"
    build_in_memory(puzzle, directory, threads=2, progress=False, log=lambda m: None)
    counts = []
    for path in sorted(directory.glob("depth_*.h5")):
        with open_layer_file(path) as layer:
            counts.append(layer.count if layer.positions is None else layer.positions)
    return counts


@pytest.mark.parametrize("text", [TOY, IDENTICAL,
                                  # 29,160 states: 20 s of plain Python a metric
                                  pytest.param(CUBE2_RU, marks=pytest.mark.slow), COUPLED],
                         ids=["toy", "identical", "RU", "coupled"])
@pytest.mark.parametrize("metric", ["htm", "qtm"])
def test_layers_equal_a_plain_bfs_over_sets_of_states(tmp_path, text, metric):
    sets, expected, _ = bfs_plain(text, metric)
    puzzle = PermutationPuzzle(f"p-{metric}", text=text, metric=metric)
    layers = build_into(tmp_path, puzzle)
    assert [len(x) for x in layers] == [len(x) for x in expected]
    for ranks, states in zip(layers, expected):
        assert sorted(puzzle.decode(r) for r in ranks) == sorted(board_text(s, sets)
                                                                 for s in states)


def test_an_orbit_whose_parity_the_others_set_is_numbered_in_half_the_ranks():
    puzzle = PermutationPuzzle("coupled", text=COUPLED)
    (coupled,) = [c for c in puzzle.components if c.twin is not None]
    assert puzzle.sets[coupled.set].name == "A" and coupled.count == 12
    assert puzzle.size == 24 * 24 * 2 // 2
    assert puzzle.definition()["ranking"] == "permutation-orbits/3"
    sets, layers, _ = bfs_plain(COUPLED, "htm")
    boards = [board_text(s, sets) for layer in layers for s in layer]
    ranks = {puzzle.rank(puzzle.parse(b)) for b in boards}
    assert len(ranks) == len(boards)  # no two states share a rank
    assert sorted(puzzle.decode(r) for r in ranks) == sorted(boards)
    # A's pieces one swap from solved with B and F solved: the parity rule refuses it
    with pytest.raises(BoardError, match="parity the other orbits rule out"):
        puzzle.parse("A 2 1 3 4")
    assert puzzle.decode(puzzle.rank(puzzle.parse("A 2 1 3 4 | F 1 / 1"))) == \
        "A 2 1 3 4 | B 1 2 3 4 | F 1 / 1"
    assert "parity" in puzzle._symmetry.reason and puzzle.symmetry_group() is None


def test_r_and_u_leave_two_corners_out_of_the_rank_and_reach_29160_of_its_174960(tmp_path):
    puzzle = PermutationPuzzle("ru", text=CUBE2_RU)
    assert puzzle.size == 720 * 3 ** 5  # the six corners R and U move, their twist sum kept
    assert sum(x.size for x in build_into(tmp_path, puzzle)) == 29_160


@pytest.mark.parametrize("metric, table", [("htm", CUBE2_HTM), ("qtm", CUBE2_QTM)])
def test_the_2x2x2_with_one_corner_fixed_has_the_published_table(tmp_path, metric, table):
    puzzle = PermutationPuzzle("cube2", file=str(EXAMPLES / "2x2x2.tws"), metric=metric)
    assert puzzle.size == 3_674_160  # the rank space is the reachable set
    assert [x.size for x in build_into(tmp_path, puzzle)] == table


def test_backward_and_forward_expansions_find_the_same_layers(tmp_path, monkeypatch):
    puzzle = PermutationPuzzle("cube2", file=str(EXAMPLES / "2x2x2.tws"))
    monkeypatch.setattr(kernels, "BACKWARD", 1e30)  # backward from the first layer on
    backward = build_into(tmp_path / "b", puzzle)
    monkeypatch.setattr(kernels, "BACKWARD", 0.0)  # never
    forward = build_into(tmp_path / "f", puzzle)
    assert [x.size for x in backward] == [x.size for x in forward] == CUBE2_HTM
    assert all(np.array_equal(a, b) for a, b in zip(backward, forward))


@pytest.mark.parametrize("name, size", [("corners", 88_179_840), ("pyraminx", 75_582_720),
                                        ("skewb", 3 * 3_149_280)])
def test_the_kernel_gives_each_moves_image_as_the_definition_applies_it(name, size):
    puzzle = PermutationPuzzle(name, file=str(EXAMPLES / f"{name}.tws"))
    assert puzzle.size == size
    for rank in np.random.default_rng(1).integers(0, puzzle.size, 40).tolist():
        board = puzzle.unrank(rank)
        assert puzzle.rank(board) == rank
        following = puzzle.neighbours(rank)
        for m, (_, base, power) in enumerate(puzzle.moves):
            moved = board
            for _ in range(power):
                moved = puzzle.apply(moved, puzzle.spec.moves[base])
            assert puzzle.rank(moved) == following[m]


def test_a_board_is_a_move_sequence_or_the_pieces_set_by_set():
    puzzle = PermutationPuzzle("cube2", file=str(EXAMPLES / "2x2x2.tws"))
    board = puzzle.parse("R U' F2")
    assert np.array_equal(puzzle.parse(puzzle.format(board)), board)
    assert puzzle.format(puzzle.parse("R R R R")) == puzzle.format(puzzle.goal)
    with pytest.raises(BoardError, match="unreachable: .*sum to 1 mod 3"):
        puzzle.parse("CORNERS 1 2 3 4 5 6 7 8 / 1 0 0 0 0 0 0 0")
    with pytest.raises(BoardError, match="'X' is neither a set name nor a move"):
        puzzle.parse("R X")


@pytest.mark.parametrize("text, line, message", [
    (TOY + "Frobnicate 3\n", 18, "'Frobnicate' is not a keyword of the format"),
    (TOY.replace("2 1 3 4", "2 2 3 4"), 6, "is not a permutation of 1..4"),
    (TOY.replace("1 1 0 0", "1 2 0 0"), 7, "orientation 2 out of range for set A"),
    (TOY.replace("1 1 0 0", "1 ? 0 0"), 7, "'?' is not a number (a ? stands only in Solved"),
    (TOY + "MoveSequence Z X Q\n", 18, "MoveSequence Z: 'Q' is not a move"),
    (TOY + "Illegal A 5 1\n", 18, "Illegal: slot 5 out of range for set A (1..4)"),
])
def test_a_bad_definition_is_one_line_naming_the_file_and_line(tmp_path, text, line, message):
    path = tmp_path / "bad.tws"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        check_config({"puzzles": ["bad"], "define": {"bad": {"family": "permutation",
                                                        "file": str(path)}}}, "c.yaml")
    assert str(err.value).startswith(f"c.yaml: define.bad.file: bad.tws line {line}: ")
    assert message in str(err.value) and "\n" not in str(err.value)


def test_solve_prints_an_optimal_solution_in_the_definitions_move_names(tmp_path):
    config = tmp_path / "config.yaml"
    (tmp_path / "defs").mkdir()
    (tmp_path / "defs" / "cube.tws").write_text((EXAMPLES / "2x2x2.tws").read_text())
    config.write_text("puzzles: [cube2]\ndefine:\n  cube2: {family: permutation, "
                      "file: defs/cube.tws}\n")  # relative to the config
    run = [sys.executable, "-m", "puzzledb.cli", "--config", str(config), "--results",
           str(tmp_path / "results")]
    env = dict(os.environ, PYTHONPATH=str(ROOT / "workflow"))
    subprocess.run(run + ["build", "cube2"], check=True, capture_output=True, env=env)
    out = subprocess.run(run + ["solve", "cube2", "R U' F2"], check=True, capture_output=True,
                         text=True, env=env).stdout.splitlines()
    assert len(out) == 5 and out[-1].startswith("moves: ")
    moves = out[-1].split()[1:]
    assert len(moves) == 3
    puzzle = PermutationPuzzle("c", file=str(EXAMPLES / "2x2x2.tws"))
    assert puzzle.format(puzzle.parse("R U' F2 " + " ".join(moves))) == \
        puzzle.format(puzzle.goal)


@pytest.mark.slow  # 40 s: the 2x2x2 by both engines
def test_the_frontier_search_finds_the_layers_of_the_in_memory_one(tmp_path):
    from puzzledb.bfs import select

    puzzle = PermutationPuzzle("ru", text=CUBE2_RU)
    sharded = plan(puzzle, memory_mb=1024, shards=4, job_states=4096, symmetry="none")
    assert sharded.mode == select.FRONTIER
    select.build(puzzle, tmp_path / "frontier" / "layers", tmp_path / "work", sharded,
                 threads=2, progress=False, log=lambda m: None)
    sharded = [open_layer_file(p).ranks() for p in sorted((tmp_path / "frontier" / "layers").glob(
        "depth_*.h5"))]
    in_memory_layers = build_into(tmp_path, puzzle)
    assert len(sharded) == len(in_memory_layers)
    assert all(np.array_equal(a, b) for a, b in zip(sharded, in_memory_layers))


def test_the_definition_hash_follows_the_moves_not_the_comments_and_names_the_puzzle():
    text = (EXAMPLES / "2x2x2.tws").read_text()
    a = PermutationPuzzle("a", text=text)
    assert a.definition_hash() == PermutationPuzzle("a", text="# more\n" + text).definition_hash()
    assert a.definition_hash() != PermutationPuzzle("b", text=text).definition_hash()
    assert a.definition_hash() != PermutationPuzzle("a", text=text, metric="qtm").definition_hash()


def pyraminx():
    return (EXAMPLES / "pyraminx.tws").read_text()  # its edges: even permutations


@pytest.mark.parametrize("text", [TOY, IDENTICAL, CUBE2_RU, pyraminx(), COUPLED],
                         ids=["toy", "identical", "RU", "pyraminx", "coupled"])
def test_components_past_the_table_limit_are_moved_by_compiled_ranks(tmp_path, text,
                                                                     monkeypatch):
    from puzzledb.puzzles.permutation import layout

    tabled = PermutationPuzzle("tabled", text=text)
    monkeypatch.setattr(layout, "TABLE_MAX", 1)  # every component of more than 1 value
    puzzle = PermutationPuzzle("compiled", text=text)
    assert puzzle.layout.compiled and puzzle.size == tabled.size
    if puzzle.size < 10 ** 6:
        _, expected, _ = bfs_plain(text, "htm")
        layers = build_into(tmp_path, puzzle)
        assert [x.size for x in layers] == [len(x) for x in expected]
    ranks = np.random.default_rng(2).integers(0, puzzle.size, 50).tolist()
    for rank in ranks:
        board = puzzle.unrank(rank)
        assert puzzle.rank(board) == rank
        assert sorted(tabled.rank(puzzle.unrank(n)) for n in puzzle.neighbours(rank)) == \
            sorted(tabled.neighbours(tabled.rank(board)))


def test_neighbours_after_keeps_the_high_blocks_it_decoded_for_the_rank_before(monkeypatch):
    from puzzledb.puzzles.permutation import layout

    monkeypatch.setattr(layout, "TABLE_MAX", 3000)
    puzzle = PermutationPuzzle("corners", file=str(EXAMPLES / "corners.tws"))
    assert [c.count for c in puzzle.layout.compiled] == [40320]  # the most significant
    tables = puzzle.tables()
    # ranks of a few rows of 3^7 twists: most share the arrangement with the rank before
    ranks = np.sort(np.random.default_rng(3).integers(0, 2187 * 20, 2000))
    work = np.empty(puzzle.work_size, np.int64)
    out, after = np.empty(puzzle.max_moves, np.int64), np.empty(puzzle.max_moves, np.int64)
    prev = -1
    for rank in ranks.tolist():
        n = kernels.neighbours_after(rank, prev, 0, after, work, tables)
        assert after[:n].tolist() == puzzle.neighbours(rank)
        prev = rank


# Eight distinct pieces turned by one 8-cycle: a group of 8 in a rank space of 8!.
CYCLE = "Set S 8 1\nMove C\nS\n2 3 4 5 6 7 8 1\nEnd\n"


def test_the_group_order_bounds_the_reachable_set():
    assert PermutationPuzzle("cube2", file=str(EXAMPLES / "2x2x2.tws")).reachable_bound() is None
    assert PermutationPuzzle("ru", text=CUBE2_RU).reachable_bound() == 29_160
    assert PermutationPuzzle("cycle", text=CYCLE).reachable_bound() == 8


def test_a_sparse_rank_space_past_the_budget_goes_to_the_frontier_search(tmp_path):
    from puzzledb.bfs import select

    puzzle = PermutationPuzzle("cycle", text=CYCLE)
    assert "the rank space is 5,040.0 times that" in dict(puzzle.info_lines())["reachable"]
    chosen = plan(puzzle, memory_mb=1, job_states=4096, symmetry="none")
    assert chosen.mode == select.FRONTIER and chosen.depth_limit is None
    # 6 ranks a state: two bits each hold less, so it stays in memory, over the budget
    with pytest.raises(BudgetError, match="ru needs 2 MiB for its in-memory search"):
        plan(PermutationPuzzle("ru", text=CUBE2_RU), memory_mb=1)
    select.build(puzzle, tmp_path / "layers", tmp_path / "work", chosen, threads=2,
                 progress=False, log=lambda m: None)
    counts = [open_layer_file(p).count for p in sorted((tmp_path / "layers").glob("depth_*.h5"))]
    assert counts == [1, 7]  # every power of C is one move (htm)


# Eight distinct pieces: a 5-cycle and a swap (every permutation), and three 3-cycles
# (even ones only), for the split of a large permutation (layout.py, split.py).
EIGHT = "Set S 8 1\nMove A\nS\n2 3 4 5 1 6 7 8\nEnd\nMove B\nS\n1 2 3 4 6 7 8 5\nEnd\n"
EVEN = ("Set S 8 1\nMove A\nS\n2 3 1 4 5 6 7 8\nEnd\nMove B\nS\n1 2 4 5 3 6 7 8\nEnd\n"
        "Move C\nS\n1 2 3 4 6 7 5 8\nEnd\nMove D\nS\n1 2 3 4 5 7 8 6\nEnd\n")


@pytest.mark.parametrize("text", [EIGHT, EVEN], ids=["perm", "even"])
def test_a_permutation_too_large_for_a_table_is_split_into_rows(tmp_path, text, monkeypatch):
    from puzzledb.puzzles.permutation import layout, split

    tabled = PermutationPuzzle("tabled", text=text)
    monkeypatch.setattr(layout, "TABLE_MAX", 10_000)  # 8! past it, 8!/6! not
    puzzle = PermutationPuzzle("split", text=text)
    assert puzzle.layout.split is not None and puzzle.layout.lo_size in (720, 360)
    for rank in np.random.default_rng(4).integers(0, puzzle.size, 300).tolist():
        board = puzzle.unrank(rank)
        assert puzzle.rank(board) == rank
        assert sorted(tabled.rank(puzzle.unrank(n)) for n in puzzle.neighbours(rank)) == \
            sorted(tabled.neighbours(tabled.rank(board)))
    c = puzzle.layout.split
    moves = layout.metric_moves(puzzle.spec, puzzle.moves)
    compiled, reference = split.high_table(c, moves), split.high_table_reference(c, moves)
    assert all(np.array_equal(a, b) for a, b in zip(compiled, reference))
    layers = build_into(tmp_path / "split", puzzle)
    expected = build_into(tmp_path / "tabled", tabled)
    assert [x.size for x in layers] == [x.size for x in expected]
    for a, b in zip(layers[-3:], expected[-3:]):
        assert sorted(puzzle.decode(r) for r in a) == sorted(tabled.decode(r) for r in b)


def test_a_counts_only_build_keeps_the_table_of_the_layers(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("puzzles: [skewb]\ndefine:\n  skewb: {family: permutation, file: "
                      f"{EXAMPLES / 'skewb.tws'}}}\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "workflow"))
    run = [sys.executable, "-m", "puzzledb.cli", "--config", str(config), "--results",
           str(tmp_path / "results")]
    subprocess.run(run + ["build", "skewb", "--store", "counts"], check=True,
                   capture_output=True, env=env)
    summary = subprocess.run(run + ["info", "skewb"], check=True, capture_output=True,
                             text=True, env=env).stdout
    assert "3,149,280 states, max depth 11" in summary and "store counts" in summary


def test_the_ranks_of_distinct_pieces_are_their_lexicographic_order():
    """rank_rows and unrank_rows of distinct pieces (the Lehmer code, column by column)
    against itertools' lexicographic order, and a plain count of the permutations before
    a row on 13 pieces."""
    every = np.array(list(itertools.permutations(range(6))), dtype=np.int64)
    assert (rank_rows(every, (1,) * 6) == np.arange(len(every))).all()
    assert (unrank_rows(np.arange(len(every)), (1,) * 6) == every).all()
    rows = np.array([np.random.default_rng(n).permutation(13) for n in range(200)])
    values = rank_rows(rows, (1,) * 13)

    def before(row):  # the permutations starting as row does up to i, then a smaller piece
        return sum(sorted(row[i:]).index(row[i]) * math.factorial(12 - i) for i in range(13))

    assert values.tolist() == [before(row.tolist()) for row in rows]
    assert (unrank_rows(values, (1,) * 13) == rows).all()


def test_the_search_keeps_the_counts_a_pass_over_the_array_would_give(tmp_path):
    """TwoBitSearch keeps its CUR and UNSEEN states' numbers (state.counts) as it goes, so
    that the rows' expansion need not count them over the whole array at every depth: at
    every depth, backward ones too, and after a reload, a count over the array agrees."""
    puzzle = PermutationPuzzle("cube2", file=str(EXAMPLES / "2x2x2.tws"))
    search = TwoBitSearch(puzzle)
    search.start(puzzle.goal_ranks())
    depth = 0
    while True:
        assert search.state.counts == cur_and_unseen(search.state.words, puzzle.size), depth
        if search.expand(depth) == 0:
            break
        search.advance()
        depth += 1
    assert depth == len(CUBE2_HTM) - 1 and "backward" in search.expansion.directions
    build_into(tmp_path, puzzle)
    again = TwoBitSearch(puzzle)
    again.reload(LayerStore(tmp_path / puzzle.name / "layers", puzzle), 6)
    assert again.state.counts == (CUBE2_HTM[6], puzzle.size - sum(CUBE2_HTM[:7]))
    assert again.state.counts == cur_and_unseen(again.state.words, puzzle.size)
