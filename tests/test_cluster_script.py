"""The local SLURM script keeps to an environment of its own (issue 26, point 9).

The script itself needs root, Debian packages and daemons, so it is not run here; its
`venv` step is: it installs the SLURM executor plugin from PyPI into a fresh venv that sees
this interpreter's packages, and this interpreter's environment must come out as it was
(with the plugin, every local `snakemake` command waits for a SLURM controller).
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
