"""Peg solitaire (seed 004 and the published tables): Hoppers, the English 33-hole board and
the 15-hole triangle.  The hoppers and triangle15 databases are built here (well under a
second each); english33 is too large for the suite, so its rank, kernel and symmetries are
checked on samples and its first layers against a plain-Python search.  The full english33
counts are checked by benchmarks/bench_pegs.py."""

from pathlib import Path
import random
from functools import cache
from math import comb

import numba
import numpy as np
import pytest

from building import build_in_memory
from checkers import peg_finishes, peg_jumps, peg_masks
from conftest import puzzledb_cli
from puzzledb.report import analysis
from puzzledb.bfs import memory
from puzzledb import puzzles
from puzzledb import paths
from puzzledb.query.database import DepthDatabase
from puzzledb.errors import BoardError
from puzzledb.puzzles.base import Puzzle
from puzzledb.puzzles.pegs.puzzle import format_moves
from puzzledb.puzzles.pegs.ranks import rank_reference

# seed 004's jump table of Hoppers, as (from, over, to) triples
SEED_HOPPERS_JUMPS = {
    (0, 1, 2), (0, 3, 6), (0, 5, 10), (1, 3, 5), (1, 6, 11), (1, 4, 7),
    (2, 1, 0), (2, 4, 6), (2, 7, 12), (3, 6, 9), (4, 6, 8), (5, 3, 1), (5, 6, 7), (5, 8, 11),
    (6, 3, 0), (6, 4, 2), (6, 8, 10), (6, 9, 12), (7, 4, 1), (7, 6, 5), (7, 9, 11), (8, 6, 4),
    (9, 6, 3), (10, 5, 0), (10, 8, 6), (10, 11, 12), (11, 8, 5), (11, 6, 1), (11, 9, 7),
    (12, 11, 10), (12, 9, 6), (12, 7, 2),
}
# seed 004: the 18 seven-move solutions of Hoppers whose first move is 0 -> 6
SEED_HOPPERS_SOLUTIONS = """\
(0,6)(9,3)(2,0,6)(11,1)(10,0,2,6)(8,4)(12,2,6)
(0,6)(9,3)(2,0,6)(11,1)(10,6)(4,8)(12,2,0,10,6)
(0,6)(9,3)(2,0,6)(11,1)(12,2,6)(8,4)(10,0,2,6)
(0,6)(9,3)(2,6)(8,4)(10,0,2,6)(7,5)(12,10,0,6)
(0,6)(9,3)(2,6)(8,4)(10,0,2,6)(11,1)(12,2,0,6)
(0,6)(9,3)(2,6)(8,4)(10,0,6)(7,5)(12,10,0,2,6)
(0,6)(9,3)(2,6)(8,4)(12,2,0,6)(5,7)(10,12,2,6)
(0,6)(9,3)(2,6)(8,4)(12,2,0,6)(11,1)(10,0,2,6)
(0,6)(9,3)(2,6)(8,4)(12,2,6)(5,7)(10,12,2,0,6)
(0,6)(9,3)(10,0,6)(7,5)(2,0,10,6)(4,8)(12,10,6)
(0,6)(9,3)(10,0,6)(7,5)(2,6)(8,4)(12,10,0,2,6)
(0,6)(9,3)(10,0,6)(7,5)(12,10,6)(4,8)(2,0,10,6)
(0,6)(9,3)(10,6)(4,8)(2,0,6)(11,1)(12,2,0,10,6)
(0,6)(9,3)(10,6)(4,8)(2,0,10,6)(7,5)(12,10,0,6)
(0,6)(9,3)(10,6)(4,8)(2,0,10,6)(11,1)(12,2,0,6)
(0,6)(9,3)(10,6)(4,8)(12,10,0,6)(1,11)(2,12,10,6)
(0,6)(9,3)(10,6)(4,8)(12,10,0,6)(7,5)(2,0,10,6)
(0,6)(9,3)(10,6)(4,8)(12,10,6)(1,11)(2,12,10,0,6)
""".splitlines()
# OEIS A014225 / A112737 (George Bell): english33 positions after n jumps from the central
# vacancy, all of them and up to the 8 symmetries of the board (first layers only here)
ENGLISH33_FIRST = [1, 4, 12, 60, 296, 1338, 5648, 21842]
ENGLISH33_FIRST_ORBITS = [1, 1, 2, 8, 39, 171, 719, 2757]
# Jaap Scherphuis's table of the triangle with the top hole (a1) empty at the start
TRIANGLE15_COUNTS = [1, 2, 8, 35, 122, 293, 530, 679, 623, 414, 212, 75, 18, 4]
HOPPERS_COUNTS = [1, 4, 12, 44, 168, 390, 626, 566, 346, 144, 38, 5]


# --- an independent move checker: holes as grid points, a jump as a displacement --------------


@cache
def grid(name):
    """The holes of a board as (row, column), row-major, and the displacements of a jump."""
    if name == "hoppers":
        holes = [(r, c) for r in range(5) for c in range(5) if (r + c) % 2 == 0]
        steps = [(2, 2), (2, -2), (-2, 2), (-2, -2), (0, 4), (0, -4), (4, 0), (-4, 0)]
    elif name == "english33":
        holes = [(r, c) for r in range(7) for c in range(7) if min(abs(r - 3), abs(c - 3)) <= 1]
        steps = [(0, 2), (0, -2), (2, 0), (-2, 0)]
    else:
        holes = [(r, c) for r in range(5) for c in range(r + 1)]
        steps = [(0, 2), (0, -2), (2, 0), (-2, 0), (2, 2), (-2, -2)]
    return {h: i for i, h in enumerate(holes)}, steps


def jump(name, pegs, a, b):
    """The pegs (a set of hole numbers) after the peg at a jumps to b; None if illegal."""
    index, steps = grid(name)
    holes = list(index)
    (ra, ca), (rb, cb) = holes[a], holes[b]
    if (rb - ra, cb - ca) not in steps:
        return None
    middle = ((ra + rb) // 2, (ca + cb) // 2)
    if middle not in index:
        return None
    over = index[middle]
    if a not in pegs or over not in pegs or b in pegs:
        return None
    return (pegs - {a, over}) | {b}


def start_pegs(name):
    index, _ = grid(name)
    empty = {"hoppers": (2, 2), "english33": (3, 3), "triangle15": (0, 0)}[name]
    return frozenset(i for h, i in index.items() if h != empty)


def successors(name, pegs):
    count = len(grid(name)[0])
    return {after for a in pegs for b in range(count)
            if (after := jump(name, pegs, a, b)) is not None}


def layers_by_checker(name, depth):
    """The sets of peg sets after 0..depth jumps, by the checker alone."""
    layers = [{start_pegs(name)}]
    for _ in range(depth):
        layers.append(set().union(*(successors(name, p) for p in layers[-1])))
    return layers


def replay(name, moves):
    """Replay moves in the seed's notation (holes visited by one peg) from the start; the
    pegs left.  Fails on an illegal jump or a move whose jumps are not by one peg."""
    pegs = start_pegs(name)
    for move in moves:
        assert len(move) >= 2
        for a, b in zip(move, move[1:]):
            pegs = jump(name, pegs, a, b)
            assert pegs is not None, f"illegal jump {a}->{b} in {format_moves(moves)}"
    return pegs


def mask_of(pegs):
    return sum(1 << h for h in pegs)


# --- fixtures ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def peg_results(tmp_path_factory):
    """hoppers and triangle15 databases, built by the engine into a temporary peg_results dir."""
    numba.set_num_threads(2)
    root = tmp_path_factory.mktemp("pegs")
    for name in ("hoppers", "triangle15"):
        build_in_memory(puzzles.get(name), Path(paths.layers(root, name)), threads=2,
                     progress=False, log=lambda m: None)
    return root


def layer_counts(peg_results, name):
    with DepthDatabase.open(name, peg_results) as db:
        return [db.layer(d).count for d in range(db.max_depth + 1)]


# --- boards, jumps, notation ------------------------------------------------------------------


def test_hoppers_jumps_are_the_jump_table_of_the_seed():
    assert set(puzzles.get("hoppers").jumps) == SEED_HOPPERS_JUMPS


@pytest.mark.parametrize("name, holes, jumps", [
    ("hoppers", 13, 32), ("english33", 33, 76), ("triangle15", 15, 36)])
def test_each_board_has_its_holes_and_the_jumps_the_move_checker_allows(name, holes, jumps):
    puzzle = puzzles.get(name)
    assert puzzle.cells == holes and len(puzzle.jumps) == jumps
    legal = {(a, b) for a in range(holes) for b in range(holes)
             if jump(name, frozenset(set(range(holes)) - {b}), a, b) is not None}
    assert {(f, t) for f, _, t in puzzle.jumps} == legal


def test_board_strings_show_rows_and_read_back_in_the_seeds_digits_too():
    hoppers = puzzles.get("hoppers")
    start = hoppers.start()
    assert hoppers.format(start) == "ooo oo o.o oo ooo"
    assert list(hoppers.parse("ooo oo o.o oo ooo")) == list(start)
    # the seed's board array: 1 for a peg, 0 for an empty hole, hole order 0..12
    assert list(hoppers.parse("[1,1,1,1,1,1,0,1,1,1,1,1,1]")) == list(start)
    english = puzzles.get("english33")
    assert english.format(english.start()) == "ooo ooo ooooooo ooo.ooo ooooooo ooo ooo"
    triangle = puzzles.get("triangle15")
    assert triangle.format(triangle.start()) == ". oo ooo oooo ooooo"


@pytest.mark.parametrize("text, problem", [
    ("ooo oo o.o oo oo", "has 12 holes, expected 13"),
    ("ooo oo o?o oo ooo", "symbols '?'"),
    ("... .. ... .. ...", "has 0 pegs"),
    ("ooo oo ooo oo ooo", "has 13 pegs"),
])
def test_a_bad_hoppers_board_is_a_one_line_board_error(text, problem):
    with pytest.raises(BoardError) as err:
        puzzles.get("hoppers").parse(text)
    assert problem in str(err.value) and "\n" not in str(err.value)


# --- ranks ------------------------------------------------------------------------------------


@pytest.mark.parametrize("pegs", [1, 2, 6, 11, 12])
def test_hoppers_ranks_number_every_peg_mask_densely_in_colex_order(pegs):
    hoppers = puzzles.get("hoppers")
    level = hoppers.start_pegs - pegs
    masks = peg_masks(13, pegs)
    assert len(masks) == hoppers.level_size(level) == comb(13, pegs)
    for rank, mask in enumerate(masks):
        board = hoppers.board_of_mask(mask)
        assert hoppers.rank(board) == rank
        assert hoppers.mask(hoppers.unrank(rank, level)) == mask


@pytest.mark.parametrize("name", ["hoppers", "english33", "triangle15"])
def test_rank_inverts_unrank_and_agrees_with_the_reference_on_random_boards(name):
    puzzle = puzzles.get(name)
    rng = random.Random(4)
    for _ in range(500):
        pegs = rng.randint(1, puzzle.start_pegs)
        mask = mask_of(rng.sample(range(puzzle.cells), pegs))
        rank = puzzle.rank(puzzle.board_of_mask(mask))
        assert rank == rank_reference(mask) < comb(puzzle.cells, pegs)
        assert puzzle.mask(puzzle.unrank(rank, puzzle.start_pegs - pegs)) == mask


def test_english33_needs_only_its_two_widest_levels_in_memory():
    english = puzzles.get("english33")
    widest = comb(33, 16) + comb(33, 17)  # 16 and 17 pegs: after 16 and 15 jumps
    need = memory.search_bytes(english)
    assert widest // 8 < need < widest // 8 + 2**24
    assert need < 300 * 2**20
    levels = english.levels()  # 32 pegs down to 1: every level a mask of that many pegs
    assert levels == [comb(33, pegs) for pegs in range(32, 0, -1)]
    assert english.rank_space().startswith("32 levels of 33 to 1,166,803,110 ranks")
    assert english.size == sum(levels) == 2**33 - 2  # every mask but the empty and full


# --- the compiled kernel against the plain-Python moves ---------------------------------------


@pytest.mark.parametrize("name", ["hoppers", "english33", "triangle15"])
def test_the_kernel_gives_the_jumps_of_the_reference_and_of_the_checker(name):
    puzzle = puzzles.get(name)
    rng = random.Random(7)
    for _ in range(400):
        pegs = rng.randint(2, puzzle.start_pegs)
        holes = frozenset(rng.sample(range(puzzle.cells), pegs))
        board = puzzle.board_of_mask(mask_of(holes))
        level = puzzle.start_pegs - pegs
        kernel = sorted(puzzle.neighbours(puzzle.rank(board), level))
        reference = sorted(puzzle.rank(b) for b in peg_jumps(puzzle, board))
        checker = sorted(rank_reference(mask_of(p)) for p in successors(name, holes))
        assert kernel == reference == checker


# --- symmetries -------------------------------------------------------------------------------


@pytest.mark.parametrize("name, count", [("hoppers", 8), ("english33", 8), ("triangle15", 2)])
def test_the_symmetries_kept_are_those_that_fix_the_start(name, count):
    """The triangle has 6 symmetries, but only the mirror through the top hole fixes the
    start (its top hole empty): the layers are distances from the start."""
    puzzle = puzzles.get(name)
    assert len(puzzle.symmetries()) + 1 == count
    start = puzzle.start()
    for perm in puzzle.symmetries():
        assert list(start[list(perm)]) == list(start)


@pytest.mark.parametrize("name", ["hoppers", "english33", "triangle15"])
def test_symmetries_carry_jumps_onto_jumps_and_the_compiled_canonical_rank_is_right(name):
    puzzle = puzzles.get(name)
    rng = random.Random(11)
    for _ in range(100):
        pegs = rng.randint(2, puzzle.start_pegs)
        board = puzzle.board_of_mask(mask_of(rng.sample(range(puzzle.cells), pegs)))
        after = [np.array(b) for b in peg_jumps(puzzle, board)]
        for perm in puzzle.symmetries():
            p = list(perm)
            assert {tuple(b) for b in peg_jumps(puzzle, board[p])} == \
                {tuple(b[p]) for b in after}
    ranks, levels = [], []
    for _ in range(300):
        pegs = rng.randint(1, puzzle.start_pegs)
        ranks.append(rank_reference(mask_of(rng.sample(range(puzzle.cells), pegs))))
        levels.append(puzzle.start_pegs - pegs)
    for level in set(levels):
        some = np.array([r for r, lv in zip(ranks, levels) if lv == level], dtype=np.uint64)
        assert list(puzzle.canonical_ranks(some, level)) == \
            list(Puzzle.canonical_ranks(puzzle, some, level))


# --- the databases ----------------------------------------------------------------------------


def test_hoppers_layers_are_the_positions_after_each_jump_as_the_checker_finds_them(peg_results):
    counts = layer_counts(peg_results, "hoppers")
    assert counts == HOPPERS_COUNTS and sum(counts) == 2344
    hoppers = puzzles.get("hoppers")
    with DepthDatabase.open("hoppers", peg_results) as db:
        for depth, expected in enumerate(layers_by_checker("hoppers", 11)):
            assert list(db.layer(depth).ranks()) == sorted(rank_reference(mask_of(p))
                                                           for p in expected)
        assert db.distance(hoppers.format(hoppers.start())) == 0
        assert db.distance(".oo .o ooo oo ooo") == 1  # after the first jump 0 -> 6
        assert db.distance("o.. .. ... .. ..o") == 10  # two pegs left: ten jumps


def test_a_graded_build_cut_short_resumes_from_its_last_layer_in_that_levels_rank_space(
        tmp_path):
    """Layers 7.. and the manifest lost, layer 6 damaged: the engine keeps 0..5 and goes on
    from layer 5 alone (a graded search holds no seen set)."""
    hoppers = puzzles.get("hoppers")
    directory = Path(paths.layers(tmp_path, "hoppers"))
    build_in_memory(hoppers, directory, threads=2, progress=False, log=lambda m: None)
    (directory / "manifest.json").unlink()
    for depth in range(7, 12):
        (directory / f"depth_{depth:03d}.h5").unlink()
    (directory / "depth_006.h5").write_bytes(b"cut short")
    report = build_in_memory(hoppers, directory, threads=2, progress=False, log=lambda m: None)
    assert report.resumed_from == 5 and report.total == 2344
    assert layer_counts(tmp_path, "hoppers") == HOPPERS_COUNTS


def test_hoppers_ends_with_one_peg_in_the_centre_or_a_corner(peg_results):
    with DepthDatabase.open("hoppers", peg_results) as db:
        assert db.max_depth == 11
        assert peg_finishes(db) == [0, 2, 6, 10, 12]


def test_triangle15_counts_per_jump_are_the_published_table(peg_results):
    counts = layer_counts(peg_results, "triangle15")
    assert counts == TRIANGLE15_COUNTS and sum(counts) == 3016
    with DepthDatabase.open("triangle15", peg_results) as db:
        for depth, expected in enumerate(layers_by_checker("triangle15", 13)):
            assert db.layer(depth).count == len(expected)


def test_triangle15_with_the_top_empty_finishes_at_the_top_the_bottom_middle_or_row_4_ends(
        peg_results):
    """Holes numbered row-major from the top: 6 and 9 are the ends of the fourth row, 12 the
    middle of the bottom row (a1, a4, d4, c5 in the published table)."""
    with DepthDatabase.open("triangle15", peg_results) as db:
        assert db.max_depth == 13
        assert peg_finishes(db) == [0, 6, 9, 12]


def test_english33_first_layers_match_the_checker_and_the_published_counts():
    """Layers 0..7 by the compiled kernel, against the checker's layers and OEIS A014225,
    and counted up to symmetry by the compiled canonical rank against A112737."""
    english = puzzles.get("english33")
    checker = layers_by_checker("english33", 6)
    layer = [int(english.goal_ranks()[0])]
    for depth in range(len(ENGLISH33_FIRST)):
        assert len(layer) == ENGLISH33_FIRST[depth]
        if depth < len(checker):
            assert layer == sorted(rank_reference(mask_of(p)) for p in checker[depth])
        ranks = np.array(layer, dtype=np.uint64)
        orbits = np.count_nonzero(english.canonical_ranks(ranks, depth) == ranks)
        assert orbits == ENGLISH33_FIRST_ORBITS[depth]
        layer = sorted({n for r in layer for n in english.neighbours(r, depth)})


def orbit_counts(name, layers):
    """Positions per layer up to the symmetries of the board that fix the start, from grid
    coordinates: the square's 8 maps for hoppers, the mirror through the top for the
    triangle."""
    index, _ = grid(name)
    if name == "hoppers":
        maps = [lambda r, c: (r, c), lambda r, c: (r, 4 - c), lambda r, c: (4 - r, c),
                lambda r, c: (4 - r, 4 - c), lambda r, c: (c, r), lambda r, c: (c, 4 - r),
                lambda r, c: (4 - c, r), lambda r, c: (4 - c, 4 - r)]
    else:
        maps = [lambda r, c: (r, c), lambda r, c: (r, r - c)]
    perms = [[index[f(*h)] for h in index] for f in maps]
    return [len({min(tuple(sorted(p[h] for h in pegs)) for p in perms) for pegs in layer})
            for layer in layers]


@pytest.mark.parametrize("name, jumps, orbits", [
    ("hoppers", 11, [1, 1, 2, 6, 24, 55, 86, 82, 53, 25, 8, 2]),
    ("triangle15", 13, [1, 1, 4, 19, 62, 149, 268, 344, 317, 215, 112, 39, 10, 3])])
def test_layers_counted_up_to_symmetry_agree_with_the_checkers_orbits(peg_results, name, jumps,
                                                                       orbits):
    with DepthDatabase.open(name, peg_results) as db:
        rows = analysis.symmetry_summary(db)
    assert [r[2] for r in rows] == orbits == orbit_counts(name, layers_by_checker(name, jumps))


# --- the move metric: consecutive jumps by one peg are one move -------------------------------


def test_hoppers_needs_7_moves_and_from_0_to_6_has_the_seeds_18_solutions():
    hoppers = puzzles.get("hoppers")
    result = hoppers.solutions_in_moves(6, first_move=(0, 6))
    printed = [format_moves(s) for s in result.solutions]
    assert result.length == 7
    assert sorted(printed) == sorted(SEED_HOPPERS_SOLUTIONS) and len(set(printed)) == 18
    for moves in result.solutions:
        assert len(moves) == 7 and replay("hoppers", moves) == {6}
        # no two consecutive moves by one peg: they would be one move
        assert all(a[-1] != b[0] for a, b in zip(moves, moves[1:]))


def test_hoppers_has_72_seven_move_solutions_four_first_moves_times_the_seeds_18():
    """Every first jump is a corner peg into the centre, and the four are one orbit."""
    hoppers = puzzles.get("hoppers")
    result = hoppers.solutions_in_moves(6)
    assert result.length == 7 and len(result.solutions) == 72
    assert sorted({s[0] for s in result.solutions}) == [(0, 6), (2, 6), (10, 6), (12, 6)]
    for moves in result.solutions:
        assert replay("hoppers", moves) == {6}


def test_a_first_move_that_is_no_move_from_the_start_is_a_board_error():
    with pytest.raises(BoardError, match="not a move"):
        puzzles.get("hoppers").solutions_in_moves(6, first_move=(1, 6))


# --- the command line -------------------------------------------------------------------------


def test_the_cli_prints_the_seeds_18_hoppers_solutions_and_answers_distances(peg_results):
    run = puzzledb_cli("peg-solutions", "hoppers", "--first", "0,6")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert sorted(lines) == sorted(SEED_HOPPERS_SOLUTIONS)
    for line in lines:  # the printed notation itself replays to one peg in the centre
        moves = [tuple(int(h) for h in m.split(",")) for m in line.strip("()").split(")(")]
        assert replay("hoppers", moves) == {6}
    assert "18 solutions of 7 moves" in run.stderr
    run = puzzledb_cli("distance", "hoppers", ".o. .. ... .. .o.", "--results", str(peg_results))
    assert run.returncode == 2 and "unreachable" in run.stderr
    assert run.stderr.count("\n") == 1
    run = puzzledb_cli("sample", "hoppers", "11", "--results", str(peg_results))
    assert run.stdout.splitlines() == [
        "o.. .. ... .. ...", "..o .. ... .. ...", "... .. .o. .. ...",
        "... .. ... .. o..", "... .. ... .. ..o"]
