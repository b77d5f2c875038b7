"""A job of a lane catalogue (lanes.py): its units of work (split.py's share of the job),
each walked by candidate_walk_lanes.walk_unit, the arrays grown when a kernel runs out of
room; the clusters' rows appended to the job's found (job.py's FOUND)."""

import numpy as np

from puzzledb.puzzles.blocks.catalogue import candidate_walk_lanes as walk
from puzzledb.puzzles.blocks.catalogue.lanes import units
from puzzledb.puzzles.blocks.catalogue.split import units_of

QUEUE = 1 << 16  # boards a cluster's queues hold at first (grown when one needs more)
ROWS = 1 << 16  # clusters the output holds before it is taken away


def search(puzzle, job, jobs, found, log=None):
    """The clusters of job `job` (0-based) of `jobs`, appended to found; the goal boards
    met."""
    lanes, kt = puzzle.lanes, puzzle.tables()
    t = lanes.tables()
    wall_sets, per = units(lanes)
    height = lanes.cat.drawing.height
    radices = [len(lanes.contents[r]) for r in range(height)]
    work = walk.new_work(t, lanes.max_ranks(), QUEUE)
    output = walk.new_output(kt.empty.size, ROWS, ROWS * 16)
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
            status, skip = walk.walk_unit(t, kt, rows, wall_sets[which], skip, work, output)
            if status == walk.DONE:
                break
            if status == walk.FULL and work.count[walk.ROWS]:
                _take(work, output, found)
            elif status == walk.FULL:  # one layout's rows past the room: more room
                output = walk.new_output(kt.empty.size, 2 * output.info.shape[0],
                                       2 * output.counts.size)
            else:
                work = _grown(work)
        if log and (done + 1) % 1024 == 0:
            log(f"{puzzle.name}: job {job + 1} of {jobs}: {done + 1:,} units of "
                f"{len(share):,}, {int(work.count[walk.CLUSTERS]):,} clusters")
    _take(work, output, found)
    return int(work.count[walk.GOALS])


def _take(work, output, found):
    """The output's rows appended to found, the output emptied."""
    n = int(work.count[walk.ROWS])
    spans = output.spans[:n + 1]
    found["info"].append(output.info[:n].astype(np.int32))  # a job's clusters, 4 bytes a
    found["far"].append(output.far[:n].copy())                # number of them will do
    found["walls"].append(output.walls[:n].copy())
    found["counts"].append(output.counts[:spans[-1]].astype(np.int32))
    found["lengths"].append(np.diff(spans).astype(np.int32))
    work.count[walk.ROWS] = work.count[walk.COUNTS] = 0


def _grown(work):
    """The work with queues twice as long (a cluster past them), the rest kept."""
    size = 2 * work.qp.size
    return work._replace(**{name: np.empty(size, getattr(work, name).dtype)
                            for name in ("qp", "qr", "qo", "dp", "dr", "do", "mp", "mr")},
                         counts=np.empty(size + 1, np.int64))
