"""The architecture as a tool checks it: import-linter's contracts in pyproject.toml (the
package's layers, and families that never import the engines) hold for the package, and the
families and the engines meet through the expansion protocol."""

import subprocess
import sys
from pathlib import Path

from puzzledb import puzzles
from puzzledb.bfs import twobit
from puzzledb.expansion import ExpansionState, LayerExpansion

ROOT = Path(__file__).resolve().parent.parent


def test_every_import_contract_of_pyproject_is_kept():
    # lint-imports finds the package on sys.path; workflow/ holds it in a source checkout
    lint_imports = Path(sys.executable).parent / "lint-imports"  # import-linter's command
    result = subprocess.run([lint_imports, ROOT / "pyproject.toml", "--no-cache"],
                            cwd=ROOT / "workflow", capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_the_plane_kernels_and_the_two_bit_array_meet_through_the_expansion_protocol():
    assert isinstance(puzzles.get("eight").layer_expansion(), LayerExpansion)
    assert isinstance(twobit.StateArray(100), ExpansionState)
