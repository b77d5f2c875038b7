"""The compiled search of a catalogue's cluster (definition.py): boards keyed by what covers
each cell, their moves, a set of keys, the boards that reach one another from one of them,
and their depths.  candidate_walk_blocks.py builds the catalogue on them;
tests/test_catalogue.py compares both with a plain-Python model of the rules written in the
test.

A key is `words` uint64 words (CatalogueTables.empty: an empty board); moving a piece of
class k from anchor a to b is key ^ delta[k, a] ^ delta[k, b].  Walls (1x1 cells that never
move) are no field of the key: they are the cluster's, a cell mask beside it.
"""

import numpy as np

from puzzledb.compiled import jit
from puzzledb.puzzles.blocks.puzzle import PATH, STEP

ONE = np.uint64(1)
ZERO = np.uint64(0)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
UP, LEFT = 0, 2  # drawing.STEPS's order
FIRST = 2048  # the table's slots a search starts with
MOVES = 256  # at most this many moves from a board (64 pieces, 4 directions, a line each...)


@jit(inline="always")
def _copy(source, target):
    """target[:] = source, element by element: numba copies a slice assigned from an array
    it cannot prove apart through a temporary (an allocation), too slow a key at a time."""
    for w in range(source.size):
        target[w] = source[w]


@jit(inline="always")
def less(a, b):
    """Whether key a comes before key b (words compared first to last)."""
    for w in range(a.size):
        if a[w] != b[w]:
            return a[w] < b[w]
    return False


@jit(inline="always")
def goal_met(key, t):
    for w in range(key.size):
        if key[w] & t.goal_mask[w] != t.goal_value[w]:
            return False
    return True


@jit(inline="always")
def _hash(key):
    h = np.uint64(0x9E3779B97F4A7C15)
    for w in range(key.size):
        h = (h ^ key[w]) * M1
        h = (h ^ (h >> np.uint64(31))) * M2
    return h ^ (h >> np.uint64(29))


@jit(inline="always")
def decode(key, t, kinds, anchors):
    """The pieces of a board: class and anchor cell into kinds, anchors (reading order);
    their number, and the mask of the cells they cover."""
    empty = (ONE << np.uint64(t.bits)) - ONE
    n = 0
    covered = ZERO
    c = 0
    for w in range(key.size):  # no division by the field count: words, then fields
        shift = (t.per - 1) * t.bits
        word = key[w]
        while shift >= 0 and c < t.cells:
            code = (word >> np.uint64(shift)) & empty
            if code != empty and not (covered >> np.uint64(c)) & ONE:
                kinds[n] = np.int64(code)
                anchors[n] = c
                covered |= t.masks[np.int64(code), c]
                n += 1
            shift -= t.bits
            c += 1
    return n, covered


@jit(inline="always")
def _emit(key, k, a, b, p, t, out, moves, n):
    for w in range(key.size):
        out[n, w] = key[w] ^ t.delta[k, a, w] ^ t.delta[k, b, w]
    moves[n, 0] = k
    moves[n, 1] = a
    moves[n, 2] = b
    moves[n, 3] = p
    return n + 1


@jit(inline="always")
def _moves(key, occupied, kinds, places, pieces, t, stack, out, moves):
    """The neighbours of a board whose pieces are kinds[:pieces] (classes) at places
    (anchors), covering `occupied` with its walls, into out (keys) and moves (class, from,
    to, piece); their number.  stack: room for a flood fill."""
    n = 0
    for p in range(pieces):
        k, a = kinds[p], np.int64(places[p])
        rest = occupied & ~t.masks[k, a]
        if t.metric == PATH:  # a flood fill over the piece's anchors
            seen = ONE << np.uint64(a)
            stack[0] = a
            top = 1
            while top:
                top -= 1
                at = stack[top]
                for d in range(4):
                    j = t.steps[k, at, d]
                    if j >= 0 and not (seen >> np.uint64(j)) & ONE and \
                            not t.masks[k, j] & rest:
                        seen |= ONE << np.uint64(j)
                        stack[top] = j
                        top += 1
                        n = _emit(key, k, a, j, p, t, out, moves, n)
            continue
        for d in range(4):
            j = t.steps[k, a, d]
            while j >= 0 and not t.masks[k, j] & rest:
                n = _emit(key, k, a, j, p, t, out, moves, n)
                if t.metric == STEP:
                    break
                j = t.steps[k, j, d]
    return n


@jit
def expand(key, walls, t, kinds, anchors, out, moves):
    """The neighbours of a board (walls: its wall cells) into out (keys) and moves (class,
    from, to, piece); their number.  kinds and anchors: room for twice its pieces."""
    pieces, covered = decode(key, t, kinds, anchors)
    return _moves(key, covered | walls | t.fixed, kinds, anchors, pieces, t,
                  anchors[pieces:], out, moves)


# -- a set of keys: the keys in order of arrival, and an open-addressing table of their
# positions plus one (0: a free slot), kept at most half full
@jit(inline="always")
def _slot(key, keys, table, size):
    """The slot of key among the first `size` slots of the table (a power of two): where it
    is, or the free slot where it would go.  A search uses only as many slots as it needs,
    so that a small one after a large one stays in the cache."""
    m = size - 1
    h = np.int64(_hash(key) & np.uint64(m))
    while table[h]:
        i = table[h] - 1
        same = True
        for w in range(key.size):
            if keys[i, w] != key[w]:
                same = False
                break
        if same:
            return h
        h = (h + 1) & m
    return h


@jit
def _rehash(keys, slots, n, table, size):
    """The table of the first n keys in `size` slots (their slots into slots), the same
    array if it is large enough."""
    if table.size < size:
        table = np.zeros(size, np.int32)
    else:
        table[:size] = 0
    for i in range(n):
        h = _slot(keys[i], keys, table, size)
        table[h] = i + 1
        slots[i] = h
    return table


@jit(inline="always")
def _clear(table, slots, n, size):
    """Empty the table's first `size` slots (only those its n keys took, when few)."""
    if 8 * n < size:
        for i in range(n):
            table[slots[i]] = 0
    else:
        table[:size] = 0


@jit(inline="always")
def _longer(array, n):
    """array with room for twice as many rows, its first n kept."""
    bigger = np.empty((2 * array.shape[0],) + array.shape[1:], array.dtype)
    bigger[:n] = array[:n]
    return bigger


def new_search(t):
    """The arrays of a search (explore, shortest), grown by them as they need: the keys in
    the order found, each one's pieces' places, its cells covered, its slot in the table,
    the table, and the edges (CSR: first, edges)."""
    words, cells = t.empty.size, int(t.cells)
    return (np.empty((1024, words), np.uint64), np.empty((1024, cells), np.int16),
            np.empty(1024, np.uint64), np.empty(1024, np.int64),
            np.zeros(2048, np.int32), np.empty(1025, np.int64),
            np.empty(8192, np.int32))


@jit(inline="always")
def _add(key, h, n, i, move, keys, places, occupied, slots, table, t):
    """Key (free at slot h) as the n-th key: key i with the move (class, from, to, piece)
    made."""
    _copy(key, keys[n])
    k, a, b = move[0], move[1], move[2]
    _copy(places[i], places[n])
    places[n, move[3]] = b
    occupied[n] = occupied[i] ^ t.masks[k, a] ^ t.masks[k, b]
    slots[n] = h
    table[h] = n + 1


@jit
def _start(key, walls, t, kinds, keys, places, occupied, slots, table):
    """The search's first key: its pieces' classes into kinds; their number."""
    pieces, covered = decode(key, t, kinds, places[0])
    _copy(key, keys[0])
    occupied[0] = covered | walls | t.fixed
    h = _slot(key, keys, table, FIRST)
    table[h] = 1
    slots[0] = h
    return pieces


@jit
def _explore_some(start, t, keys, places, occupied, slots, table, size, first, edges,
                  kinds, pieces, stack, out, moves, least, n, e, i):
    """explore()'s loop, while the arrays have room for a board's moves more (it grows
    nothing, so that numba keeps no count of references in it): the new n, e and i, or
    n = -n at a goal board before start (least)."""
    while i < n and n + MOVES <= keys.shape[0] and 2 * (n + MOVES) <= size and \
            e + MOVES <= edges.size:
        m = _moves(keys[i], occupied[i], kinds, places[i], pieces, t, stack, out, moves)
        for j in range(m):
            nb = out[j]
            h = _slot(nb, keys, table, size)
            if table[h] == 0:
                if least and less(nb, start) and goal_met(nb, t):
                    return -n, e, i
                _add(nb, h, n, i, moves[j], keys, places, occupied, slots, table, t)
                n += 1
            edges[e] = table[h] - 1
            e += 1
        i += 1
        first[i] = e
    return n, e, i


@jit
def explore(start, walls, t, search, kinds, stack, out, moves, least):
    """The cluster of start, breadth first: its keys in search (keys[:n]) with the edges
    between them (key i's: edges[first[i]:first[i + 1]]).  Returns n, the table's slots in
    use and the search (its arrays grown where they had no room).  least: give up at a goal
    board before start (start is not its cluster's least board), -n for the n explored."""
    keys, places, occupied, slots, table, first, edges = search
    pieces = _start(start, walls, t, kinds, keys, places, occupied, slots, table)
    n, e, i, size = 1, 0, 0, FIRST
    first[0] = 0
    while i < n:
        n, e, i = _explore_some(start, t, keys, places, occupied, slots, table, size, first,
                                edges, kinds, pieces, stack, out, moves, least, n, e, i)
        if n < 0:
            _clear(table, slots, -n, size)
            return n, FIRST, (keys, places, occupied, slots, table, first, edges)
        if n + MOVES > keys.shape[0]:
            keys, places = _longer(keys, n), _longer(places, n)
            occupied, slots, first = _longer(occupied, n), _longer(slots, n), _longer(first, n + 1)
        if 2 * (n + MOVES) > size:
            size *= 2
            table = _rehash(keys, slots, n, table, size)
        if e + MOVES > edges.size:
            edges = _longer(edges, e)
    return n, size, (keys, places, occupied, slots, table, first, edges)


@jit
def depths(n, t, keys, first, edges, depth, queue):
    """The depth of each of the n keys explored (its moves to the nearest goal board) into
    depth, the queue's room for n; the greatest depth (-1: no goal board)."""
    tail = 0
    for i in range(n):
        depth[i] = -1
        if goal_met(keys[i], t):
            depth[i] = 0
            queue[tail] = i
            tail += 1
    head = 0
    most = -1 if tail == 0 else 0
    while head < tail:
        i = queue[head]
        head += 1
        for e in range(first[i], first[i + 1]):
            j = edges[e]
            if depth[j] < 0:
                depth[j] = depth[i] + 1
                most = depth[j]
                queue[tail] = j
                tail += 1
    return most
