"""The layer expansion of sliding puzzles (Puzzle.layer_expansion, an
expansion.LayerExpansion): whole planes at a time instead of state by state, in the ranks of
rankings.py, on the engine's two-bit array or over a list of ascending ranks (the frontier's
dense depths).  This module holds the sweeps both piece families share (the units of work,
a word's horizontal moves, the walk through a plane's states) and the PlaneExpansion object;
the vertical moves are each family's, in distinct_kernels.py (distinct tiles) and
pool_kernels.py (repeated pieces), which register them here for the type of their tables.

Both rank families put the blank's cell first: rank = blank * plane + rest, `rest` numbering
the arrangement of the pieces read row by row with the blank skipped.  So the states with the
blank in cell b are one contiguous plane of the array, and

- a horizontal move keeps `rest` (the pieces stay in reading order): the 32 states of a word
  go to the same place of plane b +- 1 in one word operation (two words when the plane size
  is not a multiple of 32);
- a vertical move takes one piece past width - 1 others: only the digits of a window of
  `width` reading positions change.
"""

import warnings

import numpy as np
from numba import prange
from numba.core.errors import NumbaIRAssumptionWarning, TypingError
from numba.extending import overload

from puzzledb.compiled import depends, jit
from puzzledb.compiled.bitops import lowest_bit
from puzzledb.expansion import ONE, STATES_PER_WORD, twobit_words
from puzzledb.expansion.words import (
    cur_lanes,
    lanes_within,
    mark_next,
    mark_next_shifted,
    set_bit,
    units_active,
)

UNIT_WORDS = 1 << 12  # words of one plane a thread sweeps as one unit of work
SORTED_BLOCK = 1 << 14  # ranks of a sorted list a thread takes as one unit of work (mark)


class PlaneExpansion:
    """The layer expansion of one puzzle (an expansion.LayerExpansion): its tables (a
    family's FactoredTables or PoolTables) and its units of work (plane, first word, stop
    word)."""

    def __init__(self, tables, cells, plane, size):
        self.tables = tables
        self.cells = cells
        self.plane = plane
        self.units = units_for(cells, plane, twobit_words(size))
        self.found = np.zeros(self.units[0].size, dtype=np.int64)

    def expand(self, state, level):
        kernel, arguments = self._step(state)
        state.run(kernel, *arguments)
        return int(self.found.sum())

    def _step(self, state):
        return expand_planes, (state.words, state.cur_flags, state.next_flags, self.found,
                               self.tables, *self.units, state.mark, state.colour,
                               state.colours)

    def kernels(self, state):
        return [self._step(state)]

    def mark(self, ranks, level, bits):
        """Set in bits (a bitset of the whole space) every neighbour of the ascending
        ranks."""
        kernel, arguments = self._marking(ranks, bits)
        kernel(*arguments)

    def _marking(self, ranks, bits):
        return mark_planes, (ranks, bits, self.tables, *runs_for(ranks, self.plane, self.cells))

    def mark_kernels(self, bits):
        return [self._marking(np.zeros(1, np.uint64), bits)]


def units_for(cells, plane, total_words, unit_words=UNIT_WORDS, per_word=STATES_PER_WORD):
    """Each plane's words (of per_word states: the two-bit array's, or 64 of a bitset) cut
    into runs of unit_words: three int64 arrays (plane, first word, stop word); a word
    shared by two planes is in a unit of each."""
    units = []
    for b in range(cells):
        first = b * plane // per_word
        stop = min(total_words, ((b + 1) * plane - 1) // per_word + 1)
        units += [(b, w, min(stop, w + unit_words)) for w in range(first, stop, unit_words)]
    return tuple(np.array(column, dtype=np.int64) for column in zip(*units))


def runs_for(ranks, plane, cells, run_ranks=SORTED_BLOCK):
    """The ascending ranks cut into runs of one plane and at most run_ranks ranks: two
    int64 arrays (first index, stop index), the units of work of a list's sweep."""
    cuts = np.searchsorted(ranks, np.arange(1, cells, dtype=np.uint64) * np.uint64(plane))
    cuts = np.union1d(np.append(cuts, ranks.size), np.arange(0, ranks.size, run_ranks))
    cuts = cuts.astype(np.int64)
    return cuts[:-1], cuts[1:]


@jit(inline="always")
def _plane_lanes(a, w, lo, hi):
    """The CUR lanes of word w that lie in the plane [lo, hi)."""
    return lanes_within(cur_lanes(a[w]), w, lo, hi)


@jit(inline="always")
def _horizontal(a, next_flags, g0, lanes, plane, col, width, mark):
    """The horizontal moves of the CUR states `lanes` of the word of states g0..g0 + 31:
    the blank one cell left or right is the same place of the plane before or after."""
    new = 0
    if col > 0:
        new += mark_next_shifted(a, next_flags, g0 - plane, lanes, mark)
    if col < width - 1:
        new += mark_next_shifted(a, next_flags, g0 + plane, lanes, mark)
    return new


@jit(inline="always")
def _horizontal_bits(bits, r, plane, col, width):
    """The horizontal moves of state r, set in a bitset of the whole space (the list
    sweeps' counterpart of _horizontal)."""
    if col > 0:
        set_bit(bits, r - plane)
    if col < width - 1:
        set_bit(bits, r + plane)


# --- the vertical moves: each family's, dispatched on the type of its tables -----------------
#
# A sweep walks through the states of one plane in ascending order, and a family's vertical
# moves keep trackers from one state to the next (decoded digits, a block's rank change)
# that are only cheap to bring forward because of that order.  What the moves read at every
# state and never change there (the plane's move constants) the family hands over as a
# tuple of integers, made once per plane and kept in registers by the compiler (read from
# an array at every state instead, they cost half as much time again); what they change
# (the trackers) it keeps in one array.  One: numba counts the references to each array
# taken out of a tuple, an atomic operation each, and a tuple of tracker arrays handed on at
# every state took three to five times the sweep's time.  Nothing else travels from state
# to state: numba's analysis of parallel loops fails on a tuple carried around a loop.

_VERTICAL = {}  # tables type -> (scratch, start, moves, jump_start, jump) of its family


def register(tables_type, scratch, start, moves, jump_start, jump):
    """Make a piece family's vertical moves known to the sweeps, for tables of tables_type
    (a namedtuple class): compiled functions, inline="always", with these arguments:
    scratch(t) -> the trackers of one thread's sweep, one array;
    start(t, b, trackers) -> the constants of plane b, a tuple of integers whose first is
    true if the plane has a vertical move; the trackers set for the plane's first state;
    moves(t, q, constants, trackers) -> the ranks after the move down and after the move up
    (-1: no such move) of state q of the plane, q not below the state asked about before;
    jump_start and jump the same for the multi-tile metric's jumps along the column (any
    number of cells; multi_kernels.py): jump_start(t, b, trackers) -> the constants of
    plane b's jumps, a tuple whose first three items are integers: whether it has one, how
    many go down (one cell, two, ...) and how many in all (those up follow), MAX_JUMPS at
    most (metrics.MAX_JUMPS: the sweeps write them out one by one);
    jump(t, q, j, previous, constants, trackers) -> the rank after jump j of state q of the
    plane, previous the rank after the jump before it in the same direction (the first:
    the state's own), q not below the state asked about before."""
    _VERTICAL[tables_type] = (scratch, start, moves, jump_start, jump)
    depends(tables_type, start.py_func.__module__)  # the sweeps' cache entries are keyed by it


def _vertical(t, role):
    kernels = _VERTICAL.get(getattr(t, "instance_class", None))
    if kernels is None:
        raise TypingError(f"no vertical moves are registered for tables of type {t}")
    return kernels[role].py_func


def plane_scratch(t):
    """The registered functions of t's family (compiled code only): see register."""
    raise NotImplementedError("called from compiled code only")


def plane_start(t, b, trackers):
    raise NotImplementedError("called from compiled code only")


def plane_moves(t, q, constants, trackers):
    raise NotImplementedError("called from compiled code only")


def plane_jump_start(t, b, trackers):
    raise NotImplementedError("called from compiled code only")


def plane_jump(t, q, j, previous, constants, trackers):
    raise NotImplementedError("called from compiled code only")


@overload(plane_scratch, inline="always")
def _scratch_of(t):
    return _vertical(t, 0)


@overload(plane_start, inline="always")
def _start_of(t, b, trackers):
    return _vertical(t, 1)


@overload(plane_moves, inline="always")
def _moves_of(t, q, constants, trackers):
    return _vertical(t, 2)


@overload(plane_jump_start, inline="always")
def _jump_start_of(t, b, trackers):
    return _vertical(t, 3)


@overload(plane_jump, inline="always")
def _jump_of(t, q, j, previous, constants, trackers):
    return _vertical(t, 4)


# The multi-tile sweeps inline plane_jump at one call site per jump (a loop over the jumps
# instead reads their constants with a variable index and took a quarter longer).  On
# Python 3.11, numba's pedantic SSA check then warns that variables of the inlined code are
# "not in scope" (numba issue #9489: an overload inlined at two call sites); the code is
# right (tests/test_multi_tile.py compares it with a plain search), so the warning is
# silenced for the families' `_jump` functions alone.
warnings.filterwarnings("ignore", message=r".*variable '_jump_v\d+_.*' is not in scope",
                        category=NumbaIRAssumptionWarning)


# --- the sweeps -----------------------------------------------------------------------------


@jit(inline="always")
def plane_unit(t, b):
    """What a sweep of plane b starts from: its first rank, the blank's column, the trackers
    and the constants of the vertical moves (plane_start)."""
    trackers = plane_scratch(t)
    constants = plane_start(t, b, trackers)
    return b * t.plane, b % t.width, trackers, constants


@jit(inline="always")
def sweep_units(a, cur_flags, next_flags, found, t, unit_plane, unit_first, unit_stop, code,
                colour, colours, unit, row, column):
    """The sweep of the two-bit array's units (units_for), both metrics': mark NEXT (code
    `code`) the UNSEEN states the moves of the CUR states reach; found[u] is the number
    marked from unit u.  A plane is one run of the colouring (parity_run): given the runs'
    colours (not None) and a colour (not negative), only the planes of `colour` hold CUR
    states.  The metric's moves are three compiled functions, inline="always", inlined
    here with the loop (so the plane's constants stay in registers): unit(t, b) -> (first rank, blank's column, trackers,
    constants) of plane b; row(a, flags, g0, lanes, plane, col, width, code) -> how many
    the moves along the row of a word's CUR lanes mark; column(a, flags, t, q, r,
    constants, trackers, code) -> how many those along the column of state r (q of its
    plane) mark, asked only when the plane has any (constants[0])."""
    width = t.width
    plane = t.plane
    for u in prange(unit_plane.size):
        found[u] = 0
        if colours is not None and colour >= 0 and colours[unit_plane[u]] != colour:
            continue
        if not units_active(cur_flags, unit_first[u], unit_stop[u]):
            continue
        lo, col, trackers, constants = unit(t, unit_plane[u])
        hi = lo + plane
        new = 0
        for w in range(unit_first[u], unit_stop[u]):
            lanes = _plane_lanes(a, w, lo, hi)
            if lanes == 0:
                continue
            g0 = w * STATES_PER_WORD
            new += row(a, next_flags, g0, lanes, plane, col, width, code)
            if not constants[0]:  # no move along the column
                continue
            while lanes:
                r = g0 + np.int64(lowest_bit(lanes) >> ONE)
                lanes &= lanes - ONE
                new += column(a, next_flags, t, r - lo, r, constants, trackers, code)
        found[u] = new


@jit(inline="always")
def sweep_runs(ranks, bits, t, run_first, run_stop, unit, row, column):
    """The sweep of a list of ascending ranks (runs of one plane: runs_for), both metrics':
    set in bits (a bitset of the whole space) every state their moves reach.  unit as in
    sweep_units; row(bits, r, plane, col, width) and column(bits, t, q, r, constants,
    trackers) set the moves of state r (q of its plane) along the row and the column."""
    width = t.width
    plane = t.plane
    for k in prange(run_first.size):
        first = run_first[k]
        lo, col, trackers, constants = unit(t, np.int64(ranks[first]) // plane)
        for i in range(first, run_stop[k]):
            r = np.int64(ranks[i])
            row(bits, r, plane, col, width)
            if constants[0]:  # a move along the column
                column(bits, t, r - lo, r, constants, trackers)


@jit(inline="always")
def _vertical_marks(a, next_flags, t, q, r, constants, trackers, code):
    """The vertical moves of state r (q of its plane): how many UNSEEN states they mark."""
    down, up = plane_moves(t, q, constants, trackers)
    new = 0
    if down >= 0:
        new += mark_next(a, next_flags, down, code)
    if up >= 0:
        new += mark_next(a, next_flags, up, code)
    return new


@jit(inline="always")
def _vertical_bits(bits, t, q, r, constants, trackers):
    """The vertical moves of state r, set in a bitset of the whole space."""
    down, up = plane_moves(t, q, constants, trackers)
    if down >= 0:
        set_bit(bits, down)
    if up >= 0:
        set_bit(bits, up)


@jit(parallel=True)
def expand_planes(a, cur_flags, next_flags, found, t, unit_plane, unit_first, unit_stop,
                  mark, colour, colours):
    """Mark NEXT (code `mark`) every UNSEEN neighbour of every CUR state (sweep_units; of
    the CUR states of `colour`, where colour >= 0, by the runs' colours)."""
    sweep_units(a, cur_flags, next_flags, found, t, unit_plane, unit_first, unit_stop, mark,
                colour, colours, plane_unit, _horizontal, _vertical_marks)


@jit(parallel=True)
def mark_planes(ranks, bits, t, run_first, run_stop):
    """Set in bits (a bitset of the whole space) every neighbour of the ascending ranks: the
    sweep of expand_planes over a list of ranks, in runs of one plane (runs_for)."""
    sweep_runs(ranks, bits, t, run_first, run_stop, plane_unit, _horizontal_bits,
               _vertical_bits)
