"""The rows of a catalogue's table (catalogue.csv, report/catalogue.py) written by a compiled
formatter: each cluster's moves, farthest board drawn from its key (as CataloguePuzzle.format
draws it), states, minimal and distance counts, as the bytes of CSV lines.
tests/test_catalogue.py compares them with Python's csv module writing the same rows."""

import numpy as np

from puzzledb.compiled import jit

COMMA, SPACE, NEWLINE, DOT, HASH, ZERO = (ord(c) for c in ", \n.#0")
TRUE, FALSE = np.frombuffer(b"true", np.uint8), np.frombuffer(b"false", np.uint8)


@jit(inline="always")
def _digits(value):
    n = 1
    while value >= 10:
        value //= 10
        n += 1
    return n


@jit(inline="always")
def _number(out, at, value):
    """value's decimal digits into out from at; where they end."""
    end = at + _digits(value)
    for i in range(end - 1, at - 1, -1):
        out[i] = ZERO + value % 10
        value //= 10
    return end


@jit
def _length(i, moves, states, minimal, spans, counts, board_bytes):
    """The bytes of row i's line (its counts never none: a goal board at distance 0)."""
    n = _digits(moves[i]) + 1 + board_bytes + 1 + _digits(states[i]) + 1
    n += (4 if minimal[i] else 5) + 1
    for c in range(spans[i], spans[i + 1]):
        n += _digits(counts[c]) + 1
    return n


@jit
def _board(t, key, walls, letters, goal_letters, out, at):
    """The board of a key (t: definition.CatalogueTables) drawn into out from at: its rows
    separated by spaces; the goal pieces by their letters, the others lettered in reading
    order from letters; walls '#'."""
    cells, width = t.cells, t.width
    code_mask = np.uint64((1 << t.bits) - 1)
    empty = np.int64(code_mask)
    covered, next_letter = np.uint64(0), 0
    blocked = t.fixed | walls
    for cell in range(cells):
        place = at + cell + cell // width
        if cell % width == 0 and cell:
            out[place - 1] = SPACE
        bit = np.uint64(1) << np.uint64(cell)
        if blocked & bit:
            out[place] = HASH
            continue
        word, shift = cell // t.per, (t.per - 1 - cell % t.per) * t.bits
        code = np.int64((key[word] >> np.uint64(shift)) & code_mask)
        if code == empty:
            out[place] = DOT
        elif not covered & bit:  # a piece's anchor: its letter on its cells
            piece = t.masks[code, cell]
            covered |= piece
            letter = goal_letters[code] if code < t.goals else letters[next_letter]
            next_letter += code >= t.goals
            for c in range(cell, cells):
                if piece & (np.uint64(1) << np.uint64(c)):
                    out[at + c + c // width] = letter
    return at + cells + cells // width - 1


@jit
def csv_rows(t, order, moves, states, minimal, spans, counts, far, walls, letters,
             goal_letters):
    """The CSV lines of the clusters order[...] (moves, board, states, minimal, counts), as
    bytes."""
    board_bytes = t.cells + t.cells // t.width - 1
    total = 0
    for i in order:
        total += _length(i, moves, states, minimal, spans, counts, board_bytes)
    out = np.empty(total, np.uint8)
    at = 0
    for i in order:
        at = _number(out, at, moves[i])
        out[at] = COMMA
        at = _board(t, far[i], walls[i], letters, goal_letters, out, at + 1)
        out[at] = COMMA
        at = _number(out, at + 1, states[i])
        out[at] = COMMA
        word = TRUE if minimal[i] else FALSE
        out[at + 1:at + 1 + word.size] = word
        at += 1 + word.size
        out[at] = COMMA
        at += 1
        for c in range(spans[i], spans[i + 1]):
            at = _number(out, at, counts[c])
            out[at] = SPACE
            at += 1
        out[at - 1] = NEWLINE
    return out
