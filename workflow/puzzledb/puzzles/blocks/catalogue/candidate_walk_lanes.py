"""The compiled walk of a lane catalogue's units of work (lanes.units): a unit is a set of
walls and the contents of every row; its layouts add the contents of every column that
leave a goal board; each layout's goal boards are met in turn, and each not yet marked is
the first of a new cluster, searched whole (cluster_search_lanes.py) and written to the job's
output.  tests/test_catalogue.py compares the rows with a plain-Python model.

Everything a unit needs is preallocated (new_work, new_output): a kernel that runs out of
room says so and where it stopped, and is called again, the arrays grown, from there (the
layout's marks kept, so its clusters already written are not searched again).
"""

from collections import namedtuple

import numpy as np

from puzzledb.compiled import jit
from puzzledb.puzzles.blocks.catalogue.cluster_search_lanes import (
    SEEN,
    decode,
    depths,
    explore,
    farthest,
    mark_of,
    minimal,
    place_values,
    set_mark,
    solution_bars,
)

DONE, FULL, ROOM = 0, 1, 2  # a unit finished; the output full; a cluster past the queues
# work.count's entries: marks' words made non-zero, clusters and counts written, and the
# totals: layouts, goal boards, clusters, boards searched
DIRTY, ROWS, COUNTS, LAYOUTS, GOALS, CLUSTERS, BOARDS = range(7)


# A job's arrays (new_work): the marks (two bits a rank of the largest layout), the bits
# seen by the minimality's searches, the marks' words made non-zero (to clear), the counts
# (DIRTY ...); the queues of a cluster's exploration (qp, qr, qo: packed digits, ranks,
# cells covered), of its depths (dp, dr, do) and of the minimality's searches (mp, mr), its
# boards by depth (counts); a layout (lay, weight, active lines), scratch.
Work = namedtuple("Work", "marks seen dirty count qp qr dp dr mp mr counts lay weight "
                  "active digits bars_moved lay2 weight2 comp ncomp at qo do")
# A job's output: each cluster's states, moves and minimal (info), farthest board (far: its
# key, definition.py) and walls, and its counts (counts[spans[i]:spans[i + 1]]).
Output = namedtuple("Output", "info far walls spans counts")


def new_work(t, ranks, queue):
    """The arrays of a job whose layouts have at most `ranks` ranks, its queues room for
    `queue` boards."""
    lines, bars, most = int(t.lines), t.klass.shape[1], t.mask.shape[1]
    words = ranks // 32 + 2
    return Work(np.zeros(words, np.uint64), np.zeros(ranks // 64 + 2, np.uint64),
                np.empty(words, np.int64), np.zeros(8, np.int64),
                *(np.empty(queue, np.uint64 if k % 2 == 0 else np.int64) for k in range(6)),
                np.empty(queue + 1, np.int64), np.empty(lines, np.int64),
                np.empty(lines, np.int64), np.empty(lines, np.int64),
                np.empty(lines, np.int64), np.empty((lines, bars), np.bool_),
                np.empty(lines, np.int64), np.empty(lines, np.int64),
                np.empty((lines, most), np.int64), np.empty(lines, np.int64),
                np.empty(lines, np.int64), np.empty(queue, np.uint64),
                np.empty(queue, np.uint64))


def new_output(key_words, rows, counts):
    """Room for `rows` clusters and `counts` distance counts."""
    return Output(np.empty((rows, 3), np.int64), np.empty((rows, key_words), np.uint64),
                  np.empty(rows, np.uint64), np.zeros(rows + 1, np.int64),
                  np.empty(counts, np.int64))


@jit
def _key(t, kt, lay, active, na, packed):
    """The board's key (definition.py: a class a cell) from its digits."""
    key = kt.empty.copy()
    for a in range(na):
        line = active[a]
        c = lay[line]
        d = np.int64((packed >> np.uint64(t.shift[line])) & t.field[line])
        for j in range(t.bars[c]):
            for w in range(key.size):
                key[w] ^= kt.delta[t.klass[c, j], t.anchor[c, d, j], w]
    return key


@jit
def _write(t, kt, lay, active, na, walls, far, n, most, is_minimal, counts, output, count):
    """A cluster's row into the output; False when it has no room."""
    info, keys, wall_masks, spans, flat = output.info, output.far, output.walls, \
        output.spans, output.counts
    row, used = count[ROWS], count[COUNTS]
    if row >= info.shape[0] or used + most + 1 > flat.size:
        return False
    info[row, 0], info[row, 1], info[row, 2] = n, most, is_minimal
    keys[row] = _key(t, kt, lay, active, na, far)
    wall_masks[row] = walls
    flat[used:used + most + 1] = counts[:most + 1]
    spans[row + 1] = used + most + 1
    count[ROWS], count[COUNTS] = row + 1, used + most + 1
    return True


@jit
def cluster(t, kt, lay, weight, active, na, walls, p, r, work, output):
    """The cluster of the goal board (p, r), not yet marked: explored, its depths, farthest
    board, Fogleman's minimality and its row written; its boards left marked SEEN.  Returns
    DONE, or FULL / ROOM: the output or the queues too small (nothing written; the caller
    starts the layout again)."""
    marks, count, qp, qr, dp, dr = work.marks, work.count, work.qp, work.qr, work.dp, work.dr
    digits = work.digits
    fixed = t.fixed | walls
    if marks[r >> 5] == 0:
        work.dirty[count[DIRTY]] = r >> 5
        count[DIRTY] += 1
    set_mark(marks, r, SEEN)
    qp[0], qr[0], work.qo[0] = p, r, decode(t, lay, active, na, fixed, p, digits)
    n, count[DIRTY], met = explore(t, lay, weight, active, na, marks, work.dirty,
                                   count[DIRTY], qp, qr, work.qo, 1, dp, dr, work.do)
    if n < 0:
        return ROOM
    most, start = depths(t, lay, weight, active, na, marks, dp, dr, work.do, met, work.counts)
    far = farthest(t, lay, active, na, dp, start, n)
    goals = np.int64(kt.goals)
    solution_bars(t, lay, weight, active, na, fixed, marks, dp[far], dr[far], most, goals,
                  work.bars_moved, digits)
    for i in range(n):
        set_mark(marks, qr[i], SEEN)
    is_minimal = minimal(t, lay, weight, active, na, fixed, walls, work.seen, dp[far], most,
                         goals, work.bars_moved, work.lay2, work.weight2, work.mp, work.mr,
                         digits)
    if is_minimal < 0:
        return ROOM
    if not _write(t, kt, lay, active, na, walls, dp[far], n, most, is_minimal, work.counts,
                  output, count):
        return FULL
    count[CLUSTERS] += 1
    count[BOARDS] += n
    return DONE


@jit
def _row_placements(t, rows, fixed):
    """Every placement of the rows' bars (contents rows) with the goal bars at their goal
    and none on a fixed cell: packed digits, rank over the rows alone (the rows' radices in
    mixed radix), the cells covered (fixed ones too)."""
    height = rows.size
    total = 1
    for r in range(height):
        total *= t.radix[rows[r]]
    packed, ranks = np.empty(total, np.uint64), np.empty(total, np.int64)
    covered = np.empty(total, np.uint64)
    digits = np.zeros(height, np.int64)
    n = 0
    while True:
        occupied, p, rank, ok = fixed, np.uint64(0), np.int64(0), True
        for r in range(height):
            c, d = rows[r], digits[r]
            if not t.goal[c, d] or t.mask[c, d] & occupied:
                ok = False
                break
            occupied |= t.mask[c, d]
            p |= np.uint64(d) << np.uint64(t.shift[r])
            rank = rank * t.radix[c] + d
        if ok:
            packed[n], ranks[n], covered[n] = p, rank, occupied
            n += 1
        r = height - 1
        while r >= 0:
            digits[r] += 1
            if digits[r] < t.radix[rows[r]]:
                break
            digits[r] = 0
            r -= 1
        if r < 0:
            return packed[:n], ranks[:n], covered[:n]


@jit(inline="always")
def _fits(t, c, occupied):
    """Whether content c has a placement clear of the cells occupied (its goal bars at
    their goal)."""
    for d in range(t.radix[c]):
        if t.goal[c, d] and not t.mask[c, d] & occupied:
            return True
    return False


@jit
def _clear(work):
    for i in range(work.count[DIRTY]):
        work.marks[work.dirty[i]] = 0
    work.count[DIRTY] = 0


@jit
def _layout(t, kt, lay, walls, packed, ranks, covered, alive, work, output):
    """Every goal board of a layout (lay: each line's content; its rows' placements packed,
    ranks, covered, those alive under its columns), each not marked yet the first of a new
    cluster.  DONE, or FULL / ROOM with the work and output as before the layout."""
    count, weight, active, comp, ncomp = work.count, work.weight, work.active, work.comp, \
        work.ncomp
    height = np.int64(t.rows)
    before = count.copy()
    place_values(t, lay, weight)
    na = 0
    for line in range(t.lines):
        if t.bars[lay[line]]:
            active[na] = line
            na += 1
    columns = t.lines - height
    per_rows = weight[height - 1]  # a rows' rank's place value: the columns' ranks
    for i in range(packed.size):
        if not alive[i]:
            continue
        for k in range(columns):
            c, n = lay[height + k], 0
            for d in range(t.radix[c]):
                if t.goal[c, d] and not t.mask[c, d] & covered[i]:
                    comp[k, n] = d
                    n += 1
            ncomp[k] = n
        status = _goal_boards(t, kt, lay, walls, packed[i], ranks[i] * per_rows, active, na,
                              comp, ncomp, work, output)
        if status != DONE:
            _clear(work)
            count[ROWS:] = before[ROWS:]
            return status
    _clear(work)
    count[LAYOUTS] += 1
    return DONE


@jit
def _goal_boards(t, kt, lay, walls, p0, r0, active, na, comp, ncomp, work, output):
    """The goal boards of one placement of the rows (packed p0, rank r0): every choice of
    the columns' digits comp[k, :ncomp[k]]; each not marked the first of a cluster."""
    marks, count, weight, at = work.marks, work.count, work.weight, work.at
    height = np.int64(t.rows)
    columns = t.lines - height
    for k in range(columns):
        if ncomp[k] == 0:
            return DONE
        at[k] = 0
    while True:
        p, r = p0, r0
        for k in range(columns):
            d = comp[k, at[k]]
            p |= np.uint64(d) << np.uint64(t.shift[height + k])
            r += d * weight[height + k]
        count[GOALS] += 1
        if mark_of(marks, r) == 0:
            status = cluster(t, kt, lay, weight, active, na, walls, p, r, work, output)
            if status != DONE:
                return status
        k = columns - 1
        while k >= 0:
            at[k] += 1
            if at[k] < ncomp[k]:
                break
            at[k] = 0
            k -= 1
        if k < 0:
            return DONE


@jit
def walk_unit(t, kt, rows, walls, skip, work, output):
    """A unit's layouts (rows: the rows' contents; walls: its walls' cells) from the
    skip-th on: (DONE, layouts), or (FULL / ROOM, the layout to start again from)."""
    height = np.int64(t.rows)
    columns = t.lines - height
    lay = work.lay
    lay[:height] = rows
    packed, ranks, covered = _row_placements(t, rows, t.fixed | walls)
    if packed.size == 0:
        return DONE, 0
    alive = np.empty((columns + 1, packed.size), np.bool_)
    alive[0, :] = True
    choice = np.full(columns, -1, np.int64)
    k, index = 0, 0
    while k >= 0:
        first, last = t.content_first[height + k], t.content_first[height + k + 1]
        choice[k] = first if choice[k] < 0 else choice[k] + 1
        if choice[k] >= last:
            choice[k] = -1
            k -= 1
            continue
        c, any_alive = choice[k], False
        for i in range(packed.size):
            alive[k + 1, i] = alive[k, i] and _fits(t, c, covered[i])
            any_alive |= alive[k + 1, i]
        if not any_alive:
            continue
        lay[height + k] = c
        if k + 1 < columns:
            k += 1
            continue
        if index >= skip:
            status = _layout(t, kt, lay, walls, packed, ranks, covered, alive[columns], work,
                             output)
            if status != DONE:
                return status, index
        index += 1
    return DONE, index
