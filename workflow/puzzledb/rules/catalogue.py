"""The adapter of rules/catalogue.smk: the catalogues of the config, their jobs (config
catalogue_jobs) and the files each writes."""

from puzzledb import paths


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

    def outputs(self):
        """The files of the default target."""
        return [f for name in self.names()
                for f in (paths.catalogue(self.results, name),
                          paths.catalogue_summary(self.results, name),
                          paths.catalogue_totals(self.results, name))]
