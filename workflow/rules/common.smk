# The config checked once, and the library's adapter (puzzledb.workflow.Workflow) that the
# rules ask for their inputs, search modes and resources: no rule chooses or sizes anything
# itself.

import sys

from puzzledb import paths, puzzles
from puzzledb.bfs.select import FRONTIER, IN_MEMORY
from puzzledb.config import check_config, problem_set
from puzzledb.errors import ConfigError
from puzzledb.process import release_exit
from puzzledb.workflow import PUZZLE_NAME, Workflow

try:
    check_config(config, source=", ".join(map(str, workflow.configfiles)) or "config")
except ConfigError as err:
    # one line and status 2, as the command line reports the same mistake
    print(f"puzzledb: error: {err}", file=sys.stderr)
    sys.exit(2)

RESULTS = config["results"]
PUZZLEDB = Workflow(config, checkpoints)
PUZZLE = paths.puzzle_directory(RESULTS)  # results/{puzzle}: logs/ and benchmarks/ below


wildcard_constraints:
    puzzle=PUZZLE_NAME,
    queries=PUZZLE_NAME,
    partition=r"[0-9a-z]+(-[0-9a-z]+)*",
    tiles=r"[0-9a-z]+",
    k=r"\d+",
