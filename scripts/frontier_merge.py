"""Rule frontier_merge: one part of a layer's segments, from every expanded part."""

import sys

from puzzledb.frontier import Frontier

sys.stderr = open(snakemake.log[0], "w", buffering=1)
Frontier.for_rule(snakemake).merge(int(snakemake.wildcards.depth), int(snakemake.wildcards.part),
                                   int(snakemake.wildcards.parts), snakemake.input.expanded,
                                   snakemake.output[0])
