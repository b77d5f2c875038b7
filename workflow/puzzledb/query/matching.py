"""Meet-in-the-middle distances: exact distances to the goal, also beyond the stored depth k,
from the goal-side layers 0..k alone and a forward search from each query.

Why it is exact (reversible puzzles): every shortest path from a query q at distance D > k
crosses layer k exactly D - k moves from q, and no state fewer than D - k moves from q lies
in layers 0..k (it would be nearer the goal than D allows).  So the first radius j at which
the ball around q touches the stored layers gives D = j + the smallest depth touched.  Only
layers 0..k are ever opened.

Two forward searches give the ball around q.  The general one expands q sphere by sphere with
the puzzle's kernel.  The fast one needs a puzzle with a `relabelling()` (distinct tiles whose
moves depend only on where the blank is): then the states j moves from q are the goal's
layer j with the tiles renamed, so no search is needed, only renaming stored states and
probing layer k (the seed's method).
"""

import time
from pathlib import Path

import numpy as np
from numba import prange

from puzzledb.bfs import bitset
from puzzledb.compiled import jit, neighbours_of_many, relabel, relabel_one
from puzzledb.query.lookups import depths_of, descend
from puzzledb.errors import BoardError, LayerError, PuzzleError
from puzzledb.expansion import words_for
from puzzledb.store.layers import LayerStore

# Layer k is probed as a bitset over the rank space when that takes at most this many bytes,
# else by binary search in its sorted ranks.
BITSET_LIMIT = 1 << 30
BATCH = 1 << 18  # queries matched at a time; progress is logged between batches


class GoalLayers:
    """Layers 0..k of a puzzle's store, read into memory (sorted ranks, depth after depth).

    If the store holds a complete database shallower than k, k becomes its maximum depth and
    every state not in the layers is unreachable."""

    def __init__(self, store, k):
        if not isinstance(store, LayerStore):
            raise TypeError("GoalLayers needs a LayerStore")
        self.store = store
        self.puzzle = store.puzzle
        self.complete = False
        try:
            manifest = store.manifest()
            if int(manifest["max_depth"]) <= k:
                k = int(manifest["max_depth"])
                self.complete = True
        except LayerError:
            pass
        if k < 0:
            raise PuzzleError(f"{self.puzzle.name}: the matching depth k must be >= 0")
        self.k = int(k)
        arrays = []
        for depth in range(self.k + 1):
            with store.open_layer(depth) as layer:
                arrays.append(np.asarray(layer.ranks(), dtype=np.uint64).view(np.int64))
        self.offsets = np.zeros(self.k + 2, dtype=np.int64)
        self.offsets[1:] = np.cumsum([a.size for a in arrays])
        self.ranks = np.concatenate(arrays) if arrays else np.zeros(0, np.int64)
        self._target_bits = None

    @property
    def total(self):
        return int(self.offsets[-1])

    def layer(self, depth):
        """The sorted ranks (int64) of stored layer `depth`."""
        return self.ranks[self.offsets[depth]:self.offsets[depth + 1]]

    def contains(self, depth, ranks):
        layer = self.layer(depth)
        ranks = np.asarray(ranks, dtype=np.uint64).view(np.int64)
        if layer.size == 0:
            return np.zeros(ranks.size, dtype=bool)
        at = np.minimum(np.searchsorted(layer, ranks), layer.size - 1)
        return layer[at] == ranks

    def depths(self, ranks):
        """Depth of each rank in layers 0..k; -1 for a rank in none of them."""
        return depths_of(ranks, self.contains, range(self.k + 1))

    def target_bits(self):
        """Layer k as a bitset over the rank space, or None where that would be too big."""
        if self._target_bits is None and words_for(self.puzzle.size) * 8 <= BITSET_LIMIT:
            bits = bitset.new_bitset(self.puzzle.size)
            bitset.set_ranks(bits, self.layer(self.k).view(np.uint64), 0)
            self._target_bits = bits
        return self._target_bits

    def memory_bytes(self):
        bits = 0 if self._target_bits is None else self._target_bits.nbytes
        return self.ranks.nbytes + bits


# --- the fast forward search: renamed goal layers probed against layer k --------------------


@jit
def _in_target(r, bits, use_bits, target):
    if use_bits:
        return (bits[r >> 6] >> np.uint64(r & 63)) & np.uint64(1) != 0
    lo = 0
    hi = target.size
    while lo < hi:
        mid = (lo + hi) >> 1
        if target[mid] < r:
            lo = mid + 1
        else:
            hi = mid
    return lo < target.size and target[lo] == r


@jit(parallel=True)
def _match_relabelled(keys, first, step, ranks, offsets, k, bits, use_bits, target, tables,
                      found_j, found_x):
    """For each query (by its renaming key): the least radius j (first, first+step, ... <= k)
    whose renamed goal layer j meets layer k, and the stored state that meets it."""
    for i in prange(keys.size):
        key = keys[i]
        found_j[i] = -1
        found_x[i] = -1
        j = first[i]
        while j <= k and found_j[i] < 0:
            for t in range(offsets[j], offsets[j + 1]):
                if _in_target(relabel(ranks[t], key, tables), bits, use_bits, target):
                    found_j[i] = j
                    found_x[i] = ranks[t]
                    break
            j += step


def _search_steps(puzzle, layers, queries):
    """First radius and stride per query: a puzzle whose moves all flip a parity (its
    move_parity) has D = parity(q) xor parity(goal) mod 2, so only every other radius
    can meet layer k."""
    first = np.ones(queries.size, dtype=np.int64)
    goal_parity = puzzle.move_parity(puzzle.goal_ranks().astype(np.int64))
    if goal_parity is None or np.unique(goal_parity).size != 1:
        return first, 1
    want = (puzzle.move_parity(queries) ^ int(goal_parity[0]) ^ layers.k) & 1  # j = D - k
    return np.where(want == 1, 1, 2).astype(np.int64), 2


def _relabelled_matches(layers, relabelling, queries, keys):
    """(radius j, stored state x) per query, -1 where no radius <= k meets layer k."""
    first, step = _search_steps(layers.puzzle, layers, queries)
    bits = layers.target_bits()
    use_bits = bits is not None
    if bits is None:
        bits = np.zeros(1, dtype=np.uint64)
    # a fixed shuffle spreads the hard queries evenly over the threads' shares
    order = np.random.default_rng(queries.size).permutation(queries.size)
    fj = np.empty(queries.size, dtype=np.int64)
    fx = np.empty(queries.size, dtype=np.int64)
    _match_relabelled(keys[order], first[order], step, layers.ranks, layers.offsets,
                      layers.k, bits, use_bits, layers.layer(layers.k), relabelling.tables,
                      fj, fx)
    found_j = np.empty_like(fj)
    found_x = np.empty_like(fx)
    found_j[order] = fj
    found_x[order] = fx
    return found_j, found_x


# --- the general forward search: spheres around the query, by the puzzle's kernel ------------


def _neighbours_of(puzzle, ranks):
    return neighbours_of_many(np.asarray(ranks, dtype=np.int64), 0, max(puzzle.max_moves, 1),
                              max(puzzle.work_size, 1), puzzle.tables())


def _forward_search(layers, query, limit=None):
    """(distance, spheres, met state) by expanding spheres around one query until one meets
    the stored layers; (-1, spheres, -1) if the query's component ends first or the radius
    passes `limit`."""
    puzzle = layers.puzzle
    previous = np.zeros(0, dtype=np.int64)
    current = np.array([query], dtype=np.int64)
    spheres = [current]
    j = 0
    while current.size and (limit is None or j <= limit):
        depths = layers.depths(current)
        hit = np.flatnonzero(depths >= 0)
        if hit.size:
            best = hit[np.argmin(depths[hit])]
            return j + int(depths[best]), spheres, int(current[best])
        following = np.unique(_neighbours_of(puzzle, current))
        # reversible: the neighbours of sphere j lie in spheres j-1, j, j+1
        following = np.setdiff1d(following, current, assume_unique=True)
        following = np.setdiff1d(following, previous, assume_unique=True)
        previous, current = current, following
        spheres.append(current)
        j += 1
    return -1, spheres, -1


# --- the public entry points ------------------------------------------------------------------


def distances(layers, queries, relabel=True, limit=None, log=None):
    """Exact distance of each query rank to the goal (int16; -1 when unreachable or, for a
    search that cannot go further, beyond the reach of layers 0..k).

    layers  -- GoalLayers (the store's layers 0..k)
    relabel -- use the puzzle's tile relabelling where it applies (queries whose blank is
               where the goal's is); the rest take the general forward search
    limit   -- largest forward radius of the general search (None: no limit)
    log     -- called with a progress line after each batch of queries."""
    if not layers.puzzle.reversible:
        raise PuzzleError(f"{layers.puzzle.name}: matching needs a reversible puzzle")
    queries = np.asarray(queries, dtype=np.uint64).view(np.int64)
    relabelling = layers.puzzle.relabelling() if relabel else None
    out = np.empty(queries.size, dtype=np.int16)
    started = time.perf_counter()
    # in batches, so that the per-query working arrays stay small
    for start in range(0, queries.size, BATCH):
        stop = min(queries.size, start + BATCH)
        out[start:stop] = _distances_batch(layers, queries[start:stop], relabelling, limit)
        if log:
            log(f"{layers.puzzle.name}: {stop:,}/{queries.size:,} queries matched against "
                f"layers 0..{layers.k}, {time.perf_counter() - started:.1f} s")
    return out


def _distances_batch(layers, queries, relabelling, limit):
    out = layers.depths(queries)
    todo = np.flatnonzero(out < 0)
    if layers.complete or todo.size == 0:
        return out
    general = todo
    if relabelling is not None:
        keys = np.asarray(relabelling.keys(queries[todo]), dtype=np.int64)
        fast = keys >= 0
        found_j, _ = _relabelled_matches(layers, relabelling, queries[todo[fast]], keys[fast])
        out[todo[fast]] = np.where(found_j >= 0, found_j + layers.k, -1)
        # renaming reaches D <= 2k; beyond that the general search has no such limit
        general = todo[~fast | (out[todo] < 0)]
    for i in general:
        out[i] = _forward_search(layers, int(queries[i]), limit)[0]
    return out


def optimal_route(layers, rank, relabel=True, limit=None):
    """An optimal path (list of ranks, the query first, a goal last) from layers 0..k and a
    forward search; PuzzleError if the query is out of reach."""
    rank = int(rank)
    depth = int(layers.depths([rank])[0])
    if depth >= 0:
        return descend(layers.puzzle, rank, depth, layers.contains)
    if layers.complete:
        raise BoardError(f"{layers.puzzle.name}: state {rank} is unreachable")
    relabelling = layers.puzzle.relabelling() if relabel else None
    if relabelling is not None:
        key = int(relabelling.keys(np.array([rank]))[0])
        if key >= 0:
            query = np.array([rank], dtype=np.int64)
            found_j, found_x = _relabelled_matches(layers, relabelling, query,
                                                   np.array([key], dtype=np.int64))
            j, x = int(found_j[0]), int(found_x[0])
            if j >= 0:  # else more than 2k moves away: the general search below
                # the goal -> x path renamed is a path q -> (x renamed), in layer k
                renamed = [int(relabel_one(np.int64(s), np.int64(key), relabelling.tables))
                           for s in reversed(descend(layers.puzzle, x, j, layers.contains))]
                return renamed + descend(layers.puzzle, renamed[-1], layers.k,
                                         layers.contains)[1:]
    distance, spheres, met = _forward_search(layers, rank, limit)
    if distance < 0:
        raise BoardError(f"{layers.puzzle.name}: state {rank} is out of reach")
    back = [met]
    for sphere in reversed(spheres[:-1]):
        near = np.array(layers.puzzle.neighbours(back[-1]), dtype=np.int64)
        back.append(int(np.intersect1d(near, sphere).min()))
    path = back[::-1]
    return path + descend(layers.puzzle, met, distance - (len(spheres) - 1),
                          layers.contains)[1:]


def query_set(puzzle, name):
    """The named query set of a puzzle (e.g. fourteen's 'domino-bottom-right'), as ranks."""
    sets = puzzle.query_sets()
    if name not in sets:
        known = ", ".join(sorted(sets)) or "none"
        raise PuzzleError(f"{puzzle.name}: unknown query set {name!r}; known: {known}")
    return np.asarray(sets[name](), dtype=np.uint64)


def open_goal_layers(puzzle, directory, k):
    """GoalLayers of `puzzle` from layer directory `directory`, depths 0..k."""
    return GoalLayers(LayerStore(Path(directory), puzzle), k)
