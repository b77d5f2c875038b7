"""A permutation puzzle of one orbit (the 2x2x2's corners turned by six faces) up to its
symmetries: its canonical neighbours and class sizes by programs (orbit.py) against the
generic kernel's, and its in-memory search by classes against a plain-Python search (a
file of its own, so that the test runner gives it a worker beside test_symmetry.py's)."""

import numpy as np
import pytest

from building import plan
from plain_permutation import bfs_plain, board_text
from test_symmetry import CUBE2_SIX_FACES, classes_by_depth, geometric
from puzzledb.bfs import select
from puzzledb.puzzles.symmetric import Classes
from puzzledb.query.database import DepthDatabase


@pytest.mark.slow
def test_a_puzzle_of_one_orbit_is_canonicalised_by_programs_as_by_its_images():
    """The 2x2x2 turning six faces is one orbit (its corners' places times their twists):
    its tables carry programs (orbit.py), and the neighbours, class sizes and canonical keys
    of any position they give are the generic kernel's, key for key, in the same order; a
    puzzle of identical pieces has none.  (Slow tier: it compiles both kernels for a second type of tables; the default
    tier's searches by programs are checked against the plain-Python one, below and in
    test_symmetry.py.)"""
    from puzzledb import compiled
    from puzzledb.puzzles.permutation.symmetry_kernels import canonical_keys, class_sizes
    from puzzledb.puzzles.permutation.orbit import placeholders

    _, puzzle = geometric("distinct")
    group = puzzle.symmetry_group()
    classes = Classes(puzzle, group)
    programs = group.tables()
    images = programs._replace(**placeholders())  # the generic kernel's: no programs
    assert programs.fo_program.dtype == np.uint16 and images.fo_program.dtype == np.uint8
    ranks = np.random.default_rng(7).integers(0, puzzle.size, 3000).astype(np.uint64)
    keys = np.unique(classes.canonical(ranks)[0]).astype(np.int64)
    assert len(keys) > 2500
    by_programs, by_images = (compiled.neighbours_of_many(
        keys, 0, classes.max_moves, classes.work_size, t) for t in (programs, images))
    assert len(by_programs) == len(keys) * classes.max_moves
    assert by_programs.tolist() == by_images.tolist()
    sizes = [np.empty(len(keys), np.int64) for _ in range(2)]
    for t, out in zip((programs, images), sizes):
        class_sizes(keys, t, out)
    assert sizes[0].tolist() == sizes[1].tolist() and set(sizes[0].tolist()) > {96, 48}
    found = [(np.empty_like(ranks), np.empty(len(ranks), np.int64)) for _ in range(2)]
    for t, (out, stabilisers) in zip((programs, images), found):
        canonical_keys(ranks, t, out, stabilisers)
    assert found[0][0].tolist() == found[1][0].tolist()
    assert found[0][1].tolist() == found[1][1].tolist() and set(found[0][1].tolist()) > {1}
    _, identical = geometric("identical")
    assert identical.symmetry_group().tables().fo_program.dtype == np.uint8


def test_a_puzzle_of_one_orbit_is_planned_by_classes_in_memory():
    """The 2x2x2 turning six faces, planned as `puzzledb build` plans it: in memory, and up
    to its 48 symmetries and inversion (its programs make a class little dearer than a
    position); `symmetry: none` and a store without layers search every position, and a
    puzzle of identical pieces goes in memory position by position."""
    _, puzzle = geometric("distinct")
    chosen = plan(puzzle, memory_mb=64, depth_limit=5)
    assert chosen.mode == select.IN_MEMORY and chosen.symmetric
    assert not plan(puzzle, depth_limit=5, symmetry="none").symmetric
    assert not plan(puzzle, store="counts").symmetric
    _, identical = geometric("identical")
    assert not plan(identical, memory_mb=64).symmetric


@pytest.mark.slow
def test_the_in_memory_search_of_a_puzzle_of_one_orbit_goes_by_classes(tmp_path):
    """That search, built: its layers are the classes a plain BFS over the class puzzle
    finds, weighed in positions, and a position is found by its class.  (Slow tier: it
    compiles the in-memory engine's kernels for the tables with programs; the default
    tier's frontier search of the same puzzle goes through the programs,
    test_symmetry.py.)"""
    text, puzzle = geometric("distinct")
    chosen = plan(puzzle, memory_mb=64, depth_limit=5)
    log = []
    select.build(puzzle, tmp_path / "layers", tmp_path / "work", chosen, threads=2,
                 progress=True, log=log.append)
    assert "depth 5: 205,416 positions in 2,395 classes" in "\n".join(log)
    _, expected = classes_by_depth(puzzle, 5)
    with DepthDatabase(puzzle, tmp_path / "layers") as db:
        assert db.symmetric
        assert [row[1] for row in db.summary()] == CUBE2_SIX_FACES[:6]
        for depth, keys in enumerate(expected):
            assert sorted(db.positions_at(depth).tolist()) == sorted(keys)
        sets, layers, _ = bfs_plain(text, "htm", depth_limit=5)
        for state in sorted(layers[5])[:: len(layers[5]) // 7]:  # any member of a class
            board = board_text(state, sets)
            assert db.distance(board) == 5
            boards = db.solve(board)
            assert len(boards) == 6 and boards[-1] == puzzle.format(puzzle.goal)
