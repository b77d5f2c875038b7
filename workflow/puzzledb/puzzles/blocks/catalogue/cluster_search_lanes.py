"""The compiled search of a lane catalogue (lanes.py): a layout's boards as digits, packed
and ranked; a cluster explored from one of its goal boards with two bits a rank (marks), its
goal boards listed on the way, its depths by a breadth-first search from all of them, its
farthest board, Fogleman's solution and minimality.  A line's moves are looked up by the
pattern of its cells covered (`legal`).  candidate_walk_lanes.py walks the layouts of a unit
of work and calls `cluster` for each new cluster; tests/test_catalogue.py compares both with
a plain-Python model of the rules, and the moves by pattern with the moves one by one.

A layout (its content of each line, `lay`, and its walls) has ranks 0 .. product of its
radices - 1 (`weight`: each line's place value, the columns last).  The marks hold two bits
a rank: 0 not seen, 3 seen (a cluster explored, or being explored), and while a cluster's
depths are known, its boards' depths modulo 3 (a board's neighbours lie one nearer, as far,
or one farther: three distinct residues).  A rank is an int64; packed digits a uint64.
"""

import numpy as np

from puzzledb.compiled import jit

SEEN = 3
MOVES = 512  # at most this many moves from one board (64 bars, a few distances each)


@jit(inline="always")
def mark_of(marks, r):
    return np.int64((marks[r >> 5] >> np.uint64((r & 31) << 1)) & np.uint64(3))


@jit(inline="always")
def set_mark(marks, r, value):
    shift = np.uint64((r & 31) << 1)
    marks[r >> 5] = (marks[r >> 5] & ~(np.uint64(3) << shift)) | (np.uint64(value) << shift)


@jit(inline="always")
def digit(t, packed, line):
    return np.int64((packed >> np.uint64(t.shift[line])) & t.field[line])


@jit(inline="always")
def moved(t, packed, line, old, new):
    """Packed digits with line's digit old made new."""
    s = np.uint64(t.shift[line])
    return packed - (np.uint64(old) << s) + (np.uint64(new) << s)


@jit(inline="always")
def decode(t, lay, active, na, fixed, packed, digits):
    """The digits of the active lines into digits; the cells covered (walls too)."""
    occupied = fixed
    for a in range(na):
        line = active[a]
        d = digit(t, packed, line)
        digits[a] = d
        occupied |= t.mask[lay[line], d]
    return occupied


@jit(inline="always")
def is_goal(t, lay, packed):
    for g in range(t.goal_lines.size):
        line = t.goal_lines[g]
        if not t.goal[lay[line], digit(t, packed, line)]:
            return False
    return True


@jit(inline="always")
def legal(t, lay, line, d, occupied):
    """Where the moves of line (digit d) not blocked on the cells occupied are listed in
    legal_target: (first, end), by the pattern of the line's cells covered."""
    g, pattern = t.gather, np.uint64(0)
    for k in range(g.shape[1]):
        pattern |= ((occupied >> g[line, k, 0] & g[line, k, 1]) * g[line, k, 2] >>
                    g[line, k, 3] & g[line, k, 4]) << g[line, k, 5]
    x = (lay[line] * t.mask.shape[1] + d) * t.patterns + np.int64(pattern)
    return t.legal_first[x], t.legal_first[x + 1]


@jit(inline="always")
def shifted(t, lay, occupied, line, old, new):
    """The cells covered with line's digit old made new."""
    c = lay[line]
    return occupied ^ t.mask[c, old] ^ t.mask[c, new]


@jit
def explore(t, lay, weight, active, na, marks, dirty, nd, qp, qr, qo, n, dp, dr, do):
    """The boards reachable from qp/qr/qo[:n] (packed digits, ranks, cells covered; marked
    SEEN), breadth first, appended and marked SEEN, the goal boards among all of them listed
    in dp/dr/do; a word of the marks made non-zero is listed in dirty (nd of them so far).
    Returns n, nd and the goal boards' count, or n -1 when the queue has no room."""
    goals = 0
    for i in range(n):
        if is_goal(t, lay, qp[i]):
            dp[goals], dr[goals], do[goals] = qp[i], qr[i], qo[i]
            goals += 1
    i = 0
    while i < n:
        if n + MOVES > qp.size:
            return -1, nd, goals
        p, r, occupied = qp[i], qr[i], qo[i]
        for a in range(na):
            line = active[a]
            d = digit(t, p, line)
            first, stop = legal(t, lay, line, d, occupied)
            for k in range(first, stop):
                e = t.legal_target[k]
                r2 = r + (e - d) * weight[line]
                if mark_of(marks, r2):
                    continue
                if marks[r2 >> 5] == 0:
                    dirty[nd] = r2 >> 5
                    nd += 1
                set_mark(marks, r2, SEEN)
                p2, o2 = moved(t, p, line, d, e), shifted(t, lay, occupied, line, d, e)
                qp[n], qr[n], qo[n] = p2, r2, o2
                n += 1
                if is_goal(t, lay, p2):
                    dp[goals], dr[goals], do[goals] = p2, r2, o2
                    goals += 1
        i += 1
    return n, nd, goals


@jit
def depths(t, lay, weight, active, na, marks, dp, dr, do, tail, counts):
    """The depths of a cluster whose boards are marked SEEN and whose tail goal boards are
    dp/dr/do[:tail]: a breadth-first search from those into dp/dr/do, each depth's boards
    counted into counts; each board's mark its depth modulo 3.  From a goal board only a
    goal bar's move can reach a board not at depth 0.  Returns the greatest depth (-1: no
    goal board) and where the boards of that depth start in dp/dr/do."""
    if tail == 0:
        return -1, 0
    for i in range(tail):
        set_mark(marks, dr[i], 0)
    head, depth, counts[0] = 0, 0, tail
    while True:
        end = tail
        residue = (depth + 1) % 3
        lines, nl = (t.goal_lines, t.goal_lines.size) if depth == 0 else (active, na)
        for i in range(head, end):
            p, r, occupied = dp[i], dr[i], do[i]
            for a in range(nl):
                line = lines[a]
                d = digit(t, p, line)
                first, stop = legal(t, lay, line, d, occupied)
                for k in range(first, stop):
                    e = t.legal_target[k]
                    r2 = r + (e - d) * weight[line]
                    if mark_of(marks, r2) == SEEN:
                        set_mark(marks, r2, residue)
                        dp[tail], dr[tail] = moved(t, p, line, d, e), r2
                        do[tail] = shifted(t, lay, occupied, line, d, e)
                        tail += 1
        if tail == end:
            return depth, head
        depth += 1
        counts[depth] = tail - end
        head = end


@jit(inline="always")
def _masks(t, lay, active, na, packed):
    """The cells covered by the bars of rows, and by those of columns."""
    across, down = np.uint64(0), np.uint64(0)
    for a in range(na):
        line = active[a]
        cells = t.mask[lay[line], digit(t, packed, line)]
        if t.horizontal[line]:
            across |= cells
        else:
            down |= cells
    return across, down


@jit
def farthest(t, lay, active, na, dp, start, end):
    """The least board of dp[start:end] in Fogleman's order: the cells of the rows' bars as
    a binary number (cell c its bit c), then those of the columns'."""
    best = start
    best_across, best_down = _masks(t, lay, active, na, dp[start])
    for i in range(start + 1, end):
        across, down = _masks(t, lay, active, na, dp[i])
        if across < best_across or (across == best_across and down < best_down):
            best, best_across, best_down = i, across, down
    return best


@jit
def _step(t, lay, weight, active, na, fixed, marks, p, r, residue, goals, bars_moved,
          digits):
    """The first move of Fogleman's solver's order from board (p, r) to a board whose mark
    is residue (one nearer the goal): the goal bars first, then the others line by line.
    Returns the board after it (packed, rank), its bar marked in bars_moved (line, bar)."""
    occupied = decode(t, lay, active, na, fixed, p, digits)
    for goal_pass in (True, False):
        for a in range(na):
            line, d = active[a], digits[a]
            c = lay[line]
            for j in range(t.bars[c]):
                if (t.klass[c, j] < goals) != goal_pass:
                    continue
                for m in range(t.move_first[c, d], t.move_first[c, d + 1]):
                    if t.move_bar[m] != j or t.move_require[m] & occupied:
                        continue
                    e = t.move_target[m]
                    r2 = r + (e - d) * weight[line]
                    if mark_of(marks, r2) == residue:
                        bars_moved[line, j] = True
                        return moved(t, p, line, d, e), r2
    return p, -1  # no board one nearer: the marks are not the depths


@jit
def solution_bars(t, lay, weight, active, na, fixed, marks, p, r, most, goals, bars_moved,
                  digits):
    """Fogleman's optimal solution from the board (p, r) at depth most (the marks its
    cluster's depths): at each move the first of his solver's order one nearer.  The bars
    it moves marked in bars_moved."""
    bars_moved[:, :] = False
    for depth in range(most, 0, -1):
        p, r = _step(t, lay, weight, active, na, fixed, marks, p, r, (depth - 1) % 3, goals,
                     bars_moved, digits)


@jit
def place_values(t, lay, weight):
    """Each line's place value in a layout's ranks (the last line's 1); the ranks' count."""
    w = np.int64(1)
    for line in range(t.lines - 1, -1, -1):
        weight[line] = w
        w *= t.radix[lay[line]]
    return w


@jit
def rank_of(t, lay, weight, packed):
    r = np.int64(0)
    for line in range(t.lines):
        r += digit(t, packed, line) * weight[line]
    return r


@jit
def reaches_goal(t, lay, weight, active, na, fixed, seen, p, r, limit, qp, qr, digits):
    """Whether the board (p, r) reaches a goal board in fewer than limit moves, breadth
    first, each board seen a bit of `seen` (cleared after): 1 yes, 0 no, -1 no room."""
    seen[r >> 6] |= np.uint64(1) << np.uint64(r & 63)
    qp[0], qr[0] = p, r
    head, tail, depth, found = 0, 1, 0, 0
    while depth + 1 < limit and head < tail and not found:
        end = tail
        for i in range(head, end):
            if tail + MOVES > qp.size:
                found = -1
                break
            occupied = decode(t, lay, active, na, fixed, qp[i], digits)
            for a in range(na):
                line, d = active[a], digits[a]
                first, stop = legal(t, lay, line, d, occupied)
                for k in range(first, stop):
                    e = t.legal_target[k]
                    r2 = qr[i] + (e - d) * weight[line]
                    bit = np.uint64(1) << np.uint64(r2 & 63)
                    if seen[r2 >> 6] & bit:
                        continue
                    seen[r2 >> 6] |= bit
                    qp[tail], qr[tail] = moved(t, qp[i], line, d, e), r2
                    tail += 1
                    if is_goal(t, lay, qp[tail - 1]):
                        found = 1
            if found:
                break
        head, depth = end, depth + 1
    for i in range(tail):
        seen[qr[i] >> 6] = 0
    return found


@jit
def minimal(t, lay, weight, active, na, fixed, walls, seen, p, most, goals, bars_moved,
            lay2, weight2, qp, qr, digits):
    """Fogleman's rule for the board p at depth most: whether taking away any bar the
    solution leaves in place (bars_moved false; never a goal bar) or any wall leaves a board
    that reaches the goal in fewer moves.  1 yes, 0 no, -1 no room."""
    for a in range(na):
        line = active[a]
        c, d = lay[line], digit(t, p, line)
        for j in range(t.bars[c]):
            if t.klass[c, j] < goals or bars_moved[line, j]:
                continue
            if most == 0:
                return 0
            lay2[:] = lay
            lay2[line] = t.remove[c, j]
            place_values(t, lay2, weight2)
            p2 = moved(t, p, line, d, t.removed[c, d, j])
            found = reaches_goal(t, lay2, weight2, active, na, fixed, seen, p2,
                                 rank_of(t, lay2, weight2, p2), most, qp, qr, digits)
            if found <= 0:
                return found
    rest = walls
    while rest:
        cell = rest & (~rest + np.uint64(1))
        rest ^= cell
        if most == 0:
            return 0
        found = reaches_goal(t, lay, weight, active, na, fixed ^ cell, seen, p,
                             rank_of(t, lay, weight, p), most, qp, qr, digits)
        if found <= 0:
            return found
    return 1
