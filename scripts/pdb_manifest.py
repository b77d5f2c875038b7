"""Rule pdb_manifest: read back every table of a partition, then write its manifest."""

import sys

from puzzledb import puzzles
from puzzledb.rules import rule_job
from puzzledb.solvers import additive

with rule_job(snakemake):
    manifest = additive.write_manifest(snakemake.config["results"],
                                       puzzles.get(snakemake.wildcards.puzzle),
                                       snakemake.wildcards.partition)
    print(f"{len(manifest['groups'])} tables checked", file=sys.stderr)
