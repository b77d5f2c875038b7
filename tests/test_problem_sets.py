"""The mitm rule: a problem set from config.yaml, computed by meet-in-the-middle against the
goal layers 0..k, agrees with the full database, and its problem file replays."""

import csv
from collections import Counter

import numpy as np
import pytest

from conftest import read_csv_as_pandas_does, run_snakemake
from puzzledb.query import matching, problems
from puzzledb import puzzles
from puzzledb.query.database import DepthDatabase

pytestmark = pytest.mark.slow  # runs the workflow


def test_eight_blank_at_goal_problem_set_from_layers_to_24_matches_the_full_database(tmp_path):
    config = {
        "puzzles": ["eight"],
        "results": str(tmp_path / "results"),
        "problem_sets": [{"puzzle": "eight", "queries": "blank-at-goal", "k": 24,
                          "per_distance": 3}],
    }
    run_snakemake(tmp_path, config)
    out = tmp_path / "results" / "eight" / "problems"
    puzzle = puzzles.get("eight")
    queries = matching.query_set(puzzle, "blank-at-goal")
    assert queries.size == 20_160  # 8!/2 positions with the blank bottom right
    full = DepthDatabase(puzzle, tmp_path / "results" / "eight" / "layers").depths(queries)
    with open(out / "blank-at-goal_k24_distribution.csv") as f:
        table = {int(r["distance"]): int(r["count"]) for r in csv.DictReader(f)}
    assert table == dict(Counter(full.tolist()))
    frame = read_csv_as_pandas_does(out / "blank-at-goal_k24_distribution.csv")
    assert dict(zip(frame["distance"], frame["count"])) == table
    assert max(table) == 30 and table[30] == 45
    assert problems.check_problem_file(out / "blank-at-goal_k24.txt", puzzle) == 3 * 3
    lengths = [p.length for p in problems.read_problems(out / "blank-at-goal_k24.txt")]
    assert sorted(set(lengths)) == [26, 28, 30]  # distances beyond k = 24 only
    assert (tmp_path / "results" / "eight" / "benchmarks" / "mitm_blank-at-goal_k24.tsv").exists()
    assert np.all(full >= 0)
    report = (tmp_path / "results" / "report.html").read_text()
    assert "Problem set eight: blank-at-goal, matched against layers 0..24" in report
