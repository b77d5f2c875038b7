"""The dense depths of the frontier search, done in-process by a step: a layer through one
bitset of its whole level, no work files.  The neighbours of layer d - 1 are set in the
bitset a piece at a time, the older layers cleared from it, and the rest written as layer d.

When the states of one move parity are whole runs of ranks (Puzzle.parity_run: a sliding
puzzle's plane of one blank cell, a domino's place), layer d and layer d - 1 lie in runs of
opposite parity, so one bitset holds both: the layer just written is kept in it (a
HeldLevel) for the next depth, which takes its source ranks from there instead of reading
them back from disk and inflating them."""

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from puzzledb.bfs import bitset
from puzzledb.bfs.frontier.kernels import mark_neighbours
from puzzledb.bfs.memory import DENSE_RATIO, PIECE_STATES, dense_depth_bytes


@dataclass
class HeldLevel:
    """A level's bitset kept from one dense depth for the next: it holds layer `depth`,
    `count` states, in the runs of move parity `parity` (and nothing in the others)."""

    depth: int
    bits: np.ndarray
    parity: int
    count: int


class DenseDepths:
    """The dense depths of one search (plan: its FrontierPlan), and the level kept between
    two of them (held)."""

    def __init__(self, plan):
        self.plan, self.puzzle = plan, plan.puzzle
        self.held = None  # a HeldLevel, or None

    def fits(self, depth, source_count, budget=None):
        """Whether depth goes through one bitset of its whole level: when its keys are
        ranks of one word, the bitset is no larger than DENSE_RATIO bits per neighbour of layer depth - 1 (what a sort of them
        would hold, see merge.py) and dense_depth_bytes fits the budget (None: no bound)."""
        size = self.puzzle.level_size(self.plan.level(depth))
        neighbours = source_count * max(self.puzzle.max_moves, 1)
        need = dense_depth_bytes(size, self.puzzle.expansion_bytes()
                                 + self.puzzle.kernel_bytes())
        return (self.puzzle.key_words == 1 and size <= DENSE_RATIO * neighbours
                and (budget is None or need <= budget))

    def release(self):
        """Let go of the level kept for the next depth."""
        self.held = None

    def write(self, depth):
        """Layer depth through a bitset of its whole level: its LayerInfo, or None when it
        is empty.  The bitset is kept for the next depth when the puzzle's parity runs allow
        (HeldLevel)."""
        held, self.held = self.held, None
        if self.parity_runs is not None and held is not None and held.depth == depth - 1:
            bits, parity, source_count = self._marked_from(held)
        else:
            del held  # before the new bitset
            bits, parity, source_count = self._marked_from_disk(depth)
        with self.plan.older_layers(depth) as older:
            for layer in older:
                for block in layer.iter_chunks(PIECE_STATES):
                    bitset.clear_ranks(bits, block, 0)
        store = self.plan.store
        if parity is None:
            count = int(bitset.count(bits))
            return store.write_layer(depth, bitset.iter_ranks(bits), count) if count else None
        count = int(bitset.count(bits)) - source_count
        if not count:
            return None
        info = store.write_layer(depth, self._ranks_of_parity(bits, 1 - parity), count)
        self.held = HeldLevel(depth, bits, 1 - parity, count)
        return info

    def _marked_from(self, held):
        """(bits, parity, count): the neighbours of the held layer set in its own bitset."""
        level = np.int64(self.plan.level(held.depth))
        for piece in self._ranks_of_parity(held.bits, held.parity):
            self._mark(piece, level, held.bits)
        return held.bits, held.parity, held.count

    def _marked_from_disk(self, depth):
        """(bits, parity, count): a new bitset of depth's level with the neighbours of layer
        depth - 1, read from disk, set; with parity runs also that layer itself, in the runs
        of its parity (else parity and count are None)."""
        source = depth - 1
        level = np.int64(self.plan.level(source))
        bits = bitset.new_bitset(self.puzzle.level_size(self.plan.level(depth)))
        parity = count = None
        with self.plan.store.open_layer(source) as layer:
            for first in range(0, layer.count, PIECE_STATES):
                piece = layer.ranks(first, min(layer.count, first + PIECE_STATES))
                self._mark(piece, level, bits)
                if self.parity_runs is not None:  # layer source kept beside
                    bitset.set_ranks(bits, piece, 0)
            if self.parity_runs is not None and layer.count:
                parity = int(self.puzzle.move_parity(piece[:1])[0])
                count = layer.count
        return bits, parity, count

    def _mark(self, piece, level, bits):
        """Set in bits the neighbours of the ascending ranks of piece: through the puzzle's
        layer expansion if it has one, else its neighbours kernel."""
        if self.expansion is None:
            kernel, arguments = self._neighbours(piece, level, bits)
            kernel(*arguments)
        else:
            self.expansion.mark(piece, level, bits)

    def _neighbours(self, piece, level, bits):
        puzzle = self.puzzle
        return mark_neighbours, (piece, level, puzzle.tables(), max(puzzle.max_moves, 1),
                                 max(puzzle.work_size, 1), bits)

    def kernels(self, budget):
        """What a dense depth calls, with arguments of their types (compiled.prepare): its
        marking and the bitset's passes.  None where no depth can be dense: keys of several
        words, or a whole level's bitset past the job's budget; none either without a
        budget (the whole chain in one process), where the layer expansion, whose units
        span the whole space, is made only for a depth that is dense."""
        puzzle = self.puzzle
        if puzzle.key_words > 1 or budget is None or dense_depth_bytes(
                puzzle.level_size(0), puzzle.expansion_bytes() + puzzle.kernel_bytes()) > budget:
            return []
        bits, piece = bitset.new_bitset(1), np.zeros(1, np.uint64)
        marking = (self.expansion.mark_kernels(bits) if self.expansion is not None else
                   [self._neighbours(piece, np.int64(0), bits)])
        return marking + bitset.kernels(bits) + [(bitset.clear_ranks, (bits, piece, 0))]

    @cached_property
    def expansion(self):
        """The puzzle's whole-layer expansion (Puzzle.layer_expansion), whose mark a dense
        depth uses instead of the neighbours kernel; asked for only then (its units span the
        whole space)."""
        return self.puzzle.layer_expansion()

    @cached_property
    def parity_runs(self):
        """(starts, stops, parities) of the runs of ranks of one move parity
        (Puzzle.parity_run) of a bipartite puzzle that is not graded, else None."""
        puzzle = self.puzzle
        length = puzzle.parity_run() if puzzle.bipartite and not puzzle.graded else None
        if length is None:
            return None
        starts = np.arange(0, puzzle.size, length, dtype=np.int64)
        stops = np.minimum(starts + length, puzzle.size)
        return starts, stops, puzzle.move_parity(starts)

    def _ranks_of_parity(self, bits, parity):
        """The ranks set in bits of the given move parity, ascending, in blocks."""
        starts, stops, parities = self.parity_runs
        for low, high in zip(starts[parities == parity], stops[parities == parity]):
            yield from bitset.iter_ranks(bits, low=int(low), high=int(high))
