"""The adapter of rules/bfs.smk: which puzzles the in-memory build takes, and what its job
is given (depth limit, store) and needs (threads, mem_mb)."""

from puzzledb import puzzles
from puzzledb.bfs.memory import job_mb
from puzzledb.bfs.modes import IN_MEMORY
from puzzledb.store import LAYERS
from puzzledb.rules.common import puzzles_built

# A search of fewer states than this runs on one thread whatever config `threads` says: its
# BFS takes well under a second, a second thread would save a fraction of that, and the
# core it would hold lets Snakemake start another puzzle's job instead.
ONE_THREAD_STATES = 1 << 25


class BfsRules:
    """The bfs rule's view of a checked config and its search plans."""

    def __init__(self, config, plans):
        self.config, self.plans = config, plans

    def puzzles(self):
        """The rule's wildcard constraint: the puzzles the in-memory search builds."""
        return puzzles_built(self.plans, IN_MEMORY)

    def mem_mb(self, wildcards):
        return job_mb(puzzles.get(wildcards.puzzle), self.store(wildcards))

    def threads(self, wildcards):
        small = puzzles.get(wildcards.puzzle).size < ONE_THREAD_STATES
        return 1 if small else self.config["threads"]

    def depth_limit(self, wildcards):
        return self.config["depth_limit"].get(wildcards.puzzle)

    def store(self, wildcards):
        """What the build keeps (config `store:`, store.LAYERS by default)."""
        return self.config["store"].get(wildcards.puzzle, LAYERS)
