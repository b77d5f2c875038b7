"""Independent move checkers for the tests: the rules of the sliding puzzles in plain Python,
written from the rules and sharing no code with the kernels they check."""


def cells(board):
    """The cells of a board string (spaces between rows dropped), or of a code sequence."""
    return [ch for ch in board if ch != " "] if isinstance(board, str) else list(board)


def slides(board, width, blank="0"):
    """Every board one slide away: the blank swapped with an orthogonal neighbour."""
    board = cells(board)
    s = board.index(blank)
    out = []
    for n in range(len(board)):
        if abs(n // width - s // width) + abs(n % width - s % width) == 1:
            b = list(board)
            b[s], b[n] = b[n], b[s]
            out.append(b)
    return out


def is_slide(before, after, width):
    """after follows from before by sliding one tile orthogonally into the blank."""
    return cells(after) in slides(before, width)
