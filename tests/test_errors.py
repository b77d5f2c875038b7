"""Bad input gets one line on stderr, a non-zero exit, and nothing half-written."""

import re
import shutil
from pathlib import Path

import pytest
import yaml

from building import build_in_memory
from puzzledb import puzzles, yamltext
from puzzledb.store.layers import LayerStore

from conftest import assert_one_line_error, puzzledb_cli, run_snakemake
from puzzledb.config import check_config
from puzzledb.errors import ConfigError, PuzzleError
from puzzledb.puzzles.base import Puzzle
from puzzledb.puzzles.capabilities import ChainedMoves, GoalFrames, PatternBounds
from puzzledb.solvers.heuristics import pattern_database


def test_unknown_puzzle_is_one_line_error():
    assert_one_line_error(puzzledb_cli("distance", "sixteen", "123"), "unknown puzzle 'sixteen'")


def test_board_of_wrong_length_is_one_line_error():
    assert_one_line_error(puzzledb_cli("distance", "eight", "1234 5678"), "has 8 cells, expected 9")


def test_board_with_wrong_piece_counts_is_one_line_error():
    assert_one_line_error(
        puzzledb_cli("distance", "fifteen-3colour", "1112 1122 1332 3330"),
        "has 6 of piece '1', expected 5",
    )


def test_board_of_another_puzzle_is_one_line_error():
    assert_one_line_error(
        puzzledb_cli("distance", "fifteen-3colour", "1234 6666 6666 5660"), "not in '0123'"
    )


def test_query_without_a_database_is_one_line_error(tmp_path):
    assert_one_line_error(
        puzzledb_cli("--results", str(tmp_path), "distance", "eight", "123 456 780"),
        "no complete database of eight",
    )


@pytest.mark.parametrize("argv, lacking", [
    (("peg-solutions", "eight", "--first", "0,6"), "eight: no move metric of chained jumps"),
    (("solve", "flipit-square", "--goal", "WWWW WWWW WWWW WWW.", "BBBB BBBB BBBB BBB."),
     "flipit-square: boards can be solved towards its own goal only"),
])
def test_a_command_of_another_family_is_one_line_error_naming_what_the_puzzle_lacks(
        argv, lacking):
    assert_one_line_error(puzzledb_cli(*argv), lacking)


def test_a_family_command_is_a_capability_of_its_family_not_of_every_puzzle():
    hoppers, eight, flip = (puzzles.get(n) for n in ("hoppers", "eight", "flipit-square"))
    assert hoppers.capability(ChainedMoves) is hoppers
    assert eight.capability(GoalFrames) is eight and eight.capability(PatternBounds) is eight
    for kind in (ChainedMoves, GoalFrames, PatternBounds):
        with pytest.raises(PuzzleError, match=f"^flipit-square: {re.escape(kind.lacking)}$"):
            flip.capability(kind)
        assert not any(hasattr(Puzzle, name) for name in vars(kind) if not name.startswith("_")
                       and name != "lacking")
    with pytest.raises(PuzzleError, match="no pattern databases"):
        pattern_database(flip, None)  # refused before any database is read


@pytest.fixture
def eight_copy(results, tmp_path):
    shutil.copytree(results / "eight", tmp_path / "eight")
    return tmp_path


def test_truncated_layer_file_is_one_line_error(eight_copy):
    layer = eight_copy / "eight" / "layers" / "depth_010.h5"
    layer.write_bytes(layer.read_bytes()[:1000])
    assert_one_line_error(
        puzzledb_cli("--results", str(eight_copy), "distance", "eight", "867 254 301"),
        "corrupt layer file", "depth_010.h5",
    )


def test_truncated_layer_is_rebuilt_and_the_layers_before_it_are_kept(eight_copy):
    directory = eight_copy / "eight" / "layers"
    (directory / "manifest.json").unlink()
    layer = directory / "depth_010.h5"
    layer.write_bytes(layer.read_bytes()[:1000])
    before = {d: (directory / f"depth_{d:03d}.h5").stat().st_mtime_ns for d in range(10)}
    report = build_in_memory(puzzles.get("eight"), directory, progress=False, log=lambda m: None)
    assert (report.resumed_from, report.total, report.max_depth) == (9, 181_440, 31)
    assert before == {d: (directory / f"depth_{d:03d}.h5").stat().st_mtime_ns for d in range(10)}
    assert len(LayerStore(directory, puzzles.get("eight")).good_layers()) == 32


def test_search_over_the_memory_budget_is_refused_before_it_starts(tmp_path):
    result = puzzledb_cli("--results", str(tmp_path), "build", "fifteen-3colour",
                          "--memory-mb", "4")
    # two bits per state of 12,108,096 (2.9 MiB), a 2 MiB extraction buffer, its tables
    assert_one_line_error(result, "fifteen-3colour needs 5 MiB for its in-memory search, "
                                  "more than memory_mb: 4")
    assert not (tmp_path / "fifteen-3colour" / "layers").exists()


@pytest.mark.parametrize("config, fragment", [
    ({"puzzles": ["eight"], "threadz": 2}, "'threadz' was unexpected"),
    ({"puzzles": ["eigth"]}, "unknown puzzle 'eigth'"),
    ({"puzzles": ["eight"], "memory_mb": "lots"}, "memory_mb: 'lots' is not of type 'integer'"),
    ({"puzzles": ["eight"], "problem_sets": [{"puzzle": "eight", "queries": "all", "k": 9}]},
     "eight has no query set 'all' (known: blank-at-goal)"),
    ({"puzzles": ["eight"], "problem_sets": [{"puzzle": "fourteen",
                                               "queries": "domino-bottom-right", "k": 31}]},
     "puzzle 'fourteen' is not in puzzles"),
    ({"puzzles": ["eight"], "problem_sets": [{"puzzle": "eight", "k": 9}]},
     "'queries' is a required property"),
    ({"puzzles": ["eight"], "shards": {"eleven": 4}}, "shards.eleven: 'eleven' is not in puzzles"),
    ({"puzzles": ["eight"], "shards": {"eight": 0}}, "shards.eight: 0 is less than the minimum"),
    ({"puzzles": ["fifteen"]}, "MiB for its in-memory search, more than memory_mb: 8000; give it a"),
    ({"puzzles": ["eight"], "depth_limit": {"eight": -1}}, "depth_limit.eight: -1 is less"),
    ({"puzzles": ["eight"], "symmetry": {"eleven": "none"}},
     "symmetry.eleven: 'eleven' is not in puzzles"),
    ({"puzzles": ["eight"], "symmetry": {"eight": "all"}}, "symmetry.eight: 'all' is not one of"),
    ({"puzzles": ["eleven"], "shards": {"eleven": 2}, "symmetry": {"eleven": "classes"}},
     "symmetry.eleven: eleven has no exact symmetry group to search by classes"),
    ({"puzzles": ["eight"], "symmetry": {"eight": "classes"}},
     "symmetry.eight: eight: classes are searched by the frontier search: give it shards"),
    ({"puzzles": ["eight"], "shards": {"eight": 2}, "symmetry": {"eight": "classes"},
      "problem_sets": [{"puzzle": "eight", "queries": "blank-at-goal", "k": 9}]},
     "eight's keep one a class (symmetry: {eight: none} keeps them all)"),
    # a choice the puzzle cannot serve names the key that asked for it
    ({"puzzles": ["twentyfour"]}, "config: puzzles: twentyfour: 7,755,605,021,665,492,992,000,000"
                                  " ranks, too many to rank in 64 bits"),
    ({"puzzles": ["eight"], "shards": {"eight": 2}, "store": {"eight": "counts"}},
     "store.eight: eight: store: counts is the in-memory search's; sharded builds keep layers"),
    ({"puzzles": ["hoppers"], "store": {"hoppers": "counts"}},
     "store.hoppers: hoppers: store: counts is for ungraded puzzles"),
])
def test_invalid_config_is_one_line_error(config, fragment):
    with pytest.raises(ConfigError) as error:
        check_config(config)
    assert fragment in str(error.value) and "\n" not in str(error.value)


def test_a_config_file_that_is_not_yaml_is_one_line_naming_it(tmp_path):
    # read by libyaml where PyYAML has it (yamltext.py): its error is one line too
    path = tmp_path / "config.yaml"
    path.write_text("puzzles: [eight\ndefine: {")
    result = puzzledb_cli("--config", str(path), "info", "eight")
    assert_one_line_error(result, f"{path}: not a readable YAML file (")


def test_the_c_loader_reads_the_shipped_yaml_as_pyyaml_does():
    root = Path(__file__).resolve().parent.parent
    for path in (root / "config.yaml", root / "workflow/puzzledb/schemas/config.schema.yaml",
                 root / "workflow/puzzledb/puzzles/builtin.yaml"):
        assert yamltext.load(path.read_text()) == yaml.safe_load(path.read_text()), path


def test_a_search_the_puzzle_cannot_have_is_blamed_on_the_key_that_chose_it(monkeypatch):
    """The frontier search needs moves that can be undone: chosen by `shards` the error
    names shards, chosen by a depth limit on a space too large for memory, depth_limit."""
    one_way = puzzles.get("eleven")
    monkeypatch.setattr(one_way, "reversible", False)
    for config, key in [({"shards": {"eleven": 4}}, "shards.eleven"),
                        ({"depth_limit": {"eleven": 10}, "memory_mb": 10}, "depth_limit.eleven")]:
        with pytest.raises(ConfigError) as error:
            check_config({"puzzles": ["eleven"], **config})
        assert str(error.value) == (f"config: {key}: eleven: the frontier search needs moves "
                                    f"that can be undone, or a graded puzzle")
    check_config({"puzzles": ["eleven"]})  # in memory: nothing to undo


@pytest.mark.slow
def test_the_workflow_refuses_an_invalid_config_in_one_line(tmp_path):
    result = run_snakemake(tmp_path, {"puzzles": ["eight"], "threadz": 2}, check=False)
    assert_one_line_error(result, "'threadz' was unexpected")
    # the same mistake, the same line and status from the command line
    command = puzzledb_cli("--config", str(tmp_path / "config.yaml"), "info", "eight")
    assert_one_line_error(command, "config.yaml: Additional properties are not allowed "
                                   "('threadz' was unexpected)")
    assert result.returncode == command.returncode == 2
    assert result.stderr.strip() == command.stderr.strip().replace(str(tmp_path) + "/", "")


@pytest.mark.slow
def test_a_puzzle_asked_for_by_file_name_over_the_memory_budget_is_refused_in_one_line(
        tmp_path):
    """Not in `puzzles`, its plan is made when a rule asks for it, under the same checks
    and in the same words as the config check's: before any job runs."""
    result = run_snakemake(tmp_path, {"puzzles": ["eight"], "memory_mb": 50},
                           "results/eleven/summary.csv", check=False)
    assert result.returncode == 2 and not (tmp_path / "results" / "eleven").exists()
    assert result.stderr.strip().splitlines()[-1] == (
        "puzzledb: error: config.yaml: eleven needs 60 MiB for its in-memory search, more "
        "than memory_mb: 50; give it a depth_limit (a partial database, built sparse) or "
        "shards, or raise memory_mb")


def test_map_keys_set_on_the_command_line_are_typed_by_the_schema(tmp_path):
    # Snakemake's --config gives the values inside a map as strings
    checked = check_config({"puzzles": ["eight"], "depth_limit": {"eight": "20"},
                            "shards": {"eight": "4"}, "verify": "true"})
    assert checked["depth_limit"] == {"eight": 20} and checked["shards"] == {"eight": 4}
    assert checked["verify"] is True
    # the dry run passes the config check (it exits 1 naming the key otherwise)
    run_snakemake(tmp_path, {"puzzles": ["eight"]}, "pdbs", "all", "-n", "--config",
                  "depth_limit={eight: 20}", "shards={eight: 4}", "pdbs={fifteen: [6-6-3]}",
                  "symmetry={eight: none}",
                  "problem_sets=[{puzzle: eight, queries: blank-at-goal, k: 20, "
                  "per_distance: 3, min_distance: 21, seed: 1}]")
    # a definition's parameters too, by its family's part of the schema
    run_snakemake(tmp_path, {"puzzles": ["eight"]}, "all", "-n", "--config", "puzzles=[ten, pegs]",
                  'define={ten: {family: sliding, width: 5, height: 2, goal: "12345 67890"}, '
                  'pegs: {family: pegs, board: "oo.", jumps: {horizontal: 1}, finish: 2}}')
    with pytest.raises(ConfigError, match="depth_limit.eight: 'twenty' is not of type"):
        check_config({"puzzles": ["eight"], "depth_limit": {"eight": "twenty"}})
