"""Shared fixtures: the default pipeline run once per test session, into a temporary
results directory, exactly as a user runs it (snakemake on the repository's Snakefile)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np
import psutil
import pytest
import yaml
from hypothesis import settings

from puzzledb.store.layers import LayerStore
from puzzledb.store.parts import PartedLayer

# Hypothesis: no per-example deadline (the first example of a test may load compiled
# kernels); example counts are set per test, sized for the default suite.
settings.register_profile("puzzledb", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "puzzledb"))

ROOT = Path(__file__).resolve().parent.parent


def run_snakemake(workdir, config, *targets, cores=2, check=True):
    """Run the repository's workflow in `workdir` with `config` (a dict) as its config.yaml."""
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "config.yaml").write_text(yaml.safe_dump(config))
    cmd = [sys.executable, "-m", "snakemake", *targets, "--snakefile", str(ROOT / "Snakefile"),
           "--directory", str(workdir), "--cores", str(cores), "--quiet"]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise AssertionError(f"snakemake failed:\n{result.stdout}\n{result.stderr}")
    return result


def default_config(results):
    """The repository's config.yaml, with `results` as its results directory."""
    return {**yaml.safe_load((ROOT / "config.yaml").read_text()), "results": str(results)}


@pytest.fixture(scope="session")
def results(tmp_path_factory):
    """The results directory of `snakemake --cores 2` on the default config; its parent is
    the run's working directory (config.yaml, .snakemake/)."""
    workdir = tmp_path_factory.mktemp("pipeline")
    config = default_config(workdir / "results")
    run_snakemake(workdir, config)
    return Path(config["results"])


def read_csv_as_pandas_does(path):
    """A CSV of ours, read by pandas with every default, as a data person would: it must
    come out as whole-number columns with no missing value (no comment line, no footer)."""
    import pandas

    table = pandas.read_csv(path)
    assert all(str(kind) == "int64" for kind in table.dtypes), f"{path}: {dict(table.dtypes)}"
    assert not table.isna().to_numpy().any(), f"{path}: a missing value"
    return table


@pytest.fixture(scope="session")
def pdbs_663(tmp_path_factory):
    """The results of `snakemake pdbs` building the 6-6-3 tables only (the 7-8 take six
    minutes): test_additive.py checks the build, test_readme.py solves with them."""
    workdir = tmp_path_factory.mktemp("pdbs")
    config = {"puzzles": ["eight"], "results": str(workdir / "results"),
              "pdbs": {"fifteen": ["6-6-3"]}}
    run_snakemake(workdir, config, "pdbs")
    return workdir / "results"


# Fixtures that run the workflow or build a large database: a test that uses one is slow.
SLOW_FIXTURES = {"results", "database", "goal_layers_27", "pdbs_663"}


def pytest_collection_modifyitems(items):
    for item in items:
        if SLOW_FIXTURES & set(item.fixturenames):
            item.add_marker(pytest.mark.slow)


def children_running(pid, fragment):
    """The live descendant processes of pid whose command line mentions fragment."""
    found = []
    for child in psutil.Process(pid).children(recursive=True):
        try:
            if any(fragment in part for part in child.cmdline()):
                found.append(child)
        except psutil.Error:  # gone, or a zombie, meanwhile
            pass
    return found


def puzzledb_cli(*args):
    """Run the installed `puzzledb` entry point as a user would; CompletedProcess."""
    return subprocess.run([sys.executable, "-m", "puzzledb.cli", *args],
                          capture_output=True, text=True, env={**os.environ})


def assert_one_line_error(result, *fragments):
    """The error as puzzledb reports one: exit status 2 and one line on stderr, starting
    "puzzledb: error: ", no traceback, holding every fragment.  result: a CompletedProcess,
    or cli_in_process's (status, stdout lines, stderr lines)."""
    if isinstance(result, tuple):
        status, _, lines = result
    else:
        status, lines = result.returncode, result.stderr.strip().splitlines()
    assert status == 2, result
    assert len(lines) == 1 and lines[0].startswith("puzzledb: error: "), lines
    assert "Traceback" not in lines[0]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def cli_in_process(capsys, root, *args):
    """`puzzledb --results root ARGS` run in this process: (status, stdout lines, stderr
    lines)."""
    from puzzledb.cli import main

    status = main(["--results", str(root), *args])
    captured = capsys.readouterr()
    return status, captured.out.splitlines(), captured.err.splitlines()


def parted_depths(directory):
    manifest = json.loads((directory / "manifest.json").read_text())
    return [layer["depth"] for layer in manifest["layers"] if "parts" in layer]


def assert_reads_alike(parted, single, puzzle, depths, seed=0):
    """The layers `depths` of the store in `parted` (written in parts) read exactly as those
    of `single` (one file each), through every way of reading them."""
    ours, theirs = LayerStore(parted, puzzle), LayerStore(single, puzzle)
    rng = np.random.default_rng(seed)
    for depth in depths:
        with ours.open_layer(depth) as a, theirs.open_layer(depth) as b:
            assert isinstance(a, PartedLayer) and not isinstance(b, PartedLayer)
            whole = b.ranks()
            assert (a.count, a.crc32) == (b.count, b.crc32)
            assert np.array_equal(a.ranks(), whole)
            assert np.array_equal(np.concatenate(list(a.iter_chunks(1000))), whole)
            for start, stop in rng.integers(0, a.count + 1, size=(20, 2)):
                start, stop = sorted((int(start), int(stop)))
                assert np.array_equal(a.ranks(start, stop), whole[start:stop])
            level = puzzle.level_size(depth if puzzle.graded else 0)
            queries = np.concatenate([rng.choice(whole, 50), rng.integers(0, level, 200,
                                                                          dtype=np.uint64)])
            assert np.array_equal(a.contains_many(queries), b.contains_many(queries))
            for low, high in np.sort(rng.integers(0, level, size=(20, 2)), axis=1):
                assert a.positions_between(low, high) == b.positions_between(low, high)
        with h5py.File(ours.path(depth), "r") as f:  # plain h5py, through the virtual dataset
            assert f["ranks"].is_virtual and np.array_equal(f["ranks"][:], whole)
