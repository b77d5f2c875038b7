"""A BFS killed mid-run resumes from its last complete layer."""

import subprocess
import sys
import time

import pytest
import yaml

from conftest import ROOT, children_running, run_snakemake

pytestmark = pytest.mark.slow  # runs the workflow


def test_killed_fifteen_3colour_bfs_resumes_after_the_last_complete_layer(tmp_path):
    config = {"puzzles": ["fifteen-3colour"], "results": str(tmp_path / "results"),
              "threads": 1}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    layers = tmp_path / "results" / "fifteen-3colour" / "layers"
    target = str(layers / "manifest.json")
    run = subprocess.Popen(
        [sys.executable, "-m", "snakemake", target, "--snakefile", str(ROOT / "Snakefile"),
         "--directory", str(tmp_path), "--cores", "1", "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    deadline = time.time() + 120
    while not (layers / "depth_025.h5").exists():
        assert time.time() < deadline and run.poll() is None, "BFS never reached layer 25"
        time.sleep(0.005)
    bfs = children_running(run.pid, "build_layers")
    assert bfs, "no BFS process found under snakemake"
    for p in bfs:
        p.kill()  # SIGKILL: no cleanup of any kind
    assert run.wait(timeout=60) != 0
    assert not (layers / "manifest.json").exists()
    kept = sorted(layers.glob("depth_*.h5"))
    assert 26 <= len(kept) < 58
    before = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in kept}

    run_snakemake(tmp_path, config, target, cores=1)

    after = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in kept}
    assert after == before, "layers finished before the kill were recomputed"
    assert len(list(layers.glob("depth_*.h5"))) == 58
    log = (tmp_path / "results" / "fifteen-3colour" / "logs" / "bfs.log").read_text()
    # every file with a final name is whole (written under a temporary name, then renamed)
    assert f"resuming after layer {len(kept) - 1} found on disk" in log
