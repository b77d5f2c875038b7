"""The catalogue of a box, past its search (puzzles/blocks/catalogue/: its clusters searched
by jobs, each taking its share of the units of work, each cluster by the job holding its
least board): a job's clusters written as its part; the parts merged into catalogue.csv (one
row per cluster that reaches the goal, the hardest first), catalogue_summary.csv (per number
of moves) and catalogue_totals.csv (the box's totals), and the hardest puzzles drawn for the
report (catalogue_hardest.html); and the queries of `puzzledb catalogue`.  docs/blocks.md,
"The catalogue"."""

import csv
import html
import io
from contextlib import contextmanager

import numpy as np

from puzzledb.bfs.memory import mb_of
from puzzledb.errors import StorageError
from puzzledb.puzzles.blocks.catalogue import job as catalogue_job
from puzzledb.report.catalogue_parts import Merge, merge_bytes, read_parts, write_part
from puzzledb.report.pictures import PAGE_CELL, board_svg
from puzzledb.store.files import atomic_file, write_text

HARDEST = 12  # the rows drawn on the report's page of the hardest puzzles
COLUMNS = ("moves", "board", "states", "minimal", "counts")
SUMMARY = ("moves", "clusters", "minimal")
# the box's totals: its boards (box.py's count, every cluster), the clusters that reach the
# goal, their boards and the largest's; the boards of the others (the searches never enter a
# cluster that cannot reach the goal, so those clusters are not counted, only their boards)
TOTALS = ("boards", "clusters_reaching", "boards_reaching", "boards_not_reaching",
          "largest_reaching")


def search_part(puzzle, job, jobs, path, log=None):
    """Job `job` (0-based) of `jobs`: its clusters (puzzles/blocks/catalogue/job.py), written
    to path (npz, whole or not at all)."""
    found, candidates = catalogue_job.search(puzzle, job, jobs, log)
    write_part(path, found, candidates, job, jobs, puzzle.tables().empty.size)


def merge(puzzle, parts, table_path, summary_path, totals_path, log=None):
    """catalogue.csv, catalogue_summary.csv and catalogue_totals.csv from the jobs' parts:
    the rows by moves, the most first, then by board (the catalogue's order of boards: its
    keys), merged a block at a time from a slice of each part (catalogue_parts.Merge), the
    summary and totals counted as they go.  Its memory, merge_bytes, is logged before it
    starts; it returns the most rows and distance counts it held at once."""
    read = read_parts(parts)
    merging = Merge(read)
    if log:
        log(f"{puzzle.name}: merging {len(read)} parts, {sum(p.rows for p in read):,} rows, "
            f"a slice of at most {merging.slice_rows:,} rows and {merging.slice_counts:,} "
            f"distance counts of each: at most "
            f"{merge_bytes(puzzle, len(read)) / 2**20:,.0f} MiB besides the process "
            f"(mem_mb {mb_of(merge_bytes(puzzle, len(read)))})")
    found = {"clusters": {}, "minimal": {}, "reaching": 0, "largest": 0, "rows": 0}
    with _table_writer(puzzle, table_path) as write:
        for block in merging.blocks():
            write(block)
            _count(found, block)
            del block  # the next block is made without this one
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(SUMMARY)
    for m in sorted(found["clusters"], reverse=True):
        writer.writerow((m, found["clusters"][m], found["minimal"].get(m, 0)))
    write_text(summary_path, out.getvalue())
    write_totals(totals_path, puzzle.box_boards(), found["rows"], found["reaching"],
                 found["largest"])
    if log:
        log(f"{puzzle.name}: merged, at most {merging.held[0]:,} rows and "
            f"{merging.held[1]:,} distance counts held at once")
    return merging.held


def _count(found, block):
    """The block's rows added to the summary's and the totals' counts."""
    for name, moves in (("clusters", block.moves), ("minimal", block.moves[block.minimal])):
        for m, n in zip(*np.unique(moves, return_counts=True)):
            found[name][int(m)] = found[name].get(int(m), 0) + int(n)
    found["rows"] += block.order.size
    found["reaching"] += int(block.states.sum(dtype=np.int64))
    found["largest"] = max(found["largest"], int(block.states.max(initial=0)))


def write_totals(path, boards, clusters, reaching, largest):
    """catalogue_totals.csv (TOTALS): the box's boards, and the clusters that reach the
    goal: how many, their boards and the largest's."""
    if reaching > boards:
        raise StorageError(f"{path}: {reaching:,} boards in clusters reaching the goal, "
                           f"more than the box's {boards:,}: parts of another catalogue?")
    write_text(path, ",".join(TOTALS) + "\n" +
               f"{boards},{clusters},{reaching},{boards - reaching},{largest}\n")


def totals(path):
    """catalogue_totals.csv's row, a dict of TOTALS (ints)."""
    try:
        with open(path, newline="") as f:
            row = next(csv.DictReader(f))
        return {name: int(row[name]) for name in TOTALS}
    except (OSError, StopIteration, KeyError, TypeError, ValueError) as err:
        raise StorageError(f"{path}: not a catalogue's totals ({err!r})") from None


@contextmanager
def _table_writer(puzzle, path):
    """catalogue.csv (whole or not at all): its header, then a function writing a block's
    rows in its order, a chunk at a time, by the compiled formatter of
    puzzles/blocks/catalogue/table_rows.py."""
    from puzzledb.puzzles.blocks.catalogue import table_rows  # compiled: a merge's import

    tables = puzzle.tables()
    letters = np.frombuffer("".join(puzzle.letters()).encode(), np.uint8)
    goal_letters = np.frombuffer("".join(c.label for c in puzzle.catalogue.classes
                                         if c.goal).encode(), np.uint8)
    with atomic_file(path) as tmp, open(tmp, "wb") as f:
        f.write((",".join(COLUMNS) + "\n").encode())

        def write(block):
            for order in block.chunks():
                f.write(memoryview(table_rows.csv_rows(
                    tables, order, block.moves, block.states, block.minimal, block.spans,
                    block.counts, block.far, block.walls, letters, goal_letters)))

        yield write


def write_hardest(puzzle, table_path, path, count=HARDEST):
    """catalogue_hardest.html, the report's page of the catalogue's first `count` rows (the
    hardest puzzles): each drawn as report/pictures.py draws boards, with its moves, its
    cluster's boards and its drawing as text."""
    items = []
    for row in rows(table_path, limit=count):
        minimal = ", minimal" if row["minimal"] == "true" else ""
        caption = f"{row['moves']} moves, {int(row['states']):,} boards{minimal}"
        items.append(f"<figure style='display:inline-block;margin:0 12px 12px 0'>"
                     f"{board_svg(puzzle, puzzle.parse(row['board']), PAGE_CELL, row['board'])}"
                     f"<figcaption>{html.escape(caption)}<pre>"
                     f"{html.escape(chr(10).join(row['board'].split()))}</pre></figcaption>"
                     f"</figure>")
    write_text(path, f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>"
                     f"{html.escape(puzzle.name)}: the hardest puzzles</title></head><body>"
                     f"<h1>{html.escape(puzzle.name)}: the {len(items)} hardest puzzles</h1>"
                     f"<p>{html.escape(puzzle.description)}</p>{''.join(items)}"
                     f"</body></html>\n")


def rows(path, moves=None, min_moves=None, limit=None, minimal_only=False):
    """The rows of catalogue.csv (dicts of COLUMNS) with these moves (or at least
    min_moves), at most limit of them, in the table's order (the hardest first)."""
    found = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            m = int(row["moves"])
            if min_moves is not None and m < min_moves:
                break  # the table runs from the most moves down
            if moves is not None and m < moves:
                break
            if moves is not None and m != moves:
                continue
            if minimal_only and row["minimal"] != "true":
                continue
            found.append(row)
            if limit is not None and len(found) >= limit:
                break
    return found
