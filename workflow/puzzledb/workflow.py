"""A workflow job as its rule script runs it: the script's stderr goes to the rule's log, the
config's own puzzles (`define:`) are known, and a known error (a PuzzledbError: a memory
budget, a bad board, a corrupt layer, a full disk) ends the job with its one line, at the end
of the log and on the run's own stderr, and exit status 2, as the command line does, instead
of a traceback in the log.  A job that succeeds ends its process at once: the interpreter's
teardown of numba's and LLVM's objects costs a third of a second of CPU a job, and every
file the job wrote is closed by then (each is written through files.atomic_file or the
layer store, which close before they rename)."""

import os
import sys
from contextlib import contextmanager

from puzzledb.config import define_puzzles
from puzzledb.errors import PuzzledbError, one_line


@contextmanager
def rule_job(snakemake, append=False, end_process=True):
    """Run the block of a rule script (given Snakemake's `snakemake` object) as the job, with
    sys.stderr sent to the job's log (appended to if `append`, as the bfs rule does to keep
    the story of its resumes).  When the block succeeds the process exits with status 0
    right there (end_process=False returns instead: for a caller that is not a job's own
    process, such as a test)."""
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


def exit_now(status):
    """End the process with `status` at once, what is buffered on stdout and stderr written
    first, without the interpreter's teardown (a third of a second of CPU once numba is
    loaded).  For a process whose files are all closed: a rule job, the command line."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):  # the reader is gone; the stream is closed
            pass
    os._exit(status)
