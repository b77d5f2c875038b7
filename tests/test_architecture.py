"""The architecture as a tool checks it: import-linter's contracts in pyproject.toml (the
package's layers, families that never import the engines, search modes chosen above the
engines and registered below them, a catalogue's jobs above its walks and cluster searches)
hold for the package; the families and the engines meet
through the expansion protocol; and what only plans (the Snakefile's parse, the workflow
adapter) loads no compiled code."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from puzzledb import puzzles
from puzzledb.bfs import twobit
from puzzledb.expansion import ExpansionState, LayerExpansion

ROOT = Path(__file__).resolve().parent.parent


def test_every_import_contract_of_pyproject_is_kept():
    # lint-imports finds the package on sys.path; workflow/ holds it in a source checkout
    result = lint_imports(ROOT / "workflow")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def lint_imports(package_root):
    lint_imports = Path(sys.executable).parent / "lint-imports"  # import-linter's command
    return subprocess.run([lint_imports, ROOT / "pyproject.toml", "--no-cache"],
                          cwd=package_root, capture_output=True, text=True)


def test_an_engine_importing_what_chooses_its_mode_breaks_the_contract(tmp_path):
    """The circle the modes table removed (select imports the engines, an engine imported
    its mode's name back from select) is what the bfs contract forbids: put back, it fails."""
    shutil.copytree(ROOT / "workflow" / "puzzledb", tmp_path / "puzzledb",
                    ignore=shutil.ignore_patterns("__pycache__"))
    search = tmp_path / "puzzledb" / "bfs" / "frontier" / "search.py"
    text = search.read_text()
    assert "from puzzledb.bfs.modes import FRONTIER\n" in text
    search.write_text(text.replace("from puzzledb.bfs.modes import FRONTIER\n",
                                   "from puzzledb.bfs.select import FRONTIER\n"))
    result = lint_imports(tmp_path)
    assert result.returncode != 0
    assert "puzzledb.bfs.frontier is not allowed to import puzzledb.bfs.select" in result.stdout


def test_the_plane_kernels_and_the_two_bit_array_meet_through_the_expansion_protocol():
    assert isinstance(puzzles.get("eight").layer_expansion(), LayerExpansion)
    assert isinstance(twobit.StateArray(100), ExpansionState)


# --- what plans loads no compiled code ---------------------------------------------------------

def numba_imports(stderr):
    """The modules of numba (and llvmlite) a `python -X importtime` run imported."""
    names = [line.rsplit("|", 1)[-1].strip() for line in stderr.splitlines()
             if line.startswith("import time:")]
    return [name for name in names if name.split(".")[0] in ("numba", "llvmlite")]


def test_importing_the_workflow_adapter_loads_no_numba():
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import puzzledb.rules"],
        capture_output=True, text=True, check=True)
    assert "puzzledb.rules" in result.stderr and numba_imports(result.stderr) == []


def test_parsing_the_snakefile_and_planning_the_frontier_jobs_loads_no_numba(tmp_path):
    """`snakemake -n` parses the Snakefile, checks the config and plans every rule, here
    with a sharded puzzle whose step records are on disk (the records' chain is walked to
    plan its manifest job); the run's own process imports no numba."""
    results = tmp_path / "results"
    subprocess.run([sys.executable, "-m", "puzzledb.cli", "--results", str(results), "build",
                    "eight", "--shards", "2", "--job-states", "20000"],
                   capture_output=True, check=True)
    (results / "eight" / "layers" / "manifest.json").unlink()
    config = {"puzzles": ["eight", "fourteen"], "results": str(results),
              "shards": {"eight": 2}, "job_states": 20000, "pdbs": {"fifteen": ["6-6-3"]},
              "problem_sets": [{"puzzle": "fourteen", "queries": "domino-bottom-right",
                                "k": 10}]}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "snakemake", "all", "pdbs", "-n",
         "--snakefile", str(ROOT / "Snakefile"), "--directory", str(tmp_path)],
        capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "frontier_manifest" in result.stdout and "pdb_table" in result.stdout
    assert "puzzledb.rules" in result.stderr and numba_imports(result.stderr) == []


def test_the_kernel_cache_is_made_when_the_first_kernel_is_not_when_compiled_is_imported(
        tmp_path):
    cache = tmp_path / "cache"
    script = ("import os, sys\n"
              "from puzzledb import compiled\n"
              "made = os.path.exists(sys.argv[1])\n"
              "from puzzledb.compiled import bitops\n"  # its kernels are decorated at import
              "print(made, os.listdir(sys.argv[1]) == [compiled.cache_directory().name])\n")
    result = subprocess.run([sys.executable, "-c", script, str(cache)], capture_output=True,
                            text=True, check=True,
                            env={**os.environ, "PUZZLEDB_CACHE_DIR": str(cache)})
    assert result.stdout.split() == ["False", "True"]


def test_running_a_kernel_imports_no_scipy_linalg():
    """numba's array implementations ask scipy.linalg whether BLAS is there (0.15 s of every
    command's start-up); puzzledb loads them told it is not (compiled.jit)."""
    pytest.importorskip("scipy.linalg")
    script = ("import sys\n"
              "import numpy as np\n"
              "from puzzledb.expansion import words\n"
              "assert words.units_active(np.ones(1, np.uint8), 0, 1)\n"
              "print(sorted(m for m in sys.modules if m.startswith('scipy.linalg')))\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True)
    assert result.stdout.split() == ["[]"]
