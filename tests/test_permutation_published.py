"""Published God's-number tables computed by the permutation family on definitions written
here (the corners and edges of examples/2x2x3.tws, made from the cube's geometry by
benchmarks/permutation_examples.py; the UFO below): OEIS A080627 (the squares group),
A080628 (<U, R>, quarter turns), A080630 (the corners, quarter turns), A079819 and A079820
(the UFO).  The 2x2x2's A079761 and A079762 are test_permutation.py's."""

import pytest

from puzzledb.puzzles.permutation import definition as ksolve
from puzzledb.puzzles.permutation.puzzle import PermutationPuzzle
from test_permutation import EXAMPLES, positions_by_depth

SQUARES = [1, 6, 27, 120, 519, 1932, 6484, 20310, 55034, 113892, 178495, 179196, 89728,
           16176, 1488, 144]  # A080627
UR_QTM = [1, 4, 10, 24, 58, 140, 338, 816, 1970, 4756, 11448, 27448, 65260, 154192, 360692,
          827540, 1851345, 3968840, 7891990, 13659821, 18471682, 16586822, 8039455, 1511110,
          47351, 87]  # A080628
CORNERS_QTM = [1, 12, 114, 924, 6539, 39528, 199926, 806136, 2761740, 8656152, 22334112,
               32420448, 18780864, 2166720, 6624]  # A080630
UFO_HTM = [1, 8, 36, 189, 870, 4182, 19502, 89508, 390114, 1623294, 6100151, 16424349,
           14501714, 762762, 120]  # A079819
UFO_QTM = [1, 5, 20, 79, 306, 1185, 4550, 17240, 64582, 236713, 841951, 2825790, 7998476,
           14330740, 11028854, 2546648, 19660]  # A079820


def move_block(name, move, sets):
    lines = [f"Move {name}"]
    for s, piece_set in enumerate(sets):
        lines += [piece_set.name, " ".join(str(p + 1) for p in move.perms[s]),
                  " ".join(str(t) for t in move.twists[s])]
    return "\n".join(lines + ["End"])


def cube(moves):
    """The 3x3x3's corners and edges, solved as the identity, turned by `moves`: names of
    face turns (U) and half turns (U2, a move of its own)."""
    spec = ksolve.parse((EXAMPLES / "2x2x3.tws").read_text())
    faces = {m.name: m for m in spec.moves}
    blocks = [f"Set {s.name} {s.size} {s.orientations}" for s in spec.sets]
    for name in moves:
        move = faces[name[0]]
        if name.endswith("2"):
            move = ksolve.compose(spec.sets, move, move, name)
        blocks.append(move_block(name, move, spec.sets))
    return "\n".join(blocks) + "\n"


def table(tmp_path, puzzle):
    return positions_by_depth(tmp_path, puzzle)


def test_the_squares_group_has_the_published_table(tmp_path):
    puzzle = PermutationPuzzle("squares", text=cube(["U2", "D2", "R2", "L2", "F2", "B2"]))
    assert table(tmp_path, puzzle) == SQUARES and sum(SQUARES) == 663_552


@pytest.mark.slow
def test_the_group_of_u_and_r_has_the_published_quarter_turn_table(tmp_path):
    puzzle = PermutationPuzzle("ur", text=cube(["U", "R"]), metric="qtm")
    assert puzzle.reachable_bound() == 73_483_200 == sum(UR_QTM)
    assert table(tmp_path, puzzle) == UR_QTM


@pytest.mark.slow
def test_the_corners_have_the_published_quarter_turn_table(tmp_path):
    puzzle = PermutationPuzzle("corners", file=str(EXAMPLES / "corners.tws"), metric="qtm")
    assert table(tmp_path, puzzle) == CORNERS_QTM


# The UFO: discs of six pieces, top (slots 1-6, clockwise seen from above) and bottom (7-12,
# each below its top slot).  U and D turn a disc by one slot, the same way in space; T1..T6
# flip a half (top slots a..a+2 and the bottom ones below them) about the horizontal axis
# through its middle.  Jaap Scherphuis's counts (OEIS) are of positions up to the puzzle's
# 12 symmetries (ROTv: both discs turned together; FLIPv: turned upside down), whose images
# of the solved state are the goals here, so every layer holds 12 times the published count.
def ufo():
    def perm(mapping):  # slot -> the slot its piece goes to, as a ksolve line
        source = [0] * 12
        for a, b in mapping.items():
            source[b] = a
        return " ".join(str(x + 1) for x in source)

    def turn(disc):
        return {disc + i: disc + (i + 1) % 6 for i in range(6)} | \
            {s: s for s in range(12) if not disc <= s < disc + 6}

    def flip(a):
        out = {s: s for s in range(12)}
        for j in range(3):
            top, bottom = (a + j) % 6, 6 + (a + 2 - j) % 6
            out[top], out[bottom] = bottom, top
        return out

    upside_down = {i: 6 + (-i) % 6 for i in range(6)} | {6 + i: (-i) % 6 for i in range(6)}
    both = {s: (s // 6) * 6 + (s % 6 + 1) % 6 for s in range(12)}
    moves = [("U", turn(0)), ("D", turn(6))] + [(f"T{a + 1}", flip(a)) for a in range(6)]
    moves += [("ROTv", both), ("FLIPv", upside_down)]
    return "Set SLOTS 12 1\n" + "".join(f"Move {name}\nSLOTS\n{perm(m)}\nEnd\n"
                                        for name, m in moves)


UFO_GOALS = [f"{flip} {rot}".strip() for flip in ("", "FLIPv")
             for rot in ("", "ROTv", "ROTv2", "ROTv3", "ROTv2'", "ROTv'")]


@pytest.mark.slow
@pytest.mark.parametrize("metric, published", [("htm", UFO_HTM), ("qtm", UFO_QTM)])
def test_the_ufo_has_the_published_tables_twelve_times_over(tmp_path, metric, published):
    puzzle = PermutationPuzzle("ufo", text=ufo(), metric=metric, goal=UFO_GOALS)
    assert puzzle.goal_ranks().size == 12 and sum(published) * 12 == puzzle.size
    assert table(tmp_path, puzzle) == [12 * count for count in published]
