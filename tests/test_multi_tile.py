"""The multi-tile metric of sliding puzzles (metric: multi-tile): a run of pieces of the
blank's row or column slides toward it in one move.  Tables from lightln2's
SlidingTilesSolver (results/multitile_frontier), blank in a corner."""

import numba
import numpy as np
import pytest

from puzzledb.bfs import in_memory
from puzzledb.puzzles.sliding.puzzle import SlidingPuzzle
from puzzledb.store.parts import open_layer_file

MULTI_3X3 = [1, 4, 8, 16, 32, 64, 127, 244, 454, 856, 1576, 2854, 5117, 8588, 13466, 19739,
             26558, 31485, 30985, 23494, 11751, 3390, 589, 41, 1]
MULTI_5X2 = [1, 5, 8, 20, 32, 80, 127, 300, 458, 960, 1458, 3055, 4540, 8780, 12694, 23520,
             33370, 57200, 77373, 119315, 151791, 204225, 235617, 256305, 246642, 178775,
             120853, 49655, 20885, 4530, 1229, 440, 113, 30, 8, 5, 1]
# the 4x3 (239,500,800 states, radius 33), for benchmarks/: docs/benchmarks.md
MULTI_4X3 = [1, 5, 12, 30, 72, 180, 431, 1058, 2418, 5711, 12858, 29630, 65053, 145090,
             303771, 640141, 1260032, 2476812, 4490822, 7999853, 12981931, 20265326,
             28065825, 36086638, 39470660, 37460934, 27258384, 14584710, 4854329, 939300,
             93345, 5229, 204, 5]


def multi_tile_moves(board, width):
    """Every board one multi-tile move away, by the rule as stated (plain Python)."""
    board = list(board)
    cells = len(board)
    s = board.index(0)
    out = []
    for step, same_line in ((-1, lambda c: c // width == s // width),
                            (1, lambda c: c // width == s // width),
                            (-width, lambda c: 0 <= c < cells),
                            (width, lambda c: 0 <= c < cells)):
        b, moved = s, board.copy()
        while same_line(b + step) and 0 <= b + step < cells:
            moved[b], moved[b + step] = moved[b + step], 0
            b += step
            out.append(moved.copy())
    return out


def layer_counts(puzzle, directory):
    numba.set_num_threads(2)
    in_memory.build(puzzle, directory, threads=2, progress=False, log=lambda m: None)
    return [open_layer_file(p).count for p in sorted(directory.glob("depth_*.h5"))]


@pytest.mark.parametrize("width, height, goal, table", [
    (3, 3, "123 456 780", MULTI_3X3), (5, 2, "12345 67890", MULTI_5X2)])
def test_multi_tile_tables_are_lightln2s(tmp_path, width, height, goal, table):
    puzzle = SlidingPuzzle("m", width, height, goal, metric="multi-tile")
    assert layer_counts(puzzle, tmp_path) == table


@pytest.mark.parametrize("goal", ["123 456 780", "112 203 344"])
def test_the_multi_tile_kernel_gives_the_boards_the_rule_gives(goal):
    puzzle = SlidingPuzzle("m", 3, 3, goal, metric="multi-tile")
    kernels = puzzle.compiled.multi_kernels
    out = np.empty(puzzle.max_moves, np.int64)
    work = np.empty(puzzle.work_size, np.int64)
    prev = -1
    # ascending, as the layer expansion goes: each board decoded from the one before
    for rank in sorted(np.random.default_rng(3).integers(0, puzzle.size, 300).tolist()):
        board = puzzle.unrank(rank)
        expected = sorted(puzzle.rank(b) for b in multi_tile_moves(board, 3))
        assert sorted(puzzle.neighbours(rank)) == expected
        count = kernels.multi_tile_neighbours_after(rank, prev, 0, out, work, puzzle.tables())
        assert sorted(out[:count].tolist()) == expected
        prev = rank


def plain_layers(puzzle):
    """Layer sizes by a plain-Python BFS over boards, with the rule as stated."""
    start = tuple(puzzle.goal.tolist())
    seen, layer, sizes = {start}, [start], []
    while layer:
        sizes.append(len(layer))
        nxt = []
        for board in layer:
            for moved in multi_tile_moves(board, puzzle.width):
                moved = tuple(moved)
                if moved not in seen:
                    seen.add(moved)
                    nxt.append(moved)
        layer = nxt
    return sizes


@pytest.mark.parametrize("width, height, goal", [
    (2, 4, "12 34 56 70"),  # four rows: jumps of three cells, three windows summed
    (2, 4, "11 22 31 30"),  # repeated pieces (the pool kernels), four rows
    (3, 3, "112 203 344"),  # repeated pieces, three rows
    (4, 2, "1234 5670"),  # two rows: a jump along the column is one cell
])
def test_the_plane_jumps_find_the_layers_of_a_plain_search(tmp_path, width, height, goal):
    puzzle = SlidingPuzzle("m", width, height, goal, metric="multi-tile")
    assert type(puzzle.layer_expansion()).__name__ == "PlaneJumpExpansion"
    assert layer_counts(puzzle, tmp_path) == plain_layers(puzzle)


def test_the_plane_jumps_go_backward_on_the_last_layers(tmp_path):
    puzzle = SlidingPuzzle("m", 3, 3, "123 456 780", metric="multi-tile")
    expansion = puzzle.layer_expansion()
    puzzle.layer_expansion = lambda: expansion
    assert layer_counts(puzzle, tmp_path) == MULTI_3X3
    assert expansion.directions[0] == "forward" and expansion.directions[-1] == "backward"


def test_multi_tile_moves_have_no_move_parity_and_no_manhattan_bound():
    single = SlidingPuzzle("s", 3, 3, "123 456 780")
    multi = SlidingPuzzle("m", 3, 3, "123 456 780", metric="multi-tile")
    assert single.bipartite and not multi.bipartite
    assert multi.heuristics() == {}
    assert "metric" not in single.definition()  # single-tile layers keep their hash
    assert multi.definition_hash() != SlidingPuzzle("m", 3, 3, "123 456 780").definition_hash()


@pytest.mark.parametrize("width, height, goal", [(3, 3, "123 456 780"), (2, 4, "12 34 56 70")])
def test_the_frontier_search_finds_the_in_memory_layers(tmp_path, width, height, goal):
    from puzzledb.bfs import select

    puzzle = SlidingPuzzle("m", width, height, goal, metric="multi-tile")
    plan = select.choose(puzzle, memory_mb=1024, shards=4)
    select.build(puzzle, tmp_path / "frontier", tmp_path / "work", plan, threads=2,
                 job_states=20000, progress=False, log=lambda m: None)
    layer_counts(puzzle, tmp_path / "memory")
    for a, b in zip(sorted((tmp_path / "frontier").glob("depth_*.h5")),
                    sorted((tmp_path / "memory").glob("depth_*.h5")), strict=True):
        assert np.array_equal(open_layer_file(a).ranks(), open_layer_file(b).ranks())
