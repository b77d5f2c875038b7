"""The catalogue's merge in bounded memory (report/catalogue_parts.py; docs/blocks.md, "The
catalogue"): the jobs' parts merged a slice of each at a time write the tables the merge of
whole parts wrote, byte for byte; the rows held at once are a slice of each part and one
block, whatever the box; its memory is stated before it starts; bad parts refused in one
line."""

import csv
import io
from types import SimpleNamespace

import numpy as np
import pytest

from puzzledb import puzzles
from puzzledb.bfs.memory import mb_of
from puzzledb.errors import StorageError
from puzzledb.puzzles.definitions import build
from puzzledb.report import catalogue_parts
from puzzledb.report.catalogue import COLUMNS, SUMMARY, TOTALS, merge, search_part
from puzzledb.report.catalogue_parts import ORDER, merge_bytes
from puzzledb.rules.catalogue import CatalogueRules

# a box of free blocks with a wall: boards whose farthest keys are equal (the walls differ),
# so that equal keys of two parts must keep the parts' order
WALLED = {"family": "blocks", "goal": "#.. .XX ...", "metric": "step", "axis": "free",
          "catalogue": {"pieces": ["1x2", "1x1"], "walls": 1}}
# slices and chunks of a few rows and counts (MERGE_ROWS, MERGE_COUNTS, CHUNK, CHUNK_COUNTS)
TINY = [(5, 20, 3, 7), (3, 1, 1, 1), (7, 1000, 4, 4)]


def whole_merge(puzzle, parts):
    """The three tables as the merge wrote them before it streamed: every part read whole,
    the rows sorted at once (by moves, the most first, then by key; a stable sort of the
    parts one after another), formatted by the same compiled formatter."""
    from puzzledb.puzzles.blocks.catalogue import table_rows

    read = [dict(np.load(p)) for p in parts]
    far, walls, moves, states, minimal, counts = (
        np.concatenate([p[name] for p in read])
        for name in ("far", "walls", "moves", "states", "minimal", "counts"))
    spans = np.concatenate(([0], np.cumsum(np.concatenate([np.diff(p["spans"])
                                                            for p in read]))))
    order = np.lexsort(tuple(far[:, w] for w in range(far.shape[1] - 1, -1, -1)) + (-moves,))
    letters = np.frombuffer("".join(puzzle.letters()).encode(), np.uint8)
    goals = np.frombuffer("".join(c.label for c in puzzle.catalogue.classes
                                  if c.goal).encode(), np.uint8)
    table = (",".join(COLUMNS) + "\n").encode() + table_rows.csv_rows(
        puzzle.tables(), order, moves, states, minimal, spans, counts, far, walls, letters,
        goals).tobytes()
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(SUMMARY)
    for m in np.unique(moves)[::-1].tolist():
        writer.writerow((m, int((moves == m).sum()), int(((moves == m) & minimal).sum())))
    boards, reaching = puzzle.box_boards(), int(states.sum())
    totals = (",".join(TOTALS) + "\n" + f"{boards},{states.size},{reaching},"
              f"{boards - reaching},{int(states.max())}\n")
    return table, out.getvalue().encode(), totals.encode()


@pytest.fixture(scope="module", params=[("rush4", 4), ("walled-3x3", 3), ("walled-3x3", -3)])
def catalogue(request, tmp_path_factory):
    """A small catalogue's parts, several jobs': (puzzle, part paths).  The walled box's
    candidates are one block, all of one job's; -3: its rows dealt in turn to three parts
    (each still in order), so that equal keys fall in several parts."""
    name, jobs = request.param
    puzzle = puzzles.get(name) if name == "rush4" else build(name, WALLED)
    where = tmp_path_factory.mktemp(name)
    parts = [where / f"part_{j:03d}of{abs(jobs):03d}.npz" for j in range(abs(jobs))]
    if jobs < 0:
        search_part(puzzle, 0, 1, where / "whole.npz")
        deal(where / "whole.npz", parts)
    for j, part in enumerate(parts if jobs > 0 else []):
        search_part(puzzle, j, jobs, part)
    return puzzle, parts


def deal(path, parts):
    """A part's rows dealt in turn to `parts`, each recorded as job j of len(parts)."""
    whole = dict(np.load(path))
    counts = np.split(whole["counts"], whole["spans"][1:-1])
    for j, part in enumerate(parts):
        rows = np.arange(j, whole["moves"].size, len(parts))
        np.savez(part, **{**whole, **{k: whole[k][rows] for k in
                                      ("moves", "states", "minimal", "far", "walls")},
                          "spans": np.concatenate(([0], np.cumsum([counts[r].size
                                                                    for r in rows]))),
                          "counts": np.concatenate([counts[r] for r in rows]),
                          "job": np.int64(j), "jobs": np.int64(len(parts))})


def merged(puzzle, parts, where):
    outputs = [where / name for name in ("catalogue.csv", "summary.csv", "totals.csv")]
    held = merge(puzzle, parts, *outputs)
    return tuple(path.read_bytes() for path in outputs), held


def test_a_part_holds_its_rows_in_the_catalogue_order(catalogue):
    puzzle, parts = catalogue
    for path in parts:
        with np.load(path) as part:
            rows = [(-m, *f) for m, f in zip(part["moves"].tolist(), part["far"].tolist())]
            assert rows == sorted(rows) and str(part["order"]) == ORDER


def test_the_streamed_merge_writes_the_whole_merges_tables_byte_for_byte(catalogue,
                                                                         tmp_path):
    puzzle, parts = catalogue
    tables, _ = merged(puzzle, parts, tmp_path)
    assert tables == whole_merge(puzzle, parts)


@pytest.mark.parametrize("rows, counts, chunk, chunk_counts", TINY)
def test_slices_of_a_few_rows_write_the_same_tables_holding_a_slice_of_each_part_and_a_block(
        catalogue, tmp_path, monkeypatch, rows, counts, chunk, chunk_counts):
    """Blocks of a few rows, cut among equal keys of several parts: the same bytes; the
    rows held at once never more than a slice of each part and one block taken from them
    (a slice at least one row, whatever its counts)."""
    puzzle, parts = catalogue
    for name, value in zip(("MERGE_ROWS", "MERGE_COUNTS", "CHUNK", "CHUNK_COUNTS"),
                           (rows, counts, chunk, chunk_counts)):
        monkeypatch.setattr(catalogue_parts, name, value)
    tables, (rows_held, counts_held) = merged(puzzle, parts, tmp_path)
    assert tables == whole_merge(puzzle, parts)
    longest = max(int(np.load(p)["moves"].max(initial=0)) + 1 for p in parts)
    assert rows_held <= 2 * len(parts) * max(1, rows // len(parts))
    assert counts_held <= 2 * len(parts) * max(counts // len(parts), longest)


def test_the_merges_memory_is_stated_before_it_starts_and_does_not_grow_with_the_box():
    """The 6x6 box's whole merge (33,167,684 rows, 4.52 GiB read whole) under 1 GiB with the
    process, the same for 2 parts as for 97, and the rule's mem_mb that figure."""
    rush6 = puzzles.get("rush6-fogleman")
    stated = merge_bytes(rush6, 2)
    assert stated == merge_bytes(rush6, 97) and mb_of(stated) < 1024
    config = {"results": "results", "catalogues": ["rush6-fogleman"],
              "catalogue_jobs": {"rush6-fogleman": 97}}
    assert CatalogueRules(config).merge_mb(SimpleNamespace(puzzle="rush6-fogleman")) == \
        mb_of(stated)


def test_a_truncated_part_is_refused_in_one_line_and_nothing_is_written(catalogue, tmp_path):
    puzzle, parts = catalogue
    data = parts[1].read_bytes()
    outputs = [tmp_path / name for name in ("catalogue.csv", "summary.csv", "totals.csv")]
    for cut in (0, 100, len(data) // 2, len(data) - 1):
        (tmp_path / "cut.npz").write_bytes(data[:cut])
        with pytest.raises(StorageError, match=r"cut\.npz: not a catalogue part") as err:
            merge(puzzle, [parts[0], tmp_path / "cut.npz"], *outputs)
        assert "\n" not in str(err.value)
    assert not any(path.exists() for path in outputs)


def test_a_part_not_in_the_merges_order_is_refused_in_one_line(catalogue, tmp_path):
    """A part made before the parts were sorted (no order recorded), and one recording the
    order whose rows are not in it."""
    puzzle, parts = catalogue
    outputs = [tmp_path / name for name in ("catalogue.csv", "summary.csv", "totals.csv")]
    largest = max(parts, key=lambda p: np.load(p)["moves"].size)  # (a block job may have none)
    others = [p for p in parts if p != largest]
    part = dict(np.load(largest))
    np.savez(tmp_path / "old.npz", **{k: v for k, v in part.items() if k != "order"})
    with pytest.raises(StorageError, match=r"old\.npz: its rows not in the merge's order "
                       r".*run its job again") as err:
        merge(puzzle, [tmp_path / "old.npz", *others], *outputs)
    assert "\n" not in str(err.value)
    rows = part["moves"].size
    reverse = np.arange(rows)[::-1]
    lengths = np.diff(part["spans"])[reverse]
    np.savez(tmp_path / "reversed.npz", **{
        **part, **{k: part[k][reverse] for k in ("moves", "states", "minimal", "far", "walls")},
        "spans": np.concatenate(([0], np.cumsum(lengths))),
        "counts": np.concatenate(np.split(part["counts"], part["spans"][1:-1])[::-1])})
    with pytest.raises(StorageError, match=r"reversed\.npz: rows out of the merge's order"):
        merge(puzzle, [tmp_path / "reversed.npz", *others], *outputs)
    assert not any(path.exists() for path in outputs)
