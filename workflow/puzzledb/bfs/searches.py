"""The two searches of the in-memory engine (in_memory.py), each the state of a whole search
between depths: an ungraded puzzle's on two bits per state of its rank space (twobit.py), a
graded puzzle's on one bitset for the current level and one for the next (bitset.py).

Both answer the engine the same way: start(goals) or reload(store, last) makes a layer
current, expand(depth) finds the next one (its number of states), advance() makes it
current, and current() reads its ranks out, ascending.  Only the two-bit search holds the
whole space, so only it can be sampled, checkpointed and resumed from a checkpoint (the
counts and distances sinks, sinks.py, ask for that).
"""

import numpy as np

from puzzledb.bfs import bitset, checkpoint, twobit


class TwoBitSearch:
    """An ungraded puzzle's search: every state UNSEEN, OLD, CUR or NEXT (twobit.py).  It
    keeps the CUR and UNSEEN states' numbers in state.counts as layers are found, so that an
    expansion that weighs them need not count them over the whole array at every depth; a
    search of other codes (bfs/distances.py) sets KORF False and leaves them None."""

    KORF = True  # Korf's codes: the layer found is NEXT, and only it turns CUR

    def __init__(self, puzzle, allocate=True):
        # allocate False: a stand-in of one state, whose arrays have the types of the
        # search's (kernels() declares the same calls): what `puzzledb compile` holds
        self.state = twobit.StateArray(puzzle.size if allocate else 1)
        self.expansion = puzzle.layer_expansion() or twobit.NeighboursExpansion(puzzle)
        self.marked = 0  # the states of the layer found last

    def kernels(self):
        """What the search will call, as (kernel, arguments) pairs (compiled.prepare): the
        passes between depths and every step of its expansion."""
        return self.state.kernels() + self.expansion.kernels(self.state)

    def start(self, goals):
        self.state.mark_current(goals)
        self._counted(np.unique(goals).size, self.state.size)

    def reload(self, store, last):
        """Resume after layer `last` on disk: layers 0..last-1 OLD, layer last CUR."""
        seen = cur = 0
        for depth in range(last + 1):
            mark = self.state.mark_current if depth == last else self.state.mark_old
            with store.open_layer(depth) as layer:
                cur = 0
                for block in layer.iter_chunks():
                    mark(block)
                    cur += block.size
            seen += cur
        self._counted(cur, self.state.size - seen + cur)

    def _counted(self, cur, unseen_before):
        """state.counts once `cur` states, UNSEEN until now, are CUR."""
        if self.KORF:
            self.state.counts = (int(cur), int(unseen_before) - int(cur))

    def expand(self, depth):
        """Layer depth + 1 from layer depth: its number of states."""
        self.marked = self.expansion.expand(self.state, depth)
        return self.marked

    def advance(self):
        """Make the layer just expanded current (NEXT -> CUR, CUR -> OLD)."""
        self.state.relabel()
        if self.state.counts is not None:
            self._counted(self.marked, self.state.counts[1])

    def current(self):
        """The current layer's ranks, ascending (arrays of one reused buffer: use each before
        asking for the next)."""
        return self.state.current_ranks()

    def pick(self, depth, count, most):
        """The current layer's ranks (`count` of them) when it holds at most `most`, else
        `most` drawn at random (reproducibly: the depth seeds the draw)."""
        if count <= most:
            return np.concatenate([np.empty(0, np.uint64), *(
                block.copy() for block in self.state.current_ranks())])
        positions = np.random.default_rng(depth).choice(count, size=most, replace=False)
        return self.state.pick_current(np.sort(positions))

    def checkpoint(self, directory, puzzle, depth, infos, samples, store):
        """Save the search after layer `depth` for `store` (checkpoint.py); the file's size
        in bytes."""
        return checkpoint.write(directory, puzzle, depth, infos, samples, self.state.words,
                                store)

    def resume(self, directory, header):
        """Load the checkpoint whose header is given; the samples it holds, layer by
        layer."""
        samples = checkpoint.read(directory, header, self.state.words)
        self.state.restore()  # state.counts stay None: the expansion counts, as before
        return samples


class GradedSearch:
    """A graded puzzle's search: layer d + 1 is level d + 1, so no state is seen twice and
    two bitsets (this level, the next) hold the search."""

    def __init__(self, puzzle):
        self.puzzle = puzzle
        self.tables = puzzle.tables()
        self.max_moves = max(puzzle.max_moves, 1)
        self.work_size = max(puzzle.work_size, 1)
        self.current_bits = None
        self.following = None

    def kernels(self):
        """What the search will call, as (kernel, arguments) pairs (compiled.prepare)."""
        bits = bitset.new_bitset(1)
        return bitset.kernels(bits) + [self._step(bits, bits, 0)]

    def _step(self, current, following, depth):
        return bitset.expand, (current, following, np.int64(depth), self.tables,
                               self.max_moves, self.work_size)

    def start(self, goals):
        self.current_bits = bitset.new_bitset(self.puzzle.level_size(0))
        bitset.set_ranks(self.current_bits, goals, 0)

    def reload(self, store, last):
        """Resume after layer `last` on disk: only it is needed."""
        self.current_bits = bitset.new_bitset(self.puzzle.level_size(last))
        with store.open_layer(last) as layer:
            for block in layer.iter_chunks():
                bitset.set_ranks(self.current_bits, block, 0)

    def expand(self, depth):
        size = self.puzzle.level_size(depth + 1)
        if size == 0:
            return 0
        if self.following is None or self.following.size != bitset.words_for(size):
            self.following = bitset.new_bitset(size)
        else:
            self.following[:] = 0
        kernel, arguments = self._step(self.current_bits, self.following, depth)
        kernel(*arguments)
        return int(bitset.count(self.following))

    def advance(self):
        self.current_bits, self.following = self.following, self.current_bits

    def current(self):
        return bitset.iter_ranks(self.current_bits)
