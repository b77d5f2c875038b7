"""Checkpoints of an in-memory search that keeps no layers to resume from (stores `counts`
and `distances`): the two-bit array, the counts and the samples so far, in one file
(paths.CHECKPOINT) written whole or not at all, and read back to resume; the two-bit array
moves by direct I/O (O_DIRECT), past the page cache.

A checkpoint is taken of the state between depths: layer d CUR, the layers before it OLD.
It is written by a thread of its own while the kernels expand layer d, so that the search
does not wait for the disk: the expansion only turns UNSEEN states NEXT (twobit.py), so the
words as written hold that state plus some NEXT states, which a resume clears
(StateArray.restore).  The file is written under a temporary name, flushed to the disk
(fsync) and renamed.  The words bypass the page cache (store/direct.py: direct I/O from the
array, which StateArray allocates BLOCK-aligned), where a copy into the cache took a core
for most of a minute on the 7x2 and the memory the machine's other work needs.

Layout: 8 bytes MAGIC, 8 bytes the header's length, the header (JSON: puzzle, definition
hash, size, depth, the layers' counts and sample sizes), the samples (uint64, layer after
layer), zeros up to a multiple of direct.BLOCK bytes, then the words of the two-bit array.
"""

import json
import os
import struct
from pathlib import Path

import numpy as np

from puzzledb.errors import LayerError
from puzzledb.paths import CHECKPOINT
from puzzledb.store import COUNTS
from puzzledb.store.direct import block_end, drop_cache, move, write_array

MAGIC = b"PZDB2BIT"
VERSION = 2


def path_of(directory):
    return Path(directory) / CHECKPOINT


def write(directory, puzzle, depth, infos, samples, words, store=COUNTS):
    """Write the checkpoint of the search after layer `depth` (infos: LayerInfo of layers
    0..depth, samples: depth -> ranks kept, words: the two-bit array, store: the store the
    search keeps); its size in bytes.  The words go to the disk by direct I/O when they are
    BLOCK-aligned (aligned_words) and the file system allows it (direct.write_array): no
    copy into the page cache, which took a core and most of a minute for the 7x2's 10 GiB."""
    kept = b"".join(np.ascontiguousarray(samples[i.depth], dtype="<u8").tobytes()
                    for i in infos)
    header = json.dumps({
        "version": VERSION, "puzzle": puzzle.name,
        "definition_hash": puzzle.definition_hash(), "size": int(puzzle.size),
        "words": int(words.size), "depth": int(depth),
        "counts": [int(i.count) for i in infos],
        "samples": [int(samples[i.depth].size) for i in infos],
        "store": store,
    }).encode()
    return write_array(path_of(directory),
                       MAGIC + struct.pack("<Q", len(header)) + header + kept, words)


def read_header(directory, puzzle, store=COUNTS):
    """The header of the checkpoint in `directory` (a dict) if there is one of this
    puzzle's definition and size, taken for `store` (whose search codes its states its own
    way: bfs/distances.py), else None."""
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
            or header.get("size") != puzzle.size
            or header.get("store", COUNTS) != store):  # states coded otherwise
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
    start = block_end(header["offset"] + 8 * sum(header["samples"]))
    if os.path.getsize(path) != start + words.nbytes:
        raise LayerError(f"checkpoint {path} is cut short; remove it to search from the "
                         f"start")
    raw = words.view(np.uint8)
    fd = os.open(path, os.O_RDONLY)
    try:
        move(path, fd, raw, start, False)
        drop_cache(fd)
    finally:
        os.close(fd)
    return samples


def remove(directory):
    path_of(directory).unlink(missing_ok=True)
