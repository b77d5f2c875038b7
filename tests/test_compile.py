"""Compile paid once and outside every search: what a search and its store's queries declare
they call (their kernels()) is loaded or compiled before the search's clock starts, so no
kernel is loaded or compiled inside a search, and a first query after a build compiles
nothing."""

import json
import os
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT, puzzledb_cli

# A dense toy of 4! * 3^3 = 648 ranks (its corners' twists sum to zero: 648 / 3 reached):
# its widest layers outnumber what is left unseen, so the search goes backward too.
TOY = """Set C 4 3
Move A
C
2 3 4 1
0 0 1 2
End
Move B
C
1 3 2 4
0 1 2 0
End
"""

# In a fresh process (no kernel loaded yet): every kernel a dispatcher takes on (loaded from
# the cache or compiled) while searching[0] is set, recorded in `inside`.
RECORDING = r"""
import json, sys
from numba.core.dispatcher import Dispatcher
from puzzledb import puzzles
from puzzledb.config import load_definitions

load_definitions(sys.argv[1])
inside, searching = [], [False]
add_overload = Dispatcher.add_overload


def recorded(self, cres):
    if searching[0]:
        inside.append(f"{self.py_func.__module__}.{self.py_func.__name__}"
                      f"{tuple(str(t) for t in cres.signature.args)}")
    return add_overload(self, cres)


Dispatcher.add_overload = recorded
"""

# Each build in turn, while the search's clock runs.
CHILD = RECORDING + r"""
from puzzledb.bfs import in_memory, select
from puzzledb.query.kinds import KINDS


def begin(progress, done, _begin=in_memory.Progress.begin):
    searching[0] = True
    _begin(progress, done)


def close(progress, _close=in_memory.Progress.close):
    searching[0] = False
    _close(progress)


in_memory.Progress.begin, in_memory.Progress.close = begin, close
found = {}
for name, store, directory in json.loads(sys.argv[2]):
    inside.clear()
    puzzle = puzzles.get(name)
    in_memory.build(puzzle, directory, select.choose(puzzle, KINDS[store]), progress=False,
                    log=lambda line: None)
    found[f"{name} ({store})"] = list(inside)
print(json.dumps(found))
"""

DEFINE = {
    "toy": {"family": "permutation", "file": "toy.tws"},
    "eight-multi": {"family": "sliding", "width": 3, "height": 3, "goal": "123 456 780",
                    "metric": "multi-tile"},
}


def config_file(tmp_path):
    (tmp_path / "toy.tws").write_text(TOY)
    define = {name: dict(entry, file=str(tmp_path / entry["file"])) if "file" in entry
              else entry for name, entry in DEFINE.items()}
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump({"puzzles": list(DEFINE), "define": define}))
    return path


def kernels_taken_inside_searches(tmp_path, builds):
    """{build: the kernels a fresh process took on inside its search} of each (puzzle,
    store) built in turn in one fresh process."""
    jobs = [(name, store, str(tmp_path / name / store)) for name, store in builds]
    run = subprocess.run([sys.executable, "-c", CHILD, str(config_file(tmp_path)),
                          json.dumps(jobs)], capture_output=True, text=True, check=True)
    return json.loads(run.stdout)


@pytest.mark.parametrize("builds", [
    pytest.param([("toy", "layers"), ("toy", "distances"), ("eight", "layers"),
                  ("eight", "counts"), ("eight", "distances"), ("flipit-square", "layers"),
                  ("hoppers", "layers")], id="rows, planes, state by state, graded"),
    pytest.param([("eight-multi", "layers"), ("eight-multi", "distances")],
                 id="plane jumps", marks=pytest.mark.slow),  # 45 s to compile, cold
])
def test_no_kernel_is_loaded_or_compiled_inside_a_search(tmp_path, builds):
    assert kernels_taken_inside_searches(tmp_path, builds) == {
        f"{name} ({store})": [] for name, store in builds}


QUERY = r"""
import sys
from numba.core import event
from puzzledb.cli import main


class Compiled(event.Listener):
    names = []

    def on_start(self, ev):
        self.names.append(ev.data["dispatcher"].py_func.__name__)

    def on_end(self, ev):
        pass


event.register("numba:compile", Compiled())
status = main(sys.argv[1:])
print("compiled:", ",".join(Compiled.names), file=sys.stderr)
sys.exit(status)
"""


@pytest.mark.slow  # a fresh kernel cache: the toy's kernels compiled once (about a minute)
@pytest.mark.parametrize("store", ["layers", "distances"])
def test_a_first_query_after_a_build_compiles_nothing(tmp_path, store):
    env = dict(os.environ, PUZZLEDB_CACHE_DIR=str(tmp_path / "cache"))
    common = [sys.executable, "-m", "puzzledb.cli", "--config", str(config_file(tmp_path)),
              "--results", str(tmp_path / "results")]
    subprocess.run(common + ["build", "toy", "--store", store], env=env, check=True,
                   capture_output=True, cwd=ROOT)
    board = subprocess.run(common + ["sample", "toy", "3", "--count", "1"], env=env,
                           check=True, capture_output=True, text=True).stdout.strip()
    for command in ("distance", "solve", "count"):
        run = subprocess.run([sys.executable, "-c", QUERY, "--config",
                              str(tmp_path / "config.yaml"), "--results",
                              str(tmp_path / "results"), command, "toy", board],
                             env=env, capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        assert run.stderr.strip().splitlines()[-1] == "compiled:", (command, run.stderr)


# The frontier search's steps, each job's memory bounded as the workflow bounds it: after a
# step has loaded what it declares.
FRONTIER = RECORDING + r"""
from puzzledb.bfs.frontier import step
from puzzledb.bfs.frontier.search import Frontier


def load(self, log, _load=step.Step._load_kernels):
    _load(self, log)
    searching[0] = True


step.Step._load_kernels = load
from puzzledb.puzzles.symmetric import Classes

found = {}
for name, directory in json.loads(sys.argv[2]):
    inside.clear()
    puzzle = puzzles.get(name.removesuffix(" by classes"))
    if name.endswith(" by classes"):  # its canonical keys and class sizes declared too
        puzzle = Classes(puzzle, puzzle.symmetry_group())
    search = Frontier(puzzle, f"{directory}/layers", f"{directory}/work", 4, 1 << 20)
    search.within(2000).step(0, log=lambda line: None)
    searching[0] = False
    found[name] = list(inside)
print(json.dumps(found))
"""


def test_no_kernel_is_loaded_or_compiled_inside_a_frontier_step(tmp_path):
    """A frontier step job loads what its depths may call before its clock: its dense
    depths' marking (the toy's rows, the eight's planes), both phases through work files
    (the toy's and the eight's first depths), and by classes their canonical keys and
    sizes (the eight under its transpose)."""
    names = ("toy", "eight", "eight by classes")
    jobs = [(name, str(tmp_path / name.replace(" ", "-"))) for name in names]
    run = subprocess.run([sys.executable, "-c", FRONTIER, str(config_file(tmp_path)),
                          json.dumps(jobs)], capture_output=True, text=True, check=True)
    assert json.loads(run.stdout) == {name: [] for name in names}


def test_a_second_frontier_build_in_a_new_process_compiles_nothing(tmp_path):
    """Every kernel a frontier step loads is in the cache after a first build: the threading
    layer's probe too (uncached, it was compiled again in every step and merge job)."""
    logs = []
    for run in ("first", "second"):
        result = puzzledb_cli("--results", str(tmp_path / run), "build", "eight", "--shards", "2")
        assert result.returncode == 0, result.stderr
        logs.append(result.stderr)
    ready = [line for line in logs[1].splitlines()
             if "kernels of the frontier search ready" in line]
    assert ready and all(line.endswith("(0 compiled)") for line in ready), ready


# A merge job in a fresh process, as the workflow runs it: every kernel taken on once it
# opens its work files (after loading what it declares), recorded.
MERGE = RECORDING + r"""
from puzzledb.bfs.frontier import merge
from puzzledb.bfs.frontier.search import Frontier


def opened(expanded, _open=merge.open_pieces):  # what a merge job does once loaded
    searching[0] = True
    return _open(expanded)


merge.open_pieces = opened
layers, work, depth, parts, expanded, out = json.loads(sys.argv[2])
frontier = Frontier(puzzles.get("eight"), layers, work, 4, 10**9)
frontier.merge(depth, 0, parts, expanded, out)
print(json.dumps(inside))
"""


def test_no_kernel_is_loaded_or_compiled_inside_a_merge_job(tmp_path):
    """A merge job loads what it calls before it merges, as a step job does: the eight's
    first depth too wide for its step's budget, expanded here, merged in a fresh process."""
    from puzzledb import puzzles
    from puzzledb.bfs.frontier.search import Frontier
    from puzzledb.bfs.memory import MERGE_WINDOW, merge_base_bytes

    layers, work = tmp_path / "layers", tmp_path / "work"
    frontier = Frontier(puzzles.get("eight"), layers, work, 4, 10**9)
    frontier.budget = merge_base_bytes(1, older=1) + (MERGE_WINDOW + 1) * 64 * 1024
    record = frontier.step(0, log=lambda line: None)
    assert record.fans_out()
    depth, parts = record.last + 1, record.parts
    expanded = [str(frontier.plan.expand_dir(depth, p, parts)) for p in range(parts)]
    for p in range(parts):
        frontier.expand(depth, p, parts, expanded[p])
    job = [str(layers), str(work), depth, parts, expanded,
           str(frontier.plan.merge_dir(depth, 0, parts))]
    run = subprocess.run([sys.executable, "-c", MERGE, str(config_file(tmp_path)),
                          json.dumps(job)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == []
