"""Rule pdb_manifest: read back every table of a partition, then write its manifest."""

import sys
from pathlib import Path

from puzzledb import puzzles
from puzzledb.solvers import additive

sys.stderr = open(snakemake.log[0], "w", buffering=1)
manifest = additive.write_manifest(Path(snakemake.output[0]).parent,
                                   puzzles.get(snakemake.wildcards.puzzle),
                                   snakemake.wildcards.partition)
print(f"{len(manifest['groups'])} tables checked", file=sys.stderr)
