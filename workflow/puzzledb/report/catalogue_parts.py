"""A catalogue job's part (report/catalogue.py): its clusters written in the catalogue's order
(moves, the most first, then the farthest board's key), read back by ranges of rows, and the
parts merged in blocks of rows, so that a merge holds a slice of each part, never a whole
one, and states its memory before it starts.  docs/blocks.md, "The catalogue"."""

import struct
import zipfile
from math import prod
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

import numpy as np

from puzzledb.errors import StorageError
from puzzledb.puzzles.blocks.catalogue.split import SPLIT
from puzzledb.store.files import atomic_file

ORDER = "moves-descending,key/1"  # the rows' order in a part, recorded in it
# A merge holds of each of its P parts a slice of at most MERGE_ROWS // P rows and
# MERGE_COUNTS // P distance counts (at least one row), and a block taken from the slices
# (no more than they hold); it formats a block CHUNK rows and CHUNK_COUNTS counts at a time.
MERGE_ROWS = 1 << 19
MERGE_COUNTS = 16 * MERGE_ROWS
CHUNK = 1 << 16
CHUNK_COUNTS = 16 * CHUNK
ROW_COLUMNS = ("moves", "states", "minimal", "far", "walls")
LOCAL_HEADER = 30  # bytes of a zip entry's local header before its name and extra field


def write_part(path, found, candidates, job, jobs, words):
    """A job's clusters (found: puzzles/blocks/catalogue/job.py's FOUND, lists of arrays)
    written to path (npz, whole or not at all) in the catalogue's order: its rows by moves,
    the most first, then by key, a stable sort (equal keys keep the order they were found
    in).  The lists are let go as
    they are joined and each column is put in order alone, so the job holds its clusters
    once, an order (8 bytes a cluster) and one column more, not twice as before."""
    info = _joined(found, "info", np.empty((0, 3), np.int64))
    far = _joined(found, "far", np.empty((0, words), np.uint64))
    walls = _joined(found, "walls", np.empty(0, np.uint64))
    counts = _joined(found, "counts", np.empty(0, np.int64))
    spans = np.concatenate(([0], np.cumsum(_joined(found, "lengths", np.empty(0, np.int64)))))
    order = np.lexsort(tuple(far[:, w] for w in range(words - 1, -1, -1)) + (-info[:, 1],))
    info = info[order]
    far = far[order]
    walls = walls[order]
    counts = _counts_in_order(counts, spans, order)
    spans = np.concatenate(([0], np.cumsum(np.diff(spans)[order])))
    del order
    with atomic_file(path) as tmp, open(tmp, "wb") as f:
        np.savez(f, states=info[:, 0], moves=info[:, 1], minimal=info[:, 2].astype(bool),
                 far=far, walls=walls, spans=spans, counts=counts,
                 candidates=np.int64(candidates), split=np.str_(SPLIT), job=np.int64(job),
                 jobs=np.int64(jobs), order=np.str_(ORDER))


def _joined(found, name, empty):
    arrays = found[name]
    joined = np.concatenate(arrays or [empty])
    arrays.clear()
    return joined


def _counts_in_order(counts, spans, order, rows=1 << 20):
    """The rows' distance counts (row i's counts[spans[i]:spans[i + 1]]) with the rows taken
    in `order`, gathered `rows` rows at a time (an index a count for those only)."""
    out = np.empty_like(counts)
    at = 0
    for lo in range(0, order.size, rows):
        taken = order[lo:lo + rows]
        starts, lengths = spans[taken], spans[taken + 1] - spans[taken]
        ends = np.cumsum(lengths)
        index = np.repeat(starts - ends + lengths, lengths) + np.arange(ends[-1] if ends.size
                                                                        else 0)
        out[at:at + index.size] = counts[index]
        at += index.size
    return out


class PartFile:
    """A part read by ranges of rows.  np.savez stores each array uncompressed in a zip entry
    (an npy header, then the data), so a range of rows is a seek and a read at an offset
    known from the entry's local header and the npy header: no part is read whole."""

    def __init__(self, path):
        self.path = path
        try:
            with zipfile.ZipFile(path) as z, open(path, "rb") as f:
                self.arrays = {i.filename.removesuffix(".npy"): _entry(f, i)
                               for i in z.infolist()}
            self.scalars = {name: self.read(name).item() for name, (_, _, shape)
                            in self.arrays.items() if shape == ()}
            self.rows = self.arrays["moves"][2][0]
            self._check_shapes()
        except (OSError, ValueError, KeyError, IndexError, EOFError, zipfile.BadZipFile) as err:
            raise StorageError(f"{path}: not a catalogue part ({err})") from None

    def _check_shapes(self):
        shapes = {name: self.arrays[name][2] for name in (*ROW_COLUMNS, "spans", "counts")}
        if any(shapes[name][0] != self.rows for name in ROW_COLUMNS) or \
                shapes["spans"] != (self.rows + 1,) or \
                int(self.read("spans", self.rows, self.rows + 1)[0]) != shapes["counts"][0]:
            raise ValueError(f"its columns' lengths disagree: {shapes}")

    def read(self, name, lo=0, hi=None):
        """Rows lo to hi (all of them by default) of the array `name`."""
        offset, dtype, shape = self.arrays[name]
        hi = (shape[0] if shape else 1) if hi is None else hi
        per = prod(shape[1:])
        with open(self.path, "rb") as f:
            f.seek(offset + lo * per * dtype.itemsize)
            data = np.fromfile(f, dtype, (hi - lo) * per)
        if data.size != (hi - lo) * per:
            raise StorageError(f"{self.path}: {name} ends before row {hi}")
        return data.reshape((hi - lo, *shape[1:]) if shape else ())

    def get(self, name, default=None):
        return self.scalars.get(name, default)


def _entry(f, info):
    """Where an npz entry's data starts, its dtype and shape (ValueError for an entry
    compressed, in Fortran order, of objects, or shorter than its header says)."""
    if info.compress_type != zipfile.ZIP_STORED:
        raise ValueError(f"{info.filename} compressed")
    f.seek(info.header_offset)
    local = f.read(LOCAL_HEADER)
    if local[:4] != b"PK\x03\x04":
        raise ValueError(f"{info.filename}: no local header")
    name, extra = struct.unpack("<HH", local[26:30])
    start = info.header_offset + LOCAL_HEADER + name + extra
    f.seek(start)
    version = np.lib.format.read_magic(f)
    read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                   else np.lib.format.read_array_header_2_0)
    shape, fortran, dtype = read_header(f)
    if (fortran and len(shape) > 1) or dtype.hasobject:
        raise ValueError(f"{info.filename}: not a plain array")
    data = f.tell()
    if data - start + prod(shape) * dtype.itemsize != info.file_size:
        raise ValueError(f"{info.filename}: {info.file_size} bytes, not its header's")
    return data, dtype, tuple(shape)


def read_parts(parts):
    """The jobs' parts, opened (their headers read, their rows not): StorageError naming one
    that is not a part, one made under another split than the first part (split.py's rule,
    or another number of jobs), a job's part twice, or one whose rows are not in ORDER."""
    read = [PartFile(p) for p in parts]
    jobs = {}
    for path, part in zip(parts, read):
        if _split_of(part) != _split_of(read[0]):
            raise StorageError(f"{path}: made under {_split_of(part)}, {parts[0]} under "
                               f"{_split_of(read[0])}: merge the parts of one split")
        if part.get("job") is not None and part.get("job") in jobs:
            raise StorageError(f"{path}: job {part.get('job')}'s part again (as "
                               f"{jobs[part.get('job')]})")
        if part.get("order") != ORDER:
            raise StorageError(f"{path}: its rows not in the merge's order ({ORDER}): a part "
                               f"made before parts were sorted; run its job again")
        jobs[part.get("job", -1)] = path
    return read


def _split_of(part):
    """How a part's units were chosen, in words: the split's rule and number of jobs."""
    if part.get("split") is None:
        return "no recorded split (units j, j + J, ..., before split.py)"
    return f"split {part.get('split')} of {part.get('jobs')} jobs"


def merge_bytes(puzzle, parts):
    """The most a merge of `parts` parts of the catalogue `puzzle` holds besides the process,
    known before it starts (numbers taken as 8 bytes; a catalogue of bars stores 4): the
    slices (a row's key, walls, states, moves, minimal and span; 8 bytes a count), the block
    taken from them, its sort (keys, order, lengths) and the text of a chunk (numbers of up
    to 19 digits).  The parts' sizes do not enter: a slice is a share of MERGE_ROWS rows and
    MERGE_COUNTS counts, so the merge of a box a thousand times larger holds the same."""
    cat = puzzle.catalogue
    rows = max(MERGE_ROWS, parts)  # each part's slice at least one row
    slices = rows * (8 * cat.words + 8 + 8 + 8 + 1 + 8) + MERGE_COUNTS * 8
    sort = rows * 8 * (cat.words + 3)
    line = 20 + cat.width * cat.drawing.height + cat.drawing.height + 20 + 1 + 6
    return 2 * slices + sort + CHUNK * line + CHUNK_COUNTS * 20


@dataclass
class Block:
    """Rows of the merge: their columns (row i's distance counts counts[spans[i]:spans[i +
    1]]) and the order they are written in, the catalogue's."""

    order: np.ndarray
    moves: np.ndarray
    states: np.ndarray
    minimal: np.ndarray
    far: np.ndarray
    walls: np.ndarray
    spans: np.ndarray
    counts: np.ndarray

    def chunks(self):
        """The order in pieces of at most CHUNK rows and CHUNK_COUNTS counts (one row at
        least), for the formatter."""
        ends = np.cumsum(np.diff(self.spans)[self.order])
        lo = 0
        while lo < self.order.size:
            before = int(ends[lo - 1]) if lo else 0
            hi = min(lo + CHUNK, int(np.searchsorted(ends, before + CHUNK_COUNTS, "right")))
            yield self.order[lo:max(hi, lo + 1)]
            lo = max(hi, lo + 1)


class Merge:
    """The parts' rows in the catalogue's order, a block at a time.  Each part is a run of
    rows in that order, held a slice at a time.  A block is cut at the least of the slices'
    last rows (in the order of (key, part): equal keys of two parts go part by part, as a
    stable sort of the parts one after another puts them): every row up to the cut is in
    a slice, none after it has been taken, so sorting the block alone (stably, the parts in
    turn) puts its rows where a sort of all of them would."""

    def __init__(self, read):
        self.read = read
        self.slice_rows = max(1, MERGE_ROWS // max(1, len(read)))
        self.slice_counts = max(1, MERGE_COUNTS // max(1, len(read)))
        self.held = (0, 0)  # the most rows and distance counts held at once

    def blocks(self):
        runs = [_Run(part, i, self.slice_rows, self.slice_counts)
                for i, part in enumerate(self.read) if part.rows]
        while runs:
            cut = min((run.key(run.end - 1), run.index) for run in runs)
            taken = [(run, run.at, run.stop(*cut)) for run in runs]
            block = _block([t for t in taken if t[2] > t[1]])
            self.held = (max(self.held[0], sum(r.end for r in runs) + block.order.size),
                         max(self.held[1], sum(int(r.spans[-1]) for r in runs) +
                             block.counts.size))
            yield block
            del block  # held by the caller alone, who lets it go before the next is made
            runs = [run for run, _, stop in taken if run.advance(stop)]


def _block(taken):
    """The rows taken (run, from, to) as a Block, in the order of their keys (a stable sort
    of the runs' rows one run after another)."""
    columns = {name: np.concatenate([run.columns[name][a:b] for run, a, b in taken])
               for name in ROW_COLUMNS}
    counts = np.concatenate([run.counts[run.spans[a]:run.spans[b]] for run, a, b in taken])
    lengths = np.concatenate([np.diff(run.spans[a:b + 1]) for run, a, b in taken])
    far = columns["far"]
    order = np.lexsort(tuple(far[:, w] for w in range(far.shape[1] - 1, -1, -1)) +
                       (-columns["moves"].astype(np.int64),))
    return Block(order, spans=np.concatenate(([0], np.cumsum(lengths))), counts=counts,
                 **columns)


class _Run:
    """A part's rows, a slice of them in memory (rows 0 to `end`, from `at` not yet taken),
    topped up from the part once half of it is taken: so each block can take about half a
    slice from every part or more (a slice refilled only when empty would make many
    blocks small), and a row is copied within the slice at most once."""

    def __init__(self, part, index, rows, counts):
        self.part, self.index, self.rows, self.counts_most = part, index, rows, counts
        self.columns = {name: part.read(name, 0, 0) for name in ROW_COLUMNS}
        self.counts, self.spans = part.read("counts", 0, 0), np.zeros(1, np.int64)
        self.at = self.end = self.next = 0
        self.last = None  # the key of the last row read
        self._top_up()

    def key(self, i):
        """Row i's place in the catalogue's order: (-moves, its key's words)."""
        return (-int(self.columns["moves"][i]), *self.columns["far"][i].tolist())

    def stop(self, key, index):
        """Where the rows up to the cut (key, index) end: equal keys taken from the parts
        up to the cut's."""
        find = bisect_right if self.index <= index else bisect_left
        return self.at + find(range(self.at, self.end), key, key=self.key)

    def advance(self, stop):
        """Rows to stop taken, the slice topped up when half of it is (rows or counts);
        False when the part has no row left."""
        self.at = stop
        if self.next < self.part.rows and (
                self.end - self.at <= self.rows // 2 or
                self.spans[self.end] - self.spans[self.at] <= self.counts_most // 2):
            self._top_up()
        return self.at < self.end

    def _top_up(self):
        """The rows not taken, then the part's next rows up to the slice's rows and counts
        (one row at least when none is left)."""
        at, end, lo = self.at, self.end, self.next
        held = int(self.spans[end] - self.spans[at])
        spans = self.part.read("spans", lo, min(lo + self.rows - (end - at), self.part.rows) + 1)
        n = max(0, int(np.searchsorted(spans, spans[0] + self.counts_most - held, "right")) - 1)
        n = max(n, min(spans.size - 1, int(at == end)))
        new = {name: self.part.read(name, lo, lo + n) for name in ROW_COLUMNS}
        self._check_order(new, lo)
        self.columns = {name: np.concatenate((self.columns[name][at:end], new[name]))
                        for name in ROW_COLUMNS}
        self.counts = np.concatenate((self.counts[self.spans[at]:self.spans[end]],
                                      self.part.read("counts", int(spans[0]), int(spans[n]))))
        self.spans = np.concatenate((self.spans[at:end + 1] - self.spans[at],
                                     held + spans[1:n + 1] - spans[0]))
        self.at, self.end, self.next = 0, end - at + n, lo + n

    def _check_order(self, new, lo):
        """StorageError unless the rows read follow the last one in the catalogue's order
        (the merge would write them out of it)."""
        if new["moves"].size == 0:
            return
        keys = [-new["moves"].astype(np.int64)]
        keys += [new["far"][:, w] for w in range(new["far"].shape[1])]
        first = (-int(new["moves"][0]), *new["far"][0].tolist())
        equal = np.ones(new["moves"].size - 1, bool)
        for column in keys:
            if (equal & (column[1:] < column[:-1])).any():
                break
            equal &= column[1:] == column[:-1]
        else:
            if self.last is None or first >= self.last:
                self.last = (-int(new["moves"][-1]), *new["far"][-1].tolist())
                return
        raise StorageError(f"{self.part.path}: rows out of the merge's order ({ORDER}) "
                           f"between rows {max(0, lo - 1)} and {lo + new['moves'].size}")
