"""The layer expansion of sliding puzzles (Puzzle.layer_expansion): whole planes at a time
instead of state by state, in the ranks of sliding.py, on the engine's two-bit array
(twobit.py) or over a list of ascending ranks (the frontier's dense depths).  This module
holds what both piece families share: the units of work, a word's horizontal moves and the
PlaneExpansion object; their vertical moves are in sliding_distinct_kernels.py (distinct
tiles) and sliding_pool_kernels.py (repeated pieces).

Both rank families put the blank's cell first: rank = blank * plane + rest, `rest` numbering
the arrangement of the pieces read row by row with the blank skipped.  So the states with the
blank in cell b are one contiguous plane of the array, and

- a horizontal move keeps `rest` (the pieces stay in reading order): the 32 states of a word
  go to the same place of plane b +- 1 in one word operation (two words when the plane size
  is not a multiple of 32);
- a vertical move takes one piece past width - 1 others: only the digits of a window of
  `width` reading positions change.
"""

import numpy as np

from puzzledb.compiled.bitops import set_bit
from puzzledb.compiled import jit
from puzzledb.expansion import ONE, STATES_PER_WORD, twobit_words
from puzzledb.expansion.words import cur_lanes, mark_next_shifted

UNIT_WORDS = 1 << 12  # words of one plane a thread sweeps as one unit of work
SORTED_BLOCK = 1 << 14  # ranks of a sorted list a thread takes as one unit of work (mark)


class PlaneExpansion:
    """The expansion kernel of one puzzle, its tables and its units of work (plane, first
    word, stop word): see Puzzle.layer_expansion."""

    def __init__(self, kernel, marker, tables, cells, plane, size):
        self.kernel = kernel
        self.marker = marker
        self.tables = tables
        self.units = units_for(cells, plane, twobit_words(size))
        self.found = np.zeros(self.units[0].size, dtype=np.int64)

    def expand(self, state, level):
        state.run(self.kernel, state.words, state.cur_flags, state.next_flags, self.found,
                  self.tables, *self.units)
        return int(self.found.sum())

    def mark(self, ranks, level, bits):
        """Set in bits (a bitset of the whole space) every neighbour of the ascending
        ranks."""
        self.marker(ranks, bits, self.tables)


def units_for(cells, plane, total_words, unit_words=UNIT_WORDS):
    """Each plane's words cut into runs of unit_words: three int64 arrays (plane, first
    word, stop word); a word shared by two planes is in a unit of each."""
    units = []
    for b in range(cells):
        first = b * plane // STATES_PER_WORD
        stop = min(total_words, ((b + 1) * plane - 1) // STATES_PER_WORD + 1)
        units += [(b, w, min(stop, w + unit_words)) for w in range(first, stop, unit_words)]
    return tuple(np.array(column, dtype=np.int64) for column in zip(*units))


@jit(inline="always")
def _plane_lanes(a, w, lo, hi):
    """The CUR lanes of word w that lie in the plane [lo, hi)."""
    lanes = cur_lanes(a[w])
    g0 = w * STATES_PER_WORD
    if g0 < lo:
        lanes &= ~((ONE << np.uint64(2 * (lo - g0))) - ONE)
    if g0 + STATES_PER_WORD > hi:
        lanes &= (ONE << np.uint64(2 * (hi - g0))) - ONE
    return lanes


@jit(inline="always")
def _horizontal(a, next_flags, g0, lanes, plane, col, width):
    """The horizontal moves of the CUR states `lanes` of the word of states g0..g0 + 31:
    the blank one cell left or right is the same place of the plane before or after."""
    new = 0
    if col > 0:
        new += mark_next_shifted(a, next_flags, g0 - plane, lanes)
    if col < width - 1:
        new += mark_next_shifted(a, next_flags, g0 + plane, lanes)
    return new


@jit(inline="always")
def _horizontal_bits(bits, r, plane, col, width):
    """The horizontal moves of state r, set in a bitset of the whole space (the list
    sweeps' counterpart of _horizontal)."""
    if col > 0:
        set_bit(bits, r - plane)
    if col < width - 1:
        set_bit(bits, r + plane)
