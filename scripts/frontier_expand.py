"""Rule frontier_expand: the neighbours of one part of a layer, grouped by segment."""

import sys

from puzzledb.rules import rule_job
from puzzledb.rules.frontier_job import frontier_search

with rule_job(snakemake):
    depth, part, parts = (int(snakemake.wildcards[k]) for k in ("depth", "part", "parts"))
    frontier_search(snakemake).expand(depth, part, parts, snakemake.output[0],
                                      log=lambda message: print(message, file=sys.stderr))
