"""How puzzledb compiles, and the compiled side of the Puzzle interface.

Every kernel is a module-level function compiled by `jit` (numba's njit with its on-disk
cache), and a puzzle's data reaches kernels only as an argument: its *tables*, a namedtuple
of arrays (Puzzle.tables()).  The generic loops (the BFS step, the tree search, matching)
call `neighbours`, `lower_bound` and `relabel` below; numba resolves each call at compile
time from the type of the tables, which every family registers with its kernels.  Nothing
closes over a compiled function, so every loop is reloaded from the cache in the next
process instead of being compiled again.

Each kernel is cached on disk (caching.py): keyed by what its code can reach, so that an edit
recompiles only the kernels it touches, and compiled by one process at a time among those
sharing the cache.
"""

import sys
from functools import cache
from importlib import import_module

import numba
import numpy as np
from numba.core import types
from numba.core.errors import TypingError
from numba.extending import overload

from puzzledb.compiled.caching import cache_directory, depends, enable, in_cache  # noqa: F401
from puzzledb.compiled.compiling import prepare  # noqa: F401
from puzzledb.compiled.numba_copies import skip_needless_copies  # noqa: F401  (at a first compile)


@cache
def _array_registry_without_blas():
    """Import numba's array implementations (numba.np.arraymath) as its CPU target would
    before the first kernel is loaded or compiled, but told that BLAS is missing: that
    module asks by importing scipy.linalg where scipy is installed, 0.15 s of CPU in every
    process that runs a kernel, for np.convolve and np.correlate (a plain loop without
    it), which no kernel of ours calls.  np.dot and np.linalg ask again when compiled."""
    blas = "scipy.linalg.cython_blas"
    if blas in sys.modules or "numba.np.arraymath" in sys.modules:
        return
    sys.modules[blas] = None  # `import` of it raises ImportError, scipy left unimported
    try:
        import_module("numba.np.arraymath")
    finally:
        del sys.modules[blas]


def jit(function=None, *, parallel=False, inline="never"):
    """numba.njit with the disk cache (caching.py) and without the GIL: how every kernel is
    compiled."""
    _array_registry_without_blas()
    options = dict(nogil=True, parallel=parallel, inline=inline)
    if function is None:
        return lambda function: enable(numba.njit(**options)(function))
    return enable(numba.njit(**options)(function))


def set_threads(threads):
    """Use `threads` of numba's threads (at most as many as it started with)."""
    if threads:
        numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))


def concurrency_kernels():
    """concurrent_parallel_kernels' loop as kernels() pairs (prepare), loaded before a
    clock starts (threads.py)."""
    from puzzledb.compiled.threads import one_parallel_loop

    return [(one_parallel_loop, (np.empty(1, np.int64),))]


def concurrent_parallel_kernels():
    """Whether parallel kernels may run in several Python threads at once: numba's threading
    layer is OpenMP or TBB (its own workqueue layer aborts the process when two threads
    launch parallel loops together).  The layer is chosen at the first parallel loop."""
    [(loop, arguments)] = concurrency_kernels()
    loop(*arguments)
    return numba.threading_layer() != "workqueue"


# --- dispatch on the type of the tables ------------------------------------------------------

_ROLES = ("neighbours", "neighbours_after", "lower_bound", "relabel")
_KERNELS = {role: {} for role in _ROLES}


def register(tables_type, **kernels):
    """Make the compiled kernels of one tables type (a namedtuple class) known:
    neighbours(rank, level, out, work, tables) -> count,
    neighbours_after(rank, prev, level, out, work, tables) -> count (optional: the same,
    when work holds what the call for prev, a smaller rank, left there; prev < 0: nothing),
    lower_bound(rank, work, tables) -> int, relabel(rank, key, tables) -> rank.
    Tables that reach a parallel loop (neighbours, relabel) must be flat: numba's parallel
    loops take a namedtuple of arrays, not one that nests another."""
    for role, kernel in kernels.items():
        if role not in _KERNELS:
            raise TypeError(f"unknown kernel role {role!r}; use one of {', '.join(_ROLES)}")
        _KERNELS[role][tables_type] = kernel
        depends(tables_type, kernel.py_func.__module__)


def _kernel(role, tables):
    kernel = _KERNELS[role].get(getattr(tables, "instance_class", None))
    if kernel is None:
        raise TypingError(f"no {role} kernel is registered for tables of type {tables}")
    return kernel


@numba.njit(inline="always", cache=False)  # inlined where called: nothing of its own to
def scratch(max_moves, work_size):  # cache, and no cache directory made at import
    """A thread's arrays for the neighbours kernel: out (max_moves) and work (work_size)."""
    return np.empty(max_moves, np.int64), np.empty(work_size, np.int64)


def _compiled_only(*args):
    raise NotImplementedError("called from compiled code only; see puzzledb.compiled")


def neighbours(rank, level, out, work, tables):
    """The neighbour ranks of `rank` (a state of layer `level`) into out; their number.
    Scratch in work (tables.work_size long or more).  Must not allocate."""
    _compiled_only()


def neighbours_after(rank, prev, level, out, work, tables):
    """neighbours(rank, ...) for a caller that goes through ranks in ascending order with
    the same work array: prev is the rank before (or < 0), and a family may decode rank
    from where it differs from prev's.  Families without such a kernel: neighbours."""
    _compiled_only()


def lower_bound(rank, work, tables):
    """An admissible lower bound on the moves from `rank` to the goal.  Tables that are a
    plain tuple of bound tables give the largest of their bounds."""
    _compiled_only()


def relabel(rank, key, tables):
    """The state `rank` with its pieces renamed by the renaming `key` (query/matching.py)."""
    _compiled_only()


def _is_plain_tuple(t):
    return isinstance(t, types.BaseTuple) and not isinstance(
        t, (types.NamedTuple, types.NamedUniTuple))


@overload(neighbours, jit_options=dict(nogil=True), inline="always")
def _neighbours(rank, level, out, work, tables):
    kernel = _kernel("neighbours", tables)
    return lambda rank, level, out, work, tables: kernel(rank, level, out, work, tables)


@overload(neighbours_after, jit_options=dict(nogil=True), inline="always")
def _neighbours_after(rank, prev, level, out, work, tables):
    kernel = _KERNELS["neighbours_after"].get(getattr(tables, "instance_class", None))
    if kernel is None:
        return lambda rank, prev, level, out, work, tables: neighbours(rank, level, out, work,
                                                                        tables)
    return lambda rank, prev, level, out, work, tables: kernel(rank, prev, level, out, work,
                                                                tables)


@overload(lower_bound, jit_options=dict(nogil=True))
def _lower_bound(rank, work, tables):
    if _is_plain_tuple(tables):
        if len(tables) == 1:
            return lambda rank, work, tables: lower_bound(rank, work, tables[0])
        return lambda rank, work, tables: max(lower_bound(rank, work, tables[0]),
                                              lower_bound(rank, work, tables[1:]))
    kernel = _kernel("lower_bound", tables)
    return lambda rank, work, tables: kernel(rank, work, tables)


@overload(relabel, jit_options=dict(nogil=True))
def _relabel(rank, key, tables):
    kernel = _kernel("relabel", tables)
    return lambda rank, key, tables: kernel(rank, key, tables)


# --- entry points from Python ---------------------------------------------------------------

# They are kernels: calls.py defines them, and importing it decorates them, which does the
# cache work (cache_directory) that importing this module does not.  So they are imported on
# first use, as attributes of this module (PEP 562): compiled.neighbours_of_many(...).
CALLS = ("neighbours_of", "neighbours_of_many", "lower_bounds", "relabel_one")


def __getattr__(name):
    if name in CALLS:
        return getattr(import_module("puzzledb.compiled.calls"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
