"""Rule frontier_merge: one part of a layer's segments, from every expanded part."""

from puzzledb.frontier import Frontier
from puzzledb.job import rule_log

with rule_log(snakemake):
    Frontier.for_rule(snakemake).merge(
        int(snakemake.wildcards.depth), int(snakemake.wildcards.part),
        int(snakemake.wildcards.parts), snakemake.input.expanded, snakemake.output[0])
