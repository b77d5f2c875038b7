"""Checkpoints of a counts-only in-memory search (store `counts`, which keeps no layers to
resume from): the two-bit array, the counts and the samples so far, in one file
(paths.CHECKPOINT) written whole or not at all, and read back to resume.

A checkpoint is taken of the state between depths: layer d CUR, the layers before it OLD.
It is written by a thread of its own while the kernels expand layer d, so that the search
does not wait for the disk: the expansion only turns UNSEEN states NEXT (twobit.py), so the
words as written hold that state plus some NEXT states, which a resume clears
(StateArray.restore).  The file is written under a temporary name, flushed to the disk
(fsync) and renamed; its pages are then dropped from the page cache, so that the cache
does not take the memory the search and the machine's other work need.

Layout: 8 bytes MAGIC, 8 bytes the header's length, the header (JSON: puzzle, definition
hash, size, depth, the layers' counts and sample sizes), the samples (uint64, layer after
layer), then the words of the two-bit array.
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
VERSION = 1
IO_BYTES = 64 << 20  # bytes written or read at a time


def path_of(directory):
    return Path(directory) / CHECKPOINT


def write(directory, puzzle, depth, infos, samples, words):
    """Write the checkpoint of the search after layer `depth` (infos: LayerInfo of layers
    0..depth, samples: depth -> ranks kept, words: the two-bit array); its size in
    bytes."""
    header = json.dumps({
        "version": VERSION, "puzzle": puzzle.name,
        "definition_hash": puzzle.definition_hash(), "size": int(puzzle.size),
        "words": int(words.size), "depth": int(depth),
        "counts": [int(i.count) for i in infos],
        "samples": [int(samples[i.depth].size) for i in infos],
    }).encode()
    path = path_of(directory)
    with atomic_file(path) as tmp, open(tmp, "wb") as f:
        f.write(MAGIC + struct.pack("<Q", len(header)) + header)
        for info in infos:
            f.write(np.ascontiguousarray(samples[info.depth], dtype="<u8").data)
        raw = words.view(np.uint8)
        for start in range(0, raw.size, IO_BYTES):  # the GIL is released while writing
            f.write(raw[start:start + IO_BYTES].data)
        f.flush()
        os.fsync(f.fileno())
        if hasattr(os, "posix_fadvise"):
            os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
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
        raw = words.view(np.uint8)
        for start in range(0, raw.size, IO_BYTES):
            got = f.readinto(raw[start:start + IO_BYTES].data)
            if got != min(IO_BYTES, raw.size - start):
                raise LayerError(f"checkpoint {path} is cut short; remove it to search "
                                 f"from the start")
        if hasattr(os, "posix_fadvise"):
            os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
    return samples


def remove(directory):
    path_of(directory).unlink(missing_ok=True)
