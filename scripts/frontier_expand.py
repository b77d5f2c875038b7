"""Rule frontier_expand: the neighbours of one part of a layer, grouped by segment."""

import sys

from puzzledb.bfs.frontier.search import Frontier
from puzzledb.workflow import rule_job

with rule_job(snakemake):
    Frontier.for_rule(snakemake).expand(
        int(snakemake.wildcards.depth), int(snakemake.wildcards.part),
        int(snakemake.wildcards.parts), snakemake.output[0],
        log=lambda message: print(message, file=sys.stderr))
