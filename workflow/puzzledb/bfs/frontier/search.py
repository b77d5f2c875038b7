"""The frontier engine: breadth-first search as a chain of bounded jobs, for sharded builds
(config `shards:`) and for spaces no bitset holds (config `depth_limit:`).

Korf's frontier search with delayed duplicate detection.  The rank space (of each level, for
a graded puzzle) is cut into segments of consecutive ranks (plan.py).  Depth d becomes
depth d + 1 in two phases:

  expand  the neighbours of layer d, a share of it at a time (in pieces of at most
          PIECE_STATES states), grouped by the segment they fall in: one work file per
          piece, each group sorted, distinct and coded (expand.py, workfiles.py: about 1
          byte a neighbour on the 15-puzzle);
  merge   for each target segment, its group from every expanded piece, made distinct, minus
          the same segment of layers d and d - 1 (a reversible puzzle's neighbours of layer d
          lie in layers d - 1, d and d + 1; a bipartite one's in d - 1 and d + 1, so d - 1 is
          subtracted alone; a graded one's all in d + 1): its part of layer d + 1, as sorted
          ranks (merge.py, segment.py).  A dense segment goes through a bitset, a sparse one
          is sorted.

The merged segments in order are the sorted layer, written as layers/depth_NNN.h5 exactly as
the in-memory engine writes it, so every reader works unchanged.  A job holds the data of
one piece or one segment at a time: its memory is bounded whatever the layer widths.

A step (one job, step.py) writes one or more layers and its record, going on in-process
while the next depth needs one job only (dense.py: through one bitset of the whole level,
when that is dense and fits); a lost or damaged part of a layer is rebuilt alone
(repair.py).  Frontier, below, is the engine's face: the jobs the workflow runs (its rule
scripts, through the workflow adapter) and the whole chain in one process (build).
"""

from puzzledb.bfs.frontier.dense import DenseDepths
from puzzledb.bfs.frontier.expand import expand_part
from puzzledb.bfs.frontier.merge import merge_job
from puzzledb.bfs.frontier.plan import LIMIT, FrontierPlan
from puzzledb.bfs.frontier.repair import restore_parts, stored_layer
from puzzledb.bfs.frontier.step import Step
from puzzledb.bfs.memory import PROCESS_OVERHEAD_MB
from puzzledb.bfs.modes import FRONTIER


class Frontier:
    """The frontier search of one puzzle: its jobs' work, cut as its plan (FrontierPlan)
    says.  Arguments: those of FrontierPlan."""

    # bytes a step job may hold for the depths it searches in-process (None: no bound); a
    # depth whose merge would need more is handed to expand and merge jobs, whose need is
    # then computed exactly (FrontierPlan.merge_bytes)
    budget = None

    def __init__(self, puzzle, directory, work, segments, job_states, depth_limit=None):
        self.plan = FrontierPlan(puzzle, directory, work, segments, job_states, depth_limit)
        self.puzzle, self.store = puzzle, self.plan.store
        self.segments, self.depth_limit, self.work = segments, depth_limit, self.plan.work
        self.dense = DenseDepths(self.plan)  # its whole-layer expansion made once

    def within(self, mem_mb):
        """This search with its in-process depths bounded by a job's mem_mb."""
        self.budget = (mem_mb - PROCESS_OVERHEAD_MB) * 2**20
        return self

    # -- the jobs ------------------------------------------------------------------------------
    def expand(self, depth, part, parts, out, log=None):
        """An expand job: the neighbours of part `part` of `parts` equal parts of layer
        depth - 1, grouped by segment, as work files in directory `out` (expand.py)."""
        expand_part(self.plan, depth, part, parts, out, log=log)

    def merge(self, depth, part, parts, expanded, out, log=None):
        """A merge job: part `part` of `parts` of layer depth from the expanded pieces in
        the directories `expanded`, and its entry in directory `out` (merge.py)."""
        return merge_job(self.plan, depth, part, parts, expanded, out, log)

    def kernels(self):
        """What its jobs call, as (kernel, arguments) pairs: a step's, which declares the
        expand and merge jobs' too (`puzzledb compile`)."""
        return Step(self.plan, self.dense, self.budget).kernels()

    def step(self, first, merged=(), previous=None, log=print):
        """A step job: layer `first` (the goal layer, or gathered from the merged
        directories) and further depths in-process while each needs one job; its record,
        written last (step.py)."""
        return Step(self.plan, self.dense, self.budget).run(first, merged, previous, log)

    def finish(self, record, log=print):
        """The manifest of the database the records built; complete unless a depth limit
        stopped the search.  A part of a layer lost since (removed by `puzzledb verify
        --repair`, or by hand) is rebuilt alone first."""
        for info in record.layers:
            if info.parts is not None:
                restore_parts(self.plan, info.depth, log=log)
        for directory in self.work.glob("d*"):  # left empty by the work files' removal
            if directory.is_dir() and not any(directory.iterdir()):
                directory.rmdir()
        return self.store.write_manifest(
            record.layers, mode=FRONTIER, segments=self.segments,
            depth_limit=self.depth_limit if record.next == LIMIT else None)

    # -- in one process ----------------------------------------------------------------------
    def build(self, log=print):
        """The whole chain in this process, the jobs of a fanned-out depth one after the
        other, as the workflow would run them; the manifest.  (The workflow runs the same
        steps and jobs, in parallel and on a cluster if asked.)"""
        plan = self.plan
        record = self.step(0, log=log)
        while record.fans_out():
            depth, parts = record.last + 1, record.parts
            merged = []
            if stored_layer(plan, depth) is None:  # else left whole by a stopped build
                expanded = [plan.expand_dir(depth, p, parts) for p in range(parts)]
                for p in range(parts):
                    self.expand(depth, p, parts, expanded[p])
                merged = [plan.merge_dir(depth, q, parts) for q in range(parts)]
                for q in range(parts):
                    self.merge(depth, q, parts, expanded, merged[q])
            record = self.step(depth, merged, previous=record, log=log)
        return self.finish(record)
