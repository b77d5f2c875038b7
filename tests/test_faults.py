"""Faults while writing end in one line naming the file and the cause, leave no file with a
final name that is not whole, and the rerun resumes to the right table: every write, fsync,
rename and creation of a small build made to fail in turn at the C library (a shim loaded
with LD_PRELOAD, tests/faults/inject.c), on both engines and the counts store; an injected
write failure at each place a layer's write can fail; a real full disk (a tiny tmpfs,
where this machine lets us mount one); and the one line of a rule that stops on a known
error."""

import ctypes
import errno
import hashlib
import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import time
import traceback
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import h5py
import numpy as np
import pandas
import pytest
import yaml

from building import build_in_memory, plan
from puzzledb import paths, puzzles
from puzzledb.bfs import checkpoint
from puzzledb.bfs.frontier.plan import StepRecord
from puzzledb.bfs.frontier.workfiles import PieceFile
from puzzledb.bfs.frontier.workindex import WORK_SUFFIX
from puzzledb.cli import main
from puzzledb.puzzles.permutation.puzzle import PermutationPuzzle
from puzzledb.config import load_definitions
from puzzledb.errors import BudgetError, PuzzledbError, StorageError, one_line
from puzzledb.store import files, layers as store
from puzzledb.store.counts import CountStore
from puzzledb.store.distances import DistanceStore, read_header as read_distance_header
from puzzledb.store import COUNTS, DISTANCES
from puzzledb.query.kinds import stored
from puzzledb.store.layer import Layer
from puzzledb.store.layers import LayerStore
from puzzledb.report.catalogue import merge, read_parts as catalogue_parts, search_part
from puzzledb.rules import rule_job
from wide_definitions import wide_definition

HOPPERS = puzzles.get("hoppers")  # 12 small layers: quick to build again and again
FLIPIT = puzzles.get("flipit-square")
RUSH4 = puzzles.get("rush4")  # a catalogue: its jobs' parts and its tables
WIDE = PermutationPuzzle("wide2", text=wide_definition(2))


def quiet(message):
    pass


@pytest.fixture(scope="module")
def hoppers_reference(tmp_path_factory):
    """The manifest layers (depth, count, CRC-32) of a build that nothing disturbed."""
    directory = tmp_path_factory.mktemp("reference") / "hoppers" / "layers"
    build_in_memory(HOPPERS, directory, progress=False, log=quiet)
    return LayerStore(directory, HOPPERS).manifest()["layers"]


def fail_on_call(monkeypatch, owner, name, error, call):
    """Make owner.name raise `error` on its call number `call` (1-based), and only then."""
    real = getattr(owner, name)
    calls = []

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) == call:
            raise error
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, failing)
    return calls


def assert_only_whole_layers(directory, puzzle):
    """Every file with a final name is a whole layer, no temporary file is left, and the
    database is not marked complete."""
    names = sorted(p.name for p in directory.iterdir())
    assert not (directory / "manifest.json").exists()
    assert not [n for n in names if n.endswith(".tmp")], names
    good = LayerStore(directory, puzzle).good_layers()
    assert [f"depth_{i.depth:03d}.h5" for i in good] == names
    return len(good)


# the failures h5py raises, as observed on a full tmpfs (HDF5's message carries the errno)
HDF5_FULL = OSError("Can't write unprocessed chunk data (file write failed: time = ..., "
                    "filename = 'x.tmp', file descriptor = 3, errno = 28, error message = "
                    "'No space left on device', buf = 0x1, total write size = 52722)")
HDF5_EIO = RuntimeError("Can't decrement id ref count (unable to close file, errno = 5, "
                        "error message = 'Input/output error')")


@pytest.mark.parametrize("owner, name, error, call, cause", [
    # a write of HDF5's fails (a full disk), in the file the store hands HDF5 to write through
    (files.os, "pwrite", OSError(errno.ENOSPC, "No space left on device"), 20,
     "No space left on device"),
    # h5py fails closing the file (a RuntimeError carrying HDF5's errno); the rename fails
    (h5py.File, "close", HDF5_FULL, 5, "No space left on device"),
    (h5py.File, "close", HDF5_EIO, 8, "Input/output error"),
    (files.os, "replace", OSError(errno.EIO, "Input/output error"), 5, "Input/output error"),
])
def test_a_failed_layer_write_is_one_line_naming_the_file_and_the_rerun_resumes(
        monkeypatch, capsys, tmp_path, hoppers_reference, owner, name, error, call, cause):
    directory = tmp_path / "hoppers" / "layers"
    calls = fail_on_call(monkeypatch, owner, name, error, call)
    assert main(["--results", str(tmp_path), "build", "hoppers"]) == 2
    # the build stops at the failure (a close cut short is done once more, so that HDF5
    # holds no file it would close at the interpreter's exit)
    assert len(calls) == call + (name == "close")
    last = capsys.readouterr().err.splitlines()[-1]
    kept = assert_only_whole_layers(directory, HOPPERS)
    assert last == f"puzzledb: error: cannot write {directory / f'depth_{kept:03d}.h5'}: {cause}"
    monkeypatch.undo()  # space freed, disk repaired
    report = build_in_memory(HOPPERS, directory, progress=False, log=quiet)
    assert report.resumed_from == kept - 1
    assert LayerStore(directory, HOPPERS).manifest()["layers"] == hoppers_reference


def test_a_failed_manifest_write_leaves_no_manifest_and_the_rerun_writes_it(
        monkeypatch, tmp_path, hoppers_reference):
    directory = tmp_path / "hoppers" / "layers"
    fail_on_call(monkeypatch, files.os, "replace", OSError(errno.ENOSPC, "full"), 13)
    with pytest.raises(StorageError, match="cannot write .*manifest.json: No space left"):
        build_in_memory(HOPPERS, directory, progress=False, log=quiet)
    assert assert_only_whole_layers(directory, HOPPERS) == 12
    monkeypatch.undo()
    assert build_in_memory(HOPPERS, directory, progress=False, log=quiet).resumed_from == 11
    assert LayerStore(directory, HOPPERS).manifest()["layers"] == hoppers_reference


@pytest.fixture
def tiny_disk(tmp_path):
    """A 400 KiB tmpfs (flip-it's layers take about 830 KiB); skipped where this process
    may not mount one (not root, or no CAP_SYS_ADMIN in a container)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=400k", "tmpfs", str(disk)],
                             capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    yield disk
    subprocess.run(["umount", "-l", str(disk)], check=True)


def test_a_really_full_disk_ends_in_one_line_and_the_build_resumes_after_space_is_freed(
        tiny_disk, tmp_path, capfd):
    directory = tiny_disk / "flipit-square" / "layers"
    assert main(["--results", str(tiny_disk), "build", "flipit-square"]) == 2
    err = capfd.readouterr().err  # file descriptor 2: h5py's C side prints there too
    assert "Traceback" not in err and "Exception ignored" not in err
    kept = assert_only_whole_layers(directory, FLIPIT)
    assert 0 < kept < 23
    assert err.splitlines()[-1] == (f"puzzledb: error: cannot write "
                                    f"{directory / f'depth_{kept:03d}.h5'}: "
                                    f"No space left on device")
    subprocess.run(["mount", "-o", "remount,size=4m", str(tiny_disk)], check=True)
    report = build_in_memory(FLIPIT, directory, progress=False, log=quiet)
    assert (report.resumed_from, report.total, report.max_depth) == (kept - 1, 524_288, 22)
    reference = tmp_path / "reference"
    build_in_memory(FLIPIT, reference, progress=False, log=quiet)
    assert (LayerStore(directory, FLIPIT).manifest()["layers"]
            == LayerStore(reference, FLIPIT).manifest()["layers"])


def test_a_rule_stopping_on_a_known_error_ends_its_log_and_the_runs_stderr_with_one_line(
        tmp_path, capfd):
    log = tmp_path / "bfs.log"
    with pytest.raises(SystemExit) as stop:
        with rule_job(SimpleNamespace(log=[str(log)], config={}), append=True,
                      end_process=False):
            print("eleven: 239,500,800 ranks", file=sys.stderr)
            raise BudgetError("eleven needs 60 MiB for its in-memory search, more than "
                              "memory_mb: 50")
    line = ("puzzledb: error: eleven needs 60 MiB for its in-memory search, more than "
            "memory_mb: 50")
    assert stop.value.code == 2
    assert log.read_text().splitlines() == ["eleven: 239,500,800 ranks", line]
    assert capfd.readouterr().err.splitlines() == [line]


def test_a_rule_that_succeeds_ends_its_process_at_once_with_its_log_whole(tmp_path):
    log = tmp_path / "summary.log"
    script = (
        "import sys\n"
        "from types import SimpleNamespace\n"
        "from puzzledb.rules import rule_job\n"
        f"with rule_job(SimpleNamespace(log=[{str(log)!r}], config={{}})):\n"
        "    print('written', file=sys.stderr)\n"
        "    print('to stdout', end='')\n"
        "print('after the job')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (0, "to stdout", "")
    assert log.read_text() == "written\n"


def test_a_write_failure_reported_from_a_destructor_fails_the_write_once_and_silently(
        tmp_path, capfd):
    # h5py, when HDF5 cannot flush a file it closes, raises again from the destructors of
    # the file's objects, where Python would print it as "Exception ignored in ..."
    class FailsWhenFreed:
        def __del__(self):
            raise HDF5_EIO

    with pytest.raises(StorageError, match=r"cannot write .*x\.txt: Input/output error$"):
        with files.atomic_file(tmp_path / "x.txt") as tmp:
            tmp.write_text("whole?")
            FailsWhenFreed()
    assert list(tmp_path.iterdir()) == []
    assert capfd.readouterr().err == ""


def test_a_forked_process_writes_a_layer_after_its_parent_wrote_one(tmp_path):
    # the chunks of a layer are deflated in the threads of the store's pool; a forked child
    # (multiprocessing's default on Linux) has none of them and once waited for them forever
    store.write_ranks(tmp_path / "parent.h5", [np.arange(5, dtype=np.uint64)], 5, {}, "h",
                      "parent")
    child = multiprocessing.get_context("fork").Process(
        target=store.write_ranks,
        args=(tmp_path / "child.h5", [np.arange(7, dtype=np.uint64)], 7, {}, "h", "child"))
    child.start()
    child.join(timeout=60)
    if child.is_alive():
        child.kill()
    assert child.exitcode == 0
    with h5py.File(tmp_path / "child.h5") as f:
        assert f["ranks"][:].tolist() == list(range(7))


def test_a_sharded_build_stopped_before_a_step_record_leaves_no_work_files_once_resumed(
        monkeypatch, tmp_path):
    # depth 11 fans out into expand and merge jobs; the build stops when the record of the
    # step that gathers it is written, after the layer: the rerun finds the layer whole, and
    # once left the depth's work files behind for good
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({"puzzles": ["four-by-two"], "define": SMALL_PUZZLES}))
    argv = ["--config", str(config), "--results", str(tmp_path), "build", "four-by-two",
            "--shards", "2", "--job-states", "80", "--depth-limit", "11"]
    real = os.replace

    def replace(source, target):
        if Path(target).name == "step_011.json":
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return real(source, target)

    monkeypatch.setattr(files.os, "replace", replace)
    assert main(argv) == 2
    work = tmp_path / "four-by-two" / "frontier" / "d011"
    assert (tmp_path / "four-by-two" / "layers" / "depth_011.h5").exists()
    assert list(work.rglob("*.work")), "no work files to leave behind"
    monkeypatch.undo()
    assert main(argv) == 0
    assert not work.exists()


# -- every write failing in turn -------------------------------------------------------------
#
# As SQLite proves its storage: the shim tests/faults/inject.c, loaded with LD_PRELOAD,
# counts the calls that change files under a directory (write, pwrite, writev, ftruncate,
# fallocate, fsync, fdatasync, rename, mkdir, open with O_CREAT), from Python, HDF5 and
# ISA-L alike, and fails the N-th.  A job (a build, or one write of the store) is run once
# to count its calls, then once for every N and way of failing: each failing run in a forked
# process that ends after it, as a command that stops on an error does (HDF5 is not fit to
# go on after a failed write: a later call in the same process can crash it), then the same
# job again, in the parent, which must end with what the clean run wrote.

# Small puzzles declared for the builds (`--config`), beside the built-in hoppers.
SMALL_PUZZLES = {
    "four": {"family": "sliding", "width": 2, "height": 2, "goal": "12 30"},
    "four-by-two": {"family": "sliding", "width": 4, "height": 2, "goal": "1234 5670"},
    "wide2": {"family": "permutation", "text": wide_definition(2)},  # keys of two words
}
# The builds, one a line: (id, the puzzledb command after `--results DIR`).
BUILDS = [
    # the in-memory engine, graded (a bitset per level): 12 layers
    ("hoppers", ["build", "hoppers"]),
    # the in-memory engine on two bits a state: the 2x2's 7 layers
    ("four", ["build", "four"]),
    # the counts store, a checkpoint (fsync'd) after every layer
    ("four-counts", ["build", "four", "--store", "counts", "--checkpoint-minutes", "0"]),
    # the distances store: a checkpoint after every layer, then the table of depths
    ("four-distances", ["build", "four", "--store", "distances", "--checkpoint-minutes",
                        "0"]),
    # the frontier engine, to depth 11 of 36: depths 1..8 in-process through work files, 9
    # and 10 through a bitset (kept from one to the next), 11 fanned out into expand and
    # merge jobs (a part each)
    ("four-by-two-sharded", ["build", "four-by-two", "--shards", "2", "--job-states", "80",
                             "--depth-limit", "11"]),
    # the frontier engine on keys of two words, to depth 5 of 11: in-process through work
    # files, then fanned out (layers in parts)
    ("wide2-keys", ["build", "wide2", "--shards", "2", "--job-states", "100",
                    "--depth-limit", "5"]),
    # the frontier engine up to the 2x2's reflection: keys of classes, each layer's file,
    # part and listing weighed (its positions)
    ("four-classes", ["build", "four", "--shards", "2", "--job-states", "2", "--symmetry",
                      "classes"]),
]


def write_layer(results):
    """A layer of flip-it of three chunks (150,000 ranks)."""
    LayerStore(results, FLIPIT).write_layer(1, [np.arange(0, 450_000, 3, np.uint64)], 150_000)


def write_counts(results):
    """A counts store's manifest, and its samples.h5 first."""
    counts = CountStore(results, FLIPIT)
    infos = [counts.keep_layer(depth, 1000 * depth + 16, np.arange(depth, 4096 * 64, 64))
             for depth in range(12)]
    counts.write_manifest(infos, mode="in-memory")


def write_parts(results):
    """A layer written in two parts, then its map."""
    layers = LayerStore(results, FLIPIT)
    entries = [layers.write_part(1, q, 2, [np.arange(q * 1000, q * 1000 + 900, 3, np.uint64)],
                                 300, q * 1000, (q + 1) * 1000, range(q, q + 1))
               for q in range(2)]
    layers.write_parted(1, entries)


def write_wide_parts(results):
    """A layer of keys of two words in two parts (of two chunks and of one), then its map."""
    layers = LayerStore(results, WIDE)
    rows = [np.stack([np.repeat(np.arange(q * 4, q * 4 + 3, dtype=np.uint64), 40_000),
                      np.tile(np.arange(0, 80_000, 2, dtype=np.uint64), 3)], axis=1)
            [:100_000 if q else 120_000] for q in range(2)]
    entries = [layers.write_part(1, q, 2, [rows[q]], len(rows[q]), q * 4, (q + 1) * 4,
                                 range(q, q + 1)) for q in range(2)]
    layers.write_parted(1, entries)


def write_catalogue(results):
    """The 4x4 Rush Hour catalogue: two jobs' parts, then catalogue.csv, its summary and
    its totals."""
    parts = [paths.catalogue_part(results, "rush4", job, 2) for job in range(2)]
    for job, part in enumerate(parts):
        search_part(RUSH4, job, 2, part)
    merge(RUSH4, parts, paths.catalogue(results, "rush4"),
          paths.catalogue_summary(results, "rush4"), paths.catalogue_totals(results, "rush4"))


# One write of the store each, one a line: (id, a function writing into a directory, the
# puzzle whose files it writes).
STORE_WRITES = [("layer", write_layer, FLIPIT), ("counts", write_counts, FLIPIT),
                ("parts", write_parts, FLIPIT), ("wide-parts", write_wide_parts, WIDE),
                ("catalogue", write_catalogue, RUSH4)]


@dataclass(frozen=True)
class Failing:
    """A way of failing the N-th call: once (an I/O error; the calls after it succeed), or
    it and every call after it (a full disk)."""

    name: str
    errno: int
    persist: bool


FAILINGS = [Failing("EIO once", errno.EIO, False),
            Failing("ENOSPC from then on", errno.ENOSPC, True)]
FAULTS_UNDER = "PUZZLEDB_FAULTS_UNDER"  # the shim counts the calls on paths under it


def every_call(calls):
    return range(1, calls + 1)


def ends_and_middle(calls):
    """The first and last calls of a write, where its kinds of call are (mkdir, open, the
    first writes; the last writes, ftruncate, rename), and a few of the writes between."""
    return sorted({*range(1, min(calls, 6) + 1), *range(max(calls - 5, 1), calls + 1),
                   *(1 + calls * k // 4 for k in range(1, 4))})


@pytest.mark.parametrize("calls", [ends_and_middle,
                                   pytest.param(every_call, marks=pytest.mark.slow)],
                         ids=["ends and middle", "every call"])
def test_each_call_of_each_store_write_failing_in_turn_is_one_line_and_leaves_no_bad_file(
        calls, request, tmp_path):
    shim = Shim.loaded()
    if shim is None:
        run_again_under_the_shim(request, tmp_path)
        return
    for name, write, puzzle in STORE_WRITES:
        every_fault(name, shim, store_write(write), puzzle,
                    Path(os.environ[FAULTS_UNDER]) / name, tmp_path, calls)


@pytest.mark.slow
@pytest.mark.parametrize("command", [command for _, command in BUILDS],
                         ids=[name for name, _ in BUILDS])
def test_every_write_fsync_and_rename_of_a_build_failing_in_turn_resumes_to_the_same_database(
        command, request, tmp_path):
    shim = Shim.loaded()
    if shim is None:
        run_again_under_the_shim(request, tmp_path)
        return
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({"puzzles": list(SMALL_PUZZLES),
                                      "define": SMALL_PUZZLES}))
    load_definitions(config)
    job = puzzledb_command(["--config", str(config)], command)
    every_fault(" ".join(command), shim, job, searched(command, puzzles.get(command[1])),
                Path(os.environ[FAULTS_UNDER]), tmp_path)


def searched(command, puzzle):
    """The puzzle as `puzzledb build` searches it (its SearchPlan's, select.choose): its class
    puzzle (its layers' keys) when the frontier search goes up to its symmetries."""
    symmetry = command[command.index("--symmetry") + 1] if "--symmetry" in command \
        else "default"
    shards = int(command[command.index("--shards") + 1]) if "--shards" in command else None
    return plan(puzzle, shards=shards, symmetry=symmetry).searched(puzzle)


class Shim:
    """The shim's globals, in a process started with it in LD_PRELOAD."""

    def __init__(self):
        lib = ctypes.CDLL(None)
        self.calls = ctypes.c_long.in_dll(lib, "faults_calls")
        self.fail_at = ctypes.c_long.in_dll(lib, "faults_fail_at")
        self.errno = ctypes.c_int.in_dll(lib, "faults_errno")
        self.persist = ctypes.c_int.in_dll(lib, "faults_persist")
        self.injected = ctypes.c_long.in_dll(lib, "faults_injected")
        self.failed = ctypes.c_char.in_dll(lib, "faults_failed")

    @classmethod
    def loaded(cls):
        try:
            return cls()
        except ValueError:  # no such symbol: the shim is not loaded
            return None

    def arm(self, call=0, failing=None):
        """Count from zero, and fail call number `call` (0: none) as `failing` says."""
        self.calls.value = self.injected.value = 0
        self.fail_at.value = call
        if failing is not None:
            self.errno.value, self.persist.value = failing.errno, failing.persist

    def first_failed(self):
        """(call, path) of the first call made to fail."""
        call, _, path = ctypes.string_at(ctypes.addressof(self.failed)).decode().partition(" ")
        return call, path


def run_again_under_the_shim(request, tmp_path):
    """Run the calling test again in a pytest process started with the shim in LD_PRELOAD,
    counting the calls under tmp_path/faults; pass on its lines saying what was injected."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the fault shim needs LD_PRELOAD and /proc/self/fd (Linux)")
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler (cc or gcc) to build the fault shim")
    shim = tmp_path / "inject.so"
    subprocess.run([compiler, "-shared", "-fPIC", "-O2", "-o", str(shim),
                    str(Path(__file__).parent / "faults" / "inject.c"), "-ldl"], check=True)
    env = dict(os.environ, LD_PRELOAD=f"{shim} {os.environ.get('LD_PRELOAD', '')}".strip(),
               **{FAULTS_UNDER: str(tmp_path / "faults")},
               # numba's own thread pool, which starts again in a forked process (an OpenMP
               # pool would wait there for threads the child does not have)
               NUMBA_THREADING_LAYER="workqueue")
    started = time.perf_counter()
    ran = subprocess.run([sys.executable, "-m", "pytest", request.node.nodeid, "-q", "-s",
                          "-m", "slow or not slow",  # whichever tier this test is in
                          "-n", "0",  # in this process: its output read here
                          "-p", "no:cacheprovider", f"--basetemp={tmp_path / 'pytest'}"],
                         cwd=Path(__file__).parent.parent, env=env, capture_output=True,
                         text=True)
    assert ran.returncode == 0, ran.stdout[-20000:] + ran.stderr[-5000:]
    print("\n".join(re.findall(r"^.*injected \d+ faults.*$", ran.stdout, re.M)),
          f"({time.perf_counter() - started:.0f} s)")


def puzzledb_command(options, argv):
    """A puzzledb command line as a job: run it on a results directory, its exit status."""
    return lambda results: main([*options, "--results", str(results), *argv])


def store_write(write):
    """A write of the store as a job: 0, or 2 and the command line's one line when it
    raises a PuzzledbError."""
    def job(results):
        try:
            write(results)
        except PuzzledbError as err:
            print(f"puzzledb: error: {one_line(err)}", file=sys.stderr)
            return 2
        return 0
    return job


def every_fault(name, shim, job, puzzle, under, logs, chosen=every_call):
    """Run the job once to count its calls, then once failing each of them (those `chosen`
    picks from their number) in each way (FAILINGS), checking what each failure leaves and
    that the job run again ends with what the clean run wrote; print what was injected.
    Its output goes to files in `logs`, where the shim does not count."""
    reference = under / "reference"
    under.mkdir(parents=True, exist_ok=True)  # made once: not one of the job's calls
    shim.arm()
    expect_success(job, reference, logs / "reference.log")
    calls = shim.calls.value
    expected = database(reference)
    assert calls and expected, "the job wrote nothing"
    kinds = Counter()  # the calls, by name
    injected = 0
    for call in chosen(calls):
        for failing in FAILINGS:
            results = under / f"fail{call:05d}"
            what = f"call {call} of {calls} failing ({failing.name})"
            failed = failing_in_a_child(shim, job, results, call, failing, logs / "child.log")
            failed.check(results, failing, what)
            assert_final_files_whole(results, puzzle, what)
            expect_success(job, results, logs / "again.log", what + ", then the job run again")
            assert_same_database(database(results), expected, what)
            shutil.rmtree(results)
            injected += failed.injected
        kinds[failed.call] += 1
    print(f"{name}: {calls} calls, {sum(kinds.values())} of them failed in turn "
          f"({', '.join(f'{k} {n}' for k, n in kinds.most_common())}), "
          f"injected {injected} faults, each time one line naming the file, no file left "
          f"that is not whole, and the same result run again")


def expect_success(job, results, log, what="the job"):
    with open(log, "w") as out:
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = out
        try:
            status = job(results)
        finally:
            sys.stdout, sys.stderr = saved
    assert status == 0, f"{what}: exit status {status}:\n{log.read_text()}"


@dataclass
class Failed:
    """What a job failing in a child process did: how the process ended (waitpid's
    status), the job's exit status (None: it raised), what it printed, the calls made to
    fail and the first of them."""

    status: int
    exit: int | None
    output: str
    injected: int
    call: str
    path: str

    def check(self, results, failing, what):
        """One line naming the file the failed call was writing, with the cause, and
        nothing else wrong (no traceback, no crash, no message of HDF5's)."""
        assert os.WIFEXITED(self.status), f"{what}: the process ended by signal " \
            f"{os.WTERMSIG(self.status)}:\n{self.output}"
        assert self.injected >= 1, f"{what}: no call failed"
        assert self.exit == 2, f"{what}: exit status {self.exit}:\n{self.output}"
        for noise in ("Traceback", "Exception ignored", "HDF5-DIAG"):
            assert noise not in self.output, f"{what}: {noise}:\n{self.output}"
        last = self.output.splitlines()[-1]
        named = re.fullmatch(r"puzzledb: error: cannot (?:write|create directory) (\S+): (.*)",
                             last)
        assert named, f"{what}: not a write failure's line:\n{self.output}"
        path, cause = named.groups()
        assert cause == os.strerror(failing.errno), f"{what}: {last}"
        # the file the failed call wrote (its temporary name) or a directory made for it
        assert (self.path == path or self.path.startswith(path + ".")
                or path.startswith(self.path + "/")), f"{what}: {self.call} {self.path}: {last}"
        assert Path(path).is_relative_to(results), f"{what}: {last}"


def failing_in_a_child(shim, job, results, call, failing, log):
    """The job in a forked process, with call number `call` failing: a Failed."""
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run, report, end at once (no cleanup of the parent's)
        os.close(reader)
        status = None
        try:
            out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(out, 1)
            os.dup2(out, 2)  # HDF5 and Python print there
            sys.stdout = sys.stderr = open(out, "w", buffering=1)
            shim.arm(call, failing)
            status = job(results)
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stderr.flush()
            shim.fail_at.value = 0
            os.write(writer, json.dumps([status, shim.injected.value,
                                         *shim.first_failed()]).encode())
            os._exit(0)
    os.close(writer)
    with os.fdopen(reader, "rb") as report:
        reported = report.read()
    _, status = os.waitpid(pid, 0)
    exit, injected, name, path = json.loads(reported) if reported else (None, 0, "", "")
    return Failed(status, exit, log.read_text(), injected, name, path)


def assert_final_files_whole(results, puzzle, what):
    """Every file with a final name under `results` reads back whole, by the reader of its
    kind, and no temporary file is left."""
    for path in sorted(p for p in results.rglob("*") if p.is_file()):
        try:
            read_whole(path, puzzle)
        except Exception as err:
            raise AssertionError(f"{what}: {path.relative_to(results)} does not read back: "
                                 f"{err}") from err


def read_hdf5(path, puzzle):
    with h5py.File(path, "r") as f:
        f.visititems(lambda _, item: isinstance(item, h5py.Dataset) and item[()])


def read_checkpoint(path, puzzle):
    header = next(filter(None, (checkpoint.read_header(path.parent, puzzle, store)
                                for store in (COUNTS, DISTANCES))), None)
    assert header is not None, "not a checkpoint of this puzzle"
    checkpoint.read(path.parent, header, np.empty(header["words"], np.uint64))


def read_distance_table(path, puzzle):
    """A table of depths is whole: its header and all its words; read against the
    manifest's CRC-32 once the manifest lists it."""
    header, offset = read_distance_header(path)
    assert path.stat().st_size == offset + 8 * header["words"], "a table cut short"
    if (path.parent / paths.MANIFEST).exists():
        DistanceStore(path.parent, puzzle).table().check()


def read_layer(path, puzzle):
    LayerStore(path.parent, puzzle).check_layer(int(path.name[len("depth_"):-len(".h5")]))


def read_part(path, puzzle):
    with Layer(path) as part:
        part.verify(puzzle.key_bounds())


def read_work_file(path, puzzle):
    piece = PieceFile(path)
    for t in range(piece.segments):
        piece.read_group(t)


# How each kind of file is read back whole, one a line: (its name, a regular expression;
# a function of its path and the puzzle that raises if it does not read back).
READERS = [
    (re.escape(paths.MANIFEST), lambda path, puzzle: stored(path.parent,
                                                            puzzle).manifest_layers()),
    (re.escape(paths.SAMPLES), read_hdf5),
    (re.escape(paths.CHECKPOINT), read_checkpoint),
    (re.escape(paths.DISTANCES), read_distance_table),
    (r"depth_\d{3}\.h5", read_layer),
    (r"part_\d{3}of\d{3}\.h5", read_part),
    (r"step_\d{3}\.json", lambda path, puzzle: StepRecord.read(path)),
    (r"part\.json", lambda path, puzzle: json.loads(path.read_text())),
    (r"x\d{5}\.\d{5}" + re.escape(WORK_SUFFIX), read_work_file),
    (r"part_\d{3}of\d{3}\.npz", lambda path, puzzle: catalogue_parts([path])),
    (r"catalogue(_summary|_totals)?\.csv", lambda path, puzzle: pandas.read_csv(path)),
]


def read_whole(path, puzzle):
    """Read the file at `path` back in full by the reader of its kind (AssertionError for a
    file of no known kind, such as a temporary file left behind)."""
    readers = [read for name, read in READERS if re.fullmatch(name, path.name)]
    assert readers, "a temporary file left behind" if path.name.endswith(".tmp") else \
        "a file of no known kind"
    readers[0](path, puzzle)


def assert_same_database(held, expected, what):
    differ = {name: (held.get(name), expected.get(name)) for name in {*held, *expected}
              if held.get(name) != expected.get(name)}
    assert not differ, f"{what}: run again, the job wrote what the clean run did not " \
        f"(then, clean):\n" + "\n".join(f"{name}: {pair}" for name, pair in sorted(differ.items()))


def database(results):
    """What a results directory holds, file by file (relative path -> contents): an HDF5
    file's datasets (digests of their data) and attributes, a JSON file's data without what
    only tells how the run went (its timings, the checkpoints it took), any other file's
    digest."""
    held = {}
    for path in sorted(p for p in results.rglob("*") if p.is_file()):
        name = str(path.relative_to(results))
        if path.suffix == ".h5":
            held[name] = hdf5_contents(path)
        elif path.suffix == ".json":
            held[name] = {k: v for k, v in json.loads(path.read_text()).items()
                          if not (k.endswith("seconds") or k == "checkpoints")}
        else:
            held[name] = hashlib.sha256(path.read_bytes()).hexdigest()
    return held


def hdf5_contents(path):
    """Every group's and dataset's attributes, and each dataset's data as a digest."""
    contents = {}

    def read(name, item):
        attrs = {k: np.asarray(v).tolist() for k, v in item.attrs.items()}
        data = None
        if isinstance(item, h5py.Dataset):
            values = item[()]
            data = (values.dtype.str, values.shape, hashlib.sha256(values.tobytes()).hexdigest())
        contents[name] = (attrs, data)

    with h5py.File(path, "r") as f:
        read("/", f)
        f.visititems(read)
    return contents
