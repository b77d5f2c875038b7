"""Rule report: one HTML page over every built puzzle."""

import os

from puzzledb.query import problems
from puzzledb.query.database import DepthDatabase
from puzzledb.report import analysis
from puzzledb import puzzles
from puzzledb.workflow import rule_job


def read_lines(path):
    with open(path) as f:
        return f.read().splitlines()


def extent_note(name):
    """What a partial database holds (from its manifest), or None for a whole one."""
    with DepthDatabase.open(name, snakemake.config["results"]) as db:
        return db.extent() if db.partial else None


def counts_only(name):
    with DepthDatabase.open(name, snakemake.config["results"]) as db:
        return db.counts_only


with rule_job(snakemake):
    report_dir = os.path.dirname(snakemake.output[0])
    symmetric = dict(zip(snakemake.params.symmetric,
                         zip(snakemake.input.symmetry, snakemake.input.symmetry_antipodes)))
    entries = []
    for name, summary, antipodes, plot in zip(
        snakemake.params.puzzles, snakemake.input.summaries, snakemake.input.antipodes,
        snakemake.input.plots,
    ):
        symmetry = None
        if name in symmetric:
            orbit_summary, orbit_antipodes = symmetric[name]
            symmetry = (analysis.read_symmetry_summary(orbit_summary),
                        read_lines(orbit_antipodes))
        entries.append((puzzles.get(name), analysis.read_summary(summary),
                        read_lines(antipodes), os.path.relpath(plot, report_dir), symmetry,
                        extent_note(name)))
    problem_sets = [
        (entry, problems.read_distribution(table), os.path.relpath(problem_file, report_dir))
        for entry, table, problem_file in zip(snakemake.params.problem_sets,
                                              snakemake.input.distributions,
                                              snakemake.input.problems)
    ]
    analysis.write_report(entries, snakemake.output[0], problem_sets,
                          dict(zip(snakemake.params.puzzles, snakemake.params.declared)),
                          [name for name in snakemake.params.puzzles if counts_only(name)])
