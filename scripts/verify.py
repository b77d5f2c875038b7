"""Rule verify: every layer read back in full and checked against the manifest (as
`puzzledb verify`; a counts-only database: its samples; a distances one: its samples and
table); verified.txt holds the one-line summary."""

import sys
from pathlib import Path

from puzzledb import puzzles
from puzzledb.rules import rule_job
from puzzledb.store.files import write_text
from puzzledb.query.kinds import stored

with rule_job(snakemake):
    store = stored(Path(snakemake.input.manifest).parent,
                       puzzles.get(snakemake.wildcards.puzzle))
    verified = store.verify()
    print(verified, file=sys.stderr)
    write_text(snakemake.output[0], f"{verified}\n")
