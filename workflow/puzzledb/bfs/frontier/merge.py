"""The merge phase of the frontier search: each segment of a range, its groups from every
expanded piece made distinct, minus the same segment of the older layers (segment.py),
streamed in order into a part of layer d (a merge job's part file) or, in-process, into the
layer's own file; and the layer written as the map of its parts (gather_layer)."""

import json
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from threading import Lock

from puzzledb.bfs.frontier import segment, workfiles
from puzzledb.bfs.frontier.segment import segment_of_layer
from puzzledb.bfs.frontier.workfiles import PieceFile
from puzzledb.bfs.frontier.workindex import work_files
from puzzledb.bfs.memory import MERGE_WINDOW, return_freed_arrays
from puzzledb.compiled import (
    concurrency_kernels,
    concurrent_parallel_kernels,
    prepare,
    shuffle,
)
from puzzledb.puzzles.symmetric import class_kernels
from puzzledb.store.files import write_text

PART_ENTRY = "part.json"  # in a merge job's directory: its part's entry (LayerStore.write_part)


def merge_job(plan, depth, part, parts, expanded, out, log=None):
    """Layer depth's segments of part `part` of `parts` (cut by the neighbours each
    segment receives), from the expanded pieces in the directories `expanded`: the layer's
    part file (store.parts), and its entry (part.json) in directory `out`.  What it calls
    (the work files' decoder, a segment's sort and set operations, the threading layer's
    probe) is loaded, or compiled, first, as a step job's is."""
    kernels, compiled = prepare(merge_kernels(plan.puzzle))
    if log is not None:
        log(f"{plan.puzzle.name}: depth {depth}, part {part} of {parts}: {kernels} kernels "
            f"loaded first ({compiled} compiled)")
    pieces = open_pieces(expanded)
    received = plan.received(depth, pieces)
    segments = plan.balanced(received, part, parts)
    entry = merge_part(plan, depth, part, parts, pieces, received, segments, log)
    write_text(Path(out) / PART_ENTRY, json.dumps(entry) + "\n")
    return entry


def merge_kernels(puzzle):
    """What a merge job of the puzzle calls, as (kernel, arguments) pairs (compiled.prepare)."""
    words = puzzle.key_words
    return (workfiles.kernels(words) + segment.kernels(words) + concurrency_kernels()
            + shuffle.KERNELS + class_kernels(puzzle))


def open_pieces(expanded):
    """The expanded pieces in the directories `expanded`, open for reading (PieceFile)."""
    return [PieceFile(path) for path in work_files(expanded)]


def merge_part(plan, depth, part, parts, pieces, received, segments, log=None):
    """Merge the segments (a range) of depth from the expanded pieces into part `part` of
    `parts` of the layer; its write_part entry."""
    cuts = plan.cuts(depth)  # the part's ranks: its segments' (none: empty)
    with merged_segments(plan, depth, pieces, received, segments) as merged:
        entry = plan.store.write_part(depth, part, parts, merged.blocks(), merged.bound,
                                      cuts[segments.start], cuts[segments.stop], segments)
    if log is not None:
        log(f"{plan.puzzle.name}: depth {depth}, part {part} of {parts}: {merged.bound:,} "
            f"neighbours received in {len(segments)} segments, {entry['count']:,} new "
            f"states (its fullest segment {merged.fullest:,}), part file {entry['bytes']:,} "
            f"bytes")
    return entry


def merge_layer(plan, depth, pieces, received):
    """Merge every segment of depth from the expanded pieces into the layer's own file: its
    LayerInfo, or None when it is empty (and nothing is kept)."""
    segments = range(plan.segment_count(depth))
    with merged_segments(plan, depth, pieces, received, segments) as merged:
        info = plan.store.write_layer(depth, merged.blocks(), merged.bound, exact=False)
    if info.count == 0:
        plan.store.remove(depth)
        return None
    return info


def gather_layer(store, depth, merged):
    """Layer `depth` as the map of the parts the merge jobs wrote (their entries in the
    directories `merged`): its LayerInfo, or None when it is empty (and nothing is kept)."""
    entries = [json.loads((Path(directory) / PART_ENTRY).read_text()) for directory in merged]
    if sum(e["count"] for e in entries) == 0:
        store.remove(depth)
        return None
    return store.write_parted(depth, entries)


@contextmanager
def merged_segments(plan, depth, pieces, received, segments):
    """A SegmentMerge of the range `segments` of depth, with the older layers it subtracts
    open and its threads, for the block (freed arrays returned to the system at once:
    return_freed_arrays)."""
    return_freed_arrays()
    pool = ThreadPoolExecutor(MERGE_WINDOW if concurrent_parallel_kernels() else 1)
    with plan.older_layers(depth) as older:
        try:
            yield SegmentMerge(plan, depth, pieces, received, segments, older, pool)
        finally:
            pool.shutdown(cancel_futures=True)


class SegmentMerge:
    """The merged segments of a range, in order, as blocks of ranks for the store: MERGE_WINDOW
    segments merged at once in as many threads (the kernels run without the GIL), taken in
    order while the store's writer compresses the one before."""

    def __init__(self, plan, depth, pieces, received, segments, older, pool):
        self.plan, self.depth, self.pieces, self.received = plan, depth, pieces, received
        self.segments, self.older, self.pool = segments, older, pool
        self.bound = int(received[segments.start:segments.stop].sum())  # at most this many
        self.fullest = 0  # the most new states of one segment so far
        self._reading = Lock()  # a Layer is read by one thread at a time

    def blocks(self):
        window = deque()
        for t in self.segments:
            if self.received[t]:
                window.append(self.pool.submit(self._segment, t))
                if len(window) == MERGE_WINDOW:
                    yield from self._oldest(window)
        while window:
            yield from self._oldest(window)

    def _oldest(self, window):
        found = window.popleft().result()
        self.fullest = max(self.fullest, sum(len(block) for block in found))
        return found

    def _segment(self, t):
        low, high = self.plan.segment_range(self.depth, t)
        groups = [(piece, t) for piece in self.pieces if piece.received[t]]
        with self._reading:
            known = [layer.ranks_between(low, high) for layer in self.older]
        return segment_of_layer(groups, int(self.received[t]), known, low, high,
                                self.plan.puzzle.key_words)
