"""Properties that hold for every registered puzzle and every input, checked by Hypothesis on
random examples: board strings and ranks go back and forth unchanged, the compiled kernel's
neighbours are exactly the moves of the plain-Python rules, and whatever is typed on the
command line or written in a config ends in one line and status 2 when it is wrong, never
in a traceback.  The example counts are sized for the default suite (a few seconds here)."""

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from building import build_in_memory
from checkers import BlocksModel, domino_moves, flipit_moves, peg_jumps, slides
from conftest import assert_one_line_error
from puzzledb import puzzles
from puzzledb.cli import main
from puzzledb.config import check_config
from puzzledb.errors import ConfigError, PuzzledbError
from puzzledb.puzzles.base import SEPARATORS

# every puzzle whose ranks the kernels take (the 24-puzzle's do not fit 64 bits: its boards
# are searched by the additive search alone, tests/test_partitions.py)
NAMES = [name for name in puzzles.names() if puzzles.get(name).ranks_fit]


def every_puzzle(test):
    """Run test(name, data) for every registered puzzle, on Hypothesis' random draws."""
    return pytest.mark.parametrize("name", NAMES)(
        settings(max_examples=40)(given(data=st.data())(test)))


def a_state(name, data):
    """A random state of the puzzle: (puzzle, level, rank, board), any level of a graded
    one and any rank in it."""
    puzzle = puzzles.get(name)
    level = data.draw(st.integers(0, len(puzzle.levels()) - 1), "level") if puzzle.graded else 0
    rank = data.draw(st.integers(0, puzzle.level_size(level) - 1), "rank")
    return puzzle, level, rank, puzzle.unrank(rank, level)


def reference_moves(puzzle, board):
    """The boards one move away by each family's plain-Python rules, sharing no code with
    the compiled kernels."""
    if puzzle.family == "sliding":
        return [puzzle.parse("".join(b)) for b in slides(puzzle.format(board), puzzle.width)]
    if puzzle.family == "domino":
        return domino_moves(list(board), puzzle.width)
    if puzzle.family == "flipit":
        return flipit_moves(list(board), puzzle.width, puzzle.height, puzzle.diagonal)
    if puzzle.family == "pegs":
        return peg_jumps(puzzle, list(board))
    if puzzle.family == "blocks":
        model = BlocksModel(puzzle.format(board), puzzle.definition()["goal"], puzzle.metric,
                            puzzle.axis)
        return [puzzle.parse(model.text(p)) for p in model.moves(model.start)]
    raise AssertionError(f"no reference moves for the {puzzle.family} family: add them here")


# --- every puzzle --------------------------------------------------------------------------


@every_puzzle
def test_unrank_then_rank_gives_every_rank_back(name, data):
    puzzle, level, rank, board = a_state(name, data)
    assert puzzle.rank(board) == rank


@every_puzzle
def test_format_then_parse_gives_the_board_back_whatever_separates_the_cells(name, data):
    puzzle, level, rank, board = a_state(name, data)
    text = puzzle.format(board)
    assert np.array_equal(puzzle.parse(text), board)
    assert puzzle.format(puzzle.parse(text)) == text
    # the seeds' notations: any separators between (and around) the cells
    cells = [c for c in text if c not in SEPARATORS]
    gaps = data.draw(st.lists(st.text(SEPARATORS, max_size=2), min_size=len(cells) + 1,
                              max_size=len(cells) + 1), "separators")
    spaced = gaps[0] + "".join(c + g for c, g in zip(cells, gaps[1:]))
    assert np.array_equal(puzzle.parse(spaced), board)


@every_puzzle
def test_the_kernels_neighbours_are_exactly_the_reference_moves(name, data):
    puzzle, level, rank, board = a_state(name, data)
    kernel = sorted(puzzle.neighbours(rank, level))
    reference = sorted(puzzle.rank(np.asarray(b, dtype=np.int64))
                       for b in reference_moves(puzzle, board))
    assert kernel == reference
    if puzzle.reversible:  # one legal move back
        for near in kernel:
            assert rank in puzzle.neighbours(near, level)


# --- the command line ----------------------------------------------------------------------

# What a shell can pass: any text but NUL (argv strings cannot hold it) and lone surrogates
# (a real argv has them only for bytes that are not UTF-8, and a real stderr escapes them:
# the subprocess test below).
TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
               max_size=30)
HUGE = st.builds(lambda s, n: s * n, st.text("0123456789abcdefBWo._ ", min_size=1, max_size=3),
                 st.integers(2_000, 50_000))
WORDS = st.one_of(TEXT, HUGE)
NUMBERS = st.one_of(st.integers(), st.integers(-3, 40)).map(str)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """A results directory with two small databases, an ungraded and a graded one."""
    results = tmp_path_factory.mktemp("fuzz")
    for name in ("eight", "hoppers"):
        build_in_memory(puzzles.get(name), results / name / "layers", progress=False,
                     log=lambda message: None)
    return results


def run(capsys, results, argv):
    """puzzledb in-process: (status, stdout lines, stderr lines); argparse's exits too."""
    try:
        status = main(["--results", str(results), *argv])
    except SystemExit as done:
        status = done.code
    captured = capsys.readouterr()
    return status, captured.out.splitlines(), captured.err.splitlines()


COMMANDS = ["info", "build", "verify", "distance", "solve", "count", "sample", "decode",
            "peg-solutions", "export"]
# quick to refuse, never slow to run: a fuzz must not start a build or a search
FUZZ = settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(command=st.sampled_from(COMMANDS), name=WORDS, rest=st.lists(WORDS, max_size=3))
def test_an_unknown_puzzle_in_any_command_is_one_line(capsys, results, command, name, rest):
    assume(name not in puzzles.names())
    assert_one_line_error(run(capsys, results, [command, name, *rest]))


@FUZZ
@given(command=st.sampled_from(["distance", "solve", "count"]),
       name=st.sampled_from(NAMES), board=st.lists(WORDS, min_size=1, max_size=4))
def test_a_malformed_board_in_any_query_is_one_line(capsys, results, command, name, board):
    puzzle = puzzles.get(name)
    try:
        puzzle.parse(" ".join(board))
    except PuzzledbError:
        pass
    else:
        assume(False)  # a real board: answered, or searched for, not refused
    assert_one_line_error(run(capsys, results, [command, name, *board]))


@FUZZ
@given(name=st.sampled_from(["eight", "hoppers"]), depth=NUMBERS,
       options=st.lists(st.tuples(st.sampled_from(["--count", "--seed"]), NUMBERS), max_size=2))
def test_sample_answers_or_refuses_in_one_line(capsys, results, name, depth, options):
    outcome = run(capsys, results, ["sample", name, depth, *sum(options, ())])
    if outcome[0] != 0:
        assert_one_line_error(outcome)
    else:
        assert 0 <= int(depth) <= {"eight": 31, "hoppers": 11}[name]


@FUZZ
@given(name=st.sampled_from(NAMES), ranks=st.lists(NUMBERS, min_size=1, max_size=3),
       level=st.one_of(st.none(), NUMBERS))
def test_decode_answers_or_refuses_in_one_line(capsys, results, name, ranks, level):
    argv = ["decode", name, *ranks] + ([] if level is None else [f"--level={level}"])
    outcome = run(capsys, results, argv)
    if outcome[0] != 0:
        assert_one_line_error(outcome)
    else:
        assert len(outcome[1]) == len(ranks)


@FUZZ
@given(name=st.sampled_from(NAMES), first=TEXT,
       finish=st.one_of(st.integers(max_value=-1), st.integers(min_value=40)).map(str))
def test_peg_solutions_with_bad_options_is_one_line(capsys, results, name, first, finish):
    # a finish hole outside every board: refused before any search starts
    argv = ["peg-solutions", name, f"--first={first}", f"--finish={finish}"]
    assert_one_line_error(run(capsys, results, argv))


@FUZZ
@given(command=st.sampled_from(COMMANDS), name=st.sampled_from(NAMES), junk=TEXT,
       shape=st.sampled_from(["no puzzle", "unknown option", "not a number"]))
def test_wrong_shapes_and_unknown_options_are_one_line(capsys, results, command, name, junk,
                                                       shape):
    if shape == "no puzzle":
        argv = [command]
    elif shape == "unknown option":
        argv = [command, name, f"--no-such-option{junk}"]
    else:
        try:
            int(junk)
        except ValueError:
            pass
        else:
            assume(False)
        argv = [command if command in ("sample", "decode") else "sample", name, junk]
    assert_one_line_error(run(capsys, results, argv))


@pytest.mark.parametrize("argv, fragment", [
    ([b"distance", b"eight", b"\xff\xfe 123"], "board"),  # not UTF-8: surrogate escapes
    (["distance", "eight", "12345678" * 12_000], "has 96000 cells, expected 9"),
])
def test_the_installed_command_answers_bad_input_in_one_line(tmp_path, argv, fragment):
    result = subprocess.run([sys.executable, "-m", "puzzledb.cli", "--results", str(tmp_path),
                             *argv], capture_output=True)
    err = result.stderr.decode(errors="replace").splitlines()
    assert (result.returncode, len(err)) == (2, 1), err
    assert fragment in err[0]


# --- the config ----------------------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=3),
    max_leaves=8)
PUZZLE_NAMES = st.lists(st.sampled_from(NAMES) | st.text(max_size=8), max_size=3)
PROBLEM_SET = st.dictionaries(
    st.sampled_from(["puzzle", "queries", "k", "per_distance", "min_distance", "seed"])
    | st.text(max_size=6),
    st.sampled_from(NAMES + ["blank-at-goal", "domino-bottom-right"]) | st.integers(-2, 40)
    | JSON, max_size=6)
CONFIG = st.fixed_dictionaries({}, optional={
    "puzzles": PUZZLE_NAMES | JSON, "results": st.text(max_size=8) | JSON,
    "memory_mb": st.integers(-5, 10**6) | JSON, "threads": st.integers(-1, 8) | JSON,
    "verify": st.booleans() | JSON, "problem_sets": st.lists(PROBLEM_SET, max_size=2) | JSON,
}) | st.dictionaries(st.text(max_size=8), JSON, max_size=3) | JSON


@settings(max_examples=100)
@given(config=CONFIG)
def test_any_config_is_accepted_or_refused_with_a_config_error(config):
    text = json.dumps(config)  # the check may fill defaults in: keep what was drawn
    try:
        checked = check_config(config)
    except ConfigError as err:
        assert "\n" not in str(err), text
    else:
        assert set(checked["puzzles"]) <= set(NAMES), text


@settings(max_examples=60)
@given(st.integers(0, 2**62), st.integers(1, 63), st.integers(0, 3000), st.integers(0, 2**32))
def test_the_merges_radix_sort_sorts_like_numpy(low, bits, n, seed):
    """The frontier merge's sort (a radix sort over the bits of a segment's span, in two
    slices merged when large) against np.sort, on spans of 1 to 63 bits."""
    from puzzledb.bfs.frontier.segment import sorted_ranks

    span = min(1 << bits, 2**64 - 1 - low)
    rng = np.random.default_rng(seed)
    values = (np.uint64(low) + rng.integers(0, span, n, dtype=np.uint64, endpoint=False))
    assert np.array_equal(sorted_ranks(values.copy(), low, low + span), np.sort(values))


def test_the_merges_radix_sort_sorts_a_large_segment_in_two_slices():
    from puzzledb.bfs.frontier.segment import sorted_ranks

    rng = np.random.default_rng(5)
    for span in (1000, 2**36, 2**63):
        values = rng.integers(0, span, 1_500_001, dtype=np.uint64) + np.uint64(17)
        assert np.array_equal(sorted_ranks(values.copy(), 17, 17 + span), np.sort(values))
