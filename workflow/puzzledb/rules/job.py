"""How a rule's script runs as a job (scripts/*.py): its stderr in the job's log, the
config's own puzzles known, and a known error ended in one line, as the command line does.
The process tricks it uses are process.py's."""

import sys
from contextlib import contextmanager

from puzzledb.config import define_puzzles
from puzzledb.errors import PuzzledbError, one_line
from puzzledb.process import exit_now


@contextmanager
def rule_job(snakemake, append=False, end_process=True):
    """Run the block of a rule script (given Snakemake's `snakemake` object) as the job:
    sys.stderr goes to the job's log (appended to if `append`, as the bfs rule does to keep
    the story of its resumes), the config's own puzzles (`define:`) are known, and a known
    error (a PuzzledbError: a memory budget, a bad board, a corrupt layer, a full disk) ends
    the job with its one line, at the end of the log and on the run's own stderr, and exit
    status 2, as the command line does.  When the block succeeds the process exits with
    status 0 right there (end_process=False returns instead: for a caller that is not a
    job's own process, such as a test)."""
    terminal = sys.stderr
    log = open(snakemake.log[0], "a" if append else "w", buffering=1)
    sys.stderr = log
    try:
        define_puzzles(snakemake.config)
        yield log
    except PuzzledbError as err:
        line = f"puzzledb: error: {one_line(err)}"
        print(line, file=log)
        print(line, file=terminal, flush=True)
        raise SystemExit(2) from None
    finally:
        sys.stderr = terminal
        log.close()
    if end_process:
        exit_now(0)
