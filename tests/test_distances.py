"""A distances database (store: distances): every position's depth kept as a label of two
bits, from which distance, solve, solve --batch and count answer what the layer store
answers; built for every family the in-memory engine builds, checkpointed and resumed,
its table checked by verify."""

import json
import shutil

import numpy as np
import pytest

from building import build_in_memory, plan
from conftest import cli_in_process as cli

from puzzledb import puzzles
from puzzledb.config import check_config
from puzzledb.errors import ConfigError, PuzzleError
from puzzledb.expansion import twobit_words
from puzzledb.query.database import DepthDatabase
from puzzledb.query.problems import parse_problem, replay
from puzzledb.report.analysis import antipodes
from puzzledb.store import DISTANCES, LAYERS
from puzzledb.store.counts import SAMPLE_STATES
from puzzledb.store.direct import BLOCK

PUZZLE = "fifteen-3colour"


def quiet(message):
    pass


def build(puzzle, results, store=LAYERS, **options):
    return build_in_memory(puzzle, results / puzzle.name / "layers", threads=2,
                           progress=False, log=quiet, store=store, **options)


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """fifteen-3colour built twice: into layers/ with store layers, into distances/ with
    store distances (checkpointed after every layer)."""
    root = tmp_path_factory.mktemp("distances")
    puzzle = puzzles.get(PUZZLE)
    build(puzzle, root / "layers")
    report = build(puzzle, root / "distances", DISTANCES, checkpoint_minutes=0)
    return root, report


def databases(root, name=PUZZLE):
    return (DepthDatabase.open(name, root / "layers"),
            DepthDatabase.open(name, root / "distances"))


def test_a_thousand_random_fifteen_3colour_positions_are_as_far_as_the_layer_store_says(both):
    root, report = both
    full, table = databases(root)
    ranks = np.random.default_rng(37).choice(full.puzzle.size, 1000, replace=False)
    with full, table:
        assert table.store.kind == DISTANCES and report.store == DISTANCES
        assert np.array_equal(table.depths(ranks), full.depths(ranks))
        assert table.summary() == full.summary() and table.max_depth == 57
        assert antipodes(table) == antipodes(full) and len(antipodes(table)) == 2


def every_layer_is_labelled_by_its_depth(full, table):
    """Every state of every layer of the layer store holds its depth's residue in the
    table: the whole table checked (the layers cover the space)."""
    walker = table.lookup.walker
    modulus = table.lookup.table.labels.modulus
    for depth in range(full.max_depth + 1):
        for block in full.layer(depth).iter_chunks():
            assert (walker.residues(block) == depth % modulus).all(), depth


def test_every_state_of_every_layer_holds_its_depth_modulo_four(both):
    root, _ = both
    full, table = databases(root)
    with full, table:
        assert table.lookup.table.labels.modulus == 4  # a sliding puzzle: by colour
        every_layer_is_labelled_by_its_depth(full, table)


def test_a_deepest_position_is_solved_in_57_moves_each_a_legal_move_to_the_goal(both):
    root, _ = both
    full, table = databases(root)
    with full, table:
        puzzle = table.puzzle
        for board in antipodes(table):
            route = table.solution(board)
            assert len(route) == 58 and route == full.solution(board)
            for here, there in zip(route, route[1:]):
                assert there in puzzle.neighbours(here)
            assert route[-1] in set(int(g) for g in puzzle.goal_ranks())


def test_the_number_of_optimal_solutions_is_the_layer_stores(both):
    root, _ = both
    full, table = databases(root)
    with full, table:
        for depth in (1, 12, 25, 40):
            for rank in full.positions_at(depth, count=2, seed=depth):
                board = full.puzzle.decode(rank)
                assert table.count_solutions(board) == full.count_solutions(board)


def test_distance_solve_and_count_answer_from_the_table_on_the_command_line(capsys, both):
    root, _ = both
    board = "3033 2331 2211 2211"  # README: 57 moves
    assert cli(capsys, root / "distances", "distance", PUZZLE, board)[:2] == (0, ["57"])
    status, out, err = cli(capsys, root / "distances", "solve", PUZZLE, board)
    assert (status, len(out), err) == (0, 58, [])
    assert out == cli(capsys, root / "layers", "solve", PUZZLE, board)[1]
    assert cli(capsys, root / "distances", "count", PUZZLE, board)[1] == \
        cli(capsys, root / "layers", "count", PUZZLE, board)[1]


def test_solve_batch_answers_every_board_from_the_table_in_input_order(capsys, both,
                                                                       tmp_path):
    root, _ = both
    with DepthDatabase.open(PUZZLE, root / "layers") as full:
        boards = [full.puzzle.decode(r) for depth in (57, 3, 30, 0, 44)
                  for r in full.positions_at(depth, count=1, seed=depth)]
        depths = [int(full.depths([full.puzzle.rank(full.puzzle.parse(b))])[0])
                  for b in boards]
    (tmp_path / "boards.txt").write_text("\n".join(boards) + "\n")
    status, out, err = cli(capsys, root / "distances", "solve", PUZZLE, "--batch",
                           str(tmp_path / "boards.txt"))
    assert status == 0 and len(out) == len(boards) and "distance table" in err[-1]
    puzzle = puzzles.get(PUZZLE)
    for line, board, depth in zip(out, boards, depths):
        problem = parse_problem(line)
        assert problem.board == board.replace(" ", "") and problem.length == depth
        replay(puzzle, problem)  # every step one move, ending at a goal


def test_info_states_the_tables_size_before_the_build(capsys, tmp_path):
    eleven = puzzles.get("eleven")
    status, out, _ = cli(capsys, tmp_path, "info", "eleven")
    expected = (BLOCK + 8 * twobit_words(eleven.size)) / 2**20
    assert status == 0
    assert f"table         {expected:,.1f} MiB on disk with store: distances (depth modulo 4)" \
        in "\n".join(out)


def test_verify_reads_the_table_back_and_names_it_when_a_byte_is_wrong(capsys, both,
                                                                      tmp_path):
    root, _ = both
    status, out, _ = cli(capsys, root / "distances", "verify", PUZZLE)
    assert status == 0 and "distances database of 58 layers" in out[0]
    assert "distance table" in out[0]
    copy = tmp_path / PUZZLE / "layers"
    shutil.copytree(root / "distances" / PUZZLE / "layers", copy)
    table = copy / "distances.2bit"
    data = bytearray(table.read_bytes())
    data[-100] ^= 1  # a state's label in the words
    table.write_bytes(bytes(data))
    status, out, err = cli(capsys, tmp_path, "verify", PUZZLE)
    assert (status, out, len(err)) == (2, [], 1)
    assert "distance table" in err[0] and "checksum mismatch" in err[0]


def test_graded_puzzles_and_sharded_builds_are_refused_distances_in_one_line(capsys,
                                                                            tmp_path):
    with pytest.raises(PuzzleError, match="store: distances is for ungraded puzzles"):
        plan(puzzles.get("hoppers"), DISTANCES, 8000)
    with pytest.raises(PuzzleError, match="store: distances is the in-memory search's"):
        plan(puzzles.get("eight"), DISTANCES, 8000, shards=4)
    status, out, err = cli(capsys, tmp_path, "build", "hoppers", "--store", "distances")
    assert (status, out, len(err)) == (2, [], 1) and "ungraded" in err[0]
    with pytest.raises(ConfigError, match="keeps distances only"):
        check_config({"puzzles": ["eight"], "store": {"eight": "distances"}, "problem_sets": [
            {"puzzle": "eight", "queries": "blank-at-goal", "k": 10}]})


class Interrupted(Exception):
    pass


@pytest.mark.parametrize("name, after", [(PUZZLE, 30), ("flipit-square", 10)])
def test_a_distances_build_stopped_after_a_checkpoint_resumes_to_the_same_table(
        tmp_path, name, after):
    """A build stopped once its checkpoint after layer `after` is written (by colour: while
    the kernels expanded; by the cycle of three codes: between depths), then run again:
    it resumes from the checkpoint and ends with the table and manifest of a build never
    stopped."""
    puzzle = puzzles.get(name)

    def stop(message):
        if f"checkpoint after layer {after} " in message:
            raise Interrupted(message)

    with pytest.raises(Interrupted):
        build_in_memory(puzzle, tmp_path / "stopped" / name / "layers", threads=2,
                        progress=False, log=stop, store=DISTANCES, checkpoint_minutes=0)
    said = []
    report = build_in_memory(puzzle, tmp_path / "stopped" / name / "layers", threads=2,
                             progress=False, log=said.append, store=DISTANCES)
    assert report.resumed_from == after
    assert any(f"resuming after layer {after} from the checkpoint" in m for m in said)
    build(puzzle, tmp_path / "whole", DISTANCES)
    stopped, whole = (json.loads((tmp_path / where / name / "layers" / "manifest.json")
                                 .read_text()) for where in ("stopped", "whole"))
    assert stopped["layers"] == whole["layers"] and stopped["table"] == whole["table"]


def test_a_distances_build_does_not_resume_from_a_counts_builds_checkpoint(tmp_path):
    """The two searches code their states differently: the distances build starts again."""
    eight = puzzles.get("eight")

    def stop(message):
        if "checkpoint after layer 10 " in message:
            raise Interrupted(message)

    with pytest.raises(Interrupted):
        build_in_memory(eight, tmp_path / "eight" / "layers", progress=False, log=stop,
                        store="counts", checkpoint_minutes=0)
    report = build(eight, tmp_path, DISTANCES)
    assert report.resumed_from == -1
    with DepthDatabase.open("eight", tmp_path) as db:
        assert db.distance("867 254 301") == 31 and db.count_solutions("867 254 301") == 40


DEFINITIONS = {
    "domino-3x4": {"family": "domino", "width": 3, "height": 4, "goal": "123 456 789 a__"},
    "eight-multi": {"family": "sliding", "width": 3, "height": 3, "goal": "123 456 780",
                    "metric": "multi-tile"},
    "cube2": {"family": "permutation",
              "file": "workflow/puzzledb/puzzles/permutation/examples/2x2x2.tws"},
}


@pytest.fixture(scope="module")
def defined():
    from conftest import ROOT

    puzzles.define({name: dict(entry, file=str(ROOT / entry["file"])) if "file" in entry
                    else entry for name, entry in DEFINITIONS.items()})


@pytest.mark.parametrize("name, modulus", [
    ("eight", 4),  # sliding, distinct tiles: the plane kernels, by colour
    ("domino-3x4", 4),  # the domino family: the generic step, by colour
    ("flipit-square", 3),  # no colouring: the generic step, the cycle of three codes
    # 45 to 50 s each, mostly compiling their kernels for the cycle of three codes
    pytest.param("eight-multi", 3, marks=pytest.mark.slow),  # multi-tile: both directions
    pytest.param("cube2", 3, marks=pytest.mark.slow),  # permutation rows, both directions
])
def test_every_family_of_the_in_memory_engine_keeps_every_states_depth(
        defined, tmp_path, name, modulus):
    puzzle = puzzles.get(name)
    build(puzzle, tmp_path / "layers")
    build(puzzle, tmp_path / "distances", DISTANCES)
    full, table = databases(tmp_path, name)
    with full, table:
        assert table.lookup.table.labels.modulus == modulus
        assert table.summary() == full.summary()
        every_layer_is_labelled_by_its_depth(full, table)
        for depth in range(table.max_depth + 1):  # each sample: states of its layer
            sample, whole = table.store.sample(depth)
            assert full.contains(depth, sample).all()
            assert sample.size == min(table.counts[depth], SAMPLE_STATES) or (
                depth == table.max_depth and whole)
        deepest = table.positions_at(table.max_depth, count=1)[0]
        route = table.solution(puzzle.decode(deepest))
        assert len(route) == table.max_depth + 1
        assert all(b in puzzle.neighbours(a) for a, b in zip(route, route[1:]))
