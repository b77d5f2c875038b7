"""The distances store (config `store: {<puzzle>: distances}`): what the counts store keeps
(counts.py: every layer's count, a sample of each, the deepest positions) and every state's
depth as a label of two bits, in one file beside the manifest, which queries read
memory-mapped: a distance or an optimal route reads a few pages of it, not the file.

The table is the in-memory search's own two-bit array as the search leaves it
(bfs/labels.py says how it gets there): state r in word r >> 5, bits 2(r & 31) (low) and
2(r & 31) + 1 (expansion/__init__.py's layout), 00 for a state never reached, else
codes[depth % modulus].  Modulus 4 for a puzzle whose moves flip a colouring of its states
(Puzzle.move_parity): the code then holds (depth >> 1) & 1 and the colour of the state's
rank, against the goals' colour, gives depth & 1.  Modulus 3 for any other puzzle.  Either
way a state's neighbours one move nearer the goal are those whose code is codes[(depth - 1)
% modulus], so a walk down the codes is an optimal route, and its length the distance.

distances.2bit: 8 bytes MAGIC, 8 bytes the header's length, the header (JSON: format
version, puzzle, definition hash, size, words, modulus, codes, goal colour, CRC-32 of the
words), zeros up to a multiple of 4,096 bytes, the words.  Written under a temporary name by
direct I/O (direct.py), flushed and renamed; the manifest, written after it, lists its
bytes and CRC-32 too, and `verify` reads it all back against them.
"""

import json
import mmap
import os
import struct
from dataclasses import dataclass

import numpy as np

from puzzledb.errors import LayerError
from puzzledb.expansion import twobit_words
from puzzledb.paths import DISTANCES as TABLE
from puzzledb.puzzles.base import FORMAT_VERSION
from puzzledb.store import DISTANCES, integrity
from puzzledb.store.counts import CountStore
from puzzledb.store.direct import BLOCK, block_end, drop_cache, write_array

MAGIC = b"PZDBDIST"
READ_BYTES = 64 << 20  # bytes read at a time when the table is checked


@dataclass
class Labels:
    """How a table codes depths: state at depth d holds codes[d % modulus]; modulus 4 also
    needs the goals' colour (Puzzle.move_parity of a goal), None otherwise."""

    modulus: int
    codes: tuple
    goal_colour: int | None = None


def table_bytes(puzzle):
    """The size of the puzzle's table file: a block of header and two bits a state."""
    return BLOCK + 8 * twobit_words(puzzle.size)


class DistanceStore(CountStore):
    """The counts, samples and distance table of one puzzle's states in one directory."""

    kind = DISTANCES
    files = "samples and table"

    def __init__(self, directory, puzzle):
        super().__init__(directory, puzzle)
        self.table_entry = None  # the manifest's entry for the table, once written

    def table_path(self):
        return self.directory / TABLE

    def prune(self, keep):
        """As the counts store's, and the table of an earlier build removed."""
        super().prune(keep)
        self.table_path().unlink(missing_ok=True)

    def write_table(self, words, labels):
        """Write the table (words: the search's two-bit array, labels: its Labels), whole or
        not at all; its manifest entry."""
        crc = 0

        def add(piece):
            nonlocal crc
            crc = integrity.crc32(piece, crc)

        size = write_array(self.table_path(), self._header(words, labels), words, add,
                           lambda: self._header(words, labels, crc))  # the CRC, known now
        self.table_entry = dict(file=TABLE, bytes=size, crc32=crc,
                                modulus=labels.modulus, codes=list(labels.codes),
                                goal_colour=labels.goal_colour)
        return self.table_entry

    def _header(self, words, labels, crc=0):
        """MAGIC, the header's length and the header; the CRC-32 written with a fixed
        width, so that the header written after the words has the length of the first."""
        header = json.dumps({
            "format_version": FORMAT_VERSION, "puzzle": self.puzzle.name,
            "definition_hash": self.definition_hash, "size": int(self.puzzle.size),
            "words": int(words.size), "modulus": labels.modulus,
            "codes": list(labels.codes), "goal_colour": labels.goal_colour,
            "crc32": f"{crc:08x}"}).encode()
        return MAGIC + struct.pack("<Q", len(header)) + header

    def write_manifest(self, infos, **extra):
        """samples.h5, then the manifest (last), which lists the table written before."""
        return super().write_manifest(infos, table=self.table_entry, **extra)

    def table(self):
        """The table of the finished database (DistanceTable), checked against the manifest
        (size, labels; not the CRC-32: verify reads it all)."""
        return DistanceTable(self.table_path(), self.puzzle, self.manifest().get("table"))

    def scrub(self, progress=None):
        """The counts store's scrub (manifest, samples), then the table read back whole
        against its CRC-32."""
        verified = super().scrub(progress)
        verified.what = "a distances"
        verified.table_bytes = self.table().check()
        return verified


def read_header(path):
    """(header dict, offset of the words) of a table file; LayerError if it is none."""
    try:
        with open(path, "rb") as f:
            if f.read(len(MAGIC)) != MAGIC:
                raise LayerError(f"corrupt distance table {path}: not a table file")
            (length,) = struct.unpack("<Q", f.read(8))
            header = json.loads(f.read(length))
    except FileNotFoundError:
        raise LayerError(f"missing distance table {path}") from None
    except (OSError, ValueError, struct.error) as err:
        raise LayerError(f"corrupt distance table {path}: {err}") from None
    return header, block_end(len(MAGIC) + 8 + length)


class DistanceTable:
    """A finished table, memory-mapped: `words` (uint64, read-only, the layout above),
    `labels`."""

    def __init__(self, path, puzzle, listed):
        header, offset = read_header(path)
        what = f"distance table {path}"
        integrity.check_definition(header.get("definition_hash"), puzzle.definition_hash(),
                                   what, f" of {puzzle.name}")
        words = int(header.get("words", -1))
        if (listed is None or header.get("size") != puzzle.size
                or os.path.getsize(path) != offset + 8 * words
                or listed.get("bytes") != offset + 8 * words
                or [header.get(k) for k in ("modulus", "codes", "goal_colour")]
                != [listed.get(k) for k in ("modulus", "codes", "goal_colour")]):
            raise LayerError(f"corrupt {what}: its size or labels are not those the "
                             f"manifest lists")
        self.path = path
        self.crc32 = int(listed["crc32"])
        self.labels = Labels(int(header["modulus"]), tuple(header["codes"]),
                             header["goal_colour"])
        with open(path, "rb") as f:
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        # a walk reads a page here and there: without this advice every page fault also
        # reads ahead the pages around it (128 KiB), and a cold distance of eleven took
        # 60 to 84 ms instead of 8 to 17 (docs/benchmarks.md)
        if hasattr(mapped, "madvise"):
            mapped.madvise(mmap.MADV_RANDOM)
        self.words = np.frombuffer(mapped, dtype="<u8", count=words, offset=offset)
        self.offset = offset

    def codes(self, ranks):
        """The code of each rank (uint8)."""
        ranks = np.asarray(ranks, dtype=np.uint64)
        return ((self.words[ranks >> np.uint64(5)] >> ((ranks & np.uint64(31)) << np.uint64(1)))
                & np.uint64(3)).astype(np.uint8)

    def check(self):
        """Read the words back whole against the CRC-32 the manifest lists; the bytes
        read."""
        crc = 0
        fd = os.open(self.path, os.O_RDONLY)
        try:
            position = self.offset
            end = os.fstat(fd).st_size
            while position < end:
                piece = os.pread(fd, min(READ_BYTES, end - position), position)
                crc = integrity.crc32(np.frombuffer(piece, np.uint8), crc)
                position += len(piece)
            drop_cache(fd)
        finally:
            os.close(fd)
        integrity.check_crc(crc, self.crc32, what=f"distance table {self.path}")
        return end - self.offset
