"""A peg-solitaire board drawn as text (Board): its holes, numbered row-major, and its
jumps (from, over, to); and what the drawing's lattice implies: the board's symmetries, the
parities every jump keeps, and the jumps as shifts of a 64-cell grid for the kernels."""

from fractions import Fraction

import numpy as np

from puzzledb.errors import DefinitionError, PuzzleError

PEG, EMPTY_HOLE, WALL = "o", ".", "#"  # how a definition draws a board
DIRECTIONS = {
    "orthogonal": [(0, 1), (0, -1), (1, 0), (-1, 0)],
    "horizontal": [(0, 1), (0, -1)],
    "vertical": [(1, 0), (-1, 0)],
    "diagonal": [(1, 1), (-1, -1), (1, -1), (-1, 1)],
    "diagonal-down": [(1, 1), (-1, -1)],  # the diagonals that go down to the right: \\
    "diagonal-up": [(1, -1), (-1, 1)],  # and up to the right: /
}
GRID_CELLS = 64  # the jump kernel lays a position on the board's grid in one 64-bit word


class Board:
    """A peg-solitaire board drawn as text: rows separated by spaces or newlines, `o` a hole
    with a peg at the start, `.` a hole empty at the start, `#` no hole (a missing cell at
    the end of a row is no hole either).  Holes are numbered row-major.

    jumps maps a direction of DIRECTIONS to its step: a peg jumps over the hole `step` cells
    away into the hole 2 * step cells away, whatever lies between (Hoppers' orthogonal jumps
    have step 2: over a cell with no hole and the hole beyond it)."""

    def __init__(self, text, jumps):
        rows = str(text).split()
        unknown = sorted(set("".join(rows)) - {PEG, EMPTY_HOLE, WALL})
        if unknown:
            raise DefinitionError("board", f"symbols {''.join(unknown)!r}: draw holes with "
                                  f"o (a peg at the start) or . (empty at the start), no "
                                  f"hole with #")
        self.holes = [(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row)
                      if ch != WALL]
        self.index = {h: i for i, h in enumerate(self.holes)}
        self.start_empty = [i for i, (r, c) in enumerate(self.holes)
                            if rows[r][c] == EMPTY_HOLE]
        width = max((c for _, c in self.holes), default=0) + 1
        if len(self.holes) < 3 or len(rows) * width > GRID_CELLS:
            raise DefinitionError("board", f"{len(self.holes)} holes on a {width}x{len(rows)} "
                                  f"grid: at least 3 holes, and at most {GRID_CELLS} cells "
                                  f"of grid")
        if not self.start_empty or len(self.start_empty) == len(self.holes):
            raise DefinitionError("board", "the start needs a peg (o) and an empty hole (.)")
        self.vectors = set()
        for name, step in dict(jumps).items():
            if name not in DIRECTIONS:
                raise DefinitionError("jumps", f"unknown direction {name!r} (known: "
                                      f"{', '.join(DIRECTIONS)})")
            if not isinstance(step, int) or step < 1:
                raise DefinitionError("jumps", f"{name}: step {step!r}, expected 1 or more")
            self.vectors |= {(dr * step, dc * step) for dr, dc in DIRECTIONS[name]}
        self.jumps = sorted(
            (i, self.index[(r + dr, c + dc)], self.index[(r + 2 * dr, c + 2 * dc)])
            for i, (r, c) in enumerate(self.holes) for dr, dc in self.vectors
            if (r + dr, c + dc) in self.index and (r + 2 * dr, c + 2 * dc) in self.index)
        self.symmetries = [p for p in lattice_symmetries(self.holes, self.vectors)
                           if p != tuple(range(len(self.holes)))]

    def rows(self):
        out = {}
        for i, (r, _) in enumerate(self.holes):
            out.setdefault(r, []).append(i)
        return [out[r] for r in sorted(out)]

    def mask_of_drawing(self, text, key):
        """The peg mask of a position drawn like the board (o a peg, . an empty hole, #
        where the board has no hole); DefinitionError naming `key` if it is not."""
        rows = str(text).split()
        holes = [(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch != WALL]
        if holes != self.holes or set("".join(rows)) - {PEG, EMPTY_HOLE, WALL}:
            raise DefinitionError(key, f"{text!r} is not drawn on the board's holes (o a "
                                  f"peg, . an empty hole, # no hole)")
        return sum(1 << self.index[(r, c)] for r, c in holes if rows[r][c] == PEG)


def lattice_symmetries(holes, vectors):
    """The cell maps of the board's symmetries (image board = board[perm]): the linear maps
    that carry the set of jump vectors onto itself, followed by the translation that
    carries the holes onto the holes.  Every such map sends jumps to jumps.  The square grid
    gives the 8 of the square; a triangle drawn row by row (jumps along rows, columns and one
    diagonal) or staggered (jumps along the rows, two cells a step, and both diagonals) the 6
    of the triangle."""
    vectors = sorted(vectors)
    basis = next(((v, w) for v in vectors for w in vectors if v[0] * w[1] != v[1] * w[0]),
                 None)
    if basis is None:  # no jumps, or all along one line: the square's maps that keep them
        maps = [((a, b), (c, d)) for a, b, c, d in
                ((1, 0, 0, 1), (-1, 0, 0, 1), (1, 0, 0, -1), (-1, 0, 0, -1),
                 (0, 1, 1, 0), (0, -1, 1, 0), (0, 1, -1, 0), (0, -1, -1, 0))]
    else:
        (v1, v2), det = basis, basis[0][0] * basis[1][1] - basis[0][1] * basis[1][0]
        maps = []
        for w1 in vectors:  # the map A with A v1 = w1, A v2 = w2: A = W V^-1
            for w2 in vectors:
                a, b, c, d = (Fraction(e, det) for e in (
                    w1[0] * v2[1] - w2[0] * v1[1], w2[0] * v1[0] - w1[0] * v2[0],
                    w1[1] * v2[1] - w2[1] * v1[1], w2[1] * v1[0] - w1[1] * v2[0]))
                maps.append(((a, b), (c, d)))
    index = {h: i for i, h in enumerate(holes)}
    found = set()
    for (a, b), (c, d) in maps:
        if {(a * r + b * s, c * r + d * s) for r, s in vectors} != set(vectors):
            continue
        image = [(a * r + b * s, c * r + d * s) for r, s in holes]
        shift = (min(holes)[0] - min(image)[0], min(holes)[1] - min(image)[1])
        moved = [(r + shift[0], s + shift[1]) for r, s in image]
        if set(moved) == set(index):  # Fractions equal to whole numbers match the holes
            found.add(tuple(index[h] for h in moved))
    return sorted(found)


def parity_invariants(holes, jumps):
    """A basis of the sets S of holes whose number of pegs keeps its parity under every jump
    (as hole masks): a jump empties `from` and `over` and fills `to`, so S works when it
    holds an even number of the three holes of every jump.  Gaussian elimination over GF(2)
    on one row per jump."""
    pivots = {}  # pivot hole -> reduced row (mask)
    for f, o, t in jumps:
        row = (1 << f) ^ (1 << o) ^ (1 << t)
        for hole, pivot_row in pivots.items():
            if row >> hole & 1:
                row ^= pivot_row
        if row:
            hole = row.bit_length() - 1
            for other in pivots:
                if pivots[other] >> hole & 1:
                    pivots[other] ^= row
            pivots[hole] = row
    basis = []
    for free in range(holes):  # the null space: one vector per hole that is no pivot
        if free in pivots:
            continue
        vector = 1 << free
        for hole, row in pivots.items():
            if row >> free & 1:
                vector |= 1 << hole
        basis.append(vector)
    return basis


def jump_directions(board):
    """The jumps as bitboard directions: holes embedded in a grid of the board's width,
    each direction a grid shift s with the mask of the holes a peg may jump from (over
    the hole s further, to the hole 2s further).  Returns (grid mask of the holes, shifts,
    source masks)."""
    width = max(c for _, c in board.holes) + 1
    grid = [r * width + c for r, c in board.holes]
    if max(grid) >= 64:
        raise PuzzleError("a peg board must fit a 64-cell grid")
    sources = {}
    for f, o, t in board.jumps:
        shift = grid[o] - grid[f]
        if grid[t] - grid[o] != shift:
            raise PuzzleError(f"jump {f}-{o}-{t} is not along a straight line of the grid")
        sources[shift] = sources.get(shift, 0) | (1 << grid[f])
    shifts = sorted(sources)
    return (np.uint64(sum(1 << g for g in grid)), np.array(shifts, dtype=np.int64),
            np.array([sources[s] for s in shifts], dtype=np.uint64))
