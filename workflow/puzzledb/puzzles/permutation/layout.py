"""How a permutation puzzle's rank is laid out over its components (ranks.py), and the
tables its kernels (kernels.py) read.

Under the twsearch convention a move changes each component as a function of that
component alone.  A component of at most TABLE_MAX values gets a move table (value x move
-> value); small ones are grouped into blocks of at most BLOCK_MAX values with a table of
their own.  A larger component (twelve edges, a sticker model's orbit) is a block of its
own moved by the compiled rank/unrank of component_kernels.py.  The rank is

    rank = (high blocks, mixed radix) * L + low block,

the low block a table block (the largest up to BLOCK_MAX), so that the kernels decode the
high blocks once per row of L ranks (or per run of ranks that share them) and move a state
of the row with one look-up.  The compiled high blocks come first (most significant): the
ranks a sorted layer lists one after another share them longest.  When no table block
would make rows of MIN_ROW ranks and a permutation too large for a table is there (the UFO,
the dino cube), it is split in two (split.py): where its first pieces are, a high block
with a table, and the order of its last six, the low block, moved by a composition table
whose column each row and move select.
"""

from collections import namedtuple
from dataclasses import dataclass
from math import factorial, prod

import numpy as np

from puzzledb.errors import DefinitionError
from puzzledb.keys import WORD_BITS, WORD_LIMIT
from puzzledb.puzzles.permutation import split
from puzzledb.puzzles.permutation.definition import compose, identity
from puzzledb.puzzles.ranking import MAX_CELLS
from puzzledb.puzzles.permutation.ranks import MAX_SLOTS
from puzzledb.puzzles.permutation.rows import (
    class_weights,
    component_rows,
    component_values,
    legal_rows,
)

BLOCK_MAX = 4096  # values of a block of table components
TABLE_MAX = 1 << 21  # values of a component with a table of its own; past it, compiled
MIN_ROW = 256  # ranks of a row below which a large permutation is split (split.py)
MAX_TABLE_BYTES = 512 << 20
WORD_MASK = (1 << WORD_BITS) - 1

# The kernels' data: the low block's table by column (column * L + value -> value; the
# column is the move, or what a split's high part selects) and, without a split, the same
# by value (value * moves + move: one cache line for a state's moves, read backward and
# state by state; a split's has one element), the high blocks' tables one
# after another (offset, radix; the word of the key a block lies in and its weight there;
# kernel: -1 for a table block, else the compiled component's number; select: the offset
# of a split high block's selectors, or -1), the words of a key (the low block is the last
# word's least significant digit), and the compiled components' data (kc_*,
# component_kernels.py).  `size` is the rank space of a one-word key (0 past it).  A move into a
# state where a piece never stands (Illegal) reads -1; `forward` is 1 when the search must
# never go backward (such states are in the rank space but never reached).
PermutationTables = namedtuple(
    "PermutationTables",
    "lo_moves lo_table lo_size moves hi_tables hi_offset hi_radix hi_weight hi_word key_words "
    "hi_part hi_kernel hi_select "
    "select_tables size forward kc_code kc_n kc_k kc_digits kc_total kc_parity "
    "kc_class_at kc_counts kc_weights kc_wild kc_slot_at kc_illegal kc_move_at kc_perm "
    "kc_twist kc_cut_at kc_cuts kc_radix_at kc_radix kc_scratch")


@dataclass(frozen=True, eq=False)
class Part:
    """A digit of the rank: a whole component, or the high or low part of a split one."""

    component: object
    role: str = "whole"  # 'whole', 'high', 'low'

    @property
    def radix(self):
        c = self.component
        if self.role == "whole":
            return c.count
        if self.role.startswith("part"):
            return c.part_radices[int(self.role[4:])]
        low = split.low_radix(c)
        return low if self.role == "low" else c.count // low


class Layout:
    """The blocks of the rank, high to low (lists of Parts), and each part's weight."""

    def __init__(self, components, moves):
        compiled = [c for c in components if c.count > TABLE_MAX]
        tabled = sorted((c for c in components if c.count <= TABLE_MAX),
                        key=lambda c: c.count)
        while tabled and 4 * moves * sum(c.count for c in tabled) > MAX_TABLE_BYTES:
            compiled.append(tabled.pop())  # the largest tables give way first
        blocks = _grouped(tabled)
        sizes = [prod(x.radix for x in b) for b in blocks]
        self.split = _splittable(compiled) if max(sizes, default=0) < MIN_ROW else None
        if self.split is not None:
            compiled.remove(self.split)
            self.split.split = split.SPLIT_PIECES
            low_block = [Part(self.split, "low")]
            blocks.insert(0, [Part(self.split, "high")])
        elif blocks:
            small = [i for i, n in enumerate(sizes) if n <= BLOCK_MAX]
            low = max(small, key=lambda i: sizes[i]) if small else \
                min(range(len(blocks)), key=lambda i: sizes[i])
            low_block = blocks.pop(low)
        else:
            low_block = []  # rows of one rank: every component compiled
        self.compiled = sorted(compiled, key=lambda c: -c.count)
        for c in self.compiled:  # numbered class by class: no division in the kernels
            c.by_class = c.kind in ("multiset", "wild")
            if c.count > WORD_LIMIT:
                c.cuts = _cuts(c.radices)
        self.blocks = [[Part(c, f"part{p}")] if c.cuts else [Part(c)]
                       for c in self.compiled for p in range(len(c.cuts) + 1)] + \
            blocks + [low_block]
        self.sizes = [prod(x.radix for x in b) for b in self.blocks]
        self.size = prod(self.sizes)
        self.lo_size = self.sizes[-1]
        self.block_words = _packed(self.sizes)
        self.key_words = self.block_words[-1] + 1
        self.word_sizes = [prod(n for n, w in zip(self.sizes, self.block_words) if w == word)
                           for word in range(self.key_words)]
        self.weights = {}  # (component, role) -> (its word, its weight in the word)
        self.block_at = [None] * len(self.blocks)  # the same of each block's value
        weights = [1] * self.key_words  # each word's, from its least significant block
        for b in range(len(self.blocks) - 1, -1, -1):
            word = self.block_words[b]
            self.block_at[b] = (word, weights[word])
            for part in reversed(self.blocks[b]):
                self.weights[(id(part.component), part.role)] = (word, weights[word])
                weights[word] *= part.radix

    def _at(self, word, weight, value):
        """A digit's share of the key (an int, or an array of one-word ranks)."""
        shift = WORD_BITS * (self.key_words - 1 - word)
        return value * weight << shift if shift else value * weight

    def place(self, c, value):
        """The share of a component's value (int or array) in the key (an int: the rank,
        or the words of a wider key read as one number; arrays: one-word ranks)."""
        if c.cuts:  # its parts, the value's mixed-radix digits, each in its block
            total = 0
            for p, radix in reversed(list(enumerate(c.part_radices))):
                value, digit = divmod(int(value), radix)
                total += self._at(*self.weights[(id(c), f"part{p}")], digit)
            return total
        if c is self.split:
            low = split.low_radix(c)
            return self._at(*self.weights[(id(c), "high")], value // low) + \
                self._at(*self.weights[(id(c), "low")], value % low)
        return self._at(*self.weights[(id(c), "whole")], value)

    def value(self, c, rank):
        """A component's value in a key (int, or uint64 array of one-word ranks)."""
        def digit(role, radix):
            word, w = self.weights[(id(c), role)]
            if isinstance(rank, np.ndarray):
                return ((rank // np.uint64(w)) % np.uint64(radix)).astype(np.int64)
            shift = WORD_BITS * (self.key_words - 1 - word)
            return (((int(rank) >> shift) & WORD_MASK) // w) % radix
        if c is self.split:
            low = split.low_radix(c)
            return digit("high", c.count // low) * low + digit("low", low)
        if c.cuts:
            value = 0
            for p, radix in enumerate(c.part_radices):
                value = value * radix + digit(f"part{p}", radix)
            return value
        return digit("whole", c.count)

    def table_bytes(self, moves):
        """Bytes of the move tables: 4 per value and move of each table block (twice for a
        split high block: its selectors), the low one by column, and by value without a
        split."""
        total = 0
        for block, n in zip(self.blocks[:-1], self.sizes):
            if not self.is_compiled(block):
                total += 4 * moves * n * (2 if block[0].role == "high" else 1)
        by_value = moves if self.split is None else 0
        return total + 4 * self.lo_size * (self.columns(moves) + by_value)

    def columns(self, moves):
        """The low table's columns: one per move, or the split's selectors."""
        return split.selectors(self.split) if self.split is not None else moves

    def work_size(self, moves):
        """Length of the work array of the neighbours kernel: each high block's cached digit
        and images, the targets (a key a move) and columns, and five scratch rows of the
        compiled components (slots and orientations twice, digits)."""
        blocks = len(self.blocks) - 1
        return blocks + 2 * blocks * moves + (self.key_words + 1) * moves + \
            5 * scratch_size(self.compiled)

    def is_compiled(self, block):
        return len(block) == 1 and block[0].component in self.compiled


def _cuts(radices):
    """Where the parts of a factor too large for a word start: its digits (radices, most
    significant first) cut greedily, each part's radices' product at most WORD_LIMIT."""
    cuts, product = [], 1
    for i, radix in enumerate(radices):
        if product * radix > WORD_LIMIT and i:
            cuts.append(i)
            product = 1
        product *= radix
    return tuple(cuts)


def _packed(sizes):
    """The word of each block (sizes: the blocks' values, most significant first, the low
    block last), first fit: a block goes into the first word it fits (their product at
    most WORD_LIMIT), so the first word holds the most significant blocks and as much as
    fits beside them, and no block is split; the low block into the last word, as its
    least significant digit.  [0, ...]: one word, the plain rank."""
    words, products = [], []
    for n in sizes[:-1]:
        word = next((w for w, p in enumerate(products) if p * n <= WORD_LIMIT),
                    len(products))
        if word == len(products):
            products.append(1)
        products[word] *= n
        words.append(word)
    if not products or products[-1] * sizes[-1] > WORD_LIMIT:
        products.append(1)
    return words + [len(products) - 1]


def _grouped(tabled):
    """Table components in ascending size, grouped into blocks while a block stays small."""
    blocks = []
    for c in tabled:
        if blocks and prod(x.radix for x in blocks[-1]) * c.count <= BLOCK_MAX:
            blocks[-1].append(Part(c))
        else:
            blocks.append([Part(c)])
    return blocks


def _splittable(compiled):
    """The permutation to split, if any: distinct pieces, no Illegal rule, its high part
    (n!/6! values) small enough for a table."""
    fits = [c for c in compiled if c.kind in ("perm", "even") and not c.illegal
            and len(c.slots) > split.SPLIT_PIECES
            and factorial(len(c.slots)) // factorial(split.SPLIT_PIECES) <= TABLE_MAX]
    return max(fits, key=lambda c: c.count, default=None)


def in_short(n):
    """A large number in words: its digits, or about m x 10^e past 24 digits."""
    digits = len(str(n)) - 1
    return f"{n:,}" if digits < 24 else f"about {n / 10 ** (digits - 3) / 1000:.2f} x 10^{digits}"


def check_size(layout, sets, moves):
    """DefinitionError (one line) for a factor or tables this layout cannot hold."""
    for block, n in zip(layout.blocks, layout.sizes):
        if n > WORD_LIMIT:
            what = " x ".join(p.component.describe(sets) for p in block)
            raise DefinitionError("file", f"{what}: a digit of {in_short(n)} values, past "
                                          f"the 2^63 a word of a key holds (a factor is cut "
                                          f"into parts across words between its digits)")
    tables = layout.table_bytes(moves)
    if tables > 2 * MAX_TABLE_BYTES:
        raise DefinitionError("file", f"move tables of {tables >> 20:,} MiB: more than "
                                      f"{2 * MAX_TABLE_BYTES >> 20} MiB")
    for c in layout.compiled + [x.component for b in layout.blocks for x in b]:
        if any(cls >= 63 for _, cls in c.illegal):
            raise DefinitionError("file", f"{c.describe(sets)}: Illegal rules for more than "
                                          f"63 kinds of pieces")
    for c in layout.compiled:
        if len(c.slots) > slot_limit(c):
            raise DefinitionError("file", f"{c.describe(sets)}: {in_short(c.count)} values "
                                          f"over {len(c.slots)} slots; a factor too large "
                                          f"for a table has at most {MAX_CELLS} slots "
                                          f"({MAX_SLOTS} for orientations, or identical "
                                          f"pieces past a word)")


def slot_limit(c):
    """The most slots of a compiled factor: a 64-bit mask of its slots or pieces (Lehmer
    digits, a class's slots), or past a word the digit by digit numbering of identical
    pieces, and orientations, whose binomials and digits need no mask."""
    if c.kind == "ori" or (c.cuts and c.kind in ("multiset", "wild")):
        return MAX_SLOTS
    return MAX_CELLS


# --- the moves of a component ----------------------------------------------------------------


def metric_moves(spec, moves):
    """Each move of the metric ((name, base, power) triples) as one definition Move."""
    out = []
    for _, base, power in moves:
        move = identity(spec.sets)
        for _ in range(power):
            move = compose(spec.sets, move, spec.moves[base])
        out.append(move)
    return out


def local_move(c, move):
    """A move on the component's slots: for each slot the local index of the slot its
    piece comes from, and the twist each local slot's piece gets as it leaves it."""
    where = {slot: i for i, slot in enumerate(c.slots)}
    perm = move.perms[c.set]
    return ([where[perm[slot]] for slot in c.slots],
            [move.twists[c.set][slot] for slot in c.slots])


def component_table(c, moves):
    """value -> value under each move (definition Moves, already powered): an int64 array
    (moves, count), -1 where the image breaks an Illegal rule."""
    values = np.arange(c.count, dtype=np.int64)
    classes, oris = component_rows(c, values)
    # the images' classes and twists only where the values read them (component_values):
    # lo33's arrangement of 9!/2 values took 0.38 s for twists it never reads
    twisted = c.kind in ("ori", "wild") or c.cuts
    arranged = c.kind != "ori" or c.illegal or c.cuts
    out = np.empty((len(moves), c.count), dtype=np.int64)
    for m, move in enumerate(moves):
        local, twist = (np.array(x, dtype=np.int64) for x in local_move(c, move))
        moved_classes = classes[:, local] if arranged else classes
        moved_oris = (oris[:, local] + twist[local]) % c.k if twisted else oris
        image = component_values(c, moved_classes, moved_oris)
        out[m] = np.where(legal_rows(c, moved_classes), image, -1) if c.illegal else image
    return out


def block_table(block, moves):
    """value of the block -> value under each move, as int32 (value * moves + move); -1
    where any of its components' images is."""
    count = prod(p.radix for p in block)
    values = np.arange(count, dtype=np.int64)
    out = np.zeros((count, len(moves)), dtype=np.int64)
    illegal = np.zeros((count, len(moves)), dtype=bool)
    weight = 1
    for part in reversed(block):
        c = part.component
        digit = (values // weight) % c.count
        images = component_table(c, moves).T[digit]
        illegal |= images < 0
        out += images * weight
        weight *= c.count
    out[illegal] = -1
    return out.astype(np.int32).ravel()


def make_tables(layout, moves, forward):
    """PermutationTables of a layout for the metric's moves (definition Moves)."""
    count = len(moves)
    hi = layout.blocks[:-1]
    tables, selects = [], []
    for block in hi:
        if layout.is_compiled(block):
            tables.append(np.zeros(0, np.int32))
        elif block[0].role == "high":
            images, select = split.high_table(block[0].component, moves)
            tables.append(images.ravel())
            selects.append(select.ravel())
        else:
            tables.append(block_table(block, moves))
    offsets = np.cumsum([0] + [t.size for t in tables])[:-1].astype(np.int64)
    words = [word for word, _ in layout.block_at[:-1]]
    weights = [weight for _, weight in layout.block_at[:-1]]
    if layout.split is not None:
        low, by_value = split.composition_table(layout.split), np.zeros(1, np.int32)
    else:
        by_value = block_table(layout.blocks[-1], moves)
        low = np.ascontiguousarray(by_value.reshape(-1, count).T)
    kernel = [layout.compiled.index(b[0].component) if layout.is_compiled(b) else -1
              for b in hi]
    part = [int(b[0].role[4:]) if b[0].role.startswith("part") else 0 for b in hi]
    select = [0 if b[0].role == "high" else -1 for b in hi]
    return PermutationTables(
        low.ravel(), by_value, np.int64(layout.lo_size), np.int64(count),
        np.concatenate(tables + [np.zeros(1, np.int32)]), offsets,
        np.array(layout.sizes[:-1], dtype=np.int64), np.array(weights, dtype=np.int64),
        np.array(words, dtype=np.int64), np.int64(layout.key_words),
        np.array(part or [0], dtype=np.int64),
        np.array(kernel, dtype=np.int64), np.array(select, dtype=np.int64),
        np.concatenate(selects + [np.zeros(1, np.int32)]),
        np.int64(layout.size if layout.key_words == 1 else 0),
        np.int64(forward), *compiled_data(layout.compiled, moves))


def compiled_data(components, moves):
    """The kc_* fields of the tables: each compiled component's numbering and moves."""
    ints = {key: [] for key in ("code", "n", "k", "digits", "total", "parity")}
    class_at, counts, weights, wild, slot_at, illegal, move_at, perm, twist, cut_at, cuts, \
        radix_at, radices = [0], [], [], [], [0], [], [0], [], [], [0], [], [0], []
    for c in components:
        n = len(c.slots)
        for key, value in zip(ints, (c.code, n, c.k, c.digits, c.total, c.parity)):
            ints[key].append(value)
        counts += list(c.counts)
        # a factor cut into parts is numbered digit by digit (its radices), no weights
        weights += class_weights(c.counts) if c.by_class and not c.cuts else \
            [0] * len(c.counts)
        wild += [int(w) for w in c.wild] if c.wild else [0] * len(c.counts)
        class_at.append(len(counts))
        masks = [0] * n
        for slot, cls in c.illegal:
            masks[slot] |= 1 << cls
        illegal += masks
        slot_at.append(len(illegal))
        for move in moves:
            local, tw = local_move(c, move)
            perm += local
            twist += tw
        move_at.append(len(perm))
        digits = c.radices if c.cuts else []
        cuts += [0, *c.cuts, len(digits)]  # each part's first digit, and one past the last
        cut_at.append(len(cuts))
        radices += digits
        radix_at.append(len(radices))
    arrays = [np.array(ints[key] or [0], dtype=np.int64) for key in ints]
    more = [np.array(x or [0], dtype=np.int64) for x in (class_at, counts, weights, wild,
                                                         slot_at, illegal, move_at, perm,
                                                         twist, cut_at, cuts, radix_at,
                                                         radices)]
    return (*arrays, *more, np.int64(scratch_size(components)))


def scratch_size(components):
    """A scratch row of the compiled components: the most slots, or digits of a factor cut
    into parts."""
    return max([max(len(c.slots), len(c.radices) if c.cuts else 0) for c in components]
               + [1])
