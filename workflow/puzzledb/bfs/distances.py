"""The distances store's searches (sinks.DistanceSink): the in-memory two-bit search made to
end with every state's depth as a label in its own two bits, the table of
store/distances.py, for as little more than the counts store's search as each puzzle allows.

Korf's codes (twobit.py: UNSEEN, OLD, CUR, NEXT) forget a state's depth once it is OLD.  The
kernels must tell the layer being expanded from every other seen state, and the table must
tell, of a state's neighbours, those at depth d - 1 from those at d + 1 (and at d, where a
move can keep the depth); two bits hold four codes.

- ColourSearch, for a puzzle whose moves flip a colouring of its states that comes in runs
  of ranks (Puzzle.move_parity and parity_run: sliding puzzles, the domino family).  A
  state's colour against the goals' says whether its depth is even or odd, so one bit more,
  (depth >> 1) & 1, gives its depth modulo 4.  A state of an earlier layer holds 01 or 10 by
  that bit; the layer being expanded and the layer being found both hold 11, told apart by
  their colours: the kernels expand only the 11 states of CUR's colour and mark with 11
  (ExpansionState.colour and .mark).  Between depths one pass over the flagged sub-blocks
  turns CUR into 01 or 10, as Korf's relabelling turns CUR into OLD: the same work as the
  counts store's search, and no state is expanded twice.
- CycleSearch, for any other puzzle: depth modulo 3.  The three residues hold 11, 01 and 10
  in turn, rotated one step after every depth (a pass over the whole array), so that the
  kernels, unchanged, expand 11 and mark 01.  An expansion of depth d then also meets the
  states of depths d - 3, d - 6, ... in the sub-blocks it expands (those holding a state of
  layer d): they mark nothing, their neighbours being all seen, a waste that the choice of
  forward or backward of an expansion that has both weighs (cur_and_unseen counts them); a
  backward step (every UNSEEN state looks for a neighbour coded 11) is exact as it is.  Nor
  is the layer just found told from the older states of its code, so its sample is drawn
  among the states of its code in the sub-blocks it flagged and kept where the walk down
  the labels is as long as the depth (bfs/labels.py; at most memory.SAMPLE_DRAWS draws);
  once few states are left unseen (memory.LIST_STATES) they are listed before each
  expansion, and the layer found is those of them marked.  The checkpoint is taken between
  depths, the search waiting for it: a state marked during an expansion looks like an
  older one of its code.
"""

import numpy as np
from numba import prange

from puzzledb.bfs import checkpoint
from puzzledb.bfs.labels import Walker
from puzzledb.bfs.memory import LIST_STATES, SAMPLE_DRAWS
from puzzledb.bfs.searches import TwoBitSearch
from puzzledb.compiled import jit
from puzzledb.compiled.bitops import lowest_bit, popcount
from puzzledb.expansion import LANES, ONE, STATES_PER_WORD, SUB_STATES, SUB_WORDS
from puzzledb.expansion.words import colour_lanes, colour_of_block, cur_lanes
from puzzledb.store import label_modulus
from puzzledb.store.distances import Labels


# --- ColourSearch's passes ---------------------------------------------------------------


@jit(parallel=True)
def recode(a, subs, run, colours, colour, code, counts, flags):
    """In the sub-blocks subs: the 11 states of `colour` take `code`; counts[k] and
    flags[k]: how many 11 states are left in sub-block k (those of the other colour), and
    whether any."""
    for i in prange(subs.size):
        k = subs[i]
        left = 0
        whole = colour_of_block(k * SUB_STATES, (k + 1) * SUB_STATES, run, colours, colour)
        for w in range(k * SUB_WORDS, min(a.size, (k + 1) * SUB_WORDS)):
            v = a[w]
            lanes = cur_lanes(v)
            if lanes == 0:
                continue
            mine = lanes if whole == 1 else np.uint64(0)
            if whole < 0:
                mine = lanes & colour_lanes(w, run, colours, colour)
            if mine:
                a[w] = (v & ~(mine * np.uint64(3))) | (mine * code)
            left += popcount(lanes & ~mine)
        counts[k] = left
        flags[k] = 1 if left else 0


class ColourSearch(TwoBitSearch):
    """Depth modulo 4 of a coloured puzzle: (depth >> 1) & 1 in the code, depth & 1 in the
    colour (see above)."""

    KORF = False  # an expansion that weighs CUR and UNSEEN counts them

    CODES = (1, 1, 2, 2)  # the code of a state of an earlier layer, by its depth modulo 4
    checkpoint_beside = True  # a checkpoint may be written while the kernels expand

    def __init__(self, puzzle, allocate=True):
        super().__init__(puzzle, allocate)
        run = int(puzzle.parity_run())
        state = self.state
        state.run_length = np.int64(run)
        state.colours = puzzle.move_parity(
            np.arange(-(-state.size // run), dtype=np.uint64) * np.uint64(run)
        ).astype(np.uint8)
        state.mark = np.uint64(3)
        goals = puzzle.goal_ranks().astype(np.uint64)
        self.goal_colour = int(puzzle.move_parity(goals[:1])[0])
        self.depth = 0  # of the layer current (CUR)

    def colour(self, depth):
        return self.goal_colour ^ (depth & 1)

    def kernels(self):
        state = self.state
        return super().kernels() + [(recode, (
            state.words, np.zeros(1, np.int64), state.run_length, state.colours, np.int64(0),
            np.uint64(0), state.cur_counts, state.cur_flags))]

    def expand(self, depth):
        self.depth = depth
        self.state.colour = np.int64(self.colour(depth))
        return super().expand(depth)

    def advance(self):
        self._close(self.state.next_flags)
        self.depth += 1

    def _close(self, found_flags):
        """CUR takes its depth's code; the layer found (flags found_flags) becomes CUR."""
        self._recode(np.flatnonzero(self.state.cur_flags | found_flags),
                     self.colour(self.depth), self.CODES[self.depth % 4])

    def _recode(self, subs, colour, code):
        """The 11 states of `colour` in sub-blocks subs take `code`; those left are CUR."""
        state = self.state
        recode(state.words, subs, state.run_length, state.colours, np.int64(colour),
               np.uint64(code), state.cur_counts, state.cur_flags)
        state.next_flags[:] = 0

    def labels(self):
        """Close the last layer (the search is over); the table's Labels."""
        self._close(np.zeros_like(self.state.cur_flags))
        return Labels(4, self.CODES, self.goal_colour)

    def resume(self, directory, header):
        """The checkpoint read back: the states the expansion it was written beside had
        marked (11, of the next layer's colour) UNSEEN again."""
        samples = checkpoint.read(directory, header, self.state.words)
        self.depth = int(header["depth"])
        self._recode(np.arange(self.state.cur_flags.size), self.colour(self.depth + 1), 0)
        return samples


# --- CycleSearch's passes ----------------------------------------------------------------


@jit(parallel=True)
def rotate(a, flags, counts):
    """Every seen state's code one step on: 01 -> 11, 11 -> 10, 10 -> 01 (00 stays); in each
    sub-block k flagged, counts[k] the states coded 11 after (flags[k]: whether any)."""
    for k in prange(flags.size):
        found = 0
        for w in range(k * SUB_WORDS, min(a.size, (k + 1) * SUB_WORDS)):
            v = a[w]
            if v:
                y = v & LANES
                x = (v >> ONE) & LANES
                v = (y << ONE) | (x ^ y)
                a[w] = v
                found += popcount(cur_lanes(v))
        if flags[k]:
            counts[k] = found
            flags[k] = 1 if found else 0


@jit(parallel=True)
def count_current(a, subs, counts, cur_flags):
    """counts[k]: the 11 states of each sub-block k of subs; cur_flags[k] whether any."""
    for i in prange(subs.size):
        k = subs[i]
        found = 0
        for w in range(k * SUB_WORDS, min(a.size, (k + 1) * SUB_WORDS)):
            found += popcount(cur_lanes(a[w]))
        counts[k] = found
        cur_flags[k] = 1 if found else 0


@jit
def list_unseen(a, size, out):
    """The ranks below `size` of the UNSEEN (00) states, ascending, into out; how many
    (at most out.size: the rest are not listed)."""
    n = 0
    for w in range(a.size):
        v = a[w]
        lanes = ~(v | (v >> ONE)) & LANES
        base = w * STATES_PER_WORD
        if base + STATES_PER_WORD > size:
            lanes &= (ONE << np.uint64(2 * (size - base))) - ONE
        while lanes and n < out.size:
            out[n] = np.uint64(base) + (lowest_bit(lanes) >> ONE)
            lanes &= lanes - ONE
            n += 1
    return n


@jit
def marked(a, ranks):
    """Whether each rank's state is seen (its code is not 00)."""
    out = np.empty(ranks.size, np.bool_)
    for i in range(ranks.size):
        r = ranks[i]
        out[i] = (a[r >> np.uint64(5)] >> ((r & np.uint64(31)) << ONE)) & np.uint64(3) != 0
    return out


class CycleSearch(TwoBitSearch):
    """Depth modulo 3 of any puzzle, the codes rotated after every depth (see above)."""

    KORF = False  # an expansion that weighs CUR and UNSEEN counts them

    ROTATION = (3, 1, 2)  # the code of residue k while depth d is expanded: [(k - d) % 3]
    checkpoint_beside = False  # the search waits for a checkpoint (see above)

    def __init__(self, puzzle, allocate=True):
        super().__init__(puzzle, allocate)
        self.puzzle = puzzle
        self.depth = 0  # of the layer current (coded 11)
        self.seen = 0  # states found so far
        self.unseen = None  # the UNSEEN ranks listed before the expansion, if few
        self.found = None  # the ranks of the layer current, when known from that list

    def codes(self):
        return tuple(self.ROTATION[(k - self.depth) % 3] for k in range(3))

    def kernels(self):
        """Also the walks down the labels that draw a layer's sample (pick)."""
        state, listed = self.state, np.empty(1, np.uint64)
        walks = Walker(self.puzzle, state.words, self.labels()).kernels()
        return super().kernels() + walks + [
            (rotate, (state.words, state.cur_flags, state.cur_counts)),
            (count_current, (state.words, np.zeros(1, np.int64), state.cur_counts,
                             state.cur_flags)),
            (list_unseen, (state.words, self.puzzle.size, listed)),
            (marked, (state.words, listed))]

    def labels(self):
        return Labels(3, self.codes())

    def start(self, goals):
        super().start(goals)
        self.seen = goals.size
        self.found = np.asarray(goals, dtype=np.uint64)

    def expand(self, depth):
        self.depth = depth
        self.unseen = None
        if self.puzzle.size - self.seen <= LIST_STATES:
            listed = np.empty(self.puzzle.size - self.seen, dtype=np.uint64)
            self.unseen = listed[:list_unseen(self.state.words, self.puzzle.size, listed)]
        found = super().expand(depth)
        self.seen += found
        return found

    def advance(self):
        state = self.state
        state.cur_flags[:] = state.next_flags
        state.next_flags[:] = 0
        rotate(state.words, state.cur_flags, state.cur_counts)
        self.depth += 1
        self.found = (None if self.unseen is None
                      else self.unseen[marked(state.words, self.unseen)])

    def pick(self, depth, count, most):
        """As TwoBitSearch.pick, the layer's states told from older ones of their code by
        the unseen list, else by the candidates' count, else by walks (see above)."""
        rng = np.random.default_rng(depth)
        if self.found is not None:
            if count <= most:
                return self.found.copy()
            return self.found[np.sort(rng.choice(count, size=most, replace=False))]
        state = self.state
        candidates = int(state.cur_counts[np.flatnonzero(state.cur_flags)].sum())
        if candidates == count:  # no older state among them
            return super().pick(depth, count, most)
        return self._walked(depth, count, min(count, most), candidates, rng)

    def _walked(self, depth, count, want, candidates, rng):
        """`want` states of the layer drawn at random among the candidates (the states of
        its code in the sub-blocks it flagged, `count` of them the layer's), each kept when
        its walk down is `depth` long: the first `want` so kept, in the order drawn.  As
        many are drawn as should hold half as many again, more (up to SAMPLE_DRAWS in all)
        if they do not."""
        most = min(candidates, SAMPLE_DRAWS)
        draws = rng.choice(candidates, replace=False,
                           size=min(most, int(1.5 * want * candidates / count) + 1024))
        kept = self._walked_from(draws, depth)
        if kept.size < want and draws.size < most:
            more = rng.choice(candidates, size=most, replace=False)
            more = more[~np.isin(more, draws)][:most - draws.size]
            kept = np.concatenate([kept, self._walked_from(more, depth)])
        return np.sort(kept[:want])

    def _walked_from(self, positions, depth):
        """The ranks of the current code's states at `positions` (in the order given) whose
        walks down are `depth` long."""
        order = np.argsort(positions)
        ranks = np.empty(positions.size, dtype=np.uint64)
        ranks[order] = self.state.pick_current(positions[order])
        walker = Walker(self.puzzle, self.state.words, self.labels())
        return ranks[walker.lengths(ranks, depth % 3, depth) == depth]

    def resume(self, directory, header):
        samples = checkpoint.read(directory, header, self.state.words)
        self.depth = int(header["depth"])
        self.seen = int(sum(header["counts"]))
        state = self.state
        state.next_flags[:] = 0
        count_current(state.words, np.arange(state.cur_flags.size), state.cur_counts,
                      state.cur_flags)
        return samples


def depth_search(puzzle, allocate=True):
    """The distances store's search of `puzzle`: by colour where its moves flip one that
    comes in runs of ranks (depth modulo 4), else by the cycle of three codes (allocate:
    as TwoBitSearch takes it)."""
    return (ColourSearch if label_modulus(puzzle) == 4 else CycleSearch)(puzzle, allocate)
