# Config validation and the list of final outputs.

import json
import os
import sys
import threading

from puzzledb import puzzles
from puzzledb.config import (
    check_config,
    frontier_mem_mb,
    frontier_settings,
    pdb_job_mb,
    pdb_labels,
    problem_set,
    search_mem_mb,
    search_threads,
)
from puzzledb.query.database import layer_directory
from puzzledb.errors import ConfigError
from puzzledb.bfs.frontier.plan import FrontierPlan
from puzzledb.bfs.memory import mb_of

try:
    check_config(config, source=", ".join(map(str, workflow.configfiles)) or "config")
except ConfigError as err:
    sys.exit(f"puzzledb: {err}")

RESULTS = config["results"]


wildcard_constraints:
    puzzle=r"[a-z0-9][a-z0-9-]*",
    queries=r"[a-z0-9][a-z0-9-]*",
    partition=r"\d+(-\d+)*",
    tiles=r"[0-9a-z]+",
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
    if config["verify"]:
        outputs += expand(f"{RESULTS}/{{puzzle}}/verified.txt", puzzle=config["puzzles"])
    for entry in config["problem_sets"]:
        outputs += problem_files(entry)
    return outputs


def problem_files(entry):
    """The distribution table and the problem file of one problem set."""
    stem = f"{RESULTS}/{entry['puzzle']}/problems/{entry['queries']}_k{entry['k']}"
    return [f"{stem}_distribution.csv", f"{stem}.txt"]


def one_of(names):
    """A wildcard pattern matching exactly these names (none at all when empty)."""
    return "|".join(names) if names else "(?!)"


def none_of(names):
    """A wildcard pattern matching any puzzle name but these."""
    name = r"[a-z0-9][a-z0-9-]*"
    return rf"(?!(?:{'|'.join(names)})(?![a-z0-9-])){name}" if names else name


def build_mem_mb(wildcards):
    return search_mem_mb(wildcards.puzzle)


def build_threads(wildcards):
    return search_threads(wildcards.puzzle, config["threads"])


def pdb_outputs():
    """The manifest of every partition in config `pdbs` (target pdbs)."""
    return [f"{RESULTS}/pdbs/{puzzle}/{partition}/manifest.json"
            for puzzle, partitions in config["pdbs"].items() for partition in partitions]


def pdb_tables(wildcards):
    """The table files of one partition."""
    directory = f"{RESULTS}/pdbs/{wildcards.puzzle}/{wildcards.partition}"
    return [f"{directory}/{label}.h5"
            for label in pdb_labels(wildcards.puzzle, wildcards.partition)]


def pdb_build_mem_mb(wildcards):
    return pdb_job_mb(wildcards.puzzle, wildcards.partition, wildcards.tiles)


# --- the frontier workflow (rules/frontier.smk) --------------------------------------------

FRONTIER = frontier_settings(config)


def frontier_plan(puzzle):
    return FrontierPlan(puzzles.get(puzzle), layer_directory(RESULTS, puzzle),
                        f"{RESULTS}/{puzzle}/frontier", job_states=config["job_states"],
                        **FRONTIER[puzzle])


def step_record(puzzle, first):
    """(path, record) of the step that starts at depth `first`, once it has run."""
    path = checkpoints.frontier_step.get(puzzle=puzzle, first=f"{first:03d}").output[0]
    return path, json.loads(open(path).read())


def record_before(puzzle, depth):
    """(path, record) of the step that ends at depth - 1, walking the chain of steps."""
    first = 0
    while True:
        path, record = step_record(puzzle, first)
        if record["last"] + 1 >= depth:
            return path, record
        first = record["last"] + 1


def final_record(wildcards):
    first = 0
    while True:
        path, record = step_record(wildcards.puzzle, first)
        if record["next"] != "fanout":
            return path
        first = record["last"] + 1


def step_input(wildcards):
    first = int(wildcards.first)
    if first == 0:
        return {}
    path, record = record_before(wildcards.puzzle, first)
    plan = frontier_plan(wildcards.puzzle)
    return {"previous": path,
            "merged": [str(plan.merge_dir(first, q, record["parts"]))
                       for q in range(record["parts"])]}


def layer_before_mb(wildcards):
    """mem_mb of a job working on the layer before wildcards.depth."""
    _, record = record_before(wildcards.puzzle, int(wildcards.depth))
    return frontier_mem_mb(config, wildcards.puzzle, record["layers"][-1]["count"])


def merge_mb(wildcards, input):
    """mem_mb of a merge job: computed from what its segments received once the expand jobs
    have run (Snakemake evaluates a job's resources again when its input is there), the
    estimate before."""
    if not all(os.path.isdir(d) for d in input.expanded):
        return layer_before_mb(wildcards)
    plan = frontier_plan(wildcards.puzzle)
    return mb_of(plan.merge_bytes(int(wildcards.depth), int(wildcards.part),
                                  int(wildcards.parts), input.expanded))


def step_mb(wildcards):
    if int(wildcards.first) == 0:
        return frontier_mem_mb(config, wildcards.puzzle, config["job_states"])
    _, record = record_before(wildcards.puzzle, int(wildcards.first))
    return frontier_mem_mb(config, wildcards.puzzle,
                           max(config["job_states"], record["layers"][-1]["count"]))


# --- the end of a run --------------------------------------------------------------------

def release_exit():
    """After each scheduling round Snakemake (9.x) starts a timer thread that wakes the
    scheduler again a --max-jobs-per-timespan span later (a second by default), and the
    process waits for that thread before it exits: a second added to every run.  Called
    when the run is over (onsuccess, onerror), so the pending timers have nothing left to
    wake and are cancelled."""
    for thread in threading.enumerate():
        if isinstance(thread, threading.Timer):
            thread.cancel()
