"""The compiled kernels of a catalogue (definition.py) on the search of a cluster
(cluster_search_blocks.py): the candidate boards, listed in order; each cluster searched from
its least board, its farthest board, Fogleman's minimality, its depths counted; one board's
optimal solution.  tests/test_catalogue.py compares them with a plain-Python model."""

import numpy as np

from puzzledb.compiled import jit
from puzzledb.compiled.bitops import popcount
from puzzledb.puzzles.blocks.catalogue.cluster_search_blocks import (
    FIRST,
    LEFT,
    MOVES,
    ONE,
    UP,
    ZERO,
    _clear,
    _copy,
    _longer,
    _moves,
    _rehash,
    _slot,
    _start,
    _add,
    decode,
    depths,
    expand,
    explore,
    goal_met,
    less,
    new_search,
)
from puzzledb.puzzles.blocks.catalogue.definition import SEEN_BOUND

SEEN = SEEN_BOUND  # candidates kept as met, at most (then forgotten: they are searched)
__all__ = ["new_search", "new_walk", "boards", "clusters", "solution"]


@jit(inline="always")
def packed(key, walls, t, kinds, anchors):
    """Whether no piece but the goal pieces can step up or left (a candidate, if the goal
    is met: boards())."""
    pieces, covered = decode(key, t, kinds, anchors)
    occupied = covered | walls | t.fixed
    for p in range(pieces):
        k, a = kinds[p], anchors[p]
        if k < t.goals:
            continue
        for d in (UP, LEFT):
            j = t.steps[k, a, d]
            if j >= 0 and not t.masks[k, j] & ~t.masks[k, a] & occupied:
                return False
    return True


@jit
def farthest(n, most, keys, depth):
    """The least of the keys at the greatest depth."""
    best = -1
    for i in range(n):
        if depth[i] == most and (best < 0 or less(keys[i], keys[best])):
            best = i
    return best


@jit
def unmoved(far, most, walls, t, keys, table, size, depth, kinds, anchors, out, moves, pieces,
            places):
    """The solution from key far down the depths, at each move to the least key one nearer
    the goal: the far board's pieces into pieces/places (class, anchor), their number, and
    places[p] = -1 for each piece the solution moves."""
    count, _ = decode(keys[far], t, pieces, places)
    now = places[count:2 * count]
    now[:] = places[:count]
    at = far
    for d in range(most, 0, -1):
        m = expand(keys[at], walls, t, kinds, anchors, out, moves)
        best, move = -1, -1
        for j in range(m):
            i = table[_slot(out[j], keys, table, size)] - 1
            if depth[i] == d - 1 and (best < 0 or less(keys[i], keys[best])):
                best, move = i, j
        for p in range(count):
            if pieces[p] == moves[move, 0] and now[p] == moves[move, 1]:
                now[p] = moves[move, 2]
                places[p] = -1
                break
        at = best
    return count


@jit
def _layer(t, keys, places, occupied, slots, table, size, kinds, pieces, stack, out, moves,
           n, i, end):
    """shortest()'s step: the boards after keys[i:end] (i up to end), while the arrays have
    room for a board's moves more; the new n and i, or n = -1 at a goal board."""
    while i < end and n + MOVES <= keys.shape[0] and 2 * (n + MOVES) <= size:
        m = _moves(keys[i], occupied[i], kinds, places[i], pieces, t, stack, out, moves)
        for j in range(m):
            nb = out[j]
            h = _slot(nb, keys, table, size)
            if table[h]:
                continue
            if goal_met(nb, t):
                return -n, i
            _add(nb, h, n, i, moves[j], keys, places, occupied, slots, table, t)
            n += 1
        i += 1
    return n, i


@jit
def shortest(key, walls, limit, t, search, kinds, stack, out, moves):
    """The moves from a board to the nearest goal board, breadth first, or limit when it
    needs limit or more.  Returns it and the search (its arrays grown)."""
    keys, places, occupied, slots, table, first, edges = search
    if goal_met(key, t):
        return 0, search
    pieces = _start(key, walls, t, kinds, keys, places, occupied, slots, table)
    n, begin, end, depth, size = 1, 0, 1, 0, FIRST
    while depth + 1 < limit and begin < end:
        depth += 1
        i = begin
        while i < end:
            n, i = _layer(t, keys, places, occupied, slots, table, size, kinds, pieces, stack,
                          out, moves, n, i, end)
            if n < 0:
                _clear(table, slots, -n, size)
                return depth, (keys, places, occupied, slots, table, first, edges)
            if n + MOVES > keys.shape[0]:
                keys, places = _longer(keys, n), _longer(places, n)
                occupied, slots = _longer(occupied, n), _longer(slots, n)
            if 2 * (n + MOVES) > size:
                size *= 2
                table = _rehash(keys, slots, n, table, size)
        begin, end = end, n
    _clear(table, slots, n, size)
    return limit, (keys, places, occupied, slots, table, first, edges)


@jit
def minimal(key, walls, most, count, pieces, places, t, search, kinds, stack, out, moves):
    """Fogleman's rule: whether taking away any piece the solution leaves in place (places
    >= 0; a goal piece never), or any wall, makes the board nearer the goal than most.
    Returns it and the search (its arrays grown)."""
    for p in range(count):
        if places[p] < 0 or pieces[p] < t.goals:
            continue
        fewer = key.copy()
        for w in range(key.size):
            fewer[w] ^= t.delta[pieces[p], places[p], w]
        length, search = shortest(fewer, walls, most, t, search, kinds, stack, out, moves)
        if length == most:
            return False, search
    rest = walls
    while rest:
        cell = rest & (~rest + ONE)
        rest ^= cell
        length, search = shortest(key, walls ^ cell, most, t, search, kinds, stack, out,
                                  moves)
        if length == most:
            return False, search
    return True, search


@jit(inline="always")
def _blocked(k, x, d, occupied, t):
    """Whether a piece of class k at anchor x cannot step in direction d: 1 yes, 0 no, -1
    not known yet (a cell it needs lies after x in reading order and is not covered)."""
    j = t.steps[k, x, d]
    if j < 0:
        return 1
    need = t.masks[k, j] & ~t.masks[k, x]
    if need & occupied:
        return 1
    return 0 if need >> np.uint64(x) == ZERO else -1


def new_walk(t, walls, min_empty=0):
    """The state of the search over boards (boards()), at its start: a board with the goal
    pieces at their goal, up to `walls` walls to place and at least `min_empty` cells to
    leave empty (pos[2]: the cells a board may cover, the box's less min_empty)."""
    cells, words = int(t.cells), t.empty.size
    key = np.zeros((cells + 1, words), np.uint64)
    key[0] = t.empty
    occupied = np.zeros(cells + 1, np.uint64)
    occupied[0] = t.fixed
    for k in range(int(t.goals)):
        occupied[0] |= t.masks[k, t.goal_at[k]]
        key[0] ^= t.delta[k, t.goal_at[k]]
    left = np.zeros(cells + 1, np.int64)
    left[0] = walls
    return (np.array([0, 0, cells - min_empty], np.int64), np.full(cells + 1, -1, np.int64),
            occupied,
            np.zeros(cells + 1, np.uint64), left, key, np.zeros(cells + 1, np.int64),
            np.zeros((2 * cells + 2, 3), np.int64))


@jit
def boards(t, walk, lo, hi, keys, masks):
    """The next candidate boards, up to the one numbered hi - 1, into keys and masks (their
    walls), those numbered before lo skipped; their number (keys.shape[0] at most: call
    again for more).  A candidate has the goal pieces at their goal, no other piece able to
    step up or left (every cluster's least board is one), up to `walls` walls and at least
    min_empty cells empty (new_walk: a piece or wall that would cover more is not placed);
    candidates are numbered in the order of a search over the cells in reading order (each
    the anchor of a piece of each class in turn, a wall, or empty): the order of their keys
    (within a cluster, whose walls are its own), so each cluster's least board comes first.  walk: that search's
    state (new_walk), carried on."""
    pos, choice, occupied, wall, left, key, later, check = walk
    cells, empty = t.cells, 1 + t.masks.shape[0] - t.goals
    options = empty + 1
    x, index, n, room = pos[0], pos[1], 0, pos[2]
    while x >= 0 and index < hi and n < keys.shape[0]:
        if x == cells:
            ok = True
            for q in range(later[x]):
                if _blocked(check[q, 0], check[q, 1], check[q, 2], occupied[x], t) != 1:
                    ok = False
                    break
            if ok:
                if index >= lo:
                    _copy(key[x], keys[n])
                    masks[n] = wall[x]
                    n += 1
                index += 1
            x -= 1
            continue
        o = choice[x] + 1  # the options: each class (in order), a wall, empty
        here = ONE << np.uint64(x)
        if occupied[x] & here:
            o = empty if o == 0 else options
        while o < empty:  # a cell covered is never empty again: no piece past the room
            if o == empty - 1:
                if left[x] > 0 and np.int64(popcount(occupied[x])) < room:
                    break
            else:
                k = o + t.goals
                if t.masks[k, x] and not t.masks[k, x] & occupied[x] and \
                        np.int64(popcount(occupied[x] | t.masks[k, x])) <= room and \
                        _blocked(k, x, UP, occupied[x], t) != 0 and \
                        _blocked(k, x, LEFT, occupied[x], t) != 0:
                    break
            o += 1
        if o >= options:
            x -= 1
            continue
        choice[x] = o
        occupied[x + 1], wall[x + 1], left[x + 1] = occupied[x], wall[x], left[x]
        _copy(key[x], key[x + 1])
        later[x + 1] = later[x]
        if o == empty - 1:
            occupied[x + 1] |= here
            wall[x + 1] |= here
            left[x + 1] -= 1
        elif o < empty - 1:
            k = o + t.goals
            occupied[x + 1] |= t.masks[k, x]
            for w in range(key.shape[1]):
                key[x + 1, w] ^= t.delta[k, x, w]
            for d in (UP, LEFT):
                if _blocked(k, x, d, occupied[x], t) < 0:
                    check[later[x + 1], 0] = k
                    check[later[x + 1], 1] = x
                    check[later[x + 1], 2] = d
                    later[x + 1] += 1
        x += 1
        choice[x] = -1
    pos[0], pos[1] = x, index
    return n


@jit
def _resized(array, n, rows):
    """array with `rows` rows, its first n kept."""
    bigger = np.empty((rows,) + array.shape[1:], array.dtype)
    bigger[:n] = array[:n]
    return bigger


@jit
def _meet(keys, n, walls, t, seen, table, slots, count, kinds, anchors, probe):
    """Add to the set `seen` (count keys and walls, with room for n more) the candidates
    among keys[1:n] (goal met, packed): they are not their cluster's least board; the new
    count."""
    words = keys.shape[1]
    probe[words] = walls
    for i in range(1, n):
        if goal_met(keys[i], t) and packed(keys[i], walls, t, kinds, anchors):
            _copy(keys[i], probe)
            h = _slot(probe, seen, table, table.size)
            if table[h] == 0:
                _copy(probe, seen[count])
                table[h] = count + 1
                slots[count] = h
                count += 1
    return count


@jit
def _tally(depth, n, counts):
    """The states of each depth."""
    counts[:] = 0
    for i in range(n):
        counts[depth[i]] += 1


@jit
def clusters(t, starts, walls, count, search, more):
    """The clusters of the first count candidates (boards()) that are their cluster's least
    board: for each, its candidate's position, states, greatest depth and whether its
    farthest board is minimal (info), the farthest board's key (far) and its states by
    depth (depth counts, those of cluster c at spans[c]:spans[c + 1]).  search, more: the
    arrays of the searches (new_search), returned grown with the results."""
    words = t.empty.size
    depth = np.empty(1024, np.int32)
    queue = np.empty(1024, np.int64)
    kinds = np.empty(2 * t.cells + 2, np.int64)
    anchors = np.empty(2 * t.cells + 2, np.int64)
    pieces = np.empty(2 * t.cells + 2, np.int64)
    places = np.empty(2 * t.cells + 2, np.int64)
    out = np.empty((MOVES, words), np.uint64)
    moves = np.empty((MOVES, 4), np.int64)
    info = np.empty((max(count, 1), 4), np.int64)
    far = np.empty((max(count, 1), words), np.uint64)
    spans = np.zeros(max(count, 1) + 1, np.int64)
    counts = np.empty(1024, np.int64)
    seen = np.empty((1024, words + 1), np.uint64)  # candidates met in a cluster searched
    seen_table = np.zeros(2048, np.int32)
    seen_slots = np.empty(1024, np.int64)
    seen_count = 0
    probe = np.empty(words + 1, np.uint64)
    found = 0
    for c in range(count):
        _copy(starts[c], probe)
        probe[words] = walls[c]
        if seen_count and seen_table[_slot(probe, seen, seen_table, seen_table.size)]:
            continue  # not its cluster's least board: that one came before
        n, size, search = explore(starts[c], walls[c], t, search, kinds, anchors, out, moves,
                                  True)
        if n < 0:
            continue
        keys, _, _, slots, table, first, edges = search
        if seen_count + n > SEEN:
            _clear(seen_table, seen_slots, seen_count, seen_table.size)
            seen_count = 0
        if seen_count + n > seen.shape[0]:
            seen = _resized(seen, seen_count, 2 * (seen_count + n))
            seen_slots = _resized(seen_slots, seen_count, 2 * (seen_count + n))
        if 2 * (seen_count + n) > seen_table.size:
            size_seen = seen_table.size
            while 2 * (seen_count + n) > size_seen:
                size_seen *= 2
            seen_table = _rehash(seen, seen_slots, seen_count, seen_table, size_seen)
        seen_count = _meet(keys, n, walls[c], t, seen, seen_table, seen_slots, seen_count,
                           kinds, anchors, probe)
        if depth.size < n:
            depth = np.empty(2 * n, np.int32)
            queue = np.empty(2 * n, np.int64)
        most = depths(n, t, keys, first, edges, depth, queue)
        best = farthest(n, most, keys, depth)
        count_pieces = unmoved(best, most, walls[c], t, keys, table, size, depth, kinds,
                               anchors, out, moves, pieces, places)
        _copy(keys[best], far[found])
        _clear(table, slots, n, size)
        is_minimal, more = minimal(far[found], walls[c], most, count_pieces, pieces, places,
                                   t, more, kinds, anchors, out, moves)
        info[found, 0], info[found, 1], info[found, 2] = c, n, most
        info[found, 3] = is_minimal
        if spans[found] + most + 1 > counts.size:
            counts = _longer(counts, spans[found])
        spans[found + 1] = spans[found] + most + 1
        _tally(depth, n, counts[spans[found]:spans[found + 1]])
        found += 1
    return (info[:found], far[:found], spans[:found + 1], counts[:spans[found]], search,
            more)


@jit
def _route(key, walls, t):
    """The keys of an optimal solution from key (key first), each move to the least key one
    nearer the goal; none when its cluster has no goal board."""
    words = t.empty.size
    search = (np.empty((1024, words), np.uint64), np.empty((1024, t.cells), np.int16),
              np.empty(1024, np.uint64), np.empty(1024, np.int64), np.zeros(FIRST, np.int32),
              np.empty(1025, np.int64), np.empty(8192, np.int32))
    kinds = np.empty(2 * t.cells + 2, np.int64)
    anchors = np.empty(2 * t.cells + 2, np.int64)
    out = np.empty((MOVES, words), np.uint64)
    moves = np.empty((MOVES, 4), np.int64)
    n, size, search = explore(key, walls, t, search, kinds, anchors, out, moves, False)
    keys, table, first, edges = search[0], search[4], search[5], search[6]
    depth = np.empty(n, np.int32)
    most = depths(n, t, keys, first, edges, depth, np.empty(n, np.int64))
    if most < 0:
        return np.empty((0, words), np.uint64)
    route = np.empty((depth[0] + 1, words), np.uint64)
    at = 0
    for step in range(depth[0] + 1):
        _copy(keys[at], route[step])
        best = -1
        for e in range(first[at], first[at + 1]):
            j = edges[e]
            if depth[j] == depth[at] - 1 and (best < 0 or less(keys[j], keys[best])):
                best = j
        at = best
    return route


def solution(key, walls, t):
    """The keys of an optimal solution from key (key first); None when its cluster has no
    goal board."""
    route = _route(key, walls, t)
    return list(route) if len(route) else None
