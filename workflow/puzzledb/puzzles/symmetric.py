"""A puzzle searched up to its symmetries: the same boards, and keys that stand for
classes.  A class is a position and its images under the puzzle's symmetry group (its
family finds it: a permutation puzzle's rotations, mirrors and inversion, a board's
reflections), and its key is the canonical one the family's kernels compute.  The class
puzzle's neighbours kernel gives canonical keys, so that the engines, unchanged, store one
key a class; class_sizes gives the positions each stands for, which the layer store sums
beside each layer's count (summary.csv: positions in `count`, keys in `classes`).

A family with symmetries gives them as a group object (Capabilities.symmetry_group): its
`order` (positions a class holds at most), `describe()` (for `puzzledb info`), `as_data()`
(what fixes the canonical keys: it goes into the definition hash), `kernels` (the module
registering its neighbours kernel), `max_moves` and `work_size` of that kernel, and
and, from SymmetryGroup, `tables()`, `canonical(keys)` (the canonical key of each key's
class and its stabiliser's size), `class_sizes(keys)` and `members(keys)` (every member of
each key's class), the last three compiled."""

from importlib import import_module

import numpy as np

from puzzledb import keys
from puzzledb.puzzles.base import Puzzle


class SymmetryGroup:
    """What the families' groups share: the compiled canonical keys and class sizes of
    their kernels module (`kernels`, registering canonical_keys and class_sizes) on their
    tables (`_tables`, made once)."""

    in_memory = False  # whether the in-memory search goes by classes too (its neighbours
    #                    cheap enough: a permutation puzzle of one orbit's programs)
    # None where the frontier search goes by classes unless told otherwise (`symmetry:
    # {<puzzle>: none}`); else why it keeps every position unless told `classes`: where
    # classes were measured to cost more time than they save (bfs/select.py, choose)
    not_by_default = None

    def tables(self):
        return self._tables

    def canonical(self, keys):
        out = np.empty_like(keys)
        stabilisers = np.empty(len(keys), dtype=np.int64)
        import_module(self.kernels).canonical_keys(keys, self.tables(), out, stabilisers)
        return out, stabilisers

    def class_sizes(self, keys):
        out = np.empty(len(keys), dtype=np.int64)
        import_module(self.kernels).class_sizes(keys, self.tables(), out)
        return out

    def kernel_calls(self, words):
        """canonical and class_sizes as (kernel, arguments) pairs (compiled.prepare), for
        keys of `words` words: loaded before a frontier job's clock, since the job weighs
        every layer it writes and canonicalises its goals (compiled inside its first search
        on a fresh cache before)."""
        module = import_module(self.kernels)
        sample = keys.key_array([0], words)
        counts = np.zeros(1, dtype=np.int64)
        return [(module.canonical_keys, (sample, self.tables(), np.empty_like(sample), counts)),
                (module.class_sizes, (sample, self.tables(), counts))]

    def members(self, keys):
        """Each key's images under the group's elements, `order` a key in a row of the
        result (a key array of len(keys) x order keys): every member of its class, each as
        often as the class's stabiliser has elements.  The permutation family's kernels
        (start patterns, which ask for it, are theirs)."""
        shape = (len(keys) * self.order,) + keys.shape[1:]
        out = np.empty(shape, dtype=keys.dtype)
        import_module(self.kernels).class_images(keys, self.tables(), out)
        return out


class Classes(Puzzle):
    """`puzzle` searched up to `group`: boards and ranks are the puzzle's, keys canonical."""

    symmetric = True  # keys stand for classes: the store sums class_sizes beside the count

    def __init__(self, puzzle, group):
        self.base = puzzle
        self.group = group
        self.name = puzzle.name
        self.description = puzzle.description
        self.family = puzzle.family
        self.kernels = group.kernels
        self.cells, self.width, self.size = puzzle.cells, puzzle.width, puzzle.size
        self.key_words = puzzle.key_words
        self.max_moves = group.max_moves
        self.reversible = puzzle.reversible
        self.drawn = puzzle.drawn

    @property
    def work_size(self):
        return self.group.work_size

    def make_tables(self):
        return self.group.tables()

    def definition(self):
        return {**self.base.definition(), "symmetry": self.group.as_data()}

    def goal_ranks(self):
        return keys.unique(self.canonical(self.base.goal_ranks())[0])

    def canonical(self, states):
        """(the canonical key of each state's class, how many of the group's elements fix
        each state), for a key array (or ranks given as ints)."""
        return self.group.canonical(self.key_array(states))

    def class_sizes(self, canonical):
        """The positions of the class of each canonical key (int64)."""
        return self.group.class_sizes(self.key_array(canonical))

    # -- the puzzle's own boards --------------------------------------------------------------
    def parse(self, text):
        return self.base.parse(text)

    def format(self, board):
        return self.base.format(board)

    def rank(self, board):
        return self.base.rank(board)

    def unrank(self, rank, level=0):
        return self.base.unrank(rank, level)

    def key_bounds(self, level=0):
        return self.base.key_bounds(level)

    def rank_space(self):
        return self.base.rank_space()

    def info_lines(self):
        return self.base.info_lines()

    def reachable_bound(self):
        return self.base.reachable_bound()

    def route_moves(self, ranks):
        return self.base.route_moves(ranks)


def class_kernels(puzzle):
    """What a frontier job calls on the classes of `puzzle` (SymmetryGroup.kernel_calls),
    loaded with its other kernels; none for a puzzle searched position by position."""
    return puzzle.group.kernel_calls(puzzle.key_words) if puzzle.symmetric else []
