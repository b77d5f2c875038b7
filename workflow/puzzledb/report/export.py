"""A database's layers as a table for the tools people query with (DuckDB, Polars, pandas):
one row per stored key, its `rank`, `depth` and `board` (the board string `puzzledb decode`
shows), and `size` (the positions it stands for) when the database keeps one key per class.
Written as Parquet (pyarrow, an optional extra) or CSV, a chunk of a layer at a time, so that
what is held stays the same whatever the layer's size; the file appears under its name only
when it is whole (files.atomic_file)."""

import csv
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from puzzledb import keys
from puzzledb.errors import MissingPackageError
from puzzledb.store.files import atomic_file

FORMATS = ("parquet", "csv")
ROWS = 1 << 18  # rows decoded and written at a time (a Parquet row group): tens of MB held


@dataclass(frozen=True)
class Exported:
    """What an export wrote: rows, the depths they came from, bytes and seconds."""

    rows: int
    depths: range
    bytes: int
    seconds: float


def columns(db):
    """The columns of the table of `db`, in order."""
    return ["rank", "depth", "board"] + (["size"] if db.symmetric else [])


def check_format(fmt):
    """MissingPackageError, before anything is read, when `fmt` needs a package that is not
    installed (Parquet: pyarrow, the `parquet` extra)."""
    if fmt == "parquet":
        try:
            import pyarrow.parquet  # noqa: F401
        except ImportError:
            raise MissingPackageError("--format parquet needs pyarrow: pip install "
                                      "'puzzledb[parquet]' (or pip install pyarrow)") from None


def rows_of(db, depth, chunk):
    """The columns of the rows of one chunk of layer `depth`'s keys, as lists or arrays: the
    rank (an int64 array, or decimal text for keys of two words or more, which pass 64 bits),
    the depth, the board and, by classes, the class's size."""
    ranks = chunk.astype(np.int64) if chunk.ndim == 1 else \
        [str(k) for k in keys.key_ints(chunk)]
    out = {"rank": ranks, "depth": np.full(len(chunk), depth, dtype=np.int32),
           "board": db.boards(chunk, depth)}
    if db.symmetric:
        out["size"] = db.searched.class_sizes(chunk)
    return out


def export(db, path, fmt, depths=None, progress=lambda rows: None):
    """Write the layers `depths` of `db` (all by default) to `path` as `fmt` (FORMATS), in
    depth then rank order, a chunk of ROWS keys at a time; progress(rows) after each chunk.
    Refused in one line (PuzzleError) by a database that keeps no layers."""
    check_format(fmt)
    path = Path(path)
    depths = range(db.max_depth + 1) if depths is None else depths
    began, written = time.perf_counter(), 0
    with atomic_file(path) as tmp:
        with WRITERS[fmt](tmp, db) as write:
            for depth in depths:
                for chunk in db.chunks_at(depth, ROWS):
                    write(rows_of(db, depth, chunk))
                    written += len(chunk)
                    progress(len(chunk))
    return Exported(written, depths, path.stat().st_size, time.perf_counter() - began)


class _CsvWriter:
    """CSV with a header line, as any CSV reader loads it with its defaults."""

    def __init__(self, path, db):
        self.file = open(path, "w", newline="")
        self.writer = csv.writer(self.file, lineterminator="\n")
        self.writer.writerow(columns(db))
        self.names = columns(db)

    def __enter__(self):
        return self.write

    def __exit__(self, *exc):
        self.file.close()

    def write(self, rows):
        values = [rows[name].tolist() if isinstance(rows[name], np.ndarray) else rows[name]
                  for name in self.names]
        self.writer.writerows(zip(*values))


class _ParquetWriter:
    """Parquet, a row group a chunk; the rank int64 (a string for keys past 64 bits)."""

    def __init__(self, path, db):
        import pyarrow as pa
        import pyarrow.parquet as pq

        self.pa = pa
        rank = pa.int64() if db.searched.key_words == 1 else pa.string()
        fields = [("rank", rank), ("depth", pa.int32()), ("board", pa.string())]
        self.schema = pa.schema(fields + ([("size", pa.int64())] if db.symmetric else []))
        self.writer = pq.ParquetWriter(path, self.schema)

    def __enter__(self):
        return self.write

    def __exit__(self, *exc):
        self.writer.close()

    def write(self, rows):
        self.writer.write_table(self.pa.table(rows, schema=self.schema))


WRITERS = {"parquet": _ParquetWriter, "csv": _CsvWriter}
