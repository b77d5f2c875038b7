"""Rule report: every puzzle's plot (depth_distribution.png, from its summary.csv) and one
HTML page over them all."""

import os

from puzzledb import analysis, plots, puzzles
from puzzledb.job import rule_log


def read_lines(path):
    with open(path) as f:
        return f.read().splitlines()


with rule_log(snakemake):
    report_dir = os.path.dirname(snakemake.output.report)
    symmetric = dict(zip(snakemake.params.symmetric,
                         zip(snakemake.input.symmetry, snakemake.input.symmetry_antipodes)))
    entries = []
    for name, summary, antipodes, plot in zip(
        snakemake.params.puzzles, snakemake.input.summaries, snakemake.input.antipodes,
        snakemake.output.plots,
    ):
        puzzle, rows = puzzles.get(name), analysis.read_summary(summary)
        note = analysis.summary_note(summary)
        plots.plot_depths(rows, name, plot, plots.depth_axis(puzzle), note=note)
        symmetry = None
        if name in symmetric:
            orbit_summary, orbit_antipodes = symmetric[name]
            symmetry = (analysis.read_symmetry_summary(orbit_summary),
                        read_lines(orbit_antipodes))
        entries.append((puzzle, rows, read_lines(antipodes), os.path.relpath(plot, report_dir),
                        symmetry, note))
    problem_sets = [
        (entry, analysis.read_distribution(table), os.path.relpath(problem_file, report_dir))
        for entry, table, problem_file in zip(snakemake.params.problem_sets,
                                              snakemake.input.distributions,
                                              snakemake.input.problems)
    ]
    analysis.write_report(entries, snakemake.output.report, problem_sets,
                          dict(zip(snakemake.params.puzzles, snakemake.params.declared)))
