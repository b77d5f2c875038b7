"""Rule summary: summary.csv (depth,count,cumulative) from the layers."""

import sys

from puzzledb import analysis
from puzzledb.database import DepthDatabase

sys.stderr = open(snakemake.log[0], "w", buffering=1)
with DepthDatabase.open(snakemake.wildcards.puzzle, snakemake.config["results"]) as db:
    analysis.write_summary(db, snakemake.output[0])
