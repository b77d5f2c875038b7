"""The race against twsearch (benchmarks/race_twsearch.py) derives two of its definitions from
twsearch's own files at run time: the 2x2x3 block (the pieces two faces never move told
apart, the rest identical with '?' twists) and the FTO without its centres (sets taken out).
Here both transformations on the project's own example definitions, read back by a plain
BFS written here and by puzzledb; and the build log read as the race reads it."""

import importlib

import pytest

from conftest import ROOT
from puzzledb.puzzles.permutation.puzzle import PermutationPuzzle

EXAMPLES = ROOT / "workflow/puzzledb/puzzles/permutation/examples"


@pytest.fixture
def race(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    return importlib.import_module("race_twsearch")


def positions_with_wildcards(text):
    """The positions reachable from Solved, read plainly: a piece's label and twist per slot,
    a '?' twist never counted (it stays '?'); every move of order k applied as often as
    needed, so the count does not depend on the metric."""
    words = [line.split("#")[0].split() for line in text.splitlines()]
    words = [w for w in words if w]
    sets = {w[1]: int(w[3]) for w in words if w[0] == "Set"}
    blocks, i = {}, 0
    while i < len(words):
        if words[i][0] in ("Solved", "Move"):
            key, rows, i = " ".join(words[i]), {}, i + 1
            while words[i][0] != "End":
                name, i = words[i][0], i + 1
                rows[name] = []
                while i < len(words) and (words[i][0][0].isdigit() or words[i][0] == "?"):
                    rows[name].append(words[i])
                    i += 1
            blocks[key] = rows
        i += 1
    start = tuple((tuple(rows[0]), tuple(rows[1])) for rows in blocks.pop("Solved").values())
    moves = [[([int(x) - 1 for x in rows[0]], [int(x) for x in rows[1]]) for rows in b.values()]
             for b in blocks.values()]

    def turned(state, move):
        out = []
        for (labels, twists), (perm, turn), k in zip(state, move, sets.values()):
            out.append((tuple(labels[p] for p in perm),
                        tuple("?" if twists[p] == "?" else str((int(twists[p]) + turn[p]) % k)
                              for p in perm)))
        return tuple(out)

    seen, todo = {start}, [start]
    while todo:
        state = todo.pop()
        for move in moves:
            following = turned(state, move)
            if following not in seen:
                seen.add(following)
                todo.append(following)
    return len(seen)


def test_the_2x2x3_transformation_tells_apart_the_corners_u_and_r_never_move(race):
    derived = race.named_block((EXAMPLES / "corners.tws").read_text(), ("U", "R"))
    solved = derived.split("Solved")[1].split("End")[0].split()
    # slots UFL UFR UBR UBL DFL DFR DBR DBL: DFL and DBL are the block's, on the D and L side
    assert solved == ["CORNERS", "3", "3", "3", "3", "1", "3", "3", "2",
                      "?", "?", "?", "?", "0", "?", "?", "0"]
    assert derived.split("End", 1)[1] == (EXAMPLES / "corners.tws").read_text().split(
        "End", 1)[1]  # every move as it was


def test_the_derived_block_reaches_each_placement_and_twist_of_its_two_corners(race):
    derived = race.named_block((EXAMPLES / "corners.tws").read_text(), ("U", "R"))
    assert positions_with_wildcards(derived) == 8 * 7 * 3 ** 2


def test_taking_the_pyraminx_centres_out_leaves_its_edges_and_tips_whole(race):
    text = race.without_sets((EXAMPLES / "pyraminx.tws").read_text(), ("CENTERS",))
    assert "CENTERS" not in text
    puzzle = PermutationPuzzle("no-centres", text=text)
    assert puzzle.size == 720 // 2 * 2 ** 5 * 3 ** 4  # the edges' and the tips' factors


def test_a_build_log_gives_its_table_and_depth_zero_from_depth_ones_total(race):
    peer = importlib.import_module("twsearch_peer")
    log = "p: depth 1: 16 states, 18 in all, 0.2 s\np: depth 2: 208 states, 226 in all\n"
    assert peer.layer_counts(log) == [2, 16, 208]
    tw = "Dist 0 cnt 1 tot 1 in 0.1\nDist 1 cnt 16 tot 17 in 0.2\nDist 2 cnt 0 tot 17 in 0\n"
    assert peer.twsearch_counts(tw) == [1, 16]
    assert peer.compare([1, 16, 208], [1, 16]) == "equal to depth 1"
    assert peer.compare([1, 15], [1, 16, 5]) == "DIFFER at depth 1"


def test_a_twsearch_run_stopped_by_the_time_limit_gives_a_lower_bound(race):
    import twsearch_peer as peer

    def run(seconds, cut=""):
        return (0.5, peer.Run(seconds, seconds, 10.0, 0 if not cut else -9, "", "", cut))

    stopped = {"twsearch": [run(1100.0, "time limit")], "puzzledb": [run(500.0)],
               "workflow": []}
    row = race.summary_row("big", [1, 5], None, stopped, "equal to depth 1")
    assert row[4] == "over 1100.00 (stopped, time limit)"
    assert row[5] == "at least 2.20x"
    finished = {"twsearch": [run(1100.0, "time limit"), run(900.0)], "puzzledb": [run(450.0)],
                "workflow": []}
    row = race.summary_row("big", [1, 5], None, finished, "equal")
    assert (row[4], row[5]) == ("900.00", "2.00x")
    neither = {"twsearch": [run(10.0, "stopped")], "puzzledb": [], "workflow": []}
    assert race.summary_row("big", [], None, neither, "-")[4:6] == ["-", "-"]
