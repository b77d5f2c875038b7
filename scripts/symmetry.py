"""Rule symmetry: per-layer counts up to the puzzle's symmetries, and the deepest positions
one per orbit."""

from pathlib import Path

from puzzledb.report import analysis
from puzzledb import puzzles
from puzzledb.query.database import DepthDatabase
from puzzledb.rules import rule_job

with rule_job(snakemake):
    puzzle = puzzles.get(snakemake.wildcards.puzzle)
    with DepthDatabase(puzzle, Path(snakemake.input.manifest).parent) as db:
        analysis.write_symmetry_summary(db, snakemake.output.summary)
        analysis.write_antipodes(db, snakemake.output.antipodes, orbits=True)
