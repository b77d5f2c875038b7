"""Rule symmetry: per-layer counts up to the puzzle's symmetries, and the deepest positions
one per orbit."""

import sys
from pathlib import Path

from puzzledb import analysis, puzzles
from puzzledb.config import define_puzzles
from puzzledb.database import DepthDatabase

sys.stderr = open(snakemake.log[0], "w", buffering=1)
define_puzzles(snakemake.config)  # the config's own puzzles (define:)
puzzle = puzzles.get(snakemake.wildcards.puzzle)
with DepthDatabase(puzzle, Path(snakemake.input.manifest).parent) as db:
    analysis.write_symmetry_summary(db, snakemake.output.summary)
    analysis.write_antipodes(db, snakemake.output.antipodes, orbits=True)
