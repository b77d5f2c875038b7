"""Rule antipodes: the boards of the deepest layer, one per line."""

import sys

from puzzledb import analysis
from puzzledb.database import DepthDatabase

sys.stderr = open(snakemake.log[0], "w", buffering=1)
with DepthDatabase.open(snakemake.wildcards.puzzle, snakemake.config["results"]) as db:
    analysis.write_antipodes(db, snakemake.output[0])
