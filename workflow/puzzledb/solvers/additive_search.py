"""IDA* with additive pattern databases (additive.py), compiled: the sibling of tree.py's
TreeSearch for puzzles whose tiles a partition splits into groups.

The bound of a board is the larger of two sums: the groups' table values of the board, and
of its mirror image in the main diagonal with the tiles renamed so that the goal maps to
itself (a square board whose blank's goal cell is on that diagonal).  The mirror image is as
far from the goal as the board, so both sums are admissible, and so is their max.  Each sum
adds up: a move moves one tile, of one group, and a group's table counts its own tiles'
moves only.

Instead of ranks, the search keeps the board, and for each of the two lookups and each group
the cells of the group's tiles, its Manhattan distance and its table value.  A move changes
one tile, so one group per lookup: one placement number (k popcounts), one Manhattan term,
one 4-bit read.  The mirrored lookup is read only when the direct one does not already cut
the child.  The move back to the parent's cell is never generated.  Children are tried
smallest bound first (moves made being equal, that is smallest f), ties in the fixed order
left, right, up, down: see docs/solvers.md.
"""

from collections import namedtuple

import numpy as np

from puzzledb.compiled import jit
from puzzledb.solvers.additive import geometry, manhattan, placement_weights
from puzzledb.solvers.additive_kernels import rank_placement, table_value
from puzzledb.solvers.tree import INFINITE, deepen

_BUDGET = 1 << 22  # nodes per compiled call: progress and Ctrl-C get a turn between calls

# What the compiled loop reads.  data/offsets: the tables back to back; sizes, weights: each
# group's tiles and digit weights.  For lookup L (0: the board, 1: its mirror image) and a
# tile u of the board: group_of[L, u] and index_of[L, u], the group and digit it feeds;
# cell_map[L, c] the cell that the board's cell c stands for; md_cost[L, u, c] that tile's
# Manhattan distance from home when u is on c.
SearchTables = namedtuple("SearchTables", "data offsets sizes weights group_of index_of "
                                          "cell_map md_cost adjacent lookups")
# The state of the board being searched: the board, and per lookup and group the cells of
# its tiles, its Manhattan distance, its value (Manhattan + twice the stored 4 bits), and
# per lookup the sum of the values.
State = namedtuple("State", "board places md values sums")
# The stack of a paused iteration: at depth d the blank's cell, the children within the
# threshold (cells, f, values and Manhattan distances of both lookups), how many and which
# is next, and the values a move replaced (for its undo).
Stack = namedtuple("Stack", "at count index child child_f child_values child_md "
                            "saved_values saved_md")
_DEPTH, _EXPAND, _FOUND, _SMALLEST, _NODES, _GENERATED = range(6)


def search_tables(database, mirror=True):
    """The SearchTables of an AdditiveDatabase; the mirrored lookup when the board allows it
    (square, the blank's goal cell on the main diagonal) and `mirror` asks for it."""
    p = database.partition
    w, cells = p.width, p.width * p.height
    adjacent, home = geometry(p)
    blank = int(home[0])
    lookups = 2 if mirror and p.width == p.height and blank // w == blank % w else 1
    longest = max(len(tiles) for tiles in p.groups)
    where = {t: (g, i) for g, tiles in enumerate(p.groups) for i, t in enumerate(tiles)}

    def reflect(c):  # lookup 1 stands for lookup 0 when there is no mirror
        return (c % w) * w + c // w if lookups == 2 else c

    group_of = np.zeros((2, cells), np.int64)
    index_of = np.zeros((2, cells), np.int64)
    cell_map = np.array([list(range(cells)), [reflect(c) for c in range(cells)]], np.int64)
    md_cost = np.zeros((2, cells, cells), np.int64)
    for u in range(1, cells):
        mirrored = int(p.goal[reflect(int(home[u]))])  # the tile whose home mirrors u's
        for lookup, t in ((0, u), (1, mirrored)):
            group_of[lookup, u], index_of[lookup, u] = where[t]
            for c in range(cells):
                md_cost[lookup, u, c] = manhattan(p, int(cell_map[lookup, c]), int(home[t]))
    return SearchTables(
        database.data, database.offsets, np.array([len(g) for g in p.groups], np.int64),
        np.stack([placement_weights(cells, len(g), longest) for g in p.groups]),
        group_of, index_of, cell_map, md_cost, adjacent, lookups)


def new_state(t):
    groups, longest = t.weights.shape
    return State(np.zeros(t.adjacent.shape[0], np.int64),
                 np.zeros((2, groups, longest), np.int64), np.zeros((2, groups), np.int64),
                 np.zeros((2, groups), np.int64), np.zeros(2, np.int64))


class AdditiveSearch:
    """IDA* over boards with an additive pattern database bound, compiled (see the module's
    docstring).  Like TreeSearch, the loop stops after a budget of nodes and resumes where it
    stopped, so a long search reports progress and can be interrupted."""

    def __init__(self, database, mirror=True, max_length=255):
        self.database = database
        self.tables = search_tables(database, mirror)
        self.max_length = max_length
        self.state = new_state(self.tables)
        top = max_length + 2
        self.stack = Stack(np.zeros(top, np.int64), np.zeros(top, np.int64),
                           np.zeros(top, np.int64), np.zeros((top, 4), np.int64),
                           np.zeros((top, 4), np.int64), np.zeros((top, 4, 2), np.int64),
                           np.zeros((top, 4, 2), np.int64), np.zeros((top, 2), np.int64),
                           np.zeros((top, 2), np.int64))
        self.scalars = np.zeros(6, np.int64)
        self.generated = 0  # children generated by the last run, all iterations
        self._generated = {}  # threshold -> children generated by its pass

    def bounds(self, boards):
        """The bound of each board (rows of piece codes), recomputed in full: int64."""
        boards = np.atleast_2d(np.asarray(boards, dtype=np.int64))
        return bounds_of_boards(boards, self.tables, new_state(self.tables))

    def warm(self):
        """Load the compiled loop (a call with no budget), so that timings leave it out."""
        start = self.database.partition.goal
        self.bounds(np.array([start]))
        self._reset(np.array(start, np.int64))
        _step(0, 1, 0, self.tables, self.state, self.stack, np.zeros((1, 1), np.int64),
              self.scalars)

    def run(self, board, want=1, progress=None):
        """(length, routes, nodes): the optimal length (None if above max_length), up to
        `want` optimal routes (the blank's cell after each move, in the order found) and the
        nodes expanded over all iterations (children generated: self.generated)."""
        board = np.asarray(board, dtype=np.int64)
        self._generated = {}
        length, solutions, nodes = deepen(
            int(self.bounds(board)[0]), want, self.max_length,
            lambda threshold, capacity, before: self._iteration(
                board, threshold, want, capacity, progress, before))
        self.generated = sum(self._generated.values())
        if length is None:
            return None, [], nodes
        return length, [row[:length].tolist() for row in solutions], nodes

    def _reset(self, board):
        self.state.board[:] = board
        self.stack.at[0] = init_state(self.tables, self.state)
        self.scalars[:] = 0
        self.scalars[_EXPAND], self.scalars[_SMALLEST] = 1, INFINITE

    def _iteration(self, board, threshold, want, capacity, progress, nodes_before):
        """One depth-first pass within threshold: (solutions found, smallest cut f, nodes,
        solutions array)."""
        solutions = np.zeros((capacity, max(threshold, 1)), dtype=np.int64)
        self._reset(board)
        if threshold == 0:  # the board is the goal
            self._generated[0] = 0
            return 1, INFINITE, 1, solutions
        s = self.scalars
        while not _step(threshold, want, _BUDGET, self.tables, self.state, self.stack,
                        solutions, s):
            if progress is not None:
                progress(threshold, nodes_before + int(s[_NODES]))
        self._generated[threshold] = int(s[_GENERATED])  # a pass run again counts once
        return int(s[_FOUND]), int(s[_SMALLEST]), int(s[_NODES]), solutions


# --- kernels ------------------------------------------------------------------------------------


@jit
def init_state(t, st):
    """Fill the state from st.board in full; the blank's cell."""
    blank = 0
    st.places[:] = 0
    st.md[:] = 0
    st.values[:] = 0
    st.sums[:] = 0
    for c in range(st.board.size):
        u = st.board[c]
        if u == 0:
            blank = c
            continue
        for lookup in range(t.lookups):
            g = t.group_of[lookup, u]
            st.places[lookup, g, t.index_of[lookup, u]] = t.cell_map[lookup, c]
            st.md[lookup, g] += t.md_cost[lookup, u, c]
    for lookup in range(t.lookups):
        for g in range(t.sizes.size):
            r = rank_placement(st.places[lookup, g], t.sizes[g], t.weights[g])
            st.values[lookup, g] = st.md[lookup, g] + 2 * table_value(t.data, t.offsets[g], r)
            st.sums[lookup] += st.values[lookup, g]
    return blank


@jit
def bounds_of_boards(boards, t, st):
    out = np.empty(boards.shape[0], np.int64)
    for n in range(boards.shape[0]):
        st.board[:] = boards[n]
        init_state(t, st)
        out[n] = st.sums[:t.lookups].max()
    return out


@jit(inline="always")
def child_value(lookup, u, b, n, t, st):
    """(value, Manhattan distance) of the group of tile u in `lookup` once u slides from
    n into the blank at b; the state is left as it was."""
    g = t.group_of[lookup, u]
    i = t.index_of[lookup, u]
    places = st.places[lookup, g]
    old = places[i]
    places[i] = t.cell_map[lookup, b]
    r = rank_placement(places, t.sizes[g], t.weights[g])
    places[i] = old
    md = st.md[lookup, g] + t.md_cost[lookup, u, b] - t.md_cost[lookup, u, n]
    return md + 2 * table_value(t.data, t.offsets[g], r), md


@jit(inline="always")
def make_move(b, n, values, mds, t, st, saved_values, saved_md):
    """Slide the tile at n into the blank at b, with the values child_value gave; what they
    replace goes to saved_values / saved_md, for undo_move."""
    u = st.board[n]
    st.board[b] = u
    st.board[n] = 0
    for lookup in range(t.lookups):
        g = t.group_of[lookup, u]
        saved_values[lookup] = st.values[lookup, g]
        saved_md[lookup] = st.md[lookup, g]
        st.places[lookup, g, t.index_of[lookup, u]] = t.cell_map[lookup, b]
        st.md[lookup, g] = mds[lookup]
        st.sums[lookup] += values[lookup] - st.values[lookup, g]
        st.values[lookup, g] = values[lookup]


@jit(inline="always")
def undo_move(b, n, t, st, saved_values, saved_md):
    """Undo make_move(b, n, ...): the tile now at b goes back to n."""
    u = st.board[b]
    st.board[n] = u
    st.board[b] = 0
    for lookup in range(t.lookups):
        g = t.group_of[lookup, u]
        st.places[lookup, g, t.index_of[lookup, u]] = t.cell_map[lookup, n]
        st.sums[lookup] += saved_values[lookup] - st.values[lookup, g]
        st.values[lookup, g] = saved_values[lookup]
        st.md[lookup, g] = saved_md[lookup]


@jit
def move(b, n, t, st, saved_values, saved_md):
    """One move by child_value and make_move (for tests of the incremental state)."""
    values = np.zeros(2, np.int64)
    mds = np.zeros(2, np.int64)
    u = st.board[n]
    for lookup in range(t.lookups):
        values[lookup], mds[lookup] = child_value(lookup, u, b, n, t, st)
    make_move(b, n, values, mds, t, st, saved_values, saved_md)


@jit
def unmove(b, n, t, st, saved_values, saved_md):
    undo_move(b, n, t, st, saved_values, saved_md)


@jit
def _step(threshold, want, budget, t, st, k, solutions, s):
    """Run the iteration on until it ends (True) or has spent budget nodes (False).  The
    goal is the board whose direct sum is 0: every group home, so every tile."""
    d, expand, found, smallest = s[_DEPTH], s[_EXPAND], s[_FOUND], s[_SMALLEST]
    nodes, generated = s[_NODES], s[_GENERATED]
    stop = nodes + budget
    finished = False
    while True:
        if expand:  # the children of the node at depth d that are within the threshold
            expand = 0
            nodes += 1
            b = k.at[d]
            parent = k.at[d - 1] if d > 0 else -1
            m = 0
            for j in range(4):
                n = t.adjacent[b, j]
                if n < 0 or n == parent:
                    continue
                generated += 1
                u = st.board[n]
                v0, md0 = child_value(0, u, b, n, t, st)
                f = d + 1 + st.sums[0] - st.values[0, t.group_of[0, u]] + v0
                v1 = md1 = 0
                if f <= threshold and t.lookups == 2:
                    v1, md1 = child_value(1, u, b, n, t, st)
                    f = max(f, d + 1 + st.sums[1] - st.values[1, t.group_of[1, u]] + v1)
                if f > threshold:
                    smallest = min(smallest, f)
                    continue
                q = m  # insertion sort: smallest f first, ties in move order
                while q > 0 and k.child_f[d, q - 1] > f:
                    k.child[d, q] = k.child[d, q - 1]
                    k.child_f[d, q] = k.child_f[d, q - 1]
                    k.child_values[d, q] = k.child_values[d, q - 1]
                    k.child_md[d, q] = k.child_md[d, q - 1]
                    q -= 1
                k.child[d, q] = n
                k.child_f[d, q] = f
                k.child_values[d, q, 0], k.child_values[d, q, 1] = v0, v1
                k.child_md[d, q, 0], k.child_md[d, q, 1] = md0, md1
                m += 1
            k.count[d] = m
            k.index[d] = 0
            if nodes >= stop:
                break
            continue
        i = k.index[d]
        if i < k.count[d]:  # the next child
            k.index[d] = i + 1
            n = k.child[d, i]
            make_move(k.at[d], n, k.child_values[d, i], k.child_md[d, i], t, st,
                      k.saved_values[d + 1], k.saved_md[d + 1])
            d += 1
            k.at[d] = n
            if st.sums[0] == 0:
                if found < solutions.shape[0]:
                    solutions[found, :d] = k.at[1:d + 1]
                found += 1
                if found >= want:
                    finished = True
                    break
                undo_move(k.at[d - 1], n, t, st, k.saved_values[d], k.saved_md[d])
                d -= 1
                continue
            expand = 1
        else:  # back to the parent
            if d == 0:
                finished = True
                break
            undo_move(k.at[d - 1], k.at[d], t, st, k.saved_values[d], k.saved_md[d])
            d -= 1
    s[_DEPTH], s[_EXPAND], s[_FOUND], s[_SMALLEST] = d, expand, found, smallest
    s[_NODES], s[_GENERATED] = nodes, generated
    return finished
