"""Rule bfs: build (or resume) one puzzle's depth database."""

import sys
from pathlib import Path

from puzzledb import engine, puzzles
from puzzledb.config import define_puzzles

sys.stderr = open(snakemake.log[0], "a", buffering=1)
define_puzzles(snakemake.config)  # the config's own puzzles (define:)
engine.build(
    puzzles.get(snakemake.wildcards.puzzle),
    directory=Path(snakemake.output.manifest).parent,
    threads=snakemake.threads,
    memory_mb=snakemake.params.memory_mb,
    log=lambda message: print(message, file=sys.stderr),
)
