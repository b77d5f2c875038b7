"""The kernel cache keyed by what a kernel's code can reach (compiled/caching.py): an edit
recompiles the kernels it reaches, through an import or through a registry of tables types,
and nothing else; no stale code ever runs; and processes sharing a cache compile each kernel
once.  Each test works on a copy of the package with three small modules of its own."""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT

CALLEE = """
from puzzledb.compiled import jit


@jit
def answer():
    return 1
"""

CALLER = """
from puzzledb.compiled import jit
from puzzledb.zz_callee import answer


@jit
def twice():
    return 2 * answer()
"""

# a tables type whose lower bound is registered with compiled.register, and a generic loop
# in a module that never imports it: it reaches the bound through the registry only
TABLES = """
from collections import namedtuple

from puzzledb import compiled
from puzzledb.compiled import jit

ZTables = namedtuple("ZTables", "base")


@jit
def bound(rank, work, t):
    return rank + t.base[0]


compiled.register(ZTables, lower_bound=bound)
"""

GENERIC = """
from puzzledb.compiled import jit, lower_bound


@jit
def bound_of(rank, work, tables):
    return lower_bound(rank, work, tables)
"""

# Calls both kernels; prints their results and which kernels this process compiled.
SCRIPT = r"""
import json
import numpy as np
from numba.core import event

compiled = []


class Compiles(event.Listener):  # kernels only: an overload's body is compiled in its caller
    def on_start(self, ev):
        if ev.data["dispatcher"].py_func.__name__ != "<lambda>":
            compiled.append(ev.data["dispatcher"].py_func.__name__)

    def on_end(self, ev):
        pass


event.register("numba:compile", Compiles())
from puzzledb.zz_caller import twice
from puzzledb.zz_tables import ZTables
from puzzledb.zz_generic import bound_of

results = [twice(), bound_of(5, np.zeros(1, np.int64), ZTables(np.array([10])))]
print(json.dumps({"results": results, "compiled": sorted(set(compiled))}))
"""


@pytest.fixture
def package(tmp_path):
    """A copy of the package with the modules above, and a run of SCRIPT on it: (results,
    kernels compiled) on a kernel cache of its own."""
    copy = tmp_path / "src" / "puzzledb"
    shutil.copytree(ROOT / "workflow" / "puzzledb", copy,
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name, text in (("zz_callee", CALLEE), ("zz_caller", CALLER), ("zz_tables", TABLES),
                       ("zz_generic", GENERIC)):
        (copy / f"{name}.py").write_text(textwrap.dedent(text))
    env = dict(os.environ, PYTHONPATH=str(copy.parent),
               PUZZLEDB_CACHE_DIR=str(tmp_path / "cache"))

    def run(script=SCRIPT):
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                              text=True, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        found = json.loads(done.stdout)
        return found["results"], found["compiled"]

    return copy, run


def edit(path, old, new):
    path.write_text(path.read_text().replace(old, new))


def test_a_second_process_loads_every_kernel_and_an_edit_without_kernels_compiles_nothing(
        package):
    copy, run = package
    assert run() == ([2, 15], ["answer", "bound", "bound_of", "twice"])
    assert run() == ([2, 15], [])
    with open(copy / "cli.py", "a") as cli:  # a module no kernel imports
        cli.write("\n# an edit\n")
    for module in ("report/page.py", "compiled/caching.py", "compiled/compiling.py",
                   "compiled/numba_copies.py"):
        with open(copy / module, "a") as source:  # no kernel runs their code
            source.write("\n# an edit\n")
    assert run() == ([2, 15], [])


def test_an_edit_of_a_callee_recompiles_its_caller_and_no_stale_code_runs(package):
    copy, run = package
    run()
    edit(copy / "zz_callee.py", "return 1", "return 3")
    assert run() == ([6, 15], ["answer", "twice"])


def test_an_edit_of_a_registered_kernel_recompiles_the_generic_loop_that_reaches_it(package):
    copy, run = package
    run()
    edit(copy / "zz_tables.py", "rank + t.base[0]", "rank + 2 * t.base[0]")
    assert run() == ([2, 25], ["bound", "bound_of"])


def test_an_edit_of_a_module_the_kernels_share_recompiles_them_all(package):
    copy, run = package
    run()
    with open(copy / "compiled" / "__init__.py", "a") as shared:
        shared.write("\n# an edit\n")
    assert run()[1] == ["answer", "bound", "bound_of", "twice"]


def test_an_index_naming_a_tables_type_that_moved_away_or_cut_short_is_a_miss(package):
    """numba reads a kernel's index (its keys hold the argument types) before it checks the
    stamp: one naming a class no longer where it was, or a truncated one, is recompiled."""
    copy, run = package
    run()
    (copy / "zz_types.py").write_text(
        'from collections import namedtuple\nZTables = namedtuple("ZTables", "base")\n')
    edit(copy / "zz_tables.py", 'ZTables = namedtuple("ZTables", "base")',
         "from puzzledb import zz_types")
    edit(copy / "zz_tables.py", "register(ZTables", "register(zz_types.ZTables")
    moved = SCRIPT.replace("from puzzledb.zz_tables import ZTables",
                           "import puzzledb.zz_tables\nfrom puzzledb.zz_types import ZTables")
    assert run(moved) == ([2, 15], ["bound", "bound_of"])
    for index in (copy.parent.parent / "cache").rglob("*.nbi"):
        index.write_bytes(index.read_bytes()[:-20])
    assert run(moved) == ([2, 15], ["answer", "bound", "bound_of", "twice"])


def test_two_processes_on_one_cold_cache_compile_each_kernel_once(package, tmp_path):
    """The second process waits on the first's lock and loads what it saved."""
    copy, _ = package
    env = dict(os.environ, PYTHONPATH=str(copy.parent),
               PUZZLEDB_CACHE_DIR=str(tmp_path / "shared"))
    runs = [subprocess.Popen([sys.executable, "-c", SCRIPT], env=env, stdout=subprocess.PIPE,
                             text=True) for _ in range(2)]
    found = [json.loads(run.communicate()[0]) for run in runs]
    assert [f["results"] for f in found] == [[2, 15], [2, 15]]
    compiled = sorted(found[0]["compiled"] + found[1]["compiled"])
    assert compiled == ["answer", "bound", "bound_of", "twice"]


# Two kernels missing from a fresh cache, prepared with two cores: compiled in two forked
# processes, none in this one, then loaded here and run.
PREPARED = r"""
import json
import numpy as np
from numba.core import event
from puzzledb.bfs.twobit import zero
from puzzledb.compiled import prepare
from puzzledb.compiled.shuffle import shuffle

here = []


class Compiles(event.Listener):
    def on_start(self, ev):
        here.append(ev.data["dispatcher"].py_func.__name__)

    def on_end(self, ev):
        pass


event.register("numba:compile", Compiles())
words, out = np.arange(3, dtype=np.uint64), np.empty(24, np.uint8)
counts = prepare([(zero, (words,)), (shuffle, (words, out))], cores=2)
zero(words)
shuffle(words, out)
print(json.dumps({"counts": counts, "here": here, "zeros": int(out.sum())}))
"""


def test_a_builds_missing_kernels_are_compiled_in_processes_of_their_own_then_loaded(
        tmp_path):
    env = dict(os.environ, PUZZLEDB_CACHE_DIR=str(tmp_path / "cache"))
    found = [json.loads(subprocess.run([sys.executable, "-c", PREPARED], env=env, check=True,
                                       capture_output=True, text=True).stdout)
             for _ in range(2)]
    assert found[0] == {"counts": [2, 2], "here": [], "zeros": 0}
    assert found[1] == {"counts": [2, 0], "here": [], "zeros": 0}
