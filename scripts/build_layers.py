"""Rule bfs: build (or resume) one puzzle's depth database."""

import sys

from puzzledb import engine, puzzles

sys.stderr = open(snakemake.log[0], "a", buffering=1)
puzzle = puzzles.get(snakemake.wildcards.puzzle)
engine.build(
    puzzle,
    directory=snakemake.output.manifest.rsplit("/", 1)[0],
    threads=snakemake.threads,
    memory_mb=snakemake.params.memory_mb,
    log=lambda message: print(message, file=sys.stderr),
)
