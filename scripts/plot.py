"""Rule plots: every puzzle's depth_distribution.png, a bar chart of its layers' counts."""

from pathlib import Path

from puzzledb.report import plots
from puzzledb import puzzles
from puzzledb.query.database import DepthDatabase
from puzzledb.rules import rule_job

with rule_job(snakemake):
    for name, manifest, path in zip(snakemake.params.puzzles, snakemake.input.manifests,
                                    snakemake.output.plots):
        puzzle = puzzles.get(name)
        with DepthDatabase(puzzle, Path(manifest).parent) as db:
            plots.plot_depths(db.summary(), name, path, plots.depth_axis(puzzle),
                              note=db.extent() if db.partial else None)
