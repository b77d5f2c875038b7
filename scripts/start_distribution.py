"""Rule start_distribution: the distances of the positions matching the puzzle's start
pattern (depth,count,cumulative; the last depth is the God's number between the phases)."""

from pathlib import Path

from puzzledb.report import analysis
from puzzledb import puzzles
from puzzledb.query.database import DepthDatabase
from puzzledb.rules import rule_job

with rule_job(snakemake):
    puzzle = puzzles.get(snakemake.wildcards.puzzle)
    with DepthDatabase(puzzle, Path(snakemake.input.manifest).parent) as db:
        analysis.write_start_distribution(db, snakemake.output[0])
