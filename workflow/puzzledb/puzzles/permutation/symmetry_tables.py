"""The data of a permutation puzzle's kernels when it is searched up to symmetry
(symmetry_kernels.py): its PermutationTables and, in the same flat namedtuple (numba's
parallel loops take no nested one), the slot maps of its moves and of its symmetries
(slots.py), each slot's orientations and solved value (for the inverse of a position), every
component's digit of the key and its numbering, and the lead factor's tables (lead.py).
Plain numpy: made without loading numba."""

from collections import namedtuple

import numpy as np

from puzzledb.puzzles.permutation import orbit, split
from puzzledb.puzzles.permutation.layout import PermutationTables
from puzzledb.puzzles.permutation.lead import lead_tables
from puzzledb.puzzles.permutation.ranks import KINDS
from puzzledb.puzzles.permutation.rows import class_weights, component_rows, multinomial

SYMMETRY_FIELDS = (
    # the slots: how many, the values a slot may hold at most, the solved row, the order
    # in which images are compared, the scratch a component needs; the key's words
    "sy_slots sy_width sy_solved sy_order sy_scratch sy_words "
    # the symmetries as slot maps (the identity first) and whether inversion is one more
    "sy_count sy_inverse sy_source sy_image "
    # the moves as slot maps
    "mv_source mv_image "
    # each slot's k, shift, solved class and orientation (sl_data, four a slot), its shift
    # alone, and for the inverse each class's home slot (iv_home[j * width + class value])
    "sl_data sl_shift iv_home "
    # every component of the key: a row of cp_table (COLUMNS below), its slots, the
    # classes' counts, weights and `?` marks of the arrangements, and the slots' classes or
    # orientations of every value of a small component (dc_table, int8)
    "cp_table cp_slots cp_counts cp_weights cp_wild dc_table "
    # the lead factor (lead.py)
    "ld_size ld_slots ld_move ld_invert ld_mask ld_words ld_even ld_component ld_least"
    ).split() + list(orbit.FIELDS)  # a puzzle of one orbit's programs (orbit.py)

SymmetricTables = namedtuple("SymmetricTables", PermutationTables._fields + tuple(
    SYMMETRY_FIELDS))

# the columns of cp_table: the kind (ranks.KINDS), slots, orientations and orientation
# digits, the kept sum and parity, where its classes' counts start and end, whether it is
# numbered lexicographically (a table component of identical pieces) or by where its pieces
# are (split), the multinomial of its classes, where its slots start in cp_slots, and its
# place in the key (layout.py): v % r_lo times w_lo in word word_lo, and for a split
# permutation (w_hi > 0) v // r_lo times w_hi in word word_hi; where its values' rows
# start in dc_table (-1: not tabled, decoded by component_kernels.unrank)
(CODE, N, K, DIGITS, TOTAL, PARITY, CLASS_AT, CLASS_END, LEX, SPLIT, MULTI, AT, W_HI,
 W_LO, R_LO, WORD_HI, WORD_LO, DTAB) = range(18)
COLUMNS = 18
DECODE_TABLE_MAX = 1 << 22  # bytes of a component's rows in dc_table, at most


def symmetric_tables(puzzle, group):
    """The SymmetricTables of a PermutationPuzzle searched under `group` (a
    symmetry.PermutationSymmetry), with the programs of a puzzle of one orbit (orbit.py;
    placeholders for any other)."""
    coding = group.coding
    width = coding.width
    small = np.int16 if width < 1 << 15 else np.int32
    sources, images = group.slot_maps
    move_sources, move_images = group.move_maps()
    fields = dict(
        sy_slots=np.int64(coding.size), sy_width=np.int64(width),
        sy_solved=solved_row(coding), sy_order=compare_order(coding),
        sy_scratch=np.int64(max(len(c.slots) for c in puzzle.components)),
        sy_words=np.int64(puzzle.key_words),
        sy_count=np.int64(len(group.maps)), sy_inverse=np.int64(group.inversion),
        sy_source=sources.astype(np.int32).ravel(), sy_image=images.astype(small).ravel(),
        mv_source=move_sources.astype(np.int32).ravel(),
        mv_image=move_images.astype(small).ravel(),
        **slot_data(coding), **component_data(puzzle.layout, puzzle.components, coding),
        **lead_tables(puzzle, group, sources, images, move_sources, move_images))
    fields.update(orbit.orbit_tables(puzzle, group, fields))
    return SymmetricTables(*puzzle.tables(), *(fields[name] for name in SYMMETRY_FIELDS))


def solved_row(coding):
    return coding.row(coding.solved).astype(np.int64)


def compare_order(coding):
    """The slots in the order images are compared: those that may hold the most values
    first (an image then loses to the least so far on its first slot more often)."""
    return np.array(sorted(range(coding.size), key=lambda g: -len(coding.values(g))),
                    dtype=np.int64)


def slot_data(coding):
    """sl_data (k, shift, solved class, solved orientation of each slot), sl_shift, and
    iv_home[j * width + (c << shift)]: the slot of j's orbit where class c stands solved."""
    solved = [coding.unpack(g, v) for g, v in enumerate(solved_row(coding))]
    home = np.zeros(coding.size * coding.width, dtype=np.int64)
    for j in range(coding.size):
        for h in range(coding.size):
            if coding.orbit[h] == coding.orbit[j]:
                home[j * coding.width + coding.pack(j, solved[h][0], 0)] = h
    data = [(coding.k[g], coding.shift[g], c, o) for g, (c, o) in enumerate(solved)]
    return dict(sl_data=np.array(data, dtype=np.int64).ravel(),
                sl_shift=np.array(coding.shift, dtype=np.int64), iv_home=home)


def component_data(layout, components, coding):
    """cp_table, cp_slots, cp_counts, cp_weights, cp_wild: each component's row (COLUMNS),
    its global slots, and its classes' counts, class-by-class weights and `?` marks."""
    rows, slots, counts, weights, wild, tables = [], [], [], [], [], []
    for c in components:
        row = [0] * COLUMNS
        row[CODE], row[N], row[K], row[DIGITS] = KINDS.index(c.kind), len(c.slots), c.k, \
            c.digits
        row[TOTAL], row[PARITY] = c.total, c.parity
        row[CLASS_AT] = len(counts)
        counts += list(c.counts)
        weights += class_weights(c.counts) if c.counts else []
        wild += [int(w) for w in c.wild] if c.wild else [0] * len(c.counts)
        row[CLASS_END] = len(counts)
        row[LEX] = int(c.kind in ("multiset", "wild") and not c.by_class)
        row[SPLIT] = int(bool(c.split))
        row[MULTI] = multinomial(c.counts) if c.counts else 1
        row[AT] = len(slots)
        slots += [coding.first[c.set] + i for i in c.slots]
        if c is layout.split:
            row[WORD_HI], row[W_HI] = layout.weights[(id(c), "high")]
            row[WORD_LO], row[W_LO] = layout.weights[(id(c), "low")]
            row[R_LO] = split.low_radix(c)
        else:
            row[WORD_LO], row[W_LO] = layout.weights[(id(c), "whole")]
            row[R_LO] = c.count
        row[DTAB] = -1
        if c.kind != "wild" and not c.split and c.count * len(c.slots) <= DECODE_TABLE_MAX:
            row[DTAB] = sum(t.size for t in tables)
            classes, oris = component_rows(c, np.arange(c.count, dtype=np.int64))
            tables.append((oris if c.kind == "ori" else classes).astype(np.int8).ravel())
        rows.append(row)
    ints = lambda x: np.array(x or [0], dtype=np.int64)  # noqa: E731
    # the marks' dtype tells the kernels whether any component holds identical pieces
    # (symmetry_kernels._identical): uint8 when none does
    identical = any(c.kind in ("multiset", "wild") for c in components)
    return dict(cp_table=np.array(rows, dtype=np.int64).ravel(), cp_slots=ints(slots),
                cp_counts=ints(counts), cp_weights=ints(weights),
                cp_wild=np.array(wild or [0], dtype=np.int64 if identical else np.uint8),
                dc_table=np.concatenate(tables + [np.zeros(1, np.int8)]))
