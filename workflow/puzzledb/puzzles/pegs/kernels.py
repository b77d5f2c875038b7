"""The compiled kernels of peg solitaire (puzzle.py; the numbering's tables, ranks.py): rank
and unrank of peg masks, the jump kernel, and the smallest rank of an orbit.

A mask splits into its low 16 holes and the rest.  The k-peg masks with a given high part h
hold a contiguous run of ranks: base(h) + (colex rank of the low part among the 16-bit
masks with k - |h| bits), since masks of one peg count rank in numeric order.  So the low
part is one lookup both ways (low_masks, low_rank), and only the high part needs the byte
tables (rank) or the bit-by-bit search (unrank).
"""

import numpy as np
from numba import prange

from puzzledb import compiled
from puzzledb.compiled.bitops import lowest_bit, pdep, pext, popcount
from puzzledb.compiled import jit
from puzzledb.puzzles.ranking import BINOM
from puzzledb.puzzles.pegs.ranks import BYTES, LOW_BITS, PegTables

LOW_PART = np.uint64((1 << LOW_BITS) - 1)
ONE = np.uint64(1)


@jit(inline="always")
def _high_rank(mask, below, t):
    """The rank contribution of the pegs above the low part, `below` pegs under them."""
    r = 0
    for b in range(LOW_BITS // 8, BYTES):
        v = (mask >> np.uint64(8 * b)) & np.uint64(255)
        if v:
            r += t.rank_table[b, v, below]
            below += np.int64(popcount(v))
    return r


@jit(inline="always")
def _rank(mask, t):
    low = mask & LOW_PART
    return np.int64(t.low_rank[low]) + _high_rank(mask, np.int64(popcount(low)), t)


@jit(inline="always")
def _unrank(rank, pegs, t):
    """The mask of the given rank among those with `pegs` pegs: from the top hole down to
    the low part, a peg wherever C(hole, pegs left) still fits in the rank (branch-free: the
    outcome of the comparison is unpredictable), then the low part by lookup."""
    mask = np.uint64(0)
    k = pegs
    for p in range(t.holes - 1, LOW_BITS - 1, -1):
        c = BINOM[p, k]
        take = np.int64(c <= rank)
        rank -= c * take
        mask |= np.uint64(take) << np.uint64(p)
        k -= take
    return mask | np.uint64(t.low_masks[t.low_start[k] + rank])


@jit(inline="always")
def _unrank_near(rank, pegs, t, cache):
    """_unrank for ranks that come in ascending order (the engine scans a layer word by
    word): cache[0] keeps the high part of the last mask, and a rank in its run of ranks
    needs only the low lookup.  The run is recomputed from the high part alone, so whatever
    the cache holds (it starts as garbage) the answer is exact."""
    high = np.uint64(cache[0])
    low_pegs = pegs - np.int64(popcount(high))
    if 0 <= low_pegs <= LOW_BITS and high & LOW_PART == 0 and high >> np.uint64(t.holes) == 0:
        base = _high_rank(high, low_pegs, t)
        if base <= rank < base + BINOM[LOW_BITS, low_pegs]:
            return high | np.uint64(t.low_masks[t.low_start[low_pegs] + rank - base])
    mask = _unrank(rank, pegs, t)
    cache[0] = np.int64(mask & ~LOW_PART)
    return mask


@jit
def unrank(rank, pegs, t):
    return _unrank(rank, pegs, t)


@jit
def neighbours(rank, level, out, work, t):
    """Jumps as shifts of the mask laid on the board's grid: a peg jumps by shift s from
    every source hole with a peg there, a peg s further and a hole 2s further."""
    pegs = pdep(_unrank_near(rank, t.start_pegs - level, t, work), t.on_grid)
    k = 0
    for d in range(t.shifts.size):
        s = t.shifts[d]
        if s > 0:
            u = np.uint64(s)
            movable = t.sources[d] & pegs & (pegs >> u) & ~(pegs >> (u + u))
        else:
            u = np.uint64(-s)
            movable = t.sources[d] & pegs & (pegs << u) & ~(pegs << (u + u))
        while movable:
            f = np.int64(lowest_bit(movable))
            movable &= movable - ONE
            after = pegs ^ ((ONE << np.uint64(f)) | (ONE << np.uint64(f + s))
                            | (ONE << np.uint64(f + s + s)))
            out[k] = _rank(pext(after, t.on_grid), t)
            k += 1
    return k


@jit(parallel=True)
def canonical(ranks, pegs, images, t):
    """Smallest rank among the images of each rank under the symmetries (byte tables of
    pegs.symmetry_tables), identity included."""
    out = np.empty(ranks.size, dtype=np.uint64)
    step = 4096  # runs of ascending ranks, so that _unrank_near mostly looks up
    for chunk in prange((ranks.size + step - 1) // step):
        cache = np.zeros(1, dtype=np.int64)
        for i in range(chunk * step, min(ranks.size, (chunk + 1) * step)):
            mask = _unrank_near(np.int64(ranks[i]), pegs, t, cache)
            best = np.int64(ranks[i])
            for s in range(images.shape[0]):
                image = np.uint64(0)
                for b in range(BYTES):
                    image |= images[s, b, (mask >> np.uint64(8 * b)) & np.uint64(255)]
                best = min(best, _rank(image, t))
            out[i] = best
    return out


compiled.register(PegTables, neighbours=neighbours)
