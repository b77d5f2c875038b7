"""How a puzzledb process ends: two tricks that depend on others' internals, each kept for
its measured gain, and said here once.

- A rule job or a `puzzledb` command that succeeds ends its process at once (`exit_now`,
  os._exit after flushing stdout and stderr): the interpreter's teardown of numba's and
  LLVM's objects costs about a third of a second of CPU a process (docs/benchmarks.md), and
  every file puzzledb writes is closed by then (each goes through store.files.atomic_file or
  the layer store, which close before they rename), so nothing is left to flush.
- At the end of a workflow run, Snakemake's pending scheduler timers are cancelled
  (`release_exit`, from the Snakefile's onsuccess/onerror): Snakemake 9 starts a timer
  thread after each scheduling round and the process waits for it before it exits, a second
  added to every run.  Only timers whose function is Snakemake's own are cancelled, so a
  Snakemake release that schedules otherwise loses the second and nothing else.
"""

import os
import sys
import threading


def exit_now(status):
    """End the process with `status` at once, what is buffered on stdout and stderr written
    first, without the interpreter's teardown.  For a process whose files are all closed: a
    rule job, the command line."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):  # the reader is gone; the stream is closed
            pass
    os._exit(status)


def release_exit():
    """Cancel Snakemake's pending scheduler timers once the run is over (see the module's
    docstring): nothing is left for them to wake."""
    for thread in threading.enumerate():
        function = getattr(thread, "function", None)
        if isinstance(thread, threading.Timer) and \
                getattr(function, "__module__", "").startswith("snakemake"):
            thread.cancel()
