"""Rule frontier_merge: one part of a layer's segments, from every expanded part, written as
the layer's part file."""

import sys

from puzzledb.rules import rule_job
from puzzledb.rules.frontier_job import frontier_search

with rule_job(snakemake):
    depth, part, parts = (int(snakemake.wildcards[k]) for k in ("depth", "part", "parts"))
    print(f"{snakemake.wildcards.puzzle}: depth {depth}, part {part} of {parts}: mem_mb "
          f"{snakemake.resources.mem_mb} (from the neighbours its segments received)",
          file=sys.stderr)
    frontier_search(snakemake).merge(depth, part, parts, snakemake.input.expanded,
                                     snakemake.output[0],
                                     log=lambda message: print(message, file=sys.stderr))
