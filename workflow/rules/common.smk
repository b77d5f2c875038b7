# Config validation and the list of final outputs.

import sys

from puzzledb import puzzles
from puzzledb.config import check_config, problem_set, search_mem_mb
from puzzledb.errors import ConfigError

try:
    check_config(config, source=", ".join(map(str, workflow.configfiles)) or "config")
except ConfigError as err:
    sys.exit(f"puzzledb: {err}")

RESULTS = config["results"]


wildcard_constraints:
    puzzle=r"[a-z0-9][a-z0-9-]*",
    queries=r"[a-z0-9][a-z0-9-]*",
    k=r"\d+",


def symmetric_puzzles():
    return [p for p in config["puzzles"] if puzzles.get(p).symmetries()]


def all_outputs():
    outputs = [f"{RESULTS}/report.html"]
    for puzzle in config["puzzles"]:
        outputs += [
            f"{RESULTS}/{puzzle}/summary.csv",
            f"{RESULTS}/{puzzle}/antipodes.txt",
            f"{RESULTS}/{puzzle}/depth_distribution.png",
        ]
    for puzzle in symmetric_puzzles():
        outputs.append(f"{RESULTS}/{puzzle}/summary_symmetry.csv")
    for entry in config["problem_sets"]:
        outputs += problem_files(entry)
    return outputs


def problem_files(entry):
    """The distribution table and the problem file of one problem set."""
    stem = f"{RESULTS}/{entry['puzzle']}/problems/{entry['queries']}_k{entry['k']}"
    return [f"{stem}_distribution.csv", f"{stem}.txt"]


def build_mem_mb(wildcards):
    return search_mem_mb(wildcards.puzzle)
