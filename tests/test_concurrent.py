"""Readers while a build of the same puzzle runs see only whole layers: every layer file
with a final name checks whole at any moment, queries and `verify` find the database
incomplete (one line, never a corrupt layer) until the manifest appears, and then whole.

The build runs in short slices (SIGCONT, a pause, SIGSTOP) and the readers look while it is
stopped wherever the slice ended, mid-write included: how fast the build is does not decide
whether the readers see it part-way."""

import os
import signal
import subprocess
import sys
import time

import pytest

from puzzledb import puzzles
from puzzledb.cli import main
from puzzledb.query.database import DepthDatabase
from puzzledb.errors import LayerError
from puzzledb.store.layers import LayerStore

pytestmark = pytest.mark.slow  # builds fifteen-6colour in a subprocess (a few seconds)

SLICE = 0.05  # seconds the build runs between two looks

PUZZLE = puzzles.get("fifteen-6colour")


def test_queries_and_verify_during_a_build_see_only_whole_layers(tmp_path, capsys):
    directory = tmp_path / PUZZLE.name / "layers"
    store = LayerStore(directory, PUZZLE)
    build = subprocess.Popen(
        [sys.executable, "-m", "puzzledb.cli", "--results", str(tmp_path), "build", PUZZLE.name,
         "--threads", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seen = set()  # how many whole layers a reader found, round by round
    checked = set()
    deadline = time.time() + 300
    try:
        while True:
            running = build.poll() is None
            present = sorted(int(p.stem.split("_")[1]) for p in directory.glob("depth_*.h5"))
            for depth in set(present) - checked:  # a final name is a whole layer when it appears
                store.check_layer(depth)
                checked.add(depth)
            status = main(["--results", str(tmp_path), "verify", PUZZLE.name])
            err = capsys.readouterr().err.splitlines()
            if status == 0:
                assert err == []
            else:
                assert status == 2 and len(err) == 1 and "no complete database" in err[0], err
                assert "is bad" not in err[0]
            try:
                with DepthDatabase.open(PUZZLE.name, tmp_path) as db:
                    assert db.distance("1234 6666 6666 5660") == 0
            except LayerError as err:
                assert "no complete database" in str(err)
            seen.add(len(present))
            if not running:
                break
            assert time.time() < deadline, "the build did not finish"
            os.kill(build.pid, signal.SIGCONT)
            time.sleep(SLICE)
            os.kill(build.pid, signal.SIGSTOP)
    finally:
        if build.poll() is None:
            os.kill(build.pid, signal.SIGCONT)
        build.wait(timeout=300)
    assert build.returncode == 0, build.stderr.read()
    assert main(["--results", str(tmp_path), "verify", PUZZLE.name]) == 0
    assert "verified 59 layers" in capsys.readouterr().out
    # the readers overlapped the build: they saw it part-way, more than once
    assert len([n for n in seen if 0 < n < 59]) >= 3, sorted(seen)
    assert checked == set(range(59))
