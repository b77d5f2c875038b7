"""The catalogue (docs/blocks.md, "The catalogue"): every board of a box around the goal
piece, its clusters, their farthest boards and Fogleman's minimality, compared with a
plain-Python model of the rules written here (every board of tiny boxes, and the clusters of
a slice of the 5x5 Rush Hour box); bad definitions in one line; the queries."""

import csv
import io
import re
import subprocess
import sys
from collections import deque
from itertools import count, islice
from math import comb

import numpy as np
import pandas
import pytest
import yaml

from puzzledb import paths, puzzles
from puzzledb.cli import main
from puzzledb.config import check_config
from puzzledb.errors import ConfigError, StorageError
from puzzledb.puzzles.blocks.catalogue.split import SPLIT, job_of, units_of
from puzzledb.puzzles.definitions import build
from puzzledb.report.catalogue import merge, rows, search_part

from checkers import breadth_first
from conftest import ROOT, assert_one_line_error, puzzledb_cli, run_snakemake

RUSH = {"family": "blocks", "catalogue": {"pieces": ["2x1", "1x2", "3x1", "1x3"]},
        "axis": "length", "metric": "line"}


class Model:
    """The rules in plain Python: a board is a frozenset of (class, anchor); class 0 the
    goal piece, then the catalogue's shapes; a move slides one piece along a direction its
    class allows, one cell (step) or any distance (line)."""

    def __init__(self, puzzle):
        cat = puzzle.catalogue
        self.cat, self.metric, self.lanes = cat, cat.metric, puzzle.lanes is not None
        self.cells = {k: {a: frozenset(cat.drawing.at(c.shape, a)) for a in c.anchors}
                      for k, c in enumerate(cat.classes)}

    def across(self, k):
        return self.cat.classes[k].directions == (2, 3)

    def solver_order(self, piece):
        """Fogleman's solver's order of a catalogue of bars' pieces: the goal piece, then
        the others line by line (the rows top first, then the columns), in a line in order."""
        k, a = piece
        row, col = divmod(a, self.cat.width)
        line = row if self.across(k) else self.cat.drawing.height + col
        return (k != 0, line, a)

    def covered(self, board):
        return set().union(*(self.cells[k][a] for k, a in board))

    def moves(self, board):
        width = self.cat.width
        steps = {0: -width, 1: width, 2: -1, 3: 1}
        for k, a in sorted(board, key=self.solver_order):
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
        """Boards compare cell by cell in reading order, a piece's class before empty; in
        a catalogue of bars as Fogleman's do: the cells of the rows' bars as a binary
        number (cell c its bit c), then those of the columns'."""
        if self.lanes:
            masks = [sum(1 << c for k, a in board if self.across(k) == across
                         for c in self.cells[k][a]) for across in (True, False)]
            return tuple(masks)
        code = {}
        for k, a in board:
            for c in self.cells[k][a]:
                code[c] = k
        return tuple(code.get(c, len(self.cat.classes)) for c in range(self.cat.cells))

    def cluster(self, board):
        return set(breadth_first([board], self.moves))

    def depths(self, cluster):
        return breadth_first([b for b in cluster if self.solved(b)], self.moves)

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
        that moves, each time, to the least board one nearer (in a catalogue of bars, by
        the first move one nearer in his solver's order)."""
        depth = self.depths(cluster)
        most = max(depth.values())
        far = min((b for b in depth if depth[b] == most), key=self.order)
        moved, at, place = set(), far, {p: p for p in far}  # piece (as in far) -> now
        for d in range(most, 0, -1):
            nearer = [b for b in self.moves(at) if depth[b] == d - 1]
            nxt = nearer[0] if self.lanes else min(nearer, key=self.order)
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
    merge(puzzle, parts, tmp_path / "catalogue.csv", tmp_path / "summary.csv",
          tmp_path / "totals.csv")
    return pandas.read_csv(tmp_path / "catalogue.csv", keep_default_na=False, dtype={"counts": str})


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
    # kernels of its own (pieces moved along any path): about 140 s of CPU on a fresh cache
    pytest.param("blocks-3x3", "... .XX ...", ["2x1", "1x2", "1x1"], "step", "free",
                 marks=pytest.mark.slow),
    ("lanes-4x3", ".... XX.. ....", ["2x1", "1x2", "1x3"], "line", "length"),
    # columns longer than the rows are wide: their cells gathered in two chunks (lanes.py)
    ("lanes-3x4", "... .XX ... ...", ["2x1", "1x2", "1x3"], "line", "length"),
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


def test_rows_of_the_5x5_rush_hour_box_are_the_plain_models(tmp_path):
    """The lanes' layouts searched by two jobs: the hardest rows and a sample of the others
    each the plain model's row of its board's cluster."""
    puzzle = puzzles.get("rush5")
    table = kernel_rows(puzzle, tmp_path)
    model = Model(puzzle)
    sample = pandas.concat([table.head(40), table.sample(160, random_state=5)])
    for row in sample.itertuples():
        board = frozenset(puzzle.pieces(puzzle.parse(row.board))[0])
        most, far, states, minimal, counts = model.row(model.cluster(board))
        assert (row.moves, row.states, bool(row.minimal), str(row.counts)) == \
            (most, states, minimal, " ".join(map(str, counts)))
        assert row.board == puzzle.format(puzzle.board(sorted(far, key=lambda p: p[1]), []))


@pytest.mark.parametrize("name, goal", [
    ("rush6", None),
    ("rush-3x5", "... ... .XX ... ..."),  # columns longer than rows: gathered in chunks
])
def test_a_lines_moves_by_its_pattern_are_the_moves_whose_cells_are_empty(name, goal):
    """The lane tables' second listing of the moves (by the pattern of the line's cells
    covered, lanes.py) against the first (each move's cells to find empty): every line,
    content, digit and pattern; and the pattern's gathering against cell by cell."""
    puzzle = puzzles.get(name) if goal is None else build(name, {**RUSH, "goal": goal})
    lanes = puzzle.lanes
    t = lanes.tables()
    most = t.mask.shape[1]
    for i, line in enumerate(lanes.lines):
        for pattern in range(1 << len(line)):
            cells = sum(1 << c for k, c in enumerate(line) if pattern >> k & 1)
            gathered = sum(((((cells >> int(s)) & int(sp)) * int(m) % 2**64) >> int(dr) &
                            int(mk)) << int(at) for s, sp, m, dr, mk, at in t.gather[i])
            assert gathered == pattern
            for c in range(t.content_first[i], t.content_first[i + 1]):
                for d in range(t.radix[c]):
                    expected = [int(t.move_target[m]) for m in range(t.move_first[c, d],
                                                                     t.move_first[c, d + 1])
                                if not int(t.move_require[m]) & cells]
                    x = (c * most + d) * t.patterns + pattern
                    assert t.legal_target[t.legal_first[x]:t.legal_first[x + 1]].tolist() \
                        == expected


def fogleman_space(model, board):
    """Whether a board is in Fogleman's space: no other piece in the goal piece's row, no
    row full of horizontal pieces, no column full of vertical ones."""
    width, height = model.cat.width, model.cat.drawing.height
    goal_row = model.cat.goal_anchor(0) // width
    lines = {}
    for k, a in board:
        row, col = divmod(a, width)
        line = ("row", row) if model.across(k) else ("column", col)
        lines.setdefault(line, []).append(k)
    return not (len(lines.get(("row", goal_row), [])) > 1 or any(
        sum(len(model.cat.classes[k].shape) for k in ks) ==
        (width if kind == "row" else height) for (kind, _), ks in lines.items()))


def test_fogleman_space_is_the_plain_models_boards_without_his_exclusions(tmp_path):
    puzzle = build("rush4f", {**RUSH, "goal": ".... .... ..XX ....",
                              "catalogue": {**RUSH["catalogue"], "space": "fogleman"}})
    model = Model(puzzle)
    expected = model_rows(puzzle, model, (b for b in model.every_board()
                                          if fogleman_space(model, b)))
    table = kernel_rows(puzzle, tmp_path)
    assert sorted(zip(table.moves, table.board, table.states, table.minimal.astype(bool),
                      table.counts.astype(str))) == sorted(expected)
    (tmp_path / "every").mkdir()
    every = kernel_rows(puzzles.get("rush4"), tmp_path / "every")
    assert 0 < len(table) < len(every) and set(table.board) < set(every.board)


@pytest.mark.parametrize("name, goal, pieces, metric, axis, space", [
    ("rush4", None, None, None, None, "every"),
    ("rush4f", ".... .... ..XX ....", RUSH["catalogue"]["pieces"], "line", "length",
     "fogleman"),
    ("blocks-3x3", "... .XX ...", ["2x1", "1x2", "1x1"], "step", "free", "every"),
    ("lanes-3x4", "... .XX ... ...", ["2x1", "1x2", "1x3"], "line", "length", "every"),
])
def test_the_box_totals_are_the_plain_models_count_of_every_board_and_cluster(
        name, goal, pieces, metric, axis, space, tmp_path):
    """catalogue_totals.csv: the boards of the box (every board listed by the model, in
    Fogleman's space those it keeps), the clusters reaching the goal, their boards and the
    largest."""
    puzzle = puzzles.get(name) if goal is None else build(name, {
        "family": "blocks", "goal": goal, "metric": metric, "axis": axis,
        "catalogue": {"pieces": pieces, "space": space}})
    model = Model(puzzle)
    boards = [b for b in model.every_board()
              if space == "every" or fogleman_space(model, b)]
    reaching = [row[2] for row in model_rows(puzzle, model, boards)]
    kernel_rows(puzzle, tmp_path)
    assert pandas.read_csv(tmp_path / "totals.csv").to_dict("records") == [{
        "boards": len(boards), "clusters_reaching": len(reaching),
        "boards_reaching": sum(reaching), "boards_not_reaching": len(boards) - sum(reaching),
        "largest_reaching": max(reaching)}]


def test_the_box_with_walls_counts_each_board_with_every_set_of_walls_leaving_the_goal_open():
    """Up to `walls` walls on the empty cells of a board, none under the goal piece at its
    goal: the model's boards, each with every such set of walls."""
    puzzle = build("walled-3x3", {"family": "blocks", "goal": "#.. .XX ...", "metric": "step",
                                  "axis": "free", "catalogue": {"pieces": ["1x2", "1x1"],
                                                                "walls": 2}})
    model = Model(puzzle)
    goal_open = model.cells[0][puzzle.catalogue.goal_anchor(0)]
    free = set(range(puzzle.catalogue.cells)) - puzzle.catalogue.drawing.walls - goal_open
    expected = sum(comb(len(free - model.covered(b)), w)
                   for b in model.every_board() for w in range(3))
    assert puzzle.box_boards() == expected


@pytest.mark.parametrize("jobs, total", [(1, 5), (2, 10), (3, 10), (4, 7), (7, 100),
                                         (8, 7776), (97, 7776)])
def test_the_jobs_units_are_every_unit_once_and_as_many_to_one(jobs, total):
    shares = [list(units_of(job, jobs, total)) for job in range(jobs)]
    assert sorted(u for share in shares for u in share) == list(range(total))
    assert all(share == sorted(share) for share in shares)
    assert max(map(len, shares)) - min(map(len, shares)) <= 1
    assert all(job_of(u, jobs) == job for job, share in enumerate(shares) for u in share)
    # a catalogue whose units are counted as they are met: the same, read as a stream
    assert [u for u in islice(units_of(jobs - 1, jobs), len(shares[-1]))] == shares[-1]


def test_blocks_of_a_few_candidates_dealt_to_three_jobs_give_the_plain_models_clusters(
        tmp_path, monkeypatch):
    """The block search's share (split.py over blocks counted as the walk meets them), with
    blocks of 4 candidates so that each job takes many: every cluster once, as the model."""
    from puzzledb.puzzles.blocks.catalogue import job_blocks

    monkeypatch.setattr(job_blocks, "BLOCK", 4)
    puzzle = build("blocks-3x3", {"family": "blocks", "goal": "... .XX ...", "metric": "step",
                                  "axis": "free", "catalogue": {"pieces": ["2x1", "1x2", "1x1"]}})
    model = Model(puzzle)
    table = kernel_rows(puzzle, tmp_path, jobs=3)
    assert sorted(zip(table.moves, table.board, table.states)) == sorted(
        (m, b, s) for m, b, s, _, _ in model_rows(puzzle, model, model.every_board()))
    assert all(int(np.load(tmp_path / f"part{j}.npz")["candidates"]) > 4 for j in range(3))


def test_the_split_no_longer_gives_one_job_the_odd_units():
    """Units alternately small and large (as the rows' contents make Rush Hour's): two
    jobs' shares by split.py differ by a few per cent, where j, j + J, ... gives one job
    all the large ones."""
    sizes = np.tile([1, 3], 5000)
    work = [sizes[list(units_of(job, 2, sizes.size))].sum() for job in range(2)]
    assert max(work) / min(work) < 1.05
    assert sizes[1::2].sum() / sizes[0::2].sum() == 3


def test_the_merge_refuses_parts_of_two_splits_in_one_line(tmp_path):
    rush4 = puzzles.get("rush4")
    parts = {jobs: [tmp_path / f"part{j}of{jobs}.npz" for j in range(jobs)] for jobs in (2, 3)}
    for jobs, paths_ in parts.items():
        for j, part in enumerate(paths_):
            search_part(rush4, j, jobs, part)
    outputs = [tmp_path / f"out.{x}" for x in ("csv", "summary.csv", "totals.csv")]
    with pytest.raises(StorageError, match=r"part2of3\.npz: made under split "
                       rf"{SPLIT} of 3 jobs, .*part0of2\.npz under split {SPLIT} of 2 jobs: "
                       r"merge the parts of one split") as err:
        merge(rush4, parts[2] + parts[3][2:], *outputs)
    assert "\n" not in str(err.value)
    with pytest.raises(StorageError, match=r"part1of2\.npz: job 1's part again"):
        merge(rush4, parts[2] + parts[2][1:], *outputs)
    old = dict(np.load(parts[2][1]))  # a part made before the split was recorded
    for key in ("split", "job", "jobs"):
        del old[key]
    np.savez(tmp_path / "old.npz", **old)
    with pytest.raises(StorageError, match="old.npz: made under no recorded split"):
        merge(rush4, [parts[2][0], tmp_path / "old.npz"], *outputs)
    assert not any(path.exists() for path in outputs)
    merge(rush4, parts[3], *outputs)  # one split: merged
    assert outputs[0].exists()


def plain_table(puzzle, parts):
    """catalogue.csv as Python's csv module writes the parts' rows (the formatter's
    reference): by moves, the most first, then by key; each board drawn by the puzzle."""
    read = [dict(np.load(p)) for p in parts]
    rows_ = [(int(m), puzzle.format(puzzle.board_of_key(f, w)), int(s),
              "true" if mi else "false", " ".join(map(str, c.tolist())), tuple(f.tolist()))
             for p in read for m, f, w, s, mi, c in zip(
                 p["moves"], p["far"], p["walls"], p["states"], p["minimal"],
                 np.split(p["counts"], p["spans"][1:-1]))]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("moves", "board", "states", "minimal", "counts"))
    writer.writerows(r[:5] for r in sorted(rows_, key=lambda r: (-r[0], r[5])))
    return out.getvalue()


@pytest.mark.parametrize("name, goal, pieces, walls", [
    ("rush4", None, None, 0),
    ("blocks-3x3", "... .XX ...", ["2x1", "1x2", "1x1"], 0),
    ("walled-3x3", "#.. .XX ...", ["1x2", "1x1"], 1),
])
def test_the_compiled_table_is_what_the_csv_module_writes(name, goal, pieces, walls,
                                                          tmp_path):
    puzzle = puzzles.get("rush4") if name == "rush4" else build(name, {
        "family": "blocks", "goal": goal, "metric": "step", "axis": "free",
        "catalogue": {"pieces": pieces, "walls": walls}})
    kernel_rows(puzzle, tmp_path)
    parts = [tmp_path / f"part{j}.npz" for j in range(2)]
    assert (tmp_path / "catalogue.csv").read_text() == plain_table(puzzle, parts)


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
          paths.catalogue_summary(results, "rush4"), paths.catalogue_totals(results, "rush4"))
    table = rows(paths.catalogue(results, "rush4"))
    hardest = table[0]
    assert main(["--results", str(results), "catalogue", "rush4", "--moves",
                 hardest["moves"], "--limit", "1"]) == 0
    shown = capsys.readouterr().out
    assert shown.splitlines()[0].startswith(f"{hardest['moves']} moves, ")
    assert " ".join(shown.split("\n\n")[0].splitlines()[1:]) == hardest["board"]
    assert main(["distance", "rush4", hardest["board"]]) == 0
    assert capsys.readouterr().out.strip() == hardest["moves"]
    assert main(["--results", str(results), "catalogue", "rush4", "--summary"]) == 0
    totals = pandas.read_csv(paths.catalogue_totals(results, "rush4")).iloc[0]
    assert capsys.readouterr().out.splitlines() == [
        f"rush4: {totals.boards:,} boards in the box",
        f"{len(table):,} clusters reach the goal, holding {totals.boards_reaching:,} boards; "
        f"the largest {max(int(r['states']) for r in table):,}",
        f"{totals.boards_not_reaching:,} boards in clusters that cannot reach the goal (not "
        f"searched: those clusters are not counted)"]
    summary = pandas.read_csv(paths.catalogue_summary(results, "rush4"))
    assert summary.clusters.sum() == len(table)
    assert summary.minimal.sum() == sum(r["minimal"] == "true" for r in table)
    assert all(int(r["moves"]) >= 5 for r in rows(paths.catalogue(results, "rush4"),
                                                   min_moves=5))


def test_a_config_of_catalogues_alone_plans_only_the_catalogues_jobs(tmp_path):
    """puzzles: [] beside catalogues: the dry run lists the catalogue's jobs and no other
    (no search, no report page: there is no database to show)."""
    config = {"puzzles": [], "catalogues": ["rush4"], "catalogue_jobs": {"rush4": 2},
              "results": str(tmp_path / "results")}
    check_config(dict(config))
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    result = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--snakefile",
                             str(ROOT / "Snakefile"), "--directory", str(tmp_path)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    stats = result.stdout.split("Job stats:")[1].split("\n\n")[0]
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", stats, re.MULTILINE))
    assert jobs == {"catalogue_part": "2", "catalogue": "1", "all": "1", "total": "4"}
    # the command line reads the same file as the workflow does
    listed = puzzledb_cli("--config", str(tmp_path / "config.yaml"), "info", "rush4")
    assert listed.returncode == 0, listed.stderr


def test_a_config_with_no_puzzle_and_no_catalogue_is_one_line_naming_puzzles(tmp_path):
    with pytest.raises(ConfigError, match=r"^config: puzzles: empty, and no catalogues") as err:
        check_config({"puzzles": []})
    assert "\n" not in str(err.value)
    result = run_snakemake(tmp_path, {"puzzles": []}, "-n", check=False)
    assert_one_line_error(result, "config.yaml: puzzles: empty, and no catalogues")
