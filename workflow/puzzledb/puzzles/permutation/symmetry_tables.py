"""The data of a permutation puzzle's kernels when it is searched up to symmetry
(symmetry_kernels.py): its PermutationTables and, in the same flat namedtuple (numba's
parallel loops take no nested one), the slot maps of its moves and of its symmetries
(slots.py), what the inverse of a position needs, and every component's digit of the key.
Plain numpy: made without loading numba."""

from collections import namedtuple

import numpy as np

from puzzledb.puzzles.permutation import split
from puzzledb.puzzles.permutation.layout import PermutationTables, compiled_data
from puzzledb.puzzles.permutation.ranks import multinomial

SYMMETRY_FIELDS = (
    # the slots: how many, the values a slot may hold at most, the solved row, the order
    # in which images are compared
    "sy_slots sy_width sy_solved sy_order sy_scratch "
    # the symmetries (the identity first) and whether inversion is one more
    "sy_count sy_inverse sy_source sy_image "
    # the moves as slot maps
    "mv_source mv_image "
    # the inverse of a position: each class's home slot, the solved class, orientation, k
    "iv_home iv_class iv_ori iv_k iv_shift "
    # every component of the key: its slots, numbering and digit(s) in the key
    "cp_at cp_slots cp_lex cp_split cp_multi cp_w_hi cp_r_hi cp_w_lo cp_r_lo "
    "cp_code cp_n cp_k cp_digits cp_total cp_parity cp_class_at cp_counts cp_weights "
    "cp_wild cp_slot_at cp_illegal cp_move_at cp_perm cp_twist cp_scratch").split()

SymmetricTables = namedtuple("SymmetricTables", PermutationTables._fields + tuple(
    SYMMETRY_FIELDS))


def symmetric_tables(puzzle, group):
    """The SymmetricTables of a PermutationPuzzle searched under `group` (a
    symmetry.PermutationSymmetry)."""
    coding = group.coding
    width = coding.width
    small = np.int16 if width < 1 << 15 else np.int32
    sources, images = group.slot_maps
    move_sources, move_images = group.move_maps()
    fields = dict(
        sy_slots=np.int64(coding.size), sy_width=np.int64(width),
        sy_solved=solved_row(coding), sy_order=compare_order(coding),
        sy_count=np.int64(len(group.maps)), sy_inverse=np.int64(group.inversion),
        sy_source=sources.astype(np.int32).ravel(), sy_image=images.astype(small).ravel(),
        mv_source=move_sources.astype(np.int32).ravel(),
        mv_image=move_images.astype(small).ravel(),
        **inversion_data(coding), **component_data(puzzle.layout, puzzle.components, coding))
    fields["sy_scratch"] = fields["cp_scratch"]
    return SymmetricTables(*puzzle.tables(), *(fields[name] for name in SYMMETRY_FIELDS))


def solved_row(coding):
    return coding.row(coding.solved).astype(np.int64)


def compare_order(coding):
    """The slots in the order images are compared: those that may hold the most values
    first (an image then loses to the least so far on its first slot more often)."""
    return np.array(sorted(range(coding.size), key=lambda g: -len(coding.values(g))),
                    dtype=np.int64)


def inversion_data(coding):
    """iv_home[j * width + (c << shift)]: the slot of j's orbit where class c stands
    solved; iv_class[j], iv_ori[j]: the solved class and orientation at slot j; iv_k[j]
    its set's orientations, iv_shift[j] its values' shift."""
    home = np.zeros(coding.size * coding.width, dtype=np.int64)
    solved = [coding.unpack(g, v) for g, v in enumerate(solved_row(coding))]
    for j in range(coding.size):
        for h in range(coding.size):
            if coding.orbit[h] == coding.orbit[j]:
                home[j * coding.width + coding.pack(j, solved[h][0], 0)] = h
    ints = lambda x: np.array(x, dtype=np.int64)  # noqa: E731
    return dict(iv_home=home, iv_class=ints([c for c, _ in solved]),
                iv_ori=ints([o for _, o in solved]), iv_k=ints(coding.k),
                iv_shift=ints(coding.shift))


def component_data(layout, components, coding):
    """The cp_* fields: each component's global slots, its numbering, and where its value
    stands in the key: key = sum of ((v // r_lo) % r_hi) w_hi + (v % r_lo) w_lo (w_hi 0
    but for a split permutation, whose high and low parts are two digits)."""
    at, slots, lex, halves, multi, place = [0], [], [], [], [], []
    for c in components:
        slots += [coding.first[c.set] + i for i in c.slots]
        at.append(len(slots))
        lex.append(int(c.kind in ("multiset", "wild") and not c.by_class))
        halves.append(int(bool(c.split)))
        multi.append(multinomial(c.counts) if c.counts else 1)
        if c is layout.split:
            low = split.low_radix(c)
            place.append((layout.weights[(id(c), "high")], c.count // low,
                          layout.weights[(id(c), "low")], low))
        else:
            place.append((0, 1, layout.weights[(id(c), "whole")], c.count))
    ints = lambda x: np.array(x, dtype=np.int64)  # noqa: E731
    names = ("cp_code cp_n cp_k cp_digits cp_total cp_parity cp_class_at cp_counts "
             "cp_weights cp_wild cp_slot_at cp_illegal cp_move_at cp_perm cp_twist "
             "cp_scratch").split()
    data = dict(zip(names, compiled_data(components, [])))
    return dict(cp_at=ints(at), cp_slots=ints(slots or [0]), cp_lex=ints(lex),
                cp_split=ints(halves), cp_multi=ints(multi),
                cp_w_hi=ints([p[0] for p in place]), cp_r_hi=ints([p[1] for p in place]),
                cp_w_lo=ints([p[2] for p in place]), cp_r_lo=ints([p[3] for p in place]),
                **data)
