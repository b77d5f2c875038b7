"""Every repository file the documentation names exists: the README, docs/*.md, mkdocs.yml,
the config's comments, the workflow's rule files, and the docstrings and comments of the
package, its rule scripts and benchmarks.  A file that moved leaves no stale name behind."""

import os
import re
from functools import cache
from pathlib import Path

import pytest

from conftest import ROOT

# What a name of a repository file ends with (data such as .h5, .json or .txt are results
# or a user's files, named by pattern: not checked)
KINDS = ("py", "smk", "md", "yaml", "yml", "toml", "sh", "rst", "tws", "tsv", "cfg")
NAME = re.compile(r"(?<![\w./~${}-])([\w.-]+(?:/[\w.-]+)*\.(?:" + "|".join(KINDS)
                  + r"))(?![\w/([{-])")
PLACEHOLDERS = re.compile(r"NNN|DDD|QQQ|PPP|NAME|PofQ")  # depth_NNN.h5, examples/NAME.tws
# files of a user's own that examples name (a definition file given to a command or a config)
USERS_FILES = {"my.tws", "puzzles/2x2x2.tws"}
# files a build makes: the site's home page (mkdocs.yml), the README put there by
# docs/readme_home.py
GENERATED = {"index.md"}
SKIPPED = {"results", "__pycache__", "build", "dist"}  # and hidden folders (.git, .snakemake)


@cache
def repository_files():
    """Every file of the checkout, as a path relative to its root (posix), without what
    runs write into it (results, caches, builds)."""
    files = set()
    for folder, folders, names in os.walk(ROOT):
        folders[:] = [f for f in folders if not (f in SKIPPED or f.startswith(".")
                                                 or f.endswith(".egg-info"))]
        where = Path(folder).relative_to(ROOT)
        files.update((where / name).as_posix() for name in names)
    return files


def documents():
    """The files whose text names repository files, relative to the root."""
    found = ["README.md", "config.yaml", "Snakefile", "mkdocs.yml"]
    for pattern in ("docs/*.md", "workflow/rules/*.smk", "workflow/**/*.py", "scripts/*.py",
                    "benchmarks/*.py"):
        found += sorted(p.relative_to(ROOT).as_posix() for p in ROOT.glob(pattern))
    return found


def names_in(text):
    """The names of files in a text: a path or a bare file name with a source or document
    kind, not a URL, a pattern (<puzzle>, {depth}, *) or a path outside the checkout.  A
    bare definition file name (`3p1.tws`) or one under `samples/` is a sample of twsearch's
    checkout, which the benchmarks read and the project never holds: one of ours is named
    by its path (`examples/2x2x2.tws`)."""
    return {name for name in NAME.findall(text)
            if not name.startswith(".") and not PLACEHOLDERS.search(name)
            and not (name.endswith(".tws") and ("/" not in name
                                                 or name.startswith("samples/")))
            } - USERS_FILES - GENERATED


def exists(name, files):
    """Whether a name is a repository file: a path from the root, or the end of one (a path
    relative to the package, to a folder the text is about, or a bare file name)."""
    return name in files or any(f.endswith("/" + name) for f in files)


def test_the_name_finder_sees_paths_and_file_names_but_not_patterns_or_urls():
    text = ("see `bfs/frontier/plan.py` and twobit.py, the README.md; not "
            "results/<puzzle>/layers/depth_NNN.h5, https://example.org/x/y.py, ~/.cache/z.py "
            "or {name}.yaml, x_{d}_DDD.tsv; puzzledb.bfs.select is a module, st.md[0] a "
            "field; twsearch's 3p1.tws and samples/main/ufo.tws are not ours")
    assert names_in(text) == {"bfs/frontier/plan.py", "twobit.py", "README.md"}


@pytest.mark.parametrize("document", documents())
def test_every_file_a_document_names_exists(document):
    files = repository_files()
    missing = sorted(name for name in names_in((ROOT / document).read_text())
                     if not exists(name, files))
    assert missing == [], f"{document} names files that do not exist: {', '.join(missing)}"
