"""The compiled kernels of permutation puzzles (layout.py): a state's neighbours from its
factored rank, and the layer expansion over rows of L ranks.

rank = high * L + low.  The high part is decoded once per row (its blocks' digits) and its
image under every move read from the high blocks' tables, or computed by the compiled
rank/unrank of a block too large for a table (component_kernels.py), which is done again
only when its digit changes; a state of the row then needs one look-up of its low value per
move.  The images of a row under a move all lie in one row, so the writes of a row stay in
a few cache lines.  A move that puts a piece where it never stands (Illegal) reads -1 and
is not taken.

A layer is expanded forward (every CUR state marks its UNSEEN neighbours) while the
frontier is smaller than what is left unseen, and backward past that (every UNSEEN state
looks for a CUR neighbour and stops at the first): the moves come with their inverses, so a
state's neighbours are the states it is a neighbour of.  Late layers of a cube's search
cost a few look-ups per remaining state instead of a full expansion of the widest layer.
A puzzle with Illegal rules goes forward only (its illegal ranks are never reached, and a
backward step would have to ask each whether it is one).
"""

import numpy as np
from numba import prange
from numba.extending import overload

from puzzledb import compiled
from puzzledb.compiled import jit
from puzzledb.compiled.bitops import atomic_or, lowest_bit, popcount
from puzzledb.compiled.keys import width_of, word_of
from puzzledb.expansion import LANES, ONE, STATES_PER_WORD, SUB_SHIFT
from puzzledb.expansion.words import (
    count_cur_unseen,
    cur_and_unseen,
    cur_lanes,
    lanes_within,
    mark_next_lanes,
    mark_sorted,
    units_active,
)
from puzzledb.puzzles.permutation.component_kernels import (
    component,
    image,
    images_of_parts,
    of_digits,
    unrank,
    unrank_part,
)
from puzzledb.puzzles.permutation.layout import PermutationTables

UNIT_STATES = 1 << 16  # states of the rows a thread takes as one unit of work
SORTED_BLOCK = 1 << 14  # ranks of a sorted list a thread takes as one unit (mark)
BACKWARD = 1.0  # expand backward once the unseen states are fewer than this times the CUR
# a row's marks are gathered by target word from this many CUR a word of the row: 1.0 took
# 3 to 15 % less search than 0.5 on every twsearch file tried (issue 44; Jing's pyraminx
# 1.10 s against 1.30, its rows of 2,592 ranks holding 71 CUR states at depth 8: one atomic
# OR a target word then cost more than one a target); 1.5 was no different
BATCH_RATIO = 1.0


@jit(inline="always")
def _view(t):
    """The tables' row data as one tuple, read once per unit of work: numba counts a
    reference each time a field of the tables is read (component_kernels.py says what that
    cost)."""
    return (t.hi_radix, t.hi_weight, t.hi_kernel, t.hi_offset, t.hi_tables, t.hi_select,
            t.select_tables, t.lo_moves, t.lo_size, t.moves, t.kc_scratch, t.lo_table,
            t.hi_word, t.hi_part)


@jit(inline="always")
def _digit(view, key, b):
    """High block b's digit of a key."""
    hi_radix, hi_weight, hi_word = view[0], view[1], view[12]
    return (word_of(key, hi_word[b]) // hi_weight[b]) % hi_radix[b]


@jit(inline="always")
def _block_images(t, view, b, key, images, columns, scratch):
    """images[b * moves + m]: high block b's digit of the key after each move m (-1:
    Illegal); a split permutation's high block also sets columns[m], the low table's
    column; the first part of a factor cut into parts, every part's."""
    _, _, hi_kernel, hi_offset, hi_tables, hi_select, select_tables = view[:7]
    moves, s = view[9], view[10]
    c = hi_kernel[b]
    d = _digit(view, key, b)
    if c < 0:
        base = hi_offset[b] + d * moves
        for m in range(moves):
            images[b * moves + m] = hi_tables[base + m]
        if hi_select[b] >= 0:
            base = hi_select[b] + d * moves
            for m in range(moves):
                columns[m] = select_tables[base + m]
    else:
        _component_images(t, view, b, key, images, scratch)


@jit
def _component_images(t, view, b, key, images, scratch):
    """_block_images of a compiled component's block: a call, not inlined (its rank and
    images inlined at every site of the row kernels took a minute more to compile)."""
    moves, s = view[9], view[10]
    cls, ori = scratch[:s], scratch[s:2 * s]
    cls2, ori2 = scratch[2 * s:3 * s], scratch[3 * s:4 * s]
    data = component(t, view[2][b])
    parts = data[18]
    if parts == 1:
        unrank(data, _digit(view, key, b), cls, ori)
        for m in range(moves):
            images[b * moves + m] = image(data, m, cls, ori, cls2, ori2)
    else:
        digits = scratch[4 * s:5 * s]
        for p in range(parts):
            unrank_part(data, p, _digit(view, key, b + p), digits)
        of_digits(data, digits, cls, ori)
        for m in range(moves):
            images_of_parts(data, m, cls, ori, cls2, ori2, digits, images, b * moves + m,
                            moves)


@jit(inline="always")
def _row_targets(t, view, key, cache, images, target, columns, scratch):
    """target[m * W:(m + 1) * W]: the key of the first state of the row that move m takes
    the row of `key` to (its W words; a rank when key is one), target[m * W] = -1 when the
    move breaks an Illegal rule; columns[m]: the low table's column for move m.  cache[b]
    is the digit of high block b whose images `images` holds (-1: none), so that rows
    sharing a block's digit decode it once."""
    hi_radix, hi_weight, hi_word, hi_part = view[0], view[1], view[12], view[13]
    moves = view[9]
    width = width_of(key)
    blocks = hi_radix.size
    for b in range(blocks):
        if cache[b] != _digit(view, key, b):
            first = b - hi_part[b]  # a part of a factor cut into parts: all of them
            _block_images(t, view, first, key, images, columns, scratch)
            q = first
            while q < blocks and (q == first or hi_part[q] > 0):
                cache[q] = _digit(view, key, q)
                q += 1
    for m in range(moves):
        at = m * width
        for w in range(width):
            target[at + w] = 0
        for b in range(blocks):
            v = images[b * moves + m]
            if v < 0:
                target[at] = -1
                break
            target[at + hi_word[b]] += v * hi_weight[b]


@jit(inline="always")
def _row_work(t):
    """A thread's scratch for _row_targets: (cache, images, target, columns, scratch)."""
    blocks = max(t.hi_radix.size, 1)
    return (np.full(blocks, -1, np.int64), np.empty(blocks * t.moves, np.int64),
            np.empty(t.moves, np.int64), np.arange(t.moves), np.zeros(5 * t.kc_scratch,
                                                                       np.int64))


def _put(out, count, target, at, v):
    """Neighbour `count` into out: the key target[at:] (its W words) with v added to its
    last word (compiled only; chosen by out's ndim: ranks, or rows of words)."""
    raise NotImplementedError("called from compiled code only")


@overload(_put, inline="always")
def _put_by_width(out, count, target, at, v):
    if out.ndim == 1:
        def rank(out, count, target, at, v):
            out[count] = target[at] + v
        return rank

    def words(out, count, target, at, v):
        last = out.shape[1] - 1
        for w in range(last):
            out[count, w] = target[at + w]
        out[count, last] = target[at + last] + v  # in int64: a word is below 2^63
    return words


@jit(inline="always")
def _neighbours(rank, out, work, t, fresh):
    """The neighbours of `rank` (a one-word rank, or the row of a key's words) into out
    (ranks, or rows of words); their number."""
    view = _view(t)
    lo_moves, lo_size, moves = view[7], view[8], view[9]
    width = width_of(rank)
    blocks = view[0].size
    cache = work[:blocks]
    at = blocks + blocks * moves
    images = work[blocks:at]
    target = work[at:at + width * moves]
    at += width * moves
    columns = work[at:at + moves]
    scratch = work[at + moves:]
    if fresh:
        cache[:] = -1
        for m in range(moves):
            columns[m] = m
    low = word_of(rank, width - 1) % lo_size
    _row_targets(t, view, rank, cache, images, target, columns, scratch)
    lo_table = view[11]
    split = lo_table.size == 1  # a split's low table: by column only
    count = 0
    for m in range(moves):
        v = lo_moves[columns[m] * lo_size + low] if split else lo_table[low * moves + m]
        if target[m * width] >= 0 and v >= 0:
            _put(out, count, target, m * width, v)
            count += 1
    return count


@jit
def neighbours(rank, level, out, work, t):
    return _neighbours(rank, out, work, t, True)


@jit
def neighbours_after(rank, prev, level, out, work, t):
    """neighbours, the high blocks' images kept from the call for prev where their digits
    are prev's (a sorted layer's keys share their most significant blocks)."""
    return _neighbours(rank, out, work, t, prev < 0)


compiled.register(PermutationTables, neighbours=neighbours, neighbours_after=neighbours_after)


@jit(inline="always")
def _mark(a, flags, g):
    """words.mark_next with unsigned indices (no wraparound checks in the hot loop)."""
    w = g >> np.uint64(5)
    bit = ONE << ((g & np.uint64(31)) << ONE)
    v = a[w]
    if (v | (v >> ONE)) & bit:
        return 0
    old = atomic_or(a, w, bit)
    if old & bit:
        return 0
    flags[w >> np.uint64(SUB_SHIFT)] = 1
    return 1


@jit(inline="always")
def _mark_row(a, flags, row, column, lows, count, words):
    """Mark NEXT the UNSEEN targets row + column[lows[i]] of one move, gathered first by
    word of the target row (words: zeros, left zero): one read and at most one atomic OR
    a word instead of one a target."""
    w0 = row >> np.uint64(5)
    for i in range(count):
        v = column[lows[i]]
        if v >= 0:
            g = row + np.uint64(v)
            words[(g >> np.uint64(5)) - w0] |= ONE << ((g & np.uint64(31)) << ONE)
    new = 0
    for k in range(words.size):
        bits = words[k]
        if bits:
            words[k] = 0
            w = w0 + np.uint64(k)
            v = a[w]
            bits &= ~(v | (v >> ONE))
            if bits:
                bits &= ~atomic_or(a, w, bits)
                if bits:
                    new += np.int64(popcount(bits))
                    flags[w >> np.uint64(SUB_SHIFT)] = 1
    return new


@jit(parallel=True)
def expand_rows(a, cur_flags, next_flags, found, t, rows_per_unit, backward):
    """Mark NEXT every UNSEEN neighbour of every CUR state (forward_unit), or every UNSEEN
    state that has a CUR neighbour (backward_unit); found[u]: how many unit u's states
    marked.  One parallel loop for both steps, so that both are compiled (or loaded) at
    once, before a search starts.  The units, and their _row_targets, are inlined into the
    loop's body, which numba compiles in a pipeline of its own (its arrays marked
    unaliased, among other things): called as functions of their own they made the
    pyraminx's search half again as long, with numba's numpy error model too.  What made
    compiling them slow is a compiled component's rank and images (_component_images),
    which stay one call."""
    for u in prange(found.size):
        r0 = u * rows_per_unit
        if backward:
            found[u] = backward_unit(a, next_flags, t, r0, rows_per_unit)
        else:
            found[u] = forward_unit(a, cur_flags, next_flags, t, r0, rows_per_unit)


@jit(inline="always")
def forward_unit(a, cur_flags, next_flags, t, r0, rows_per_unit):
    """The forward step's unit of work, rows r0 .. r0 + rows_per_unit: a row's CUR states
    are listed first, then taken move by move, one target row at a time, the low table read
    along its move's column (lo_moves); how many states it marked."""
    size_l = t.lo_size
    moves = t.moves
    r1 = min(t.size // size_l, r0 + rows_per_unit)
    if not units_active(cur_flags, (r0 * size_l) >> 5, ((r1 * size_l - 1) >> 5) + 1):
        return 0
    cache, images, target, columns, scratch = _row_work(t)
    view = _view(t)
    lo_moves = t.lo_moves
    lows = np.empty(size_l, np.uint64)
    words = np.zeros(((size_l + 31) >> 5) + 1, np.uint64)  # a target row's NEXT bits
    new = 0
    for h in range(r0, r1):
        g0 = h * size_l
        g1 = g0 + size_l
        count = 0
        for w in range(g0 >> 5, ((g1 - 1) >> 5) + 1):
            lanes = lanes_within(cur_lanes(a[w]), w, g0, g1)
            while lanes:
                lows[count] = np.uint64(w * STATES_PER_WORD - g0) + (lowest_bit(lanes) >> ONE)
                lanes &= lanes - ONE
                count += 1
        if count == 0:
            continue
        _row_targets(t, view, g0, cache, images, target, columns, scratch)
        gather = count >= BATCH_RATIO * words.size
        for m in range(moves):
            if target[m] < 0:
                continue
            row = np.uint64(target[m])
            column = lo_moves[columns[m] * size_l:(columns[m] + 1) * size_l]
            if gather:
                new += _mark_row(a, next_flags, row, column, lows, count, words)
                continue
            for i in range(count):
                v = column[lows[i]]
                if v >= 0:
                    new += _mark(a, next_flags, row + np.uint64(v))
    return new


@jit(inline="always")
def backward_unit(a, next_flags, t, r0, rows_per_unit):
    """The backward step's unit of work, rows r0 .. r0 + rows_per_unit; how many states it
    marked.  (Puzzles without Illegal rules: no image is -1.)"""
    size_l = t.lo_size
    moves = t.moves
    r1 = min(t.size // size_l, r0 + rows_per_unit)
    cache, images, target, columns, scratch = _row_work(t)
    view = _view(t)
    lo_moves, lo_table = t.lo_moves, t.lo_table
    split = lo_table.size == 1
    new = 0
    for h in range(r0, r1):
        g0 = h * size_l
        g1 = g0 + size_l
        ready = False
        for w in range(g0 >> 5, ((g1 - 1) >> 5) + 1):
            v = a[w]
            lanes = lanes_within(~(v | (v >> ONE)) & LANES, w, g0, g1)
            if lanes == 0:
                continue
            if not ready:
                _row_targets(t, view, g0, cache, images, target, columns, scratch)
                ready = True
            hit = np.uint64(0)
            while lanes:
                i = lowest_bit(lanes)
                lanes &= lanes - ONE
                low = np.int64(w * STATES_PER_WORD - g0) + np.int64(i >> ONE)
                for m in range(moves):
                    v = lo_moves[columns[m] * size_l + low] if split else \
                        lo_table[low * moves + m]
                    n = np.uint64(target[m]) + np.uint64(v)
                    if (a[n >> np.uint64(5)] >> ((n & np.uint64(31)) << ONE)) & \
                            np.uint64(3) == 3:
                        hit |= ONE << i
                        break
            if hit:
                new += mark_next_lanes(a, next_flags, w, hit)
    return new


class RowExpansion:
    """The layer expansion of a permutation puzzle (an expansion.LayerExpansion)."""

    def __init__(self, tables, work_length):
        self.tables = tables
        self.work_length = work_length
        size_l = int(tables.lo_size)
        rows = int(tables.size) // size_l
        self.rows_per_unit = max(1, UNIT_STATES // size_l)
        self.found = np.zeros(-(-rows // self.rows_per_unit), dtype=np.int64)
        self.directions = []  # 'forward' or 'backward', depth by depth (benchmarks, tests)

    def expand(self, state, level):
        backward = not self.tables.forward and self._backward(state)
        self.directions.append("backward" if backward else "forward")
        kernel, arguments = self._step(state, backward)
        state.run(kernel, *arguments)
        return int(self.found.sum())

    def _backward(self, state):
        """Whether fewer states are left UNSEEN than BACKWARD times the CUR ones (counted
        by the engine, else by a pass over the whole array)."""
        cur, unseen = state.counts or cur_and_unseen(state.words, self.tables.size)
        return unseen < BACKWARD * cur

    def _step(self, state, backward):
        return expand_rows, (state.words, state.cur_flags, state.next_flags, self.found,
                             self.tables, np.int64(self.rows_per_unit), backward)

    def kernels(self, state):
        return [self._step(state, False), (count_cur_unseen, (state.words,))]

    def mark(self, ranks, level, bits):
        kernel, arguments = self._marking(ranks, bits)
        kernel(*arguments)

    def _marking(self, ranks, bits):
        starts = np.append(np.arange(0, ranks.size, SORTED_BLOCK), ranks.size)
        return mark_sorted, (ranks, bits, self.tables, starts.astype(np.int64),
                             np.int64(self.tables.moves), np.int64(self.work_length))

    def mark_kernels(self, bits):
        return [self._marking(np.zeros(1, np.uint64), bits)]
