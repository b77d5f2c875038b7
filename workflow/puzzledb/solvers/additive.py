"""Additive pattern databases (Korf and Felner 2002): for each group of a partition of the
tiles (Puzzle.additive_partitions), a table of the fewest moves *of the group's own tiles*
that bring them home from each of their placements, the other tiles moving for free and the
blank anywhere.  A move moves one tile, of one group, so the groups' values add up to an
admissible bound (see additive_search.py).

Each table is built here by a breadth-first search of its abstraction (additive_kernels.py),
and named by the hash of its definition; the table store (store/tables.py) writes it, reads it
back checked, and writes the partition's manifest last, as the layer store does for layers.
"""

import hashlib
import json
import mmap
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from puzzledb import paths
from puzzledb.compiled import set_threads
from puzzledb.errors import BudgetError, PuzzleError
from puzzledb.puzzles.base import FORMAT_VERSION
from puzzledb.puzzles.geometry import grid_adjacency
from puzzledb.store.tables import Table, TableSpec, TableStore, read_table, write_table
from puzzledb.solvers.memory import (
    pattern_build_bytes,
    pattern_build_seconds,
    pattern_job_mb,
    pattern_table_bytes,
    pattern_word_bits,
    placements,
)
from puzzledb.solvers.additive_kernels import (
    GroupTables,
    expand_layer,
    nibble_histogram,
    seed_goal,
    unfinished,
)

CHUNK_SHIFT = 20  # placements per unit of work: 2**20, even, so no byte is shared
WORDS = {16: np.uint16, 32: np.uint32, 64: np.uint64}


def partition_of(puzzle, name):
    """The partition a name gives (Puzzle.additive_partition: a named one, or groups of
    tiles named by their symbols); PuzzleError naming the problem."""
    return puzzle.additive_partition(name)


def group_index(partition, label):
    if label not in partition.labels:
        raise PuzzleError(f"partition {partition.name} has no group {label!r} "
                          f"(groups: {', '.join(partition.labels)})")
    return partition.labels.index(label)


def definition(puzzle, partition, g):
    """What fixes a table's bytes: the puzzle's definition, the group's tiles, the numbering,
    the abstraction and the encoding.  Its hash is stored in the table and the manifest."""
    return {
        "format": FORMAT_VERSION,
        "puzzle": puzzle.definition_hash(),
        "tiles": partition.labels[g],
        "numbering": "placement/1",
        "abstraction": "group-moves-cost-1/min-over-blank/1",
        "encoding": "nibble-half-excess-over-manhattan/1",
    }


def definition_hash(puzzle, partition, g):
    text = json.dumps(definition(puzzle, partition, g), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def table_spec(puzzle, partition, g):
    """What the store must find for group g: its tiles, its definition hash, its size."""
    cells = partition.width * partition.height
    return TableSpec(partition.labels[g], definition_hash(puzzle, partition, g),
                     pattern_table_bytes(cells, len(partition.groups[g])))


def table_specs(puzzle, partition):
    return [table_spec(puzzle, partition, g) for g in range(len(partition.groups))]


# --- the geometry of a partition's board ------------------------------------------------------


def geometry(partition):
    """(adjacency: cells x (left, right, up, down), -1 off the board; the goal cell of each
    piece code)."""
    return (grid_adjacency(partition.width, partition.height),
            np.argsort(np.asarray(partition.goal)))


def manhattan(partition, a, b):
    w = partition.width
    return abs(a // w - b // w) + abs(a % w - b % w)


def placement_weights(cells, k, length=None):
    """The weight of each digit of a placement number (padded with zeros to `length`)."""
    weights = np.zeros(max(length or k, 1), dtype=np.int64)
    weight = 1
    for i in range(k - 1, -1, -1):
        weights[i] = weight
        weight *= cells - i
    return weights


def group_tables(partition, g):
    """The GroupTables of group g, for the builder's kernels."""
    tiles = partition.groups[g]
    cells = partition.width * partition.height
    adjacent, home = geometry(partition)
    w = partition.width
    first = sum(1 << c for c in range(0, cells, w))
    last = sum(1 << c for c in range(w - 1, cells, w))
    full = (1 << cells) - 1
    md_cost = np.array([[manhattan(partition, c, home[t]) for c in range(cells)]
                        for t in tiles], dtype=np.int64)
    return GroupTables(len(tiles), placement_weights(cells, len(tiles)), md_cost,
                       home[list(tiles)].astype(np.int64), adjacent, w, full, full & ~first,
                       full & ~last)


# --- building ------------------------------------------------------------------------------------


def zeros_huge(count, dtype):
    """A zeroed array in anonymous memory advised to use transparent huge pages: the build's
    and the search's random reads then miss the TLB far less often."""
    dtype = np.dtype(dtype)
    size = -(-max(count * dtype.itemsize, 1) // (2 << 20)) * (2 << 20)
    buffer = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if hasattr(mmap, "MADV_HUGEPAGE"):
        buffer.madvise(mmap.MADV_HUGEPAGE)
    return np.frombuffer(buffer, dtype=dtype, count=count)


def build_group(partition, g, threads=None, log=None):
    """Build the table of group g of a partition by the layered 0-1 search of
    additive_kernels.expand_layer, `threads` numba threads; a store Table, its values packed
    two a byte (the even placement in the low nibble).  PuzzleError if a value does not fit
    in 4 bits or a placement is never reached (then the tables would lie)."""
    set_threads(threads)
    t = group_tables(partition, g)
    cells = partition.width * partition.height
    count = placements(cells, t.k)
    word = WORDS[pattern_word_bits(cells, t.k)]
    words = zeros_huge(count, word)
    values = zeros_huge(pattern_table_bytes(cells, t.k), np.uint8)
    chunks = (count + (1 << CHUNK_SHIFT) - 1) >> CHUNK_SHIFT
    touched = np.zeros(chunks, np.uint8)
    touched_next = np.zeros(chunks, np.uint8)
    goal_blank = int(np.flatnonzero(np.asarray(partition.goal) == 0)[0])
    seed_goal(t, goal_blank, words, touched, CHUNK_SHIFT)
    began = time.perf_counter()
    first_reached = []
    while touched.any():
        todo = np.flatnonzero(touched).astype(np.int64)
        stats = np.zeros((todo.size, 4), dtype=np.int64)
        touched_next[:] = 0
        expand_layer(todo, len(first_reached), t, words, values, touched_next, CHUNK_SHIFT,
                     stats)
        if stats[:, 3].any():
            raise PuzzleError(f"group {partition.labels[g]}: values beyond 4 bits at depth "
                              f"{len(first_reached)}")
        first_reached.append(int(stats[:, 1].sum()))
        if log:
            log(f"{partition.labels[g]} depth {len(first_reached) - 1:2d}: "
                f"{first_reached[-1]:>12,d} placements first reached, {todo.size} chunks, "
                f"{time.perf_counter() - began:.1f} s")
        touched, touched_next = touched_next, touched
    full_word = (1 << (2 * (cells - t.k))) - 1
    missing = count - sum(first_reached)
    if missing or unfinished(words, full_word):
        raise PuzzleError(f"group {partition.labels[g]}: {missing:,} of {count:,} placements "
                          f"never reached")
    while first_reached and not first_reached[-1]:
        first_reached.pop()
    return Table(values, count, len(first_reached) - 1, first_reached,
                 nibble_histogram(values, count).tolist(), time.perf_counter() - began)


# --- storing, through the table store ------------------------------------------------------------


def write_group(path, puzzle, partition, g, built):
    """Write group g's built Table to `path` (store.tables.write_table)."""
    write_table(path, puzzle.name, partition.name, table_spec(puzzle, partition, g), built)


def build_table(puzzle, partition_name, label, path, threads=None, memory_mb=None, log=None):
    """The whole step of the workflow's rule for one table: build and write it.  BudgetError
    before anything starts if the build needs more than memory_mb MiB."""
    partition = partition_of(puzzle, partition_name)
    g = group_index(partition, label)
    need = pattern_build_bytes(partition.width * partition.height, len(label)) / 2**20
    if memory_mb is not None and need > memory_mb:
        raise BudgetError(f"{puzzle.name}: building table {label} of {partition.name} needs "
                          f"{need:,.0f} MiB, more than memory_mb: {memory_mb}")
    began = time.perf_counter()
    built = build_group(partition, g, threads, log)
    write_group(path, puzzle, partition, g, built)
    if log:
        log(f"{label}: {built.placements:,} placements, values 0..{built.max_value}, "
            f"{built.values.nbytes:,} bytes, search {built.seconds:.1f} s, in all "
            f"{time.perf_counter() - began:.1f} s")
    return built


def read_group(path, puzzle, partition, g, out=None, crc32=None):
    """The values of group g's table stored at `path` (into `out` if given), checked by the
    store (store.tables.read_table): LayerError if it is stale or corrupt."""
    return read_table(path, table_spec(puzzle, partition, g), out, crc32)


def write_manifest(results, puzzle, partition_name):
    """Read back every table of the partition from results and write its manifest, last."""
    partition = partition_of(puzzle, partition_name)
    return TableStore(results, puzzle.name, partition.name).write_manifest(
        table_specs(puzzle, partition))


# --- reading a partition back --------------------------------------------------------------------


@dataclass
class AdditiveDatabase:
    """A partition's tables read back: group g's values at data[offsets[g]:]."""

    partition: object  # the puzzle's TilePartition
    data: np.ndarray  # uint8, every group's table back to back
    offsets: np.ndarray  # int64, bytes

    @property
    def name(self):
        return self.partition.name


def built(puzzle, results):
    """The names of the puzzle's partitions whose manifest is there, strongest first: the
    most placements in all (7-8 before 6-6-3), ties in the order of the named ones.  The
    partitions given as groups are found by their directories, whose names say their
    groups."""
    names = list(puzzle.additive_partitions())
    found = Path(paths.pattern_partitions(results, puzzle.name))
    if found.is_dir():
        names += sorted(d.name for d in found.iterdir() if d.name not in names)
    partitions = []
    for name in names:
        if not TableStore(results, puzzle.name, name).complete():
            continue
        try:
            partitions.append(puzzle.additive_partition(name))
        except PuzzleError:  # a directory that names no partition of this puzzle
            continue
    cells = puzzle.cells
    return [p.name for p in sorted(partitions, key=lambda p: -sum(
        placements(cells, len(g)) for g in p.groups))]


def describe(puzzle, results, threads, configured=()):
    """A line for each named partition of the puzzle, each one a config's `pdbs` lists
    (configured: their names) and each one built in results: built or not, its groups'
    sizes, and what its build needs before it starts (its table jobs, the largest mem_mb,
    the estimated time on `threads` threads), for `puzzledb info`."""
    done = built(puzzle, results)
    names = list(dict.fromkeys([*puzzle.additive_partitions(), *configured, *done]))
    lines = []
    for name in names:
        partition = puzzle.additive_partition(name)
        cells = partition.width * partition.height
        sizes = [len(g) for g in partition.groups]
        seconds = sum(pattern_build_seconds(cells, k, threads) for k in sizes)
        took = f"{seconds / 60:.0f} min" if seconds >= 60 else f"{seconds:.0f} s"
        lines.append(f"{name} ({'built' if name in done else 'not built'}: "
                     f"{'+'.join(map(str, sizes))} tiles; build: {len(sizes)} table jobs, the "
                     f"largest mem_mb {max(pattern_job_mb(cells, k) for k in sizes):,}, about "
                     f"{took} on {threads} threads)")
    return lines


def load(puzzle, partition_name, results="results"):
    """A partition's tables from results, every one checked (LayerError if missing, stale
    or corrupt), into one array of huge pages."""
    partition = partition_of(puzzle, partition_name)
    specs = table_specs(puzzle, partition)
    sizes = [spec.bytes for spec in specs]
    offsets = back_to_back(sizes)
    data = zeros_huge(int(sum(sizes)), np.uint8)
    TableStore(results, puzzle.name, partition.name).read_tables(
        specs, [data[at:at + size] for at, size in zip(offsets, sizes)])
    return AdditiveDatabase(partition, data, offsets)


def in_memory(partition, tables):
    """An AdditiveDatabase from tables already in memory (Table.values of each group, in
    order): for tests and for partitions that are not stored."""
    return AdditiveDatabase(partition, np.concatenate(tables),
                            back_to_back([t.size for t in tables]))


def back_to_back(sizes):
    """The offsets of tables of these sizes laid back to back (AdditiveDatabase.offsets)."""
    return np.cumsum([0] + sizes[:-1]).astype(np.int64)

