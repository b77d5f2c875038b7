"""What the in-memory engine does with each finished layer: the sink of the build's store
(config `store:`; each kind names its sink, query/kinds.py).  The engine (in_memory.build)
hands every finished layer to one object, so that it never asks which store it fills:

    LayerSink   writes the layer's file (store/layers.py), in a thread of its own while the
                kernels expand the layer into the next one; a rerun resumes after the last
                good layer on disk
    CountSink   keeps the layer's count and a sample of its states (store/counts.py), and
                saves the whole search every few minutes (checkpoint.py) in the same thread;
                a rerun resumes from the last checkpoint
    DistanceSink  the same, on a search that ends with every state's depth as a label in
                its two bits (distances.py), and writes that table (store/distances.py)

The engine's side, in order: search = sink.new_search(); depth = sink.open(search) (resume,
or start from the goals: that layer is then current in the search); for each depth
count = search.expand(depth), sink.settle() (the previous layer's write or checkpoint is
awaited before the search changes), search.advance() and sink.keep(depth + 1, count,
search); at the end sink.finish(search, stopped, **manifest entries), then close()."""

import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from puzzledb.bfs import checkpoint
from puzzledb.bfs.distances import depth_search
from puzzledb.bfs.labels import route_kernels, table_kernels
from puzzledb.bfs.searches import GradedSearch, TwoBitSearch
from puzzledb.compiled import shuffle
from puzzledb.puzzles.symmetric import class_kernels
from puzzledb.store.counts import DEEPEST_STATES, SAMPLE_STATES


def goal_layer(puzzle):
    """Layer 0: the goal ranks, sorted and distinct."""
    return np.unique(puzzle.goal_ranks().astype(np.uint64))


class LayerSink:
    """Every layer written to its file as soon as it is found (the default store)."""

    says = ""  # what the engine's first log line adds about the store

    def __init__(self, puzzle, directory, plan, finished, log=print):
        """plan: the build's select.SearchPlan (its store's class keeps the layers; its
        checkpoint_minutes, for the sinks that checkpoint); finished(depth, count,
        positions=None): called when a layer is final (written, or kept; positions: those
        its keys stand for, when they stand for classes)."""
        self.puzzle = puzzle
        self.directory = directory
        self.store = plan.store.store(directory, puzzle)
        self.finished = finished
        self.log = log
        self.infos = []  # LayerInfo of the layers kept: depths 0..the last
        self.resumed_from = -1  # the deepest layer found on disk (or in a checkpoint)
        self.checkpoints, self.checkpoint_seconds = 0, 0.0
        self._thread = ThreadPoolExecutor(1)
        self._pending = None  # (depth, count, future) of the write under way

    def new_search(self, allocate=True):
        """The search this store keeps (allocate False: a stand-in that only declares its
        kernels, searches.TwoBitSearch)."""
        if self.puzzle.graded:
            return GradedSearch(self.puzzle)
        return TwoBitSearch(self.puzzle, allocate)

    def open(self, search):
        """Resume after the last good layer on disk, or start from the goals; the depth of
        the layer now current in the search."""
        self.infos = self.store.good_layers()
        self.store.prune(len(self.infos))
        self.resumed_from = len(self.infos) - 1
        if self.infos:
            self.log(f"{self.puzzle.name}: resuming after layer {self.infos[-1].depth} found "
                     f"on disk")
            search.reload(self.store, self.infos[-1].depth)
        else:
            goals = goal_layer(self.puzzle)
            search.start(goals)
            self.infos.append(self.store.write_layer(0, [goals], goals.size))
        return self.infos[-1].depth

    def write_kernels(self):
        """What writing a layer calls (loaded with the search's kernels, before its clock):
        the shuffle, and the class sizes that weigh a layer of classes."""
        return shuffle.KERNELS + class_kernels(self.puzzle)

    def query_kernels(self):
        """What the queries of this store will call, as (kernel, arguments) pairs
        (compiled.prepare): compiled by the build, so that a first query only loads them
        (query/database.py's lookups: a route's neighbours, the count of solutions)."""
        if not self.puzzle.reversible:
            return []
        # searched by classes, a route is walked through the positions: their neighbours too
        base = getattr(self.puzzle, "base", None) if self.puzzle.symmetric else None
        return route_kernels(self.puzzle) + (route_kernels(base) if base is not None else [])

    def keep(self, depth, count, search):
        """Layer `depth` (`count` states) is current in the search: write it, by the thread,
        while the search expands it (the kernels and the writer only read its states)."""
        self._pending = (depth, count, self._thread.submit(
            self.store.write_layer, depth, search.current(), count))

    def settle(self):
        """Await the write under way, if any: the search is about to change its states."""
        if self._pending is not None:
            depth, count, job = self._pending
            self._pending = None
            info = job.result()
            self.infos.append(info)
            self.finished(depth, count, info.positions)

    def finish(self, search, stopped, **extra):
        """The manifest, last (its entries beside the layers: `extra`)."""
        return self.store.write_manifest(self.infos, **extra)

    def close(self):
        self._thread.shutdown(wait=True)  # a layer being written is finished, never cut short


class CountSink(LayerSink):
    """Every layer's count and a sample of its states (store/counts.py), the search saved
    every `checkpoint_minutes` (0: after every layer) by the thread, while the kernels
    expand the next layer."""

    says = ", keeping counts only"

    def __init__(self, puzzle, directory, plan, finished, log=print):
        # a graded puzzle is refused before (StoreKind.check, when the plan was made)
        super().__init__(puzzle, directory, plan, finished, log)
        minutes = plan.checkpoint_minutes
        self.interval = float("inf") if minutes is None else 60 * minutes
        self._last = time.perf_counter()

    def new_search(self, allocate=True):
        return TwoBitSearch(self.puzzle, allocate)

    def write_kernels(self):
        return []  # no layer written

    def query_kernels(self):
        return []  # no query of routes: they need the layers

    def open(self, search):
        """Resume from the checkpoint of this puzzle's definition, if there is one, or start
        from the goals (removing the manifest and samples of an earlier build)."""
        self.store.prune(0)
        header = checkpoint.read_header(self.directory, self.puzzle, self.store.kind)
        if header is None:
            checkpoint.remove(self.directory)  # another puzzle's, definition's or store's
            goals = goal_layer(self.puzzle)
            search.start(goals)
            self.infos = [self.store.keep_layer(0, goals.size, goals)]
            return 0
        began = time.perf_counter()
        samples = search.resume(self.directory, header)
        self.resumed_from = header["depth"]
        self.infos = [self.store.keep_layer(d, n, kept)
                      for d, (n, kept) in enumerate(zip(header["counts"], samples))]
        self.log(f"{self.puzzle.name}: resuming after layer {header['depth']} from the "
                 f"checkpoint ({time.perf_counter() - began:.1f} s to read it)")
        return header["depth"]

    def keep(self, depth, count, search):
        """Count and sample the current layer; save the search if a checkpoint is due."""
        self.infos.append(self.store.keep_layer(depth, count,
                                                search.pick(depth, count, SAMPLE_STATES)))
        self.finished(depth, count)
        if time.perf_counter() - self._last >= self.interval:
            self._last = time.perf_counter()
            self._pending = (depth, count, self._thread.submit(
                self._checkpoint, search, depth, list(self.infos)))

    def _checkpoint(self, search, depth, infos):
        began = time.perf_counter()
        size = search.checkpoint(self.directory, self.puzzle, depth, infos, self.store.samples,
                                 self.store.kind)
        return time.perf_counter() - began, size

    def settle(self):
        if self._pending is not None:
            depth, _, job = self._pending
            self._pending = None
            seconds, size = job.result()
            self.checkpoints += 1
            self.checkpoint_seconds += seconds
            self.log(f"{self.puzzle.name}: checkpoint after layer {depth} ({size / 2**30:,.2f} "
                     f"GiB) written in {seconds:.1f} s beside the search")

    def finish(self, search, stopped, **extra):
        """The deepest layer kept whole (up to DEEPEST_STATES: its antipodes) unless a depth
        limit stopped the search, the store's last files, samples.h5 and the manifest; the
        checkpoint removed."""
        if not stopped:
            last = self.infos[-1]
            self.infos[-1] = self.store.keep_layer(
                last.depth, last.count, search.pick(last.depth, last.count, DEEPEST_STATES))
        self.write_table(search)
        manifest = self.store.write_manifest(self.infos, checkpoints=self.checkpoints, **extra)
        checkpoint.remove(self.directory)
        return manifest

    def write_table(self, search):
        """What the store keeps of the search's array at the end: nothing here."""


class DistanceSink(CountSink):
    """As CountSink, on a search whose two bits end as each state's depth label
    (distances.py), which it writes as the table (store/distances.py) before the manifest."""

    says = ", keeping counts and distances"

    def new_search(self, allocate=True):
        return depth_search(self.puzzle, allocate)

    def query_kernels(self):
        return table_kernels(self.puzzle)

    def keep(self, depth, count, search):
        """As CountSink's; a search whose checkpoint cannot be written while it expands
        (checkpoint_beside false) waits for it."""
        super().keep(depth, count, search)
        if not search.checkpoint_beside:
            self.settle()

    def write_table(self, search):
        labels = search.labels()
        began = time.perf_counter()
        entry = self.store.write_table(search.state.words, labels)
        self.log(f"{self.puzzle.name}: distance table ({entry['bytes'] / 2**30:,.2f} GiB, "
                 f"depth modulo {labels.modulus}) written in {time.perf_counter() - began:.1f} s")

