"""A step of the frontier search (one job): it writes one or more layers, then its record.
It takes up the layer it starts at (the goal layer, or a fanned-out depth gathered from
its merge jobs' parts), then goes on in-process while the next depth needs one job only:
through one bitset of the whole level when that is dense and fits the job's memory
(dense.py), else through both phases and work files in a scratch directory; a depth whose
merge would need more than the job's memory is handed on to an expand and a merge job.
The record (frontier/step_NNN.json) says what comes next; the workflow follows it."""

import shutil
import time
from dataclasses import dataclass

from puzzledb import keys
from puzzledb.bfs.frontier.expand import SegmentGrouping, expand_part
from puzzledb.bfs.frontier.merge import gather_layer, merge_kernels, merge_layer, open_pieces
from puzzledb.bfs.frontier.plan import DONE, FANOUT, LIMIT, StepRecord
from puzzledb.bfs.frontier.repair import stored_layer
from puzzledb.bfs.memory import search_bytes
from puzzledb.compiled import prepare
from puzzledb.store.files import write_text
from puzzledb.errors import LayerError
from puzzledb.store.directory import LayerInfo


@dataclass(frozen=True)
class InProcessDepth:
    """What a depth done in-process gave: its layer (None: it is empty, the search is
    over), or handed_on: its merge needs more than the job's memory, so an expand and a
    merge job do it."""

    layer: LayerInfo | None = None
    handed_on: bool = False


class Step:
    """One step of a search: plan (its FrontierPlan), dense (its DenseDepths, whose kept
    level this step releases when it ends) and budget (the bytes the job may hold for the
    depths it does in-process; None: no bound)."""

    def __init__(self, plan, dense, budget=None):
        self.plan, self.dense, self.budget = plan, dense, budget
        self.puzzle = plan.puzzle

    def run(self, first, merged=(), previous=None, log=print):
        """Write layer `first` (the goal layer, or a fanned-out depth gathered from the
        merged directories), then further depths in-process while each needs one job.  The
        record of the step is written last and returned."""
        layers = [] if previous is None else list(previous.layers)
        if len(layers) != first:
            raise LayerError(f"{self.puzzle.name}: step {first} follows a record of "
                             f"{len(layers)} layers")
        if first == 0:
            self._log_mode(log)
        self._load_kernels(log)
        started = time.perf_counter()
        info = self._first_layer(first, merged)
        following, parts = DONE, 0
        if info is not None:
            layers.append(info)
            self._log_layer(info, started, log)
            following, parts = self._go_on(layers, started, log)
        plan = self.plan
        record = StepRecord(self.puzzle.name, self.puzzle.definition_hash(), first,
                            layers[-1].depth if layers else first - 1, layers, following,
                            parts, plan.segments, plan.depth_limit)
        write_text(plan.record_path(first), record.to_json())
        self.dense.release()
        if first > 0:
            # the work files of depth `first` have served: removed here, not left to
            # Snakemake, which keeps temp() files upstream of a checkpoint until every
            # checkpoint of the run is done (snakemake issue 2982): all the depths' work
            # files at once, 61 GB for the 15-puzzle's layers 0..32.  Also when the layer
            # was found whole, left by a build stopped before this record was written.
            shutil.rmtree(plan.depth_work(first), ignore_errors=True)
        return record

    def kernels(self):
        """What this step's depths may call (a dense depth's marking, or both phases through
        work files), as (kernel, arguments) pairs: those of the expand and merge jobs too."""
        return (self.dense.kernels(self.budget) + SegmentGrouping.kernels(self.puzzle)
                + merge_kernels(self.puzzle))

    def _load_kernels(self, log):
        """Load, or compile, what this step's depths may call, before its clock starts,
        saying so: a first use of a family compiles for a while."""
        began = time.perf_counter()
        kernels, compiled = prepare(self.kernels())
        log(f"{self.puzzle.name}: {kernels} kernels of the frontier search ready in "
            f"{time.perf_counter() - began:.2f} s ({compiled} compiled)")

    def _first_layer(self, first, merged):
        """Layer `first`'s LayerInfo (None: empty): on disk already, or the goal layer, or
        gathered from the parts of its merge jobs."""
        info = stored_layer(self.plan, first)
        if info is not None:
            return info
        if first == 0:
            goals = keys.unique(keys.key_array(self.puzzle.goal_ranks(), self.puzzle.key_words))
            return self.plan.store.write_layer(0, [goals], len(goals))
        return gather_layer(self.plan.store, first, merged)

    def _go_on(self, layers, started, log):
        """Depths in-process after the last of `layers` (appended to it) while each needs
        one job: (what comes next, FANOUT, DONE or LIMIT; the expand and merge jobs of a
        fan-out)."""
        plan = self.plan
        while True:
            last = layers[-1]
            if plan.depth_limit is not None and last.depth >= plan.depth_limit:
                return LIMIT, 0
            parts = plan.fan_out(last.count)
            if parts > 1:
                return FANOUT, parts
            done = self._in_process(last.depth + 1, last.count, log)
            if done.handed_on:
                return FANOUT, parts
            if done.layer is None:
                return DONE, 0
            layers.append(done.layer)
            self._log_layer(done.layer, started, log)

    def _in_process(self, depth, source_count, log):
        """One depth in this process (layer depth - 1 holds source_count states), an
        InProcessDepth: on disk already, or through one bitset of the whole level when that
        is dense and fits, else by both phases through work files."""
        stored = stored_layer(self.plan, depth)
        if stored is not None:
            return InProcessDepth(stored)
        if self.dense.fits(depth, source_count, self.budget):
            return InProcessDepth(self.dense.write(depth))
        self.dense.release()
        return self._through_work_files(depth, log)

    def _through_work_files(self, depth, log):
        plan = self.plan
        scratch = plan.depth_work(depth) / "in-process"
        expanded = scratch / "expand"
        shutil.rmtree(scratch, ignore_errors=True)
        try:
            expand_part(plan, depth, 0, 1, expanded)
            if self.budget is not None:
                need = plan.merge_bytes(depth, 0, 1, [expanded])
                if need > self.budget:
                    log(f"{self.puzzle.name}: depth {depth}: its largest segment needs "
                        f"{need / 2**20:,.1f} MiB, more than this job's "
                        f"{self.budget / 2**20:,.1f} MiB: handed on to a merge job")
                    return InProcessDepth(handed_on=True)
            pieces = open_pieces([expanded])
            return InProcessDepth(merge_layer(plan, depth, pieces,
                                              plan.received(depth, pieces)))
        finally:
            shutil.rmtree(scratch.parent, ignore_errors=True)

    def _log_mode(self, log):
        plan = self.plan
        limit = ("no depth limit" if plan.depth_limit is None
                 else f"depth limit {plan.depth_limit}")
        words = self.puzzle.key_words  # a rank space past a word may pass a float's range
        other = (f"the in-memory mode would need {search_bytes(self.puzzle) / 2**20:,.1f} MiB"
                 if words == 1 else f"keys of {words} words: no in-memory mode")
        log(f"{self.puzzle.name}: frontier mode (sorted layers), {plan.segments} segments, "
            f"{limit}; {other}")

    def _log_layer(self, info, started, log):
        states = f"{info.count:,} states" if info.positions is None else \
            f"{info.positions:,} positions in {info.count:,} classes"
        log(f"{self.puzzle.name}: depth {info.depth}: {states}, "
            f"{time.perf_counter() - started:.2f} s")
