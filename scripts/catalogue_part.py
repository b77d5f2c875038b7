"""Rule catalogue_part: one job's clusters of a catalogue (report/catalogue.py)."""

import sys

from puzzledb import puzzles
from puzzledb.report.catalogue import search_part
from puzzledb.rules import rule_job

with rule_job(snakemake):
    puzzle = puzzles.get(snakemake.wildcards.puzzle)
    search_part(puzzle, int(snakemake.wildcards.job), int(snakemake.wildcards.jobs),
                snakemake.output[0], log=lambda line: print(line, file=sys.stderr))
