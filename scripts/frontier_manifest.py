"""Rule frontier_manifest: the manifest of a database a frontier search built."""

import json
from pathlib import Path

from puzzledb.bfs.frontier.search import Frontier
from puzzledb.workflow import rule_job

with rule_job(snakemake):
    Frontier.for_rule(snakemake).finish(json.loads(Path(snakemake.input.record).read_text()))
