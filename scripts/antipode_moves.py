"""Rule antipode_moves: the deepest positions (antipodes.txt's first 1,000) as the moves
that make each from the goal."""

from pathlib import Path

from puzzledb.report import analysis
from puzzledb import puzzles
from puzzledb.query.database import DepthDatabase
from puzzledb.rules import rule_job

with rule_job(snakemake):
    puzzle = puzzles.get(snakemake.wildcards.puzzle)
    with DepthDatabase(puzzle, Path(snakemake.input.manifest).parent) as db:
        analysis.write_antipode_moves(db, snakemake.output[0])
