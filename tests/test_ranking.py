from itertools import permutations

import numpy as np
import pytest

from puzzledb import puzzles
from puzzledb.errors import BoardError
from puzzledb.bfs.frontier.kernels import layer_neighbours
from puzzledb.puzzles.sliding.puzzle import SlidingPuzzle

from checkers import slides
from seed_figures import FIFTEEN_3COLOUR_SEED_RANKS


def test_fifteen_3colour_ranks_boards_with_the_seeds_numbering():
    puzzle = puzzles.get("fifteen-3colour")
    for board, rank in FIFTEEN_3COLOUR_SEED_RANKS.items():
        assert puzzle.board_rank(board) == rank
        assert puzzle.decode(rank) == board


# The definition hashes in the layer files of databases built before the sliding family was
# composed of a numbering and a metric (rankings.py, metrics.py): kept, or every such
# database would be distrusted and rebuilt.  Both numberings, both metrics.
EARLIER_HASHES = {
    "eight": "9a0f414f06387e1d",
    "eleven": "397b8ce06cb3bc10",
    "fifteen-6colour": "ed857aefda003dd4",
    "fifteen-3colour": "bdf40130e7e64eb3",
    "eight-multi": "edfbbd549e082666",
    "fifteen-6colour-multi": "bc7a44bfeaaf184c",
}


def test_layers_built_before_keep_their_definition_hash_in_either_numbering_and_metric():
    for name, earlier in EARLIER_HASHES.items():
        built_in = puzzles.get(name.removesuffix("-multi"))
        puzzle = SlidingPuzzle(name, built_in.width, built_in.cells // built_in.width,
                               built_in.format(built_in.goal),
                               metric="multi-tile" if name.endswith("-multi") else
                               "single-tile")
        assert puzzle.definition_hash() == earlier, name


def compiled_rank(puzzle, board):
    return int(puzzle.compiled.rank(np.asarray(board, dtype=np.int64), puzzle.tables()))


def compiled_unrank(puzzle, rank):
    out = np.empty(puzzle.cells, dtype=np.int64)
    puzzle.compiled.unrank(np.int64(rank), out, puzzle.tables())
    return out.tolist()


@pytest.mark.parametrize("name", ["fifteen-6colour", "fifteen-3colour"])
def test_multiset_rank_kernels_agree_with_the_plain_rank_and_unrank(name):
    # the kernels decode boards inside every expansion; a single board is ranked and
    # decoded in plain Python (ranking.py): both must be the same numbering
    puzzle = puzzles.get(name)
    rng = np.random.default_rng(1)
    for rank in [0, puzzle.size - 1, *rng.integers(0, puzzle.size, 300)]:
        board = puzzle.unrank(int(rank))
        assert board.tolist() == compiled_unrank(puzzle, rank)
        assert puzzle.rank(board) == rank == compiled_rank(puzzle, board)


def test_eight_rank_is_a_bijection_onto_0_to_181439():
    """Every board whose tiles (blank skipped) have an even number of inversions, the
    classic solvability rule of a 3x3 board, gets its own rank, the ranks fill 0..181439,
    and unrank gives each board back."""
    puzzle = puzzles.get("eight")
    boards = [b for b in permutations(range(9)) if inversions([p for p in b if p]) % 2 == 0]
    ranks = [puzzle.rank(np.array(b)) for b in boards]
    assert sorted(ranks) == list(range(181_440)) == list(range(puzzle.size))
    for board, rank in zip(boards[::97], ranks[::97]):
        assert puzzle.unrank(rank).tolist() == list(board) == compiled_unrank(puzzle, rank)
        assert compiled_rank(puzzle, board) == rank


def inversions(tiles):
    return sum(x > y for i, x in enumerate(tiles) for y in tiles[i + 1:])


@pytest.mark.parametrize("name", ["eleven", "fifteen"])
def test_permutation_rank_kernels_agree_with_the_plain_rank_and_unrank(name):
    puzzle = puzzles.get(name)
    assert puzzle.size == {"eleven": 239_500_800, "fifteen": 10_461_394_944_000}[name]
    rng = np.random.default_rng(3)
    for rank in [0, puzzle.size - 1, *rng.integers(0, puzzle.size, 500)]:
        board = puzzle.unrank(int(rank))
        assert board.tolist() == compiled_unrank(puzzle, rank)
        assert puzzle.rank(board) == rank == compiled_rank(puzzle, board)


@pytest.mark.parametrize("name", ["fifteen-6colour", "fifteen-3colour", "eight", "eleven"])
def test_neighbours_kernel_agrees_with_plain_python_slides(name):
    puzzle = puzzles.get(name)
    rng = np.random.default_rng(2)
    for rank in rng.integers(0, puzzle.size, 200):
        board = puzzle.unrank(int(rank))
        near = slides(board, puzzle.width, blank=0)
        expected = sorted(puzzle.rank(np.array(b)) for b in near)
        assert sorted(puzzle.neighbours(int(rank))) == expected
        # a slide stays in the reachable set: it parses and survives rank then unrank
        for b in near:
            text = puzzle.format(b)
            assert puzzle.decode(puzzle.board_rank(text)) == text


def test_boards_are_parsed_in_the_seeds_notations():
    puzzle = puzzles.get("fifteen-6colour")
    assert puzzle.format(puzzle.parse("[ 0 6 6 5 6 6 6 6 6 6 6 6 4 2 3 1 ]")) == "0665 6666 6666 4231"
    assert puzzle.format(puzzle.parse("(0, 6, 6, 5, 6, 6, 6, 6, 6, 6, 6, 6, 4, 2, 3, 1)")) == (
        "0665 6666 6666 4231")


def test_an_eight_board_of_the_wrong_parity_is_refused_as_unreachable():
    with pytest.raises(BoardError, match="unreachable"):
        puzzles.get("eight").parse("213 456 780")


OTHER_SHAPES = {"5x3": ("12345 6789a bcde0", 5, 3), "2x5": ("12 34 56 78 90", 2, 5)}


@pytest.mark.parametrize("name", ["eight", "eleven", "fifteen", *OTHER_SHAPES])
@pytest.mark.parametrize("density", [0.9, 0.05, 1e-4, 1e-9])
def test_neighbours_of_ascending_ranks_decoded_from_the_one_before_are_each_boards(name,
                                                                                   density):
    # layer_neighbours decodes each rank from where it differs from the one before
    # (neighbours_after) and ranks a vertical move from the board's Lehmer digits; every
    # state's neighbours must be those of its own board, ranked by the plain rank
    if name in OTHER_SHAPES:
        goal, width, height = OTHER_SHAPES[name]
        puzzle = SlidingPuzzle(name, width, height, goal)
    else:
        puzzle = puzzles.get(name)
    rng = np.random.default_rng(5)
    span = min(puzzle.size, max(6000, int(6000 / density)))
    low = int(rng.integers(0, puzzle.size - span + 1))
    ranks = np.unique(rng.integers(low, low + span, 6000).astype(np.uint64))
    moves = puzzle.max_moves
    out = np.empty(ranks.size * moves, np.int64)
    counts = np.empty(ranks.size, np.int64)
    layer_neighbours(ranks, np.int64(0), puzzle.tables(), moves, puzzle.work_size, out,
                     counts)
    for i, rank in enumerate(ranks):
        board = puzzle.unrank(int(rank))
        blank = int(np.flatnonzero(board == 0)[0])
        expected = []
        for cell in puzzle.adjacent[blank]:
            if cell >= 0:
                moved = board.copy()
                moved[blank], moved[cell] = moved[cell], 0
                expected.append(puzzle.rank(moved))
        assert sorted(out[i * moves:i * moves + counts[i]].tolist()) == sorted(expected)
