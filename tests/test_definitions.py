"""Puzzles declared as data (config.yaml's `define:`): published tables reproduced from
definitions alone, a definition of each family checked against its rules, symmetries from
the board, the command line and the one-line errors of bad definitions."""

from pathlib import Path
import os
import subprocess
import sys
from collections.abc import Mapping
from math import comb

import numba
import numpy as np
import pytest
import yaml

from building import build_in_memory
from checkers import domino_moves, domino_rank
from conftest import ROOT, read_csv_as_pandas_does, run_snakemake
from puzzledb.report import analysis

from puzzledb import puzzles
from puzzledb.config import SCHEMA, check_config
from puzzledb import paths
from puzzledb.query.database import DepthDatabase
from puzzledb.errors import ConfigError
from puzzledb.puzzles.base import Puzzle
from puzzledb.puzzles import definitions
from puzzledb.puzzles.domino.puzzle import DominoPuzzle

import published_figures as published

DEFINE = {
    # sliding puzzles of the published tables, by the goal cell of their blank
    "three-by-two": {"family": "sliding", "width": 3, "height": 2, "goal": "123 450"},
    "four-by-two": {"family": "sliding", "width": 4, "height": 2, "goal": "1234 5670"},
    "eight-corner": {"family": "sliding", "width": 3, "height": 3, "goal": "123 456 780"},
    "eight-centre": {"family": "sliding", "width": 3, "height": 3, "goal": "123 405 678"},
    "eight-side": {"family": "sliding", "width": 3, "height": 3, "goal": "102 345 678"},
    # two colours around a central blank: the square's eight symmetries fix the goal
    "two-colour": {"family": "sliding", "width": 3, "height": 3, "goal": "121 202 121"},
    "domino-3x3": {"family": "domino", "width": 3, "height": 3, "goal": "123 456 7__"},
    "domino-3x4": {"family": "domino", "width": 3, "height": 4, "goal": "123 456 789 a__"},
    "flipit-4x3": {"family": "flipit", "width": 4, "height": 3},
    "flipit-4x3-black": {"family": "flipit", "width": 4, "height": 3, "goal": "black"},
    "hoppers-drawn": {"family": "pegs", "jumps": {"diagonal": 1, "orthogonal": 2},
                      "board": "o#o#o #o#o# o#.#o #o#o# o#o#o"},
    # a 4x4 board with two empty holes at the start and a finish drawn on it
    "square16": {"family": "pegs", "board": "oooo\no..o\noooo\noooo",
                 "finish": "....\n....\no...\n...."},
}


def build(name, root):
    """The layer counts of a defined puzzle, built by the engine into root."""
    directory = Path(paths.layers(root, name))
    if not (directory / "manifest.json").exists():
        build_in_memory(puzzles.get(name), directory, threads=2, progress=False,
                     log=lambda m: None)
    with DepthDatabase.open(name, root) as db:
        return db.counts


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """The definitions above registered as a config registers them; a results directory."""
    numba.set_num_threads(2)
    check_config({"puzzles": list(DEFINE), "define": DEFINE}, source="test-config.yaml")
    return tmp_path_factory.mktemp("defined")


# --- published tables, from definitions alone ---------------------------------------------------


@pytest.mark.parametrize("name, table", [
    ("three-by-two", published.SLIDING_3X2_CORNER),  # OEIS A090034
    ("four-by-two", published.SLIDING_4X2_CORNER),  # OEIS A090035
    ("eight-corner", published.EIGHT_CORNER),  # OEIS A089473
    ("eight-centre", published.EIGHT_CENTRE),  # OEIS A089474
    ("eight-side", published.EIGHT_SIDE),  # OEIS A089483
])
def test_sliding_puzzles_defined_in_a_config_have_the_published_oeis_tables(root, name, table):
    assert build(name, root) == table


@pytest.mark.parametrize("name, deepest", [
    ("three-by-two", ["450 123"]),  # A090034's example: swapping the two rows
    ("eight-corner", ["647 850 321", "867 254 301"]),  # A089473's two at 31
    ("eight-side", ["086 743 251", "860 547 231"]),  # A089483's two at 31
])
def test_the_deepest_positions_are_the_ones_oeis_prints(root, name, deepest):
    build(name, root)
    with DepthDatabase.open(name, root) as db:
        assert sorted(analysis.antipodes(db)) == deepest


def test_two_of_the_148_deepest_centre_positions_are_the_ones_oeis_prints(root):
    build("eight-centre", root)
    with DepthDatabase.open("eight-centre", root) as db:
        assert db.counts[-1] == 148
        assert {"476 208 351", "086 724 351"} < set(analysis.antipodes(db))


def test_a_definition_like_a_built_in_is_the_same_puzzle_under_another_name(root):
    for name in ("fifteen-6colour", "fifteen-3colour", "fourteen", "hoppers"):
        spec = dict(definitions.BUILTIN[name])
        copy = definitions.build("copy", spec)
        assert copy.definition() == puzzles.get(name).definition()
        assert copy.size == puzzles.get(name).size
    assert puzzles.get("hoppers-drawn").definition() == puzzles.get("hoppers").definition()


# --- the domino family ----------------------------------------------------------------------------


@pytest.mark.parametrize("name, table", [
    ("domino-3x3", published.SLIDING_3X2_CORNER),  # OEIS A090034
    ("domino-3x4", published.SLIDING_4X2_CORNER),  # OEIS A090035
])
def test_a_3_wide_domino_puzzle_has_the_table_of_the_2_wide_sliding_puzzle(root, name, table):
    """On 3 columns the middle column's tiles never pass each other and the domino always
    covers a middle cell: forget the middle column and the domino's other cell is the blank
    of an H x 2 sliding puzzle, a jump its sideways slide and a slide its vertical one."""
    assert build(name, root) == table


@pytest.mark.parametrize("width, height", [(3, 2), (3, 3), (4, 2), (4, 3), (5, 2), (6, 2)])
def test_every_rank_of_a_domino_board_is_reachable_and_the_kernel_follows_the_rules(
        width, height, tmp_path):
    goal = "123456789abcdefghijklmnopqrstuvwxyz"[:width * height - 2] + "__"
    puzzle = DominoPuzzle(f"domino-{width}x{height}", width, height, goal)
    rng = np.random.default_rng(width * height)
    for rank in rng.integers(0, puzzle.size, 300).tolist():
        board = puzzle.unrank(rank)
        assert puzzle.rank(board) == rank == domino_rank(puzzle, board)
        expected = sorted(domino_rank(puzzle, b) for b in domino_moves(board, width))
        assert sorted(puzzle.neighbours(rank)) == expected
    report = build_in_memory(puzzle, tmp_path, threads=2, progress=False, log=lambda m: None)
    assert report.total == puzzle.size


def test_domino_class_parities_follow_the_number_of_columns_of_each_class():
    """5 columns: the 3 even columns make a slide two transpositions (parity fixed), the 2
    odd columns one (parity tied to the domino's row)."""
    puzzle = DominoPuzzle("domino-5x2", 5, 2, "12345 678__")
    assert [c.columns for c in puzzle.classes] == [3, 2]
    assert puzzle.parities(0).tolist() == [0] * 8
    assert puzzle.parities(1).tolist() == [1] * 4 + [0] * 4
    assert puzzle.size == 2 * 4 * (120 // 2) * (6 // 2)


# --- flip-it and pegs ---------------------------------------------------------------------------


def test_a_black_goal_has_the_layers_of_the_white_one_and_the_rectangles_symmetries(root):
    white, black = build("flipit-4x3", root), build("flipit-4x3-black", root)
    assert white == black  # turning every piece over is an isomorphism
    puzzle = puzzles.get("flipit-4x3-black")
    assert len(puzzle.symmetries()) == 3
    assert puzzle.decode(int(puzzle.goal_ranks()[5])) == "BBBB BSBB BBBB"
    ranks = np.random.default_rng(2).integers(0, puzzle.size, 500).astype(np.uint64)
    assert list(puzzle.canonical_ranks(ranks)) == list(Puzzle.canonical_ranks(puzzle, ranks))


def test_the_corner_bound_of_other_boards_never_exceeds_the_distance(root):
    build("flipit-4x3-black", root)
    puzzle = puzzles.get("flipit-4x3-black")
    bound = puzzle.heuristics()["corner"]()
    with DepthDatabase.open("flipit-4x3-black", root) as db:
        for depth in range(db.max_depth + 1):
            assert bound.many(db.layer(depth).ranks()).max() <= depth
    board = puzzle.parse("WBBW BSBB WBBW")
    assert puzzle.corner_bound(board) == bound.many([puzzle.rank(board)])[0] == 4 + 1


def square16_layers():
    """The square16 board's positions after each jump, by the rules alone: a peg jumps over
    an orthogonal neighbour into the empty hole beyond, which must be on the 4x4 board."""
    layer = {sum(1 << h for h in range(16) if h not in (5, 6))}  # holes 5 and 6 empty
    out = []
    while layer:
        out.append(len(layer))
        following = set()
        for mask in layer:
            for h in range(16):
                r, c = divmod(h, 4)
                for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
                    if 0 <= r + 2 * dr < 4 and 0 <= c + 2 * dc < 4:
                        over, to = h + dr * 4 + dc, h + 2 * (dr * 4 + dc)
                        if mask >> h & 1 and mask >> over & 1 and not mask >> to & 1:
                            following.add(mask ^ (1 << h) ^ (1 << over) ^ (1 << to))
        layer = following
    return out


def test_a_peg_board_drawn_with_two_empty_holes_has_the_layers_of_the_rules(root):
    puzzle = puzzles.get("square16")
    assert (puzzle.cells, puzzle.start_pegs, len(puzzle.jumps)) == (16, 14, 32)
    assert puzzle.format(puzzle.start()) == "oooo o..o oooo oooo"
    assert build("square16", root) == square16_layers()
    assert [puzzle.level_size(d) for d in range(3)] == [comb(16, 14), comb(16, 13), comb(16, 12)]
    # the mirror through the middle columns keeps the two empty holes, the square's others not
    assert len(puzzle.symmetries()) == 1 and len(puzzle.board.symmetries) == 7


def test_the_finish_of_a_definition_is_what_peg_solutions_aims_at():
    puzzle = puzzles.get("square16")
    assert puzzle.finish == 1 << 8
    result = puzzle.solutions_in_moves(None, all_solutions=False)
    assert result.length is not None
    hoppers = puzzles.get("hoppers-drawn")
    assert hoppers.finish == 1 << 6 and hoppers.solutions_in_moves(None).length == 7


@pytest.mark.parametrize("name, count", [("hoppers", 8), ("english33", 8), ("triangle15", 6)])
def test_a_drawn_board_gets_the_symmetries_of_its_lattice(name, count):
    """The triangle drawn row by row (holes (r, c), c <= r) is the triangular lattice: its
    6 symmetries are linear maps of (r, c), not those of the square grid."""
    puzzle = puzzles.get(name)
    assert len(puzzle.board.symmetries) + 1 == count
    jumps = set(puzzle.jumps)
    for perm in puzzle.board.symmetries:
        inverse = np.argsort(perm)
        assert {tuple(int(inverse[h]) for h in jump) for jump in jumps} == jumps


# --- sliding symmetries ---------------------------------------------------------------------------


@pytest.mark.slow  # the sliding class kernels of repeated pieces: 110 s of CPU on a fresh cache
def test_a_goal_with_repeated_pieces_that_the_square_fixes_gets_its_eight_symmetries(root):
    puzzle = puzzles.get("two-colour")
    assert len(puzzle.symmetries()) == 7
    assert not puzzles.get("eight-centre").symmetries()  # distinct tiles: none
    counts = build("two-colour", root)
    assert sum(counts) == puzzle.size == 9 * comb(8, 4)
    ranks = np.arange(puzzle.size, dtype=np.uint64)
    canonical = puzzle.canonical_ranks(ranks)
    assert list(canonical) == list(Puzzle.canonical_ranks(puzzle, ranks))
    # Burnside: the orbits are the average number of positions a symmetry fixes
    boards = [puzzle.unrank(r) for r in range(puzzle.size)]
    perms = [np.arange(9)] + [np.array(p) for p in puzzle.symmetries()]
    fixed = sum(int(np.array_equal(b[p], b)) for b in boards for p in perms)
    assert np.unique(canonical).size * 8 == fixed
    with DepthDatabase.open("two-colour", root) as db:
        rows = analysis.symmetry_summary(db)
    assert sum(orbits for _, _, orbits in rows) == np.unique(canonical).size


# --- the definitions and the schema -------------------------------------------------------------


def definition_schema():
    return yaml.safe_load(SCHEMA.read_text())["properties"]["define"]["additionalProperties"]


def test_the_schema_gives_each_family_the_parameters_and_defaults_of_its_constructor():
    for branch in definition_schema()["allOf"]:
        family = branch["if"]["properties"]["family"]["const"]
        keys = branch["then"]["properties"]
        parameters = definitions.parameters(family)
        assert set(keys) == set(parameters)
        required = {k for k, v in parameters.items() if v is definitions.inspect.Parameter.empty}
        assert set(branch["then"]["required"]) == required
        for key, default in parameters.items():
            if key not in required:
                expected = dict(default) if isinstance(default, Mapping) else default
                assert keys[key].get("default") == expected, (family, key)


def test_every_built_in_definition_is_a_valid_define_entry():
    config = {"puzzles": ["eight"], "define": {f"copy-{name}": spec for name, spec in
                                               definitions.BUILTIN.items()}}
    check_config(config, source="built-ins")
    assert puzzles.source("copy-eight") == "built-ins"
    assert puzzles.source("eight") == puzzles.BUILT_IN


@pytest.mark.parametrize("definition, words", [
    ({"family": "slidng", "width": 3, "height": 2, "goal": "123 450"},
     "define.bad.family: 'slidng' is not one of"),
    ({"family": "sliding", "width": 3, "goal": "123 450"}, "'height' is a required property"),
    ({"family": "sliding", "width": 3, "height": 2, "goal": "123 45"},
     "define.bad.goal: '123 45' has 5 cells, expected 6"),
    ({"family": "sliding", "width": 3, "height": 2, "goal": "123 456"},
     "define.bad.goal: '123 456' has 0 blanks"),
    ({"family": "sliding", "width": 3, "height": 2, "goal": "123 450", "colours": 2},
     "'colours' was unexpected"),
    ({"family": "sliding", "width": 5, "height": 5, "goal": "12345 6789a bcdef ghijk lmno0"},
     "too many to rank in 64 bits"),
    ({"family": "domino", "width": 4, "height": 2, "goal": "12_3 456_"},
     "define.bad.goal: '12_3 456_': the two empty cells (_) must be side by side"),
    ({"family": "domino", "width": 2, "height": 3, "goal": "12 34 __"},
     "define.bad.width: 2 is less than the minimum of 3"),
    ({"family": "domino", "width": 4, "height": 6, "goal": "1234 5678 9abc defg hijk lm__"},
     "define.bad.height: 4x6 puts 11 tiles in one column-parity class"),
    ({"family": "flipit", "width": 8, "height": 8},
     "define.bad.width: a 8x8 board has 64 cells: 3 to 58 can be ranked in 64 bits"),
    ({"family": "flipit", "width": 4, "height": 4, "goal": "grey"},
     "define.bad.goal: 'grey' is not one of ['white', 'black']"),
    ({"family": "pegs", "board": "ooo o?o ooo"}, "define.bad.board: symbols '?'"),
    ({"family": "pegs", "board": "ooo ooo ooo"}, "define.bad.board: the start needs a peg"),
    ({"family": "pegs", "board": "ooo o.o ooo", "jumps": {"knight": 1}},
     "define.bad.jumps: 'knight' is not one of"),
    ({"family": "pegs", "board": "oooo o..o oooo oooo", "finish": 9},
     "define.bad.finish: unreachable from the start: every jump keeps the parity"),
    ({"family": "pegs", "board": "oooo o..o oooo oooo", "finish": "oo.. ...."},
     "define.bad.finish: 'oo.. ....' is not drawn on the board's holes"),
])
def test_a_bad_definition_is_a_one_line_config_error_naming_its_key(definition, words):
    with pytest.raises(ConfigError) as err:
        check_config({"puzzles": ["bad"], "define": {"bad": definition}}, source="c.yaml")
    assert words in str(err.value) and "\n" not in str(err.value)


def test_a_definition_may_not_take_the_name_of_a_built_in():
    with pytest.raises(ConfigError, match="'eight' is a built-in puzzle"):
        check_config({"puzzles": ["eight"],
                      "define": {"eight": {"family": "flipit", "width": 3, "height": 3}}})


def test_a_definition_checked_without_the_schema_names_missing_and_unknown_keys():
    with pytest.raises(ConfigError, match=r"x.goal: missing; the sliding family needs it"):
        definitions.build("x", {"family": "sliding", "width": 3, "height": 3}, "x")
    with pytest.raises(ConfigError, match=r"x.size: not a parameter of the flipit family"):
        definitions.build("x", {"family": "flipit", "width": 3, "height": 3, "size": 4}, "x")


# --- the command line and the workflow ----------------------------------------------------------


def cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "puzzledb.cli", *args], cwd=cwd,
                          capture_output=True, text=True, env={**os.environ})


def test_the_cli_knows_the_puzzles_of_the_config_in_its_directory_or_given(root, tmp_path):
    build("eight-centre", root)
    config = {"puzzles": ["eight-centre"], "define": {"eight-centre": DEFINE["eight-centre"]}}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    distance = cli("distance", "eight-centre", "476 208 351", "--results", str(root),
                   cwd=tmp_path)
    assert distance.returncode == 0 and distance.stdout.strip() == "30"
    listed = cli("list", cwd=tmp_path).stdout
    assert any(line.split()[:2] == ["eight-centre", "config.yaml"]
               for line in listed.splitlines())
    elsewhere = cli("--config", str(tmp_path / "config.yaml"), "info", "eight-centre",
                    "--results", str(root), cwd=ROOT)
    assert "defined       in " in elsewhere.stdout and "goal: 123 405 678" in elsewhere.stdout
    assert "181,440 states, max depth 30" in elsewhere.stdout
    unknown = cli("distance", "eight-centre", "476 208 351", cwd=ROOT / "tests")
    assert unknown.returncode == 2 and "unknown puzzle 'eight-centre'" in unknown.stderr
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(
        {"puzzles": ["x"], "define": {"x": {"family": "sliding", "width": 3}}}))
    bad = cli("list", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "config.yaml: define.x: 'height' is a required property" in bad.stderr


@pytest.mark.slow
def test_the_workflow_builds_and_reports_a_puzzle_defined_in_its_config(tmp_path):
    """Every rule script registers the config's definitions: one symmetric puzzle runs
    them all but mitm."""
    config = {"puzzles": ["two-colour"], "define": {"two-colour": DEFINE["two-colour"]},
              "results": str(tmp_path / "results")}
    run_snakemake(tmp_path, config)
    results = tmp_path / "results"
    summary = (results / "two-colour" / "summary.csv").read_text().splitlines()
    assert summary[-1].split(",")[2] == str(9 * comb(8, 4))
    orbits = (results / "two-colour" / "summary_symmetry.csv").read_text().splitlines()
    assert len(orbits) == len(summary)
    for name in ("summary.csv", "summary_symmetry.csv"):
        read_csv_as_pandas_does(results / "two-colour" / name)
    report = (results / "report.html").read_text()
    assert "Defined in config.yaml: two-colour: {family: sliding" in report
