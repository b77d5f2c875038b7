"""Rule summary: summary.csv (depth,count,cumulative) and antipodes.txt (the deepest layer's
boards), from the layers."""

from pathlib import Path

from puzzledb.report import analysis
from puzzledb import puzzles
from puzzledb.query.database import DepthDatabase
from puzzledb.rules import rule_job

with rule_job(snakemake):
    puzzle = puzzles.get(snakemake.wildcards.puzzle)
    with DepthDatabase(puzzle, Path(snakemake.input.manifest).parent) as db:
        analysis.write_summary(db, snakemake.output.summary)
        analysis.write_antipodes(db, snakemake.output.antipodes)
