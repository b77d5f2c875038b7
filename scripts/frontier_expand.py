"""Rule frontier_expand: the neighbours of one part of a layer, grouped by segment."""

import sys

from puzzledb.frontier import Frontier

sys.stderr = open(snakemake.log[0], "w", buffering=1)
Frontier.for_rule(snakemake).expand(int(snakemake.wildcards.depth), int(snakemake.wildcards.part),
                                    int(snakemake.wildcards.parts), snakemake.output[0])
