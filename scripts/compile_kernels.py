"""Rule kernels: compile ahead what the config's builds and their queries will load."""

import sys

from puzzledb import puzzles
from puzzledb.bfs import select
from puzzledb.rules import rule_job
from puzzledb.store.files import write_text

with rule_job(snakemake):
    plans = [(puzzles.get(name), plan) for name, plan in snakemake.params.plans.items()]
    line = select.compile_ahead(plans, snakemake.params.mem_mb, snakemake.threads,
                                progress=False)
    print(line, file=sys.stderr)
    write_text(snakemake.output[0], line + "\n")
