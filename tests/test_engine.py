"""The in-memory engine on two bits per state: the plane kernels of sliding puzzles mark
exactly the neighbours the per-state kernel gives, every expansion finds the layers of a BFS
over plain sets of ranks, a resumed search the layers of an uninterrupted one, and the
search holds the memory memory.py states; a second build in a new process compiles nothing."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from building import build_in_memory
from puzzledb.bfs import bitset, in_memory, memory, twobit
from puzzledb import compiled, puzzles
from puzzledb.puzzles.sliding.puzzle import SlidingPuzzle
from puzzledb.puzzles.sliding.distinct_kernels import factored_tables
from puzzledb.store.layer import ranks_crc
from puzzledb.store.layers import LayerStore


def quiet(message):
    pass


def layers_by_sets(puzzle):
    """(count, CRC-32) of each layer by a BFS over sorted rank arrays: the neighbours of a
    whole layer from the per-state kernel, minus the two layers before it."""
    layer = np.unique(puzzle.goal_ranks().astype(np.int64))
    before = np.zeros(0, dtype=np.int64)
    out = []
    while layer.size:
        ranks = layer.astype(np.uint64)
        out.append((int(layer.size), ranks_crc(ranks)))
        found = np.unique(compiled.neighbours_of_many(layer, np.int64(0), puzzle.max_moves,
                                                      puzzle.work_size, puzzle.tables()))
        found = np.setdiff1d(np.setdiff1d(found, layer, assume_unique=True), before,
                             assume_unique=True)
        before, layer = layer, found
    return out


def built_layers(puzzle, directory):
    build_in_memory(puzzle, directory, threads=2, progress=False, log=quiet)
    return [(i["count"], i["crc32"]) for i in LayerStore(directory, puzzle).manifest()["layers"]]


def marked_by_expanding(expansion, state, rank):
    """The states the expansion marks NEXT from `rank` alone, then the array cleared."""
    state.mark_current(np.array([rank], dtype=np.uint64))
    count = expansion.expand(state, 0)
    state.relabel()  # NEXT -> CUR, CUR -> OLD
    found = np.concatenate([b.copy() for b in state.current_ranks()] or
                           [np.zeros(0, np.uint64)])
    state.words[:] = 0
    state.cur_flags[:] = 0
    assert count == found.size
    return sorted(int(r) for r in found)


@pytest.mark.parametrize("name", ["eleven", "eight", "fifteen-3colour", "fifteen-6colour"])
def test_the_plane_kernels_mark_exactly_the_neighbours_the_per_state_kernel_gives(name):
    puzzle = puzzles.get(name)
    expansion = puzzle.layer_expansion()
    assert expansion is not None and not isinstance(expansion, twobit.NeighboursExpansion)
    state = twobit.StateArray(puzzle.size)
    plane = puzzle.size // puzzle.cells
    ranks = np.random.default_rng(11).integers(0, puzzle.size, 200).tolist()
    ranks += [b * plane + e for b in range(puzzle.cells) for e in (0, 1, 31, plane - 1)]
    for rank in ranks:
        assert marked_by_expanding(expansion, state, rank) == sorted(set(
            puzzle.neighbours(rank))), rank


@pytest.mark.parametrize("name", ["eleven", "eight", "fifteen-3colour", "fifteen-6colour"])
def test_the_plane_kernels_set_in_a_bitset_the_neighbours_of_sorted_ranks(name):
    """expansion.mark (the frontier's dense depths): the neighbours of an ascending list of
    ranks, in a bitset.  Runs of consecutive ranks at four densities and scattered ones
    across every plane; then lists where each plane's first rank lies at or past the previous
    plane's last place in it (what a kernel that kept its decoded digits across planes would
    get wrong)."""
    puzzle = puzzles.get(name)
    expansion = puzzle.layer_expansion()
    plane = puzzle.size // puzzle.cells
    rng = np.random.default_rng(13)
    lists = []
    for density in (1.0, 0.3, 1e-3, 1e-5):
        starts = rng.integers(0, puzzle.size - 5000, 8)
        runs = [np.arange(s, s + 5000)[rng.random(5000) < density] for s in starts]
        edges = [b * plane + e for b in range(puzzle.cells) for e in (0, 1, plane - 1)]
        lists.append(np.concatenate(runs + [rng.integers(0, puzzle.size, 300), edges]))
    for q in rng.integers(0, plane - 2, 4):  # the same place in every plane
        lists.append(np.array([b * plane + q + e for b in range(puzzle.cells) for e in (0, 1)]))
    lists.append(np.array([b * plane + (b + 1) * plane // (puzzle.cells + 1)  # a staircase
                           for b in range(puzzle.cells)]))
    for ranks in lists:
        ranks = np.unique(ranks)
        bits = bitset.new_bitset(puzzle.size)
        expansion.mark(ranks.astype(np.uint64), 0, bits)
        expected = np.unique(compiled.neighbours_of_many(
            ranks.astype(np.int64), np.int64(0), puzzle.max_moves, puzzle.work_size,
            puzzle.tables()))
        found = np.concatenate([r.copy() for r in bitset.iter_ranks(bits)])  # one buffer
        assert np.array_equal(found.astype(np.int64), expected), ranks[:10]


def test_a_bitset_gives_the_ranks_between_two_bounds_in_blocks():
    """bitset.iter_ranks(low, high): bounds inside words, blocks of a few words."""
    rng = np.random.default_rng(5)
    ranks = np.unique(rng.integers(0, 5000, 1500)).astype(np.uint64)
    bits = bitset.new_bitset(5000)
    bitset.set_ranks(bits, ranks, 0)
    for low, high in [(0, None), (0, 5000), (1, 4999), (63, 65), (64, 128), (100, 3001),
                      (777, 778), (4990, None)]:
        found = np.concatenate([b.copy() for b in bitset.iter_ranks(bits, 2, low, high)]
                               or [np.zeros(0, np.uint64)])
        upper = 5000 if high is None else high
        assert np.array_equal(found, ranks[(ranks >= low) & (ranks < upper)]), (low, high)


def test_the_declared_flags_say_what_the_methods_give():
    """A flag a family declares (bipartite, named_moves) agrees with the method it stands
    for, on every known puzzle."""
    for name in puzzles.names():
        puzzle = puzzles.get(name)
        assert puzzle.bipartite == (puzzle.move_parity([0]) is not None), name
        goal = int(puzzle.goal_ranks()[0]) if puzzle.ranks_fit else 0
        assert puzzle.named_moves == (puzzle.route_moves([goal]) is not None), name


@pytest.mark.parametrize("name", [n for n in puzzles.names() if puzzles.get(n).bipartite])
def test_a_move_parity_flips_with_every_move_is_one_for_the_goals_and_comes_in_runs(name):
    """What the frontier's bipartite merges and kept bitsets rest on: every move flips
    move_parity, the goal states share one parity (so layer d has parity goal + d), and
    parity_run's runs of ranks are of one parity each."""
    puzzle = puzzles.get(name)
    rng = np.random.default_rng(3)
    ranks = rng.integers(0, puzzle.size, 200)
    for rank in ranks:
        neighbours = puzzle.neighbours(int(rank))
        assert set(puzzle.move_parity(neighbours)) == {1 - puzzle.move_parity([rank])[0]}
    assert len(set(puzzle.move_parity(puzzle.goal_ranks().astype(np.int64)))) == 1
    length = puzzle.parity_run()
    if length is not None:
        run = ranks // length
        assert np.array_equal(puzzle.move_parity(ranks), puzzle.move_parity(run * length))
        ends = np.minimum((run + 1) * length, puzzle.size) - 1
        assert np.array_equal(puzzle.move_parity(ends), puzzle.move_parity(run * length))


@pytest.mark.parametrize("width, height, goal", [
    (2, 2, "12 30"), (3, 2, "123 450"), (2, 3, "12 34 50"), (4, 2, "1234 5670"),
    (2, 4, "12 34 56 70"), (3, 3, "123 456 780"), (3, 3, "112 233 110"),
    (4, 2, "1122 3330"), (5, 2, "11223 34450"), (3, 4, "111 222 333 110"),
])
def test_a_sliding_board_has_the_layers_of_a_bfs_over_sets(width, height, goal, tmp_path):
    puzzle = SlidingPuzzle(f"board-{width}x{height}", width, height, goal)
    assert puzzle.layer_expansion() is not None
    assert built_layers(puzzle, tmp_path) == layers_by_sets(puzzle)


@pytest.mark.parametrize("name", ["flipit-square", "flipit-square-diagonal"])
def test_a_puzzle_without_a_layer_expansion_has_the_layers_of_a_bfs_over_sets(name, tmp_path):
    puzzle = puzzles.get(name)
    assert puzzle.layer_expansion() is None
    assert built_layers(puzzle, tmp_path) == layers_by_sets(puzzle)


def test_the_generic_step_finds_the_layers_of_the_plane_kernels(tmp_path, monkeypatch):
    puzzle = puzzles.get("fifteen-6colour")
    planes = built_layers(puzzle, tmp_path / "planes")
    monkeypatch.setattr(SlidingPuzzle, "layer_expansion", lambda self: None)
    assert built_layers(puzzle, tmp_path / "generic") == planes


def test_a_search_resumed_after_layer_12_writes_the_layers_of_an_uninterrupted_one(tmp_path):
    puzzle = puzzles.get("eight")
    whole = built_layers(puzzle, tmp_path)
    store = LayerStore(tmp_path, puzzle)
    store.prune(13)  # layers 13.. and the manifest removed, as after a kill
    report = build_in_memory(puzzle, tmp_path, threads=2, progress=False, log=quiet)
    assert report.resumed_from == 12
    assert [(i["count"], i["crc32"]) for i in store.manifest()["layers"]] == whole


def test_the_search_of_eleven_holds_two_bits_per_state_and_its_plane_tables():
    eleven = puzzles.get("eleven")
    state = twobit.StateArray(eleven.size)
    assert state.words.nbytes == 239_500_800 // 4
    tables = factored_tables(eleven)
    assert tables.suffix_delta.nbytes == eleven.expansion_bytes() == 8 * sum(
        entries for _, _, entries, _ in eleven.ranking.plane_plan.suffixes)
    flags = state.cur_flags.nbytes + state.next_flags.nbytes + state.cur_counts.nbytes
    assert memory.search_bytes(eleven) == (state.words.nbytes + flags + state.buffer.nbytes
                                           + eleven.expansion_bytes())
    assert round(memory.search_bytes(eleven) / 2**20) == 60


def test_a_board_whose_rank_tables_would_be_too_large_is_expanded_state_by_state():
    wide = SlidingPuzzle("two-colour-11x2", 11, 2, "11111111112 22222222220")
    assert wide.ranking.plane_plan is None  # the first class's pool: 21 cells, 2^21 entries
    assert wide.layer_expansion() is None and wide.expansion_bytes() == 0


BUILD_AND_LIST_COMPILED = """
import gc, sys, tempfile
from numba.core.dispatcher import Dispatcher
from puzzledb import puzzles
sys.path.insert(0, sys.argv[1])  # the tests' own helpers
from building import build_in_memory

from puzzledb.puzzles.domino.puzzle import DominoPuzzle
boards = [puzzles.get(name) for name in ("eight", "fifteen-6colour", "flipit-square", "hoppers")]
boards.append(DominoPuzzle("domino-3x4", 3, 4, "123 456 789 a__"))
with tempfile.TemporaryDirectory() as tmp:
    for puzzle in boards:
        build_in_memory(puzzle, tmp + "/" + puzzle.name, threads=2, progress=False,
                     log=lambda m: None)
print(sorted(d.py_func.__qualname__ for d in gc.get_objects()
             if isinstance(d, Dispatcher) and sum(d.stats.cache_misses.values())))
"""


@pytest.mark.slow
def test_a_second_build_in_a_new_process_compiles_no_kernel():
    # one board of each kernel family: distinct tiles and repeated pieces (plane kernels),
    # flip-it (the generic step), pegs (graded), domino; the first run may fill the cache
    def compiled_by_a_build():
        return subprocess.run([sys.executable, "-c", BUILD_AND_LIST_COMPILED,
                               str(Path(__file__).parent)], check=True, capture_output=True,
                              text=True).stdout.strip()

    compiled_by_a_build()
    assert compiled_by_a_build() == "[]"
