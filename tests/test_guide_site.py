"""The guide builds as a site (mkdocs.yml): `mkdocs build --strict`, every page of docs/ in
its nav, so that a link to a page or an anchor that does not exist, or a page left out of the
nav, fails here (mkdocs.yml makes each a warning, and --strict each warning an error)."""

import subprocess
import sys

import pytest

from conftest import ROOT


def test_the_guide_builds_as_a_site_with_no_warning(tmp_path):
    pytest.importorskip("mkdocs", reason="mkdocs is not installed: pip install -e \".[test]\"")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                           "--config-file", str(ROOT / "mkdocs.yml"),
                           "--site-dir", str(tmp_path / "site")],
                          capture_output=True, text=True)
    warnings = [line for line in done.stderr.splitlines() if not line.startswith("INFO")]
    assert done.returncode == 0 and not warnings, "\n".join(warnings) or done.stderr
    home = (tmp_path / "site" / "index.html").read_text()
    assert 'href="install/"' in home  # the README, its links to docs/ made the site's
