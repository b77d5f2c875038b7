"""A job of a catalogue: its share of the units of work (split.py), its clusters found, as
lists of arrays (FOUND) that report/catalogue.py writes as the job's part.  A catalogue of
bars (Rush Hour's) is searched by its lanes' layouts (job_lanes.py), any other by blocks of
candidate boards (job_blocks.py); docs/blocks.md, "The catalogue"."""

from puzzledb.puzzles.blocks.catalogue import job_blocks

# what a job's search finds, lists of arrays: each cluster's states, moves and minimal
# (info), farthest board's key (far) and walls, its distance counts (counts, flat) and how
# many there are (lengths)
FOUND = ("info", "far", "walls", "counts", "lengths")


def search(puzzle, job, jobs, log=None):
    """The clusters of job `job` (0-based) of `jobs` (a dict of FOUND's lists of arrays),
    and the candidates (for bars, the goal boards) it met."""
    found = {name: [] for name in FOUND}
    if puzzle.lanes is not None:
        from puzzledb.puzzles.blocks.catalogue import job_lanes  # compiled: a job's import

        return found, job_lanes.search(puzzle, job, jobs, found, log)
    return found, job_blocks.search(puzzle, job, jobs, found, log)
