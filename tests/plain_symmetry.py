"""A cube's corners from geometry, in plain Python, for the tests of symmetry reduction:
the definition files of a 2x2x2 (its six faces turned a quarter; solved states with
identical pieces or `?` twists too) written from coordinates, and a breadth-first search
whose classes come from the cube's 48 rotations and reflections applied as matrices to the
stickers, and from inversion, not from anything the family finds or computes.

A corner slot is a vector v in {-1, 1}^3; its three stickers face the axes x, y, z, listed
counter-clockwise seen from outside (x y z when v_x v_y v_z = 1, else x z y).  A state
says for each slot its piece and the piece's twist o: the piece's sticker k stands on the
slot's sticker k + o."""

from functools import cache
from itertools import permutations, product

from plain_permutation import apply_plain, read_plain

SLOTS = [v for v in product((1, -1), repeat=3)]
U_LAYER = tuple(1 if v[2] == 1 else 2 for v in SLOTS)  # the U layer's corners alike, the D's
FACES = {"U": (2, 1), "D": (2, -1), "F": (1, -1), "B": (1, 1), "R": (0, 1), "L": (0, -1)}


def cycle(v):
    """The axes of slot v's stickers, counter-clockwise seen from outside, the one facing
    up or down first (so that a piece's sticker 0 is its U or D sticker)."""
    return (2, 0, 1) if v[0] * v[1] * v[2] == 1 else (2, 1, 0)


def matrices():
    """The cube's 48 symmetries as signed permutation matrices (rows), identity first."""
    out = []
    for axes in permutations(range(3)):
        for signs in product((1, -1), repeat=3):
            out.append(tuple(tuple(signs[r] if c == axes[r] else 0 for c in range(3))
                             for r in range(3)))
    return out


def act(m, v):
    return tuple(sum(m[r][c] * v[c] for c in range(3)) for r in range(3))


@cache
def sticker_map(m):
    """Where matrix m takes each sticker (slot index, k) -> (slot index, k)."""
    out = {}
    for i, v in enumerate(SLOTS):
        w = act(m, v)
        j = SLOTS.index(w)
        for k, axis in enumerate(cycle(v)):
            unit = [0, 0, 0]
            unit[axis] = 1
            image = act(m, unit)
            out[(i, k)] = (j, cycle(w).index(next(a for a in range(3) if image[a])))
    return out


def quarter_turn(face):
    """The matrix of a quarter turn of face's layer: about its axis a, e_b -> e_c and
    e_c -> -e_b for (a, b, c) in cyclic order, the other way round for the far face."""
    axis, side = FACES[face]
    b, c = (axis + 1) % 3, (axis + 2) % 3
    m = [[0] * 3 for _ in range(3)]
    m[axis][axis] = 1
    m[c][b], m[b][c] = side, -side
    return tuple(tuple(r) for r in m)


def move_lines(face):
    """A face turn as a definition's Move block: for each slot the slot its piece comes
    from (1-based) and the twist a piece gets, by the slot it leaves."""
    axis, side = FACES[face]
    m = quarter_turn(face)
    stickers = sticker_map(m)
    source = [0] * 8
    twist = [0] * 8
    for j, v in enumerate(SLOTS):
        if v[axis] != side:
            source[j] = j + 1
            continue
        i, k = stickers[(j, 0)]
        source[i] = j + 1
        twist[j] = k % 3
    return source, twist


def cube_text(labels=(1, 2, 3, 4, 5, 6, 7, 8), twists=None):
    """The 2x2x2 with all six faces turning, solved labels and orientations as given."""
    lines = ["Name geometric-2x2x2", "Set CORNERS 8 3", "Solved", "CORNERS",
             " ".join(map(str, labels)), " ".join(twists or ["0"] * 8), "End"]
    for face in FACES:
        source, twist = move_lines(face)
        lines += [f"Move {face}", "CORNERS", " ".join(map(str, source)),
                  " ".join(map(str, twist)), "End"]
    return "\n".join(lines) + "\n"


def stickers_of(state):
    """{slot sticker: (piece, the piece's sticker)} of a state ((labels, oris),)."""
    labels, oris = state[0]
    return {(i, (k + oris[i]) % 3): (labels[i], k) for i in range(8) for k in range(3)}


def state_of(stickers):
    labels, oris = [], []
    for i in range(8):
        piece, k = stickers[(i, 0)]
        labels.append(piece)
        oris.append((-k) % 3)
    return ((tuple(labels), tuple(oris)),)


def conjugate(state, m, solved, wild):
    """The state turned by m and its pieces renamed as m moves their solved places: a
    piece p whose home is slot h becomes the piece solved at slot m(h), its sticker k the
    sticker that m makes of h's sticker k (solved: the solved labels; identical pieces
    must go to identical pieces).  So the piece at slot i whose sticker 0 stands on the
    slot's sticker o goes to slot j, and its new sticker 0 stands where m takes (i, o)."""
    move = sticker_map(m)
    (labels, oris), = state
    out_labels, out_oris = [0] * 8, [0] * 8
    for i, (piece, o) in enumerate(zip(labels, oris)):
        home = solved.index(piece)
        j, s0 = move[(i, o)]
        out_labels[j] = solved[move[(home, 0)][0]]
        out_oris[j] = 0 if wild else (s0 - move[(home, 0)][1]) % 3
    return ((tuple(out_labels), tuple(out_oris)),)


def invert(state):
    """The inverse position (distinct pieces 1..8 at home slots 0..7)."""
    stickers = stickers_of(state)
    inverse = {(p - 1, pk): (i + 1, k) for (i, k), (p, pk) in stickers.items()}
    return state_of(inverse)


def layers_with_classes(text, depth, inversion, wild=False):
    """Depth by depth up to `depth`: the positions (a set) and their classes (a set of
    frozensets) under the 48 matrices that keep the solved labels, and inversion."""
    sets, start, moves, _, _ = read_plain(text)
    labels = start[0][0]
    group = [m for m in matrices() if _keeps(m, labels)]
    layer, seen, out = {start}, {start}, []
    for _ in range(depth + 1):
        classes = set()
        for state in layer:
            images = {conjugate(state, m, labels, wild) for m in group}
            if inversion:
                images |= {conjugate(invert(state), m, labels, wild) for m in group}
            classes.add(frozenset(images))
        out.append((layer, classes))
        following = set()
        for state in layer:
            for move in moves:
                for times in (1, 2, 3):
                    state2 = state
                    for _ in range(times):
                        state2 = apply_plain(state2, move, sets)
                    if wild:
                        (ls, os), = state2
                        state2 = ((ls, (0,) * 8),)
                    if state2 not in seen:
                        seen.add(state2)
                        following.add(state2)
        layer = following
    return out, len(group)


def _keeps(m, labels):
    """Whether m takes identical pieces' homes to identical pieces' homes, each sticker of
    one to the same sticker of the other (else the pieces it makes are not alike)."""
    moved, stickers = {}, sticker_map(m)
    for i, v in enumerate(SLOTS):
        j = SLOTS.index(act(m, v))
        turned = tuple(stickers[(i, k)][1] for k in range(3))
        if moved.setdefault(labels[i], (labels[j], turned)) != (labels[j], turned):
            return False
    return len({target for target, _ in moved.values()}) == len(moved)
