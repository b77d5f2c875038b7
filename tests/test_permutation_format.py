"""The ksolve/twsearch format as twsearch reads it (docs/permutation.md, "The format"): one
test per rule of the reader, on definitions written here, and the layers of each checked
against the plain-Python reading and BFS of plain_permutation.py."""

import numpy as np
import pytest

from plain_permutation import bfs_plain, board_text
from puzzledb.errors import BoardError, DefinitionError
from puzzledb.puzzles.permutation.puzzle import PermutationPuzzle
from test_permutation import build_into

# Move X leaves set B out, move Y leaves set A out: both unchanged there.
LEFT_OUT = """Set A 4 2
Set B 3 1
Move X
A
2 1 3 4
1 1 0 0
End
Move Y
B
2 3 1
End
Move Z
A
1 3 4 2
0 0 0 1
B
1 3 2
End
"""

# Three identical pieces whose twist is not part of the state, two named ones whose is.
WILD = """Set P 5 3
Solved
P
1 2 3 3 3
0 0 ? ? ?
End
Move S
P
2 3 4 5 1
1 0 0 2 0
End
Move T
P
2 1 3 4 5
0 1 0 0 1
End
"""

# Pieces 1 and 2 never stand in slot 5, piece 6 never in slot 1 (a set of one twisting slot
# beside).
ILLEGAL = """Set S 6 1
Set C 1 2
Move U
S
4 1 2 3 5 6
End
Move V
S
1 2 6 3 4 5
C
1
1
End
Illegal S 5 1 2
Illegal S 1 6
"""

# R is a sequence declared before the moves it uses, one of them the rotation x.
SEQUENCE = """Set A 4 1
Set B 4 2
MoveSequence R x L x
Move L
A
2 3 1 4
B
2 1 3 4
1 1 0 0
End
Move x
A
3 4 1 2
B
3 4 1 2
End
Move U
A
1 2 4 3
End
MoveAlias W U
"""

# Piece numbers 2, 4 (twice) and 9: identical pieces share a number, numbers may skip.
SKIPPING = """Set A 4 1
Solved
A
2 4 4 9
End
Move X
A
2 3 4 1
End
Move Y
A
2 1 3 4
End
"""


def puzzle_of(text, metric="htm", name="p"):
    return PermutationPuzzle(name, text=text, metric=metric)


def definition_error(text):
    with pytest.raises(DefinitionError) as err:
        puzzle_of(text)
    return str(err.value)


@pytest.mark.parametrize("text", [LEFT_OUT, WILD, ILLEGAL, SEQUENCE, SKIPPING],
                         ids=["left-out", "wild", "illegal", "sequence", "skipping"])
@pytest.mark.parametrize("metric", ["htm", "qtm"])
def test_each_rule_of_the_reader_gives_the_layers_of_a_plain_bfs(tmp_path, text, metric):
    sets, expected, wild = bfs_plain(text, metric)
    puzzle = puzzle_of(text, metric, f"p-{metric}")
    layers = build_into(tmp_path, puzzle)
    assert [len(x) for x in layers] == [len(x) for x in expected]
    for ranks, states in zip(layers, expected):
        assert sorted(puzzle.decode(r) for r in ranks) == sorted(board_text(s, sets, wild)
                                                                 for s in states)


def test_a_set_a_move_leaves_out_is_unchanged():
    assert puzzle_of(LEFT_OUT).spec.moves[0].perms[1] == (0, 1, 2)


def test_a_set_solved_leaves_out_is_the_identity():
    assert puzzle_of(LEFT_OUT).spec.solved == (((1, 2, 3, 4), (0, 0, 0, 0)), ((1, 2, 3), (0, 0, 0)))


def test_a_question_mark_twist_is_not_part_of_the_state():
    puzzle = puzzle_of(WILD)
    assert puzzle.size == 5 * 4 * 3 ** 2  # where pieces 1 and 2 stand, and their twists
    assert puzzle.format(puzzle.goal) == "P 1 2 3 3 3 / 0 0 ? ? ?"


def test_identical_pieces_have_a_question_mark_twist_on_all_of_them_or_none():
    assert "identical pieces 3 have a ? orientation on some and not others" in \
        definition_error(WILD.replace("0 0 ? ? ?", "0 0 ? ? 0"))


def test_a_move_sequence_is_the_moves_it_makes():
    puzzle = puzzle_of(SEQUENCE)
    r = puzzle.spec.moves[-1]
    assert r.name == "R"
    assert np.array_equal(puzzle.parse("R"), puzzle.parse("x L x"))


def test_rotations_are_no_generators_and_info_says_so():
    puzzle = puzzle_of(SEQUENCE)
    assert [m.name for m in puzzle.spec.moves] == ["L", "U", "R"]
    assert [m.name for m in puzzle.spec.rotations] == ["x"]
    assert "x: turns of the whole puzzle, not generators" in dict(puzzle.info_lines())["rotations"]


def test_an_alias_names_a_move_for_boards_and_is_no_generator():
    puzzle = puzzle_of(SEQUENCE)
    assert np.array_equal(puzzle.parse("W"), puzzle.parse("U"))
    assert "W" not in puzzle.move_names


def test_a_state_where_a_piece_never_stands_is_never_entered():
    puzzle = puzzle_of(ILLEGAL)
    with pytest.raises(BoardError, match="never stands"):
        puzzle.parse("S 2 3 4 5 1 6")
    assert "piece 5 stands in slot 5 of set S in the solved state" in \
        definition_error(ILLEGAL + "Illegal S 5 5\n")


def test_piece_numbers_need_not_be_contiguous():
    puzzle = puzzle_of(SKIPPING)
    assert puzzle.size == 12  # 4! / 2!: the two pieces numbered 4 are identical
    assert puzzle.format(puzzle.parse("X")) == "A 4 4 9 2"


def test_a_base_move_named_like_a_power_keeps_its_name():
    puzzle = puzzle_of("Set A 4 1\nMove F2\nA\n2 3 4 1\nEnd\n")
    assert puzzle.move_names == ["F2", "F22", "F2'"]


def test_start_state_and_move_transformation_number_from_zero():
    new = puzzle_of("Set A 3 2\nStartState\nA\n0 1 2\nEnd\nMoveTransformation M\nA\n"
                    "1 2 0\n1 0 0\nEnd\n")
    old = puzzle_of("Set A 3 2\nSolved\nA\n1 2 3\nEnd\nMove M\nA\n2 3 1\n0 1 0\nEnd\n")
    assert new.spec.moves[0].perms == old.spec.moves[0].perms
    assert new.spec.moves[0].twists == old.spec.moves[0].twists
    assert new.spec.solved == old.spec.solved


def test_a_line_it_cannot_read_names_the_file_line_and_keyword():
    message = definition_error(LEFT_OUT + "ForbiddenPairs X Y\n")
    assert message.endswith("text line 19: 'ForbiddenPairs' is not a keyword of the format "
                            "(puzzledb reads Name, Set, Solved, StartState, Move, "
                            "MoveTransformation, MoveSequence, MoveAlias, Illegal, End)")


def test_a_factor_of_identical_pieces_past_one_word_is_one_line_with_its_size_in_short():
    pieces = " ".join(str(1 + i // 20) for i in range(60))  # three kinds of twenty pieces
    swap = " ".join(str(i) for i in [2, 1] + list(range(3, 61)))
    turn = " ".join(str(i) for i in list(range(2, 61)) + [1])
    text = (f"Set A 60 1\nSolved\nA\n{pieces}\nEnd\nMove X\nA\n{swap}\nEnd\n"
            f"Move Y\nA\n{turn}\nEnd\n")
    message = definition_error(text)  # 60! / 20!^3 ranks, one factor
    assert message.endswith("A 60-slot arrangements of identical pieces: about 5.78 x 10^26 "
                            "values, past the 2^63 a word of a key holds (of the factors, "
                            "only a permutation of distinct pieces is cut into parts across "
                            "words)")
    assert "\n" not in message


@pytest.mark.parametrize("text", [WILD, ILLEGAL, SEQUENCE], ids=["wild", "illegal", "sequence"])
def test_compiled_ranks_give_the_layers_of_the_tables(tmp_path, text, monkeypatch):
    from puzzledb.puzzles.permutation import layout

    tables = puzzle_of(text)
    tabled = build_into(tmp_path / "tabled", tables)
    monkeypatch.setattr(layout, "TABLE_MAX", 1)  # every component compiled
    puzzle = puzzle_of(text)
    assert puzzle.layout.compiled
    compiled = build_into(tmp_path / "compiled", puzzle)
    assert len(compiled) == len(tabled)
    for a, b in zip(compiled, tabled):  # the same boards, whatever their ranks
        assert sorted(puzzle.decode(r) for r in a) == sorted(tables.decode(r) for r in b)
