"""Rule mitm: a query set's distances by meet-in-the-middle against goal layers 0..k, the
distribution table and the problem file."""

import sys
from pathlib import Path

from puzzledb.query import problems
from puzzledb import puzzles
from puzzledb.rules import rule_job

with rule_job(snakemake):
    entry = snakemake.params.problem_set
    problems.extract(
        puzzles.get(snakemake.wildcards.puzzle),
        layer_directory=Path(snakemake.input.manifest).parent,
        k=int(snakemake.wildcards.k),
        query_set=snakemake.wildcards.queries,
        distribution_path=snakemake.output.distribution,
        problems_path=snakemake.output.problems,
        per_distance=entry["per_distance"],
        min_distance=entry.get("min_distance"),
        seed=entry["seed"],
        threads=snakemake.threads,
        log=lambda message: print(message, file=sys.stderr),
    )
