"""How a catalogue's work is shared among its jobs (config catalogue_jobs): the units of work
(a lane catalogue's units, lanes.units; another catalogue's blocks of candidates) are dealt
in rounds of J, one to each job, the order within each round shuffled by a hash of the
round.  Every job gets the same number of units to one, and a size that follows the units'
order (odd units larger than even ones, as the rows' contents make them in Rush Hour's
boxes) no longer falls on one job.  The rule is written here only, and named in each job's
part (SPLIT) so that the merge refuses parts made under two splits; docs/blocks.md.
"""

import numpy as np

SPLIT = "shuffled-rounds/1"  # this rule's name, in each part (report/catalogue_parts.py)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _mix(x):
    """splitmix64's finaliser of uint64 values (a bijection that spreads every bit)."""
    x = (x + GOLDEN) ^ ((x + GOLDEN) >> np.uint64(30))
    x = (x * M1) ^ ((x * M1) >> np.uint64(27))
    x = x * M2
    return x ^ (x >> np.uint64(31))


def _orders(first, rounds, jobs):
    """For each of `rounds` rounds from round `first`: the units of the round (round r is
    units r * jobs .. r * jobs + jobs - 1) in the order they are dealt to jobs 0, 1, ..."""
    r = np.arange(first, first + rounds, dtype=np.uint64)[:, None]
    slots = np.arange(jobs, dtype=np.uint64)[None, :]
    with np.errstate(over="ignore"):  # the hash wraps modulo 2^64 on purpose
        keys = _mix(_mix(r) ^ slots)
    return r.astype(np.int64) * jobs + np.argsort(keys, axis=1, kind="stable")


def units_of(job, jobs, total=None, rounds=4096):
    """The units of job `job` (0-based) of `jobs`, ascending: one a round, below total (all
    of them, an endless stream, when total is None: a catalogue whose units are counted as
    they are met).  ValueError for a job outside 0..jobs - 1."""
    if not 0 <= job < jobs:
        raise ValueError(f"job {job} of {jobs}: jobs are numbered 0 to {jobs - 1}")
    first = 0
    while True:
        count = rounds if total is None else min(rounds, -(-total // jobs) - first)
        if count <= 0:
            return
        for unit in _orders(first, count, jobs)[:, job].tolist():
            if total is not None and unit >= total:
                return
            yield unit
        first += count


def job_of(unit, jobs):
    """The job (of `jobs`) that takes `unit`."""
    order = _orders(unit // jobs, 1, jobs)[0]
    return int(np.flatnonzero(order == unit)[0])
