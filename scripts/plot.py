"""Rule plot: the depth distribution as a PNG bar chart."""

import sys

from puzzledb import analysis

sys.stderr = open(snakemake.log[0], "w", buffering=1)
rows = analysis.read_summary(snakemake.input.summary)
analysis.plot_depths(rows, snakemake.wildcards.puzzle, snakemake.output[0])
