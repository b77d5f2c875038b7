"""The default `snakemake` run, checked against the seeds' published figures, and its
reports."""

import base64
import html
import json
import re
import zipfile
from pathlib import Path

import h5py
import numpy as np
import pytest

from puzzledb.report import analysis
from puzzledb import puzzles
from puzzledb.query.database import DepthDatabase

from seed_figures import (
    EIGHT_HARD,
    EIGHT_HARD_DISTANCE,
    EIGHT_HARD_SOLUTIONS,
    EIGHT_STATES,
    FIFTEEN_3COLOUR_DEEPEST,
    FIFTEEN_3COLOUR_LAYERS,
    FIFTEEN_6COLOUR_DEEPEST,
    FIFTEEN_6COLOUR_LAYERS,
)
from checkers import is_slide
from conftest import ROOT, default_config, puzzledb_cli, read_csv_as_pandas_does, run_snakemake


def summary_counts(results, name):
    """The counts of a summary.csv, as pandas reads it with every default."""
    table = read_csv_as_pandas_does(results / name / "summary.csv")
    assert list(table.columns) == ["depth", "count", "cumulative"]
    assert table["depth"].tolist() == list(range(len(table)))
    assert table["cumulative"].tolist() == table["count"].cumsum().tolist()
    return table["count"].tolist()


def test_fifteen_6colour_has_5765760_states_in_the_seeds_layer_counts(results):
    counts = summary_counts(results, "fifteen-6colour")
    assert sum(counts) == 5_765_760
    assert counts == FIFTEEN_6COLOUR_LAYERS


def test_fifteen_6colour_deepest_layer_is_58_with_one_position(results):
    assert len(summary_counts(results, "fifteen-6colour")) - 1 == 58
    boards = (results / "fifteen-6colour" / "antipodes.txt").read_text().splitlines()
    assert boards == FIFTEEN_6COLOUR_DEEPEST


def test_fifteen_3colour_has_12108096_states_in_the_seeds_layer_counts(results):
    counts = summary_counts(results, "fifteen-3colour")
    assert sum(counts) == 16 * 3003 * 252 == 12_108_096
    assert counts == FIFTEEN_3COLOUR_LAYERS


def test_fifteen_3colour_deepest_layer_is_57_with_two_positions(results):
    assert len(summary_counts(results, "fifteen-3colour")) - 1 == 57
    boards = (results / "fifteen-3colour" / "antipodes.txt").read_text().splitlines()
    assert sorted(boards) == sorted(FIFTEEN_3COLOUR_DEEPEST)


def test_eight_has_181440_states(results):
    assert sum(summary_counts(results, "eight")) == EIGHT_STATES


def test_eight_867_254_301_is_31_moves_away_with_40_optimal_solutions(results):
    with DepthDatabase.open("eight", results) as db:
        assert db.distance(EIGHT_HARD) == EIGHT_HARD_DISTANCE
        assert db.count_solutions(EIGHT_HARD) == EIGHT_HARD_SOLUTIONS


def test_solve_prints_a_valid_31_move_solution_of_867_254_301(results):
    out = puzzledb_cli("--results", str(results), "solve", "eight", EIGHT_HARD)
    assert out.returncode == 0, out.stderr
    boards = out.stdout.splitlines()
    assert boards[0] == EIGHT_HARD and boards[-1] == "123 456 780"
    assert len(boards) == 32
    assert all(is_slide(a, b, 3) for a, b in zip(boards, boards[1:]))


def test_cli_distance_and_count_answer_from_the_layers(results):
    out = puzzledb_cli("--results", str(results), "distance", "fifteen-6colour",
                       "0665 6666 6666 4231")
    assert (out.returncode, out.stdout) == (0, "58\n")
    out = puzzledb_cli("--results", str(results), "count", "eight", "867254301")
    assert (out.returncode, out.stdout) == (0, "40\n")


def test_a_fifteen_3colour_solution_descends_one_layer_per_move(results):
    with DepthDatabase.open("fifteen-3colour", results) as db:
        boards = db.solve(FIFTEEN_3COLOUR_DEEPEST[0])
        assert len(boards) == 58
        assert all(is_slide(a, b, 4) for a, b in zip(boards, boards[1:]))
        assert [db.distance(b) for b in boards] == list(range(57, -1, -1))


@pytest.mark.parametrize("name", ["fifteen-6colour", "fifteen-3colour", "eight"])
def test_layer_files_hold_sorted_uint64_ranks_and_the_contract_attributes(results, name):
    layers = sorted((results / name / "layers").glob("depth_*.h5"))
    assert [p.name for p in layers] == [f"depth_{d:03d}.h5" for d in range(len(layers))]
    for depth in (0, len(layers) // 2, len(layers) - 1):
        with h5py.File(layers[depth]) as f:
            ranks = f["ranks"][:]
            assert ranks.dtype == np.uint64
            assert np.all(ranks[1:] > ranks[:-1])
            assert (f.attrs["puzzle"], f.attrs["depth"], f.attrs["count"]) == (
                name, depth, ranks.size)


def test_sample_draws_positions_at_the_requested_depth(results):
    with DepthDatabase.open("eight", results) as db:
        ranks = db.positions_at(20, count=5, seed=3)
        boards = [puzzles.get("eight").decode(r) for r in ranks]
        assert len(set(boards)) == 5
        assert all(db.distance(b) == 20 for b in boards)
        assert db.boards_at(20, count=5, seed=3) == boards  # the same, decoded


def test_a_layer_reads_with_plain_h5py_as_through_the_store(results):
    import h5py

    with h5py.File(results / "eight" / "layers" / "depth_020.h5") as f:
        ranks, index = f["ranks"][:], f["index"][:]
    with DepthDatabase.open("eight", results) as db:
        assert np.array_equal(ranks, db.layer(20).ranks())
    assert np.array_equal(index, ranks[::65536])  # the first rank of each chunk


def test_plots_and_report_are_written(results):
    for name in ("fifteen-6colour", "fifteen-3colour", "eight"):
        png = (results / name / "depth_distribution.png").read_bytes()
        assert png.startswith(b"\x89PNG")
    report = (results / "report.html").read_text()
    assert "0665 6666 6666 4231" in report and "12,108,096" in report


def test_summary_is_computed_from_the_layer_files(results):
    with DepthDatabase.open("eight", results) as db:
        rows = db.summary()
    assert rows[-1] == (31, 2, 181_440)
    assert analysis.read_summary(results / "eight" / "summary.csv") == rows


def test_the_opt_in_verify_rule_reads_every_layer_back_and_leaves_its_summary(results):
    # the default run again, with verify: true; only the verify jobs are left to run
    run_snakemake(results.parent, {**default_config(results), "verify": True})
    for name, layers, states in (("eight", 32, "181,440"), ("fifteen-6colour", 59, "5,765,760"),
                                 ("fifteen-3colour", 58, "12,108,096")):
        summary = (results / name / "verified.txt").read_text().splitlines()
        assert len(summary) == 1
        assert summary[0].startswith(f"{name}: verified {layers} layers (depths 0..{layers - 1}),"
                                     f" {states} states")
        assert (results / name / "benchmarks" / "verify.tsv").exists()


CAPTIONS = ROOT / "workflow" / "report"


def first_paragraph(rst):
    """A caption's first paragraph, its whitespace made single spaces."""
    return " ".join(rst.split("\n\n")[0].split())


def as_text(rendered):
    """An HTML fragment's text: tags dropped, entities read, whitespace made single spaces."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", rendered)).split())


def report_variable(page, name):
    """A JSON variable of Snakemake's report page (results, categories)."""
    found = re.search(rf'<script id="{name}">\s*var {name} = (.*?);\s*</script>', page, re.S)
    return json.loads(found.group(1))


def test_snakemake_report_zip_files_each_puzzles_plot_and_tables_under_its_name(results,
                                                                                  tmp_path):
    archive = tmp_path / "report.zip"
    run_snakemake(results.parent, default_config(results), "--report", str(archive))
    with zipfile.ZipFile(archive) as z:
        page = z.read("report/report.html").decode()
        categories = report_variable(page, "categories")
        files = report_variable(page, "results")
        captions = {"depth_distribution.png": "depth_distribution.rst",
                    "summary.csv": "summary.rst", "antipodes.txt": "antipodes.rst",
                    "report.html": "report_page.rst"}
        for name in ("fifteen-6colour", "fifteen-3colour", "eight"):
            layers = categories[name]["layers"]
            assert sorted(Path(p).name for p in layers) == sorted(captions.keys() - {"report.html"})
            assert {Path(p).parent.name for p in layers} == {name}
        assert [Path(p) for p in categories["all puzzles"]["Other"]] == [results / "report.html"]
        assert len(files) == 3 * 3 + 1
        for path, entry in files.items():
            # the archived file is the result itself, and its caption's text is with it
            assert z.read(f"report/{entry['data_uri']}") == Path(path).read_bytes()
            caption = (CAPTIONS / captions[Path(path).name]).read_text()
            assert first_paragraph(caption) in as_text(entry["caption"])
    description = (CAPTIONS / "workflow.rst").read_text()
    assert first_paragraph(description) in as_text(json.loads(
        re.search(r"var workflow_desc = (.*?);\n", page).group(1)))


@pytest.mark.slow
def test_report_html_stands_alone_and_keeps_the_databases_of_an_earlier_run(tmp_path):
    results = tmp_path / "results"
    run_snakemake(tmp_path, {"puzzles": ["eight"], "results": str(results), "problem_sets": [
        {"puzzle": "eight", "queries": "blank-at-goal", "k": 24, "per_distance": 1}]})
    run_snakemake(tmp_path, {"puzzles": ["hoppers"], "results": str(results)})
    page = (results / "report.html").read_text()
    links = re.findall(r"(?:src|href)='([^']*)'", page)
    assert links and all(link.startswith(("data:", "#")) for link in links)
    images = re.findall(r"<img src='data:image/png;base64,([^']*)'", page)
    assert sorted(base64.b64decode(image) for image in images) == sorted(
        (results / name / "depth_distribution.png").read_bytes() for name in ("eight", "hoppers"))
    # this run's puzzle first, then the earlier run's, its problem set with it
    assert page.index("<h2 id='hoppers'>") < page.index("<h2 id='eight'>")
    assert "<a href='#eight'>eight</a>: 181,440 positions (left by an earlier run)" in page
    assert "Problem set eight: blank-at-goal, matched against layers 0..24" in page
    problem_file = re.search(r"download='blank-at-goal_k24.txt' href='data:text/plain;"
                             r"charset=utf-8;base64,([^']*)'", page).group(1)
    assert base64.b64decode(problem_file) == (
        results / "eight" / "problems" / "blank-at-goal_k24.txt").read_bytes()
