"""Rule catalogue: the jobs' parts merged into catalogue.csv, catalogue_summary.csv and
catalogue_totals.csv, and the hardest puzzles drawn (report/catalogue.py)."""

import sys

from puzzledb import puzzles
from puzzledb.report.catalogue import merge, write_hardest
from puzzledb.rules import rule_job

with rule_job(snakemake):
    puzzle = puzzles.get(snakemake.wildcards.puzzle)
    merge(puzzle, snakemake.input, snakemake.output.table, snakemake.output.summary,
          snakemake.output.totals, log=lambda line: print(line, file=sys.stderr))
    write_hardest(puzzle, snakemake.output.table, snakemake.output.hardest)
