"""Rule antipodes: the boards of the deepest layer, one per line."""

from pathlib import Path

from puzzledb import analysis, puzzles
from puzzledb.database import DepthDatabase
from puzzledb.job import rule_log

with rule_log(snakemake.log[0]):
    puzzle = puzzles.get(snakemake.wildcards.puzzle)
    with DepthDatabase(puzzle, Path(snakemake.input.manifest).parent) as db:
        analysis.write_antipodes(db, snakemake.output[0])
