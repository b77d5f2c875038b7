"""Kernels loaded, or compiled, before a search's clock starts: what a search and its store's
queries declare they call (pairs (kernel, arguments)), the missing ones compiled side by
side in as many processes as the job has cores, each into the shared cache, with one
progress bar; then the search's own loaded in this process.

A kernel takes one core to compile and most of a first build is compiling, so the processes
are forked from this one (its registries, tables types and compiled kernels as they are),
take the missing kernels costliest first (the parallel ones: their loops are compiled twice,
once inside the other) and save each to the cache; two that need the same callee compile it
once (the cache's lock).  Where fork is missing, or one process is asked for, they are
compiled here, one after the other.
"""

import multiprocessing
import os
import sys
import time

from tqdm import tqdm

from puzzledb.compiled.caching import in_cache

PROCESSES = "PUZZLEDB_COMPILE_PROCESSES"  # at most this many compiling processes
_MISSING = []  # the (kernel, signature) pairs the forked processes compile, by index


def signatures(calls):
    """The distinct (kernel, signature) pairs of `calls`, in order: each signature the one
    a call with those arguments would take."""
    found = {}
    for kernel, args in calls:
        found.setdefault((kernel, tuple(kernel.typeof_pyval(arg) for arg in args)), None)
    return list(found)


def processes(cores=None):
    """How many processes compile at once: the cores given (a job's threads), else those
    this process may use, at most $PUZZLEDB_COMPILE_PROCESSES."""
    count = cores or len(os.sched_getaffinity(0))
    if os.environ.get(PROCESSES):
        count = min(count, int(os.environ[PROCESSES]))
    return max(1, count)


def _costliest_first(pair):
    kernel, _ = pair
    return not kernel.targetoptions.get("parallel")


def _compile_one(index):
    kernel, signature = _MISSING[index]
    began = time.perf_counter()
    try:
        kernel.compile(signature)
    except Exception as error:  # the parent compiles it again, and raises it there
        return index, time.perf_counter() - began, f"{type(error).__name__}: {error}"
    return index, time.perf_counter() - began, None


def compile_missing(pairs, cores=None, progress=True, what="kernels"):
    """Compile into the cache each (kernel, signature) of `pairs` that it lacks, in
    processes(cores) forked processes (here, when one); nothing is loaded into this process.
    Returns how many were missing."""
    missing = sorted((pair for pair in pairs if not in_cache(*pair)), key=_costliest_first)
    workers = min(processes(cores), len(missing))
    shown = progress and sys.stderr.isatty()
    bar = tqdm(total=len(missing), desc=f"compiling {what}", unit=" kernels",
               disable=not shown or not missing, dynamic_ncols=True)
    try:
        if workers > 1 and "fork" in multiprocessing.get_all_start_methods():
            _MISSING[:] = missing
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                for _ in pool.imap_unordered(_compile_one, range(len(missing))):
                    bar.update()
            _MISSING.clear()
        else:
            for kernel, signature in missing:
                kernel.compile(signature)
                bar.update()
    finally:
        bar.close()
    return len(missing)


def prepare(calls, cached=(), cores=None, progress=True):
    """Load, or compile, each kernel of `calls` for the types of its arguments, without
    running it, so that compiling is paid before a search's clock starts and never inside
    it; those of `cached` (a build's query kernels) are only made sure of in the cache, not
    loaded.  What the cache lacks is compiled first, in processes side by side
    (compile_missing).  Returns (kernels, compiled): how many distinct kernels and
    signatures, and how many of them the cache did not hold."""
    loaded, kept = signatures(calls), signatures(cached)
    compiled = compile_missing(loaded + [p for p in kept if p not in loaded], cores, progress)
    for kernel, signature in loaded:  # from the cache, or compiled here if a process failed
        kernel.compile(signature)
    for pair in kept:
        if not in_cache(*pair):
            pair[0].compile(pair[1])
    return len(set(loaded) | set(kept)), compiled
