"""Rule bfs: build (or resume) one puzzle's depth database, as its search plan says."""

import sys
from pathlib import Path

from puzzledb.bfs import in_memory
from puzzledb import puzzles
from puzzledb.rules import rule_job

with rule_job(snakemake, append=True):
    in_memory.build(
        puzzles.get(snakemake.wildcards.puzzle),
        Path(snakemake.output.manifest).parent,
        snakemake.params.plan,
        threads=snakemake.threads,
        log=lambda message: print(message, file=sys.stderr),
    )
