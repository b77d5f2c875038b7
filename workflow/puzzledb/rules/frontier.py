"""The adapter of rules/frontier.smk: which puzzles the frontier search builds, the chain of
its step records (Snakemake checkpoints) that says which expand, merge and step jobs come
next, their inputs, and what each job needs in mem_mb (bfs/memory.py's arithmetic)."""

import os

from puzzledb import paths, puzzles
from puzzledb.bfs.frontier.plan import FrontierPlan, StepRecord
from puzzledb.bfs.memory import frontier_job_mb, mb_of
from puzzledb.bfs.modes import FRONTIER
from puzzledb.errors import LayerError
from puzzledb.rules.common import puzzles_built


class FrontierRules:
    """The frontier rules' view of a checked config and its search plans; `checkpoints` is
    Snakemake's object, for the step records."""

    def __init__(self, config, plans, checkpoints):
        self.config, self.plans, self.checkpoints = config, plans, checkpoints
        self.results = config["results"]
        self._frontier_plans = {}  # puzzle -> FrontierPlan (frontier_plan)

    def puzzles(self):
        """The wildcard constraint of the rule writing the manifest: the puzzles the
        frontier search builds."""
        return puzzles_built(self.plans, FRONTIER)

    def search_plan(self, wildcards):
        """The puzzle's search plan (config.search_plan's), a frontier job's params.plan."""
        return self.plans[wildcards.puzzle]

    def frontier_plan(self, puzzle):
        """The puzzle's FrontierPlan, one for the run: it keeps each depth's segment cuts,
        read from a layer file once, not again for every merge job's mem_mb."""
        if puzzle not in self._frontier_plans:
            plan = self.plans[puzzle]
            self._frontier_plans[puzzle] = FrontierPlan(
                plan.searched(puzzles.get(puzzle)), paths.layers(self.results, puzzle),
                paths.frontier_work(self.results, puzzle), plan.segments, plan.job_states,
                plan.depth_limit)
        return self._frontier_plans[puzzle]

    # -- the chain of step records ----------------------------------------------------------
    def records(self, puzzle):
        """(path, StepRecord) of each step of the puzzle's chain, in order, to the last that
        does not fan out.  A step that has not run yet stops the walk inside Snakemake (its
        checkpoint), which walks again once it has."""
        first = 0
        while True:
            path = self.checkpoints.frontier_step.get(puzzle=puzzle,
                                                      first=f"{first:03d}").output[0]
            record = StepRecord.read(path)
            yield path, record
            if not record.fans_out():
                return
            first = record.last + 1

    def record_before(self, puzzle, depth):
        """(path, StepRecord) of the step that ends at depth - 1."""
        for path, record in self.records(puzzle):
            if record.last + 1 >= depth:
                return path, record
        raise LayerError(f"{puzzle}: its step records end at depth {record.last}, before "
                         f"depth {depth}")

    def final_record(self, wildcards):
        """The record of the chain's last step: the manifest's input."""
        for path, _ in self.records(wildcards.puzzle):
            pass
        return path

    def previous_record(self, wildcards):
        return self.record_before(wildcards.puzzle, int(wildcards.depth))[0]

    def step_input(self, wildcards):
        """A step's input: none for the first; the record before it and the directories of
        the merge jobs of its first depth for the others."""
        first = int(wildcards.first)
        if first == 0:
            return {}
        path, record = self.record_before(wildcards.puzzle, first)
        plan = self.frontier_plan(wildcards.puzzle)
        return {"previous": path,
                "merged": [str(plan.merge_dir(first, q, record.parts))
                           for q in range(record.parts)]}

    def expanded(self, wildcards):
        """A merge job's input: the directories of every expand job of its depth."""
        plan, parts = self.frontier_plan(wildcards.puzzle), int(wildcards.parts)
        return [str(plan.expand_dir(int(wildcards.depth), p, parts)) for p in range(parts)]

    # -- what the jobs need -------------------------------------------------------------------
    def layer_before_mb(self, wildcards):
        """mem_mb of a job working on the layer before wildcards.depth."""
        _, record = self.record_before(wildcards.puzzle, int(wildcards.depth))
        return self._job_mb(wildcards.puzzle, record.layers[-1].count)

    def merge_mb(self, wildcards, input):
        """mem_mb of a merge job: computed from what its segments received once the expand
        jobs have run (Snakemake evaluates a job's resources again when its input is there),
        the estimate before."""
        if not all(os.path.isdir(d) for d in input.expanded):
            return self.layer_before_mb(wildcards)
        plan = self.frontier_plan(wildcards.puzzle)
        return mb_of(plan.merge_bytes(int(wildcards.depth), int(wildcards.part),
                                      int(wildcards.parts), input.expanded))

    def step_mb(self, wildcards):
        """mem_mb of a step job: the estimate for a layer of job_states states, or of the
        layer before its first depth when that is larger."""
        states = self.plans[wildcards.puzzle].job_states
        if int(wildcards.first) > 0:
            _, record = self.record_before(wildcards.puzzle, int(wildcards.first))
            states = max(states, record.layers[-1].count)
        return self._job_mb(wildcards.puzzle, states)

    def _job_mb(self, puzzle, count):
        """mem_mb of a frontier job of the puzzle on a layer of `count` states."""
        return frontier_job_mb(puzzles.get(puzzle), count, self.plans[puzzle].segments)
