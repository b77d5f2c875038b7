"""`puzzledb build` plans from the config as the workflow does (config.search_plan, on the
config.yaml of its directory or --config), each option it is given standing in place of
its key: for a config that sets memory_mb, shards, symmetry, store, depth_limit,
checkpoint_minutes and job_states, the command's plan of each puzzle is the workflow's."""

import copy

import pytest
import yaml

from conftest import assert_one_line_error, cli_in_process, run_snakemake
from puzzledb.bfs import select
from puzzledb.cli import main
from puzzledb.bfs.modes import FRONTIER, IN_MEMORY
from puzzledb.config import checked_search_plans
from puzzledb.query.database import DepthDatabase

# eight: sharded, every position (its default said again); fifteen-3colour: 5 MiB of in-memory search
# over the budget of 3, with a depth limit: the sparse frontier search; flipit-square: counts
CONFIG = {"puzzles": ["eight", "fifteen-3colour", "flipit-square"], "memory_mb": 3,
          "shards": {"eight": 2}, "symmetry": {"eight": "none"},
          "depth_limit": {"fifteen-3colour": 20}, "store": {"flipit-square": "counts"},
          "checkpoint_minutes": 1, "job_states": 1000}


def workflow_plans(config):
    """The plans the workflow makes of a config (what rules/common.smk computes: PLANS)."""
    return checked_search_plans(copy.deepcopy(config))


@pytest.fixture
def planned(tmp_path, monkeypatch, capsys):
    """plan(*argv): the SearchPlan `puzzledb build ARGV` runs in a directory holding
    CONFIG as its config.yaml (the build itself not run)."""
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(CONFIG))
    monkeypatch.chdir(tmp_path)
    chosen = []
    monkeypatch.setattr(select, "build", lambda puzzle, directory, work, plan, **_:
                        chosen.append(plan) or (0, 0))

    def plan(*argv):
        status, _, err = cli_in_process(capsys, tmp_path / "results", "build", *argv)
        assert status == 0, err
        return chosen.pop()
    return plan


def test_build_plans_each_puzzle_of_the_config_as_the_workflow_does(planned):
    plans = workflow_plans(CONFIG)
    assert (plans["eight"].mode, plans["eight"].segments, plans["eight"].symmetric,
            plans["eight"].job_states) == (FRONTIER, 2, False, 1000)
    assert (plans["fifteen-3colour"].mode, plans["fifteen-3colour"].depth_limit) == \
        (FRONTIER, 20)
    assert (plans["flipit-square"].mode, plans["flipit-square"].store.name,
            plans["flipit-square"].checkpoint_minutes) == (IN_MEMORY, "counts", 1)
    for name, plan in plans.items():
        assert tuple(planned(name)) == tuple(plan), name


@pytest.mark.parametrize("name, options, key, value", [
    ("eight", ["--shards", "4"], "shards", 4),
    ("eight", ["--shards", "0"], "shards", None),
    ("eight", ["--symmetry", "classes"], "symmetry", "classes"),
    ("eight", ["--depth-limit", "5"], "depth_limit", 5),
    ("eight", ["--job-states", "7"], "job_states", 7),
    ("fifteen-3colour", ["--memory-mb", "100"], "memory_mb", 100),
    ("flipit-square", ["--store", "layers"], "store", None),
    ("flipit-square", ["--checkpoint-minutes", "0"], "checkpoint_minutes", 0),
])
def test_an_option_of_build_stands_in_place_of_its_config_key(planned, name, options, key,
                                                              value):
    """The plan the workflow makes of the config with that key set to the option's value
    (a key of one entry a puzzle: that puzzle's entry set, or left out: None)."""
    changed = copy.deepcopy(CONFIG)
    if isinstance(CONFIG[key], dict):
        changed[key].pop(name, None)
        if value is not None:
            changed[key][name] = value
    else:
        changed[key] = value
    expected = workflow_plans(changed)[name]
    assert tuple(expected) != tuple(workflow_plans(CONFIG)[name])  # the key matters here
    assert tuple(planned(name, *options)) == tuple(expected)


def test_build_without_a_config_plans_by_the_schemas_defaults(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    chosen = []
    monkeypatch.setattr(select, "build", lambda puzzle, directory, work, plan, **_:
                        chosen.append(plan) or (0, 0))
    assert cli_in_process(capsys, "results", "build", "eight")[0] == 0
    assert tuple(chosen.pop()) == tuple(workflow_plans({"puzzles": ["eight"]})["eight"])


def test_a_plan_the_config_and_options_cannot_make_is_one_line_naming_both(planned, capsys,
                                                                        tmp_path):
    # counts keep the in-memory search, 5 MiB, over the config's 3
    result = cli_in_process(capsys, tmp_path / "results", "build", "fifteen-3colour",
                            "--store", "counts")
    assert_one_line_error(result, "config.yaml with --store counts: fifteen-3colour needs 5 "
                                  "MiB for its in-memory search, more than memory_mb: 3")


@pytest.mark.slow
def test_build_and_snakemake_make_the_same_databases_of_a_config(tmp_path, monkeypatch):
    """The same config run by `snakemake` in one directory and by `puzzledb build` of each
    puzzle in another: the same databases (mode, store, depth limit, counts, positions).
    The frontier searches stopped early and one job a layer (a job a depth starts in 3 to 4
    s): about a minute."""
    config = {**CONFIG, "results": "results", "depth_limit": {"eight": 6, "fifteen-3colour": 4}}
    del config["job_states"]
    run_snakemake(tmp_path / "workflow", config)
    alone = tmp_path / "command"
    alone.mkdir()
    (alone / "config.yaml").write_text(yaml.safe_dump(config))
    monkeypatch.chdir(alone)
    for name in CONFIG["puzzles"]:
        assert main(["build", name]) == 0
    for name in CONFIG["puzzles"]:
        with DepthDatabase.open(name, tmp_path / "workflow" / "results") as made, \
                DepthDatabase.open(name, alone / "results") as built:
            assert (made.kind, made.manifest.get("mode"), made.symmetric, made.depth_limit) \
                == (built.kind, built.manifest.get("mode"), built.symmetric,
                    built.depth_limit), name
            assert (made.counts, made.positions) == (built.counts, built.positions), name
