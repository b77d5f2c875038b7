"""Symmetry reduction of permutation puzzles (issue 42): the group found from a definition,
and the classes it makes, against a plain-Python search whose classes come from the
cube's rotations and reflections applied as matrices (plain_symmetry.py)."""

import numpy as np
import pytest

from building import plan
from conftest import ROOT
from plain_permutation import bfs_plain, board_text, read_plain
from plain_symmetry import U_LAYER, cube_text, layers_with_classes
from test_wide_keys import CUBE3_HTM
from puzzledb.bfs import select
from puzzledb.bfs.frontier.search import Frontier
from puzzledb.puzzles.permutation.puzzle import PermutationPuzzle
from puzzledb.puzzles.symmetric import Classes
from puzzledb.query.database import DepthDatabase
from puzzledb.report import analysis
from puzzledb.store.layers import LayerStore

EXAMPLES = ROOT / "workflow/puzzledb/puzzles/permutation/examples"

VARIANTS = {  # name: (labels, twists, symmetries found, inversion)
    "distinct": ((1, 2, 3, 4, 5, 6, 7, 8), None, 48, True),
    # the U layer's corners alike and the D layer's alike: the 16 symmetries that keep the
    # U-D axis, half of them exchanging the two kinds (twsearch #113 counted these wrong)
    "identical": (U_LAYER, None, 16, False),
    # the R layer's alike, their twists counted from their U or D sticker: the 8 that keep
    # the R-L axis and the U-D stickers
    "identical-sideways": ((1, 1, 1, 1, 2, 2, 2, 2), None, 8, False),
    # every twist a `?`: positions are the corners' places alone
    "wild": ((1, 2, 3, 4, 5, 6, 7, 8), ["?"] * 8, 48, False),
}


def geometric(variant):
    labels, twists, _, _ = VARIANTS[variant]
    text = cube_text(labels, twists)
    return text, PermutationPuzzle(f"cube-{variant}", text=text)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_geometric_2x2x2_has_the_cubes_symmetries_that_keep_its_solved_state(variant):
    _, puzzle = geometric(variant)
    group = puzzle.symmetry_group()
    _, _, symmetries, inversion = VARIANTS[variant]
    assert (len(group.maps), group.inversion) == (symmetries, inversion)
    assert group.kinds()["rotation"] == group.kinds()["mirror"] == symmetries // 2


def test_the_2x2x2_with_a_fixed_corner_has_the_six_symmetries_of_that_corner():
    puzzle = PermutationPuzzle("c", file=str(EXAMPLES / "2x2x2.tws"))
    group = puzzle.symmetry_group()
    assert (len(group.maps), group.inversion, group.order) == (6, True, 12)


def classes_by_depth(puzzle, depth):
    """Layers of canonical keys found by a BFS over the Classes puzzle's own neighbours."""
    classes = Classes(puzzle, puzzle.symmetry_group())
    layer = set(int(k) for k in classes.goal_ranks())
    seen, out = set(layer), [layer]
    for _ in range(depth):
        following = {n for key in layer for n in classes.neighbours(key)} - seen
        seen |= following
        out.append(following)
        layer = following
    return classes, out


# identical and wild pieces compile kernels of their own (a lead table without a lead factor;
# wild pieces): about 70 s and 340 s of CPU on a fresh cache, so those run in the slow tier
@pytest.mark.parametrize("variant", [
    pytest.param(v, marks=pytest.mark.slow) if v.startswith(("identical", "wild")) else v
    for v in sorted(VARIANTS)])
def test_classes_and_positions_by_depth_equal_a_plain_bfs_with_explicit_symmetry(variant):
    text, puzzle = geometric(variant)
    _, _, _, inversion = VARIANTS[variant]
    reference, _ = layers_with_classes(text, 3, inversion, wild=variant == "wild")
    classes, layers = classes_by_depth(puzzle, 3)
    sets, _, _, _, wild = read_plain(text)
    for (positions, expected), keys in zip(reference, layers):
        found = np.array(sorted(keys), dtype=np.uint64)
        assert found.size == len(expected)
        assert int(classes.class_sizes(found).sum()) == len(positions)
        # the same partition: a reference class's positions share one key, and the keys of
        # two classes differ
        key_of = {}
        for cls in expected:
            ranks = [puzzle.rank(puzzle.parse(board_text(s, sets, wild))) for s in cls]
            canonical, _ = classes.canonical(np.array(ranks, dtype=np.uint64))
            assert len(set(canonical.tolist())) == 1
            key_of[cls] = int(canonical[0])
        assert sorted(key_of.values()) == found.tolist()


# The 2x2x2 turning all six faces (corners alone: 88,179,840 positions), by depth.
CUBE2_SIX_FACES = [1, 18, 243, 2874, 28000, 205416, 1168516]


def test_the_frontier_search_stores_one_key_a_class_and_weighs_each_layer(tmp_path):
    """The engine, unchanged, searches the class puzzle: its layers are the classes the
    plain BFS over the class puzzle finds, and the store sums their sizes beside them."""
    _, puzzle = geometric("distinct")
    classes, expected = classes_by_depth(puzzle, 5)
    manifest = Frontier(classes, tmp_path / "layers", tmp_path / "frontier", 8, 500,
                        depth_limit=5).build(log=lambda m: None)
    assert [layer["positions"] for layer in manifest["layers"]] == CUBE2_SIX_FACES[:6]
    assert manifest["positions"] == sum(CUBE2_SIX_FACES[:6])
    store = LayerStore(tmp_path / "layers", classes)
    for depth, keys in enumerate(expected):
        with store.open_layer(depth) as layer:
            assert layer.ranks().tolist() == sorted(keys)
            assert layer.positions == CUBE2_SIX_FACES[depth]
    assert store.verify().layers == 6


@pytest.mark.slow  # the 3x3x3's class kernels: about 240 s of CPU on a fresh kernel cache
def test_the_3x3x3_by_classes_to_depth_6_is_the_published_table_and_answers_queries(tmp_path):
    """The 3x3x3 (keys of two words) planned as the workflow plans it: up to its 48
    symmetries and inversion by default; the positions its classes stand for are the
    published table, and a position found by its class is solved by its own moves."""
    puzzle = PermutationPuzzle("cube3", file=EXAMPLES / "3x3x3.tws")
    chosen = plan(puzzle, memory_mb=64, depth_limit=6, job_states=50_000)
    assert chosen.symmetric and chosen.mode == select.FRONTIER
    select.build(puzzle, tmp_path / "layers", tmp_path / "work", chosen, threads=2,
                 progress=False, log=lambda m: None)
    with DepthDatabase(puzzle, tmp_path / "layers") as db:
        assert [row[1] for row in db.summary()] == CUBE3_HTM[:7]
        assert db.counts == [1, 2, 8, 48, 509, 6198, 80178]
        board = puzzle.format(puzzle.parse("R U F' D2 L B'"))
        assert db.distance(board) == 6
        boards = db.solve(board)
        assert len(boards) == 7 and boards[-1] == puzzle.format(puzzle.goal)
        assert len(puzzle.route_moves(db.solution(board))) == 6
        assert db.count_solutions(puzzle.format(puzzle.parse("R L U2"))) == 2  # and L R U2


def test_a_start_patterns_distribution_by_classes_counts_its_positions(tmp_path):
    """The 2x2x2 turning six faces, searched up to its 48 symmetries and inversion to depth
    4, with a start pattern no symmetry keeps (one corner solved, one placed but twisted
    anyhow, the rest anywhere): its positions by depth are those of a plain BFS of every
    position that match it, not the classes' keys that do."""
    text = cube_text()
    pattern = "CORNERS 1 ? ? 4 ? ? ? ? / 0 ? ? ? ? ? ? ?"
    puzzle = PermutationPuzzle("cube2-start", text=text, start=pattern)
    chosen = plan(puzzle, memory_mb=64, shards=8, depth_limit=4, job_states=5_000)
    assert chosen.symmetric
    select.build(puzzle, tmp_path / "layers", tmp_path / "work", chosen, threads=2,
                 progress=False, log=lambda m: None)
    sets, layers, _ = bfs_plain(text, "htm", depth_limit=4)
    counts = [sum(all(p in ("?", b) for b, p in zip(board_text(s, sets).split(),
                                                    pattern.split())) for s in layer)
              for layer in layers]
    with DepthDatabase(puzzle, tmp_path / "layers") as db:
        assert db.symmetric
        rows = analysis.start_distribution(db)
        keys_matching = [int(np.count_nonzero(puzzle.start_positions().matches(
            db.positions_at(d)))) for d in range(5)]
    assert [row[1] for row in rows] == counts and rows[-1][2] == sum(counts)
    assert [row[1] for row in rows] != keys_matching  # the bug: keys counted, not positions
    assert all(0 < row[3] <= row[1] for row in rows[1:])  # classes holding one

