"""Compiling paid once, on purpose: `puzzledb compile` and `snakemake kernels` put into the
kernel cache what a build and its queries will load, so that the build compiles nothing."""

import os
import re
import subprocess
import sys

import yaml

from conftest import ROOT, assert_one_line_error

READY = re.compile(r"^(\d+) kernels of (\d+) puzzles ready, (\d+) compiled in [\d.]+ s "
                   r"\(\d+ processes\); kernel cache [\d.]+ MiB in (.+)$")


def cli(cache, *args, cwd=None):
    env = dict(os.environ, PUZZLEDB_CACHE_DIR=str(cache))
    return subprocess.run([sys.executable, "-m", "puzzledb.cli", *args], capture_output=True,
                          text=True, env=env, cwd=cwd)


def test_a_family_compiles_each_of_its_puzzles(tmp_path):
    """On the tests' own kernel cache (warm or not: only the puzzles are counted here; a
    cold cache is test_snakemake_kernels_compiles_the_configs_puzzles_ahead's)."""
    done = subprocess.run([sys.executable, "-m", "puzzledb.cli", "compile", "pegs"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert READY.match(done.stdout.strip()).group(2) == "3"  # english33, hoppers, triangle15


def test_compile_names_what_it_does_not_know_and_needs_a_name_or_a_config(tmp_path):
    assert_one_line_error(cli(tmp_path / "cache", "compile", "no-such-puzzle"),
                          "no-such-puzzle")
    assert_one_line_error(cli(tmp_path / "cache", "compile", cwd=tmp_path), "config.yaml")


def test_snakemake_kernels_compiles_the_configs_puzzles_ahead(tmp_path):
    """On a cold cache, `snakemake kernels` compiles the config's puzzle; then `puzzledb
    compile` finds nothing left to compile, and the build compiles nothing."""
    cache = tmp_path / "cache"
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(
        {"puzzles": ["hoppers"], "results": str(tmp_path / "results")}))
    env = dict(os.environ, PUZZLEDB_CACHE_DIR=str(cache))
    run = subprocess.run([sys.executable, "-m", "snakemake", "kernels", "--snakefile",
                          str(ROOT / "Snakefile"), "--directory", str(tmp_path), "--cores",
                          "2", "--quiet"], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    line = (tmp_path / "results" / "kernels.txt").read_text().strip()
    kernels, count, compiled, where = READY.match(line).groups()
    assert int(count) == 1 and int(compiled) == int(kernels) > 0
    assert where.startswith(str(cache))
    again = cli(cache, "compile", "hoppers")
    assert again.returncode == 0, again.stderr
    assert READY.match(again.stdout.strip()).group(3) == "0"
    build = cli(cache, "--results", str(tmp_path / "results"), "build", "hoppers",
                cwd=tmp_path)
    assert build.returncode == 0, build.stderr
    assert re.search(r"hoppers: \d+ kernels ready in [\d.]+ s \(0 compiled\)", build.stderr)
