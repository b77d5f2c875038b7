"""Every command README.md and the user guide (docs/, but its reference pages) show, and every
example in `puzzledb --help`, runs here as a user would type it, and its output is compared
where the page shows one: an example cannot rot.

The commands are read from the pages themselves: the lines of their ```sh blocks and the `$ `
lines of their ```console blocks (the lines after a `$ ` line are that command's output).  A
command that cannot run in the suite is listed below with the reason (NOT_RUN), or with the
cheaper commands run in its place (INSTEAD); a command that is neither run nor listed, a block
of commands in no known place, or a listed command no page shows any longer fails
test_every_command_of_the_guide_is_run_here_or_listed_with_its_reason.

`puzzledb` runs in-process (cli.main, in the user's directory); `snakemake` runs the
checkout's Snakefile (`--snakefile` added: the guide's user runs it in the checkout).  A
command may end in `| wc -l` or `| tail -N`, applied to what it prints on stdout.
"""

import ast
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass

import pytest
import yaml

from checkers import replay_peg_moves
from conftest import ROOT
from puzzledb import paths, puzzles
from puzzledb.cli import _parser, main
from puzzledb.query.database import DepthDatabase
from puzzledb.query.problems import parse_problem, replay

# The reference pages: the package's design and the lab's records, whose commands are not a
# user's (the benchmarks' scripts on other machines' paths): not read here.
REFERENCE = {"architecture.md", "benchmarks.md", "changelog.md"}


def pages():
    """The pages whose commands run here: README.md, then the guide's, relative to the root."""
    guide = sorted(p.name for p in (ROOT / "docs").glob("*.md") if p.name not in REFERENCE)
    return ["README.md"] + [f"docs/{name}" for name in guide]


# Commands not run, with the reason.
NOT_RUN = {
    "pip install -e . && snakemake --cores 4":
        "installs the package (the suite runs from an installed checkout); the snakemake "
        "run is the session fixture `results` (the default config.yaml, --cores 2)",
    'pip install -e ".[test]" && python -m pytest':
        "installs the test extras and runs this very suite",
    "snakemake --cores 4 pdbs":
        "builds the 7-8 and 6-6-3 tables, six minutes and 1.5 GB; the fixture `pdbs_663` "
        "runs `snakemake pdbs` for the 6-6-3 tables, which the commands after it use",
    "snakemake --cores 2 pdbs --config 'pdbs={\"twentyfour\": [\"6-6-6-6\"]}'":
        "builds the 24-puzzle's four tables, 4 minutes and 1.3 GB a job: "
        "benchmarks/bench_twentyfour.py --build; tests/test_partitions.py builds tables of "
        "partitions given as groups on small boards",
    "puzzledb solve twentyfour --batch korf-felner.txt --goal \"$(seq -s ' ' 0 24)\" "
    "--threads 2":
        "needs the 24-puzzle's tables and minutes of search: benchmarks/bench_twentyfour.py; "
        "tests/test_partitions.py runs --batch --threads 2 on a 5x2 board",
    'pip install -e ".[slurm]"':
        "installs the SLURM plugin (network; without a SLURM controller it makes every "
        "snakemake command wait about 9 s)",
    "snakemake --executor slurm --workflow-profile workflow/profiles/slurm":
        "needs a SLURM cluster: tests/cluster/run-on-local-slurm.sh starts a one-node SLURM "
        "and runs a sharded build through this profile",
    "tests/cluster/run-on-local-slurm.sh --nodes 2 --kill-node":
        "needs root: installs slurm-wlm and starts munged, slurmctld and two slurmd (3 to 5 "
        "minutes); tests/test_cluster_script.py checks the slurm.conf it writes for N nodes",
    "snakemake --cores 2 --config 'puzzles=[]' 'catalogues=[rush5]' "
    "'catalogue_jobs={\"rush5\": 2}'":
        "about 30 s of search; test_the_catalogue_runs_as_the_guide_shows runs the "
        "rule's two jobs and its merge (report.catalogue, what the rules' scripts call) "
        "into the user's results/ for the commands after it, and tests/test_catalogue.py "
        "compares them with a plain-Python model",
    "snakemake --cores 2 --config 'puzzles=[]' 'catalogues=[rush6-fogleman]' "
    "'catalogue_jobs={\"rush6-fogleman\": 8}'":
        "over an hour on two cores: benchmarks/bench_catalogue.py whole runs the same jobs "
        "and merge (docs/changelog.md); test_the_rush_hour_queries_run_as_the_guide_shows "
        "builds the unit of work its query needs",
    "puzzledb peg-solutions triangle-corner --one":
        "15 s of search; the solution it shows is replayed by the rules instead "
        "(test_your_own_puzzle_runs_as_the_guide_shows)",
    "puzzledb info trapentrix":
        "twsearch's samples/main/trapentrix.tws, which the project does not hold; "
        "test_permutation.py's test_the_group_order_bounds_the_reachable_set checks the line "
        "on a file of its own",
    "python benchmarks/twsearch_samples.py --twsearch /path/to/twsearch":
        "needs a checkout of twsearch (its samples), which the project does not hold",
    "python benchmarks/twsearch_samples.py --twsearch https://github.com/rokicki/twsearch":
        "fetches twsearch's repository (network)",
    "python benchmarks/twsearch_samples.py --markdown":
        "reads twsearch's samples and the builds' results of the lines above",
    "python benchmarks/twsearch_samples.py --build --time-limit 600":
        "builds every sample of twsearch's checkout, hours",
}

# Commands run in a cheaper form: a page's command -> (commands run instead, reason).
INSTEAD = {
    'puzzledb solve fifteen "d68c fe0a b745 9132" --heuristic '
    'manhattan,pdb:fifteen-6colour,pdb:fifteen-3colour': (
        ['puzzledb solve fifteen "1438 7260 59bc aedf" --heuristic '
         'manhattan,pdb:fifteen-6colour,pdb:fifteen-3colour'],
        "Korf's instance 1 with the coloured databases expands 7 million nodes (13 to 60 s); "
        "the same bounds on a 28-move board"),
    "snakemake --cores 2": (
        ["puzzledb build ten", "puzzledb build flip-five", "puzzledb build triangle-corner"],
        "the three databases with their analyses and report take 1.5 minutes; the commands "
        "after it read the databases, which `puzzledb build` (what the workflow's bfs rule "
        "runs) builds in seconds"),
}

# Commands run whose output shown is not compared: (page, command) -> the reason.
UNCOMPARED = {
    ("docs/solvers.md", 'puzzledb solve fifteen "d68c fe0a b745 9132"'):
        "it shows the 7-8 tables' answer, which the suite does not build (six minutes); "
        "in the user's directory the 6-6-3 tables answer it, checked by CHECKS",
    ("docs/solvers.md", 'puzzledb solve fifteen --batch korf100.txt --goal '
                        '"0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15"'):
        "it shows the 100 instances with the 7-8 tables; korf100.txt here holds the first "
        "three, their lengths checked by CHECKS",
}

# The place each block of commands runs in, by its page, its section and its first command:
# "user" (the default config, its databases and the 6-6-3 tables built, and the files the
# commands name), "export" (the 8-puzzle's database alone), "own" (the config of "Your own
# puzzle"), "bad-definition" (that config with ten's goal one cell short, as the block's
# output shows), "twisty" (the checkout, where the 2x2x2's definition file is, with the
# cube2 config of "A first twisty puzzle"), "bad-twisty" (the config of "Declaring one" with
# a 2x2x2 file whose line 21 is not a permutation), "cube3" (the 3x3x3 written whole),
# "blocks" (the Rush Hour card config), "catalogue", "rush6", "symmetry", "stores", None
# (every command of the block NOT_RUN).
PERMUTATION_FILES = "python benchmarks/twsearch_samples.py --twsearch /path/to/twsearch"
BLOCKS = {
    ("README.md", "Quick start", "pip install -e . && snakemake --cores 4"): None,
    ("README.md", "Quick start", 'puzzledb distance eight "867 254 301"'): "user",
    ("README.md", "Tests", 'pip install -e ".[test]" && python -m pytest'): None,
    ("docs/big-spaces.md", "Up to symmetry",
     "puzzledb --results sym build eight --shards 2 --symmetry classes"): "symmetry",
    ("docs/big-spaces.md", "What each store keeps: big spaces on one machine",
     "puzzledb --results tables build fifteen-3colour --store distances"): "stores",
    ("docs/big-spaces.md", "Running on a cluster", 'pip install -e ".[slurm]"'): None,
    ("docs/big-spaces.md", "Running on a cluster",
     "tests/cluster/run-on-local-slurm.sh --nodes 2 --kill-node"): None,
    ("docs/blocks.md", "A first sliding-block puzzle", "puzzledb build klotski"): "blocks",
    ("docs/blocks.md", "Every puzzle of a box: a first catalogue",
     "snakemake --cores 2 --config 'puzzles=[]' 'catalogues=[rush5]' "
     "'catalogue_jobs={\"rush5\": 2}'"): "catalogue",
    ("docs/blocks.md", "Every puzzle of a box: a first catalogue",
     "snakemake --cores 2 --config 'puzzles=[]' 'catalogues=[rush6-fogleman]' "
     "'catalogue_jobs={\"rush6-fogleman\": 8}'"): "rush6",
    ("docs/blocks.md", "The designer's question", "puzzledb design klotski"): "blocks",
    ("docs/definitions.md", "Three worked definitions", "snakemake --cores 2"): "own",
    ("docs/definitions.md", "A bad definition", "snakemake -n"): "bad-definition",
    ("docs/files.md", "Data out",
     "puzzledb export eight --format parquet --output eight.parquet"): "export",
    ("docs/install.md", "Install", "pip install -e . && snakemake --cores 4"): None,
    ("docs/install.md", "Tests", 'pip install -e ".[test]" && python -m pytest'): None,
    ("docs/install.md", "The kernel cache", "puzzledb compile eight fifteen-3colour"): "user",
    ("docs/permutation.md", "A first twisty puzzle", "puzzledb build cube2"): "twisty",
    ("docs/permutation.md", "The format", "puzzledb --config config.yaml info cube2"):
        "bad-twisty",
    ("docs/permutation.md", "Metrics", "puzzledb solve cube2 \"R U' F2\""): "twisty",
    ("docs/permutation.md", "The rank", "puzzledb info cube2"): "twisty",
    ("docs/permutation.md", "The rank", "puzzledb info trapentrix"): None,
    ("docs/permutation.md", "The rank", "puzzledb info cube3"): "cube3",
    ("docs/permutation.md", "The 3x3x3 written whole",
     "puzzledb build cube3 --depth-limit 6 --threads 2"): "cube3",
    ("docs/permutation.md", "twsearch's own files: the acceptance table", PERMUTATION_FILES):
        None,
    ("docs/queries.md", "Every query", 'puzzledb distance fifteen-3colour "3033 2331 2211 2211"'):
        "user",
    ("docs/queries.md", "The 15- and 24-puzzle, optimally", "snakemake --cores 4 pdbs"): "user",
    ("docs/queries.md", "The 15- and 24-puzzle, optimally",
     "snakemake --cores 2 pdbs --config 'pdbs={\"twentyfour\": [\"6-6-6-6\"]}'"): None,
    ("docs/solvers.md", "Tree search: IDA* and iterative deepening",
     'puzzledb solve eight "867 254 301" --search ida'): "user",
    ("docs/solvers.md", "Additive pattern databases: the 15-puzzle in milliseconds",
     "snakemake --cores 4 pdbs"): "user",
    ("docs/solvers.md", "Batch solving and other goals",
     'puzzledb solve fifteen --goal "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15" '
     '"14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"'): "user",
    ("docs/solvers.md", "The 24-puzzle",
     "snakemake --cores 2 pdbs --config 'pdbs={\"twentyfour\": [\"6-6-6-6\"]}'"): "user",
}

# Placeholders of the examples in `puzzledb --help`, and what the test puts there.
PLACEHOLDERS = {"<puzzle>": "eight"}

# Files the guide's commands name, written into the user's directory: a few easy boards
# (their distances: 0, 1, 28 moves) and the first three of Korf's 100
# (benchmarks/korf100.tsv, their published lengths 57, 55, 59).
BOARDS = {"1234 5678 9abc def0": 0, "1234 5678 9abc de0f": 1, "1438 7260 59bc aedf": 28}
KORF_GOAL = "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15"
KORF_FIRST_THREE = 3


@dataclass
class Command:
    text: str  # as the page writes it, its comment left out
    shown: list  # the output lines the page shows ([]: none shown)


@dataclass
class Block:
    page: str
    section: str
    kind: str  # sh or console
    commands: list

    @property
    def key(self):
        return self.page, self.section, self.commands[0].text


def without_comment(line):
    text = re.sub(r"\s+#\s.*$", "", line).strip()
    assert shlex.split(text) == shlex.split(line, comments=True), line  # no '#' misread
    return text


# The kinds of fenced block a page may hold: commands (sh, console), what they read (yaml,
# python), pictures and formats (text, or no kind).
KINDS = {"sh", "console", "yaml", "python", "text", ""}


def fenced_blocks():
    """(page, section, kind, lines) of every fenced block of the pages, in order; a block's
    section is the `## ` heading above it (the page's title before the first)."""
    found = []
    for page in pages():
        lines, section = iter((ROOT / page).read_text().splitlines()), None
        for line in lines:
            if line.startswith("# ") and section is None or line.startswith("## "):
                section = line.lstrip("#").strip()
            fence = re.fullmatch(r"```(\S*)", line)
            if fence:
                body = []
                for inner in lines:
                    if inner.startswith("```"):
                        break
                    body.append(inner)
                found.append((page, section, fence.group(1), body))
    return found


def command_blocks():
    """The pages' blocks of commands (```sh and ```console), in order."""
    blocks = []
    for page, section, kind, body in fenced_blocks():
        commands = []
        if kind == "sh":
            text = "\n".join(body).replace("\\\n", " ")  # continued lines
            commands = [Command(without_comment(b), []) for b in text.splitlines()
                        if b.strip() and not b.lstrip().startswith("#")]
        elif kind == "console":
            for b in body:
                if b.startswith("$ "):
                    commands.append(Command(without_comment(b[2:]), []))
                else:
                    commands[-1].shown.append(b)
        if commands:
            blocks.append(Block(page, section, kind, commands))
    return blocks


def subcommands(parser):
    """name -> parser of each `puzzledb` command."""
    [action] = [a for a in parser._actions if isinstance(getattr(a, "choices", None), dict)]
    return action.choices


def help_commands():
    """The `puzzledb ...` examples of `puzzledb --help` and of each command's --help, their
    placeholders filled in."""
    parser = _parser()
    texts = [parser.format_help()] + [p.format_help() for p in subcommands(parser).values()]
    found = []
    for text in texts:
        for span in re.findall(r"`([^`]+)`", text):
            span = " ".join(span.split())  # argparse wraps lines
            if span.startswith("puzzledb "):
                for placeholder, value in PLACEHOLDERS.items():
                    span = span.replace(placeholder, value)
                found.append(span)
    return found


def matches(shown, lines):
    """Whether output lines are those a page shows: line for line, a line `...` standing
    for any lines, `...` within a line for any text, and a time in seconds (`0.3 s`) for any
    time."""
    pattern = ""
    for line in shown:
        if line.strip() == "...":
            pattern += r"(?:.*\n)*?"
            continue
        parts = []
        for piece in line.split("..."):
            times = re.split(r"\d+(?:\.\d+)? s\b", piece)
            parts.append(r"\d+(?:\.\d+)? s\b".join(re.escape(t) for t in times))
        pattern += ".*?".join(parts) + r"\n"
    return re.fullmatch(pattern, "".join(f"{line}\n" for line in lines)) is not None


# What a command's stdout may be piped into: `| wc -l`, `| tail -N`.
FILTERS = {"wc": lambda lines, n: [str(len(lines))],
           "tail": lambda lines, n: lines[len(lines) - n:]}


def piped(argv):
    """(the command's own argv, the filters its stdout goes through)."""
    parts, filters = [[]], []
    for word in argv:
        if word == "|":
            parts.append([])
        else:
            parts[-1].append(word)
    for program, *options in parts[1:]:
        assert program in FILTERS and len(options) == 1, f"no filter {program} {options}"
        filters.append((FILTERS[program], int(options[0].lstrip("-l") or 0)))
    return parts[0], filters


def run(text, home, capsys):
    """(exit status, stdout, stderr) of one command in directory home (the current
    directory: the caller has changed to it)."""
    argv, filters = piped(shlex.split(text))
    if argv[0] == "puzzledb":
        try:
            status = main(argv[1:])
        except SystemExit as stop:  # argparse: --help, a usage error
            status = stop.code
        captured = capsys.readouterr()
        out, err = captured.out, captured.err
    elif argv[0] == "snakemake":
        done = subprocess.run([sys.executable, "-m", "snakemake", *argv[1:],
                               "--snakefile", str(ROOT / "Snakefile")],
                              cwd=home, capture_output=True, text=True)
        status, out, err = done.returncode, done.stdout, done.stderr
    else:
        raise AssertionError(f"command {text!r}: no way to run {argv[0]!r} here; run it or "
                             f"list it in NOT_RUN with the reason")
    for apply, n in filters:
        out = "".join(f"{line}\n" for line in apply(out.splitlines(), n))
    return status, out, err


def run_block(block, home, capsys, checks=None):
    """Run a block's commands in order (those listed in NOT_RUN skipped, INSTEAD's in place
    of theirs); each must exit 0 (non-zero when its output shown is an error line) and print
    the output shown (its stdout then its stderr, or its stderr first as a terminal shows a
    build's progress before its result; a piped command's stdout alone)."""
    for command in block.commands:
        if command.text in NOT_RUN:
            continue
        for text in INSTEAD.get(command.text, ([command.text], None))[0]:
            status, out, err = run(text, home, capsys)
            failed = command.shown[:1] and command.shown[0].startswith("puzzledb: error:")
            assert (status != 0) == bool(failed), f"$ {text}\nexit {status}\n{out}{err}"
            compared = (block.page, text) not in UNCOMPARED
            if command.shown and text == command.text and compared:
                orders = ([out.splitlines()] if "|" in shlex.split(text) else
                          [out.splitlines() + err.splitlines(),
                           err.splitlines() + out.splitlines()])
                assert any(matches(command.shown, lines) for lines in orders), \
                    f"$ {text}\n{block.page} shows:\n" + "\n".join(command.shown) + \
                    "\nit printed:\n" + "\n".join(orders[0])
            if checks and text in checks:
                checks[text](out, err)


def blocks_of(place):
    return [b for b in command_blocks() if BLOCKS.get(b.key) == place]


# --- the lists are complete -------------------------------------------------------------------


def test_every_command_of_the_guide_is_run_here_or_listed_with_its_reason():
    kinds = {kind for _, _, kind, _ in fenced_blocks()}
    assert kinds <= KINDS, f"blocks of kind {kinds - KINDS}: write commands as ```sh or " \
                           f"```console (`$ ` lines) so that they are run here"
    blocks = command_blocks()
    keys = [b.key for b in blocks]
    assert set(keys) == set(BLOCKS) and len(keys) == len(set(keys)), \
        "a block of commands was added, moved or begins otherwise: give it a place in BLOCKS"
    commands = [c.text for b in blocks for c in b.commands]
    for block in blocks:
        for command in block.commands:
            program = shlex.split(command.text)[0]
            if BLOCKS[block.key] is None or program not in ("puzzledb", "snakemake"):
                assert command.text in NOT_RUN, \
                    f"{block.page} command {command.text!r} is not run: list it in NOT_RUN " \
                    f"with the reason"
    stale = [c for c in [*NOT_RUN, *INSTEAD] if c not in commands]
    stale += [c for page, c in UNCOMPARED if c not in commands]
    assert not stale, f"listed but no longer on any page: {stale}"
    assert {"puzzledb verify eight"} <= set(help_commands())  # the extraction finds them


# --- the user's directory: the default databases and the 6-6-3 tables -------------------------


@pytest.fixture(scope="module")
def home(results, pdbs_663, tmp_path_factory):
    """A user's directory after `snakemake --cores 4` and `snakemake pdbs` (the 6-6-3 tables
    only: `solve fifteen` uses them and says so): the default config.yaml, results/ holding
    the session's databases and tables, and the files the guide's commands name (BOARDS in
    boards.txt, Korf's first instances in korf100.txt)."""
    directory = tmp_path_factory.mktemp("user")
    shutil.copy(ROOT / "config.yaml", directory / "config.yaml")
    (directory / "results").mkdir()
    for entry in results.iterdir():
        (directory / "results" / entry.name).symlink_to(entry)
    (directory / "results" / "pdbs").symlink_to(pdbs_663 / "pdbs")
    (directory / "boards.txt").write_text("".join(f"{b}\n" for b in BOARDS))
    rows = [line.split("\t") for line in (ROOT / "benchmarks" / "korf100.tsv").read_text()
            .splitlines() if line[:1].isdigit()][:KORF_FIRST_THREE]
    (directory / "korf100.txt").write_text("".join(f"{row[1]}\n" for row in rows))
    return directory


def korf_lengths():
    rows = [line.split("\t") for line in (ROOT / "benchmarks" / "korf100.tsv").read_text()
            .splitlines() if line[:1].isdigit()]
    return [int(row[3]) for row in rows[:KORF_FIRST_THREE]]


def check_boards(out, err):
    problems = [parse_problem(line) for line in out.splitlines()]
    assert [p.length for p in problems] == list(BOARDS.values())
    for problem in problems:
        replay(puzzles.get("fifteen"), problem)
    assert "ida fifteen:" in err  # the progress bar


def check_korf(out, err):
    problems = [parse_problem(line) for line in out.splitlines()]
    assert [p.length for p in problems] == korf_lengths()
    given = (ROOT / "benchmarks" / "korf100.tsv").read_text()
    assert all(p.board in given for p in problems)  # answered in his notation


def lines(count):
    def check(out, err):
        assert len(out.splitlines()) == count, out
    return check


def says(words):
    def check(out, err):
        assert words in err, err
    return check


# What a page says of a command whose output it does not show (its comment).
CHECKS = {
    "puzzledb solve fifteen --batch boards.txt": check_boards,
    f'puzzledb solve fifteen --batch korf100.txt --goal "{KORF_GOAL}"': check_korf,
    "puzzledb sample fifteen-6colour 55 --count 3": lines(3),
    'puzzledb solve eight "867 254 301" --all': lines(40),
    'puzzledb solve fifteen "d123 657f 948e a0bc"': says("no database of fifteen"),
    'puzzledb solve fifteen "d68c fe0a b745 9132"': says("ida (additive:6-6-3): an optimal "
                                                         "solution of 57 moves"),
    "puzzledb peg-solutions hoppers --first 0,6": says("18 solutions of 7 moves"),
}


def test_the_quick_start_and_query_commands_run_as_the_guide_shows(home, capsys, monkeypatch):
    monkeypatch.chdir(home)
    blocks = blocks_of("user")
    assert {b.page for b in blocks} == {"README.md", "docs/install.md", "docs/queries.md",
                                        "docs/solvers.md"}
    for block in blocks:
        run_block(block, home, capsys, CHECKS)


def test_the_examples_of_puzzledb_help_run(home, capsys, monkeypatch):
    monkeypatch.chdir(home)
    for argv in [["--help"]] + [[name, "--help"] for name in subcommands(_parser())]:
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 0
    capsys.readouterr()
    for text in help_commands():
        status, out, err = run(text, home, capsys)
        assert status == 0, f"$ {text}\n{out}{err}"


# The sections whose ```python blocks read files their own commands write, run by their
# own test after those commands, not in the user's directory.
PYTHON_ELSEWHERE = {("docs/files.md", "Data out"):
                    "test_the_export_and_its_duckdb_query_run_as_the_guide_shows"}


def run_python(lines, name):
    """Run the lines of a ```python block; a line whose comment starts with a value
    (`db.distance(...)  # 31`, `...idxmax()  # 24: the widest layer's depth`) is checked to
    give it.  The number of lines checked."""
    source, checked = [], 0
    for line in lines:
        code, _, comment = line.partition("  #")
        try:
            value = ast.literal_eval(comment.split(":")[0].strip())
        except (ValueError, SyntaxError):
            source.append(line)
            continue
        indent = code[:len(code) - len(code.lstrip())]
        source.append(f"{indent}assert ({code.strip()}) == {value!r}, {code.strip()!r}")
        checked += 1
    exec(compile("\n".join(source), name, "exec"), {})
    return checked


def python_blocks(elsewhere):
    """(page, section, lines) of each ```python block of the pages, those of the sections
    `elsewhere` names or (elsewhere=None) the others."""
    return [(page, section, body) for page, section, kind, body in fenced_blocks()
            if kind == "python" and ((page, section) in PYTHON_ELSEWHERE) == (elsewhere is not None)
            and (elsewhere is None or (page, section) in elsewhere)]


def test_the_python_examples_give_the_values_their_comments_show(home, monkeypatch):
    """Every ```python block (but PYTHON_ELSEWHERE's) runs in the user's directory, the
    values its comments show checked."""
    monkeypatch.chdir(home)
    blocks = python_blocks(None)
    assert len(blocks) >= 3  # the API's, the data files' and the solvers'
    checked = sum(run_python(body, f"{page} python block ({section})")
                  for page, section, body in blocks)
    assert checked >= 5


def test_the_export_and_its_duckdb_query_run_as_the_guide_shows(tmp_path, capsys,
                                                                monkeypatch):
    """The 8-puzzle's database (as `snakemake` builds it: `puzzledb build`, what its bfs
    rule runs) exported as the guide shows, then its DuckDB query over the file, the values
    its comments show checked."""
    monkeypatch.chdir(tmp_path)
    assert main(["build", "eight"]) == 0
    capsys.readouterr()
    [block] = blocks_of("export")
    run_block(block, tmp_path, capsys)
    [(page, section, body)] = python_blocks(PYTHON_ELSEWHERE)
    assert run_python(body, f"{page} python block ({section})") == 2


# --- the README's picture: the 8-puzzle's layers -----------------------------------------------


def layer_chart(counts, rows=8):
    """The layer sizes drawn in text as the README draws them: a column a depth, its height
    the count's share of the widest layer in eighths, rounded up."""
    widest = max(counts)
    heights = [-(-count * rows // widest) for count in counts]
    lines = [(f"{widest:>7,} |" if level == rows else "        |")
             + "".join("#" if h >= level else " " for h in heights).rstrip()
             for level in range(rows, 0, -1)]
    axis = "".join(f"{depth:<10}" for depth in range(0, len(counts), 10)).rstrip()
    return lines + [f"{1:>7} +" + "-" * len(counts), f"         {axis}  depth"]


def test_the_readme_picture_is_the_8_puzzle_layers(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["build", "eight"]) == 0
    capsys.readouterr()
    [picture] = [body for page, _, kind, body in fenced_blocks()
                 if page == "README.md" and kind == "text"]
    with DepthDatabase.open("eight", "results") as db:
        assert picture == layer_chart(db.counts)
        assert (db.total, max(db.counts), db.counts.index(max(db.counts))) == \
            (181_440, 24_047, 24)  # the caption's figures


# --- "What each store keeps": a distances database ---------------------------------------


def check_hard(out, err):
    problems = [parse_problem(line) for line in out.splitlines()]
    assert [p.length for p in problems] == [57, 57]  # hard.txt: the two deepest positions
    for problem in problems:
        replay(puzzles.get("fifteen-3colour"), problem)
    assert "distance table of fifteen-3colour" in err


def test_the_stores_commands_run_as_the_guide_shows(tmp_path, capsys, monkeypatch):
    """fifteen-3colour built with store: distances into tables/, then queried; hard.txt
    holds its two deepest positions (its antipodes.txt)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hard.txt").write_text("3033 2331 2211 2211\n3333 2231 2211 0211\n")
    [block] = blocks_of("stores")
    run_block(block, tmp_path, capsys,
              {"puzzledb --results tables solve fifteen-3colour --batch hard.txt": check_hard})


def test_the_symmetry_commands_run_as_the_guide_shows(tmp_path, capsys, monkeypatch):
    """The eight built by the frontier search up to its transpose, then queried."""
    monkeypatch.chdir(tmp_path)
    [block] = blocks_of("symmetry")
    run_block(block, tmp_path, capsys)


@pytest.mark.slow
def test_the_3x3x3_prefix_is_built_by_classes_and_queried_as_the_guide_shows(
        tmp_path, capsys, monkeypatch, own_definitions):
    """The 3x3x3 docs/permutation.md writes whole, built to depth 6 up to its symmetries (the
    first build compiles the kernels of keys of two words and of its classes: slow), then
    asked for its key and group, a scramble's distance, solution and count of solutions."""
    run_place("cube3", ("docs/permutation.md", "The 3x3x3 written whole", "cube3"),
              tmp_path, capsys, monkeypatch)
    with DepthDatabase.open("cube3", "results") as db:
        assert [row[1] for row in db.summary()] == [1, 18, 243, 3_240, 43_239, 574_908,
                                                     7_618_438]  # the published table


# --- the pages' definitions: your own puzzle, twisty puzzles, sliding blocks -------------------


@pytest.fixture
def own_definitions(monkeypatch):
    """The puzzles registered in this process as they were, after the test (the pages'
    definitions are registered by the commands they run)."""
    monkeypatch.setattr(puzzles, "_defined", dict(puzzles._defined))
    monkeypatch.setattr(puzzles, "_cache", dict(puzzles._cache))


def page_config(page, section, name):
    """A config.yaml of a page: the ```yaml block of its section that defines the puzzle
    name, as the page writes it."""
    blocks = ["\n".join(body) + "\n" for p, s, kind, body in fenced_blocks()
              if (p, s, kind) == (page, section, "yaml")]
    [config] = [b for b in blocks if name in yaml.safe_load(b).get("define", {})]
    return config


def run_place(place, config, home, capsys, monkeypatch):
    """Run the blocks of a place in order in directory home, its config.yaml the one a page
    writes, config = (page, section, puzzle it defines); the blocks."""
    (home / "config.yaml").write_text(page_config(*config))
    monkeypatch.chdir(home)
    blocks = blocks_of(place)
    assert blocks, place
    for block in blocks:
        run_block(block, home, capsys)
    return blocks


@pytest.mark.slow
def test_your_own_puzzle_runs_as_the_guide_shows(tmp_path, capsys, monkeypatch,
                                                 own_definitions):
    [block] = run_place("own", ("docs/definitions.md", "Three worked definitions", "ten"),
                        tmp_path, capsys, monkeypatch)
    # what the page says the run found, from the databases just built
    with DepthDatabase.open("ten", "results") as db:
        assert db.total == 1_814_400 and db.max_depth == 55
        assert sorted(db.boards_at(55)) == ["05321 94876", "09371 54826"]
    with DepthDatabase.open("flip-five", "results") as db:
        assert db.total == 20 * 2 ** 19 and db.max_depth == 16
        assert len(db.positions_at(16)) == 340
    with DepthDatabase.open("triangle-corner", "results") as db:
        assert db.counts == [1, 2, 8, 35, 122, 293, 530, 679, 623, 414, 212, 75, 18, 4]
    # peg-solutions triangle-corner --one is not run (NOT_RUN): its line replays by the rules
    # to one peg in hole 13, in 11 moves
    [shown] = [c.shown for c in block.commands
               if c.text == "puzzledb peg-solutions triangle-corner --one"]
    moves = [tuple(int(h) for h in m.split(",")) for m in shown[0].strip("()").split(")(")]
    assert len(moves) == 11
    assert replay_peg_moves(puzzles.get("triangle-corner"), moves) == 1 << 13


def test_a_bad_definition_fails_as_the_guide_shows(tmp_path, capsys):
    good = 'goal: "12345 67890"'
    ten = page_config("docs/definitions.md", "Three worked definitions", "ten")
    assert good in ten  # ten's goal, one cell short as the block's output says:
    (tmp_path / "config.yaml").write_text(ten.replace(good, 'goal: "12345 6789"'))
    [block] = blocks_of("bad-definition")
    run_block(block, tmp_path, capsys)


def test_a_twisty_puzzle_runs_as_the_guide_shows(tmp_path, capsys, monkeypatch,
                                                 own_definitions):
    """The 2x2x2 from its definition file, which the config names relative to itself: the
    page's user is in the checkout (here: its workflow/ folder linked in)."""
    (tmp_path / "workflow").symlink_to(ROOT / "workflow")
    run_place("twisty", ("docs/permutation.md", "A first twisty puzzle", "cube2"),
              tmp_path, capsys, monkeypatch)


def test_a_bad_twisty_definition_fails_as_the_guide_shows(tmp_path, capsys, monkeypatch,
                                                          own_definitions):
    """The config of "Declaring one", its 2x2x2 file (puzzles/2x2x2.tws) with move R's
    permutation line (line 21) naming a slot twice, as the block's output says."""
    examples = ROOT / "workflow/puzzledb/puzzles/permutation/examples"
    lines = (examples / "2x2x2.tws").read_text().splitlines(keepends=True)
    assert lines[19:21] == ["CORNERS\n", "1 6 2 4 5 7 3 8\n"]  # move R's
    lines[20] = "1 6 2 4 5 7 3 3\n"
    (tmp_path / "puzzles").mkdir()
    (tmp_path / "puzzles" / "2x2x2.tws").write_text("".join(lines))
    run_place("bad-twisty", ("docs/permutation.md", "Declaring one", "cube2"),
              tmp_path, capsys, monkeypatch)


@pytest.mark.slow
def test_the_catalogue_runs_as_the_guide_shows(tmp_path, capsys, monkeypatch):
    """The 5x5 Rush Hour catalogue built by its two jobs and merged, as the page's
    snakemake run does (about 30 s of search), then queried."""
    from puzzledb.report.catalogue import merge, search_part

    rush5 = puzzles.get("rush5")
    parts = [paths.catalogue_part(tmp_path / "results", "rush5", j, 2) for j in range(2)]
    for job, part in enumerate(parts):
        search_part(rush5, job, 2, part)
    merge(rush5, parts, paths.catalogue(tmp_path / "results", "rush5"),
          paths.catalogue_summary(tmp_path / "results", "rush5"),
          paths.catalogue_totals(tmp_path / "results", "rush5"))
    monkeypatch.chdir(tmp_path)
    [block] = blocks_of("catalogue")
    run_block(block, tmp_path, capsys)


@pytest.mark.slow
def test_the_rush_hour_queries_run_as_the_guide_shows(tmp_path, capsys, monkeypatch):
    """The 6x6 box's queries.  Its whole catalogue takes over an hour (NOT_RUN); the unit of
    work holding Fogleman's 51-move board (lane_units.unit_of), searched alone (about 10 s)
    and merged, holds the one cluster of 51 moves the whole run found, so the query of 51
    moves prints the row the whole catalogue gives."""
    from lane_units import unit_of
    from puzzledb.puzzles.blocks.catalogue.lanes import units
    from puzzledb.puzzles.blocks.catalogue.split import job_of
    from puzzledb.report.catalogue import merge, search_part

    rush6 = puzzles.get("rush6-fogleman")
    unit = unit_of(rush6, "BCDDE. BCF.EG B.FXXG HHHI.G ..JIKK LLJMM.")
    wall_sets, rows = units(rush6.lanes)
    total = len(wall_sets) * rows
    job = job_of(unit, total)  # of as many jobs as units: the job of this unit alone
    part = paths.catalogue_part(tmp_path / "results", rush6.name, job, total)
    search_part(rush6, job, total, part)
    merge(rush6, [part], paths.catalogue(tmp_path / "results", rush6.name),
          paths.catalogue_summary(tmp_path / "results", rush6.name),
          paths.catalogue_totals(tmp_path / "results", rush6.name))
    monkeypatch.chdir(tmp_path)
    [block] = blocks_of("rush6")
    run_block(block, tmp_path, capsys)
    assert (tmp_path / "rush6.svg").read_text().startswith("<svg")


def test_sliding_blocks_run_as_the_guide_shows(tmp_path, capsys, monkeypatch,
                                               own_definitions):
    """Klotski built in, a Rush Hour card defined: built, queried, drawn, designed."""
    run_place("blocks", ("docs/blocks.md", "A first sliding-block puzzle", "rush-hour-mine"),
              tmp_path, capsys, monkeypatch)
    assert (tmp_path / "klotski.svg").read_text().startswith("<svg")
