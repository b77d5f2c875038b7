"""How a frontier search (search.py) is cut into jobs, with no compiled code so that the
workflow can plan it when it parses: the segments of the rank space, the fan-out of a depth,
the parts of a fanned-out depth, the work files, and the step records that chain the jobs.
"""

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from puzzledb import paths
from puzzledb.errors import PuzzleError
from puzzledb.bfs.memory import segment_merge_bytes
from puzzledb.store.layers import LayerInfo, LayerStore

FANOUT, DONE, LIMIT = "fanout", "done", "limit"  # what a step record says comes next


@dataclass
class StepRecord:
    """What a step of the frontier search did and what comes next: the record
    frontier/step_NNN.json (NNN: `first`), a Snakemake checkpoint's output that the
    workflow follows (Workflow.record_before)."""

    puzzle: str
    definition_hash: str
    first: int  # the first depth the step wrote
    last: int  # the last depth written so far by the chain (first - 1: none)
    layers: list = field(default_factory=list)  # LayerInfo of every layer 0..last
    next: str = DONE  # FANOUT (depth last + 1 to expand and merge jobs), DONE or LIMIT
    parts: int = 0  # FANOUT: expand jobs and merge jobs of depth last + 1
    segments: int = 0
    depth_limit: int | None = None

    def fans_out(self):
        return self.next == FANOUT

    def to_json(self):
        return json.dumps(dict(asdict(self), layers=[asdict(i) for i in self.layers]),
                          indent=1) + "\n"

    @classmethod
    def read(cls, path):
        record = json.loads(Path(path).read_text())
        return cls(**dict(record, layers=[LayerInfo(**x) for x in record["layers"]]))


@dataclass
class FrontierPlan:
    """The frontier search of one puzzle: where its layers and work files go, how the rank
    space is cut, how many states one job expands, and where the search stops."""

    puzzle: object
    directory: Path  # the layer directory, results/<puzzle>/layers
    work: Path  # the work directory, results/<puzzle>/frontier
    segments: int
    job_states: int
    depth_limit: int | None = None

    def __post_init__(self):
        self.directory, self.work = Path(self.directory), Path(self.work)
        if not (self.puzzle.reversible or self.puzzle.graded):
            raise PuzzleError(f"{self.puzzle.name}: the frontier search needs a puzzle whose "
                              f"moves can be undone, or a graded one")
        self.store = LayerStore(self.directory, self.puzzle)

    # -- the cut of the rank space ------------------------------------------------------------
    def level(self, depth):
        return depth if self.puzzle.graded else 0

    def segment_size(self, depth):
        return max(1, math.ceil(self.puzzle.level_size(self.level(depth)) / self.segments))

    def segment_count(self, depth):
        size = self.puzzle.level_size(self.level(depth))
        return math.ceil(size / self.segment_size(depth))

    def segment_range(self, depth, t):
        size = self.segment_size(depth)
        return t * size, min((t + 1) * size, self.puzzle.level_size(self.level(depth)))

    def fan_out(self, count):
        """Jobs of each kind for expanding a layer of `count` states."""
        return int(min(self.segments, max(1, math.ceil(count / self.job_states))))

    @staticmethod
    def share(total, part, parts):
        """The range of 0..total-1 that is part `part` of `parts` equal parts."""
        return range(part * total // parts, (part + 1) * total // parts)

    @staticmethod
    def balanced(weights, part, parts):
        """The range of consecutive indices of weights that is part `part` of `parts`,
        cut where the running total passes each multiple of total / parts (so the parts
        carry about equal weight; a part may be empty)."""
        running = np.cumsum(weights)
        total = int(running[-1]) if running.size else 0
        cut = np.searchsorted(running, [total * k / parts for k in (part, part + 1)],
                              side="right")
        first = 0 if part == 0 else int(cut[0])
        last = len(weights) if part == parts - 1 else int(cut[1])
        return range(first, last)

    # -- the memory of a merge ----------------------------------------------------------------
    def merge_bytes(self, depth, part, parts, expanded):
        """What merge(depth, part, parts, expanded) holds at most besides the process,
        computed from the expanded pieces on disk (segment_merge_bytes of its largest
        segment), so that a job's need is known before it starts."""
        _, received = self._received(depth, expanded)
        older = self._older(depth)
        need = 0
        try:
            for t in self.balanced(received, part, parts):
                if received[t]:
                    low, high = self.segment_range(depth, t)
                    known = sum(b - a for a, b in
                                (layer.positions_between(low, high) for layer in older))
                    need = max(need, segment_merge_bytes(received[t], known, high - low))
        finally:
            for layer in older:
                layer.close()
        return need

    def _received(self, depth, expanded):
        """The expanded pieces in the directories `expanded` (each piece's file and where
        each segment's group starts in it) and the neighbours each segment of depth
        receives from them all (every merge job of a depth cuts its segments alike, by
        these, so that the parts carry about equal work)."""
        pieces = [(path, np.fromfile(path.with_suffix(".offsets"), dtype=np.int64))
                  for directory in expanded for path in sorted(Path(directory).glob("x*.u64"))]
        received = np.zeros(self.segment_count(depth), dtype=np.int64)
        for _, o in pieces:
            received += np.diff(o)
        return pieces, received

    def _older(self, depth):
        """The layers a merge of depth subtracts, open: depth - 1 and depth - 2 (the
        neighbours of layer depth - 1 lie in those and in depth); only depth - 2 when the
        puzzle is bipartite (no neighbour in depth - 1 itself); none when it is graded."""
        if self.puzzle.graded:
            return []
        older = (depth - 2,) if self.puzzle.bipartite else (depth - 1, depth - 2)
        return [self.store.open_layer(d) for d in older if d >= 0]

    # -- paths ----------------------------------------------------------------------------------
    def record_path(self, first):
        return Path(paths.step_record(self.work, first))

    def expand_dir(self, depth, part, parts):
        return Path(paths.expand_output(self.work, depth, part, parts))

    def merge_dir(self, depth, part, parts):
        return Path(paths.merge_output(self.work, depth, part, parts))
