"""The adapter of rules/analysis.smk and of the Snakefile's default target: which files the
default target builds, and which puzzles and problem sets the analyses cover."""

from puzzledb import paths, puzzles


class AnalysisRules:
    """The analyses' view of a checked config and its search plans."""

    def __init__(self, config, plans):
        self.config, self.plans = config, plans
        self.results = config["results"]

    def _with_layers(self, wanted):
        """The puzzles whose store keeps the layers (the others keep none to mine) for which
        wanted(puzzle) holds."""
        return [p for p in self.config["puzzles"]
                if self.plans[p].store.layers and wanted(puzzles.get(p))]

    def symmetric_puzzles(self):
        """The puzzles whose layers are counted up to symmetry after the search (those
        searched up to symmetry have their classes in summary.csv)."""
        return [p for p in self._with_layers(lambda puzzle: puzzle.symmetries())
                if not self.plans[p].symmetric]

    def designed_puzzles(self):
        """The puzzles whose ranks number every placement of their pieces (sliding blocks),
        which get the designer's table (report/design.py)."""
        return self._with_layers(lambda puzzle: puzzle.every_placement)

    def routed_puzzles(self):
        """The puzzles whose moves have names: their deepest positions are also written as
        move sequences (antipodes_moves.txt)."""
        return self._with_layers(lambda puzzle: puzzle.named_moves)

    def phased_puzzles(self):
        """The puzzles with a start pattern (start_distribution.csv)."""
        return self._with_layers(lambda puzzle: puzzle.start_positions() is not None)

    def all_outputs(self):
        """The files of the default target."""
        results = self.results
        # the page shows the puzzles' databases: a config of catalogues alone has none
        outputs = [paths.report(results)] if self.config["puzzles"] else []
        for puzzle in self.config["puzzles"]:
            outputs += [paths.summary(results, puzzle), paths.antipodes(results, puzzle),
                        paths.depth_plot(results, puzzle)]
        outputs += [paths.symmetry_summary(results, p) for p in self.symmetric_puzzles()]
        outputs += [paths.design(results, p) for p in self.designed_puzzles()]
        outputs += [paths.antipode_moves(results, p) for p in self.routed_puzzles()]
        outputs += [paths.start_distribution(results, p) for p in self.phased_puzzles()]
        if self.config["verify"]:
            outputs += [paths.verified(results, p) for p in self.config["puzzles"]]
        for entry in self.config["problem_sets"]:
            outputs += self.problem_files(entry)
        return outputs

    def problem_files(self, entry):
        """The distribution table and the problem file of one problem set."""
        where = (self.results, entry["puzzle"], entry["queries"], entry["k"])
        return [paths.problem_distribution(*where), paths.problem_file(*where)]
