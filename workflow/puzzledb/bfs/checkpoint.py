"""Checkpoints of a counts-only in-memory search (store `counts`, which keeps no layers to
resume from): the two-bit array, the counts and the samples so far, in one file
(paths.CHECKPOINT) written whole or not at all, and read back to resume; the two-bit array
moves by direct I/O (O_DIRECT), past the page cache.

A checkpoint is taken of the state between depths: layer d CUR, the layers before it OLD.
It is written by a thread of its own while the kernels expand layer d, so that the search
does not wait for the disk: the expansion only turns UNSEEN states NEXT (twobit.py), so the
words as written hold that state plus some NEXT states, which a resume clears
(StateArray.restore).  The file is written under a temporary name, flushed to the disk
(fsync) and renamed.  The words bypass the page cache (direct I/O from the array, which
StateArray allocates BLOCK-aligned), where a copy into the cache took a core for most of
a minute on the 7x2 and the memory the machine's other work needs.

Layout: 8 bytes MAGIC, 8 bytes the header's length, the header (JSON: puzzle, definition
hash, size, depth, the layers' counts and sample sizes), the samples (uint64, layer after
layer), zeros up to a multiple of BLOCK bytes, then the words of the two-bit array.
"""

import json
import os
import struct
from pathlib import Path

import numpy as np

from puzzledb.errors import LayerError
from puzzledb.paths import CHECKPOINT
from puzzledb.store.files import atomic_file

MAGIC = b"PZDB2BIT"
VERSION = 2
IO_BYTES = 64 << 20  # bytes written or read at a time
BLOCK = 4096  # the words start at a multiple of this in the file, and in memory (aligned)


def path_of(directory):
    return Path(directory) / CHECKPOINT


def aligned_words(count):
    """A zero-length-padded uint64 array of `count` words whose data starts on a BLOCK
    boundary, so that a checkpoint moves it between memory and disk with direct I/O."""
    spare = BLOCK // 8
    raw = np.empty(count + spare, dtype=np.uint64)
    skip = (-raw.ctypes.data % BLOCK) // 8
    return raw[skip:skip + count]


def _direct(path, flags):
    """A file descriptor of `path` opened for direct I/O (no page cache), or None where the
    file system or the platform has none."""
    try:
        return os.open(path, flags | os.O_DIRECT)
    except (AttributeError, OSError):
        return None


def _move_all(path, fd, raw, offset, writing):
    """Write raw (a byte view) to, or read it from, the file `path` at `offset`: by direct
    I/O where the array is BLOCK-aligned and the file system has it, the rest through fd
    (open on path, read or write as `writing` says)."""
    direct = None
    if raw.ctypes.data % BLOCK == 0:
        direct = _direct(path, os.O_WRONLY if writing else os.O_RDONLY)
    try:
        done = _move(direct if direct is not None else fd, raw, offset, direct is not None,
                     writing)
    finally:
        if direct is not None:
            os.close(direct)
    _move(fd, raw[done:], offset + done, False, writing)


def _move(fd, raw, offset, direct, writing):
    """Write raw (a byte view) to, or read it from, fd at `offset`, IO_BYTES at a time (the
    GIL released by each call); direct: fd has O_DIRECT, so the tail that is not a whole
    BLOCK goes through `writing`'s ordinary descriptor instead."""
    bulk = raw.size - raw.size % BLOCK if direct else raw.size
    for start in range(0, bulk, IO_BYTES):
        view = raw[start:min(bulk, start + IO_BYTES)].data
        done = (os.pwrite if writing else os.preadv)(
            fd, view if writing else [view], offset + start)
        if done != len(view):
            raise OSError(f"{'wrote' if writing else 'read'} {done} of {len(view)} bytes")
    return bulk


def write(directory, puzzle, depth, infos, samples, words):
    """Write the checkpoint of the search after layer `depth` (infos: LayerInfo of layers
    0..depth, samples: depth -> ranks kept, words: the two-bit array); its size in
    bytes.  The words go to the disk by direct I/O when they are BLOCK-aligned
    (aligned_words) and the file system allows it: no copy into the page cache, which took
    a core and most of a minute for the 7x2's 10 GiB."""
    kept = b"".join(np.ascontiguousarray(samples[i.depth], dtype="<u8").tobytes()
                    for i in infos)
    header = json.dumps({
        "version": VERSION, "puzzle": puzzle.name,
        "definition_hash": puzzle.definition_hash(), "size": int(puzzle.size),
        "words": int(words.size), "depth": int(depth),
        "counts": [int(i.count) for i in infos],
        "samples": [int(samples[i.depth].size) for i in infos],
    }).encode()
    head = MAGIC + struct.pack("<Q", len(header)) + header + kept
    offset = -(-len(head) // BLOCK) * BLOCK  # the words start on a BLOCK boundary
    raw = words.view(np.uint8)
    path = path_of(directory)
    with atomic_file(path) as tmp:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(fd, head.ljust(offset, b"\0"))
            _move_all(tmp, fd, raw, offset, True)
            os.fsync(fd)
            if hasattr(os, "posix_fadvise"):
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
    return path.stat().st_size


def read_header(directory, puzzle):
    """The header of the checkpoint in `directory` (a dict) if there is one of this
    puzzle's definition and size, else None."""
    path = path_of(directory)
    try:
        with open(path, "rb") as f:
            if f.read(len(MAGIC)) != MAGIC:
                return None
            (length,) = struct.unpack("<Q", f.read(8))
            header = json.loads(f.read(length))
    except (OSError, ValueError, struct.error):
        return None
    if (header.get("version") != VERSION
            or header.get("definition_hash") != puzzle.definition_hash()
            or header.get("size") != puzzle.size):
        return None
    header["offset"] = len(MAGIC) + 8 + length
    return header


def read(directory, header, words):
    """Read the checkpoint whose header is given: the words into `words` (the two-bit
    array, as written: StateArray.restore clears its NEXT states), and the samples, one
    array per layer."""
    path = path_of(directory)
    with open(path, "rb") as f:
        f.seek(header["offset"])
        samples = [np.frombuffer(f.read(8 * n), dtype="<u8").astype(np.uint64)
                   for n in header["samples"]]
    start = -(-(header["offset"] + 8 * sum(header["samples"])) // BLOCK) * BLOCK
    if os.path.getsize(path) != start + words.nbytes:
        raise LayerError(f"checkpoint {path} is cut short; remove it to search from the "
                         f"start")
    raw = words.view(np.uint8)
    fd = os.open(path, os.O_RDONLY)
    try:
        _move_all(path, fd, raw, start, False)
        if hasattr(os, "posix_fadvise"):
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    return samples


def remove(directory):
    path_of(directory).unlink(missing_ok=True)
