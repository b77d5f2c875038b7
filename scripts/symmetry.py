"""Rule symmetry: per-layer counts up to the puzzle's symmetries, and the deepest positions
one per orbit."""

import sys

from puzzledb import analysis
from puzzledb.database import DepthDatabase

sys.stderr = open(snakemake.log[0], "w", buffering=1)
with DepthDatabase.open(snakemake.wildcards.puzzle, snakemake.config["results"]) as db:
    analysis.write_symmetry_summary(db, snakemake.output.summary)
    analysis.write_antipodes(db, snakemake.output.antipodes, orbits=True)
