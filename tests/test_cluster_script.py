"""The local SLURM script keeps to an environment of its own (issue 26, point 9).

The script itself needs root, Debian packages and daemons, so it is not run here; its
`venv` step is: it installs the SLURM executor plugin from PyPI into a fresh venv that sees
this interpreter's packages, and this interpreter's environment must come out as it was
(with the plugin, every local `snakemake` command waits for a SLURM controller). Its
`config` step is too: the slurm.conf it writes for a cluster of N nodes on this machine
(issue 23), and its options' one-line errors.
"""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent / "cluster" / "run-on-local-slurm.sh"
PLUGIN = "snakemake_executor_plugin_slurm"


def installed_here():
    return [line for line in subprocess.run(
        [sys.executable, "-m", "pip", "list", "--format=freeze"],
        capture_output=True, text=True, check=True).stdout.splitlines()]


@pytest.mark.slow
def test_the_plugin_goes_into_the_scripts_own_venv(tmp_path):
    before = installed_here()
    had_plugin = importlib.util.find_spec(PLUGIN) is not None
    venv = tmp_path / "venv"
    # the script's python3 is this interpreter
    env = {**os.environ, "LOCAL_SLURM_VENV": str(venv),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", str(SCRIPT), "venv"], capture_output=True, text=True,
                          env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    python = done.stdout.strip().splitlines()[-1]
    assert Path(python) == venv / "bin" / "python"

    # the venv has the plugin and sees this environment's packages (and puzzledb)
    probe = subprocess.run(
        [python, "-c", f"import {PLUGIN}, snakemake, numba, h5py, puzzledb; "
                       "import importlib.metadata as m; "
                       "print(m.version('snakemake-executor-plugin-slurm'))"],
        capture_output=True, text=True)
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.strip() == "2.8.0"

    # and this environment is as it was
    assert installed_here() == before
    assert (importlib.util.find_spec(PLUGIN) is not None) == had_plugin


# --- several nodes on this machine (issue 23): the slurm.conf and the options --------------


def script(*args):
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=60)


def conf_lines(text, key):
    return [dict(f.split("=", 1) for f in line.split()) for line in text.splitlines()
            if line.startswith(f"{key}=")]


needs_slurmd = pytest.mark.skipif(not Path("/usr/sbin/slurmd").exists(),
                                  reason="slurm.conf reads the hardware from `slurmd -C`")


@needs_slurmd
def test_three_nodes_are_three_slurmd_on_this_host_each_on_a_port_of_its_own():
    done = script("config", "--nodes", "3")
    assert done.returncode == 0, done.stderr
    nodes = conf_lines(done.stdout, "NodeName")
    assert [n["NodeName"] for n in nodes] == ["node1", "node2", "node3"]
    assert {n["NodeHostname"] for n in nodes} == {os.uname().nodename.split(".")[0]}
    assert len({n["Port"] for n in nodes}) == 3
    assert {n["CPUs"] for n in nodes} == {"1"}  # --threads 1: jobs at once go to other nodes
    [partition] = conf_lines(done.stdout, "PartitionName")
    assert partition["Nodes"] == "node1,node2,node3"
    # what the node failure needs: a dead node found in 20 s, its jobs requeued
    assert "SlurmdTimeout=20" in done.stdout.splitlines()
    assert "JobRequeue=1" in done.stdout.splitlines()
    # each slurmd its own pid file, spool directory and log
    assert {"SlurmdPidFile=/run/slurmd-%n.pid", "SlurmdSpoolDir=/var/lib/slurm/slurmd-%n",
            "SlurmdLogFile=/var/log/slurm/slurmd-%n.log"} <= set(done.stdout.splitlines())


@needs_slurmd
def test_one_node_is_this_host_with_all_its_cpus():
    done = script("config")
    assert done.returncode == 0, done.stderr
    [node] = conf_lines(done.stdout, "NodeName")
    assert node["NodeName"] == os.uname().nodename.split(".")[0]
    assert "Port" not in node and int(node["CPUs"]) == os.cpu_count()


@pytest.mark.parametrize("args, words", [
    (["--nodes", "0"], "--nodes takes a whole number from 1 up, not '0'"),
    (["--nodes", "two"], "--nodes takes a whole number from 1 up, not 'two'"),
    (["--nodes"], "--nodes takes a whole number from 1 up, not ''"),
    (["--nodes", "17"], "--nodes 17: at most 16 nodes"),
    (["--kill-node"], "--kill-node needs --nodes 2 or more"),
    (["--nodes", "1", "--kill-node"], "--kill-node needs --nodes 2 or more"),
    (["--threads", "-1"], "--threads takes a whole number from 1 up, not '-1'"),
])
def test_a_bad_option_is_a_one_line_error_before_anything_starts(args, words):
    done = script("run", *args)
    assert done.returncode != 0
    assert len(done.stderr.splitlines()) == 1 and words in done.stderr, done.stderr
    assert done.stdout == ""
