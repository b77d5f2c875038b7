"""The canonical neighbours of a puzzle of one orbit, by table (symmetry_kernels.py): a
puzzle whose key is one arrangement of distinct pieces (the lead factor, lead.py) times
their orientations, as the 2x2x2's corners.

A position is then (u, t): u the arrangement's value, t the orientations'.  A move sends u
to a value read from the lead table, and t to a value that does not depend on u (a move
twists slots, not pieces: checked when the tables are made).  An element e of the group
that keeps u's image least gives an image whose orientation in each slot is a function of
one slot's orientation in t, which slot and which function depending on u and e alone.  So
each (u, e) pair the lead table names is tabled once as a *program*: for each slot of the
image, the slot of t it reads and the function, one 16-bit word (the slot, the image
slot's place in the comparison order, the function's values two bits each).  The kernel
keeps t as two bits a slot in one integer, runs each program of the neighbour's u (most
often one) with shifts and masks, takes the least result (packed so that integer order is
the generic kernel's slot-by-slot order) and reads its rank from a table of 4^n entries.
The images of the inverse are programs too: the inverse of a position moves each slot's
orientation to the home slot of its piece, again one slot's value as a function of
one.  The keys are those of the generic kernel, neighbour for neighbour
(tests/test_symmetry.py compares the two).

Plain numpy, made with the symmetric tables; the fo_* fields of SymmetricTables.  Other
puzzles get one-element placeholders of another dtype (uint8), which tell the neighbours
kernel to compare images slot by slot instead."""

import numpy as np

from puzzledb.puzzles.permutation.rows import component_rows

ORBIT_SLOTS = 8  # slots of the orbit at most: t in 2 n bits, its rank table 4^n entries
ORBIT_K = 4  # orientations a slot at most (two bits; so at most 4^7 orientations' values)

FIELDS = ("fo_slots", "fo_twists", "fo_unrank", "fo_rank", "fo_rank_ordered", "fo_move",
          "fo_start", "fo_program", "fo_inverse", "fo_lead")


def placeholders():
    """The fo_* fields of a puzzle searched by the generic kernel."""
    one = np.zeros(1, dtype=np.int64)
    return dict(fo_slots=np.int64(0), fo_twists=np.int64(0), fo_unrank=one, fo_rank=one,
                fo_rank_ordered=one, fo_move=one, fo_start=one,
                fo_program=np.zeros(1, dtype=np.uint8), fo_inverse=one, fo_lead=one)


def one_orbit(puzzle, group):
    """(arrangement, orientations) components when the puzzle's key is an arrangement of
    distinct pieces over every slot of the puzzle times their orientations, in one word, the
    arrangement first; else None."""
    comps = puzzle.components
    coding = group.coding
    if len(comps) != 2 or puzzle.key_words != 1:
        return None
    c0, c1 = comps
    n = len(c0.slots)
    if (c0.kind != "perm" or c0.split or c0.cuts or c0.twin is not None or c1.kind != "ori"
            or c1.cuts or c0.set != c1.set or sorted(c0.slots) != sorted(c1.slots)
            or n != coding.size or n > ORBIT_SLOTS or not 2 <= c1.k <= ORBIT_K
            or any(x != 1 for x in c0.counts)):
        return None
    weights = puzzle.layout.weights
    if (puzzle.layout.split is not None or weights.get((id(c0), "whole")) != (0, c1.count)
            or weights.get((id(c1), "whole")) != (0, 1)):
        return None
    return c0, c1


def orbit_tables(puzzle, group, fields):
    """The fo_* fields for `puzzle` under `group` (a symmetry.PermutationSymmetry), from
    the other fields of its SymmetricTables (`fields`: the lead tables, slot maps, sy_order,
    sl_data, iv_home): placeholders unless the puzzle is one orbit (one_orbit) led by its
    arrangement and every move twists slots whatever piece stands there."""
    found = one_orbit(puzzle, group)
    if found is None or fields["ld_component"] != 0:
        return placeholders()
    c0, c1 = found
    coding = group.coding
    n = coding.size
    to_slot = lambda local: np.array([coding.first[c0.set] + i for i in local])  # noqa: E731
    classes = np.zeros((c0.count, n), dtype=np.int64)
    classes[:, to_slot(c0.slots)] = component_rows(c0, np.arange(c0.count))[0]
    oris = np.zeros((c1.count, n), dtype=np.int64)
    oris[:, to_slot(c1.slots)] = component_rows(c1, np.arange(c1.count))[1]
    packing = _Packing(fields["sy_order"], oris)
    moved = _moved(coding, c1.k, fields, oris, packing)
    if moved is None:
        return placeholders()  # a move twisting pieces, not slots
    us, es, start = _pairs(fields, c0.count)
    program, inverse_program = _programs(coding, c1.k, fields, classes, us, es, packing)
    # the narrowest types that hold them: the kernel's look-ups stay in the caches
    return dict(fo_slots=np.int64(n), fo_twists=np.int64(c1.count),
                fo_unrank=packing.unrank.astype(np.uint16), fo_rank=packing.rank.astype(np.int16),
                fo_rank_ordered=packing.rank_ordered.astype(np.int16),
                fo_move=moved.ravel().astype(np.uint16), fo_start=start.astype(np.int32),
                fo_program=program.ravel(), fo_inverse=inverse_program.ravel(),
                fo_lead=fields["ld_least"].astype(np.int32))


class _Packing:
    """Orientations two bits a slot: in slot order (slot_shift; unrank[t], rank of a packed
    value) and in the comparison order, the first slot compared the most significant
    (ordered_shift; rank_ordered of a packed value)."""

    def __init__(self, order, oris):
        count, n = oris.shape
        place = np.empty(n, dtype=np.int64)
        place[order] = np.arange(n)
        self.slot_shift = 2 * np.arange(n)
        self.ordered_shift = 2 * (n - 1 - place)
        self.unrank = (oris << self.slot_shift).sum(axis=1)
        self.rank = np.full(1 << 2 * n, -1, dtype=np.int64)
        self.rank[self.unrank] = np.arange(count)
        self.rank_ordered = np.full(1 << 2 * n, -1, dtype=np.int64)
        self.rank_ordered[(oris << self.ordered_shift).sum(axis=1)] = np.arange(count)


def _moved(coding, k, fields, oris, packing):
    """moved[t, m]: the orientations (packed in slot order) after move m of those of value
    t: slot j's from slot source[j]'s, whatever the class; None when a move's twist depends
    on the piece."""
    n, width, shift = coding.size, coding.width, coding.shift[0]
    moves = fields["mv_source"].size // n
    move_sources = fields["mv_source"].reshape(moves, n)
    move_images = fields["mv_image"].reshape(moves, n, width)
    values = (np.arange(n)[:, None] << shift) | np.arange(k)[None, :]  # class, orientation
    moved = np.zeros((len(oris), moves), dtype=np.int64)
    for m in range(moves):
        for j in range(n):
            twist = move_images[m, j][values] & ((1 << shift) - 1)  # -> orientation
            if (twist != twist[:1]).any():
                return None
            moved[:, m] |= twist[0][oris[:, move_sources[m, j]]] << packing.slot_shift[j]
    return moved


def _pairs(fields, u_count):
    """(u, e) of every pair the lead table names, u ascending, and where each u's start."""
    words = int(fields["ld_words"])
    bits = fields["ld_mask"].reshape(u_count, words)
    named = [np.nonzero((bits[:, e // 64] >> np.uint64(e % 64)) & np.uint64(1))[0]
             for e in range(words * 64)]
    us = np.concatenate(named).astype(np.int64)
    es = np.concatenate([np.full(len(x), e) for e, x in enumerate(named)]).astype(np.int64)
    by_u = np.argsort(us, kind="stable")
    us, es = us[by_u], es[by_u]
    return us, es, np.searchsorted(us, np.arange(u_count + 1)).astype(np.int64)


def _programs(coding, k, fields, classes, us, es, packing):
    """The programs of the pairs (us, es), and of each arrangement's inverse."""
    n, width, shift = coding.size, coding.width, coding.shift[0]
    mask = (1 << shift) - 1
    symmetries = int(fields["sy_count"])
    sources = fields["sy_source"].reshape(symmetries, n)
    images = fields["sy_image"].reshape(symmetries, n, width)
    data = fields["sl_data"].reshape(n, 4)
    solved_class, solved_ori = data[:, 2], data[:, 3]
    u_count = len(classes)
    # home[u, i]: the slot where the piece at slot i of arrangement u stands solved
    home = fields["iv_home"].reshape(n, width)[np.arange(n)[None, :], classes << shift]
    from_home = np.empty_like(home)  # from_home[u, h]: the slot whose piece is at home in h
    from_home[np.arange(u_count)[:, None], home] = np.arange(n)[None, :]

    program = np.zeros((len(us), n), dtype=np.uint16)
    direct = es < symmetries
    s = np.where(direct, es, es - symmetries)
    for j in range(n):
        q = sources[s, j]  # the slot of the row (or of its inverse) image slot j reads
        # the row's value at q, orientation 0, and where the inverse's value at q comes from
        plain = classes[us, q] << shift
        i = from_home[us, q]
        inverse = solved_class[i] << shift
        turned = solved_ori[q] + solved_ori[i]
        g = np.zeros(len(us), dtype=np.int64)
        for o in range(k):
            value = np.where(direct, plain | o, inverse | ((turned - o) % k))
            g |= (images[s, j, value] & mask) << (2 * o)
        program[:, j] = np.where(direct, q, i) | (packing.ordered_shift[j] << 2) | (g << 6)

    inverse_program = np.zeros((u_count, n), dtype=np.uint16)
    for h in range(n):
        i = from_home[:, h]  # slot h of the inverse: slot i's piece, its orientation turned
        g = np.zeros(u_count, dtype=np.int64)
        for o in range(k):
            g |= ((solved_ori[h] + solved_ori[i] - o) % k) << (2 * o)
        inverse_program[:, h] = i | (packing.slot_shift[h] << 2) | (g << 6)
    return program, inverse_program
