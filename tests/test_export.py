"""`puzzledb export`: the layers as a table of rank, depth and board (and a class's size),
as Parquet and CSV, checked against a plain breadth-first search over board strings that
shares no code with the puzzles, the engines or the store."""

import sys

import pandas
import pytest
import yaml

from conftest import assert_one_line_error, cli_in_process
from puzzledb import puzzles

# A 4x2 sliding puzzle (8!/2 = 20,160 positions, 37 layers): every layer exported in a
# second or two, its plain search in a fraction of one.
FOUR_BY_TWO = {"family": "sliding", "width": 4, "height": 2, "goal": "1234 5670"}


def plain_search(goal, width):
    """{board without spaces: its distance from goal} of every board a slide at a time
    reaches, by a breadth-first search over strings."""
    cells = len(goal)
    near = [[n for n in range(cells) if abs(n // width - c // width)
             + abs(n % width - c % width) == 1] for c in range(cells)]
    depth, frontier = {goal: 0}, [goal]
    while frontier:
        following = []
        for board in frontier:
            blank = board.index("0")
            for n in near[blank]:
                cells_now = list(board)
                cells_now[blank], cells_now[n] = cells_now[n], "0"
                moved = "".join(cells_now)
                if moved not in depth:
                    depth[moved] = depth[board] + 1
                    following.append(moved)
        frontier = following
    return depth


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A directory whose config.yaml defines the 4x2 puzzle (puzzles registered before the
    test are restored after it)."""
    monkeypatch.setattr(puzzles, "_defined", dict(puzzles._defined))
    monkeypatch.setattr(puzzles, "_cache", dict(puzzles._cache))
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(
        {"puzzles": ["four-by-two"], "define": {"four-by-two": FOUR_BY_TWO}}))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def read(path, fmt):
    """An exported file as pandas reads it with its defaults (Parquet through pyarrow)."""
    return pandas.read_parquet(path) if fmt == "parquet" else pandas.read_csv(path)


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_every_board_of_the_4x2_puzzle_is_exported_once_at_the_depth_a_plain_search_gives(
        home, capsys, fmt):
    assert cli_in_process(capsys, "results", "build", "four-by-two")[0] == 0
    status, out, err = cli_in_process(capsys, "results", "export", "four-by-two", "--format",
                                      fmt, "--output", f"table.{fmt}")
    assert status == 0, err
    assert out == [f"four-by-two: 20,160 positions of depths 0..36 written to table.{fmt} "
                   + out[0].split(f"table.{fmt} ")[1]]
    table = read(home / f"table.{fmt}", fmt)
    assert list(table.columns) == ["rank", "depth", "board"]
    expected = plain_search("12345670", 4)
    found = dict(zip(table["board"].str.replace(" ", ""), table["depth"]))
    assert len(found) == len(table) == len(expected) == 20_160
    assert found == expected
    # in depth then rank order, and each rank the board's own
    assert list(table["depth"]) == sorted(table["depth"])
    assert all(group.is_monotonic_increasing for _, group in table.groupby("depth")["rank"])
    puzzle = puzzles.get("four-by-two")
    assert all(puzzle.rank(puzzle.parse(b)) == r for b, r in
               zip(table["board"][::997], table["rank"][::997]))


def test_one_layer_is_exported_with_depth(home, capsys):
    cli_in_process(capsys, "results", "build", "four-by-two")
    status, _, err = cli_in_process(capsys, "results", "export", "four-by-two", "--depth",
                                    "36", "--format", "csv", "--output", "deepest.csv")
    assert status == 0, err
    deepest = sorted(b for b, d in plain_search("12345670", 4).items() if d == 36)
    table = pandas.read_csv(home / "deepest.csv")
    assert sorted(table["board"].str.replace(" ", "")) == deepest
    assert set(table["depth"]) == {36}


def test_a_database_searched_by_classes_exports_a_row_per_class_with_its_size(tmp_path,
                                                                             capsys):
    """The 8-puzzle by the frontier search up to its transpose: each layer's classes, their
    sizes summing to the plain search's layer."""
    root = tmp_path / "results"
    assert cli_in_process(capsys, root, "build", "eight", "--shards", "2", "--symmetry",
                          "classes")[0] == 0
    output = tmp_path / "eight.parquet"
    for depth in (0, 1, 30, 31):
        assert cli_in_process(capsys, root, "export", "eight", "--depth", str(depth),
                              "--format", "parquet", "--output", str(output))[0] == 0
        table = pandas.read_parquet(output)
        assert list(table.columns) == ["rank", "depth", "board", "size"]
        layer = {b for b, d in plain_search("123456780", 3).items() if d == depth}
        assert set(table["board"].str.replace(" ", "")) <= layer
        assert table["size"].sum() == len(layer) and set(table["size"]) <= {1, 2}
    assert table["size"].tolist() == [2]  # the two deepest positions, one class


@pytest.mark.parametrize("args, fragment", [
    (["export", "no-such-puzzle"], "unknown puzzle 'no-such-puzzle'"),
    (["export", "eight"], "no complete database of eight"),
    (["export", "four-by-two", "--depth", "37"], "four-by-two: no layer 37 (depths are 0..36)"),
    (["export", "four-by-two", "--depth", "-1"], "no layer -1"),
])
def test_an_export_that_cannot_be_made_is_a_one_line_error_and_writes_nothing(
        home, capsys, args, fragment):
    cli_in_process(capsys, "results", "build", "four-by-two")
    result = cli_in_process(capsys, "results", *args, "--format", "csv", "--output", "t.csv")
    assert_one_line_error(result, fragment)
    assert not (home / "t.csv").exists()
    assert sorted(p.name for p in home.iterdir()) == ["config.yaml", "results"]


def test_a_database_without_layers_refuses_the_export(home, capsys):
    cli_in_process(capsys, "results", "build", "four-by-two", "--store", "counts")
    result = cli_in_process(capsys, "results", "export", "four-by-two", "--format", "csv",
                            "--output", "t.csv")
    assert_one_line_error(result, "four-by-two: this database keeps counts only (store: "
                                  "counts)")
    assert not (home / "t.csv").exists()


def test_parquet_without_pyarrow_says_what_to_install(home, capsys, monkeypatch):
    cli_in_process(capsys, "results", "build", "four-by-two")
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow now fails
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    result = cli_in_process(capsys, "results", "export", "four-by-two", "--format",
                            "parquet", "--output", "t.parquet")
    assert_one_line_error(result, "--format parquet needs pyarrow: pip install "
                                  "'puzzledb[parquet]'")
    assert not (home / "t.parquet").exists()
    # CSV needs nothing more
    assert cli_in_process(capsys, "results", "export", "four-by-two", "--format", "csv",
                          "--output", "t.csv")[0] == 0


def test_a_layer_is_read_and_written_a_chunk_at_a_time(home, capsys, monkeypatch):
    """What an export holds is bounded by ROWS, not by a layer: with chunks of 1,000 rows,
    the 4x2's widest layer is written as row groups of 1,000 rows and what is left."""
    import pyarrow.parquet

    from puzzledb.report import export

    cli_in_process(capsys, "results", "build", "four-by-two")
    monkeypatch.setattr(export, "ROWS", 1000)
    depths = list(plain_search("12345670", 4).values())
    widest = max(range(37), key=depths.count)
    assert cli_in_process(capsys, "results", "export", "four-by-two", "--depth", str(widest),
                          "--format", "parquet", "--output", "t.parquet")[0] == 0
    groups = pyarrow.parquet.ParquetFile(home / "t.parquet").metadata
    sizes = [groups.row_group(g).num_rows for g in range(groups.num_row_groups)]
    rows = depths.count(widest)
    assert rows > 1000 and sizes == [1000] * (rows // 1000) + [rows % 1000] * (rows % 1000 > 0)
