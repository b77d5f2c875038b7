"""The architecture as a tool checks it: import-linter's contracts in pyproject.toml (the
package's layers, and families that never import the engines) hold for the package, and the
families and the engines meet through the expansion protocol."""

import shutil
import subprocess
import sys
from pathlib import Path

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
