"""Write the example definitions of the permutation family (ksolve/twsearch format) from the
puzzles' geometry: each piece is a point with stickers (outward normals), each move a
rotation of the pieces on one side of a plane.  A move's line is read off the rotation: the
slot each piece comes from, and how far its reference sticker turned.

    python benchmarks/permutation_examples.py   # rewrites workflow/puzzledb/puzzles/permutation/examples/*.tws

Slot orientation: the stickers of a slot listed counterclockwise around the slot's position
(seen from outside), starting at the slot's reference sticker; a piece's orientation is the
index, in that list, of the face its own reference sticker shows.  Rotations keep the
counterclockwise order, so the numbering is consistent.
"""

from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent.parent / "workflow/puzzledb/puzzles/permutation/examples"


def rotation(axis, degrees):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    a = np.radians(degrees)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + np.sin(a) * k + (1 - np.cos(a)) * k @ k


def ordered(position, normals):
    """The normals counterclockwise around position, the first one first."""
    c = np.asarray(position, float) / np.linalg.norm(position)
    u = normals[0] - np.dot(normals[0], c) * c
    v = np.cross(c, u)
    angle = [np.arctan2(np.dot(n, v), np.dot(n, u)) % (2 * np.pi) for n in normals]
    return [normals[i] for i in np.argsort(angle)]


class PieceSet:
    def __init__(self, name, positions, normals):
        self.name = name
        self.positions = [np.asarray(p, float) for p in positions]
        self.normals = [ordered(p, [np.asarray(n, float) for n in ns])
                        for p, ns in zip(positions, normals)]
        self.orientations = len(self.normals[0]) if len(self.normals[0]) > 1 else 1

    def move(self, turn, inside):
        """(sources, twists): the ksolve move of rotating the pieces `inside` selects."""
        n = len(self.positions)
        sources, state_oris = [None] * n, [0] * n
        for j, p in enumerate(self.positions):
            if inside(p):
                q = turn @ p
                i = next(i for i, r in enumerate(self.positions) if np.allclose(q, r))
                sources[i] = j
                if self.orientations > 1:
                    face = turn @ self.normals[j][0]
                    state_oris[i] = next(k for k, m in enumerate(self.normals[i])
                                         if np.allclose(m, face))
            elif sources[j] is None:
                sources[j] = j
        # ksolve moves carry the twist by the piece's slot before the move
        twists = [0] * n
        for i in range(n):
            twists[sources[i]] = state_oris[i]
        return sources, twists


def write(name, title, sets, moves, comment, solved=None):
    lines = [f"# {line}" for line in comment.strip().splitlines()]
    lines += [f"# written by benchmarks/permutation_examples.py", f"Name {title}", ""]
    lines += [f"Set {s.name} {len(s.positions)} {s.orientations}" for s in sets]
    lines += ["", "Solved"]  # the identity (twsearch needs the block; puzzledb defaults it)
    for s in sets:
        lines += (solved or {}).get(s.name) or \
            [s.name, " ".join(str(i + 1) for i in range(len(s.positions)))]
    lines.append("End")
    for move_name, axis, degrees, inside in moves:
        lines += ["", f"Move {move_name}"]
        turn = rotation(axis, degrees)
        for s in sets:
            sources, twists = s.move(turn, inside)
            lines += [s.name, " ".join(str(x + 1) for x in sources)]
            if s.orientations > 1:
                lines.append(" ".join(str(x) for x in twists))
        lines.append("End")
    (OUT / f"{name}.tws").write_text("\n".join(lines) + "\n")


def cube_corners():
    """The eight corners of a cube: x right, y up, z front; U/D stickers the reference."""
    slots = [(-1, 1, 1), (1, 1, 1), (1, 1, -1), (-1, 1, -1),
             (-1, -1, 1), (1, -1, 1), (1, -1, -1), (-1, -1, -1)]
    normals = [[(0, y, 0), (x, 0, 0), (0, 0, z)] for x, y, z in slots]
    return PieceSet("CORNERS", slots, normals)


def cube_edges():
    """The twelve edges of a cube: U/D stickers the reference, then F/B for the middle
    layer (the usual edge orientation: a face turn of F or B flips them)."""
    slots = [(0, 1, 1), (1, 1, 0), (0, 1, -1), (-1, 1, 0), (0, -1, 1), (1, -1, 0),
             (0, -1, -1), (-1, -1, 0), (1, 0, 1), (1, 0, -1), (-1, 0, -1), (-1, 0, 1)]
    normals = [[tuple(v if i == axis else 0 for i, v in enumerate(p))
                for axis in (1, 2, 0) if p[axis]] for p in slots]
    return PieceSet("EDGES", slots, normals)


FACES = {"U": (0, 1, 0), "D": (0, -1, 0), "R": (1, 0, 0), "L": (-1, 0, 0),
         "F": (0, 0, 1), "B": (0, 0, -1)}


def face_turn(face):
    n = np.array(FACES[face], float)
    return face, n, -90, lambda p: np.dot(p, n) > 0.5


def rotation_of(name, face):
    """A turn of the whole cube (a rotation: no generator), as the face turn's."""
    return name, np.array(FACES[face], float), -90, lambda p: True


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    write("2x2x2", "2x2x2-DBL-fixed", [cube_corners()],
          [face_turn(f) for f in "URF"],
          """The 2x2x2 cube, turning U, R and F only (the DBL corner stays put): slots UFL
UFR UBR UBL DFL DFR DBR DBL.  3,674,160 positions; 11 moves deep in HTM, 14 in QTM.""")
    write("corners", "3x3x3-corners", [cube_corners()],
          [face_turn(f) for f in "UDRLFB"] + [rotation_of(r, f) for r, f in zip("xyz", "RUF")],
          """The eight corners of the 3x3x3 under all six face turns (slots UFL UFR UBR UBL
DFL DFR DBR DBL): 8! * 3^7 = 88,179,840 positions.  The same as the 2x2x2 turned by all
six faces; x, y, z turn the whole cube as R, U, F turn their face (rotations: no
generators, for boards and goals).""")

    block = {"CORNERS": ["CORNERS", "3 3 3 3 1 3 3 2", "? ? ? ? 0 ? ? 0"],
             "EDGES": ["EDGES", "6 6 6 6 1 6 2 3 6 6 4 5", "? ? ? ? 0 ? 0 0 ? ? 0 0"]}
    write("2x2x3", "3x3x3-2x2x3-block", [cube_corners(), cube_edges()],
          [face_turn(f) for f in "UDRLFB"],
          """The 2x2x3 block of the 3x3x3 (slots: corners UFL UFR UBR UBL DFL DFR DBR DBL,
edges UF UR UB UL DF DR DB DL FR BR BL FL): the block's two corners DFL and DBL and five
edges DF DB DL BL FL are told apart, every other piece is identical to the others of its
kind with its twist not counted (?).  8 x 7 x 3^2 x 12!/7! x 2^5 = 1,532,805,120
positions (cubing/twips #114).""", solved=block)

    tetra = [np.array(v, float) for v in [(1, 1, 1), (1, -1, -1), (-1, 1, -1), (-1, -1, 1)]]
    names = "URLB"  # the pyraminx's vertices
    def faces_at(v):
        return [-w for w in tetra if not np.allclose(w, v)]
    tips = PieceSet("TIPS", [3 * v for v in tetra], [faces_at(v) for v in tetra])
    axials = PieceSet("CENTERS", [2 * v for v in tetra], [faces_at(v) for v in tetra])
    pairs = [(a, b) for a in range(4) for b in range(a + 1, 4)]
    edges = PieceSet("EDGES", [(tetra[a] + tetra[b]) / 2 for a, b in pairs],
                     [[-tetra[x] for x in range(4) if x not in (a, b)] for a, b in pairs])
    moves = []
    for v, name in zip(tetra, names):
        moves.append((name, v, -120, lambda p, v=v: np.dot(p, v) > 0.5))
    for v, name in zip(tetra, names):
        moves.append((name.lower(), v, -120, lambda p, v=v: np.dot(p, v) > 7))
    write("pyraminx", "pyraminx-with-tips", [edges, axials, tips], moves,
          """The pyraminx with its tips: U R L B turn a vertex's two layers (its tip, its
centre and three edges), u r l b its tip alone.  6!/2 * 2^5 * 3^4 * 3^4 = 75,582,720
positions.""")

    centres = PieceSet("CENTERS", [FACES[f] for f in "URFDLB"], [[FACES[f]] for f in "URFDLB"])
    axes = {"R": (1, -1, -1), "U": (-1, 1, -1), "L": (-1, -1, 1), "F": (1, 1, 1)}
    # one set per tetrad: the corners the moves turn around only twist in place, and
    # twsearch's index of the file stays small enough for its two-bit array
    axis_corners = PieceSet("AXES", list(axes.values()),
                            [[(0, y, 0), (x, 0, 0), (0, 0, z)] for x, y, z in axes.values()])
    others = [(-x, -y, -z) for x, y, z in axes.values()]
    corners = PieceSet("CORNERS", others, [[(0, y, 0), (x, 0, 0), (0, 0, z)]
                                           for x, y, z in others])
    write("skewb", "skewb", [axis_corners, corners, centres],
          [(name, axis, -120, lambda p, a=np.array(axis, float): np.dot(p, a) > 0.5)
           for name, axis in axes.items()],
          """The skewb: each move turns the half of the puzzle around one corner (R: DRB,
U: ULB, L: DLF, F: URF, the four corners of one tetrad: set AXES), which therefore only
twist in place; the other tetrad (CORNERS) moves among its slots.  3,149,280 positions.""")


if __name__ == "__main__":
    main()
