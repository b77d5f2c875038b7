"""The package as a normal wheel: built and installed without -e into a fresh environment,
its command works from a directory holding a config.yaml (the schema and the built-in
puzzles are read from inside the installed package, not from a source tree)."""

import shutil
import site
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A fresh virtual environment with the project's wheel installed (its dependencies
    are taken from this environment's site-packages: the test needs no network), whether
    this environment is a virtual one or the base interpreter."""
    tmp = tmp_path_factory.mktemp("wheel")
    # a copy of what the wheel is made of: setuptools builds in the source tree (build/),
    # and a file left there by an older build would end up in the wheel
    source = tmp / "source"
    source.mkdir()
    for part in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / part, source / part)
    shutil.copytree(ROOT / "workflow" / "puzzledb", source / "workflow" / "puzzledb",
                    ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(tmp / "dist"), str(source)], check=True)
    wheel = next((tmp / "dist").glob("puzzledb-*.whl"))
    venv.EnvBuilder(with_pip=False).create(tmp / "venv")
    python = tmp / "venv" / "bin" / "python"
    # this environment's dependencies, seen after the new environment's own packages: the
    # directories go on sys.path as they are (a path line of a .pth file), their own .pth
    # files are not read, so an editable install of the project here stays out of sight
    # (system_site_packages would give the base interpreter's, which a venv user's
    # dependencies are not in)
    inside = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()"
                             "['purelib'])"], text=True, capture_output=True,
                            check=True).stdout.strip()
    Path(inside, "dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    subprocess.run([python, "-m", "pip", "install", "--no-deps", "-q", str(wheel)],
                   check=True)
    work = tmp / "work"
    work.mkdir()
    (work / "config.yaml").write_text(
        "puzzles: [eight, ten]\n"
        "define:\n  ten: {family: sliding, width: 5, height: 2, goal: \"12345 67890\"}\n")
    return python, work


def run(installed, *args):
    python, work = installed
    return subprocess.run([python.parent / "puzzledb", *args], cwd=work, text=True,
                          capture_output=True, check=True).stdout


def test_the_wheel_is_imported_from_the_environment_it_was_installed_into(installed):
    python, work = installed
    where = subprocess.run([python, "-c", "import puzzledb; print(puzzledb.__file__)"],
                           cwd=work, text=True, capture_output=True, check=True).stdout
    assert Path(where).is_relative_to(python.parent.parent)


def test_the_installed_command_lists_built_in_and_defined_puzzles(installed):
    listed = run(installed, "list")
    assert "eight" in listed and "fifteen" in listed
    assert "ten " in listed and "config.yaml" in listed


def test_the_installed_command_describes_the_eight_puzzle(installed):
    info = run(installed, "info", "eight")
    assert "rank space    181,440 ranks" in info


def test_the_installed_command_solves_the_eight_puzzle_by_tree_search(installed):
    solution = run(installed, "solve", "eight", "867 254 301", "--search", "ida")
    assert len(solution.split("\n")) - 1 == 32  # the start and 31 moves
