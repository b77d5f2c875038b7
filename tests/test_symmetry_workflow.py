"""Symmetry from the workflow (issue 42): a 2x2x2 we write (plain_symmetry.py) built by
snakemake with the frontier search, once up to its symmetries (the default) and once with
`symmetry: none`; summary.csv, `puzzledb info` and the queries through the class, against
a plain-Python BFS whose classes come from the cube's 48 matrices and inversion."""

import csv

import pytest

from conftest import puzzledb_cli, run_snakemake
from plain_permutation import board_text, read_plain
from plain_symmetry import cube_text, layers_with_classes
from puzzledb import puzzles
from puzzledb.config import check_config
from puzzledb.query.database import DepthDatabase

DEPTH = 3


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(workdir, config, results) of one run building `cube` up to symmetry and
    `cube-plain` without, both sharded, to DEPTH."""
    workdir = tmp_path_factory.mktemp("symmetric")
    (workdir / "cube.txt").write_text(cube_text())
    spec = {"family": "permutation", "file": str(workdir / "cube.txt")}
    config = {"puzzles": ["cube", "cube-plain"], "results": str(workdir / "results"),
              "define": {"cube": spec, "cube-plain": spec},
              "shards": {"cube": 2, "cube-plain": 2},
              "depth_limit": {"cube": DEPTH, "cube-plain": DEPTH},
              "symmetry": {"cube-plain": "none"}, "job_states": 2000}
    run_snakemake(workdir, config)
    check_config(dict(config))  # registers the defined puzzles in this process
    return workdir, config, workdir / "results"


def summary(results, name):
    with open(results / name / "summary.csv") as f:
        return list(csv.DictReader(f))


def test_summary_gives_positions_and_the_classes_a_plain_bfs_finds(built):
    _, _, results = built
    reference, _ = layers_with_classes(cube_text(), DEPTH, inversion=True)
    rows = summary(results, "cube")
    assert list(rows[0]) == ["depth", "count", "cumulative", "classes"]
    assert [int(r["count"]) for r in rows] == [len(p) for p, _ in reference]
    assert [int(r["classes"]) for r in rows] == [len(c) for _, c in reference]
    assert int(rows[-1]["cumulative"]) == sum(len(p) for p, _ in reference)
    plain = summary(results, "cube-plain")
    assert list(plain[0]) == ["depth", "count", "cumulative"]
    assert [r["count"] for r in plain] == [r["count"] for r in rows]


def test_info_names_the_group_found_and_its_order(built):
    workdir, _, results = built
    reference, _ = layers_with_classes(cube_text(), DEPTH, inversion=True)
    positions, classes = (sum(len(layer[i]) for layer in reference) for i in (0, 1))
    out = puzzledb_cli("--config", str(workdir / "config.yaml"), "--results", str(results),
                       "info", "cube").stdout
    assert ("symmetry      48 symmetries (24 rotations, 24 mirrors), found from the "
            "definition, times inversion: classes of up to 96 positions") in out
    assert f"database      {positions:,} positions in {classes:,} classes" in out


def test_distance_and_solve_walk_real_positions_found_by_their_class(built):
    _, _, results = built
    text = cube_text()
    sets, _, moves, _, wild = read_plain(text)
    reference, _ = layers_with_classes(text, DEPTH, inversion=True)
    puzzle = puzzles.get("cube")
    with DepthDatabase(puzzle, results / "cube" / "layers") as db:
        assert db.symmetric
        for depth, (positions, _) in enumerate(reference):
            for state in sorted(positions)[:: max(1, len(positions) // 20)]:
                board = board_text(state, sets, wild)
                assert db.distance(board) == depth
                route = db.solution(board)
                assert len(route) == depth + 1 and route[0] == puzzle.rank(puzzle.parse(board))
                for a, b in zip(route, route[1:]):  # each step a legal move of the puzzle
                    assert b in puzzle.neighbours(a)
                assert route[-1] == int(puzzle.goal_ranks()[0])
