"""The memory a search holds, known before it starts: the engines' bit planes, buffers and
work pieces (a pattern database's build: solvers/memory.py).  Plain arithmetic on sizes, so
that the search plan (select.py, with the budget check), the workflow's `resources` and
`puzzledb info` state it without loading the compiled engine; and the C allocator's setting
that keeps a merge to what it states (return_freed_arrays)."""

import ctypes

from puzzledb.store import label_modulus
from puzzledb.store.layer import read_bytes
from puzzledb.store.layers import write_bytes
from puzzledb.expansion import (
    SUB_STATES,
    WORD_BITS,
    sub_blocks,
    twobit_words,
    words_for,
)

# The layouts of the two-bit state array and of a level's bitset are the expansion
# protocol's (puzzledb.expansion), which a puzzle's layer expansion writes too; here only
# what the engines add to them.

# Bits are scanned and ranks extracted in blocks of this many words: a thread's unit of
# work, and (times 64) the most ranks one extraction buffer holds.  (The one-bit sets of
# graded searches, frontier segments and matching; see bitset.py.)
BLOCK_WORDS = 1 << 14
EXTRACT_BUFFER_BYTES = BLOCK_WORDS * WORD_BITS * 8

# The next layer's ranks are read out of the two-bit array (twobit.py) a few sub-blocks at a
# time, into one buffer of TWOBIT_EXTRACT_SUBS sub-blocks' states.
TWOBIT_EXTRACT_SUBS = 8
TWOBIT_EXTRACT_BYTES = TWOBIT_EXTRACT_SUBS * SUB_STATES * 8

# The distances store's search of a puzzle with no colouring (distances.py, CycleSearch):
# the unseen states listed before an expansion once at most LIST_STATES are left, and the
# positions drawn to sample a layer (at most SAMPLE_DRAWS, 64 for each of the 4,096 states
# a sample keeps: store/counts.py), with the ranks and lengths of their walks.
LIST_STATES = 1 << 23
SAMPLE_DRAWS = 64 * 4096

# What a search process holds besides its search: the interpreter, numpy, numba, h5py and
# the compiled kernels (a build of the 8-puzzle peaks at about 200 MiB in all).
PROCESS_OVERHEAD_MB = 256


# The frontier engine (frontier/expand.py) expands at most this many source states at once.
# Its estimates made before a layer is expanded assume that no segment receives more than
# SKEW times its share of the neighbours; a merge job's need is then computed exactly from
# what its segments received (segment_merge_bytes), and a step job that would exceed its
# estimate hands the depth to such jobs.
PIECE_STATES = 1 << 18
SKEW = 2
DENSE_RATIO = 128  # a segment goes through a bitset when it spans at most this many ranks
#                    per incoming neighbour (the bitset is then smaller than the sort's data)
SPARSE_SEGMENTS = 256  # segments of a puzzle built sparse without a `shards:` entry
MERGE_WINDOW = 2  # segments a merge works on at once, in as many threads (frontier/merge.py)


def search_bytes(puzzle):
    """Bytes the in-memory search holds (a kind of store may add to it: query/kinds.py).

    Ungraded: two bits per state of the rank space (its depth mod 3, in effect: unseen,
    older, this layer, next layer), two flag bytes and a 4-byte count per sub-block, one
    extraction buffer and the tables of the puzzle's layer expansion, if it has one
    (Puzzle.expansion_bytes).  Graded: one bit per rank of the current and the next level,
    and one extraction buffer.  Both: the neighbours kernel's data (Puzzle.kernel_bytes)."""
    if not puzzle.graded:
        words = twobit_words(puzzle.size)
        return (words * 8 + 6 * sub_blocks(words) + TWOBIT_EXTRACT_BYTES
                + puzzle.expansion_bytes() + puzzle.kernel_bytes())
    words = [words_for(size) for size in puzzle.levels()]
    widest = max((a + b for a, b in zip(words, words[1:])), default=words[0])
    return widest * 8 + EXTRACT_BUFFER_BYTES + puzzle.kernel_bytes()


def distance_search_bytes(puzzle):
    """What the distances store's search adds to the two-bit search: a puzzle coloured in
    runs (distances.ColourSearch), a byte per run; any other (CycleSearch), the list of the
    last unseen states and a layer's draws, their ranks, positions and walks' lengths."""
    if label_modulus(puzzle) == 4:
        return -(-puzzle.size // puzzle.parity_run())
    return 8 * min(LIST_STATES, puzzle.size) + 24 * SAMPLE_DRAWS


def frontier_job_bytes(puzzle, count, segments):
    """Bytes one frontier job holds when it works on a layer of `count` states cut into
    `segments`: an expand job one piece of the layer (its ranks, their neighbours, the same
    grouped by segment, the neighbour counts), the grouped neighbours of the piece before
    (its work file being written) and the ranks of the piece after (being read), a merge job
    its segments in flight (merge_window_bytes); either, what a merge holds whatever its
    segments (merge_base_bytes; a step job merges in-process too) and the neighbours
    kernel's data (Puzzle.kernel_bytes)."""
    moves = max(puzzle.max_moves, 1)
    share = min(count, SKEW * count / segments)
    piece = min(count, PIECE_STATES)
    key = 8 * puzzle.key_words  # the bytes of a key (a rank: 8)
    expand = piece * (2 * key * moves + 8 + key) + piece * moves * key + piece * key
    return (int(max(expand, merge_window_bytes(moves, share, key)))
            + merge_base_bytes(puzzle.key_words) + puzzle.kernel_bytes())


def merge_window_bytes(moves, share, key=8):
    """Bytes a merge holds for segments of at most `share` new states, each of which
    receives about `moves` neighbours a new state: MERGE_WINDOW segments being merged and
    the one being written, each its incoming neighbours (twice, to sort them) and the same
    segment of the two layers before (keys of `key` bytes)."""
    return (MERGE_WINDOW + 1) * (2 * key * moves * share + 2 * key * share)


def segment_merge_bytes(received, known, span, key=8):
    """Bytes the merge of one segment holds: the `received` neighbour keys (of `key` bytes)
    read into one array and sorted into another (or, one-word keys, a bitset of the
    segment's `span` ranks when it is dense, and the ranks it yields), and the `known` keys
    of the same segment of the two layers before, with their chunks as read (deflated: at
    most as many bytes).  A merge holds MERGE_WINDOW + 1 segments and merge_base_bytes."""
    dense = span // 8 if key == 8 and span <= DENSE_RATIO * received else 0
    return 2 * key * int(received) + 2 * key * int(known) + int(dense)


def merge_base_bytes(words, older=2):
    """Bytes a merge holds whatever its segments and however many keys it writes, for keys
    of `words` words: one extraction buffer, the store's writer (its chunks in flight:
    store.layers.write_bytes) and a reader of each of the `older` layers it subtracts (its
    cached chunks: store.layer.read_bytes).  What it writes is not kept (issue 56)."""
    return EXTRACT_BUFFER_BYTES + write_bytes(words) + older * read_bytes(words)


# glibc raises its mmap threshold (up to 32 MiB) each time a mapped block is freed, and then
# serves smaller blocks from its arenas, which keep them once freed: a merge's segment arrays,
# freed by several threads, stayed resident 100 MiB and more past what the merge states (the
# 3x3x3's depth 9 by classes: 301 MiB grown against 256 MiB stated; with the threshold fixed
# 173 MiB; docs/changelog.md, "Merges that keep the memory they state").  Fixed here: every
# block of at least this many bytes is mapped afresh and unmapped when it is freed.
M_MMAP_THRESHOLD = -3  # mallopt's parameter (glibc's malloc.h)
MMAP_THRESHOLD = 1 << 20


def return_freed_arrays():
    """Have the C allocator return every freed block of MMAP_THRESHOLD bytes or more to the
    system at once (glibc's mallopt; elsewhere nothing is done): whether it was set."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))


def dense_depth_bytes(size, expansion_bytes=0):
    """Bytes a depth of the frontier search holds when it goes through one bitset of its
    whole level of `size` ranks (frontier/dense.py, in-process): the bitset, a piece of the
    layer it expands, a block of an older layer it clears, one extraction buffer, the tables
    of the puzzle's layer expansion (expansion_bytes) whose mark sets the bits, and the
    store's writer and reader of one-word keys (write_bytes, read_bytes)."""
    return (words_for(size) * 8 + PIECE_STATES * 8 + 2 * EXTRACT_BUFFER_BYTES
            + expansion_bytes + write_bytes(1) + read_bytes(1))


def frontier_job_mb(puzzle, count, segments):
    """mem_mb of a frontier job, for Snakemake's scheduler (an estimate before the layer
    is expanded)."""
    return mb_of(frontier_job_bytes(puzzle, count, segments))


def mb_of(job_bytes):
    """mem_mb of a job that holds `job_bytes` besides the process itself."""
    return int(job_bytes / 2**20) + 1 + PROCESS_OVERHEAD_MB
