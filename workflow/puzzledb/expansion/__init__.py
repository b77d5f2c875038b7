"""The expansion protocol: what the engines publish and a puzzle family's whole-layer
expansion implements (Puzzle.layer_expansion), so that a family's kernels write into the
engines' arrays without importing an engine.  Here: the two layouts both sides write and
the LayerExpansion protocol; the compiled word operations on them are in `words`.

Plain numpy: the engine's memory arithmetic (bfs/memory.py) takes its sizes from here, and a
config check must not load numba.

The two-bit state array of an ungraded search (bfs/twobit.py).  State r lives in word r >> 5,
bits 2(r & 31) (y, the low bit) and 2(r & 31) + 1 (x):

    UNSEEN 00   OLD 10 (depth < d)   CUR 11 (depth d, being expanded)   NEXT 01 (depth d + 1)

An expansion of depth d reads the CUR states and only ever turns UNSEEN into NEXT
(words.mark_next and its kin), so that the engine can relabel between depths and count a
layer exactly however many threads race.  A search that keeps every state's depth (the
distances store, bfs/distances.py) may code NEXT as 11 too, for a puzzle whose moves flip a
colouring of its states: the layer found and the layer expanded are then told apart by
their colours, and an expansion marks with ExpansionState.mark and expands only the CUR
states of ExpansionState.colour (words.colour_lanes; a family's sweep over runs of one
colour, such as a sliding puzzle's plane, may test the run's colour instead).

The array is cut into sub-blocks of SUB_WORDS words (SUB_STATES states); a flag byte per
sub-block says whether it holds a CUR state (cur_flags, which an expansion may use to skip
work) or a NEXT state (next_flags, which marking NEXT sets).

The bitset of a level (the frontier engine's dense depths, graded searches): rank r is bit
r & 63 of word r >> 6 of a uint64 array of words_for(size) words, set with words.set_bit.
"""

from typing import Protocol, runtime_checkable

import numpy as np

# --- the two-bit state array ------------------------------------------------------------------

STATES_PER_WORD = 32
SUB_SHIFT = 10
SUB_WORDS = 1 << SUB_SHIFT
SUB_STATES = SUB_WORDS * STATES_PER_WORD
LANES = np.uint64(0x5555555555555555)  # the y bit of every state of a word
ONE = np.uint64(1)


def twobit_words(size):
    """Words of the two-bit state array of `size` states."""
    return (int(size) + STATES_PER_WORD - 1) // STATES_PER_WORD


def sub_blocks(words):
    """Sub-blocks (flag bytes) of a two-bit state array of `words` words."""
    return (int(words) + SUB_WORDS - 1) // SUB_WORDS


# --- the bitset of a level --------------------------------------------------------------------

WORD_BITS = 64


def words_for(size):
    """Words of the bitset of `size` ranks."""
    return (int(size) + WORD_BITS - 1) // WORD_BITS


# --- the protocol -----------------------------------------------------------------------------


@runtime_checkable
class ExpansionState(Protocol):
    """What the engine hands LayerExpansion.expand: the two-bit array of the whole rank
    space (bfs/twobit.StateArray)."""

    words: np.ndarray  # uint64, twobit_words(size) long: the states, laid out as above
    cur_flags: np.ndarray  # uint8 per sub-block: 1 if it holds a CUR state (read only)
    next_flags: np.ndarray  # uint8 per sub-block: set to 1 where a state is marked NEXT
    mark: np.uint64  # the code a state marked NEXT takes: 1 (01, Korf's NEXT) or 3 (11, see
    #                  above)
    colour: np.int64  # with colours: the colour of the CUR states (11 of another are NEXT)
    run_length: np.int64  # the ranks are coloured in runs of this many (Puzzle.parity_run)
    colours: np.ndarray  # uint8 per run: its colour (Puzzle.move_parity), read only where
    #                      colour >= 0; colour < 0: no colouring, every 11 state is CUR
    counts: tuple[int, int] | None  # (CUR, UNSEEN) states where the engine knows them (it
    #                                 counts Korf's codes as it goes); None: an expansion
    #                                 that weighs them counts them (words.cur_and_unseen)

    def run(self, kernel, *args):
        """Call kernel(*args), a parallel (prange) kernel, with the engine's scheduling of
        its loop's iterations (dynamic, a few at a time: units of work differ in cost and
        the cores are shared)."""


@runtime_checkable
class LayerExpansion(Protocol):
    """A puzzle's whole-layer expansion, faster than the engines' generic steps over its
    neighbours kernel (Puzzle.layer_expansion; sliding puzzles: the plane kernels)."""

    def expand(self, state: ExpansionState, level: int) -> int:
        """Mark NEXT every UNSEEN neighbour of every CUR state of `state` (states of layer
        `level`); how many were marked, exactly, whatever the threads' races."""

    def kernels(self, state: ExpansionState) -> list:
        """Every kernel `expand` may call on `state`, each with the arguments it would be
        given, as pairs (kernel, arguments): a step taken only late in a search (a
        backward one) too.  The engines load or compile them before the search's clock
        starts (compiled.prepare), so nothing compiles inside a search."""

    def mark(self, ranks: np.ndarray, level: int, bits: np.ndarray) -> None:
        """Set in `bits` (the bitset of the whole level the neighbours are in) every
        neighbour of the ascending uint64 `ranks` (states of level `level`)."""

    def mark_kernels(self, bits: np.ndarray) -> list:
        """Every kernel `mark` calls, as kernels() gives them, with a bitset like `bits`:
        the frontier search's dense depths load or compile them before their clock."""
