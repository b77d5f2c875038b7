"""Rule frontier_manifest: the manifest of a database a frontier search built."""

import json
import sys
from pathlib import Path

from puzzledb.frontier import Frontier

sys.stderr = open(snakemake.log[0], "w", buffering=1)
Frontier.for_rule(snakemake).finish(json.loads(Path(snakemake.input.record).read_text()))
