"""A job of a catalogue by blocks of candidate boards (any shapes, not bars alone): its
share of the blocks (split.py, blocks counted as the walk meets them, ascending), each
block's candidates listed by candidate_walk_blocks.py and the clusters whose least board is
among them searched; the rows appended to the job's found (job.py's FOUND)."""

import numpy as np

from puzzledb.puzzles.blocks.catalogue.split import units_of

BLOCK = 1 << 16  # candidates a job takes at a time (its share comes in blocks this size)


def search(puzzle, job, jobs, found, log=None):
    """The clusters whose least board is in the job's blocks of candidates, appended to
    found; the candidates met."""
    kernels, tables = puzzle.compiled, puzzle.tables()
    walk = kernels.new_walk(tables, puzzle.catalogue.walls, puzzle.catalogue.min_empty)
    searches = kernels.new_search(tables), kernels.new_search(tables)  # grown as they go
    keys = np.empty((BLOCK, tables.empty.size), np.uint64)
    walls = np.empty(BLOCK, np.uint64)
    candidates = 0
    for block in units_of(job, jobs):
        lo = block * BLOCK
        count = kernels.boards(tables, walk, lo, lo + BLOCK, keys, walls)
        if count == 0:
            return candidates
        candidates += count
        info, far, spans, counts, *searches = kernels.clusters(tables, keys, walls, count,
                                                               *searches)
        found["info"].append(info[:, 1:])
        found["far"].append(far)
        found["walls"].append(walls[info[:, 0]])
        found["counts"].append(counts[:spans[-1]])
        found["lengths"].append(np.diff(spans))
        if log:
            log(f"{puzzle.name}: job {job + 1} of {jobs}: {candidates:,} candidates, "
                f"{sum(len(i) for i in found['info']):,} clusters")
