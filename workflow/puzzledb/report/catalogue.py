"""The catalogue of a box (puzzles/blocks/catalogue.py): its clusters searched by jobs, each
taking its share of the units of work (puzzles/blocks/split.py: a lane catalogue's units,
another's blocks of BLOCK candidate boards), each cluster by the job holding its least
board; their parts merged into catalogue.csv (one row per cluster that reaches the goal, the
hardest first), catalogue_summary.csv (per number of moves) and catalogue_totals.csv (the
box's totals), and the hardest puzzles drawn for the report (catalogue_hardest.html); and the
queries of `puzzledb catalogue`.  docs/blocks.md, "The catalogue"."""

import csv
import html
import io
import zipfile

import numpy as np

from puzzledb.errors import StorageError
from puzzledb.puzzles.blocks.split import SPLIT, units_of
from puzzledb.report.pictures import PAGE_CELL, board_svg
from puzzledb.store.files import atomic_file, write_text

BLOCK = 1 << 16  # candidates a job takes at a time (its share comes in blocks this size)
CHUNK = 1 << 20  # rows of catalogue.csv formatted at a time
HARDEST = 12  # the rows drawn on the report's page of the hardest puzzles
COLUMNS = ("moves", "board", "states", "minimal", "counts")
SUMMARY = ("moves", "clusters", "minimal")
# the box's totals: its boards (box.py's count, every cluster), the clusters that reach the
# goal, their boards and the largest's; the boards of the others (the searches never enter a
# cluster that cannot reach the goal, so those clusters are not counted, only their boards)
TOTALS = ("boards", "clusters_reaching", "boards_reaching", "boards_not_reaching",
          "largest_reaching")
# what a job's search finds, lists of arrays: each cluster's states, moves and minimal
# (info), farthest board's key (far) and walls, its distance counts (counts, flat) and how
# many there are (lengths)
FOUND = ("info", "far", "walls", "counts", "lengths")


def search_part(puzzle, job, jobs, path, log=None):
    """Job `job` (0-based) of `jobs`: its clusters, written to path (npz, whole or not at
    all).  A catalogue of bars (Rush Hour's) by its lanes' layouts (puzzles/blocks/
    lane_search.py), any other by blocks of candidate boards."""
    if puzzle.lanes is not None:
        from puzzledb.puzzles.blocks import lane_search  # compiled kernels: a job's import

        found, candidates = lane_search.search(puzzle, job, jobs, log)
    else:
        found, candidates = _block_search(puzzle, job, jobs, log)
    _write_part(path, puzzle.tables(), found, candidates, job, jobs)


def _block_search(puzzle, job, jobs, log):
    """The clusters whose least board is in the job's blocks of candidates (its share by
    split.py: blocks counted as the walk meets them, ascending)."""
    kernels, tables = puzzle.compiled, puzzle.tables()
    walk = kernels.new_walk(tables, puzzle.catalogue.walls, puzzle.catalogue.min_empty)
    search, more = kernels.new_search(tables), kernels.new_search(tables)
    keys = np.empty((BLOCK, tables.empty.size), np.uint64)
    walls = np.empty(BLOCK, np.uint64)
    found = {name: [] for name in FOUND}
    candidates = 0
    for block in units_of(job, jobs):
        lo = block * BLOCK
        count = kernels.boards(tables, walk, lo, lo + BLOCK, keys, walls)
        if count == 0:
            return found, candidates
        candidates += count
        info, far, spans, counts, search, more = kernels.clusters(tables, keys, walls, count,
                                                                  search, more)
        found["info"].append(info[:, 1:])
        found["far"].append(far)
        found["walls"].append(walls[info[:, 0]])
        found["counts"].append(counts[:spans[-1]])
        found["lengths"].append(np.diff(spans))
        if log:
            log(f"{puzzle.name}: job {job + 1} of {jobs}: {candidates:,} candidates, "
                f"{sum(len(i) for i in found['info']):,} clusters")


def _write_part(path, tables, found, candidates, job, jobs):
    words = tables.empty.size
    info = np.concatenate(found["info"] or [np.empty((0, 3), np.int64)])
    lengths = np.concatenate(found["lengths"] or [np.empty(0, np.int64)])
    spans = np.concatenate(([0], np.cumsum(lengths)))
    with atomic_file(path) as tmp, open(tmp, "wb") as f:
        np.savez(f, states=info[:, 0], moves=info[:, 1], minimal=info[:, 2].astype(bool),
                 far=np.concatenate(found["far"] or [np.empty((0, words), np.uint64)]),
                 walls=np.concatenate(found["walls"] or [np.empty(0, np.uint64)]),
                 spans=spans, counts=np.concatenate(found["counts"] or [np.empty(0, np.int64)]),
                 candidates=np.int64(candidates), split=np.str_(SPLIT), job=np.int64(job),
                 jobs=np.int64(jobs))


def _read_part(path):
    try:
        with np.load(path) as part:
            return {name: part[name] for name in part.files}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as err:
        raise StorageError(f"{path}: not a catalogue part ({err})") from None


def read_parts(parts):
    """The jobs' parts, read whole: StorageError naming one that is not, one made under
    another split than the first part (split.py's rule, or another number of jobs), or a
    job's part twice."""
    read = [_read_part(p) for p in parts]
    jobs = {}
    for path, part in zip(parts, read):
        if _split_of(part) != _split_of(read[0]):
            raise StorageError(f"{path}: made under {_split_of(part)}, {parts[0]} under "
                               f"{_split_of(read[0])}: merge the parts of one split")
        if "job" in part and int(part["job"]) in jobs:
            raise StorageError(f"{path}: job {int(part['job'])}'s part again (as "
                               f"{jobs[int(part['job'])]})")
        jobs[int(part.get("job", -1))] = path
    return read


def _split_of(part):
    """How a part's units were chosen, in words: the split's rule and number of jobs."""
    if "split" not in part:
        return "no recorded split (units j, j + J, ..., before split.py)"
    return f"split {part['split']} of {int(part['jobs'])} jobs"


def merge(puzzle, parts, table_path, summary_path, totals_path):
    """catalogue.csv, catalogue_summary.csv and catalogue_totals.csv from the jobs' parts:
    the rows by moves, the most first, then by board (the catalogue's order of boards: its
    keys)."""
    read = read_parts(parts)
    far = np.concatenate([p["far"] for p in read])
    walls = np.concatenate([p["walls"] for p in read])
    moves = np.concatenate([p["moves"] for p in read])
    states = np.concatenate([p["states"] for p in read])
    minimal = np.concatenate([p["minimal"] for p in read])
    counts = np.concatenate([p["counts"] for p in read])
    lengths = np.concatenate([np.diff(p["spans"]) for p in read])
    spans = np.concatenate(([0], np.cumsum(lengths)))
    order = np.lexsort(tuple(far[:, w] for w in range(far.shape[1] - 1, -1, -1)) + (-moves,))
    _write_table(puzzle, table_path, order, moves, states, minimal, spans, counts, far, walls)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(SUMMARY)
    for m in np.unique(moves)[::-1].tolist():
        writer.writerow((m, int((moves == m).sum()), int(((moves == m) & minimal).sum())))
    write_text(summary_path, out.getvalue())
    write_totals(totals_path, puzzle.box_boards(), states)


def write_totals(path, boards, states):
    """catalogue_totals.csv (TOTALS): the box's boards and the sizes (states) of the
    clusters that reach the goal."""
    reaching = int(states.sum())
    if reaching > boards:
        raise StorageError(f"{path}: {reaching:,} boards in clusters reaching the goal, "
                           f"more than the box's {boards:,}: parts of another catalogue?")
    largest = int(states.max()) if states.size else 0
    write_text(path, ",".join(TOTALS) + "\n" +
               f"{boards},{states.size},{reaching},{boards - reaching},{largest}\n")


def totals(path):
    """catalogue_totals.csv's row, a dict of TOTALS (ints)."""
    try:
        with open(path, newline="") as f:
            row = next(csv.DictReader(f))
        return {name: int(row[name]) for name in TOTALS}
    except (OSError, StopIteration, KeyError, TypeError, ValueError) as err:
        raise StorageError(f"{path}: not a catalogue's totals ({err!r})") from None


def _write_table(puzzle, path, order, *columns):
    """catalogue.csv: its header, then the rows of the clusters in order (CHUNK at a time,
    by the compiled formatter of puzzles/blocks/table_kernels.py)."""
    from puzzledb.puzzles.blocks import table_kernels  # compiled: a merge's import

    tables = puzzle.tables()
    letters = np.frombuffer("".join(puzzle.letters()).encode(), np.uint8)
    goal_letters = np.frombuffer("".join(c.label for c in puzzle.catalogue.classes
                                         if c.goal).encode(), np.uint8)
    moves, states, minimal, spans, counts, far, walls = columns
    with atomic_file(path) as tmp, open(tmp, "wb") as f:
        f.write((",".join(COLUMNS) + "\n").encode())
        for lo in range(0, len(order), CHUNK):
            f.write(table_kernels.csv_rows(tables, order[lo:lo + CHUNK], moves, states,
                                           minimal, spans, counts, far, walls, letters,
                                           goal_letters).tobytes())


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
