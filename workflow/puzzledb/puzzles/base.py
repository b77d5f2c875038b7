"""The one interface every puzzle implements, so that nothing outside puzzles/ knows which
puzzle it runs.

A puzzle is a state graph over a dense rank space: it parses and formats board strings, ranks
and unranks boards, names its goal ranks, and hands its compiled kernels their data (its
tables, see compiled/).  Its optional capabilities come in two kinds:

- shared by several families (symmetries, lower bounds, a move parity, a piece renaming,
  query sets, ...): methods of Capabilities with a documented default that says "none", so
  callers ask the puzzle instead of asking which family it belongs to;
- a command only one family answers (peg solitaire's chains of jumps, a sliding puzzle's
  boards for another goal and its pattern databases): a class of capabilities.py that the
  family's class also derives from, reached through `puzzle.capability(Kind)`, which
  refuses in one line for a puzzle without it.  Puzzle carries none of them.

A family's compiled kernels live in a module of their own (`kernels`), imported on first use:
listing puzzles and checking a config load no numba.
"""

import hashlib
import json
from functools import cached_property
from importlib import import_module

import numpy as np

from puzzledb import keys
from puzzledb.errors import BoardError, DefinitionError, ProblemError, PuzzleError

FORMAT_VERSION = 1
RANK_LIMIT = 2**63  # ranks are int64 / uint64 in the engines, the store and the kernels
SEPARATORS = " \t\n,()[]|/"  # what may stand between cells in a board string


class Capabilities:
    """The optional capabilities several families share, each with a default that says
    "none" (docs/architecture.md, "The puzzle interface").  Puzzle derives from it; a new
    shared capability is a method here whose default means "none", or a flag whose default
    is False, set once where the family knows it (never found out by calling a method with
    empty input)."""

    # Declared by the family: every move flips move_parity's colouring, with the goals all
    # of one colour, so no move joins two states of one layer and a state's neighbours lie
    # in the layers just above and below it (domino; sliding, single-tile).
    bipartite = False
    # Declared by the family: its moves have names, which route_moves gives (permutation).
    named_moves = False

    def symmetries(self):
        """Cell maps of a symmetry group, all but the identity, that carry the state graph
        and the goal set onto themselves (image of board b: b[perm]).  Layers are then
        unions of orbits and are counted up to symmetry.  Default: none."""
        return ()

    def canonical_ranks(self, ranks, level=0):
        """For each rank, the smallest rank of its orbit under the symmetries (itself
        included), as uint64.  This default goes board by board in Python; a puzzle whose
        layers are large overrides it with a compiled kernel."""
        ranks = np.asarray(ranks, dtype=np.uint64)
        perms = [np.asarray(p, dtype=np.intp) for p in self.symmetries()]
        out = ranks.copy()
        for i, r in enumerate(ranks.tolist()):
            board = self.unrank(r, level)
            out[i] = min([r] + [self.rank(board[p]) for p in perms])
        return out

    def symmetry_group(self):
        """The group of symmetries the puzzle may be searched under, one key a class
        (puzzles/symmetric.py says what such a group gives), or None when it has none that
        is exact.  Default: None."""
        return None

    def heuristics(self):
        """Admissible lower bounds for tree search: name -> function building a
        bounds.LowerBound, the puzzle's preferred bound first.  Default: none."""
        return {}

    def additive_partitions(self):
        """The named splits of the tiles into disjoint groups for additive pattern databases
        (solvers/additive.py): name -> TilePartition, the strongest first.  Default: none."""
        return {}

    def additive_partition(self, spec):
        """One partition, given by name, or as data (sliding puzzles: groups of tiles, named
        then by their tiles): a TilePartition.  Default: the named ones only, PuzzleError
        for any other."""
        named = self.additive_partitions()
        if isinstance(spec, str) and spec in named:
            return named[spec]
        raise PuzzleError(f"{self.name}: no additive partition {spec!r} (known: "
                          f"{', '.join(named) or 'none'})")

    def layer_expansion(self):
        """A whole-layer expansion faster than asking the neighbours kernel state by state:
        an expansion.LayerExpansion, the protocol the engines publish, whose expand(state,
        level) marks NEXT every UNSEEN neighbour of every CUR state of the two-bit array
        (expansion.ExpansionState) and returns how many it marked, and whose mark(ranks,
        level, bits) sets in a bitset of the whole level every neighbour of a list of
        ascending ranks (the frontier engine's dense depths).  Its kernels write through
        expansion.words and never import an engine.  Sliding puzzles: the plane kernels.
        Default: None, the engines' generic steps over the neighbours kernel."""
        return None

    def expansion_bytes(self):
        """Bytes of the tables layer_expansion() holds during a search (memory.py).
        Default: 0."""
        return 0

    def info_lines(self):
        """More that `puzzledb info` says about the puzzle: (label, text) pairs, such as a
        permutation puzzle's rotations that are not generators.  Default: none."""
        return []

    def start_positions(self):
        """The positions whose distances from the goal the workflow tabulates beside the
        layers (the God's number between two phases): an object whose matches(ranks)
        says, as a bool array, which ranks are among them, and whose `text` names them;
        None when the puzzle declares none.  Default: None."""
        return None

    def reachable_bound(self):
        """An upper bound on the states reachable from the goal, when one is known below
        the rank space (permutation puzzles: the order of the moves' group), so that a
        sparse rank space goes to the frontier search; None when the rank space may be
        reached whole.  Plain Python, computed without loading numba.  Default: None."""
        return None

    def kernel_bytes(self):
        """Bytes of the data the neighbours kernel reads (the tables), where large enough to
        count, which every search and every frontier job holds (memory.py): sliding
        blocks' sorted keys of every placement.  Default: 0."""
        return 0

    def move_parity(self, ranks):
        """A bipartite puzzle's 0/1 colouring of the ranks that every move flips, with the
        goal states all of one colour, as an int64 array: layer d is then all of one colour
        (it halves the radii matching tries, and the frontier engine's merges subtract one
        older layer, not two); None when the puzzle has none.  Default: None."""
        return None

    def parity_run(self):
        """A length L such that move_parity is the same for all the ranks of every run
        [k L, (k + 1) L) (sliding puzzles: the plane of one blank cell), so that the states
        of one parity are whole runs of ranks; None when the parity does not come in runs.
        Default: None."""
        return None

    def relabelling(self):
        """A renaming of pieces that maps the goal onto some queries and paths onto paths,
        for meet-in-the-middle matching (see matching.py); None when the puzzle has none."""
        return None

    def route_moves(self, ranks):
        """The names of the moves a path of ranks takes, one per step, for a puzzle with
        named_moves (permutation puzzles: the definition's move names, e.g. R U' F2); None
        when its moves have no names (its boards say it all).  Default: None."""
        return None

    def query_sets(self):
        """Named sets of positions for meet-in-the-middle problem sets: name -> function
        returning their sorted ranks.  Default: none."""
        return {}

    def picture(self, board):
        """What a picture of a board shows (report/pictures.py): (width, labels, pieces,
        kinds), for each cell row-major its label ('' none), the piece it belongs to (-1 an
        empty cell, -2 no cell; the cells of one piece are drawn as one) and a colour key
        (equal keys, equal colours).  Default: format's rows as a grid, each cell its own
        piece coloured by its symbol, a cell of code 0 empty; None when format's rows are no
        grid of `width` columns (a permutation puzzle)."""
        rows = self.format(board).split(" ")
        if len(rows) * self.width != self.cells or any(len(r) != self.width for r in rows):
            return None
        labels = [s if code else "" for s, code in zip("".join(rows), np.asarray(board))]
        pieces = [cell if label else -1 for cell, label in enumerate(labels)]
        return self.width, labels, pieces, labels

    def route_cell(self, before, after):
        """The route token of the move from board `before` to board `after` in a problem file
        (query/problems.py): a number that tells the move apart from the other moves of
        `before`.  Default: the first empty cell (code 0) of `after`, the blank's cell."""
        empty = np.flatnonzero(np.asarray(after) == 0)
        if empty.size == 0:
            raise ProblemError(f"{self.name}: a route needs a board with an empty cell")
        return int(empty[0])


class Puzzle(Capabilities):
    """Base class.  Subclasses set the attributes and implement the methods marked below.

    name        -- the stable name used in config.yaml, paths and the command line
    description -- one line for `puzzledb list`
    family      -- the family the puzzle is a member of ('sliding', 'flipit', ...)
    kernels     -- dotted name of the module of the family's compiled kernels; importing it
                   registers them with compiled.register for the type of tables()
    cells       -- number of cells in a board
    width       -- cells per row, for formatting
    size        -- number of ranks in all (a graded puzzle: summed over its levels)
    max_moves   -- upper bound on the neighbours of one state
    work_size   -- length of the int64 scratch array the neighbours kernel gets
    graded      -- True when every move changes a grade (peg solitaire: one peg fewer), so
                   layer d is exactly grade d and each level has its own rank space
    reversible  -- True when every move can be undone by a move (the graph is undirected),
                   so the distance from the goal set is the distance to it
    symmetric   -- True when a key stands for a class of positions, the puzzle's searched
                   up to its symmetries (puzzles/symmetric.py): the store weighs them
    drawn       -- True when a board is shown as a drawing, one row a line, boards
                   separated by a blank line (sliding blocks: `solve`, antipodes.txt);
                   else one board string a line (show_boards)
    every_placement -- True when the ranks number every placement of the pieces, reachable
                   or not, so that the database is the designer's table over all of them
                   (report/design.py)
    key_words   -- the 64-bit words of a state's key (puzzledb/keys.py): 1, its rank, when
                   the rank space is below 2^63; else W >= 2 (a permutation puzzle's factors
                   packed into words), searched by the frontier engine alone
    """

    name = ""
    description = ""
    family = ""
    kernels = ""
    cells = 0
    width = 1
    size = 0
    max_moves = 0
    graded = False
    reversible = True
    symmetric = False
    drawn = False
    every_placement = False
    key_words = 1

    @property
    def work_size(self):
        return self.cells

    # -- to implement -------------------------------------------------------------------
    def parse(self, text):
        """Board string -> board (int64 array, one code per cell).  BoardError when it is
        malformed or unreachable."""
        raise NotImplementedError

    def format(self, board):
        """Board -> board string, rows separated by spaces."""
        raise NotImplementedError

    # A board may be given in another notation than format's; answers follow the question's.
    def notation(self, text):
        """The notation a board string is written in, for format_as: "symbols" (format's,
        the default) or one the family also reads (sliding puzzles: "decimal")."""
        return "symbols"

    def format_as(self, board, notation):
        """Board -> board string in a notation that notation() names.  Default: format."""
        return self.format(board)

    def rank(self, board):
        """Board -> rank (int) in its level's rank space."""
        raise NotImplementedError

    def unrank(self, rank, level=0):
        """Rank -> board (int64 array); BoardError for a rank outside the level."""
        raise NotImplementedError

    def goal_ranks(self):
        """Sorted uint64 array: the layer-0 states the search starts from.  Default: the
        rank of the puzzle's one goal board, `self.goal`."""
        return self.key_array([self.rank(self.goal)])

    def definition(self):
        """A JSON-able dict of what fixes the state graph and the rank numbering: the
        family, its parameters and a versioned ranking id (never prose).  Its hash is
        stored in every layer file, so layers of a changed definition are never trusted."""
        raise NotImplementedError

    def make_tables(self):
        """The data of the compiled kernels: a namedtuple of arrays and integers whose type
        the family's kernels module registered (see compiled/)."""
        raise NotImplementedError

    # -- levels ----------------------------------------------------------------------------
    @property
    def ranks_fit(self):
        """Whether every rank fits the 64-bit integers of the engines, the store and the
        kernels (the 24-puzzle's 25!/2 do not: it has no database, only tree search with
        its additive pattern databases)."""
        return self.key_words > 1 or sum(self.levels()) < RANK_LIMIT

    def key_bounds(self, level=0):
        """The values each word of a key takes, as exclusive bounds: [the level's size] for
        a rank of one word."""
        return [self.level_size(level)]

    def level_size(self, level):
        """Ranks of one level (of level 0 alone for an ungraded puzzle)."""
        return self.size if level == 0 or not self.graded else 0

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

    # -- shared ------------------------------------------------------------------------------
    @cached_property
    def compiled(self):
        """The family's kernels module (imported, and so registered, on first use)."""
        return import_module(self.kernels)

    @cached_property
    def _tables(self):
        self.compiled  # the kernels must be registered before the tables reach numba
        return self.make_tables()

    def tables(self):
        """The tables of the compiled kernels, built once."""
        return self._tables

    def cells_of(self, text, alphabet, aliases=None, noun="cells", hint=None):
        """The cells of a board string, separators removed and aliases applied: a string
        with exactly `cells` symbols, all in `alphabet`.  BoardError naming the puzzle; noun
        is what the family calls a cell, hint says which symbols to use."""
        cells = "".join(ch for ch in str(text) if ch not in SEPARATORS)
        if aliases:
            cells = "".join(aliases.get(ch, ch) for ch in cells)
        if len(cells) != self.cells:
            raise BoardError(f"{self.name}: board {text!r} has {len(cells)} {noun}, "
                             f"expected {self.cells}")
        unknown = "".join(sorted(set(cells) - set(alphabet)))
        if unknown and hint:
            raise BoardError(f"{self.name}: board {text!r} has symbols {unknown!r}; {hint}")
        if unknown:
            raise BoardError(f"{self.name}: board {text!r} has pieces {unknown!r} not in "
                             f"{alphabet!r}")
        return cells

    def goal_cells(self, goal, alphabet, aliases, hint):
        """The cells of a definition's goal string, separators removed, lower case, aliases
        applied: exactly `cells` symbols of `alphabet`, else DefinitionError naming the
        goal (hint says which symbols to use)."""
        cells = "".join(aliases.get(ch, ch) for ch in str(goal).lower() if ch not in SEPARATORS)
        if len(cells) != self.cells:
            raise DefinitionError("goal", f"{goal!r} has {len(cells)} cells, expected "
                                  f"{self.cells} ({self.width}x{self.cells // self.width})")
        unknown = "".join(sorted(set(cells) - set(alphabet)))
        if unknown:
            raise DefinitionError("goal", f"{goal!r} has symbols {unknown!r}: {hint}")
        return cells

    def check_rank(self, rank, level=0):
        if self.key_words > 1:
            bounds = self.key_bounds(level)
            if not 0 <= rank < 1 << (keys.WORD_BITS * self.key_words) or any(
                    int(w) >= b for w, b in zip(self.key_array([rank])[0], bounds)):
                raise BoardError(f"{self.name}: key {rank} is not one of its keys (words "
                                 f"below {', '.join(f'{b:,}' for b in bounds)})")
            return
        size = self.level_size(level)
        if not 0 <= rank < size:
            where = f" of level {level}" if self.graded else ""
            raise BoardError(f"{self.name}: rank {rank} outside 0..{size - 1}{where}")

    def neighbours(self, rank, level=0):
        """The neighbour ranks (keys, as ints) of one state (Python-level, for queries)."""
        moves, words = max(self.max_moves, 1), self.key_words
        work = np.empty(max(self.work_size, 1), dtype=np.int64)
        if words == 1:
            key, out = np.int64(rank), np.empty(moves, dtype=np.int64)
        else:
            key, out = keys.key_array([rank], words)[0], np.empty((moves, words), np.uint64)
        count = _generic().neighbours_of(key, np.int64(level), out, work, self.tables())
        return keys.key_ints(out[:count])

    def key_array(self, ranks):
        """Ranks or keys (Python ints, or an array of them) as this puzzle's key array."""
        return keys.key_array(ranks, self.key_words)

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
        """The board string of a rank (an int, a uint64, or a key's row of words)."""
        return self.format(self.unrank(keys.key_int(rank), level))

    def __repr__(self):
        return f"<puzzle {self.name}: {self.size:,} states>"

    def capability(self, kind):
        """This puzzle as `kind`, a capability only some families have (a class of
        capabilities.py: PatternBounds, GoalFrames, ChainedMoves, Catalogued), for its
        methods; PuzzleError naming what it lacks when the puzzle's family has not got it."""
        if isinstance(self, kind):
            return self
        raise PuzzleError(f"{self.name}: {kind.lacking}")


def _generic():
    """puzzledb.compiled, loaded on first use like the families' kernels."""
    return import_module("puzzledb.compiled")


def show_boards(puzzle, boards):
    """Board strings as a person reads them: one a line, or, for a puzzle whose boards are
    drawn (Puzzle.drawn), each drawn one row a line with a blank line between boards."""
    if not puzzle.drawn:
        return "".join(f"{b}\n" for b in boards)
    return "\n".join("\n".join(b.split()) + "\n" for b in boards)


def read_shown_boards(puzzle, text):
    """The board strings of a text show_boards wrote, rows separated by spaces."""
    if not puzzle.drawn:
        return text.splitlines()
    return [" ".join(block.split()) for block in text.split("\n\n") if block.strip()]


def format_rows(symbols, width):
    return " ".join(
        "".join(symbols[i:i + width]) for i in range(0, len(symbols), width)
    )
