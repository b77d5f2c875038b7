"""Rule design: the designer's table, every placement of the puzzle's pieces, which reach the
goal, how far, and in how many components (report/design.py)."""

from pathlib import Path

from puzzledb import puzzles
from puzzledb.query.database import DepthDatabase
from puzzledb.report.design import design, write_design
from puzzledb.rules import rule_job

with rule_job(snakemake):
    puzzle = puzzles.get(snakemake.wildcards.puzzle)
    with DepthDatabase(puzzle, Path(snakemake.input.manifest).parent) as db:
        write_design(snakemake.output[0], design(db))
