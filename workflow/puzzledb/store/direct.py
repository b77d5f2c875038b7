"""A large array moved between memory and a file past the page cache (direct I/O, O_DIRECT):
the two-bit array of a search, which a checkpoint saves (bfs/checkpoint.py) and the distances
store keeps (distances.py), both written by write_array.  Copied through the page cache,
10 GiB took a core for most of a minute and the memory the machine's other work needs; by
direct I/O from an array aligned on BLOCK bytes, 4 GiB took 1.4 s of wall and 0.1 s of CPU
(docs/benchmarks.md)."""

import os

import numpy as np

from puzzledb.store.files import atomic_file

IO_BYTES = 64 << 20  # bytes written or read at a time
BLOCK = 4096  # an array moved by direct I/O starts at a multiple of this, in memory and file


def aligned_words(count):
    """A uint64 array of `count` words whose data starts on a BLOCK boundary, so that it
    moves between memory and disk by direct I/O."""
    spare = BLOCK // 8
    raw = np.empty(count + spare, dtype=np.uint64)
    skip = (-raw.ctypes.data % BLOCK) // 8
    return raw[skip:skip + count]


def block_end(offset):
    """The first multiple of BLOCK at or after `offset`: where an array starts in a file."""
    return -(-offset // BLOCK) * BLOCK


def _direct(path, flags):
    """A file descriptor of `path` opened for direct I/O (no page cache), or None where the
    file system or the platform has none."""
    try:
        return os.open(path, flags | os.O_DIRECT)
    except (AttributeError, OSError):
        return None


def move(path, fd, raw, offset, writing, each=None):
    """Write raw (a byte view) to, or read it from, the file `path` at `offset`: by direct
    I/O where the array is BLOCK-aligned and the file system has it, the rest through fd
    (open on path, read or write as `writing` says).  each(piece): called on every piece
    moved, in order (a CRC-32 computed as the bytes go)."""
    direct = None
    if raw.ctypes.data % BLOCK == 0:
        direct = _direct(path, os.O_WRONLY if writing else os.O_RDONLY)
    try:
        done = _move(direct if direct is not None else fd, raw, offset, direct is not None,
                     writing, each)
    finally:
        if direct is not None:
            os.close(direct)
    _move(fd, raw[done:], offset + done, False, writing, each)


def _move(fd, raw, offset, direct, writing, each):
    """Write raw (a byte view) to, or read it from, fd at `offset`, IO_BYTES at a time (the
    GIL released by each call); direct: fd has O_DIRECT, so the tail that is not a whole
    BLOCK goes through `writing`'s ordinary descriptor instead."""
    bulk = raw.size - raw.size % BLOCK if direct else raw.size
    for start in range(0, bulk, IO_BYTES):
        piece = raw[start:min(bulk, start + IO_BYTES)]
        view = piece.data
        done = (os.pwrite if writing else os.preadv)(
            fd, view if writing else [view], offset + start)
        if done != len(view):
            raise OSError(f"{'wrote' if writing else 'read'} {done} of {len(view)} bytes")
        if each is not None:
            each(piece)
    return bulk


def write_array(path, head, words, each=None, final_head=None):
    """Write the file `path` whole or not at all (atomic_file): `head` (bytes), zeros to the
    next BLOCK boundary, then the array `words` by direct I/O (move; each(piece) on every
    piece of it, in order), flushed to the disk (fsync) and its pages dropped from the page
    cache.  final_head(): bytes of head's length written over it after the array (a CRC-32
    known only then).  The file's size in bytes."""
    with atomic_file(path) as tmp:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            offset = block_end(len(head))
            os.write(fd, head.ljust(offset, b"\0"))
            move(tmp, fd, words.view(np.uint8), offset, True, each)
            if final_head is not None:
                os.pwrite(fd, final_head(), 0)
            os.fsync(fd)
            drop_cache(fd)
        finally:
            os.close(fd)
    return os.stat(path).st_size


def drop_cache(fd):
    """Drop the file's pages from the page cache (where the platform can)."""
    if hasattr(os, "posix_fadvise"):
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
