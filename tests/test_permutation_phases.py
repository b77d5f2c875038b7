"""Several solved states and start patterns of permutation puzzles (docs/permutation.md,
"Phases"): the goal set and the start distribution checked against plain Python, the 24
orientations of the cube against the published 2x2x2 table, and the workflow's files."""

import csv

import numpy as np
import pytest

from conftest import run_snakemake

from plain_permutation import apply_plain, bfs_plain, board_text, read_plain
from puzzledb.errors import DefinitionError
from puzzledb.puzzles.permutation.puzzle import PermutationPuzzle
from puzzledb.query.database import DepthDatabase
from puzzledb.report import analysis
from test_permutation import CUBE2_HTM, CUBE2_RU, EXAMPLES, TOY, build_into, positions_by_depth

ORIENTATIONS = [f"{r} {y}".strip() for r in ("", "x", "x2", "x'", "z", "z'")
                for y in ("", "y", "y2", "y'")]


def matches(board, pattern):
    """Whether a board string matches a pattern string, token by token (? matches all)."""
    return all(p in ("?", b) for b, p in zip(board.split(), pattern.split()))


def test_several_solved_states_are_the_first_layer_of_the_search(tmp_path):
    puzzle = PermutationPuzzle("toy", text=TOY, goal=["", "X", "Y Y"])
    sets, start, moves, _, _ = read_plain(TOY)
    x, y = moves
    goals = {start, apply_plain(start, x, sets), apply_plain(apply_plain(start, y, sets), y, sets)}
    _, expected, _ = bfs_plain(TOY, "htm", goals)
    layers = build_into(tmp_path, puzzle)
    assert [x.size for x in layers] == [len(x) for x in expected]
    for ranks, states in zip(layers, expected):
        assert sorted(puzzle.decode(r) for r in ranks) == sorted(board_text(s, sets)
                                                                 for s in states)


def test_a_goal_pattern_is_every_state_that_matches_it():
    pattern = "A ? ? 3 4 / ? ? 0 0 | B 1 2 3"
    puzzle = PermutationPuzzle("toy", text=TOY, goal=pattern)
    every = [puzzle.decode(r) for r in range(puzzle.size)]
    expected = [r for r, board in enumerate(every) if matches(board, pattern)]
    assert puzzle.goal_ranks().tolist() == expected and len(expected) == 2 * 4


def test_a_goal_that_matches_nothing_is_one_line_naming_the_goal():
    with pytest.raises(DefinitionError, match="goal") as err:
        PermutationPuzzle("toy", text=TOY, goal="A 1 2 3 4 / 1 0 0 0 | B 2 1 3")
    assert "\n" not in str(err.value)


def test_the_start_distribution_counts_the_start_patterns_positions_by_depth(tmp_path):
    pattern = "A ? ? 3 4 / ? ? 0 ? | B 1 ? ?"
    puzzle = PermutationPuzzle("toy", text=TOY, start=pattern)
    layers = build_into(tmp_path, puzzle)
    counts = [sum(matches(puzzle.decode(r), pattern) for r in layer.tolist())
              for layer in layers]
    while counts[-1] == 0:
        counts.pop()
    with DepthDatabase(puzzle, tmp_path / "toy" / "layers") as db:
        rows = analysis.start_distribution(db)
    assert [count for _, count, _ in rows] == counts
    assert rows[-1][2] == sum(counts) and 0 < sum(counts) < sum(x.size for x in layers)


def test_the_deepest_positions_as_move_sequences_are_boards_of_the_deepest_depth(tmp_path):
    puzzle = PermutationPuzzle("ru", text=CUBE2_RU)
    layers = build_into(tmp_path, puzzle)
    with DepthDatabase(puzzle, tmp_path / "ru" / "layers") as db:
        lines = analysis.antipode_moves(db)
        assert len(lines) == min(layers[-1].size, analysis.ANTIPODE_ROUTES)
        for line, rank in zip(lines, layers[-1].tolist()):
            assert len(line.split()) == len(layers) - 1
            assert puzzle.board_rank(line) == rank


@pytest.mark.slow
def test_the_24_orientations_of_the_cube_make_layers_24_times_the_2x2x2s(tmp_path):
    puzzle = PermutationPuzzle("cube2-any", file=str(EXAMPLES / "corners.tws"),
                               goal=ORIENTATIONS)
    assert puzzle.goal_ranks().size == 24
    assert positions_by_depth(tmp_path, puzzle) == [24 * c for c in CUBE2_HTM]
    assert np.unique(puzzle.goal_ranks()).size == 24


@pytest.mark.slow
def test_the_workflow_writes_the_last_layers_phase_table_and_the_antipodes_as_moves(tmp_path):
    results = tmp_path / "results"
    run_snakemake(tmp_path, {"puzzles": ["cube2-ll"], "results": str(results), "define": {
        "cube2-ll": {"family": "permutation", "file": str(EXAMPLES / "2x2x2.tws"),
                     "start": "CORNERS ? ? ? ? 5 6 7 8 / ? ? ? ? 0 0 0 0"}}})
    rows = list(csv.DictReader(open(results / "cube2-ll" / "start_distribution.csv")))
    assert int(rows[-1]["cumulative"]) == 24 * 27  # the top layer: 4! places, 3^3 twists
    assert int(rows[-1]["depth"]) == 11 and int(rows[0]["count"]) == 1
    lines = (results / "cube2-ll" / "antipodes_moves.txt").read_text().splitlines()
    assert len(lines) == 1000  # the first 1,000 of the 2,644 at depth 11
    puzzle = PermutationPuzzle("c", file=str(EXAMPLES / "2x2x2.tws"))
    boards = (results / "cube2-ll" / "antipodes.txt").read_text().splitlines()
    for line, board in zip(lines[:20], boards):
        assert len(line.split()) == 11
        assert puzzle.format(puzzle.parse(line)) == board
