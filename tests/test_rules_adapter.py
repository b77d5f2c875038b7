"""The Snakemake adapter (puzzledb.rules) read without Snakemake: the frontier rules walk
the chain of step records once, in order, and each rule's question (the record before a
depth, the last record, a step's inputs) is answered from that walk; the search plans the
rule files read are those the config check computed."""

import pytest

from puzzledb import puzzles
from puzzledb.bfs.frontier.search import Frontier
from puzzledb.bfs.modes import FRONTIER, IN_MEMORY
from puzzledb.config import checked_search_plans
from puzzledb.rules.bfs import BfsRules
from puzzledb.rules.frontier import FrontierRules


class Checkpoints:
    """Snakemake's `checkpoints` as the frontier rules use it: a step's output once its
    record is on disk; a step that has not run is an error (Snakemake's own exception)."""

    def __init__(self, work):
        self.frontier_step = self
        self.work, self.asked = work, []

    def get(self, puzzle, first):
        self.asked.append(int(first))
        path = self.work / f"step_{first}.json"
        if not path.exists():
            raise LookupError(f"step {first} of {puzzle} has not run")
        return type("Job", (), {"output": [str(path)]})


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """eight built sharded in 4 segments, fanned out from depth 14 on (its step records on
    disk), and the adapter of its rule file over them."""
    results = tmp_path_factory.mktemp("results")
    config = {"puzzles": ["eight", "hoppers"], "results": str(results),
              "shards": {"eight": 4}, "job_states": 3000, "symmetry": {"eight": "none"}}
    plans = checked_search_plans(config)
    plan = plans["eight"]
    Frontier(puzzles.get("eight"), results / "eight" / "layers", results / "eight" / "frontier",
             plan.segments, config["job_states"], plan.depth_limit).build(log=lambda m: None)
    checkpoints = Checkpoints(results / "eight" / "frontier")
    return FrontierRules(config, plans, checkpoints), checkpoints, plans


class Wildcards(dict):
    __getattr__ = dict.__getitem__


def test_the_plans_the_rules_read_are_the_config_checks(built):
    rules, _, plans = built
    assert plans["eight"].mode == FRONTIER and plans["hoppers"].mode == IN_MEMORY
    assert rules.puzzles() == "eight"
    assert BfsRules(rules.config, plans).puzzles().startswith("(?!(?:eight)")


def test_the_records_chain_every_depth_once_from_the_goal_to_the_last_step(built):
    rules, _, _ = built
    chain = list(rules.records("eight"))
    covered = [d for _, record in chain for d in range(record.first, record.last + 1)]
    assert covered == list(range(32))
    assert [r.fans_out() for _, r in chain] == [True] * (len(chain) - 1) + [False]
    assert rules.final_record(Wildcards(puzzle="eight")) == chain[-1][0]


def test_the_record_before_a_depth_is_the_step_that_ends_just_before_it(built):
    rules, checkpoints, _ = built
    chain = [record for _, record in rules.records("eight")]
    for record, following in zip(chain, chain[1:]):
        depth = following.first
        path, before = rules.record_before("eight", depth)
        assert before.last == depth - 1 == record.last and path.endswith(
            f"step_{record.first:03d}.json")
        inputs = rules.step_input(Wildcards(puzzle="eight", first=f"{depth:03d}"))
        assert inputs["previous"] == path and len(inputs["merged"]) == record.parts
        checkpoints.asked.clear()
        rules.record_before("eight", depth)
        assert checkpoints.asked == [r.first for r in chain[:chain.index(record) + 1]]
    assert rules.step_input(Wildcards(puzzle="eight", first="000")) == {}
