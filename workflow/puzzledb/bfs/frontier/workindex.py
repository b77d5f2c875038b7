"""The layout of the frontier search's work files (workfiles.py writes and reads their
groups) and the reading of their index alone, in plain numpy, so that what only plans a
merge (its segments, its memory: plan.py, the workflow's mem_mb) loads no compiled code.

File layout, all numbers little-endian:

  header  MAGIC (8 bytes); segments, groups (int64: the segment count, and how many of the
          segments have a non-empty group); the CRC-32 of those two numbers and the index
          (uint32); the words of a key (uint32)
  index   INDEX_COLUMNS rows of `groups` int64 each, one column per non-empty group, in
          segment order: the segment, its low and high rank, the group's distinct ranks,
          its LEB128 bytes, its stored (deflated) bytes, the CRC-32 of the stored bytes
  data    the stored bytes of every non-empty group, in the index's order
"""

import os
from pathlib import Path
from typing import NamedTuple

import numpy as np

from puzzledb.errors import LayerError
from puzzledb.store.integrity import crc32

MAGIC = b"PZDBWF02"
HEADER = np.dtype([("magic", "S8"), ("segments", "<i8"), ("groups", "<i8"),
                   ("crc32", "<u4"), ("words", "<u4")])
INDEX_COLUMNS = 7  # segment, low, high, count, leb128 bytes, stored bytes, crc32
SEGMENT, LOW, HIGH, COUNT, LEB128_BYTES, STORED_BYTES, CRC = range(INDEX_COLUMNS)
WORK_SUFFIX = ".work"  # an expand piece's work file: x{part}.{piece}.work


class Group(NamedTuple):
    """Where one segment's group lies in a work file, and what it holds."""

    low: int  # the segment's keys: their first word r has low <= r < high
    high: int
    count: int  # distinct keys
    leb128_bytes: int
    stored_bytes: int
    crc: int  # the CRC-32 of the stored bytes
    start: int  # the offset of the stored bytes in the file


def work_files(directories):
    """The work files of the expanded pieces in `directories`, in the order every merge job
    of a depth reads them."""
    return [path for directory in directories
            for path in sorted(Path(directory).glob(f"x*{WORK_SUFFIX}"))]


class WorkIndex:
    """The header and index of a work file, read and checked; no file stays open.  A
    missing, truncated or corrupt file is a LayerError naming it."""

    def __init__(self, path):
        self.path = Path(path)
        try:
            with open(self.path, "rb") as f:
                size = os.fstat(f.fileno()).st_size
                head = f.read(HEADER.itemsize)
                if len(head) < HEADER.itemsize:
                    raise self.corrupt(f"{size} bytes, shorter than its header")
                header = np.frombuffer(head, HEADER)[0]
                if header["magic"] != MAGIC:
                    raise self.corrupt("not a work file (wrong magic number)")
                self.segments, groups = int(header["segments"]), int(header["groups"])
                self.words = int(header["words"])
                if not 0 <= groups <= self.segments:
                    raise self.corrupt(f"{groups} groups of {self.segments} segments")
                if self.words < 1:
                    raise self.corrupt(f"keys of {self.words} words")
                index_bytes = INDEX_COLUMNS * 8 * groups
                if HEADER.itemsize + index_bytes > size:
                    raise self.corrupt(f"{size} bytes, shorter than its index")
                raw = f.read(index_bytes)
        except OSError as err:
            raise LayerError(f"cannot read work file {self.path}: {err.strerror}") from None
        if len(raw) < index_bytes:
            raise self.corrupt(f"{size} bytes, shorter than its index")
        index = np.frombuffer(raw, "<i8").reshape(INDEX_COLUMNS, groups)
        if index_crc(self.segments, groups, index, self.words) != int(header["crc32"]):
            raise self.corrupt("checksum mismatch in its index")
        if not _index_holds(index, self.segments, self.words):
            raise self.corrupt("an index that describes no groups")
        self._index = index
        self._column = dict(zip(index[SEGMENT].tolist(), range(groups)))  # segment -> column
        self._starts = HEADER.itemsize + index_bytes + np.concatenate(
            ([0], np.cumsum(index[STORED_BYTES])))
        if self._starts[-1] != size:
            raise self.corrupt(f"{size} bytes, its index says {self._starts[-1]}")

    def corrupt(self, why):
        """The LayerError saying that this file is corrupt, and why."""
        return LayerError(f"corrupt work file {self.path}: {why}")

    @property
    def received(self):
        """The distinct ranks each segment's group holds (int64, one per segment)."""
        counts = np.zeros(self.segments, np.int64)
        counts[self._index[SEGMENT]] = self._index[COUNT]
        return counts

    def group(self, t):
        """Segment t's Group, or None when the file holds none of its ranks."""
        if not 0 <= t < self.segments:
            raise IndexError(f"segment {t} of a work file of {self.segments} segments")
        j = self._column.get(t)
        if j is None:
            return None
        _, low, high, count, leb128_bytes, stored_bytes, crc = (int(x) for x in
                                                                 self._index[:, j])
        return Group(low, high, count, leb128_bytes, stored_bytes, crc, int(self._starts[j]))


def _index_holds(index, segments, words):
    """Whether an index (whose CRC-32 matched) describes groups write_piece could have
    written: segments rising within 0..segments - 1, each group of at least one key in a
    segment (one-word keys: of that many ranks or more), one to ten LEB128 bytes a word of
    a key."""
    t, low, high, count, leb128_bytes, stored_bytes, _ = index
    room = high - low if words == 1 else np.where(high > low, count, 0)
    return bool(np.all(np.diff(t) > 0) and np.all((t >= 0) & (t < segments))
                and np.all((low >= 0) & (count >= 1) & (count <= room))
                and np.all((leb128_bytes >= words * count)
                           & (leb128_bytes <= 10 * words * count))
                and np.all(stored_bytes >= 0))


def index_crc(segments, groups, index, words):
    """The CRC-32 the header keeps of the segment and group counts, the key's words and the
    index."""
    return crc32(np.ascontiguousarray(index, "<i8"),
                 crc32(np.array([segments, groups, words], "<i8")))
