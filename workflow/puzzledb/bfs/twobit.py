"""Two bits per state: the state array of the in-memory search of an ungraded puzzle, the
passes between depths, and the generic BFS step on it, which asks the puzzle's neighbours
kernel state by state.  A puzzle's faster whole-layer expansion (Puzzle.layer_expansion, e.g.
the plane kernels of sliding puzzles) works on the same array through the expansion protocol
(puzzledb.expansion: the layout, the word operations), which StateArray implements.

This is Korf's two-bit breadth-first search (the depth mod 3, in effect; the codes are in
puzzledb.expansion).  Expanding depth d only ever turns UNSEEN into NEXT: a plain read shows
the state unseen, then an atomic OR sets its y bit, and the old word it returns says whether
this thread set it, so the count of new states is exact when two threads race.  OLD and CUR
never change during an expansion, so a stale read is harmless.  Between depths one pass
relabels NEXT -> CUR and CUR -> OLD (x' = x | y, y' = y & ~x, word-parallel) and then reads
the ranks of the CUR states out in ascending order: the next layer, sorted, in the puzzle's
own numbering.

The flag byte of a sub-block says whether it holds a CUR (resp. NEXT) state, so a narrow
layer's expansion, relabelling and read-out skip the sub-blocks it does not touch.
"""

import numba
import numpy as np
from numba import prange

from puzzledb.bfs.memory import TWOBIT_EXTRACT_SUBS
from puzzledb.compiled import jit, neighbours, scratch
from puzzledb.compiled.bitops import atomic_or, lowest_bit, popcount
from puzzledb.expansion import (
    LANES,
    ONE,
    STATES_PER_WORD,
    SUB_SHIFT,
    SUB_STATES,
    SUB_WORDS,
    sub_blocks,
    twobit_words,
)
from puzzledb.expansion.words import (
    colour_lanes,
    colour_of_block,
    cur_lanes,
    mark_next,
)
from puzzledb.store.direct import aligned_words

CHUNKSIZE = 4  # work units a thread takes at a time: dynamic scheduling (see StateArray.run)
SERIAL_SUBS = 64  # a relabelling of fewer sub-blocks than this does not wake the threads


class StateArray:
    """The two-bit array of a search over `size` states, and its sub-block flags: the
    state a LayerExpansion expands (expansion.ExpansionState)."""

    def __init__(self, size):
        self.size = int(size)
        self.words = aligned_words(twobit_words(size))  # aligned: checkpoints use direct I/O
        # zeroed by the threads, page by page now: left to np.zeros, the pages are mapped
        # when first written, scattered over the early depths, which then took seconds each
        # (7x2: 2.4-3.5 s to expand 0.3-8 M states, against 0.9-1.6 s)
        zero(self.words)
        self.cur_flags = np.zeros(sub_blocks(self.words.size), dtype=np.uint8)
        self.next_flags = np.zeros_like(self.cur_flags)
        self.cur_counts = np.zeros(self.cur_flags.size, dtype=np.uint32)  # set by relabel
        self.buffer = np.empty(TWOBIT_EXTRACT_SUBS * SUB_STATES, dtype=np.uint64)
        # how NEXT is marked and which CUR states are expanded: Korf's codes unless a search
        # of depths says otherwise (expansion.ExpansionState; bfs/distances.py); of the same
        # types in both, so that a puzzle's expansion kernels are compiled once for either
        self.mark = ONE
        self.colour = np.int64(-1)
        self.run_length = np.int64(max(self.size, 1))
        self.colours = np.zeros(1, dtype=np.uint8)
        self.counts = None  # (CUR, UNSEEN) when the search keeps them (TwoBitSearch)

    def mark_current(self, ranks):
        """Make the ranks (uint64) CUR: the goal layer, or the last layer of a resume."""
        set_code(self.words, np.asarray(ranks, dtype=np.uint64), np.uint64(3), self.cur_flags)

    def mark_old(self, ranks):
        """Make the ranks OLD: the layers before the last one of a resume."""
        set_code(self.words, np.asarray(ranks, dtype=np.uint64), np.uint64(2), self.cur_flags)

    def relabel(self):
        """NEXT -> CUR, CUR -> OLD; cur_counts then holds the CUR states of every flagged
        sub-block."""
        subs = np.flatnonzero(self.cur_flags | self.next_flags)
        if subs.size > SERIAL_SUBS:
            relabel(self.words, subs, self.cur_counts)
        else:
            relabel_serial(self.words, subs, self.cur_counts)
        self.cur_flags[:] = self.next_flags
        self.next_flags[:] = 0

    def current_ranks(self):
        """The CUR ranks in ascending order, as views of one reused buffer."""
        return self._ranks(np.flatnonzero(self.cur_flags))

    def pick_current(self, positions):
        """The CUR ranks at the ascending `positions` (0-based, in rank order) of the
        layer, after relabel: a sample read without extracting the layer, the sub-blocks
        found through cur_counts."""
        subs = np.flatnonzero(self.cur_flags)
        ends = np.cumsum(self.cur_counts[subs], dtype=np.int64)
        return pick_current(self.words, subs, ends, np.asarray(positions, dtype=np.int64))

    def restore(self):
        """After the words were loaded from a checkpoint written while a depth was being
        expanded: clear the NEXT states it may hold (only UNSEEN turns NEXT, so this gives
        the state the checkpoint was taken in), and set the flags and counts of the CUR
        states."""
        self.next_flags[:] = 0
        restore(self.words, self.cur_flags, self.cur_counts)

    def _ranks(self, subs):
        i = 0
        while i < subs.size:
            n, i = extract_current(self.words, subs, i, self.buffer)
            if n:
                yield self.buffer[:n]

    def kernels(self):
        """The passes a search calls on this array, with arguments of their types
        (compiled.prepare): zero, set_code, both relabellings, restore, the read-outs."""
        ranks, subs = np.zeros(1, np.uint64), np.zeros(1, np.int64)
        return [(zero, (self.words,)),
                (set_code, (self.words, ranks, np.uint64(3), self.cur_flags)),
                (relabel, (self.words, subs, self.cur_counts)),
                (relabel_serial, (self.words, subs, self.cur_counts)),
                (restore, (self.words, self.cur_flags, self.cur_counts)),
                (pick_current, (self.words, subs, subs, subs)),
                (extract_current, (self.words, subs, 0, self.buffer))]

    @staticmethod
    def run(kernel, *args):
        """Call a parallel expansion kernel with dynamic scheduling, CHUNKSIZE units at a
        time: its units differ in cost, and the cores are shared with other work."""
        old = numba.set_parallel_chunksize(CHUNKSIZE)
        try:
            kernel(*args)
        finally:
            numba.set_parallel_chunksize(old)


# --- the passes between depths ----------------------------------------------------------------


@jit(parallel=True)
def zero(a):
    for i in prange(a.size):
        a[i] = 0



@jit(parallel=True)
def set_code(a, ranks, code, flags):
    """OR `code` (2: OLD, 3: CUR) into the states of `ranks`, which must be UNSEEN; a CUR
    state flags its sub-block."""
    for i in prange(ranks.size):
        r = np.int64(ranks[i])
        atomic_or(a, r >> 5, code << np.uint64(2 * (r & 31)))
        if code == 3:
            flags[r >> (5 + SUB_SHIFT)] = 1


@jit(inline="always")
def _relabel_sub(a, k, counts):
    """NEXT -> CUR, CUR -> OLD in sub-block k; counts[k]: its CUR states after."""
    found = 0
    for w in range(k * SUB_WORDS, min(a.size, (k + 1) * SUB_WORDS)):
        v = a[w]
        y = v & LANES
        if y:  # else only UNSEEN and OLD states: nothing changes
            x = (v >> ONE) & LANES
            a[w] = ((x | y) << ONE) | (y & ~x)
            found += popcount(y & ~x)
    counts[k] = found


@jit(parallel=True)
def relabel(a, subs, counts):
    """NEXT -> CUR, CUR -> OLD in the sub-blocks subs, counting the new CUR states."""
    for i in prange(subs.size):
        _relabel_sub(a, subs[i], counts)


@jit
def relabel_serial(a, subs, counts):
    for i in range(subs.size):
        _relabel_sub(a, subs[i], counts)


@jit(parallel=True)
def restore(a, cur_flags, counts):
    """NEXT -> UNSEEN everywhere; the flag and count of each sub-block's CUR states."""
    for k in prange(cur_flags.size):
        found = 0
        for w in range(k * SUB_WORDS, min(a.size, (k + 1) * SUB_WORDS)):
            v = a[w]
            y = v & LANES
            x = (v >> ONE) & LANES
            nxt = y & ~x
            if nxt:
                a[w] = v & ~nxt
            found += popcount(x & y)
        counts[k] = found
        cur_flags[k] = 1 if found else 0


@jit
def pick_current(a, subs, ends, positions):
    """The ranks of the CUR states at the ascending `positions` of the layer: ends[i] is
    the number of CUR states in sub-blocks subs[0..i]."""
    out = np.empty(positions.size, np.uint64)
    i = 0
    for j in range(positions.size):
        p = positions[j]
        while ends[i] <= p:
            i += 1
        left = p - (ends[i - 1] if i > 0 else 0)  # CUR states to pass in sub-block subs[i]
        k = subs[i]
        for w in range(k * SUB_WORDS, min(a.size, (k + 1) * SUB_WORDS)):
            lanes = cur_lanes(a[w])
            n = np.int64(popcount(lanes))
            if left >= n:
                left -= n
                continue
            for _ in range(left):
                lanes &= lanes - ONE
            out[j] = np.uint64(w * STATES_PER_WORD) + (lowest_bit(lanes) >> ONE)
            break
    return out


@jit
def extract_current(a, subs, first, out):
    """The ranks of the CUR states of sub-blocks subs[first], subs[first + 1], ... into out,
    ascending, while a whole sub-block still fits; (ranks written, next index into subs).
    One thread without the GIL: the store compresses the previous block meanwhile."""
    n = 0
    i = first
    while i < subs.size and n + SUB_STATES <= out.size:
        k = subs[i]
        for w in range(k * SUB_WORDS, min(a.size, (k + 1) * SUB_WORDS)):
            lanes = cur_lanes(a[w])
            base = np.uint64(w * STATES_PER_WORD)
            while lanes:
                out[n] = base + (lowest_bit(lanes) >> ONE)
                lanes &= lanes - ONE
                n += 1
        i += 1
    return n, i


# --- the generic step: any puzzle, state by state ---------------------------------------------


@jit(parallel=True)
def expand(a, blocks, next_flags, found, level, tables, max_moves, work_size, mark,
           colour, run, colours):
    """Mark NEXT (code `mark`; None: 01) every UNSEEN neighbour of every CUR state (of
    `colour`, given the runs' colours: words.colour_lanes) of the sub-blocks `blocks` (those
    flagged CUR), the neighbours from the puzzle's kernel (compiled.neighbours, chosen by
    the type of the tables); found[k] is the number of states marked by the sub-block k's
    states.  The loop runs over the flagged sub-blocks alone, so that the threads share
    them however they cluster (a loop over every sub-block left a frontier in a few
    hundred of them to one thread)."""
    code = ONE if mark is None else mark
    for i in prange(blocks.size):
        k = blocks[i]
        out, work = scratch(max_moves, work_size)
        new = 0
        whole = 1
        if colours is not None:
            whole = colour_of_block(k * SUB_STATES, (k + 1) * SUB_STATES, run, colours,
                                    colour)
        if whole == 0:  # no CUR state of this colour: the 11 states here are NEXT
            continue
        for w in range(k * SUB_WORDS, min(a.size, (k + 1) * SUB_WORDS)):
            lanes = cur_lanes(a[w])
            if whole < 0:
                lanes &= colour_lanes(w, run, colours, colour)
            while lanes:
                r = w * STATES_PER_WORD + np.int64(lowest_bit(lanes) >> ONE)
                lanes &= lanes - ONE
                n = neighbours(r, level, out, work, tables)
                for j in range(n):
                    new += mark_next(a, next_flags, out[j], code)
        found[k] = new


class NeighboursExpansion:
    """A layer expanded state by state through the puzzle's neighbours kernel: the default
    of Puzzle.layer_expansion (the expand half of expansion.LayerExpansion; the frontier
    engine has its own default for mark)."""

    def __init__(self, puzzle):
        self.tables = puzzle.tables()
        self.max_moves = max(int(puzzle.max_moves), 1)
        self.work_size = max(int(puzzle.work_size), 1)
        self.found = None

    def expand(self, state, level):
        """Mark NEXT the UNSEEN neighbours of the CUR states of `state` (a StateArray);
        how many were marked."""
        kernel, arguments = self._step(state, level)
        state.run(kernel, *arguments)
        return int(self.found.sum())

    def _step(self, state, level):
        if self.found is None or self.found.size != state.cur_flags.size:
            self.found = np.zeros(state.cur_flags.size, dtype=np.int64)
        self.found[:] = 0
        # Korf's codes (01, no colouring) folded into a specialisation of their own: with
        # them as values, the 14-puzzle's search took 8% longer (the plane kernels, not)
        korf = state.mark == ONE and state.colour < 0
        return expand, (state.words, np.flatnonzero(state.cur_flags), state.next_flags,
                        self.found,
                        np.int64(level), self.tables, self.max_moves, self.work_size,
                        None if korf else state.mark, state.colour, state.run_length,
                        None if korf else state.colours)

    def kernels(self, state):
        return [self._step(state, 0)]

