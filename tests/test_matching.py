"""Meet-in-the-middle matching: distances beyond the stored depth k agree with a full
database, on the 8-puzzle (general forward search) and on the 14-puzzle (tile renaming
against the general search), and the problem files it writes replay."""

import shutil

import numba
import numpy as np
import pytest

from building import build_in_memory
from puzzledb import compiled, puzzles

from puzzledb.query import matching, problems
from puzzledb.query.database import DepthDatabase
from puzzledb.errors import PuzzleError
from puzzledb.store.layers import LayerStore


@pytest.fixture(scope="module")
def eight(tmp_path_factory):
    numba.set_num_threads(2)
    puzzle = puzzles.get("eight")
    directory = tmp_path_factory.mktemp("eight") / "layers"
    build_in_memory(puzzle, directory, threads=2, progress=False, log=lambda m: None)
    return LayerStore(directory, puzzle)


def goal_layers_only(store, k, directory):
    """Copies of layers 0..k alone in `directory`, opened for matching."""
    for depth in range(k + 1):
        shutil.copy(store.path(depth), directory)
    return matching.open_goal_layers(store.puzzle, directory, k)


def test_eight_matching_with_layers_to_8_agrees_with_the_full_database(eight, tmp_path):
    layers = goal_layers_only(eight, 8, tmp_path)
    rng = np.random.default_rng(1)
    queries = np.concatenate([rng.integers(0, eight.puzzle.size, 150),
                              eight.open_layer(31).ranks()]).astype(np.uint64)
    full = DepthDatabase(eight.puzzle, eight.directory).depths(queries)
    assert full.max() == 31 > 2 * 8  # the general search is not bounded by 2k
    assert np.array_equal(matching.distances(layers, queries), full)


def test_eight_867_254_301_is_31_moves_by_matching_with_layers_to_10(eight, tmp_path):
    layers = goal_layers_only(eight, 10, tmp_path)
    rank = eight.puzzle.board_rank("867 254 301")
    assert matching.distances(layers, [rank]).tolist() == [31]
    path = matching.optimal_route(layers, rank)
    assert len(path) == 32 and path[-1] == int(eight.puzzle.goal_ranks()[0])
    assert all(b in eight.puzzle.neighbours(a) for a, b in zip(path, path[1:]))


def test_matching_never_opens_a_layer_deeper_than_k(eight, tmp_path):
    layers = goal_layers_only(eight, 5, tmp_path)
    assert layers.k == 5 and not layers.complete
    assert sorted(p.name for p in tmp_path.iterdir())[-1] == "depth_005.h5"
    assert matching.distances(layers, [eight.puzzle.board_rank("867 254 301")]).tolist() == [31]


def test_matching_on_a_complete_shallow_database_needs_no_search(eight):
    layers = matching.GoalLayers(eight, 40)
    assert layers.complete and layers.k == 31
    assert matching.distances(layers, [eight.puzzle.board_rank("867 254 301")])[0] == 31


def _goal_layers_by_search(puzzle, k, directory):
    """Layers 0..k written by a plain set-based BFS, independent of the engine."""
    store = LayerStore(directory, puzzle)
    previous, current = set(), {int(g) for g in puzzle.goal_ranks()}
    for depth in range(k + 1):
        ranks = np.array(sorted(current), dtype=np.uint64)
        store.write_layer(depth, [ranks], ranks.size)
        following = {n for r in current for n in puzzle.neighbours(r)} - current - previous
        previous, current = current, following
    return matching.open_goal_layers(puzzle, directory, k)


def test_fourteen_renaming_agrees_with_the_general_search_beyond_k(tmp_path):
    puzzle = puzzles.get("fourteen")
    layers = _goal_layers_by_search(puzzle, 11, tmp_path)
    # positions 12 to 24 moves out: random walks from the goal, domino back at bottom right
    rng = np.random.default_rng(2)
    queries = set()
    while len(queries) < 40:
        rank = int(puzzle.goal_ranks()[0])
        for _ in range(int(rng.integers(12, 40))):
            rank = int(rng.choice(puzzle.neighbours(rank)))
        if puzzle.decode(rank).endswith("__"):
            queries.add(rank)
    queries = np.array(sorted(queries), dtype=np.uint64)
    fast = matching.distances(layers, queries)
    general = matching.distances(layers, queries, relabel=False)
    assert np.array_equal(fast, general)
    assert fast.max() > 11
    for rank, d in zip(queries[:10], fast[:10]):
        assert len(matching.optimal_route(layers, int(rank))) == d + 1
        assert len(matching.optimal_route(layers, int(rank), relabel=False)) == d + 1


def test_distribution_file_counts_each_distance_and_accumulates(tmp_path):
    path = tmp_path / "distribution.csv"
    problems.write_distribution(path, np.array([4, 2, 4, 6, 4]))
    assert path.read_text().splitlines() == [
        "distance,count,cumulative", "2,1,1", "4,3,4", "6,1,5"]


def test_problem_selection_is_reproducible_and_keeps_at_most_n_per_distance():
    ranks = np.arange(100, dtype=np.uint64)
    distances = np.array([10] * 50 + [12] * 45 + [14] * 5)
    a = problems.select_problems(ranks, distances, per_distance=7, min_distance=12, seed=3)
    b = problems.select_problems(ranks, distances, per_distance=7, min_distance=12, seed=3)
    assert np.array_equal(a[0], b[0])
    assert a[1].tolist() == [14] * 5 + [12] * 7


def test_eight_problem_file_replays_and_a_wrong_route_is_caught(eight, tmp_path):
    layers = goal_layers_only(eight, 12, tmp_path)
    queries = np.random.default_rng(4).integers(0, eight.puzzle.size, 60).astype(np.uint64)
    distances = matching.distances(layers, queries)
    path = tmp_path / "problems.txt"
    count = problems.write_problems(path, layers, queries, distances, per_distance=2)
    assert problems.check_problem_file(path, eight.puzzle) == count > 0
    first = problems.read_problems(path)[0]
    first.route[-1], first.route[-2] = first.route[-2], first.route[-1]
    with pytest.raises(problems.ProblemError):
        problems.replay(eight.puzzle, first)


def test_unknown_query_set_names_the_known_ones():
    with pytest.raises(PuzzleError, match="domino-bottom-right"):
        matching.query_set(puzzles.get("fourteen"), "everything")
    assert matching.query_set(puzzles.get("fourteen"), "domino-bottom-right").size == 6_350_400


def test_eight_renaming_maps_the_goal_onto_the_query_and_keeps_distances(eight):
    puzzle = eight.puzzle
    relabelling = puzzle.relabelling()
    goal = int(puzzle.goal_ranks()[0])
    queries = np.random.default_rng(5).choice(matching.query_set(puzzle, "blank-at-goal"), 50)
    keys = relabelling.keys(queries)
    assert np.array_equal(keys, queries.astype(np.int64))
    full = DepthDatabase(eight.puzzle, eight.directory).depths(queries)
    for q, d in zip(keys.tolist(), full.tolist()):
        assert compiled.relabel_one(np.int64(goal), np.int64(q), relabelling.tables) == q
        # a neighbour of the goal renamed is a neighbour of the query
        n = puzzle.neighbours(goal)[0]
        renamed = int(compiled.relabel_one(np.int64(n), np.int64(q), relabelling.tables))
        assert renamed in puzzle.neighbours(q)
    assert relabelling.keys(np.array([0]))[0] == -1  # blank in the corner cell 0


def test_eight_renaming_with_layers_to_12_agrees_with_the_database_also_beyond_2k(eight,
                                                                                   tmp_path):
    layers = goal_layers_only(eight, 12, tmp_path)
    queries = np.random.default_rng(8).choice(
        matching.query_set(eight.puzzle, "blank-at-goal"), 300, replace=False)
    full = DepthDatabase(eight.puzzle, eight.directory).depths(queries)
    assert full.max() > 2 * 12  # these take the general search after renaming finds nothing
    assert np.array_equal(matching.distances(layers, queries), full)
