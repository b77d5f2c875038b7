"""The in-memory build as the tests call it: the search plan made from settings by
bfs.select.choose, as config.search_plan makes it for the workflow and `puzzledb build` (the
store named; no memory budget unless one is given, no checkpoints unless asked for), then
the engine on that plan."""

from puzzledb.bfs import in_memory, select
from puzzledb.query.kinds import KINDS
from puzzledb.store import LAYERS


def plan(puzzle, store=LAYERS, memory_mb=None, **settings):
    """The SearchPlan of `puzzle` keeping the store named `store` (select.choose's other
    settings as keywords: shards, depth_limit, checkpoint_minutes, job_states)."""
    return select.choose(puzzle, KINDS[store], memory_mb, **settings)


def build_in_memory(puzzle, directory, *, threads=None, progress=False, log=lambda m: None,
                    **settings):
    """in_memory.build of `puzzle` into `directory` on plan(puzzle, **settings)."""
    return in_memory.build(puzzle, directory, plan(puzzle, **settings), threads=threads,
                           progress=progress, log=log)
