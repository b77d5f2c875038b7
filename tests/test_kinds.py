"""The kinds of store, one object each (query/kinds.py), and the search plan that carries
one from the config check to the job: the schema, the command line, the store classes and
the sinks all agree with the registry, and the plan reaches a job as it was made."""

import pickle

import yaml

from building import plan
from puzzledb import puzzles
from puzzledb.cli import _parser
from puzzledb.config import SCHEMA, checked_search_plans
from puzzledb.query.kinds import KINDS
from puzzledb.store import COUNTS, DISTANCES, LAYERS


def test_the_schema_and_the_command_line_offer_exactly_the_registered_kinds():
    schema = yaml.safe_load(SCHEMA.read_text())["properties"]["store"]
    assert schema["additionalProperties"]["enum"] == list(KINDS)
    build = _parser()._subparsers._group_actions[0].choices["build"]
    store = next(a for a in build._actions if a.dest == "store")
    assert list(store.choices) == list(KINDS) and store.default is None  # the config's


def test_each_kind_names_a_store_that_writes_its_name_and_a_sink_that_exists():
    from puzzledb.bfs import sinks

    for name, kind in KINDS.items():
        assert kind.store.kind == name
        assert issubclass(kind.sink_class(), sinks.LayerSink)
        assert kind.layers == (name == LAYERS)


def test_the_plan_reaches_the_job_whole_and_snakemake_reruns_only_for_what_the_database_is():
    config = {"puzzles": ["eight", "fifteen-3colour"], "store": {"eight": COUNTS},
              "checkpoint_minutes": 2}
    plans = checked_search_plans(config)
    eight = plans["eight"]
    assert (eight.store, eight.checkpoint_minutes) == (KINDS[COUNTS], 2)
    assert pickle.loads(pickle.dumps(eight)) == eight  # Snakemake pickles a job's params
    # a changed estimate or checkpoint interval is no reason to build again; a store is
    assert repr(eight) == repr(eight._replace(need_bytes=1, checkpoint_minutes=9))
    assert repr(eight) != repr(eight._replace(store=KINDS[LAYERS]))
    assert repr(eight) == ("SearchPlan('in-memory', StoreKind('counts'), depth_limit=None, "
                           "segments=None)")


def test_the_distances_store_adds_what_its_search_holds_to_the_plan():
    def added(name):
        puzzle = puzzles.get(name)
        return plan(puzzle, DISTANCES).need_bytes - plan(puzzle).need_bytes

    assert added("eight") == 9  # by colour: a byte for each cell of the blank (a run)
    # by the cycle of three codes: the last 2^23 unseen states listed (here all 524,288)
    # and a sample's draws, 64 for each of 4,096 states, 24 bytes each
    assert added("flipit-square") == 8 * 524_288 + 24 * 64 * 4096
