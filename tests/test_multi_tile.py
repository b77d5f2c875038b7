"""The multi-tile metric of sliding puzzles (metric: multi-tile): a run of pieces of the
blank's row or column slides toward it in one move.  Tables from lightln2's
SlidingTilesSolver (results/multitile_frontier), blank in a corner.

The searches (the plane jumps' sweeps forward and backward, the state-by-state expansion of
taller boards, the frontier's) compile kernels that no other test compiles: about 100 s of
two cores on a fresh kernel cache, for one metric.  They are the slow tier's (`python -m
pytest -m slow tests/test_multi_tile.py`); the default tier checks the moves themselves,
the neighbours kernel and the jumps' ranks, against the rule as stated."""

import numba
import numpy as np
import pytest

from building import build_in_memory, plan
from puzzledb.puzzles.sliding.distinct_kernels import factored_tables
from puzzledb.puzzles.sliding.plane_kernels import plane_jump, plane_jump_start, plane_scratch
from puzzledb.puzzles.sliding.pool_kernels import pool_tables
from puzzledb.puzzles.sliding.puzzle import SlidingPuzzle
from puzzledb.puzzles.sliding.rankings import DistinctTiles
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
    build_in_memory(puzzle, directory, threads=2, progress=False, log=lambda m: None)
    return [open_layer_file(p).count for p in sorted(directory.glob("depth_*.h5"))]


@pytest.mark.slow
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


@pytest.mark.slow
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


@numba.njit
def _plane_jumps(t, b, qs, stop, out):
    """plane_jump on the ascending states qs of plane b; a direction stops where stop[i, j]
    (out -1 from there on), as the forward sweep stops at a seen state, so that a tracker
    must catch up over the states it skipped."""
    trackers = plane_scratch(t)
    constants = plane_jump_start(t, b, trackers)
    for i in range(qs.size):
        r = b * t.plane + qs[i]
        p = r
        for j in range(constants[2]):
            if j == constants[1]:
                p = r  # the jumps up
            if p >= 0 and not stop[i, j]:
                p = plane_jump(t, qs[i], j, p, constants, trackers)
            else:
                p = -1
            out[i, j] = p


def column_jumps(board, width):
    """The boards after the blank's jumps of 1, 2, ... cells down, then up (plain Python)."""
    out = []
    for step in (width, -width):
        moved = list(board)
        b = moved.index(0)
        while 0 <= b + step < len(board):
            moved[b], moved[b + step] = moved[b + step], 0
            b += step
            out.append(moved.copy())
    return out


@pytest.mark.parametrize("width, height, goal", [
    (3, 4, "123 456 789 ab0"),  # jumps of three cells over windows of three, no full search
    (3, 4, "213 456 789 ab0"),  # the other parity of the permutation
    (4, 4, "1234 5678 9abc def0"),
    (4, 4, "1111 1111 1122 3340"),  # repeated pieces (the pool kernels)
])
def test_the_plane_jumps_rank_the_boards_the_rule_gives(width, height, goal):
    puzzle = SlidingPuzzle("m", width, height, goal, metric="multi-tile")
    t = factored_tables(puzzle) if isinstance(puzzle.ranking, DistinctTiles) else \
        pool_tables(puzzle)
    rng = np.random.default_rng(5)
    for b in range(puzzle.cells):
        start = int(rng.integers(0, t.plane - 100))  # a run of states, then scattered ones
        qs = np.unique(np.concatenate([np.arange(start, start + 100),
                                       rng.integers(0, t.plane, 60)])).astype(np.int64)
        stop = rng.random((qs.size, height - 1)) < 0.3
        out = np.full((qs.size, height - 1), -2, np.int64)
        _plane_jumps(t, np.int64(b), qs, stop, out)
        for q, got in zip(qs.tolist(), out.tolist()):
            want = [puzzle.rank(x) for x in column_jumps(puzzle.unrank(b * t.plane + q), width)]
            assert len(want) == len(got)
            assert [g for g in got if g >= 0] == [w for w, g in zip(want, got) if g >= 0]
        assert (out >= 0).sum() > out.size // 3  # most jumps were made and checked


@pytest.mark.slow
def test_boards_of_more_than_four_rows_go_state_by_state(tmp_path):
    puzzle = SlidingPuzzle("m", 2, 5, "11 22 33 44 50", metric="multi-tile")
    assert type(puzzle.layer_expansion()).__name__ == "MultiTileExpansion"
    assert puzzle.expansion_bytes() == 0  # no plane tables built
    assert layer_counts(puzzle, tmp_path) == plain_layers(puzzle)


@pytest.mark.slow
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


@pytest.mark.slow
@pytest.mark.parametrize("width, height, goal", [(3, 3, "123 456 780"), (2, 4, "12 34 56 70")])
def test_the_frontier_search_finds_the_in_memory_layers(tmp_path, width, height, goal):
    from puzzledb.bfs import select

    puzzle = SlidingPuzzle("m", width, height, goal, metric="multi-tile")
    sharded = plan(puzzle, memory_mb=1024, shards=4, job_states=20000)
    select.build(puzzle, tmp_path / "frontier", tmp_path / "work", sharded, threads=2,
                 progress=False, log=lambda m: None)
    layer_counts(puzzle, tmp_path / "memory")
    for a, b in zip(sorted((tmp_path / "frontier").glob("depth_*.h5")),
                    sorted((tmp_path / "memory").glob("depth_*.h5")), strict=True):
        assert np.array_equal(open_layer_file(a).ranks(), open_layer_file(b).ranks())
