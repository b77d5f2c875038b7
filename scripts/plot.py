"""Rule plot: the depth distribution as a PNG bar chart."""

import sys

from puzzledb import analysis, plots, puzzles
from puzzledb.config import define_puzzles

sys.stderr = open(snakemake.log[0], "w", buffering=1)
define_puzzles(snakemake.config)  # the config's own puzzles (define:)
rows = analysis.read_summary(snakemake.input.summary)
puzzle = puzzles.get(snakemake.wildcards.puzzle)
plots.plot_depths(rows, puzzle.name, snakemake.output[0], plots.depth_axis(puzzle))
