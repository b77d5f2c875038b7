"""The architecture as a tool checks it: import-linter's contracts in pyproject.toml (the
package's layers, and families that never import the engines) hold for the package."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_import_contract_of_pyproject_is_kept():
    # lint-imports finds the package on sys.path; workflow/ holds it in a source checkout
    lint_imports = Path(sys.executable).parent / "lint-imports"  # import-linter's command
    result = subprocess.run([lint_imports, ROOT / "pyproject.toml", "--no-cache"],
                            cwd=ROOT / "workflow", capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout
