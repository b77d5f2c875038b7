"""Rule pdb_table: build one table of a partition's additive pattern databases."""

import sys

from puzzledb import puzzles
from puzzledb.rules import rule_job
from puzzledb.solvers import additive

with rule_job(snakemake):
    additive.build_table(
        puzzles.get(snakemake.wildcards.puzzle),
        snakemake.wildcards.partition,
        snakemake.wildcards.tiles,
        snakemake.output[0],
        threads=snakemake.threads,
        memory_mb=snakemake.params.memory_mb,
        log=lambda message: print(message, file=sys.stderr),
    )
