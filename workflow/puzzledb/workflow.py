"""The Snakemake adapter, in one module: what the rules ask of the library (which files the
default target builds, which search builds each puzzle, what a job needs in threads and
mem_mb, which step records a frontier rule reads) and how a rule's script runs as a job.
The process tricks it uses are process.py's.
"""

import os
import sys
from contextlib import contextmanager

from puzzledb import paths, puzzles
from puzzledb.bfs import select
from puzzledb.bfs.frontier.plan import FrontierPlan, StepRecord
from puzzledb.bfs.memory import frontier_job_mb, job_mb, mb_of
from puzzledb.config import define_puzzles, search_plans
from puzzledb.errors import PuzzledbError, one_line
from puzzledb.process import exit_now
from puzzledb.solvers.memory import pattern_build_seconds, pattern_job_mb
from puzzledb.store import LAYERS

# A search of fewer states than this runs on one thread whatever config `threads` says: its
# BFS takes well under a second, a second thread would save a fraction of that, and the
# core it would hold lets Snakemake start another puzzle's job instead.
ONE_THREAD_STATES = 1 << 25

PUZZLE_NAME = r"[a-z0-9][a-z0-9-]*"  # a puzzle's (or a query set's) name, as a wildcard


class Workflow:
    """The workflow's view of a checked config: its rules' inputs, search modes and
    resources.  `checkpoints` is Snakemake's object, for the frontier's step records."""

    def __init__(self, config, checkpoints):
        self.config = config
        self.results = config["results"]
        self.checkpoints = checkpoints
        self.plans = search_plans(config)
        self._frontier_plans = {}  # puzzle -> FrontierPlan (frontier_plan)

    # -- what is built ------------------------------------------------------------------------
    def symmetric_puzzles(self):
        """The puzzles whose layers are counted up to symmetry (a layer store's: the others
        keep no layers to count)."""
        return [p for p in self.config["puzzles"]
                if puzzles.get(p).symmetries() and self.plans[p].store == LAYERS]

    def all_outputs(self):
        """The files of the default target."""
        results = self.results
        outputs = [paths.report(results)]
        for puzzle in self.config["puzzles"]:
            outputs += [paths.summary(results, puzzle), paths.antipodes(results, puzzle),
                        paths.depth_plot(results, puzzle)]
        outputs += [paths.symmetry_summary(results, p) for p in self.symmetric_puzzles()]
        if self.config["verify"]:
            outputs += [paths.verified(results, p) for p in self.config["puzzles"]]
        for entry in self.config["problem_sets"]:
            outputs += self.problem_files(entry)
        return outputs

    def problem_files(self, entry):
        """The distribution table and the problem file of one problem set."""
        where = (self.results, entry["puzzle"], entry["queries"], entry["k"])
        return [paths.problem_distribution(*where), paths.problem_file(*where)]

    def pdb_outputs(self):
        """The manifest of every partition in config `pdbs` (target pdbs)."""
        return [f"{paths.pattern_databases(self.results, puzzle, partition)}/{paths.MANIFEST}"
                for puzzle, partitions in self.config["pdbs"].items()
                for partition in partitions]

    def pdb_tables(self, wildcards):
        """The table files of one partition."""
        partition = puzzles.get(wildcards.puzzle).additive_partition(wildcards.partition)
        return [paths.pattern_table(self.results, wildcards.puzzle, wildcards.partition, label)
                for label in partition.labels]

    # -- which rules build a puzzle: the answer of bfs.select, read, never derived again ----
    def puzzles_built(self, mode):
        """A wildcard pattern for the puzzles whose layers the rules of `mode` (a bfs.select
        mode) build.  The in-memory rule also takes any name no other mode has, so that a
        puzzle not in the config can still be asked for by file name."""
        if mode == select.IN_MEMORY:
            others = [name for name, plan in self.plans.items() if plan.mode != mode]
            if not others:
                return PUZZLE_NAME
            return rf"(?!(?:{'|'.join(others)})(?![a-z0-9-])){PUZZLE_NAME}"
        names = [name for name, plan in self.plans.items() if plan.mode == mode]
        return "|".join(names) if names else "(?!)"

    # -- the in-memory build ------------------------------------------------------------------
    def build_mem_mb(self, wildcards):
        return job_mb(puzzles.get(wildcards.puzzle), self.store(wildcards))

    def build_threads(self, wildcards):
        small = puzzles.get(wildcards.puzzle).size < ONE_THREAD_STATES
        return 1 if small else self.config["threads"]

    def depth_limit(self, wildcards):
        return self.config["depth_limit"].get(wildcards.puzzle)

    def store(self, wildcards):
        """What the build keeps (config `store:`, store.LAYERS by default)."""
        return self.config["store"].get(wildcards.puzzle, LAYERS)

    def pdb_build_mem_mb(self, wildcards):
        """mem_mb of the job building one additive pattern database table."""
        part = puzzles.get(wildcards.puzzle).additive_partition(wildcards.partition)
        return pattern_job_mb(part.width * part.height, len(wildcards.tiles))

    def pdb_build_minutes(self, wildcards):
        """runtime (minutes) of the job building one table: pattern_build_seconds' estimate
        for config `threads`, so that `snakemake -n` shows it before the build starts."""
        part = puzzles.get(wildcards.puzzle).additive_partition(wildcards.partition)
        seconds = pattern_build_seconds(part.width * part.height, len(wildcards.tiles),
                                        self.config["threads"])
        return max(1, round(seconds / 60))

    # -- the frontier search ------------------------------------------------------------------
    def frontier_plan(self, puzzle):
        """The puzzle's FrontierPlan, one for the run: it keeps each depth's segment cuts,
        read from a layer file once, not again for every merge job's mem_mb."""
        if puzzle not in self._frontier_plans:
            plan = self.plans[puzzle]
            self._frontier_plans[puzzle] = FrontierPlan(
                puzzles.get(puzzle), paths.layers(self.results, puzzle),
                paths.frontier_work(self.results, puzzle), segments=plan.segments,
                job_states=self.config["job_states"], depth_limit=plan.depth_limit)
        return self._frontier_plans[puzzle]

    def search_plan(self, wildcards):
        """The puzzle's bfs.select.SearchPlan as a frontier job's params.plan: segments and
        depth limit."""
        plan = self.plans[wildcards.puzzle]
        return {"segments": plan.segments, "depth_limit": plan.depth_limit}

    def step_record(self, puzzle, first):
        """(path, StepRecord) of the step that starts at depth `first`, once it has run."""
        path = self.checkpoints.frontier_step.get(puzzle=puzzle, first=f"{first:03d}").output[0]
        return path, StepRecord.read(path)

    def record_before(self, puzzle, depth):
        """(path, StepRecord) of the step that ends at depth - 1, walking the chain."""
        first = 0
        while True:
            path, record = self.step_record(puzzle, first)
            if record.last + 1 >= depth:
                return path, record
            first = record.last + 1

    def final_record(self, wildcards):
        first = 0
        while True:
            path, record = self.step_record(wildcards.puzzle, first)
            if not record.fans_out():
                return path
            first = record.last + 1

    def previous_record(self, wildcards):
        return self.record_before(wildcards.puzzle, int(wildcards.depth))[0]

    def step_input(self, wildcards):
        first = int(wildcards.first)
        if first == 0:
            return {}
        path, record = self.record_before(wildcards.puzzle, first)
        plan = self.frontier_plan(wildcards.puzzle)
        return {"previous": path,
                "merged": [str(plan.merge_dir(first, q, record.parts))
                           for q in range(record.parts)]}

    def expanded(self, wildcards):
        plan, parts = self.frontier_plan(wildcards.puzzle), int(wildcards.parts)
        return [str(plan.expand_dir(int(wildcards.depth), p, parts)) for p in range(parts)]

    def frontier_mem_mb(self, puzzle, count):
        """mem_mb of a frontier job of the puzzle on a layer of `count` states."""
        return frontier_job_mb(puzzles.get(puzzle), count, self.plans[puzzle].segments)

    def layer_before_mb(self, wildcards):
        """mem_mb of a job working on the layer before wildcards.depth."""
        _, record = self.record_before(wildcards.puzzle, int(wildcards.depth))
        return self.frontier_mem_mb(wildcards.puzzle, record.layers[-1].count)

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
        states = self.config["job_states"]
        if int(wildcards.first) > 0:
            _, record = self.record_before(wildcards.puzzle, int(wildcards.first))
            states = max(states, record.layers[-1].count)
        return self.frontier_mem_mb(wildcards.puzzle, states)


@contextmanager
def rule_job(snakemake, append=False, end_process=True):
    """Run the block of a rule script (given Snakemake's `snakemake` object) as the job:
    sys.stderr goes to the job's log (appended to if `append`, as the bfs rule does to keep
    the story of its resumes), the config's own puzzles (`define:`) are known, and a known
    error (a PuzzledbError: a memory budget, a bad board, a corrupt layer, a full disk) ends
    the job with its one line, at the end of the log and on the run's own stderr, and exit
    status 2, as the command line does.  When the block succeeds the process exits with
    status 0 right there (end_process=False returns instead: for a caller that is not a
    job's own process, such as a test)."""
    terminal = sys.stderr
    log = open(snakemake.log[0], "a" if append else "w", buffering=1)
    sys.stderr = log
    try:
        define_puzzles(snakemake.config)
        yield log
    except PuzzledbError as err:
        line = f"puzzledb: error: {one_line(err)}"
        print(line, file=log)
        print(line, file=terminal, flush=True)
        raise SystemExit(2) from None
    finally:
        sys.stderr = terminal
        log.close()
    if end_process:
        exit_now(0)
