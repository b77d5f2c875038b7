"""Rule frontier_step: write the next layer or layers of a frontier search, then the step's
record (puzzledb.bfs.frontier.step)."""

import sys

from puzzledb.bfs.frontier.plan import StepRecord
from puzzledb.rules import rule_job
from puzzledb.rules.frontier_job import frontier_search

with rule_job(snakemake, append=True):
    previous = snakemake.input.get("previous")
    frontier_search(snakemake).within(snakemake.resources.mem_mb).step(
        int(snakemake.wildcards.first), merged=snakemake.input.get("merged", []),
        previous=StepRecord.read(previous) if previous else None,
        log=lambda message: print(message, file=sys.stderr))
