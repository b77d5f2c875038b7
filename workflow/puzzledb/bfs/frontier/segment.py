"""The merge of one segment of the frontier search (merge.py): the neighbours the
segment received, made distinct, minus the same segment of the older layers, through a
bitset of the segment's range when it is dense, else sorted by a radix sort in two threads.
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from puzzledb.bfs import bitset
from puzzledb.bfs.frontier.kernels import (
    difference_sorted,
    merge_sorted,
    radix_sort,
    unique_sorted,
)
from puzzledb.bfs.memory import DENSE_RATIO, words_for

SORT_THREADS = 2


def segment_of_layer(groups, total, known, low, high, words=1):
    """The distinct keys of the groups ((work file, segment) pairs of `total` keys in all)
    that are in none of the known sorted arrays, sorted, as a list of arrays: through a
    bitset of [low, high) when it is dense (a group read and marked at a time; one-word
    keys only), else read into one array and sorted (segment_merge_bytes bounds what either
    way holds).  Keys of `words` words: the segment is [low, high) of their first words."""
    if words == 1 and high - low <= DENSE_RATIO * total:
        bits = np.zeros(words_for(high - low), dtype=np.uint64)
        base = np.uint64(low)
        for piece, t in groups:
            bitset.set_ranks(bits, piece.read_group(t), base)
        for a in known:
            bitset.clear_ranks(bits, a, base)
        return [block + base for block in bitset.iter_ranks(bits)]
    ranks, filled = np.empty((total, words) if words > 1 else total, dtype=np.uint64), 0
    for piece, t in groups:
        group = piece.read_group(t)
        ranks[filled:filled + len(group)] = group
        filled += len(group)
    ranks = sorted_ranks(ranks, low, high)
    ranks = ranks[:unique_sorted(ranks)]
    for a in known:
        ranks = ranks[:difference_sorted(ranks, a)]
    return [ranks]


def kernels(words):
    """What segment_of_layer calls on keys of `words` words, with arguments of their types
    (compiled.prepare)."""
    keys = np.zeros((1, words) if words > 1 else 1, np.uint64)
    calls = [(radix_sort, (keys, 0, 1, np.empty_like(keys))), (unique_sorted, (keys,)),
             (difference_sorted, (keys, keys)), (merge_sorted, (keys, keys, np.empty_like(keys)))]
    if words > 1:
        return calls
    bits = np.zeros(1, np.uint64)
    return calls + bitset.kernels(bits) + [(bitset.set_ranks, (bits, keys, np.uint64(0))),
                                           (bitset.clear_ranks, (bits, keys, np.uint64(0)))]


def sorted_ranks(a, low, high):
    """The keys a (every first word in [low, high)) sorted: by radix_sort, in SORT_THREADS
    threads (the kernel runs without the GIL) on as many slices, then merged; one more
    array as large as a in all (segment_merge_bytes)."""
    bits = max(1, int(high - low - 1).bit_length())
    spare = np.empty_like(a)
    if len(a) < (1 << 20):
        return radix_sort(a, low, bits, spare)[0]
    cuts = np.linspace(0, len(a), SORT_THREADS + 1).astype(np.int64)
    slices = [slice(int(i), int(j)) for i, j in zip(cuts[:-1], cuts[1:])]
    with ThreadPoolExecutor(SORT_THREADS) as pool:
        done = list(pool.map(lambda s: radix_sort(a[s], low, bits, spare[s]), slices))
    # each slice ended in a or in spare (keys of several words: as many passes as its
    # words' spans need); brought into one of them, then merged into the other
    first = done[0][1]
    for s, (keys, in_spare) in zip(slices, done):
        if in_spare != first:
            (spare if first else a)[s] = keys
    into = a if first else spare
    sorted_slices = [(spare if first else a)[s] for s in slices]
    merge_sorted(sorted_slices[0], sorted_slices[1], into)
    return into
