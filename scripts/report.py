"""Rule report: one self-contained HTML page over every finished database in the results
directory, this run's puzzles (the rule's inputs) first."""

from puzzledb.report import page
from puzzledb.rules import rule_job

with rule_job(snakemake):
    page.write_report(snakemake.output[0], snakemake.config["results"],
                      snakemake.params.puzzles,
                      dict(zip(snakemake.params.puzzles, snakemake.params.declared)))
