"""The one interface every puzzle implements, so that the engine never knows which it runs.

A puzzle is a state graph over a dense rank space 0..size-1: it parses and formats board
strings, ranks and unranks boards, names its goal ranks, and supplies a numba kernel
`neighbours(rank, level, out) -> count` that the BFS engine calls in its hot loop.
"""

import hashlib
import json

import numpy as np

FORMAT_VERSION = 1


class PuzzleError(ValueError):
    """A problem with a puzzle name, a board string or a position, said in one line."""


class BoardError(PuzzleError):
    pass


class Puzzle:
    """Base class.  Subclasses set the attributes and implement the methods marked below.

    name        -- the stable name used in config.yaml, paths and the command line
    cells       -- number of cells in a board
    width       -- cells per row, for formatting
    size        -- number of ranks (for a graded puzzle: of level 0; see level_size)
    max_moves   -- upper bound on the neighbours of one state
    work_size   -- length of the int64 scratch array the kernel gets (default: cells)
    graded      -- True when every move changes a grade (peg solitaire: one peg fewer), so
                   layer d is exactly grade d and each level has its own rank space
    reversible  -- True when every move can be undone by a move (the graph is undirected),
                   so the distance from the goal set is the distance to it
    symmetries  -- the cell maps of a symmetry group, all but the identity, that carry the
                   state graph and the goal set onto themselves: the image of board b
                   under perm is b[perm].  Layers are unions of orbits, so they can be
                   counted up to symmetry.
    """

    name = ""
    description = ""
    cells = 0
    width = 1
    size = 0
    max_moves = 0
    work_size = None
    graded = False
    reversible = True
    symmetries = ()

    # -- to implement -------------------------------------------------------------------
    def parse(self, text):
        """Board string -> board (uint8 array, one code per cell).  Raises BoardError."""
        raise NotImplementedError

    def format(self, board):
        """Board -> board string, rows separated by spaces."""
        raise NotImplementedError

    def rank(self, board):
        """Board -> rank (int) in its level's rank space."""
        raise NotImplementedError

    def unrank(self, rank, level=0):
        """Rank -> board (uint8 array)."""
        raise NotImplementedError

    def goal_ranks(self):
        """Sorted uint64 array: the layer-0 states the search starts from."""
        raise NotImplementedError

    def kernel(self):
        """The numba kernel neighbours(rank, level, out, work) -> count: it writes the
        neighbour ranks of `rank` (a state of layer `level`) to out (int64, max_moves
        long) and may scratch in work (int64, work_length() long).  It must not allocate:
        the engine calls it once per state."""
        raise NotImplementedError

    def definition(self):
        """A JSON-able dict that fixes the state graph and the rank numbering; its hash is
        stored in every layer file so layers of a changed definition are never trusted."""
        raise NotImplementedError

    # -- shared -------------------------------------------------------------------------
    def level_size(self, level):
        return self.size

    def levels(self):
        """The rank-space size of each level of a graded puzzle (up to the last non-empty
        one); [size] for an ungraded one."""
        if not self.graded:
            return [self.size]
        sizes = []
        while self.level_size(len(sizes)):
            sizes.append(self.level_size(len(sizes)))
        return sizes

    def rank_space(self):
        """The rank space in words, for logs and `puzzledb info`."""
        if not self.graded:
            return f"{self.size:,} ranks"
        sizes = self.levels()
        return (f"{len(sizes)} levels of {min(sizes):,} to {max(sizes):,} ranks "
                f"({sum(sizes):,} in all)")

    def level_of(self, board):
        """The layer a board must lie in, when the puzzle's grading fixes it."""
        return 0

    def canonical_ranks(self, ranks, level=0):
        """For each rank, the smallest rank of its orbit under the symmetries (itself
        included), as uint64.  This default goes board by board in Python; a puzzle whose
        layers are large overrides it with a compiled kernel."""
        ranks = np.asarray(ranks, dtype=np.uint64)
        perms = [np.asarray(p, dtype=np.intp) for p in self.symmetries]
        out = ranks.copy()
        for i, r in enumerate(ranks.tolist()):
            board = self.unrank(r, level)
            out[i] = min([r] + [self.rank(board[p]) for p in perms])
        return out

    def query_sets(self):
        """Named sets of positions for meet-in-the-middle matching (matching.query_set):
        name -> function returning their sorted ranks.  None by default."""
        return {}

    def relabelling(self):
        """A renaming of pieces that maps the goal onto some queries and paths onto paths,
        for meet-in-the-middle matching (see matching.py and SlidingRelabelling); None when
        the puzzle has none."""
        return None

    def work_length(self):
        return self.work_size if self.work_size is not None else self.cells

    def neighbours(self, rank, level=0):
        """The neighbour ranks of one state (Python-level, for queries)."""
        out = np.empty(max(self.max_moves, 1), dtype=np.int64)
        work = np.empty(max(self.work_length(), 1), dtype=np.int64)
        count = self.kernel()(np.int64(rank), np.int64(level), out, work)
        return [int(x) for x in out[:count]]

    def definition_hash(self):
        text = json.dumps(
            {"format": FORMAT_VERSION, "puzzle": self.name, **self.definition()},
            sort_keys=True,
        )
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def board_rank(self, text):
        """Parse a board string and rank it; the usual entry point for queries."""
        return self.rank(self.parse(text))

    def decode(self, rank, level=0):
        return self.format(self.unrank(int(rank), level))

    def __repr__(self):
        return f"<puzzle {self.name}: {self.size:,} states>"


def clean_board_text(text):
    """Strip the separators the seeds use around cells: spaces, commas, brackets."""
    return "".join(ch for ch in str(text) if ch not in " \t\n,()[]|/")


def format_rows(symbols, width):
    return " ".join(
        "".join(symbols[i:i + width]) for i in range(0, len(symbols), width)
    )
