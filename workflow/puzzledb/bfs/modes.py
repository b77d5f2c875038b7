"""The search modes, in one table below the engines: each engine takes its mode's name from
here, bfs/select.py (above the engines) chooses among them, and what each asks of a puzzle
is stated once, here, with the config key its error names.  (The kinds of store each can
keep are query/kinds.py's, by `whole_space`.)  Plain Python: it loads no engine."""

from dataclasses import dataclass

from puzzledb.errors import ChoiceError

IN_MEMORY = "in-memory"  # two bits per state of the whole rank space (in_memory.py)
FRONTIER = "frontier"  # sorted layers in segments, a chain of bounded jobs (frontier/)


@dataclass(frozen=True)
class SearchMode:
    """A way of building a puzzle's layers, and what it asks of the puzzle."""

    name: str
    builds: str  # what its builds are called, in messages
    whole_space: bool  # holds the whole rank space (of an ungraded puzzle) as it searches
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


# A new search mode is a folder of its own under bfs/ and a line here (docs/architecture.md,
# "How to add a search mode").
MODES = {mode.name: mode for mode in [
    SearchMode(IN_MEMORY, "in-memory builds", whole_space=True),
    SearchMode(FRONTIER, "sharded builds", whole_space=False, undirected_or_graded=True,
               any_key=True),
]}
