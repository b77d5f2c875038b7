"""The search a frontier rule's job works on (scripts/frontier_*.py), made from Snakemake's
`snakemake` object: the engine (bfs/frontier/) knows nothing of Snakemake.  Imported by the
rule scripts only: it loads the compiled engine."""

from puzzledb import paths, puzzles
from puzzledb.bfs.frontier.search import Frontier
from puzzledb.compiled import set_threads


def frontier_search(snakemake):
    """The Frontier of the job's puzzle as its search plan says (params.plan:
    FrontierRules.search_plan), with the job's threads in use."""
    set_threads(snakemake.threads)
    name, results = snakemake.wildcards.puzzle, snakemake.config["results"]
    plan = snakemake.params.plan
    return Frontier(plan.searched(puzzles.get(name)), paths.layers(results, name),
                    paths.frontier_work(results, name), plan.segments, plan.job_states,
                    plan.depth_limit)
