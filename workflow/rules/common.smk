# The config checked once, with every puzzle's search plan (bfs.select's answer, computed
# once here and read by the rule files' adapters, puzzledb.rules: no rule chooses or
# sizes anything itself).

from puzzledb import paths, puzzles
from puzzledb.config import checked_search_plans, problem_set
from puzzledb.process import release_exit
from puzzledb.rules.common import PUZZLE_NAME, one_line_exit

SOURCE = ", ".join(map(str, workflow.configfiles)) or "config"  # for messages
with one_line_exit():
    PLANS = checked_search_plans(config, SOURCE)

RESULTS = config["results"]
PUZZLE = paths.puzzle_directory(RESULTS)  # results/{puzzle}: logs/ and benchmarks/ below


wildcard_constraints:
    puzzle=PUZZLE_NAME,
    queries=PUZZLE_NAME,
    partition=r"[0-9a-z]+(-[0-9a-z]+)*",
    tiles=r"[0-9a-z]+",
    k=r"\d+",
