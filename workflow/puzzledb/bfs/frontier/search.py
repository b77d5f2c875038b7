"""The frontier engine: breadth-first search as a chain of bounded jobs, for sharded builds
(config `shards:`) and for spaces no bitset holds (config `depth_limit:`).

Korf's frontier search with delayed duplicate detection.  The rank space (of each level, for
a graded puzzle) is cut into segments of consecutive ranks.  Depth d becomes depth d + 1 in
two phases:

  expand  the neighbours of layer d, a source segment at a time (in pieces of at most
          PIECE_STATES states), grouped by the segment they fall in: one work file per
          piece, each group sorted, distinct and coded (workfiles.py: about 1 byte a
          neighbour on the 15-puzzle);
  merge   for each target segment, its group from every expanded piece, made distinct, minus
          the same segment of layers d and d - 1 (a reversible puzzle's neighbours of layer d
          lie in layers d - 1, d and d + 1; a bipartite one's in d - 1 and d + 1, so d - 1 is
          subtracted alone; a graded one's all in d + 1): its part of layer d + 1, as sorted
          ranks.  A dense segment goes through a bitset, a sparse one is sorted.

The merged segments in order are the sorted layer, written as layers/depth_NNN.h5 exactly as
the in-memory engine writes it, so every reader works unchanged.  A job holds the data of
one piece or one segment at a time: its memory is bounded whatever the layer widths.

A step (one job) writes one or more layers: it gathers a fanned-out depth and then goes on
in-process while the next depth needs one job only (through one bitset of the whole level,
without work files, when that is dense and fits the job's memory); a depth whose layer is
larger than job_states times one fans out into expand and merge jobs, `parts` of each, each
part a range of segments.  The step's record (frontier/step_NNN.json, NNN its first depth)
says what comes next; the workflow (workflow/rules/frontier.smk) follows the records.
"""

import json
import shutil
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from threading import Lock
from functools import cached_property
from pathlib import Path

import numpy as np

from puzzledb.bfs import bitset
from puzzledb import paths, puzzles
from puzzledb.compiled import concurrent_parallel_kernels, set_threads
from puzzledb.store.files import make_directory, write_text
from puzzledb.bfs.frontier.kernels import group_by_segment, layer_neighbours, mark_neighbours
from puzzledb.bfs.select import FRONTIER
from puzzledb.bfs.frontier.plan import DONE, FANOUT, LIMIT, FrontierPlan, StepRecord
from puzzledb.bfs.frontier.segment import segment_of_layer
from puzzledb.bfs.frontier.workfiles import WORK_SUFFIX, write_piece
from puzzledb.bfs.memory import (
    DENSE_RATIO,
    MERGE_WINDOW,
    PIECE_STATES,
    PROCESS_OVERHEAD_MB,
    dense_depth_bytes,
    search_mib,
)
from puzzledb.store.layers import LayerError
from puzzledb.store.parts import PartedLayer, PartError


class Frontier:
    """The frontier search of one puzzle: its jobs' work, cut as its plan (FrontierPlan)
    says.  Arguments: those of FrontierPlan."""

    # bytes a step job may hold for the depths it searches in-process (None: no bound); a
    # depth whose merge would need more is handed to expand and merge jobs, whose need is
    # then computed exactly (merge_bytes)
    budget = None
    # (depth, its bitset, the layer's move parity, its count): what a dense depth leaves
    # for the next one (_dense_depth)
    _held = None

    def __init__(self, puzzle, directory, work, segments, job_states, depth_limit=None):
        self.plan = FrontierPlan(puzzle, directory, work, segments, job_states, depth_limit)
        self.puzzle, self.store = puzzle, self.plan.store
        self.segments, self.depth_limit, self.work = segments, depth_limit, self.plan.work

    @cached_property
    def _expansion(self):
        """The puzzle's whole-layer expansion (Puzzle.layer_expansion), whose mark a dense
        depth uses instead of the neighbours kernel; asked for only then (its units span the
        whole space)."""
        return self.puzzle.layer_expansion()

    @classmethod
    def for_rule(cls, snakemake):
        """The search a frontier_* rule's job works on (scripts/frontier_*.py), with the
        job's threads in use."""
        set_threads(snakemake.threads)
        name, results = snakemake.wildcards.puzzle, snakemake.config["results"]
        return cls(puzzles.get(name), paths.layers(results, name),
                   paths.frontier_work(results, name), job_states=snakemake.config["job_states"],
                   **snakemake.params.plan)

    def within(self, mem_mb):
        """This search with its in-process depths bounded by a job's mem_mb."""
        self.budget = (mem_mb - PROCESS_OVERHEAD_MB) * 2**20
        return self

    # -- the two phases ------------------------------------------------------------------------
    def expand(self, depth, part, parts, out, keep=None, log=None):
        """The neighbours of part `part` of `parts` equal parts of layer depth - 1 (by
        position), grouped by the segment of depth they fall in: a file for each piece of
        PIECE_STATES states, and its offsets, in directory `out`.  keep: only the neighbours
        in that range of segments (the rebuild of one part, rebuild_part)."""
        out = Path(out)
        make_directory(out)
        puzzle, source = self.puzzle, depth - 1
        tables, moves, work = puzzle.tables(), max(puzzle.max_moves, 1), max(puzzle.work_size, 1)
        cuts = self.plan.cuts(depth)
        lookup, shift = self.plan.segment_lookup(depth)
        states = neighbours = written = 0
        # the next piece is read and the last one's work file written (sorted, coded: one
        # thread) each in a thread of its own while a piece's neighbours are found
        reader, writer, writing = ThreadPoolExecutor(1), ThreadPoolExecutor(1), None
        with self.store.open_layer(source) as layer, reader, writer:
            positions = self.plan.share(layer.count, part, parts)
            firsts = range(positions.start, positions.stop, PIECE_STATES)

            def read(k):  # the reader's thread alone uses the layer meanwhile
                first = firsts[k]
                return layer.ranks(first, min(positions.stop, first + PIECE_STATES))

            reading = reader.submit(read, 0) if firsts else None
            for k in range(len(firsts)):
                piece = reading.result()
                if k + 1 < len(firsts):
                    reading = reader.submit(read, k + 1)
                found = np.empty(piece.size * moves, dtype=np.int64)
                counts = np.empty(piece.size, dtype=np.int64)
                layer_neighbours(piece, np.int64(self.plan.level(source)), tables, moves, work,
                                 found, counts)
                grouped = np.empty(int(counts.sum()), dtype=np.uint64)
                offsets = np.empty(cuts.size, dtype=np.int64)
                group_by_segment(found, counts, moves, cuts, lookup, shift, grouped, offsets)
                del found
                if keep is not None:
                    start, stop = offsets[keep.start], offsets[keep.stop]
                    grouped = grouped[start:stop]
                    offsets = np.clip(offsets - start, 0, stop - start)
                neighbours += grouped.size
                if writing is not None:
                    written += writing.result()
                writing = writer.submit(write_piece, out / f"x{part:05d}.{k:05d}{WORK_SUFFIX}",
                                        grouped, offsets, cuts)
                states += piece.size
            if writing is not None:
                written += writing.result()
        if log is not None:
            log(f"{puzzle.name}: depth {depth}, part {part} of {parts}: {states:,} states "
                f"expanded into {neighbours:,} neighbours, {written:,} bytes of work files")

    def merge(self, depth, part, parts, expanded, out, log=None):
        """Layer depth's segments of part `part` of `parts` (cut by the neighbours each
        segment receives), from the expanded pieces in the directories `expanded`: the
        layer's part file (store.parts), and its entry (part.json) in directory `out`."""
        pieces, received = self.plan._received(depth, expanded)
        segments = self.plan.balanced(received, part, parts)
        entry = self._merge_part(depth, part, parts, pieces, received, segments, log)
        write_text(Path(out) / "part.json", json.dumps(entry) + "\n")
        return entry

    def _merge_part(self, depth, part, parts, pieces, received, segments, log=None,
                    whole=False):
        """Merge the segments (a range) of depth from the expanded pieces into part `part`
        of `parts` of the layer (its write_part entry); whole: into the layer's own file
        (parts is 1), its LayerInfo, or None when it is empty."""
        older = self.plan._older(depth)
        fullest = 0

        reading = Lock()  # a Layer is read by one thread at a time

        def merge_segment(t):
            low, high = self.plan.segment_range(depth, t)
            groups = [(piece, t) for piece in pieces if piece.received[t]]
            with reading:
                known = [layer.ranks_between(low, high) for layer in older]
            return segment_of_layer(groups, int(received[t]), known, low, high)

        def blocks():
            # MERGE_WINDOW segments merged at once in as many threads (the kernels run
            # without the GIL), taken in order while the writer compresses the one before
            window = deque()

            def oldest():
                nonlocal fullest
                found = window.popleft().result()
                fullest = max(fullest, sum(b.size for b in found))
                return found

            for t in segments:
                if received[t]:
                    window.append(pool.submit(merge_segment, t))
                    if len(window) == MERGE_WINDOW:
                        yield from oldest()
            while window:
                yield from oldest()

        bound = int(received[segments.start:segments.stop].sum())
        pool = ThreadPoolExecutor(MERGE_WINDOW if concurrent_parallel_kernels() else 1)
        try:
            if whole:
                info = self.store.write_layer(depth, blocks(), bound, exact=False)
                if info.count == 0:
                    self.store.remove(depth)
                    return None
                return info
            cuts = self.plan.cuts(depth)  # the part's ranks: its segments' (none: empty)
            entry = self.store.write_part(depth, part, parts, blocks(), bound,
                                          cuts[segments.start], cuts[segments.stop], segments)
        finally:
            pool.shutdown(cancel_futures=True)
            for layer in older:
                layer.close()
        if log is not None:
            log(f"{self.puzzle.name}: depth {depth}, part {part} of {parts}: {bound:,} "
                f"neighbours received in {len(segments)} segments, {entry['count']:,} new "
                f"states (its fullest segment {fullest:,}), part file {entry['bytes']:,} bytes")
        return entry

    def write(self, depth, merged):
        """Layer `depth` as the map of the parts the merge jobs wrote (their entries in the
        directories `merged`): its LayerInfo, or None when it is empty (and nothing is kept)."""
        entries = [json.loads((Path(directory) / "part.json").read_text())
                   for directory in merged]
        if sum(e["count"] for e in entries) == 0:
            self.store.remove(depth)
            return None
        return self.store.write_parted(depth, entries)

    def rebuild_part(self, depth, part, log=print):
        """Part `part` of stored layer `depth` written again alone, as its merge job wrote it:
        layer depth - 1 expanded whole, only the neighbours in the part's segments kept.  The
        rebuilt part must be the one the layer's map lists (count and CRC-32)."""
        with self.store.open_layer(depth) as layer:
            parts = layer.parts
            segments = range(int(layer.segments[part]), int(layer.segments[part + 1]))
            count, crc = layer.part_count(part), int(layer.part_crc32[part])
        log(f"{self.puzzle.name}: depth {depth}: rebuilding part {part} of {parts} "
            f"({count:,} states)")
        scratch = self.work / f"d{depth:03d}" / f"rebuild_{part}of{parts}"
        shutil.rmtree(scratch, ignore_errors=True)
        try:
            self.expand(depth, 0, 1, scratch, keep=segments)
            pieces, received = self.plan._received(depth, [scratch])
            entry = self._merge_part(depth, part, parts, pieces, received, segments)
        finally:
            shutil.rmtree(scratch.parent, ignore_errors=True)
        if (entry["count"], entry["crc32"]) != (count, crc):
            raise LayerError(f"{self.puzzle.name}: part {part} of layer {depth} rebuilt with "
                             f"{entry['count']:,} states and CRC-32 {entry['crc32']:08x}, its "
                             f"layer lists {count:,} and {crc:08x}: the layers before it are "
                             f"not those it was built from", depth)

    def restore_parts(self, depth, bad=(), log=print):
        """Rebuild alone each part of stored layer `depth` that is missing or is not the
        part its map lists, and the parts `bad` (a layer in one file: nothing to do).  A
        rebuilt part replaces the file atomically."""
        with self.store.open_layer(depth) as layer:
            if not isinstance(layer, PartedLayer):
                return
            lost = set(bad)
            for q in range(layer.parts):
                try:
                    layer.part(q)
                except PartError:
                    lost.add(q)
        for q in sorted(lost):
            self.rebuild_part(depth, q, log)

    # -- a step ------------------------------------------------------------------------------
    def step(self, first, merged=(), previous=None, log=print):
        """Write layer `first` (the goal layer, or a fanned-out depth gathered from the
        merged directories), then further depths in-process while each needs one job.  The
        record of the step is written last and returned."""
        layers = [] if previous is None else list(previous.layers)
        if len(layers) != first:
            raise LayerError(f"{self.puzzle.name}: step {first} follows a record of "
                             f"{len(layers)} layers")
        started = time.perf_counter()
        if first == 0:
            limit = ("no depth limit" if self.depth_limit is None
                     else f"depth limit {self.depth_limit}")
            log(f"{self.puzzle.name}: frontier mode (sorted layers), {self.segments} segments, "
                f"{limit}; the in-memory mode would need {search_mib(self.puzzle):,.1f} MiB")
        info = self._stored(first)
        if info is None:
            if first == 0:
                goals = np.unique(self.puzzle.goal_ranks().astype(np.uint64))
                info = self.store.write_layer(0, [goals], goals.size)
            else:
                info = self.write(first, merged)
        following = DONE if info is None else None
        if info is not None:
            layers.append(info)
            log(f"{self.puzzle.name}: depth {first}: {info.count:,} states, "
                f"{time.perf_counter() - started:.2f} s")
        parts = 1
        while following is None:
            depth = layers[-1].depth
            parts = self.plan.fan_out(layers[-1].count)
            if self.depth_limit is not None and depth >= self.depth_limit:
                following = LIMIT
            elif parts > 1:
                following = FANOUT
            else:
                info = (self._stored(depth + 1)
                        or self._in_process(depth + 1, layers[-1].count, log))
                if info is None:
                    following = DONE
                elif info is _HANDED_ON:
                    following = FANOUT
                else:
                    layers.append(info)
                    log(f"{self.puzzle.name}: depth {info.depth}: {info.count:,} states, "
                        f"{time.perf_counter() - started:.2f} s")
        record = StepRecord(self.puzzle.name, self.puzzle.definition_hash(), first,
                            layers[-1].depth if layers else first - 1, layers, following,
                            parts if following == FANOUT else 0, self.segments,
                            self.depth_limit)
        write_text(self.plan.record_path(first), record.to_json())
        self._held = None
        if first > 0:
            # the work files of depth `first` have served: removed here, not left to
            # Snakemake, which keeps temp() files upstream of a checkpoint until every
            # checkpoint of the run is done (snakemake issue 2982): all the depths' work
            # files at once, 61 GB for the 15-puzzle's layers 0..32.  Also when the layer
            # was found whole, left by a build stopped before this record was written.
            shutil.rmtree(self.work / f"d{first:03d}", ignore_errors=True)
        return record

    def _in_process(self, depth, source_count, log):
        """One depth in this process (layer depth - 1 holds source_count states): its
        LayerInfo, None if empty, _HANDED_ON if its merge would need more than the budget.
        Through one bitset of the whole level when that is dense and fits (_dense_depth),
        else by both phases through work files."""
        if self._dense(depth, source_count):
            return self._dense_depth(depth)
        self._held = None
        scratch = self.work / f"d{depth:03d}" / "in-process"
        shutil.rmtree(scratch, ignore_errors=True)
        try:
            self.expand(depth, 0, 1, scratch / "expand")
            if self.budget is not None:
                need = self.plan.merge_bytes(depth, 0, 1, [scratch / "expand"])
                if need > self.budget:
                    log(f"{self.puzzle.name}: depth {depth}: its largest segment needs "
                        f"{need / 2**20:,.1f} MiB, more than this job's "
                        f"{self.budget / 2**20:,.1f} MiB: handed on to a merge job")
                    return _HANDED_ON
            pieces, received = self.plan._received(depth, [scratch / "expand"])
            return self._merge_part(depth, 0, 1, pieces, received,
                                    range(self.plan.segment_count(depth)), whole=True)
        finally:
            shutil.rmtree(scratch.parent, ignore_errors=True)

    def _dense(self, depth, source_count):
        """Whether depth goes through one bitset of its whole level: when the bitset is no
        larger than DENSE_RATIO bits per neighbour of layer depth - 1 (what a sort of them
        would hold, see merge) and it fits the budget."""
        size = self.puzzle.level_size(self.plan.level(depth))
        neighbours = source_count * max(self.puzzle.max_moves, 1)
        need = dense_depth_bytes(size, self.puzzle.expansion_bytes())
        return size <= DENSE_RATIO * neighbours and (self.budget is None or need <= self.budget)

    def _dense_depth(self, depth):
        """Layer depth through a bitset of its whole level: the neighbours of layer
        depth - 1 set in it a piece at a time, the older layers cleared, the rest written.
        No work files: dense_depth_bytes of memory.

        When the states of one move parity are whole runs of ranks (_parity_runs), the
        bitset also keeps layer depth - 1, in the runs of the other parity, and is kept for
        the next depth, which then reads its source layer from it instead of from disk."""
        puzzle, source = self.puzzle, depth - 1
        level = np.int64(self.plan.level(source))
        held, self._held = self._held, None
        if self._parity_runs is not None and held is not None and held[0] == source:
            _, bits, parity, source_count = held
            for piece in self._ranks_of_parity(bits, parity):
                self._mark(piece, level, bits)
        else:
            del held  # before the new bitset
            bits = bitset.new_bitset(puzzle.level_size(self.plan.level(depth)))
            parity = source_count = None
            with self.store.open_layer(source) as layer:
                for first in range(0, layer.count, PIECE_STATES):
                    piece = layer.ranks(first, min(layer.count, first + PIECE_STATES))
                    self._mark(piece, level, bits)
                    if self._parity_runs is not None:  # layer source kept beside
                        bitset.set_ranks(bits, piece, 0)
                if self._parity_runs is not None and layer.count:
                    parity = int(puzzle.move_parity(piece[:1])[0])
                    source_count = layer.count
        older = self.plan._older(depth)
        try:
            for layer in older:
                for block in layer.iter_chunks(PIECE_STATES):
                    bitset.clear_ranks(bits, block, 0)
        finally:
            for layer in older:
                layer.close()
        if parity is None:
            count = int(bitset.count(bits))
            return self.store.write_layer(depth, bitset.iter_ranks(bits), count) if count else None
        count = int(bitset.count(bits)) - source_count
        if not count:
            return None
        info = self.store.write_layer(depth, self._ranks_of_parity(bits, 1 - parity), count)
        self._held = (depth, bits, 1 - parity, count)
        return info

    def _mark(self, piece, level, bits):
        """Set in bits the neighbours of the ascending ranks of piece: through the puzzle's
        layer expansion if it has one, else its neighbours kernel."""
        if self._expansion is None:
            puzzle = self.puzzle
            mark_neighbours(piece, level, puzzle.tables(), max(puzzle.max_moves, 1),
                            max(puzzle.work_size, 1), bits)
        else:
            self._expansion.mark(piece, level, bits)

    @cached_property
    def _parity_runs(self):
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
        starts, stops, parities = self._parity_runs
        for low, high in zip(starts[parities == parity], stops[parities == parity]):
            yield from bitset.iter_ranks(bits, low=int(low), high=int(high))

    def _stored(self, depth):
        """The LayerInfo of layer `depth` when a whole, verified copy is on disk (left by a
        step that was stopped), else None (and a damaged copy is removed).  A layer written
        in parts whose part is lost or damaged has that part rebuilt alone."""
        if not self.store.path(depth).exists():
            return None
        try:
            self.restore_parts(depth)
            try:
                return self.store.check_layer(depth)
            except PartError as err:  # a part whose data does not read back whole
                self.restore_parts(depth, bad=[err.part])
                return self.store.check_layer(depth)
        except LayerError:
            self.store.remove(depth)
            return None

    def build(self, log=print):
        """The whole chain in this process, the jobs of a fanned-out depth one after the
        other, as the workflow would run them; the manifest.  (The workflow runs the same
        steps and jobs, in parallel and on a cluster if asked.)"""
        record = self.step(0, log=log)
        while record.fans_out():
            depth, parts = record.last + 1, record.parts
            merged = []
            if self._stored(depth) is None:  # else left whole by a build that was stopped
                for p in range(parts):
                    self.expand(depth, p, parts, self.plan.expand_dir(depth, p, parts))
                merged = [self.plan.merge_dir(depth, q, parts) for q in range(parts)]
                for q in range(parts):
                    self.merge(depth, q, parts, [self.plan.expand_dir(depth, p, parts)
                                                 for p in range(parts)], merged[q])
            record = self.step(depth, merged, previous=record, log=log)
        return self.finish(record)

    def finish(self, record, log=print):
        """The manifest of the database the records built; complete unless a depth limit
        stopped the search.  A part of a layer lost since (removed by `puzzledb verify
        --repair`, or by hand) is rebuilt alone first."""
        for info in record.layers:
            if info.parts is not None:
                self.restore_parts(info.depth, log=log)
        for directory in self.work.glob("d*"):  # left empty by the work files' removal
            if directory.is_dir() and not any(directory.iterdir()):
                directory.rmdir()
        return self.store.write_manifest(
            record.layers, mode=FRONTIER, segments=self.segments,
            depth_limit=self.depth_limit if record.next == LIMIT else None)


_HANDED_ON = "handed on"  # what _in_process returns for a depth left to expand/merge jobs
