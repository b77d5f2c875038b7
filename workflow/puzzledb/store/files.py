"""Writing a file so that a file with its final name is always whole: a temporary name
unique to its writer, renamed when the file is complete (atomic_file, write_text); a failure
to write (a full disk, an I/O error), from Python or from HDF5, as one StorageError naming the
file and the cause; what a writer needs to keep a nearly full disk from failing inside HDF5
(free_bytes, allocate); and whether the writer of a left-over temporary file is gone."""

import os
import re
import socket
import sys
from contextlib import contextmanager
from pathlib import Path

from puzzledb.errors import StorageError, one_line


def temporary_name(path):
    """Where `path` is written before it is renamed: a name unique to this writer (host and
    process), so that two writers never share a temporary file."""
    path = Path(path)
    return path.with_name(f"{path.name}.{os.getpid()}@{socket.gethostname()}.tmp")


@contextmanager
def atomic_file(path):
    """Yield a temporary path beside `path`; rename it to `path` when the block succeeds and
    remove it when it fails, so a file with the final name is always whole.  A failure to
    write (a full disk, an I/O error, no permission), from Python or from HDF5, becomes a
    StorageError naming the file and the cause.  (No fsync: a file survives a killed
    process whole; what a crash of the machine loses, the full check of every layer when a
    build resumes, or `puzzledb verify`, finds.)"""
    path = Path(path)
    tmp = temporary_name(path)
    failures = []
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with _write_failures_in_destructors(failures):
            yield tmp
        if failures:
            raise failures[0]
        os.replace(tmp, path)
    except BaseException as err:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass  # the write failed; the next build removes what is left (LayerStore.prune)
        if _is_write_failure(err):
            raise StorageError(f"cannot write {path}: {_cause(err)}") from None
        raise


def _is_write_failure(err):
    """An OSError, or one of the RuntimeErrors h5py raises when HDF5's file driver fails
    (their message carries the system's errno: `... errno = 28, error message = 'No space
    left on device' ...`)."""
    return isinstance(err, OSError) or (
        isinstance(err, RuntimeError) and re.search(r"errno = \d+", str(err)) is not None)


def _cause(err):
    """Why a write failed, in a few words: the system's words for the errno, which h5py
    gives only inside HDF5's message, else the message itself on one line."""
    code = err.errno if isinstance(getattr(err, "errno", None), int) else None
    found = re.search(r"errno = (\d+)", str(err))
    if found:
        code = int(found.group(1))
    return os.strerror(code) if code else one_line(err)


@contextmanager
def _write_failures_in_destructors(failures):
    """Collect write failures raised in destructors while the block runs, instead of letting
    Python print them.  When HDF5 cannot flush a file on close, h5py raises once and then
    again from the destructors of the file's objects, where Python can only print a
    traceback ("Exception ignored in ...").  The write has failed either way, and is
    reported once, as a StorageError."""
    previous = sys.unraisablehook

    def hook(unraisable):
        if _is_write_failure(unraisable.exc_value):
            failures.append(unraisable.exc_value)
        else:
            previous(unraisable)

    sys.unraisablehook = hook
    try:
        yield
    finally:
        sys.unraisablehook = previous


def write_text(path, text):
    """Write a text file through atomic_file."""
    with atomic_file(path) as tmp:
        Path(tmp).write_text(text)


def writer_gone(tmp):
    """True when the writer named in a temporary file's name (see temporary_name) ran on
    this host and is no longer alive, or the name is not one of ours."""
    try:
        writer, host = tmp.name.removesuffix(".tmp").rsplit("@", 1)
        pid = int(writer.rsplit(".", 1)[1])
    except (IndexError, ValueError):
        return True
    if host != socket.gethostname():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def free_bytes(directory):
    disk = os.statvfs(directory)
    return disk.f_bavail * disk.f_frsize


def allocate(fd, offset, length):
    """Allocate disk blocks for a file's bytes [offset, offset + length): an OSError now if
    the disk is full, rather than when they are written.  Where the platform cannot
    (no posix_fallocate), nothing is allocated and a full disk shows when HDF5 writes."""
    if hasattr(os, "posix_fallocate"):
        os.posix_fallocate(fd, offset, length)
