"""A state's key: its rank when the rank space fits one 64-bit word, else W >= 2 words
(Puzzle.key_words), most significant first.  In arrays a key is a uint64 (W = 1) or a row of
a C-contiguous (n, W) uint64 array, rows in lexicographic order; in Python, an int (the
words read as one number, word 0 highest), so that keys compare alike both ways.  Plain
numpy: the compiled operations on keys are compiled/keys.py's."""

import numpy as np

WORD_BITS = 64
WORD_LIMIT = 1 << 63  # a word's values: below 2^63, so that the kernels' int64 hold them


def key_array(values, words=1):
    """Keys given as Python ints (or a key array) as a key array of `words` words."""
    if isinstance(values, np.ndarray) and values.dtype == np.uint64 and \
            values.ndim == (1 if words == 1 else 2):
        return values
    values = [int(v) for v in np.asarray(values, dtype=object).ravel()] \
        if not isinstance(values, list) else [int(v) for v in values]
    if words == 1:
        return np.array(values, dtype=np.uint64)
    mask = (1 << WORD_BITS) - 1
    out = np.empty((len(values), words), dtype=np.uint64)
    for i, v in enumerate(values):
        for w in range(words):
            out[i, w] = (v >> (WORD_BITS * (words - 1 - w))) & mask
    return out


def key_int(key):
    """One key (a uint64, or a row of words) as a Python int."""
    if np.ndim(key) == 0:
        return int(key)
    value = 0
    for word in np.asarray(key).tolist():
        value = (value << WORD_BITS) | int(word)
    return value


def key_ints(keys):
    """A key array's keys as Python ints."""
    keys = np.asarray(keys)
    if keys.ndim == 1:
        return [int(k) for k in keys.tolist()]
    return [key_int(row) for row in keys]


def width(keys):
    """The words of a key array's keys."""
    return 1 if keys.ndim == 1 else keys.shape[1]


def prefix(keys):
    """The first word of each key (the word the frontier's segments cut)."""
    return keys if keys.ndim == 1 else keys[:, 0]


def sortable(keys):
    """A 1-D array ordered as the keys are: the keys themselves (W = 1), or each row's
    words big-endian as one byte string (numpy compares those byte by byte)."""
    if keys.ndim == 1:
        return keys
    rows = np.ascontiguousarray(keys, dtype=">u8")
    return rows.view(f"S{8 * keys.shape[1]}").ravel()


def unique(keys, return_inverse=False):
    """The distinct keys, sorted (and where each key went, if asked)."""
    if keys.ndim == 1:
        return np.unique(keys, return_inverse=return_inverse)
    order = sortable(keys)
    _, first, inverse = np.unique(order, return_index=True, return_inverse=True)
    out = np.ascontiguousarray(keys[first])
    return (out, inverse) if return_inverse else out


def ascending(keys):
    """Whether the keys are strictly ascending."""
    s = sortable(keys)
    return bool(np.all(s[1:] > s[:-1]))


def searchsorted(sorted_keys, queries, side="left"):
    """np.searchsorted on keys."""
    return np.searchsorted(sortable(sorted_keys), sortable(queries), side=side)


def member(sorted_keys, queries):
    """Whether each query is among the sorted keys."""
    if len(sorted_keys) == 0:
        return np.zeros(len(queries), dtype=bool)
    s, q = sortable(sorted_keys), sortable(queries)
    at = np.minimum(np.searchsorted(s, q), s.size - 1)
    return s[at] == q


def smallest(keys):
    """The smallest key, as a Python int."""
    if keys.ndim == 1:
        return int(keys.min())
    return key_int(keys[int(np.argmin(sortable(keys)))])
