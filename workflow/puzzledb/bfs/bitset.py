"""Dense bitsets over a rank space (one bit per state): the two levels a graded search holds
(peg solitaire: every move removes a peg, so layer d + 1 is all of level d + 1 it reaches and
no state is seen twice) and its compiled step, and the sets of frontier segments and matching.
Threads set bits of the next level with an atomic OR, so it is complete without locks.  The
layout (bit r & 63 of word r >> 6) is the expansion protocol's (puzzledb.expansion).
"""

import numpy as np
from numba import prange

from puzzledb.compiled.bitops import atomic_or as _atomic_or
from puzzledb.compiled.bitops import lowest_bit as _lowest_bit
from puzzledb.compiled.bitops import popcount as _popcount
from puzzledb.compiled import jit, neighbours
from puzzledb.bfs.memory import BLOCK_WORDS
from puzzledb.expansion import WORD_BITS, words_for
from puzzledb.expansion.words import set_bit


def new_bitset(size):
    return np.zeros(words_for(size), dtype=np.uint64)


@jit(parallel=True)
def expand(current, following, level, tables, max_moves, work_size):
    """Set in `following` every neighbour of a state in `current` (of level `level`)."""
    words = current.size
    blocks = (words + BLOCK_WORDS - 1) // BLOCK_WORDS
    for b in prange(blocks):
        out = np.empty(max_moves, np.int64)
        work = np.empty(work_size, np.int64)
        stop = min(words, (b + 1) * BLOCK_WORDS)
        for w in range(b * BLOCK_WORDS, stop):
            bits = current[w]
            while bits:
                r = w * 64 + np.int64(_lowest_bit(bits))
                bits &= bits - np.uint64(1)
                k = neighbours(r, level, out, work, tables)
                for j in range(k):
                    set_bit(following, out[j])


@jit(parallel=True)
def count(bitset):
    total = 0
    for w in prange(bitset.size):
        total += _popcount(bitset[w])
    return total


@jit
def extract(bitset, start_word, stop_word, out):
    """Write the ranks of the set bits in words [start, stop) to out, ascending; their number."""
    k = 0
    for w in range(start_word, stop_word):
        bits = bitset[w]
        while bits:
            out[k] = w * 64 + _lowest_bit(bits)
            bits &= bits - np.uint64(1)
            k += 1
    return k


@jit(parallel=True)
def set_ranks(bitset, ranks, base):
    """Set the bits of ranks - base (ranks in any order: threads OR atomically)."""
    for i in prange(ranks.size):
        r = np.int64(ranks[i]) - np.int64(base)
        _atomic_or(bitset, r >> 6, np.uint64(1) << np.uint64(r & 63))


@jit
def clear_ranks(bitset, ranks, base):
    """Clear the bits of ranks - base."""
    for i in range(ranks.size):
        r = np.int64(ranks[i]) - np.int64(base)
        bitset[r >> 6] &= ~(np.uint64(1) << np.uint64(r & 63))


def iter_ranks(bitset, block_words=BLOCK_WORDS, low=0, high=None):
    """The ranks r of the set bits with low <= r < high (all of them by default), ascending,
    in arrays of at most 64*block_words: views of one buffer, which the next overwrites."""
    buffer = np.empty(block_words * WORD_BITS, dtype=np.uint64)
    first = low // WORD_BITS
    last = bitset.size if high is None else min(bitset.size, -(-high // WORD_BITS))
    for start in range(first, last, block_words):
        stop = min(last, start + block_words)
        block = buffer[:extract(bitset, start, stop, buffer)]
        if start == first and low % WORD_BITS:  # the ends' words may hold ranks outside
            block = block[np.searchsorted(block, np.uint64(low)):]
        if stop == last and high is not None:
            block = block[:np.searchsorted(block, np.uint64(high))]
        if block.size:
            yield block


def kernels(bits):
    """The kernels above a graded search calls on bitsets like `bits`, with arguments of
    their types (compiled.prepare)."""
    return [(set_ranks, (bits, np.zeros(1, np.uint64), 0)), (count, (bits,)),
            (extract, (bits, 0, 1, np.empty(64, np.uint64)))]
