"""The adapter of rules/catalogue.smk: the catalogues of the config, their jobs (config
catalogue_jobs), the files each writes and the memory of the merge."""

from puzzledb import paths, puzzles
from puzzledb.bfs.memory import mb_of
from puzzledb.report.catalogue_parts import merge_bytes


class CatalogueRules:
    """The catalogue rules' view of a checked config."""

    def __init__(self, config):
        self.config = config
        self.results = config["results"]

    def names(self):
        return list(self.config["catalogues"])

    def jobs(self, name):
        return self.config["catalogue_jobs"].get(name, 1)

    def parts(self, wildcards):
        """The part files the merge of one catalogue reads, one a job."""
        jobs = self.jobs(wildcards.puzzle)
        return [paths.catalogue_part(self.results, wildcards.puzzle, j, jobs)
                for j in range(jobs)]

    def merge_mb(self, wildcards):
        """mem_mb of the merge: a slice of each part and a block (catalogue_parts.merge_bytes),
        known from the number of jobs alone, before any part is written."""
        return mb_of(merge_bytes(puzzles.get(wildcards.puzzle), self.jobs(wildcards.puzzle)))

    def outputs(self):
        """The files of the default target."""
        return [f for name in self.names()
                for f in (paths.catalogue(self.results, name),
                          paths.catalogue_summary(self.results, name),
                          paths.catalogue_totals(self.results, name))]
