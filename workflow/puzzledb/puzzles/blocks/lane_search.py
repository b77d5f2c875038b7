"""A job of a lane catalogue (lanes.py): its units of work (split.py's share of the job), each
walked by layout_kernels.walk_unit, the arrays grown when a kernel runs out of room; the
clusters' rows as report/catalogue.py's part files hold them."""

import numpy as np

from puzzledb.puzzles.blocks import layout_kernels as lk
from puzzledb.puzzles.blocks.lanes import units
from puzzledb.puzzles.blocks.split import units_of

QUEUE = 1 << 16  # boards a cluster's queues hold at first (grown when one needs more)
ROWS = 1 << 16  # clusters the output holds before it is taken away


def search(puzzle, job, jobs, log=None):
    """The clusters of job `job` (0-based) of `jobs` (a dict of lists of arrays, as
    report/catalogue.py's FOUND), and the goal boards met."""
    lanes, kt = puzzle.lanes, puzzle.tables()
    t = lanes.tables()
    wall_sets, per = units(lanes)
    height = lanes.cat.drawing.height
    radices = [len(lanes.contents[r]) for r in range(height)]
    work = lk.new_work(t, lanes.max_ranks(), QUEUE)
    output = lk.new_output(kt.empty.size, ROWS, ROWS * 16)
    found = {name: [] for name in ("info", "far", "walls", "counts", "lengths")}
    total = len(wall_sets) * per
    share = list(units_of(job, jobs, total))
    for done, u in enumerate(share):
        which, rest = divmod(u, per)
        rows = np.empty(height, np.int64)
        for r in range(height - 1, -1, -1):
            rest, d = divmod(rest, radices[r])
            rows[r] = t.content_first[r] + d
        skip = 0
        while True:
            status, skip = lk.walk_unit(t, kt, rows, wall_sets[which], skip, work, output)
            if status == lk.DONE:
                break
            if status == lk.FULL and work.count[lk.ROWS]:
                _take(work, output, found)
            elif status == lk.FULL:  # one layout's rows past the room: more room
                output = lk.new_output(kt.empty.size, 2 * output.info.shape[0],
                                       2 * output.counts.size)
            else:
                work = _grown(work)
        if log and (done + 1) % 1024 == 0:
            log(f"{puzzle.name}: job {job + 1} of {jobs}: {done + 1:,} units of "
                f"{len(share):,}, {int(work.count[lk.CLUSTERS]):,} clusters")
    _take(work, output, found)
    return found, int(work.count[lk.GOALS])


def _take(work, output, found):
    """The output's rows appended to found, the output emptied."""
    n = int(work.count[lk.ROWS])
    spans = output.spans[:n + 1]
    found["info"].append(output.info[:n].astype(np.int32))  # a job's clusters, 4 bytes a
    found["far"].append(output.far[:n].copy())                # number of them will do
    found["walls"].append(output.walls[:n].copy())
    found["counts"].append(output.counts[:spans[-1]].astype(np.int32))
    found["lengths"].append(np.diff(spans).astype(np.int32))
    work.count[lk.ROWS] = work.count[lk.COUNTS] = 0


def _grown(work):
    """The work with queues twice as long (a cluster past them), the rest kept."""
    size = 2 * work.qp.size
    return work._replace(**{name: np.empty(size, getattr(work, name).dtype)
                            for name in ("qp", "qr", "qo", "dp", "dr", "do", "mp", "mr")},
                         counts=np.empty(size + 1, np.int64))
