"""Keys of several words (puzzledb/keys.py): permutation puzzles whose rank space passes
2^63, searched by the frontier engine and stored as rows of words, checked against a
plain-Python BFS over sets of states on small definitions written for it
(wide_definitions.py), and queried."""

import json
import signal
import subprocess
import sys
import time
from itertools import combinations
from math import comb, factorial
from pathlib import Path

import numpy as np
import pytest
import yaml

from building import plan
from conftest import ROOT
from plain_permutation import apply_plain, bfs_plain, board_text, read_plain
from puzzledb import keys
from puzzledb.bfs import select
from puzzledb.errors import ChoiceError
from puzzledb.puzzles.permutation.puzzle import PermutationPuzzle
from puzzledb.puzzles.permutation.rows import component_rows, component_values, parity_rows
from puzzledb.query.database import DepthDatabase
from puzzledb.store.layer import Layer
from puzzledb.store.layers import LayerStore, write_bytes
from puzzledb.store.parts import PartedLayer
from wide_definitions import (
    cut_definition,
    identical_definition,
    many_slots_definition,
    wide_definition,
)

EXAMPLES = ROOT / "workflow/puzzledb/puzzles/permutation/examples"
# positions of the 3x3x3 by depth in the half-turn metric (the published table)
CUBE3_HTM = [1, 18, 243, 3_240, 43_239, 574_908, 7_618_438, 100_803_036, 1_332_343_288]


def frontier_build(tmp_path, puzzle, segments=8, job_states=200, depth_limit=None):
    """The frontier search of the puzzle in tmp_path, its later depths fanned out into
    expand and merge jobs (layers in parts) by a small job_states, every position a key
    (no symmetry: tests/test_symmetry*.py search by classes); its store."""
    chosen = plan(puzzle, memory_mb=64, shards=segments, depth_limit=depth_limit,
                  job_states=job_states, symmetry="none")
    assert chosen.mode == select.FRONTIER
    select.build(puzzle, tmp_path / "layers", tmp_path / "work", chosen, threads=2,
                 progress=False, log=lambda m: None)
    return LayerStore(tmp_path / "layers", puzzle)


@pytest.fixture(scope="module")
def plain2():
    """The plain BFS of the two-word definition: (sets, layers of states)."""
    sets, layers, _ = bfs_plain(wide_definition(2), "htm")
    return sets, layers


def assert_layers_are_the_plain_bfs(store, puzzle, plain):
    sets, expected, *wild = plain
    wild = wild[0] if wild else None
    manifest = store.manifest()
    assert [layer["count"] for layer in manifest["layers"]] == [len(x) for x in expected]
    for depth, states in enumerate(expected):
        with store.open_layer(depth) as layer:
            stored = layer.ranks()
            assert stored.shape == (len(states), puzzle.key_words)
            assert keys.ascending(stored)
            assert sorted(puzzle.decode(row) for row in stored) == sorted(
                board_text(s, sets, wild) for s in states)
        store.check_layer(depth)


def test_a_rank_space_past_two_to_the_63_is_read_as_keys_of_two_words():
    puzzle = PermutationPuzzle("wide2", text=wide_definition(2))
    assert puzzle.size >= 2**63 and puzzle.key_words == 2
    assert all(n <= 2**63 for n in puzzle.key_bounds())
    board = puzzle.goal.copy()
    for name, base, power in puzzle.moves[:3]:
        for _ in range(power):
            board = puzzle.apply(board, puzzle.spec.moves[base])
    rank = puzzle.rank(board)
    assert rank >= 2**64  # word 0 is not zero: the key is past one word
    assert np.array_equal(puzzle.unrank(rank), board)
    assert keys.key_ints(puzzle.key_array([rank])) == [rank]


@pytest.mark.slow  # the frontier's kernels for keys of two words: 75 s of CPU on a fresh cache
def test_keys_of_two_words_built_in_parts_are_the_layers_of_a_plain_bfs(tmp_path, plain2):
    puzzle = PermutationPuzzle("wide2", text=wide_definition(2))
    store = frontier_build(tmp_path, puzzle)
    assert_layers_are_the_plain_bfs(store, puzzle, plain2)
    parted = [d for d in range(12) if isinstance(store.open_layer(d), PartedLayer)]
    assert parted, "no layer was fanned out into parts"


@pytest.mark.slow
def test_keys_of_three_words_in_the_quarter_turn_metric_are_the_layers_of_a_plain_bfs(
        tmp_path):
    text = wide_definition(3)
    puzzle = PermutationPuzzle("wide3", text=text, metric="qtm")
    assert puzzle.key_words == 3 and puzzle.layout.split is not None
    sets, layers, _ = bfs_plain(text, "qtm")
    assert_layers_are_the_plain_bfs(frontier_build(tmp_path, puzzle), puzzle, (sets, layers))


def test_a_permutation_past_a_word_is_cut_into_parts_and_its_layers_are_a_plain_bfs(
        tmp_path):
    text = cut_definition()
    puzzle = PermutationPuzzle("cut", text=text)
    (big,) = puzzle.components
    assert big.count == factorial(24) // 2 > 2**63 and big.cuts == (15,)
    assert puzzle.key_bounds() == [factorial(24) // factorial(9), factorial(9) // 2]
    sets, layers, _ = bfs_plain(text, "htm")
    assert_layers_are_the_plain_bfs(frontier_build(tmp_path, puzzle, job_states=50), puzzle,
                                    (sets, layers))


def test_the_parts_of_a_permutation_read_back_as_its_lexicographic_rank():
    puzzle = PermutationPuzzle("cut", text=cut_definition())
    (big,) = puzzle.components
    rng = np.random.default_rng(5)
    for _ in range(50):
        row = rng.permutation(24)
        if parity_rows(row[None, :])[0] != big.parity:
            row[[22, 23]] = row[[23, 22]]
        value = component_values(big, row[None, :], row[None, :])[0]
        assert value == lexicographic_rank(row.tolist()) // 2
        assert np.array_equal(component_rows(big, [value])[0][0], row)
        key = puzzle.layout.place(big, value)
        assert puzzle.layout.value(big, key) == value


def lexicographic_rank(row):
    """The rank of a permutation of 0..n-1 among all of them in lexicographic order."""
    n = len(row)
    return sum(sum(v < row[i] for v in row[i + 1:]) * factorial(n - 1 - i) for i in range(n))


def test_identical_pieces_and_orientations_past_a_word_are_cut_into_parts_and_their_layers_are_a_plain_bfs(
        tmp_path):
    text = identical_definition()
    puzzle = PermutationPuzzle("identical", text=text)
    assert [(c.kind, c.count > 2**63, bool(c.cuts)) for c in puzzle.components] == [
        ("multiset", True, True), ("wild", True, True), ("ori", True, True)]
    assert_layers_are_the_plain_bfs(frontier_build(tmp_path, puzzle, job_states=50), puzzle,
                                    bfs_plain(text, "htm"))


def test_an_arrangement_of_more_than_64_slots_builds_the_prefix_of_a_plain_bfs(tmp_path):
    text = many_slots_definition()
    puzzle = PermutationPuzzle("many", text=text)
    (many,) = puzzle.components
    assert len(many.slots) == 72 and len(many.cuts) == 3
    sets, layers, _ = bfs_plain(text, "htm", depth_limit=3)
    assert_layers_are_the_plain_bfs(frontier_build(tmp_path, puzzle, depth_limit=3), puzzle,
                                    (sets, layers))


def plain_value(c, classes, oris):
    """A factor's value from one row of its slots, by enumeration: class by class (but the
    last), the number of ways to place it among the slots the classes before it left that
    come after its own in lexicographic order, a digit of radix the number of ways; then the
    orientations of the pieces whose twist counts, most significant first."""
    value = 0
    if c.kind != "ori":
        for v, count in enumerate(c.counts[:-1]):
            pool = [slot for slot in range(len(classes)) if classes[slot] >= v]
            mine = tuple(i for i, slot in enumerate(pool) if classes[slot] == v)
            later = sum(s > mine for s in combinations(range(len(pool)), count))
            value = value * comb(len(pool), count) + later
    named = [o for x, o in zip(classes, oris) if c.kind == "ori" or not c.wild[x]] \
        if c.kind != "multiset" else []
    for o in named[:c.digits]:
        value = value * c.k + o
    return value


def test_the_parts_of_identical_pieces_and_orientations_read_back_as_their_plain_value():
    """The digits of identical pieces and orientations, a number of any size, against their
    plain value, and back; the keys of their ranks exact and in the ranks' order."""
    puzzle = PermutationPuzzle("identical", text=identical_definition())
    rng = np.random.default_rng(7)
    for c in puzzle.components:
        values = sorted(int(x) * c.count // 2**62 for x in rng.integers(0, 2**62, 40))
        classes, oris = component_rows(c, values)
        for value, cls, ori in zip(values, classes, oris):
            assert plain_value(c, cls.tolist(), ori.tolist()) == value
            assert component_values(c, cls[None, :], ori[None, :])[0] == value
        placed = [puzzle.layout.place(c, v) for v in values]
        assert [puzzle.layout.value(c, rank) for rank in placed] == values
        rows = puzzle.key_array(sorted(placed))
        assert keys.ascending(rows) and keys.key_ints(rows) == sorted(placed)


def plain_solutions(state, depth, layers, sets):
    """The optimal move sequences from a state of layers[depth] to the goal, counted in
    plain Python: every power of a move (htm) into the layer below, summed down."""
    _, _, moves, _, _ = read_plain(wide_definition(2))
    ways = {state: 1}
    for d in range(depth, 0, -1):
        following = {}
        for s, w in ways.items():
            for move in moves:
                cycle = [apply_plain(s, move, sets)]
                while cycle[-1] != s:
                    cycle.append(apply_plain(cycle[-1], move, sets))
                for near in cycle[:-1]:
                    if near in layers[d - 1]:
                        following[near] = following.get(near, 0) + w
        ways = following
    return sum(ways.values())


def test_a_prefix_of_keys_of_two_words_answers_distance_solve_count_and_samples(tmp_path,
                                                                              plain2):
    puzzle = PermutationPuzzle("wide2", text=wide_definition(2))
    frontier_build(tmp_path, puzzle, depth_limit=6)
    sets, expected = plain2
    with DepthDatabase(puzzle, tmp_path / "layers") as db:
        assert db.partial and db.max_depth == 6
        for depth in (0, 3, 6):
            for state in list(expected[depth])[:5]:
                board = board_text(state, sets)
                assert db.distance(board) == depth
                path = db.solve(board)
                assert len(path) == depth + 1 and path[-1] == puzzle.format(puzzle.goal)
                assert len(puzzle.route_moves(db.solution(board))) == depth
        for state in list(expected[5])[:5]:
            assert db.count_solutions(board_text(state, sets)) == \
                plain_solutions(state, 5, expected, sets)
        far = board_text(next(iter(expected[9])), sets)
        assert db.distance(far) is None  # beyond the prefix
        sample = db.boards_at(5, count=7, seed=1)
        assert len(sample) == 7 and set(sample) <= {board_text(s, sets) for s in expected[5]}


WRITE_KEYS = """
import sys
import numpy as np
sys.path[:0] = sys.argv[1:3]
from merge_memory import reset_peak, status
from puzzledb.store.layers import write_ranks

def blocks(n):  # keys of two words, in blocks of 2^18 rows (4 MiB)
    for start in range(0, n, 1 << 18):
        a = np.arange(start, min(n, start + (1 << 18)), dtype=np.uint64)
        yield np.stack([a, a], axis=1)

write_ranks(sys.argv[3], blocks(1 << 17), 1 << 17, {}, "", "warm-up", words=2)
baseline = reset_peak()  # the shuffle kernel loaded, the threads started
write_ranks(sys.argv[3], blocks(1 << 24), 1 << 24, dict(puzzle="keys", depth=0), "",
            "a layer", words=2)
print(status("VmHWM") - baseline)
"""


def test_a_layer_of_keys_of_two_words_is_written_keeping_none_of_them(tmp_path):
    """Issue 56: the writer's index took each chunk's first key as a view of its row, which
    kept the whole chunk alive: 16 bytes held for every key of two words written.  Written
    in a fresh process, 2^24 keys (256 MiB) grow its resident set's peak by no more than
    the writer's chunks in flight (write_bytes) and two of the blocks it is given."""
    import puzzledb

    done = subprocess.run([sys.executable, "-c", WRITE_KEYS, str(ROOT / "tests"),
                           str(Path(puzzledb.__file__).parents[1]), str(tmp_path / "keys.h5")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert 0 < int(done.stdout) <= write_bytes(2) + 2 * (1 << 18) * 16
    with Layer(tmp_path / "keys.h5") as layer:
        assert layer.count == 1 << 24 and layer.ranks(layer.count - 1).tolist() == [
            [(1 << 24) - 1] * 2]


def test_a_sparse_space_of_wide_keys_goes_to_the_frontier_search_unlimited():
    puzzle = PermutationPuzzle("wide2", text=wide_definition(2))
    assert plan(puzzle, memory_mb=64).mode == select.FRONTIER


def test_the_3x3x3_needs_a_depth_limit_said_in_one_line_and_reads_as_two_words():
    puzzle = PermutationPuzzle("cube3", file=EXAMPLES / "3x3x3.tws")
    assert puzzle.key_words == 2 and puzzle.size == 86_504_006_548_979_712_000
    assert puzzle.reachable_bound() == 43_252_003_274_489_856_000  # the cube group's order
    with pytest.raises(ChoiceError, match="keys of 2 words .* give it a depth_limit"):
        plan(puzzle, memory_mb=20_000)
    assert plan(puzzle, memory_mb=64, depth_limit=3).mode == select.FRONTIER


def test_the_3x3x3_prefix_to_depth_5_is_the_published_table_and_answers_queries(tmp_path):
    puzzle = PermutationPuzzle("cube3", file=EXAMPLES / "3x3x3.tws")
    store = frontier_build(tmp_path, puzzle, segments=16, job_states=50_000, depth_limit=5)
    assert [x["count"] for x in store.manifest()["layers"]] == CUBE3_HTM[:6]
    with DepthDatabase(puzzle, tmp_path / "layers") as db:
        board = puzzle.decode(db.positions_at(5, count=1, seed=3)[0])
        assert db.distance(board) == 5
        moves = puzzle.route_moves(db.solution(board))
        assert len(moves) == 5 and all(m.rstrip("2'") in "UDLRFB" for m in moves)


@pytest.mark.slow
def test_a_wide_build_killed_mid_run_resumes_to_the_database_a_clean_build_writes(tmp_path):
    """kill -9 of `puzzledb build` of keys of two words once its layers reach depth 6, then
    the same command again: every layer and part file, and the manifest's counts and
    CRC-32s, as a build never stopped wrote them."""
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({"define": {"wide2": {"family": "permutation",
                                                           "text": wide_definition(2)}}}))

    def command(results):
        return [sys.executable, "-m", "puzzledb.cli", "--config", str(config), "--results",
                str(results), "build", "wide2", "--shards", "4", "--job-states", "40",
                "--threads", "1"]

    clean = tmp_path / "clean"
    subprocess.run(command(clean), check=True, capture_output=True)
    killed = tmp_path / "killed"
    layers = killed / "wide2" / "layers"
    run = subprocess.Popen(command(killed), stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while not (layers / "depth_006.h5").exists():
        assert run.poll() is None and time.time() < deadline, "the build ended before depth 6"
        time.sleep(0.002)
    run.send_signal(signal.SIGKILL)
    run.wait()
    assert not (layers / "manifest.json").exists()
    subprocess.run(command(killed), check=True, capture_output=True)
    ours, theirs = (json.loads((r / "wide2" / "layers" / "manifest.json").read_text())
                    for r in (killed, clean))
    assert [(x["count"], x["crc32"]) for x in ours["layers"]] == \
        [(x["count"], x["crc32"]) for x in theirs["layers"]]
    # every file read back whole against the definition it was searched under (its classes:
    # symmetry is on by default), as `puzzledb verify` does
    verified = subprocess.run([*command(killed)[:7], "verify", "wide2"], capture_output=True,
                              text=True)
    assert verified.returncode == 0, verified.stderr


def test_a_piece_set_cut_into_parts_is_searched_without_symmetry():
    """The class kernels take each piece set's value whole: a definition whose set is cut
    across the key's words (the megaminx's edges) is searched position by position, where
    building its class tables failed before."""
    puzzle = PermutationPuzzle("cut", text=cut_definition())
    assert puzzle.symmetry_group() is None
    assert "cut into parts" in puzzle._symmetry.describe()
