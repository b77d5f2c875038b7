"""The unit of work (lanes.units' numbering) that holds a given board of a lane catalogue,
for the test and the benchmark that search one unit alone (test_readme.py's Rush Hour
queries, bench_catalogue.py board): the catalogue itself never asks for it."""


def unit_of(puzzle, board):
    """The unit of work (units' numbering) holding a board of a lane catalogue without
    walls: the contents of its rows (each row's horizontal bars, left to right)."""
    lanes, cat = puzzle.lanes, puzzle.catalogue
    if cat.walls:
        raise ValueError(f"{puzzle.name}: the unit of a board is found without walls only")
    pieces, _ = puzzle.pieces(puzzle.parse(board))
    unit = 0
    for row in range(cat.drawing.height):
        content = tuple(k for k, a in sorted(pieces, key=lambda p: p[1])
                        if a // cat.width == row and lanes.horizontal[row] and
                        len({r for r, _ in cat.classes[k].shape}) == 1)
        unit = unit * len(lanes.contents[row]) + list(lanes.contents[row]).index(content)
    return unit
