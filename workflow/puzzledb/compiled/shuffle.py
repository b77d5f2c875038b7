"""HDF5's shuffle filter, compiled: the byte planes of a chunk of uint64 words, which the
layer writer deflates (store/layer.py).  Imported by the writer when it first encodes a
chunk, so that a process that reads or plans only never loads numba for it."""

import numpy as np

from puzzledb.compiled import jit


@jit
def shuffle(words, out):
    """out[k * n + i] = byte k (little-endian) of words[i], n = words.size.  numpy's byte
    transpose took 5.9 ns a word, eight strided copies 3.2, this loop 1.3 (issue 44: a
    layer is written beside the search's threads, on the same cores)."""
    n = words.size
    for i in range(n):
        v = words[i]
        for k in range(8):
            out[k * n + i] = np.uint8((v >> np.uint64(8 * k)) & np.uint64(255))


# what writing a layer calls, with arguments of its types (compiled.prepare): loaded, or
# compiled, with an engine's kernels before its search's clock starts
KERNELS = [(shuffle, (np.zeros(1, np.uint64), np.zeros(8, np.uint8)))]
