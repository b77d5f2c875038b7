"""The operations on keys (puzzledb/keys.py) that compiled loops use, each chosen when its
caller is compiled by the array's ndim: a 1-D array holds one-word keys (its elements), a
2-D one keys of W words (its rows).  So a loop over keys is written once, and its one-word
compilation is the loop over plain ranks it was before keys grew wider."""

import numpy as np
from numba import types
from numba.extending import overload


def _compiled_only(*args):
    raise NotImplementedError("called from compiled code only; see puzzledb.compiled.keys")


def key_width(a):
    """The words of a key array's keys (a compile-time 1 for a 1-D array)."""
    _compiled_only()


def word(a, i, w):
    """Word w of key i (a[i] of a 1-D array, whatever w)."""
    _compiled_only()


def prefix(a, i):
    """Key i's first word, as int64: the word the frontier's segments cut."""
    _compiled_only()


def copy_key(dst, i, src, j):
    """dst's key i = src's key j."""
    _compiled_only()


def keys_equal(a, i, b, j):
    _compiled_only()


def key_less(a, i, b, j):
    """Whether a's key i is below b's key j (lexicographically, word 0 first)."""
    _compiled_only()


def _one_word(a):
    return isinstance(a, types.Array) and a.ndim == 1


@overload(key_width, inline="always")
def _key_width(a):
    if _one_word(a):
        return lambda a: 1
    return lambda a: a.shape[1]


@overload(word, inline="always")
def _word(a, i, w):
    if _one_word(a):
        return lambda a, i, w: a[i]
    return lambda a, i, w: a[i, w]


@overload(prefix, inline="always")
def _prefix(a, i):
    if _one_word(a):
        return lambda a, i: np.int64(a[i])
    return lambda a, i: np.int64(a[i, 0])


@overload(copy_key, inline="always")
def _copy_key(dst, i, src, j):
    if _one_word(dst):
        def one(dst, i, src, j):
            dst[i] = src[j]
        return one

    def rows(dst, i, src, j):
        for w in range(dst.shape[1]):
            dst[i, w] = src[j, w]
    return rows


@overload(keys_equal, inline="always")
def _keys_equal(a, i, b, j):
    if _one_word(a):
        return lambda a, i, b, j: a[i] == b[j]

    def rows(a, i, b, j):
        for w in range(a.shape[1]):
            if a[i, w] != b[j, w]:
                return False
        return True
    return rows


@overload(key_less, inline="always")
def _key_less(a, i, b, j):
    if _one_word(a):
        return lambda a, i, b, j: a[i] < b[j]

    def rows(a, i, b, j):
        for w in range(a.shape[1]):
            if a[i, w] != b[j, w]:
                return a[i, w] < b[j, w]
        return False
    return rows


def set_word(a, i, w, v):
    """Word w of key i = v (a[i] of a 1-D array, whatever w)."""
    _compiled_only()


@overload(set_word, inline="always")
def _set_word(a, i, w, v):
    if _one_word(a):
        def one(a, i, w, v):
            a[i] = v
        return one

    def rows(a, i, w, v):
        a[i, w] = v
    return rows


def width_of(key):
    """The words of one key: a compile-time 1 for a scalar rank, else its row's length."""
    _compiled_only()


def word_of(key, w):
    """Word w of one key: a scalar rank itself, whatever w, or its row's word w."""
    _compiled_only()


@overload(width_of, inline="always")
def _width_of(key):
    if isinstance(key, types.Integer):
        return lambda key: 1
    return lambda key: key.size


@overload(word_of, inline="always")
def _word_of(key, w):
    if isinstance(key, types.Integer):
        return lambda key, w: key
    return lambda key, w: np.int64(key[w])
