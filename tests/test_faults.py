"""Faults while writing end in one line naming the file and the cause, leave no file with a
final name that is not whole, and the rerun resumes to the right table: an injected write
failure at each place a layer's write can fail, a real full disk (a tiny tmpfs, where this
machine lets us mount one), and the one line of a rule that stops on a known error."""

import errno
import multiprocessing
import subprocess
import sys
from types import SimpleNamespace

import h5py
import numpy as np
import pytest

from puzzledb.bfs import in_memory
from puzzledb.store import files, layers as store
from puzzledb import puzzles
from puzzledb.cli import main
from puzzledb.errors import BudgetError, StorageError
from puzzledb.workflow import rule_job
from puzzledb.store.layers import LayerStore

HOPPERS = puzzles.get("hoppers")  # 12 small layers: quick to build again and again
FLIPIT = puzzles.get("flipit-square")


def quiet(message):
    pass


@pytest.fixture(scope="module")
def hoppers_reference(tmp_path_factory):
    """The manifest layers (depth, count, CRC-32) of a build that nothing disturbed."""
    directory = tmp_path_factory.mktemp("reference") / "hoppers" / "layers"
    in_memory.build(HOPPERS, directory, progress=False, log=quiet)
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


@pytest.mark.parametrize("nearly_full, owner, name, error, call, cause", [
    # on a nearly full disk: the disk is full when the space of a layer's chunks is
    # allocated; HDF5 fails flushing the file (h5py: a RuntimeError carrying HDF5's errno)
    (True, store, "allocate", OSError(errno.ENOSPC, "No space left on device"), 20,
     "No space left on device"),
    (True, h5py.File, "flush", HDF5_EIO, 8, "Input/output error"),
    # on a roomy disk (another writer fills it): HDF5 fails closing the file; the rename fails
    (False, h5py.File, "close", HDF5_FULL, 5, "No space left on device"),
    (False, store.os, "replace", OSError(errno.EIO, "Input/output error"), 5,
     "Input/output error"),
])
def test_a_failed_layer_write_is_one_line_naming_the_file_and_the_rerun_resumes(
        monkeypatch, capsys, tmp_path, hoppers_reference, nearly_full, owner, name, error,
        call, cause):
    directory = tmp_path / "hoppers" / "layers"
    monkeypatch.setattr(store, "_disk_may_fill", lambda *args: nearly_full)
    calls = fail_on_call(monkeypatch, owner, name, error, call)
    assert main(["--results", str(tmp_path), "build", "hoppers"]) == 2
    assert len(calls) == call
    last = capsys.readouterr().err.splitlines()[-1]
    kept = assert_only_whole_layers(directory, HOPPERS)
    assert last == f"puzzledb: error: cannot write {directory / f'depth_{kept:03d}.h5'}: {cause}"
    monkeypatch.undo()  # space freed, disk repaired
    report = in_memory.build(HOPPERS, directory, progress=False, log=quiet)
    assert report.resumed_from == kept - 1
    assert LayerStore(directory, HOPPERS).manifest()["layers"] == hoppers_reference


def test_a_failed_manifest_write_leaves_no_manifest_and_the_rerun_writes_it(
        monkeypatch, tmp_path, hoppers_reference):
    directory = tmp_path / "hoppers" / "layers"
    fail_on_call(monkeypatch, store.os, "replace", OSError(errno.ENOSPC, "full"), 13)
    with pytest.raises(StorageError, match="cannot write .*manifest.json: No space left"):
        in_memory.build(HOPPERS, directory, progress=False, log=quiet)
    assert assert_only_whole_layers(directory, HOPPERS) == 12
    monkeypatch.undo()
    assert in_memory.build(HOPPERS, directory, progress=False, log=quiet).resumed_from == 11
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
    report = in_memory.build(FLIPIT, directory, progress=False, log=quiet)
    assert (report.resumed_from, report.total, report.max_depth) == (kept - 1, 524_288, 22)
    reference = tmp_path / "reference"
    in_memory.build(FLIPIT, reference, progress=False, log=quiet)
    assert (LayerStore(directory, FLIPIT).manifest()["layers"]
            == LayerStore(reference, FLIPIT).manifest()["layers"])


def test_a_rule_stopping_on_a_known_error_ends_its_log_and_the_runs_stderr_with_one_line(
        tmp_path, capfd):
    log = tmp_path / "bfs.log"
    with pytest.raises(SystemExit) as stop:
        with rule_job(SimpleNamespace(log=[str(log)], config={}), append=True,
                      end_process=False):
            print("eleven: 239,500,800 ranks", file=sys.stderr)
            raise BudgetError("eleven: the search needs 60 MiB, more than the memory budget "
                              "of 50 MiB")
    line = ("puzzledb: error: eleven: the search needs 60 MiB, more than the memory budget "
            "of 50 MiB")
    assert stop.value.code == 2
    assert log.read_text().splitlines() == ["eleven: 239,500,800 ranks", line]
    assert capfd.readouterr().err.splitlines() == [line]


def test_a_rule_that_succeeds_ends_its_process_at_once_with_its_log_whole(tmp_path):
    log = tmp_path / "summary.log"
    script = (
        "import sys\n"
        "from types import SimpleNamespace\n"
        "from puzzledb.workflow import rule_job\n"
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
