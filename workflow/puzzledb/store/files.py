"""Writing a file so that a file with its final name is always whole: a temporary name
unique to its writer, renamed when the file is complete (atomic_file, write_text); a failure
to write (a full disk, an I/O error), from Python or from HDF5, as one StorageError naming the
file and the cause; an HDF5 file whose writes never fail inside HDF5 (hdf5_file); and
whether the writer of a left-over temporary file is gone."""

import os
import re
import socket
import sys
from contextlib import contextmanager
from pathlib import Path

import h5py

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


@contextmanager
def hdf5_file(tmp):
    """A new HDF5 file at `tmp` (a temporary name of atomic_file's) open for writing, which
    HDF5 writes through an HDF5Target (h5py's "fileobj" driver): (the h5py.File, a function
    that raises the first write that failed so far, for a writer to stop early).  A write
    that failed is raised (an OSError) once HDF5 has closed the file, at the latest."""
    target = HDF5Target(tmp)
    f = None
    try:
        with h5py.File(target, "w") as f:
            yield f, target.check
    except Exception:
        target.check()  # a failed write is the cause of what HDF5 or the writer raised
        raise
    finally:
        if f is not None and f.id.valid:
            # its close was cut short (an exception inside h5py's close): closed now, or
            # HDF5 would close it at exit, calling back into a Python that is gone
            f.close()
        os.close(target.fd)
    target.check()


class HDF5Target:
    """The file HDF5 writes through, which never lets a write fail inside HDF5.  h5py cannot
    recover from that: HDF5 leaves an object it failed to flush half closed, and h5py's
    destructors close it again, which crashes the process (HDF5 2.0, h5py 3.16: a full disk
    while a layer or samples.h5 was written ended `puzzledb build` in a segmentation fault
    after its error line, tests/test_faults.py).  So the first failure is kept (`failure`,
    raised by check()) and HDF5 is told the write succeeded; from then on what it writes
    (its metadata: not raw data, see KEPT_WRITE) is kept in memory, so that what it reads
    back is what it wrote, until the writer stops at its next check and HDF5 closes the
    file as if all were well.  (Through Python, HDF5 makes a few hundred calls for a layer
    of 20 million ranks: their cost is noise.)"""

    # A write larger than this is raw data, which HDF5 does not read back while it writes a
    # file (a layer's chunks are written directly, other datasets whole): not kept.
    KEPT_WRITE = 1 << 20

    def __init__(self, path):
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
        self.at = self.size = 0  # HDF5's position and end of file
        self.failure = None
        self.kept = []  # (offset, bytes) written since the failure, oldest first

    def check(self):
        if self.failure is not None:
            raise self.failure

    def seek(self, offset, whence=os.SEEK_SET):
        self.at = offset + {os.SEEK_SET: 0, os.SEEK_CUR: self.at, os.SEEK_END: self.size}[whence]
        return self.at

    def tell(self):
        return self.at

    def write(self, data):
        data = memoryview(data).cast("B")
        if self.failure is None:
            try:
                done = 0
                while done < len(data):
                    done += os.pwrite(self.fd, data[done:], self.at + done)
            except OSError as err:
                self.failure = err
        if self.failure is not None and len(data) <= self.KEPT_WRITE:
            self.kept.append((self.at, bytes(data)))
        self.at += len(data)
        self.size = max(self.size, self.at)
        return len(data)

    def readinto(self, buffer):
        view = memoryview(buffer).cast("B")
        done = 0
        try:
            done = os.preadv(self.fd, [view], self.at)
        except OSError as err:
            self.failure = self.failure or err
        view[done:] = bytes(len(view) - done)  # past the end: zeros, as HDF5's own driver
        for offset, data in self.kept:
            low, high = max(offset, self.at), min(offset + len(data), self.at + len(view))
            if low < high:
                view[low - self.at:high - self.at] = data[low - offset:high - offset]
        self.at += len(view)
        return len(view)

    def read(self, size):  # h5py takes an object with read() for a file object
        buffer = bytearray(size)
        self.readinto(buffer)
        return bytes(buffer)

    def truncate(self, size):
        if self.failure is None:
            try:
                os.ftruncate(self.fd, size)
            except OSError as err:
                self.failure = err
        self.size = size

    def flush(self):
        pass


def make_directory(path):
    """Make the directory `path`, and its parents, unless it exists: a failure is a
    StorageError naming it, as a failure to write a file is."""
    try:
        Path(path).mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise StorageError(f"cannot create directory {path}: {_cause(err)}") from None


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
