"""The adapter of rules/analysis.smk and of the Snakefile's default target: which files the
default target builds, and which puzzles and problem sets the analyses cover."""

from puzzledb import paths, puzzles
from puzzledb.store import LAYERS


class AnalysisRules:
    """The analyses' view of a checked config and its search plans."""

    def __init__(self, config, plans):
        self.config, self.plans = config, plans
        self.results = config["results"]

    def symmetric_puzzles(self):
        """The puzzles whose layers are counted up to symmetry (a layer store's: the others
        keep no layers to count)."""
        return [p for p in self.config["puzzles"]
                if puzzles.get(p).symmetries() and self.plans[p].store == LAYERS]

    def designed_puzzles(self):
        """The puzzles whose ranks number every placement of their pieces (sliding blocks),
        which get the designer's table (report/design.py); a layer store's."""
        return [p for p in self.config["puzzles"]
                if puzzles.get(p).every_placement and self.plans[p].store == LAYERS]

    def all_outputs(self):
        """The files of the default target."""
        results = self.results
        outputs = [paths.report(results)]
        for puzzle in self.config["puzzles"]:
            outputs += [paths.summary(results, puzzle), paths.antipodes(results, puzzle),
                        paths.depth_plot(results, puzzle)]
        outputs += [paths.symmetry_summary(results, p) for p in self.symmetric_puzzles()]
        outputs += [paths.design(results, p) for p in self.designed_puzzles()]
        if self.config["verify"]:
            outputs += [paths.verified(results, p) for p in self.config["puzzles"]]
        for entry in self.config["problem_sets"]:
            outputs += self.problem_files(entry)
        return outputs

    def problem_files(self, entry):
        """The distribution table and the problem file of one problem set."""
        where = (self.results, entry["puzzle"], entry["queries"], entry["k"])
        return [paths.problem_distribution(*where), paths.problem_file(*where)]
