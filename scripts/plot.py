"""Rule plot: the depth distribution as a PNG bar chart."""

from puzzledb import analysis, plots, puzzles
from puzzledb.job import rule_log

with rule_log(snakemake.log[0]):
    rows = analysis.read_summary(snakemake.input.summary)
    puzzle = puzzles.get(snakemake.wildcards.puzzle)
    plots.plot_depths(rows, puzzle.name, snakemake.output[0], plots.depth_axis(puzzle))
