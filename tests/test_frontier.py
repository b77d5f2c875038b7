"""The frontier search (sharded and sparse builds) gives the in-memory engine's layers, file
for file, whatever the fan-out; its records chain the steps; a depth limit makes a partial
database that every reader treats as partial."""

import json
import subprocess
import sys
import time

import numpy as np
import pytest
import yaml

from building import build_in_memory
from conftest import (
    ROOT,
    assert_reads_alike,
    children_running,
    parted_depths,
    puzzledb_cli,
    read_csv_as_pandas_does,
    run_snakemake,
)
from merge_memory import measure_merge, prepared_merge
from published_figures import FIFTEEN_CORNER

from puzzledb import puzzles
from puzzledb.puzzles.permutation.puzzle import PermutationPuzzle
from puzzledb.query.database import DepthDatabase
from puzzledb.report import analysis
from puzzledb.bfs.frontier.search import Frontier
from puzzledb.bfs.memory import MERGE_WINDOW, SPARSE_SEGMENTS, merge_base_bytes
from puzzledb.store.layers import LayerStore


CUBE3 = ROOT / "workflow/puzzledb/puzzles/permutation/examples/3x3x3.tws"


def layers_of(directory):
    manifest = json.loads((directory / "manifest.json").read_text())
    return [(layer["count"], layer["crc32"]) for layer in manifest["layers"]]


@pytest.fixture(scope="module")
def dense(tmp_path_factory):
    """In-memory builds of the small puzzles, to compare with."""
    root = tmp_path_factory.mktemp("dense")
    for name in ("eight", "hoppers", "flipit-square-diagonal"):
        build_in_memory(puzzles.get(name), root / name, threads=2, progress=False,
                     log=lambda m: None)
    return root


@pytest.mark.parametrize("name, segments, job_states", [
    ("eight", 4, 3000),  # fans out up to 4 ways from depth 14 on
    ("eight", 7, 10**9),  # one job per step: every depth in-process
    ("hoppers", 3, 100),  # graded: no older layers to subtract, a rank space per level
    ("flipit-square-diagonal", 8, 60000),  # sixteen goals, moves across whole lines
])
def test_frontier_layers_equal_the_in_memory_engines_file_for_file(dense, tmp_path, name,
                                                                   segments, job_states):
    frontier = Frontier(puzzles.get(name), tmp_path / "layers", tmp_path / "frontier",
                        segments, job_states)
    manifest = frontier.build(log=lambda m: None)
    assert layers_of(tmp_path / "layers") == layers_of(dense / name)
    assert manifest["mode"] == "frontier" and manifest["depth_limit"] is None
    for depth in (0, manifest["max_depth"] // 2, manifest["max_depth"]):
        with LayerStore(tmp_path / "layers", frontier.puzzle).open_layer(depth) as ours, \
                LayerStore(dense / name, frontier.puzzle).open_layer(depth) as theirs:
            assert np.array_equal(ours.ranks(), theirs.ranks())
    assert not any((tmp_path / "frontier").glob("d*")), "work files were left behind"


@pytest.mark.slow
def test_fifteen_3colour_built_in_16_segments_equals_the_pipelines_layers(results, tmp_path):
    frontier = Frontier(puzzles.get("fifteen-3colour"), tmp_path / "layers",
                        tmp_path / "frontier", 16, 300_000)
    frontier.build(log=lambda m: None)
    assert layers_of(tmp_path / "layers") == layers_of(results / "fifteen-3colour" / "layers")
    parted = parted_depths(tmp_path / "layers")
    assert parted, "no depth fanned out"
    assert_reads_alike(tmp_path / "layers", results / "fifteen-3colour" / "layers",
                       frontier.puzzle, parted)


def test_the_records_chain_every_depth_once_and_say_what_comes_next(tmp_path):
    frontier = Frontier(puzzles.get("eight"), tmp_path / "layers", tmp_path / "frontier", 4,
                        3000)
    frontier.build(log=lambda m: None)
    records = sorted((tmp_path / "frontier").glob("step_*.json"))
    covered = []
    for path in records:
        record = json.loads(path.read_text())
        covered += list(range(record["first"], record["last"] + 1))
        assert record["next"] in ("fanout", "done")
        assert (record["parts"] > 1) == (record["next"] == "fanout")
    assert covered == list(range(32))
    assert json.loads(records[-1].read_text())["next"] == "done"


def test_a_step_hands_a_depth_whose_merge_exceeds_its_memory_on_to_merge_jobs(dense,
                                                                              tmp_path):
    frontier = Frontier(puzzles.get("eight"), tmp_path / "layers", tmp_path / "frontier", 4,
                        10**9)
    # bytes besides what a merge holds whatever its segments (the eight subtracts one older
    # layer), 64 KiB for each segment it holds at once: the first depths' merges fit, the
    # wider ones do not
    frontier.budget = merge_base_bytes(1, older=1) + (MERGE_WINDOW + 1) * 64 * 1024
    messages = []
    frontier.build(log=messages.append)
    assert layers_of(tmp_path / "layers") == layers_of(dense / "eight")
    handed = [m for m in messages if "handed on to a merge job" in m]
    records = [json.loads(p.read_text())
               for p in sorted((tmp_path / "frontier").glob("step_*.json"))]
    assert handed and len(records) == len(handed) + 1
    assert records[0]["last"] > 0 and all(r["parts"] == 1 for r in records if r["next"] == "fanout")


@pytest.mark.slow  # about 15 s: the 3x3x3 to depth 5 and its expansion, then the merge
def test_a_merge_job_holds_no_more_than_it_states_however_many_keys_it_writes(tmp_path):
    """Issue 56: the 3x3x3's depth 6 (keys of two words, every position a key) merged by
    one job, alone in a child process: 7,618,438 new keys, 116 MiB if it kept them (as its
    writer's index did, a view of each chunk), and its resident set's peak grows by less
    than the merge_bytes it states (its mem_mb less the process's share)."""
    puzzle = PermutationPuzzle("cube3", file=CUBE3)
    plan, expanded = prepared_merge(tmp_path, puzzle, 6, segments=64)
    spec = dict(name="cube3", file=str(CUBE3))
    held = measure_merge(spec, plan, 6, 0, 1, expanded)
    assert held["count"] == 7_618_438
    assert 0 < held["growth"] <= held["stated"] < 16 * held["count"]
    assert held["peak"] <= held["mem_mb"] * 2**20


def test_a_step_killed_after_some_layers_keeps_them_and_the_rerun_takes_them_up(tmp_path):
    puzzle = puzzles.get("eight")
    frontier = Frontier(puzzle, tmp_path / "layers", tmp_path / "frontier", 4, 10**9)
    written = []

    def stop_after_ten(message):
        if ": depth " in message:  # one line per layer written (the first line says the mode)
            written.append(message)
        if len(written) == 11:
            raise KeyboardInterrupt  # as if killed once layer 10 was on disk

    with pytest.raises(KeyboardInterrupt):
        frontier.step(0, log=stop_after_ten)
    kept = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "layers").glob("depth_*.h5")}
    assert len(kept) == 11 and not (tmp_path / "frontier" / "step_000.json").exists()
    record = frontier.step(0, log=lambda m: None)
    assert record.last == 31 and record.next == "done"
    assert kept == {name: (tmp_path / "layers" / name).stat().st_mtime_ns for name in kept}


def test_a_depth_limit_makes_a_partial_database_that_queries_treat_as_partial(tmp_path):
    puzzle = puzzles.get("eight")
    frontier = Frontier(puzzle, tmp_path / "eight" / "layers", tmp_path / "eight" / "frontier",
                        4, 3000, depth_limit=20)
    manifest = frontier.build(log=lambda m: None)
    assert manifest["max_depth"] == 20 and manifest["depth_limit"] == 20
    with DepthDatabase(puzzle, tmp_path / "eight" / "layers") as db:
        assert db.partial and db.extent().startswith("layers 0..20 of a deeper space")
        assert db.distance("867 254 301") is None  # 31 moves: beyond the stored ball
        assert db.distance("123 456 708") == 1
    far = puzzledb_cli("--results", str(tmp_path), "distance", "eight", "867 254 301")
    assert (far.returncode, far.stdout) == (0, "more than 20\n")
    solved = puzzledb_cli("--results", str(tmp_path), "solve", "eight", "867 254 301")
    assert solved.returncode == 0 and len(solved.stdout.splitlines()) == 32
    assert "beyond the 20 stored layers" in solved.stderr
    # its summary is the table alone, numbers in every row (a CSV any reader loads as it
    # is); the report still says that the database is partial
    with DepthDatabase(puzzle, tmp_path / "eight" / "layers") as db:
        analysis.write_summary(db, tmp_path / "summary.csv")
    header, *rows = (tmp_path / "summary.csv").read_text().splitlines()
    assert header == "depth,count,cumulative" and len(rows) == 21
    assert all(field.isdigit() for row in rows for field in row.split(","))
    table = read_csv_as_pandas_does(tmp_path / "summary.csv")
    assert list(table.columns) == ["depth", "count", "cumulative"] and len(table) == 21


def test_the_in_memory_engine_stops_at_a_depth_limit_too(tmp_path):
    report = build_in_memory(puzzles.get("eight"), tmp_path, progress=False, log=lambda m: None,
                          depth_limit=12)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert report.max_depth == 12 == manifest["depth_limit"] == manifest["max_depth"]
    complete = build_in_memory(puzzles.get("eight"), tmp_path / "full", progress=False,
                            log=lambda m: None, depth_limit=40)
    full = json.loads((tmp_path / "full" / "manifest.json").read_text())
    assert complete.max_depth == 31 and full["depth_limit"] is None


@pytest.mark.slow
def test_the_sharded_workflow_gives_the_same_layers_and_a_killed_job_loses_only_itself(
        results, tmp_path):
    """shards: {eight: 2} through Snakemake: a merge job is killed (SIGKILL) once it
    starts, the run fails, the rerun redoes only what is missing, and the layers equal the
    in-memory engine's."""
    config = {"puzzles": ["eight"], "results": str(tmp_path / "results"),
              "shards": {"eight": 2}, "job_states": 20_000, "symmetry": {"eight": "none"}}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    layers = tmp_path / "results" / "eight" / "layers"
    run = subprocess.Popen(
        [sys.executable, "-m", "snakemake", str(layers / "manifest.json"), "--snakefile",
         str(ROOT / "Snakefile"), "--directory", str(tmp_path), "--cores", "2", "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.time() + 600
    victim = None
    while victim is None:
        assert time.time() < deadline and run.poll() is None, "no merge job ever started"
        victim = next(iter(children_running(run.pid, "frontier_merge")), None)
        time.sleep(0.05)
    victim.kill()
    assert run.wait(timeout=600) != 0
    before = {p.name: p.stat().st_mtime_ns for p in layers.glob("depth_*.h5")}
    expanded = {p: p.stat().st_mtime_ns
                for p in (tmp_path / "results" / "eight" / "benchmarks").glob("*expand*")}
    assert before and not (layers / "manifest.json").exists()

    run_snakemake(tmp_path, config, str(layers / "manifest.json"))

    assert layers_of(layers) == layers_of(results / "eight" / "layers")
    assert before == {name: (layers / name).stat().st_mtime_ns for name in before}
    assert expanded == {p: p.stat().st_mtime_ns for p in expanded}, "expand jobs were rerun"
    assert not list((tmp_path / "results" / "eight" / "frontier").glob("d*/*")), \
        "temporary work files were left behind"


def test_the_sparse_search_of_the_fifteen_puzzle_to_depth_18_gives_the_published_counts(
        tmp_path):
    """No bitset holds the 15-puzzle (16!/2 ranks): with a depth limit it is built sparse,
    layer by layer, and its counts are OEIS A089484's (Korf and Schultze 2005)."""
    puzzle = puzzles.get("fifteen")
    frontier = Frontier(puzzle, tmp_path / "layers", tmp_path / "frontier", SPARSE_SEGMENTS,
                        10**9, depth_limit=18)
    manifest = frontier.build(log=lambda m: None)
    assert [layer["count"] for layer in manifest["layers"]] == FIFTEEN_CORNER[:19]
    assert manifest["depth_limit"] == 18  # partial: the space goes on to depth 80
