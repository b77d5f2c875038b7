"""A counts-only database (store: counts): the same table and deepest positions as the layer
store, a sample of every layer, queries that need the layers refused in one line, and a
search killed with SIGKILL that resumes from its last checkpoint to the same table."""

import json
import subprocess
import sys
import time

import numpy as np
import pytest

from building import build_in_memory, plan
from puzzledb import puzzles
from puzzledb.bfs import checkpoint
from puzzledb.config import check_config
from puzzledb.errors import ConfigError, PuzzleError
from puzzledb.query.database import DepthDatabase
from puzzledb.report.analysis import antipodes
from puzzledb.store import COUNTS
from puzzledb.store import direct
from puzzledb.store.counts import SAMPLE_STATES, CountStore
from puzzledb.query.kinds import stored
from puzzledb.store.layers import LayerStore

from conftest import ROOT, cli_in_process as cli


def quiet(message):
    pass


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """fifteen-3colour built twice, into results/ with store layers and counts/ with store
    counts (checkpointed after every layer)."""
    root = tmp_path_factory.mktemp("counts")
    puzzle = puzzles.get("fifteen-3colour")
    build_in_memory(puzzle, root / "layers" / puzzle.name / "layers", threads=2,
                    progress=False, log=quiet)
    report = build_in_memory(puzzle, root / "counts" / puzzle.name / "layers", threads=2,
                             progress=False, log=quiet, store=COUNTS, checkpoint_minutes=0)
    return root, report


def databases(root):
    return (DepthDatabase.open("fifteen-3colour", root / "layers"),
            DepthDatabase.open("fifteen-3colour", root / "counts"))


def test_fifteen_3colour_counts_only_has_the_layer_stores_table_and_its_two_antipodes(both):
    root, report = both
    full, counts = databases(root)
    with full, counts:
        assert (counts.store.kind, full.store.kind) == (COUNTS, "layers")
        assert counts.summary() == full.summary()
        assert counts.total == 12_108_096 and counts.max_depth == 57
        assert antipodes(counts) == antipodes(full) and len(antipodes(counts)) == 2
    assert report.store == COUNTS and report.checkpoints > 0
    directory = root / "counts" / "fifteen-3colour" / "layers"
    assert not list(directory.glob("depth_*.h5")), "a counts store writes no layer files"
    assert not checkpoint.path_of(directory).exists(), "the finished build keeps no checkpoint"


def test_every_layers_sample_is_distinct_states_of_that_layer_whole_up_to_4096(both):
    root, _ = both
    puzzle = puzzles.get("fifteen-3colour")
    layers = LayerStore(root / "layers" / puzzle.name / "layers", puzzle)
    counts = CountStore(root / "counts" / puzzle.name / "layers", puzzle)
    for info in counts.manifest_layers():
        sample, whole = counts.sample(info.depth)
        with layers.open_layer(info.depth) as layer:
            assert layer.contains_many(sample).all()
        assert np.all(np.diff(sample.astype(np.int64)) > 0)
        assert sample.size == min(info.count, SAMPLE_STATES)
        assert whole == (sample.size == info.count)


def test_distance_on_a_counts_database_is_refused_in_one_line(capsys, both):
    root, _ = both
    status, out, err = cli(capsys, root / "counts", "distance", "fifteen-3colour",
                           "1122 1122 1332 3330")
    assert (status, out, len(err)) == (2, [], 1)
    assert "keeps counts only (store: counts)" in err[0]


def test_solve_on_a_counts_database_falls_back_to_tree_search(capsys, both):
    root, _ = both
    board = "1122 1122 1332 3303"  # one move from the goal
    status, out, err = cli(capsys, root / "counts", "solve", "fifteen-3colour", board)
    assert status == 0 and len(out) == 2
    assert "keeps counts only" in err[0] and "tree search" in err[0]


def test_sample_draws_from_the_kept_sample_and_says_so_past_it(capsys, both):
    root, _ = both
    status, out, err = cli(capsys, root / "counts", "sample", "fifteen-3colour", "30",
                           "--count", "5")
    assert (status, len(out), err) == (0, 5, [])
    with DepthDatabase.open("fifteen-3colour", root / "layers") as full:
        ranks = [full.puzzle.rank(full.puzzle.parse(board)) for board in out]
        assert full.contains(30, np.array(sorted(ranks), dtype=np.uint64)).all()
    status, out, err = cli(capsys, root / "counts", "sample", "fifteen-3colour", "30")
    assert status == 0 and len(out) == SAMPLE_STATES
    assert "4,096 of the" in err[0] and "drawn at random" in err[0]


def test_info_and_verify_say_the_database_keeps_counts(capsys, both):
    root, _ = both
    status, out, _ = cli(capsys, root / "counts", "info", "fifteen-3colour")
    assert status == 0 and any("store counts" in line for line in out)
    status, out, _ = cli(capsys, root / "counts", "verify", "fifteen-3colour")
    assert status == 0 and "counts-only database of 58 layers" in out[0]
    assert stored(root / "counts" / "fifteen-3colour" / "layers",
                  puzzles.get("fifteen-3colour")).kind == COUNTS


def test_counts_are_refused_for_sharded_builds_and_for_problem_sets():
    with pytest.raises(PuzzleError, match="sharded builds keep layers"):
        plan(puzzles.get("eight"), COUNTS, 8000, shards=4)
    with pytest.raises(ConfigError, match="store.eight: 'eight' is not in puzzles"):
        check_config({"puzzles": ["fourteen"], "store": {"eight": "counts"}})
    with pytest.raises(ConfigError, match="keeps counts only"):
        check_config({"puzzles": ["eight"], "store": {"eight": "counts"}, "problem_sets": [
            {"puzzle": "eight", "queries": "blank-at-goal", "k": 10}]})
    with pytest.raises(ConfigError, match="store.eight"):
        check_config({"puzzles": ["eight"], "store": {"eight": "everything"}})


def build_command(results, *options):
    return [sys.executable, "-m", "puzzledb.cli", "--results", str(results), "build",
            "fifteen-3colour", "--store", "counts", "--threads", "1", *options]


@pytest.mark.slow
def test_a_counts_build_killed_with_sigkill_resumes_from_its_checkpoint_to_the_same_table(
        tmp_path, both):
    root, _ = both
    directory = tmp_path / "fifteen-3colour" / "layers"
    run = subprocess.Popen(build_command(tmp_path, "--checkpoint-minutes", "0"),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    puzzle = puzzles.get("fifteen-3colour")
    deadline = time.time() + 120
    while True:  # a checkpoint after every layer: kill once one past layer 30 is on disk
        header = checkpoint.read_header(directory, puzzle)
        if header is not None and header["depth"] >= 30:
            break
        assert time.time() < deadline and run.poll() is None, "no checkpoint past layer 30"
        time.sleep(0.002)
    run.kill()  # SIGKILL: no cleanup of any kind
    run.wait()
    assert not (directory / "manifest.json").exists()
    header = checkpoint.read_header(directory, puzzle)
    done = subprocess.run(build_command(tmp_path), capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert f"resuming after layer {header['depth']} from the checkpoint" in done.stderr
    expected = json.loads((root / "counts" / "fifteen-3colour" / "layers" /
                           "manifest.json").read_text())
    got = json.loads((directory / "manifest.json").read_text())
    assert got["layers"] == expected["layers"], "the table or a layer's sample differs"
    assert not list(directory.glob("*.tmp")) and not checkpoint.path_of(directory).exists()


@pytest.mark.slow
@pytest.mark.parametrize("store, files, verified, note", [
    ("counts", ["manifest.json", "samples.h5"], "counts-only database of 32 layers",
     "<code>store: counts</code>"),
    ("distances", ["distances.2bit", "manifest.json", "samples.h5"],
     "distances database of 32 layers", "<code>store: distances</code>"),
])
def test_the_workflow_builds_eight_keeping_no_layers_with_its_summary_antipodes_report_and_check(
        tmp_path, store, files, verified, note):
    from conftest import run_snakemake

    config = {"puzzles": ["eight"], "results": str(tmp_path / "results"), "threads": 1,
              "store": {"eight": store}, "verify": True}
    run_snakemake(tmp_path, config)
    eight = tmp_path / "results" / "eight"
    assert sorted(p.name for p in (eight / "layers").iterdir()) == files
    assert (eight / "antipodes.txt").read_text().split("\n")[:2] == ["647 850 321",
                                                                     "867 254 301"]
    assert (eight / "summary.csv").read_text().splitlines()[-1] == "31,2,181440"
    assert verified in (eight / "verified.txt").read_text()
    assert note in (tmp_path / "results" / "report.html").read_text()


@pytest.mark.parametrize("aligned", [True, False])
def test_a_checkpoint_reads_back_the_words_and_samples_written_direct_or_through_the_cache(
        tmp_path, aligned):
    from puzzledb.store.directory import LayerInfo

    eight = puzzles.get("eight")
    count = 3 * 4096 // 8 + 5  # not a whole number of 4 KiB blocks
    words = (direct.aligned_words(count) if aligned
             else np.empty(count + 1, dtype=np.uint64)[1:])
    words[:] = np.random.default_rng(0).integers(0, 2**63, count, dtype=np.uint64)
    samples = {0: np.array([7], np.uint64), 1: np.array([3, 9], np.uint64)}
    infos = [LayerInfo(0, 1, 0), LayerInfo(1, 2, 0)]
    checkpoint.write(tmp_path, eight, 1, infos, samples, words)
    header = checkpoint.read_header(tmp_path, eight)
    assert (header["depth"], header["counts"]) == (1, [1, 2])
    back = direct.aligned_words(count)
    kept = checkpoint.read(tmp_path, header, back)
    assert np.array_equal(back, words) and [k.tolist() for k in kept] == [[7], [3, 9]]
    assert checkpoint.read_header(tmp_path, puzzles.get("fifteen-3colour")) is None
