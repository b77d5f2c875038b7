"""The adapter of rules/pdbs.smk: the additive pattern databases of config `pdbs` (target
pdbs), their table files, and what a table's job needs (mem_mb, runtime)."""

from puzzledb import paths, puzzles
from puzzledb.solvers.memory import pattern_build_seconds, pattern_job_mb


class PatternRules:
    """The pattern-database rules' view of a checked config."""

    def __init__(self, config):
        self.config, self.results = config, config["results"]

    def outputs(self):
        """The manifest of every partition in config `pdbs` (target pdbs)."""
        return [f"{paths.pattern_databases(self.results, puzzle, partition)}/{paths.MANIFEST}"
                for puzzle, partitions in self.config["pdbs"].items()
                for partition in partitions]

    def tables(self, wildcards):
        """The table files of one partition."""
        partition = self._partition(wildcards)
        return [paths.pattern_table(self.results, wildcards.puzzle, wildcards.partition, label)
                for label in partition.labels]

    def mem_mb(self, wildcards):
        """mem_mb of the job building one table."""
        part = self._partition(wildcards)
        return pattern_job_mb(part.width * part.height, len(wildcards.tiles))

    def minutes(self, wildcards):
        """runtime (minutes) of the job building one table: pattern_build_seconds' estimate
        for config `threads`, so that `snakemake -n` shows it before the build starts."""
        part = self._partition(wildcards)
        seconds = pattern_build_seconds(part.width * part.height, len(wildcards.tiles),
                                        self.config["threads"])
        return max(1, round(seconds / 60))

    @staticmethod
    def _partition(wildcards):
        return puzzles.get(wildcards.puzzle).additive_partition(wildcards.partition)
