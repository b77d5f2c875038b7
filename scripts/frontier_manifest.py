"""Rule frontier_manifest: the manifest of a database a frontier search built."""

import sys

from puzzledb.bfs.frontier.plan import StepRecord
from puzzledb.bfs.frontier.search import Frontier
from puzzledb.workflow import rule_job

with rule_job(snakemake):
    Frontier.for_rule(snakemake).finish(StepRecord.read(snakemake.input.record),
                                        log=lambda message: print(message, file=sys.stderr))
