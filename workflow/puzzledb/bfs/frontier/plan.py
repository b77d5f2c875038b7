"""How a frontier search (search.py and its parts) is cut into jobs, compiling nothing, so
that the workflow can plan it when it parses: the segments of the rank space, the fan-out of
a depth, the parts of a fanned-out depth, the work files, and the step records that chain
the jobs.
"""

import json
import math
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from puzzledb import keys, paths
from puzzledb.bfs.modes import FRONTIER, MODES
from puzzledb.bfs.memory import MERGE_WINDOW, merge_base_bytes, segment_merge_bytes
from puzzledb.bfs.frontier.workindex import WorkIndex, work_files
from puzzledb.store.directory import LayerInfo
from puzzledb.store.layers import LayerStore
from puzzledb.store.parts import MAX_PARTS

FANOUT, DONE, LIMIT = "fanout", "done", "limit"  # what a step record says comes next
# A reference layer balances the segments (FrontierPlan.cuts) when it holds at least this
# many states per segment; and no segment spans more than SPAN_LIMIT equal segments' ranks.
BALANCE_STATES = 64
SPAN_LIMIT = 4


@dataclass
class StepRecord:
    """What a step of the frontier search did and what comes next: the record
    frontier/step_NNN.json (NNN: `first`), a Snakemake checkpoint's output that the
    workflow follows (rules/frontier.py, FrontierRules.records)."""

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
        return json.dumps(dict(asdict(self), layers=[i.listed() for i in self.layers]),
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
        MODES[FRONTIER].check(self.puzzle)
        self.store = LayerStore(self.directory, self.puzzle)
        self._cuts = {}  # depth -> its segments' cuts (cuts)

    # -- the cut of the rank space ------------------------------------------------------------
    def level(self, depth):
        return depth if self.puzzle.graded else 0

    def cuts(self, depth):
        """Where the segments of depth start: int64 cuts[0] = 0 < cuts[1] < ... < cuts[-1] =
        the level's size (segment t: ranks cuts[t] .. cuts[t + 1] - 1); for keys of several
        words, the values of their first word (segment t: the keys whose first word is
        cuts[t] .. cuts[t + 1] - 1).

        Balanced by the layer whose ranks are spread as depth's will be, its reference
        (_reference): the segments are cut at its quantiles, so that each holds about an equal
        share of it, and then each cut in two or more where it spans more than SPAN_LIMIT
        equal segments' ranks (a region the reference has not reached yet may fill at this
        depth).  With no reference (the first depths, a graded puzzle),
        equal ranges of ranks.  Every job of a depth computes the same cuts from the same
        file, and does it once (they are kept)."""
        if depth not in self._cuts:
            self._cuts[depth] = self._balanced_cuts(depth)
        return self._cuts[depth]

    def _balanced_cuts(self, depth):
        size = self.puzzle.key_bounds(self.level(depth))[0]  # a key's first word's values
        equal = np.unique(np.linspace(0, size, self.segments + 1).astype(np.int64))
        reference = self._reference(depth)
        if reference is None:
            return equal
        with self.store.open_layer(reference) as layer:
            count = layer.count
            if count < BALANCE_STATES * self.segments:
                return equal
            wanted = np.arange(1, self.segments, dtype=np.int64) * count // self.segments
            positions, ranks = layer.sampled()
            if positions.size >= 4 * self.segments:  # the index is fine enough
                at = np.minimum(np.searchsorted(positions, wanted), positions.size - 1)
                quantiles = keys.prefix(ranks)[at]
            else:  # the keys at those positions (each chunk decoded once)
                quantiles = np.array([keys.prefix(layer.ranks(w, w + 1))[0] for w in wanted])
        cuts = np.unique(np.concatenate([[0], quantiles.astype(np.int64), [size]]))
        widest = SPAN_LIMIT * -(-size // self.segments)  # ceil
        extra = [np.arange(cuts[i] + widest, cuts[i + 1], widest)
                 for i in np.flatnonzero(np.diff(cuts) > widest)]
        return np.unique(np.concatenate([cuts, *extra]))

    def _reference(self, depth):
        """The depth whose layer's ranks balance depth's segments: depth - 2 for a bipartite
        puzzle (the same side of the graph: a sliding puzzle's blank on the same cells),
        depth - 1 otherwise; None for a graded puzzle (another level) or before it exists."""
        if self.puzzle.graded:
            return None
        reference = depth - 2 if self.puzzle.bipartite else depth - 1
        return reference if reference >= 0 else None

    def segment_count(self, depth):
        return self.cuts(depth).size - 1

    def segment_range(self, depth, t):
        cuts = self.cuts(depth)
        return int(cuts[t]), int(cuts[t + 1])

    def segment_lookup(self, depth):
        """(lookup, shift) for kernels.segment_of: the rank space in at most 2^16 buckets of
        2^shift ranks, lookup[b] the segment of bucket b's first rank (one more entry, the
        last segment, closes it)."""
        cuts = self.cuts(depth)
        shift = max(0, int(cuts[-1] - 1).bit_length() - 16)
        starts = np.arange(((int(cuts[-1]) - 1) >> shift) + 2, dtype=np.int64) << shift
        lookup = np.searchsorted(cuts, starts, side="right") - 1
        return np.minimum(lookup, cuts.size - 2).astype(np.int64), shift

    def fan_out(self, count):
        """Jobs of each kind for expanding a layer of `count` states (at most the segments,
        and at most the MAX_PARTS parts a layer file maps)."""
        return int(min(self.segments, MAX_PARTS, max(1, math.ceil(count / self.job_states))))

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
        computed from the indexes of the expanded pieces on disk (segment_merge_bytes of its
        largest segment, MERGE_WINDOW + 1 times: the segments in flight and the one being
        written), and what it holds whatever its segments (merge_base_bytes), so that a
        job's need is known before it starts."""
        received = self.received(depth, [WorkIndex(path) for path in work_files(expanded)])
        need = 0
        with self.older_layers(depth) as older:
            for t in self.balanced(received, part, parts):
                if received[t]:
                    low, high = self.segment_range(depth, t)
                    known = sum(b - a for a, b in
                                (layer.positions_between(low, high) for layer in older))
                    need = max(need, segment_merge_bytes(received[t], known, high - low,
                                                         8 * self.puzzle.key_words))
        return ((MERGE_WINDOW + 1) * need
                + merge_base_bytes(self.puzzle.key_words, len(self.older_depths(depth))))

    def received(self, depth, pieces):
        """The distinct neighbours each segment of depth receives from the expanded pieces
        (each a workindex.WorkIndex, such as a workfiles.PieceFile), as int64 per segment:
        every merge job of a depth cuts its segments alike, by these, so that the parts
        carry about equal work."""
        received = np.zeros(self.segment_count(depth), dtype=np.int64)
        for piece in pieces:
            received += piece.received
        return received

    @contextmanager
    def older_layers(self, depth):
        """The layers a merge of depth subtracts, open for the block: depth - 1 and
        depth - 2 (the neighbours of layer depth - 1 lie in those and in depth); only
        depth - 2 when the puzzle is bipartite (no neighbour in depth - 1 itself); none when
        it is graded."""
        with ExitStack() as stack:
            yield [stack.enter_context(self.store.open_layer(d))
                   for d in self.older_depths(depth)]

    def older_depths(self, depth):
        """The depths of the layers a merge of depth subtracts (older_layers)."""
        older = () if self.puzzle.graded else (
            (depth - 2,) if self.puzzle.bipartite else (depth - 1, depth - 2))
        return [d for d in older if d >= 0]

    # -- paths ----------------------------------------------------------------------------------
    def record_path(self, first):
        return Path(paths.step_record(self.work, first))

    def depth_work(self, depth):
        return Path(paths.depth_work(self.work, depth))

    def expand_dir(self, depth, part, parts):
        return Path(paths.expand_output(self.work, depth, part, parts))

    def merge_dir(self, depth, part, parts):
        return Path(paths.merge_output(self.work, depth, part, parts))
