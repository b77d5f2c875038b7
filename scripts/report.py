"""Rule report: one HTML page over every built puzzle."""

import os
import sys

from puzzledb import analysis, puzzles

sys.stderr = open(snakemake.log[0], "w", buffering=1)
report_dir = os.path.dirname(snakemake.output[0])
entries = []
for name, summary, antipodes, plot in zip(
    snakemake.params.puzzles, snakemake.input.summaries, snakemake.input.antipodes,
    snakemake.input.plots,
):
    with open(antipodes) as f:
        boards = f.read().splitlines()
    entries.append((puzzles.get(name), analysis.read_summary(summary), boards,
                    os.path.relpath(plot, report_dir)))
analysis.write_report(entries, snakemake.output[0])
