"""The adapter of rules/bfs.smk: which puzzles the in-memory build takes, the search plan
its job is handed (params.plan: config.search_plan's, made once per parse) and what the job
needs (threads, mem_mb: the plan's)."""

from puzzledb import puzzles
from puzzledb.bfs.memory import mb_of
from puzzledb.bfs.modes import IN_MEMORY
from puzzledb.config import search_plan
from puzzledb.errors import ConfigError
from puzzledb.rules.common import one_line_exit, puzzles_built

# A search of fewer states than this runs on one thread whatever config `threads` says: its
# BFS takes well under a second, a second thread would save a fraction of that, and the
# core it would hold lets Snakemake start another puzzle's job instead.
ONE_THREAD_STATES = 1 << 25


class BfsRules:
    """The bfs rule's view of a checked config and its search plans."""

    def __init__(self, config, plans, source="config"):
        """source: the config file, for messages."""
        self.config, self.plans, self.source = config, plans, source
        self._unlisted = {}  # the plans of puzzles asked for by file name only

    def puzzles(self):
        """The rule's wildcard constraint: the puzzles the in-memory search builds."""
        return puzzles_built(self.plans, IN_MEMORY)

    def plan(self, wildcards):
        """The puzzle's search plan: the config check's, or for a puzzle asked for by file
        name only (not in `puzzles`), the plan the config's settings give it, made now; a
        plan that cannot be made ends the run in one line, as the config check does."""
        name = wildcards.puzzle
        if name in self.plans:
            return self.plans[name]
        if name not in self._unlisted:
            with one_line_exit():
                plan = search_plan(self.config, name, self.source)
                if plan.mode != IN_MEMORY:
                    raise ConfigError(f"{self.source}: {name}: asked for by file name, it "
                                      f"is built by the {plan.mode} search: list it under "
                                      f"puzzles")
                self._unlisted[name] = plan
        return self._unlisted[name]

    def mem_mb(self, wildcards):
        return mb_of(self.plan(wildcards).need_bytes)

    def threads(self, wildcards):
        small = puzzles.get(wildcards.puzzle).size < ONE_THREAD_STATES
        return 1 if small else self.config["threads"]
