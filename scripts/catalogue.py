"""Rule catalogue: the jobs' parts merged into catalogue.csv, catalogue_summary.csv and
catalogue_totals.csv (report/catalogue.py)."""

from puzzledb import puzzles
from puzzledb.report.catalogue import merge
from puzzledb.rules import rule_job

with rule_job(snakemake):
    merge(puzzles.get(snakemake.wildcards.puzzle), snakemake.input,
          snakemake.output.table, snakemake.output.summary, snakemake.output.totals)
