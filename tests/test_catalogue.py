"""The catalogue (docs/blocks.md, "The catalogue"): every board of a box around the goal
piece, its clusters, their farthest boards and Fogleman's minimality, compared with a
plain-Python model of the rules written here (every board of tiny boxes, and the clusters of
a slice of the 5x5 Rush Hour box); bad definitions in one line; the queries."""

from collections import deque
from itertools import count

import numpy as np
import pandas
import pytest

from puzzledb import paths, puzzles
from puzzledb.cli import main
from puzzledb.errors import ConfigError
from puzzledb.puzzles.definitions import build
from puzzledb.report.catalogue import merge, rows, search_part

RUSH = {"family": "blocks", "catalogue": {"pieces": ["2x1", "1x2", "3x1", "1x3"]},
        "axis": "length", "metric": "line"}


class Model:
    """The rules in plain Python: a board is a frozenset of (class, anchor); class 0 the
    goal piece, then the catalogue's shapes; a move slides one piece along a direction its
    class allows, one cell (step) or any distance (line)."""

    def __init__(self, puzzle):
        cat = puzzle.catalogue
        self.cat, self.metric = cat, cat.metric
        self.cells = {k: {a: frozenset(cat.drawing.at(c.shape, a)) for a in c.anchors}
                      for k, c in enumerate(cat.classes)}

    def covered(self, board):
        return set().union(*(self.cells[k][a] for k, a in board))

    def moves(self, board):
        width = self.cat.width
        steps = {0: -width, 1: width, 2: -1, 3: 1}
        for k, a in board:
            rest = self.covered(board - {(k, a)})
            for d in self.cat.classes[k].directions:
                at = a
                while True:
                    row, col = divmod(at, width)
                    nxt = at + steps[d]
                    if d in (2, 3) and nxt // width != row:
                        break
                    if nxt not in self.cells[k] or self.cells[k][nxt] & rest:
                        break
                    yield board - {(k, a)} | {(k, nxt)}
                    at = nxt
                    if self.metric == "step":
                        break

    def solved(self, board):
        return (0, self.cat.goal_anchor(0)) in board

    def order(self, board):
        """Boards compare cell by cell in reading order, a piece's class before empty."""
        code = {}
        for k, a in board:
            for c in self.cells[k][a]:
                code[c] = k
        return tuple(code.get(c, len(self.cat.classes)) for c in range(self.cat.cells))

    def cluster(self, board):
        seen, todo = {board}, deque([board])
        while todo:
            for nxt in self.moves(todo.popleft()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    def depths(self, cluster):
        depth = {b: 0 for b in cluster if self.solved(b)}
        todo = deque(depth)
        while todo:
            b = todo.popleft()
            for nxt in self.moves(b):
                if nxt not in depth:
                    depth[nxt] = depth[b] + 1
                    todo.append(nxt)
        return depth

    def shortest(self, board):
        depth = {board: 0}
        todo = deque([board])
        while todo:
            b = todo.popleft()
            if self.solved(b):
                return depth[b]
            for nxt in self.moves(b):
                if nxt not in depth:
                    depth[nxt] = depth[b] + 1
                    todo.append(nxt)

    def row(self, cluster):
        """(moves, farthest board, states, minimal, counts) of a cluster reaching the goal:
        the farthest board the least in order; minimal by Fogleman's rule with the solution
        that moves, each time, to the least board one nearer."""
        depth = self.depths(cluster)
        most = max(depth.values())
        far = min((b for b in depth if depth[b] == most), key=self.order)
        moved, at, place = set(), far, {p: p for p in far}  # piece (as in far) -> now
        for d in range(most, 0, -1):
            nxt = min((b for b in self.moves(at) if depth[b] == d - 1), key=self.order)
            (gone,), (come,) = at - nxt, nxt - at
            piece = next(p for p, now in place.items() if now == gone)
            place[piece] = come
            moved.add(piece)
            at = nxt
        minimal = all(self.shortest(far - {p}) < most for p in far - moved if p[0] != 0)
        counts = [sum(1 for v in depth.values() if v == d) for d in range(most + 1)]
        return most, far, len(cluster), minimal, counts

    def every_board(self):
        """Every board: the goal piece anywhere in its lane, any pieces of the shapes."""
        cat = self.cat

        def fill(cell, board, covered):
            if cell == cat.cells:
                yield frozenset(board)
                return
            if cell in covered:
                yield from fill(cell + 1, board, covered)
                return
            yield from fill(cell + 1, board, covered)
            for k in range(1, len(cat.classes)):
                where = self.cells[k].get(cell)
                if where is not None and not where & covered:
                    yield from fill(cell + 1, board | {(k, cell)}, covered | where)

        for anchor in cat.classes[0].anchors:
            yield from fill(0, {(0, anchor)}, set(self.cells[0][anchor]))


def kernel_rows(puzzle, tmp_path, jobs=2):
    """The catalogue's rows by the kernels: its jobs' parts, merged, read back."""
    parts = [tmp_path / f"part{j}.npz" for j in range(jobs)]
    for j, part in enumerate(parts):
        search_part(puzzle, j, jobs, part)
    merge(puzzle, parts, tmp_path / "catalogue.csv", tmp_path / "summary.csv")
    return pandas.read_csv(tmp_path / "catalogue.csv", keep_default_na=False)


def model_rows(puzzle, model, boards):
    found, done = [], set()
    for board in boards:
        if board in done:
            continue
        cluster = model.cluster(board)
        done |= cluster
        if any(model.solved(b) for b in cluster):
            most, far, states, minimal, counts = model.row(cluster)
            found.append((most, puzzle.format(puzzle.board(sorted(far, key=lambda p: p[1]),
                                                           [])),
                          states, minimal, " ".join(map(str, counts))))
    return found


@pytest.mark.parametrize("name, goal, pieces, metric, axis", [
    ("rush4", None, None, None, None),
    ("blocks-3x3", "... .XX ...", ["2x1", "1x2", "1x1"], "step", "free"),
    ("lanes-4x3", ".... XX.. ....", ["2x1", "1x2", "1x3"], "line", "length"),
])
def test_every_cluster_of_a_tiny_box_is_the_plain_models(name, goal, pieces, metric, axis,
                                                          tmp_path):
    if name == "rush4":
        puzzle = puzzles.get("rush4")
    else:
        puzzle = build(name, {"family": "blocks", "goal": goal, "metric": metric,
                              "axis": axis, "catalogue": {"pieces": pieces}})
    model = Model(puzzle)
    expected = model_rows(puzzle, model, model.every_board())
    table = kernel_rows(puzzle, tmp_path)
    found = sorted(zip(table.moves, table.board, table.states, table.minimal == True,  # noqa
                       table.counts.astype(str)), key=lambda r: (-r[0], r[1]))
    assert sorted(found) == sorted(
        (m, b, s, bool(mi), c) for m, b, s, mi, c in expected)
    assert list(table.moves) == sorted(table.moves, reverse=True)  # the hardest first


def test_a_slice_of_the_5x5_rush_hour_box_clusters_as_the_plain_model():
    puzzle = puzzles.get("rush5")
    kernels, tables = puzzle.compiled, puzzle.tables()
    walk = kernels.new_walk(tables, 0)
    keys = np.empty((400, tables.empty.size), np.uint64)
    walls = np.empty(400, np.uint64)
    n = kernels.boards(tables, walk, 30_000, 30_400, keys, walls)
    info, far, spans, counts, _, _ = kernels.clusters(
        tables, keys, walls, n, kernels.new_search(tables), kernels.new_search(tables))
    model = Model(puzzle)
    least = {}
    for c in range(n):
        board = frozenset(puzzle.pieces(puzzle.board_of_key(keys[c], walls[c]))[0])
        cluster = model.cluster(board)
        goals = [b for b in cluster if model.solved(b)]
        if min(goals, key=model.order) == board:  # the least board of its cluster
            least[c] = model.row(cluster)
    assert sorted(least) == info[:, 0].tolist()
    for (c, states, most, minimal), key, span in zip(info, far, zip(spans, spans[1:])):
        m, board, size, is_minimal, by_depth = least[c]
        assert (most, states, bool(minimal)) == (m, size, is_minimal)
        assert puzzle.format(puzzle.board_of_key(key, 0)) == puzzle.format(
            puzzle.board(sorted(board, key=lambda p: p[1]), []))
        assert counts[span[0]:span[1]].tolist() == by_depth


@pytest.mark.parametrize("change, message", [
    ({"catalogue": {"pieces": ["2y1"]}}, "unknown shape '2y1'"),
    ({"catalogue": {"pieces": ["XX/.X", "2x1", "2x1"]}}, "'2x1' twice"),
    ({"goal": "XX"}, "no other place in its lane"),
    ({"goal": "......... " * 8}, "more than 64"),
    ({"board": ".... .... ..XX ...."}, "one of the two"),
    ({"catalogue": {"pieces": ["2x1"], "walls": -1}}, "walls"),
    ({"catalogue": {"pieces": ["5x1"]}}, "does not fit the box"),
])
def test_a_bad_catalogue_definition_is_one_line_naming_its_key(change, message):
    definition = {**RUSH, "goal": ".... .... ..XX ....", **change}
    with pytest.raises(ConfigError, match=message) as err:
        build("bad", definition, "config.yaml: define.bad")
    assert "\n" not in str(err.value) and str(err.value).startswith("config.yaml: define.bad.")


def test_the_catalogue_command_draws_the_hardest_puzzles_and_a_board_is_solved(
        tmp_path, capsys):
    rush4 = puzzles.get("rush4")
    results = tmp_path / "results"
    parts = [paths.catalogue_part(results, "rush4", 0, 1)]
    search_part(rush4, 0, 1, parts[0])
    merge(rush4, parts, paths.catalogue(results, "rush4"),
          paths.catalogue_summary(results, "rush4"))
    table = rows(paths.catalogue(results, "rush4"))
    hardest = table[0]
    assert main(["--results", str(results), "catalogue", "rush4", "--moves",
                 hardest["moves"], "--limit", "1"]) == 0
    shown = capsys.readouterr().out
    assert shown.splitlines()[0].startswith(f"{hardest['moves']} moves, ")
    assert " ".join(shown.split("\n\n")[0].splitlines()[1:]) == hardest["board"]
    assert main(["distance", "rush4", hardest["board"]]) == 0
    assert capsys.readouterr().out.strip() == hardest["moves"]
    summary = pandas.read_csv(paths.catalogue_summary(results, "rush4"))
    assert summary.clusters.sum() == len(table)
    assert summary.minimal.sum() == sum(r["minimal"] == "true" for r in table)
    assert all(int(r["moves"]) >= 5 for r in rows(paths.catalogue(results, "rush4"),
                                                   min_moves=5))
