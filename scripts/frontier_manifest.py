"""Rule frontier_manifest: the manifest of a database a frontier search built."""

import sys

from puzzledb.bfs.frontier.plan import StepRecord
from puzzledb.rules import rule_job
from puzzledb.rules.frontier_job import frontier_search

with rule_job(snakemake):
    frontier_search(snakemake).finish(StepRecord.read(snakemake.input.record),
                                      log=lambda message: print(message, file=sys.stderr))
