"""Rule bfs: build (or resume) one puzzle's depth database."""

import sys
from pathlib import Path

from puzzledb.bfs import in_memory
from puzzledb import puzzles
from puzzledb.rules import rule_job

with rule_job(snakemake, append=True):
    in_memory.build(
        puzzles.get(snakemake.wildcards.puzzle),
        directory=Path(snakemake.output.manifest).parent,
        threads=snakemake.threads,
        memory_mb=snakemake.params.memory_mb,
        depth_limit=snakemake.params.depth_limit,
        store=snakemake.params.store,
        checkpoint_minutes=snakemake.params.checkpoint_minutes,
        log=lambda message: print(message, file=sys.stderr),
    )
