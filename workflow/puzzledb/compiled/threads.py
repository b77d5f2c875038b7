"""numba's threading layer asked the one way it answers: by running a parallel loop.  A
module of its own so that the loop is cached as every kernel is (`jit`, whose cache
directory is made when a kernel is decorated, which compiled/__init__.py's import must not
do): uncached, it was compiled again in every frontier step and merge job, 0.3 to 1 s each."""

import numba

from puzzledb.compiled import jit


@jit(parallel=True)
def one_parallel_loop(out):
    for i in numba.prange(out.size):
        out[i] = i
