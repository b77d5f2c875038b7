"""Rule frontier_step: write the next layer or layers of a frontier search, then the step's
record (puzzledb.bfs.frontier.search.Frontier.step)."""

import sys

from puzzledb.bfs.frontier.plan import StepRecord
from puzzledb.bfs.frontier.search import Frontier
from puzzledb.workflow import rule_job

with rule_job(snakemake, append=True):
    previous = snakemake.input.get("previous")
    Frontier.for_rule(snakemake).within(snakemake.resources.mem_mb).step(
        int(snakemake.wildcards.first), merged=snakemake.input.get("merged", []),
        previous=StepRecord.read(previous) if previous else None,
        log=lambda message: print(message, file=sys.stderr))
