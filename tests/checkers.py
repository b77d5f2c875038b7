"""Independent move checkers for the tests: the rules of each family (sliding puzzles,
sliding blocks, the domino puzzle, flip-it, peg solitaire) and the numberings and bounds the
kernels compute, in plain Python, written from the rules and sharing no code with the
kernels they check."""

from collections import deque
from itertools import combinations

import numpy as np

from puzzledb.errors import BoardError
from puzzledb.puzzles.flipit.puzzle import BLACK, EMPTY, WHITE, lines
from puzzledb.puzzles.pegs.ranks import rank_reference as peg_rank
from puzzledb.puzzles.ranking import lehmer_code

STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def breadth_first(starts, moves):
    """{board: its distance from the nearest of `starts`} over every board reached by
    `moves(board)` (an iterable of boards): a plain breadth-first search."""
    depth = {b: 0 for b in starts}
    todo = deque(depth)
    while todo:
        board = todo.popleft()
        for nxt in moves(board):
            if nxt not in depth:
                depth[nxt] = depth[board] + 1
                todo.append(nxt)
    return depth


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


def manhattan(puzzle, board):
    """Manhattan distance of a sliding puzzle's board (codes) to its goal: each piece's
    distance to the nearest goal cell of its kind, summed."""
    w = puzzle.width
    goal = [int(p) for p in puzzle.goal]
    return sum(min(abs(cell // w - t // w) + abs(cell % w - t % w)
                   for t, g in enumerate(goal) if g == piece)
               for cell, piece in enumerate(int(p) for p in board) if piece)


# --- the domino puzzle (seed 002) ----------------------------------------------------------


def domino_moves(board, width):
    """Every board one move away, by the rules as stated: jumps across the domino in its row,
    and the pair of tiles above or below sliding in."""
    board = list(board)
    height = len(board) // width
    left = board.index(0)
    row, col = divmod(left, width)
    out = []
    if col > 0:  # the tile on the left jumps to the domino's right cell
        b = board.copy()
        b[left + 1], b[left - 1] = b[left - 1], 0
        out.append(b)
    if col < width - 2:  # the tile on the right jumps to the domino's left cell
        b = board.copy()
        b[left], b[left + 2] = b[left + 2], 0
        out.append(b)
    for dr in (-1, 1):
        if 0 <= row + dr < height:
            b = board.copy()
            src = left + dr * width
            b[left], b[left + 1] = b[src], b[src + 1]
            b[src] = b[src + 1] = 0
            out.append(b)
    return out


def domino_rank(puzzle, board):
    """Rank from the definition: domino index, then each class's Lehmer index halved."""
    board = list(board)
    left = board.index(0)
    seqs = [[puzzle.tile_label[t] for t in board if t and puzzle.tile_class[t] == p]
            for p in (0, 1)]
    q = [lehmer_code(s) // 2 for s in seqs]
    d = (left // puzzle.width) * (puzzle.width - 1) + left % puzzle.width
    return (d * puzzle.classes[0].ranks + q[0]) * puzzle.classes[1].ranks + q[1]


# --- flip-it (seed 003) ---------------------------------------------------------------------


def flipit_moves(board, width, height, diagonal):
    """Every board one move away, by the rules as stated: a piece two or more cells away
    along a line jumps into the empty cell, turning over every piece it jumps."""
    board = list(board)
    empty = board.index(EMPTY)
    out = []
    for line in lines(width, height, diagonal):
        if empty not in line:
            continue
        i = line.index(empty)
        for j, mover in enumerate(line):
            if abs(i - j) < 2:
                continue
            b = board.copy()
            for cell in line[min(i, j) + 1:max(i, j)]:
                b[cell] = BLACK + WHITE - b[cell]
            b[empty], b[mover] = b[mover], EMPTY
            out.append(b)
    return out


# --- peg solitaire (seed 004) ---------------------------------------------------------------


def peg_jumps(puzzle, board):
    """Every board one jump away, from the board's cells and its jumps alone."""
    out = []
    for f, o, t in puzzle.jumps:
        if board[f] and board[o] and not board[t]:
            b = list(board)
            b[f], b[o], b[t] = 0, 0, 1
            out.append(b)
    return out


def peg_masks(holes, pegs):
    """Every mask with `pegs` pegs, in rank order (small boards only)."""
    masks = [sum(1 << p for p in c) for c in combinations(range(holes), pegs)]
    return sorted(masks, key=peg_rank)


def replay_peg_moves(puzzle, moves):
    """The peg mask after playing `moves` (hole tuples) from the start, checking each jump
    by the rules: the landing hole is empty and two steps away in a line, with a peg
    between.  Raises BoardError on an illegal jump."""
    mask = puzzle.mask(puzzle.start())
    legal = {(f, t): o for f, o, t in puzzle.jumps}
    for move in moves:
        for a, b in zip(move, move[1:]):
            over = legal.get((a, b))
            if over is None or not (mask >> a) & 1 or not (mask >> over) & 1 or (mask >> b) & 1:
                raise BoardError(f"{puzzle.name}: illegal jump {a}->{b}")
            mask ^= (1 << a) | (1 << over) | (1 << b)
    return mask


def peg_finishes(db):
    """The holes where a single last peg can stand, from the one-peg layer of a peg
    solitaire DepthDatabase (layer start_pegs - 1); [] when no position gets that far."""
    puzzle = db.puzzle
    last = puzzle.start_pegs - 1
    if db.max_depth < last:
        return []
    return sorted(int(np.flatnonzero(puzzle.unrank(int(r), last))[0])
                  for r in db.layer(last).ranks())


class BlocksModel:
    """Sliding blocks by the rules as stated, on sets: a position is a frozenset of pieces
    (kind, cells), kind the piece's letter for the goal pieces (told apart) and its shape
    for the others; axis 'length' moves a piece whose cells span more columns than rows
    along its row, more rows than columns along its column."""

    def __init__(self, board, goal, metric, axis="free"):
        rows, goal_rows = board.split(), goal.split()
        self.width, self.height = len(rows[0]), len(rows)
        self.walls = {(r, c) for r, row in enumerate(rows) for c, s in enumerate(row)
                      if s == "#"}
        self.goal = {}
        for r, row in enumerate(goal_rows):
            for c, s in enumerate(row):
                if s not in ".#":
                    self.goal.setdefault(s, set()).add((r, c))
        self.metric, self.axis = metric, axis
        self.start = self.position(board)

    def position(self, board):
        cells = {}
        for r, row in enumerate(board.split()):
            for c, s in enumerate(row):
                if s not in ".#":
                    cells.setdefault(s, set()).add((r, c))
        return frozenset((self.kind(s, where), frozenset(where)) for s, where in cells.items())

    def kind(self, letter, cells):
        if letter in self.goal:
            return letter
        top, left = min(r for r, _ in cells), min(c for _, c in cells)
        return tuple(sorted((r - top, c - left) for r, c in cells))

    def directions(self, cells):
        rows = {r for r, _ in cells}
        cols = {c for _, c in cells}
        if self.axis == "length" and len(cols) > len(rows):
            return STEPS[2:]
        if self.axis == "length" and len(rows) > len(cols):
            return STEPS[:2]
        return STEPS

    def free(self, cells, taken):
        return all(0 <= r < self.height and 0 <= c < self.width and (r, c) not in self.walls
                   and (r, c) not in taken for r, c in cells)

    def moves(self, position):
        """Every position one move away."""
        out = set()
        for kind, cells in position:
            taken = set().union(*(c for k, c in position if (k, c) != (kind, cells)))
            rest = position - {(kind, cells)}
            shifted = lambda where, dr, dc: frozenset((r + dr, c + dc) for r, c in where)
            reached = set()
            if self.metric == "path":
                todo = [cells]
                while todo:
                    at = todo.pop()
                    for dr, dc in self.directions(cells):
                        there = shifted(at, dr, dc)
                        if there != cells and there not in reached and self.free(there, taken):
                            reached.add(there)
                            todo.append(there)
            else:
                for dr, dc in self.directions(cells):
                    there = shifted(cells, dr, dc)
                    while self.free(there, taken):
                        reached.add(there)
                        if self.metric == "step":
                            break
                        there = shifted(there, dr, dc)
            out |= {rest | {(kind, there)} for there in reached}
        return out

    def placements(self):
        """Every placement of the start's pieces, by brute force."""
        spots = [(r, c) for r in range(self.height) for c in range(self.width)]
        pieces = sorted(self.start, key=lambda p: len(p[1]), reverse=True)
        found = set()

        def place(i, taken, chosen):
            if i == len(pieces):
                found.add(frozenset(chosen))
                return
            kind, cells = pieces[i]
            top, left = min(cells)[0], min(c for _, c in cells)
            for r, c in spots:
                there = frozenset((a - top + r, b - left + c) for a, b in cells)
                if self.free(there, taken) and self.lane_ok(cells, there):
                    place(i + 1, taken | there, chosen + [(kind, there)])

        place(0, frozenset(), [])
        return found

    def lane_ok(self, cells, there):
        rows = {r for r, _ in cells}
        cols = {c for _, c in cells}
        if self.axis != "length" or len(rows) == len(cols):
            return True
        return ({r for r, _ in there} == rows if len(cols) > len(rows) else
                {c for _, c in there} == cols)

    def distances(self):
        """The distance of every placement that reaches the goal, by BFS from the goal set."""
        layer = [p for p in self.placements()
                 if all((s, frozenset(w)) in p for s, w in self.goal.items())]
        seen = dict.fromkeys(layer, 0)
        depth = 0
        while layer:
            depth += 1
            nxt = [q for p in layer for q in self.moves(p) if q not in seen]
            for q in nxt:
                seen.setdefault(q, depth)
            layer = [q for q in set(nxt) if seen[q] == depth]
        return seen


    def text(self, position):
        """A board string of a position: the goal pieces with their letters, the others
        with letters of their own."""
        board = [["#" if (r, c) in self.walls else "." for c in range(self.width)]
                 for r in range(self.height)]
        spare = iter(s for s in "abcdefghijklmnopqrstuvwxyz0123456789" if s not in self.goal)
        for kind, cells in position:
            letter = kind if isinstance(kind, str) else next(spare)
            for r, c in cells:
                board[r][c] = letter
        return " ".join("".join(row) for row in board)
