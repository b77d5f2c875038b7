"""Boards as pictures: one board as an SVG drawing, from what Puzzle.picture says of it (each
cell's label, piece and colour key).  The cells of one piece are drawn as one block with a
line around it; equal colour keys get equal colours, the goal pieces red.  Plain SVG text:
the report page puts it inline, `puzzledb show` writes it to a file.
"""

import html
import zlib

from puzzledb.errors import PuzzleError
from puzzledb.store.files import write_text

CELL = 40  # pixels a cell, in `puzzledb show`'s pictures
PAGE_CELL, SMALL_CELL = 24, 14  # on the report page: the deepest positions, a solution
GOAL = "goal"  # the colour key of the goal pieces
GOAL_COLOUR = "#d1495b"
EMPTY_COLOUR, WALL_COLOUR, LINE_COLOUR = "#f3efe6", "#55524b", "#2b2b2b"
PALETTE = ("#edae49", "#00798c", "#66a182", "#8d96a3", "#30638e", "#c2a83e", "#9a6fb0",
           "#e07a5f", "#3d405b", "#81b29a", "#b56576", "#6d597a")


def colour(kind):
    """The colour of a colour key: the goal's red; an integer key the PALETTE's colour of
    that number; another key one of PALETTE chosen by its text (the same key, the same
    colour, in every picture)."""
    if kind == GOAL:
        return GOAL_COLOUR
    if isinstance(kind, int):
        return PALETTE[kind % len(PALETTE)]
    return PALETTE[zlib.crc32(str(kind).encode()) % len(PALETTE)]


def board_svg(puzzle, board, cell=CELL, title=None):
    """The SVG text of one board (an array as Puzzle.parse gives it).  PuzzleError for a
    puzzle whose boards are no grid (Puzzle.picture is None)."""
    picture = puzzle.picture(board)
    if picture is None:
        raise PuzzleError(f"{puzzle.name}: its boards are no grid of cells to draw")
    width, labels, pieces, kinds = picture
    height = len(labels) // width
    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width * cell + 4}' "
             f"height='{height * cell + 4}' viewBox='-2 -2 {width * cell + 4} "
             f"{height * cell + 4}'>"]
    if title:
        parts.append(f"<title>{html.escape(title)}</title>")
    fills = {}  # colour -> the cells of that colour, one path each (a smaller page)
    for i, piece in enumerate(pieces):
        fill = (EMPTY_COLOUR if piece == -1 else WALL_COLOUR if piece == -2 else
                colour(kinds[i]))
        y, x = divmod(i, width)
        fills.setdefault(fill, []).append(f"M{x * cell} {y * cell}h{cell}v{cell}h-{cell}z")
    parts.extend(f"<path fill='{fill}' d='{''.join(cells)}'/>" for fill, cells in fills.items())
    parts.append(f"<path stroke='{LINE_COLOUR}' stroke-width='2' stroke-linecap='square' "
                 f"fill='none' d='{_outlines(pieces, width, height, cell)}'/>")
    parts.extend(_labels(labels, pieces, width, cell))
    parts.append("</svg>")
    return "".join(parts)


def _outlines(pieces, width, height, cell):
    """The path data of a line along every edge between two different things: two pieces,
    a piece and an empty cell, a cell and the outside of the box."""
    def piece_at(x, y):
        return pieces[y * width + x] if 0 <= x < width and 0 <= y < height else -3

    lines = []
    for y in range(height + 1):
        for x in range(width):  # the horizontal edge above cell (x, y)
            above, below = piece_at(x, y - 1), piece_at(x, y)
            if above != below:
                lines.append((x, y, x + 1, y))
    for x in range(width + 1):
        for y in range(height):  # the vertical edge left of cell (x, y)
            left, right = piece_at(x - 1, y), piece_at(x, y)
            if left != right:
                lines.append((x, y, x, y + 1))
    return "".join(f"M{a * cell} {b * cell}L{c * cell} {d * cell}" for a, b, c, d in lines)


def _labels(labels, pieces, width, cell):
    """Each piece's label once, at the middle of its cells."""
    cells = {}
    for i, piece in enumerate(pieces):
        if piece >= 0 and labels[i]:
            cells.setdefault(piece, []).append(i)
    out = []
    for piece, where in cells.items():
        x = sum(i % width + 0.5 for i in where) / len(where) * cell
        y = sum(i // width + 0.5 for i in where) / len(where) * cell
        out.append(f"<text x='{x:.1f}' y='{y:.1f}' font-family='sans-serif' "
                   f"font-size='{cell * 0.45:.0f}' text-anchor='middle' "
                   f"dominant-baseline='central' fill='#ffffff'>"
                   f"{html.escape(labels[where[0]])}</text>")
    return out


def write_board_svg(path, puzzle, board):
    """`puzzledb show`: the picture of one board written to path (atomically)."""
    write_text(path, board_svg(puzzle, board, title=puzzle.format(board)) + "\n")


def boards_html(puzzle, boards, cell=PAGE_CELL):
    """Board strings as a row of inline pictures that wraps (the report page)."""
    drawn = "".join(f"<span style='display:inline-block;margin:0 6px 6px 0'>"
                    f"{board_svg(puzzle, puzzle.parse(b), cell, title=b)}</span>"
                    for b in boards)
    return f"<div>{drawn}</div>"
