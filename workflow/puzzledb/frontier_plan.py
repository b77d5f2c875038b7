"""How a frontier search (frontier.py) is cut into jobs, with no compiled code so that the
workflow can plan it when it parses: the segments of the rank space, the fan-out of a depth,
the parts of a fanned-out depth, the work files, and the step records that chain the jobs.
"""

import json
import math
from dataclasses import dataclass
from pathlib import Path

from .errors import PuzzleError


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

    def part(self, depth, part, parts):
        """The segments of a part: a range of consecutive segments of depth's level."""
        n = self.segment_count(depth)
        return range(part * n // parts, (part + 1) * n // parts)

    # -- paths ----------------------------------------------------------------------------------
    def record_path(self, first):
        return self.work / f"step_{first:03d}.json"

    def expand_dir(self, depth, part, parts):
        return self.work / f"d{depth:03d}" / f"expand_{part}of{parts}"

    def merge_dir(self, depth, part, parts):
        return self.work / f"d{depth:03d}" / f"merge_{part}of{parts}"

    def read_record(self, first):
        """The record of the step that starts at depth `first`."""
        return json.loads(self.record_path(first).read_text())
