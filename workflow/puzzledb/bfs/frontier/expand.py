"""The expand phase of the frontier search: the neighbours of a share of layer d - 1, a
piece of at most PIECE_STATES states at a time, grouped by the segment of depth d they fall
in (a parallel counting sort), one work file a piece (workfiles.py).  The next piece is
read, and the last one's work file written (sorted and coded, in one thread), each in a
thread of its own while a piece's neighbours are found."""

from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path

import numpy as np

from puzzledb.bfs.frontier.kernels import group_by_segment, layer_neighbours
from puzzledb.bfs.frontier.workfiles import write_piece
from puzzledb.bfs.frontier.workindex import WORK_SUFFIX
from puzzledb.bfs.memory import PIECE_STATES
from puzzledb.compiled import prepare
from puzzledb.store.files import make_directory


def expand_part(plan, depth, part, parts, out, keep=None, log=None):
    """The neighbours of part `part` of `parts` equal parts of layer depth - 1 (by
    position), grouped by the segment of depth they fall in: a file for each piece of
    PIECE_STATES states in directory `out` (plan: the search's FrontierPlan).  keep: only
    the neighbours in that range of segments (the rebuild of one part, repair.py)."""
    out = Path(out)
    make_directory(out)
    kernels, compiled = prepare(SegmentGrouping.kernels(plan.puzzle))
    grouping = SegmentGrouping.of_depth(plan, depth)
    states = neighbours = written = 0
    writing = None
    with plan.store.open_layer(depth - 1) as layer, ThreadPoolExecutor(1) as writer, \
            closing(read_ahead(layer, plan.share(layer.count, part, parts))) as pieces:
        for k, piece in enumerate(pieces):
            grouped, offsets = grouping.group(piece, keep)
            neighbours += len(grouped)
            if writing is not None:
                written += writing.result()
            writing = writer.submit(write_piece, out / f"x{part:05d}.{k:05d}{WORK_SUFFIX}",
                                    grouped, offsets, grouping.cuts)
            states += len(piece)
        if writing is not None:
            written += writing.result()
    if log is not None:
        log(f"{plan.puzzle.name}: depth {depth}, part {part} of {parts}: {states:,} states "
            f"expanded into {neighbours:,} neighbours, {written:,} bytes of work files "
            f"({kernels} kernels loaded first, {compiled} compiled)")


def read_ahead(layer, positions):
    """The ranks of the layer at `positions` (a range), in pieces of PIECE_STATES, each read
    in a thread of its own while the caller works on the one before (that thread alone uses
    the layer meanwhile)."""
    firsts = range(positions.start, positions.stop, PIECE_STATES)

    def read(first):
        return layer.ranks(first, min(positions.stop, first + PIECE_STATES))

    if not firsts:
        return
    with ThreadPoolExecutor(1) as reader:
        reading = reader.submit(read, firsts[0])
        for k in range(len(firsts)):
            piece = reading.result()
            if k + 1 < len(firsts):
                reading = reader.submit(read, firsts[k + 1])
            yield piece


class SegmentGrouping:
    """The neighbours of a piece of layer `level` grouped by the segment they fall in
    (cuts, and lookup and shift: FrontierPlan.cuts and segment_lookup of the next depth),
    through the puzzle's neighbours kernel."""

    def __init__(self, puzzle, level, cuts, lookup, shift):
        self.tables = puzzle.tables()
        self.moves, self.work = max(puzzle.max_moves, 1), max(puzzle.work_size, 1)
        self.level, self.cuts, self.lookup, self.shift = np.int64(level), cuts, lookup, shift

    @classmethod
    def of_depth(cls, plan, depth):
        """The grouping of layer depth - 1's neighbours by the segments of depth."""
        return cls(plan.puzzle, plan.level(depth - 1), plan.cuts(depth),
                   *plan.segment_lookup(depth))

    @classmethod
    def kernels(cls, puzzle):
        """What group calls, with arguments of their types (compiled.prepare)."""
        grouping = cls(puzzle, 0, np.zeros(2, np.int64), np.zeros(1, np.int64), 0)
        words = puzzle.key_words
        piece = np.zeros((1, words) if words > 1 else 1, dtype=np.uint64)
        calls = [grouping._neighbours(piece)]
        found, counts = calls[0][1][-2:]
        return calls + [grouping._grouping(found, counts, np.empty_like(piece))]

    def group(self, piece, keep=None):
        """(grouped, offsets): the neighbours of the ascending keys of piece (uint64 ranks,
        or rows of W words), segment t's at offsets[t]:offsets[t + 1]; keep: only those of that range of
        segments (offsets still one per segment, the others' groups empty)."""
        kernel, arguments = self._neighbours(piece)
        kernel(*arguments)
        found, counts = arguments[-2:]
        grouped = np.empty((int(counts.sum()), *piece.shape[1:]), dtype=np.uint64)
        kernel, arguments = self._grouping(found, counts, grouped)
        kernel(*arguments)
        offsets = arguments[-1]
        del found, arguments
        if keep is not None:
            start, stop = offsets[keep.start], offsets[keep.stop]
            grouped = grouped[start:stop]
            offsets = np.clip(offsets - start, 0, stop - start)
        return grouped, offsets

    def _neighbours(self, piece):
        """The neighbours kernel's call on piece, into new arrays: one-word keys as the
        kernels' int64 ranks, wider ones as rows of uint64 words."""
        n, row = len(piece), piece.shape[1:]
        found = np.empty((n * self.moves, *row), dtype=np.uint64 if row else np.int64)
        return layer_neighbours, (piece, self.level, self.tables, self.moves, self.work,
                                  found, np.empty(n, dtype=np.int64))

    def _grouping(self, found, counts, grouped):
        return group_by_segment, (found, counts, self.moves, self.cuts, self.lookup,
                                  self.shift, grouped, np.empty(self.cuts.size, np.int64))
