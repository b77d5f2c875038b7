"""The search modes and the stores they keep, in one table below the engines: each engine
takes its mode's name from here, bfs/select.py (above the engines) chooses among them, and
each rule of that choice is stated once, here, with the config key its error names.
Plain Python: it loads no engine."""

from dataclasses import dataclass

from puzzledb.errors import ChoiceError
from puzzledb.store import COUNTS, DISTANCES, LAYERS

IN_MEMORY = "in-memory"  # two bits per state of the whole rank space (in_memory.py)
FRONTIER = "frontier"  # sorted layers in segments, a chain of bounded jobs (frontier/)


@dataclass(frozen=True)
class SearchMode:
    """A way of building a puzzle's layers, and what it asks of the puzzle."""

    name: str
    builds: str  # what its builds are called, in messages
    undirected_or_graded: bool = False  # needs moves that can be undone, or a graded puzzle
    any_key: bool = False  # searches keys of any width (else ranks of one word)

    def check(self, puzzle, key=None):
        """ChoiceError naming `key` (the setting that chose this mode) unless the mode can
        search the puzzle."""
        if puzzle.key_words > 1 and not self.any_key:
            raise ChoiceError(key, f"{puzzle.name}: keys of {puzzle.key_words} words (a rank "
                                   f"space of 2^63 or more): the {self.name} search holds "
                                   f"ranks of one word; give it a depth_limit (a prefix, by "
                                   f"the frontier search)")
        if self.undirected_or_graded and not (puzzle.reversible or puzzle.graded):
            raise ChoiceError(key, f"{puzzle.name}: the {self.name} search needs moves that "
                                   f"can be undone, or a graded puzzle")

    def keeps(self):
        """The stores this mode can keep."""
        return [kind.name for kind in STORES.values() if self.name in kind.modes]


@dataclass(frozen=True)
class StoreKind:
    """A kind of database a build keeps (config `store:`), and what it asks of the search."""

    name: str
    modes: tuple  # the search modes that keep it
    graded_refused: str = ""  # why a graded puzzle cannot keep it ("": it can)

    def check(self, puzzle, mode):
        """ChoiceError naming the key `store` unless the puzzle, searched by `mode`, can
        keep this kind."""
        if mode not in self.modes:
            searched = MODES[mode]
            raise ChoiceError("store", f"{puzzle.name}: store: {self.name} is the "
                                       f"{' or '.join(self.modes)} search's; {searched.builds} "
                                       f"keep {' or '.join(searched.keeps())}")
        if self.graded_refused and puzzle.graded:
            raise ChoiceError("store", f"{puzzle.name}: store: {self.name} is for ungraded "
                                       f"puzzles ({self.graded_refused})")


# A new search mode is a folder of its own under bfs/ and a line in MODES; a new kind of
# store, a line in STORES (docs/architecture.md, "How to add a search mode").
MODES = {mode.name: mode for mode in [
    SearchMode(IN_MEMORY, "in-memory builds"),
    SearchMode(FRONTIER, "sharded builds", undirected_or_graded=True, any_key=True),
]}

STORES = {kind.name: kind for kind in [
    StoreKind(LAYERS, modes=(IN_MEMORY, FRONTIER)),
    StoreKind(COUNTS, modes=(IN_MEMORY,),
              graded_refused="a graded search holds two levels, not the space"),
    StoreKind(DISTANCES, modes=(IN_MEMORY,),
              graded_refused="a graded search holds two levels, not the space"),
]}


def check_store(puzzle, store, mode):
    """ChoiceError naming the key `store` unless the puzzle, searched by `mode`, can keep
    `store` (store.LAYERS, COUNTS or DISTANCES)."""
    STORES[store].check(puzzle, mode)
