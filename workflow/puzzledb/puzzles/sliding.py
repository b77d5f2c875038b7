"""Sliding-tile puzzles on a rectangle with one blank: the coloured 15-puzzles, the 8-puzzle.

A puzzle is data: its width, height and goal string.  Pieces that repeat make a multiset
(every arrangement is reachable, since swapping two equal pieces fixes any parity); distinct
tiles make a permutation whose parity is tied to the blank's row (an even-width board turns
the parity over with each vertical move, an odd-width board never does).
"""

from collections import Counter
from math import factorial

import numpy as np
from numba import njit

from ..bitops import pdep, pext
from ..puzzle import BoardError, Puzzle, clean_board_text, format_rows
from ..ranking import (
    combination_index,
    combination_masks,
    multiset_rank,
    multiset_unrank,
    multiset_weights,
    permutation_parity,
    permutation_rank,
    permutation_unrank,
)

SYMBOLS = "0123456789abcdefghijklmnopqrstuvwxyz"


def grid_adjacency(width, height):
    """adjacent[cell] lists the orthogonal neighbours, padded with -1."""
    adjacent = np.full((width * height, 4), -1, dtype=np.int64)
    for cell in range(width * height):
        row, col = divmod(cell, width)
        near = []
        for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):
            r, c = row + dr, col + dc
            if 0 <= r < height and 0 <= c < width:
                near.append(r * width + c)
        adjacent[cell, : len(near)] = near
    return adjacent


class SlidingPuzzle(Puzzle):
    max_moves = 4

    def __init__(self, name, width, height, goal, description=""):
        self.name = name
        self.description = description
        self.width = width
        self.height = height
        self.cells = width * height
        goal = clean_board_text(goal)
        if len(goal) != self.cells or goal.count("0") != 1:
            raise ValueError(f"{name}: goal {goal!r} must have {self.cells} cells and one 0")
        self.symbols = "0" + "".join(sorted(set(goal) - {"0"}))
        self.code = {s: i for i, s in enumerate(self.symbols)}
        self.goal = np.array([self.code[s] for s in goal], dtype=np.int64)
        self.counts = np.array([goal.count(s) for s in self.symbols], dtype=np.int64)
        self.adjacent = grid_adjacency(width, height)
        self.distinct = bool(np.all(self.counts == 1))
        if self.distinct:
            tiles = len(self.symbols) - 1
            self.half_factorial = factorial(tiles) // 2
            self.size = self.cells * self.half_factorial
            goal_blank = int(np.flatnonzero(self.goal == 0)[0])
            goal_parity = permutation_parity(p for p in self.goal if p)
            flips = (width - 1) & 1
            self.parity_of_blank = np.array(
                [goal_parity ^ (flips * (b // width - goal_blank // width) & 1)
                 for b in range(self.cells)],
                dtype=np.int64,
            )
        else:
            self.weights, self.size = multiset_weights(self.counts)
            self.work_size = 2 * self.counts.size
        self._kernel = None
        self._relabelling = None

    def definition(self):
        return {
            "family": "sliding",
            "width": self.width,
            "height": self.height,
            "goal": self.format(self.goal),
            "ranking": "permutation-parity" if self.distinct else "multiset",
        }

    # -- boards --------------------------------------------------------------------------
    def parse(self, text):
        cells = clean_board_text(text).replace("_", "0").lower()
        if len(cells) != self.cells:
            raise BoardError(
                f"{self.name}: board {text!r} has {len(cells)} cells, expected {self.cells}"
            )
        unknown = sorted(set(cells) - set(self.symbols))
        if unknown:
            raise BoardError(
                f"{self.name}: board {text!r} has pieces {''.join(unknown)!r} "
                f"not in {self.symbols!r}"
            )
        have = Counter(cells)
        for symbol, want in zip(self.symbols, self.counts):
            if have[symbol] != want:
                raise BoardError(
                    f"{self.name}: board {text!r} has {have[symbol]} of piece "
                    f"{symbol!r}, expected {want}"
                )
        board = np.array([self.code[s] for s in cells], dtype=np.int64)
        if self.distinct:
            blank = int(np.flatnonzero(board == 0)[0])
            if permutation_parity(p for p in board if p) != self.parity_of_blank[blank]:
                raise BoardError(
                    f"{self.name}: board {text!r} is unreachable (wrong permutation parity)"
                )
        return board

    def format(self, board):
        return format_rows([self.symbols[p] for p in board], self.width)

    def rank(self, board):
        board = np.asarray(board, dtype=np.int64)
        if self.distinct:
            return int(permutation_rank(board, self.half_factorial))
        return int(multiset_rank(board, self.counts, self.weights))

    def unrank(self, rank, level=0):
        if not 0 <= rank < self.size:
            raise BoardError(f"{self.name}: rank {rank} outside 0..{self.size - 1}")
        out = np.empty(self.cells, dtype=np.int64)
        if self.distinct:
            permutation_unrank(rank, self.half_factorial, self.parity_of_blank, out)
        else:
            multiset_unrank(rank, self.counts, self.weights, out)
        return out

    def goal_ranks(self):
        return np.array([self.rank(self.goal)], dtype=np.uint64)

    def query_sets(self):
        """Distinct tiles: 'blank-at-goal', every position with the blank where the goal has
        it, one block of ranks because the blank's cell is the rank's leading digit."""
        if not self.distinct:
            return {}
        blank = int(np.flatnonzero(self.goal == 0)[0])
        block = self.half_factorial
        return {"blank-at-goal": lambda: np.arange(blank * block, (blank + 1) * block,
                                                  dtype=np.uint64)}

    def relabelling(self):
        """Distinct tiles: the tile renaming that meet-in-the-middle matching exploits (see
        SlidingRelabelling); None for pieces that repeat."""
        if self.distinct and self._relabelling is None:
            self._relabelling = SlidingRelabelling(self)  # compiled once per puzzle
        return self._relabelling

    def kernel(self):
        if self._kernel is None:
            if self.distinct:
                self._kernel = _permutation_kernel(
                    self.adjacent, self.half_factorial, self.parity_of_blank
                )
            else:
                self._kernel = _multiset_kernel(self.adjacent, self.counts, self.weights)
        return self._kernel


# A horizontal move swaps two cells that are consecutive in cell order, so every digit but
# the blank's keeps its value in both rank families: such neighbours cost one addition.


def _multiset_kernel(adjacent, counts, weights):
    """Neighbours with the board held as one cell mask per class (work[c]) and the digits of
    the rank kept (work[k + c]): a vertical move of a piece of class p changes only the
    digits of classes 1..p, whose pools it changes."""
    cells = adjacent.shape[0]
    k = counts.size
    full = np.uint64((1 << cells) - 1)
    blank_weight = weights[0]
    pools = np.array([cells - counts[0] - counts[1:c].sum() for c in range(k)], np.int64)
    tables = [combination_masks(pools[c], counts[c]) for c in range(1, k - 1)] or [
        np.zeros(1, np.uint64)]
    width = max(t.size for t in tables)
    unrank_table = np.zeros((k, width), np.uint64)
    for c in range(1, k - 1):
        unrank_table[c, : tables[c - 1].size] = tables[c - 1]
    one = np.uint64(1)

    @njit(nogil=True)
    def neighbours(rank, level, out, work):
        s = rank // blank_weight
        rest = rank - s * blank_weight
        free = full & ~(one << np.uint64(s))
        for c in range(1, k - 1):
            d = rest // weights[c]
            rest -= d * weights[c]
            work[k + c] = d
            m = pdep(unrank_table[c, d], free)
            work[c] = np.int64(m)
            free &= ~m
        work[k - 1] = np.int64(free)
        moves = 0
        for j in range(4):
            n = adjacent[s, j]
            if n < 0:
                break
            if n == s + 1 or n == s - 1:
                out[moves] = rank + (n - s) * blank_weight
            else:
                bit = one << np.uint64(n)
                p = 1
                while np.uint64(work[p]) & bit == 0:
                    p += 1
                r = n * blank_weight
                pool = full & ~bit
                for c in range(1, k - 1):
                    m = np.uint64(work[c])
                    if c > p:
                        r += work[k + c] * weights[c]
                        continue
                    if c == p:
                        m = (m & ~bit) | (one << np.uint64(s))
                    r += combination_index(pext(m, pool), pools[c], counts[c]) * weights[c]
                    pool &= ~m
                out[moves] = r
            moves += 1
        return moves

    return neighbours


class SlidingRelabelling:
    """Tile renaming for matching.py.  Moves depend only on where the blank is, so renaming
    the tiles maps paths to paths: a query q with its blank where the goal has it is the goal
    renamed by s (s(goal[i]) = q[i]), and the states j moves from q are the goal's layer j
    renamed by s.  s is even (q and the goal have the same blank cell, hence the same
    parity), so renamed states stay reachable.  The key of such a query is its own rank;
    kernel(rank, key, table) renames a state by the query `key` (table is unused)."""

    def __init__(self, puzzle):
        self.goal_blank = int(np.flatnonzero(puzzle.goal == 0)[0])
        self.block = puzzle.half_factorial
        self.kernel = _relabel_kernel(puzzle.goal, puzzle.half_factorial,
                                      puzzle.parity_of_blank)
        self.table = np.zeros((1, 1), dtype=np.int16)

    def keys(self, ranks):
        ranks = np.asarray(ranks, dtype=np.int64)
        return np.where(ranks // self.block == self.goal_blank, ranks, -1)


def _relabel_kernel(goal, half_factorial, parity_of_blank):
    cells = goal.size

    @njit(nogil=True)
    def relabel(rank, key, table):
        work = np.empty(3 * cells, dtype=np.int64)
        query = work[:cells]
        state = work[cells:2 * cells]
        rename = work[2 * cells:]
        permutation_unrank(key, half_factorial, parity_of_blank, query)
        permutation_unrank(rank, half_factorial, parity_of_blank, state)
        for i in range(cells):
            rename[goal[i]] = query[i]  # the blank maps to itself
        for c in range(cells):
            state[c] = rename[state[c]]
        return permutation_rank(state, half_factorial)

    return relabel


def _permutation_kernel(adjacent, half_factorial, parity_of_blank):
    cells = adjacent.shape[0]

    @njit(nogil=True)
    def neighbours(rank, level, out, work):
        board = work[:cells]
        permutation_unrank(rank, half_factorial, parity_of_blank, board)
        s = rank // half_factorial
        k = 0
        for j in range(4):
            n = adjacent[s, j]
            if n < 0:
                break
            if n == s + 1 or n == s - 1:
                out[k] = rank + (n - s) * half_factorial
            else:
                board[s] = board[n]
                board[n] = 0
                out[k] = permutation_rank(board, half_factorial)
                board[n] = board[s]
                board[s] = 0
            k += 1
        return k

    return neighbours
