"""The `puzzledb` command: build databases and query them.  Each command is a function
registered with its help and its options beside it (@subcommand); `puzzledb --help` and each
command's --help are made from them, and `main` runs the one asked for."""

import argparse
import sys
from dataclasses import dataclass
from typing import Callable

from tqdm import tqdm

from puzzledb import build_command, catalogue_command, info_command, paths, puzzles
from puzzledb.bfs import select
from puzzledb.config import command_settings, defaults
from puzzledb.errors import (
    PuzzledbError,
    PuzzleError,
    SearchError,
    one_line,
)
from puzzledb.process import exit_now
from puzzledb.puzzles.base import show_boards
from puzzledb.puzzles.capabilities import Catalogued, ChainedMoves
from puzzledb.query.database import DepthDatabase
from puzzledb.query.kinds import KINDS, stored
from puzzledb.report.export import FORMATS, check_format, export
from puzzledb.solve_command import board_of, solve
from puzzledb.solvers import SEARCHES

# The engine, the solvers and the problem files load numba (half a second of CPU): they are
# imported by the commands that use them, so that a query that needs no kernel (distance,
# decode, sample and info of a sliding puzzle) answers without.

DEFAULT = defaults()  # the config schema's: one place for every default


@dataclass(frozen=True)
class Command:
    """A command of `puzzledb`: its help, its arguments and its handler, run(puzzle, args,
    out) (run(args, out) for a command of no puzzle)."""

    name: str
    help: str
    arguments: tuple  # (names, settings) of each argparse argument, in order
    run: Callable
    of_puzzle: bool = True  # its first argument is a puzzle's name
    description: str | None = None  # its --help's text, when more than `help`


COMMANDS = {}  # name -> Command, in the order `puzzledb --help` lists them


def argument(*names, **settings):
    """An argument of a command, as argparse's add_argument takes it."""
    return names, settings


def subcommand(name, help, *arguments, of_puzzle=True, description=None, puzzle="puzzle"):
    """Register the function below as `puzzledb NAME` (its arguments after the puzzle's
    name, shown as `puzzle` in its usage)."""
    def register(run):
        first = (argument("puzzle", metavar=puzzle),) if of_puzzle else ()
        COMMANDS[name] = Command(name, help, first + arguments, run, of_puzzle, description)
        return run
    return register


def nonnegative(text):
    """An integer >= 0 (argparse names the type in its message: invalid nonnegative value)."""
    value = int(text)
    if value < 0:
        raise ValueError(text)
    return value


def positive(text):
    """An integer >= 1."""
    value = int(text)
    if value < 1:
        raise ValueError(text)
    return value


def boards(nargs="+"):
    """The board argument of the commands that take one."""
    return argument("board", nargs=nargs, help="board string (spaces between rows allowed; a "
                    "permutation puzzle's board may be a sequence of its moves, e.g. R U' F2)")


# -- the puzzles known and their databases ------------------------------------------------

@subcommand("list", "the puzzles known, and where each is defined", of_puzzle=False)
def _list(args, out):
    for name in puzzles.names():
        print(f"{name:24s} {puzzles.source(name):12s} {puzzles.get(name).description}",
              file=out)


@subcommand("info", "definition, size, memory need and stored database of a puzzle")
def _info(puzzle, args, out):
    info_command.describe(puzzle, args.results, args.pdbs.get(puzzle.name, ()), out)


# The options that shape a build's SearchPlan, `build` and `compile` alike: each in place of
# the config key of its name (a key of one puzzle's entry: by_puzzle), the rest of the plan
# made from the config as the workflow makes it (build_command.plan).
PLAN_OPTIONS = (
    argument("--memory-mb", type=positive, default=None,
             help=f"refuse an in-memory search that needs more (default: the config's "
                  f"memory_mb, {DEFAULT['memory_mb']} unless it sets it)"),
    argument("--depth-limit", type=nonnegative, default=None, metavar="D",
             help="stop after depth D (a partial database); a puzzle too large for the "
                  "in-memory search is then built by the frontier search"),
    argument("--shards", type=nonnegative, default=None, metavar="S",
             help="build by the frontier search, the rank space cut into S segments (0: not "
                  "sharded, whatever the config says)"),
    argument("--store", choices=KINDS, default=None,
             help="what the database keeps (default: the config's, else layers): "
                  + "; ".join(f"{kind.name}, {kind.describes}" for kind in KINDS.values())
                  + " (`puzzledb info <puzzle>` gives the table's size)"),
    argument("--job-states", type=positive, default=None, metavar="N",
             help=f"frontier search: states a job expands (default: the config's "
                  f"job_states, {DEFAULT['job_states']:,} unless it sets it)"),
    argument("--symmetry", choices=select.SYMMETRY, default=None,
             help="none: keep every position; classes: one key per class of the puzzle's "
                  "symmetries (`puzzledb info <puzzle>` names them; the frontier search, "
                  "and the in-memory search of a permutation puzzle of one orbit); "
                  "default: as the puzzle's group says (classes for a permutation puzzle, "
                  "every position for a sliding board, whose classes cost more time than "
                  "they save), whatever the config says"),
)



@subcommand(
    "build", "build or resume a puzzle's database (its layers, or with --store counts its "
    "counts and samples, --store distances those and every position's depth)",
    argument("--threads", type=int, default=None,
             help="threads of the search (default: every core numba sees)"),
    *PLAN_OPTIONS,
    argument("--checkpoint-minutes", type=float, default=None, metavar="M",
             help=f"--store counts or distances: minutes between checkpoints (default: the "
                  f"config's checkpoint_minutes, {DEFAULT['checkpoint_minutes']:g} unless it "
                  f"sets it; 0: every layer)"),
    description="Build or resume a puzzle's database in this process, planned as the "
                "workflow plans it from the config (./config.yaml, or --config FILE): its "
                "memory_mb, job_states and checkpoint_minutes, and the puzzle's entries "
                "under shards, depth_limit, store and symmetry; each option given here "
                "stands in place of its key.  Without a config, the schema's defaults.",
)
def _build(puzzle, args, out):
    """The search build_command.plan gives, run in this process."""
    plan = build_command.plan(puzzle, args)
    total, max_depth = select.build(
        puzzle, paths.layers(args.results, puzzle.name),
        paths.frontier_work(args.results, puzzle.name), plan, threads=args.threads,
        log=lambda message: print(message, file=sys.stderr))
    print(f"{total:,} states, max depth {max_depth}", file=out)


@subcommand(
    "compile", "compile ahead the kernels that builds and queries will load: of the puzzles "
    "or families named, else of the config's puzzles",
    argument("names", nargs="*", metavar="NAME",
             help="a puzzle, or a family (sliding, permutation, ...: every puzzle of it "
                  "known, built in or defined by the config)"),
    argument("--threads", type=int, default=None,
             help="processes compiling side by side (default: every core)"),
    *PLAN_OPTIONS,
    of_puzzle=False,
    description="Compile the kernels that the builds of the puzzles named (as the build "
                "command with the same options would plan them: from the config, each "
                "option in place of its key; with no name, the config's puzzles) and their "
                "stores' queries will load, "
                "into the kernel cache, side by side in as many processes as there are "
                "cores; nothing is searched or written but the cache.  A first build of a "
                "family compiles it anyway: run this to pay that once, on purpose, e.g. "
                "on a cluster's shared cache before its jobs fan out (docs/scaling.md).")
def _compile(args, out):
    plans, mem_mb = build_command.compile_plans(args)
    print(select.compile_ahead(plans, mem_mb, args.threads), file=out)


@subcommand(
    "verify", "read every layer in full and check it against the manifest (a scrub)",
    argument("--repair", action="store_true",
             help="remove the first bad layer, the layers after it and the manifest, so that "
                  "the next build (snakemake, or puzzledb build) resumes from the last good "
                  "layer; a bad part of a layer written in parts: that part and the "
                  "manifest, and the next build rebuilds the part alone; a database of "
                  "store: counts or distances: the manifest and its files, and the next "
                  "build searches again"),
    description="Read every layer of the stored database in full and check its order, "
                "count, CRC-32 and definition hash against the manifest (a database of "
                "store: counts or distances, which keeps no layers: its manifest, its "
                "samples and any distance table, against their CRC-32).  Exit 0 with a "
                "one-line summary when all is well, else exit 2 naming the first bad layer "
                "(depth and file).")
def _verify(puzzle, args, out):
    """The store's verify (the layer store's, or a counts store's: its manifest and
    samples), with a progress bar on a terminal."""
    store = stored(paths.layers(args.results, puzzle.name), puzzle)
    with tqdm(desc=f"verify {puzzle.name}", unit=" states", unit_scale=True, disable=None,
              leave=False, dynamic_ncols=True) as bar:
        def progress(count, total):
            bar.total = total
            bar.update(count)

        verified = store.verify(repair=args.repair, progress=progress)
    print(verified, file=out)


# -- questions about positions ------------------------------------------------------------

@subcommand("distance", "exact distance of a board to the goal (\"more than D\" beyond a "
            "partial database's layers 0..D)", boards())
def _distance(puzzle, args, out):
    if isinstance(puzzle, Catalogued):
        print(len(catalogue_command.route(puzzle, args)) - 1, file=out)
        return
    puzzle.parse(board_of(args))  # a malformed board is the first thing to report
    with DepthDatabase.open(puzzle.name, args.results) as db:
        distance = db.distance(board_of(args))
    print(f"more than {db.max_depth}" if distance is None else distance, file=out)


@subcommand(
    "solve", "an optimal solution, one board per line (and a last line 'moves: ...' for a "
    "puzzle whose moves have names: the permutation family's)",
    boards("*"),
    argument("--search", choices=SEARCHES, default=None,
             help="tree search instead of the database: ida (IDA*) or iddfs (iterative "
                  "deepening)"),
    argument("--heuristic", default=None, metavar="BOUND",
             help="IDA*'s lower bound: manhattan, corner, pdb:<puzzle>, or several joined by "
                  "commas (their max), or additive:<partition> (e.g. additive:7-8); "
                  "default: the strongest additive pattern databases built (snakemake "
                  "pdbs), else the puzzle's own"),
    argument("--all", action="store_true",
             help="every optimal solution, one per line as board:length:route (route: the "
                  "empty cell after each move)"),
    argument("--limit", type=nonnegative, default=None, help="with --all: at most this many"),
    argument("--batch", default=None, metavar="FILE",
             help="solve every board of FILE (one a line) by tree search, or by walks down "
                  "the distance table of a database built with store: distances; one line "
                  "board:length:route each, in input order"),
    argument("--threads", type=positive, default=1, metavar="N",
             help="with --batch: solve N boards at a time, one a thread (default 1); the "
                  "output keeps the input order"),
    argument("--goal", default=None, metavar="GOAL",
             help="boards are written for this goal instead of the puzzle's, e.g. the "
                  "literature's 15-puzzle goal \"0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\" "
                  "(docs/solvers.md); output as given"))
def _solve(puzzle, args, out):
    """The database's solution, or a tree search's (solve_command.py); a catalogue's board,
    by a search of its cluster."""
    if isinstance(puzzle, Catalogued):
        route = catalogue_command.route(puzzle, args)
        out.write(show_boards(puzzle, [puzzle.format(b) for b in route]))
        return
    solve(puzzle, args, out)


@subcommand("count", "the number of distinct optimal solutions", boards())
def _count(puzzle, args, out):
    puzzle.parse(board_of(args))  # a malformed board is the first thing to report
    with DepthDatabase.open(puzzle.name, args.results) as db:
        print(db.count_solutions(board_of(args)), file=out)


@subcommand("sample", "positions at a depth (all, or --count at random)",
            argument("depth", type=int),
            argument("--count", type=nonnegative, default=None,
                     help="draw this many at random"),
            argument("--seed", type=nonnegative, default=0,
                     help="seed of the random draw (default 0)"))
def _sample(puzzle, args, out):
    with DepthDatabase.open(puzzle.name, args.results) as db:
        drawn = db.boards_at(args.depth, args.count, args.seed)
        kept = db.kept(args.depth)
        if kept < db.counts[args.depth] and (args.count is None or args.count > kept):
            print(f"puzzledb: {puzzle.name} keeps a sample of each layer (store: "
                  f"{db.kind.name}): {kept:,} of the {db.counts[args.depth]:,} positions at "
                  f"depth {args.depth} were kept, drawn at random", file=sys.stderr)
    out.write(show_boards(puzzle, drawn))


@subcommand("decode", "ranks to boards", argument("ranks", nargs="+", type=int),
            argument("--level", type=int, default=0,
                     help="layer of the ranks (graded puzzles)"))
def _decode(puzzle, args, out):
    for rank in args.ranks:
        print(puzzle.decode(rank, args.level), file=out)


# -- pictures and tables ------------------------------------------------------------------

@subcommand(
    "export", "the layers as a table for DuckDB, Polars or pandas: a row per position (rank, "
    "depth, board), as Parquet or CSV",
    argument("--depth", type=int, default=None, metavar="D",
             help="layer D only (default: every layer)"),
    argument("--format", choices=FORMATS, required=True,
             help="parquet (needs pyarrow: pip install 'puzzledb[parquet]') or csv"),
    argument("--output", required=True, metavar="FILE", help="the file to write"),
    description="Write the stored layers as a table, one row per position in depth then rank "
                "order: rank, depth and board (the board string that puzzledb decode shows; a "
                "rank of two words or more, past 64 bits, as decimal text).  A database "
                "searched up to symmetry has a row per class, its least member's board, "
                "and a column size, the positions the class holds.  The layers are read and "
                "written 262,144 rows at a time, so the memory held stays some tens of MB "
                "whatever their size; the time and the file grow with the rows: each board is decoded in "
                "Python, about 30 us a row on one core (the 8-puzzle's 181,440 rows in 6 s, "
                "2.4 MiB of Parquet or 3.7 MiB of CSV), so a billion rows take some 8 hours "
                "and tens of GB, the 7x2's 43.6 billion weeks: export a layer (--depth) "
                "rather than a large database whole.  A database of store: counts or distances keeps no layers to "
                "export (puzzledb sample reads their samples).  FILE appears only when it is "
                "whole.")
def _export(puzzle, args, out):
    """The table of report/export.py, with a progress bar on a terminal; one line saying
    what was written."""
    check_format(args.format)  # a missing package is said before anything is read
    with DepthDatabase.open(puzzle.name, args.results) as db:
        if args.depth is not None:
            db.check_depth(args.depth)
        depths = None if args.depth is None else range(args.depth, args.depth + 1)
        total = sum(db.counts[d] for d in depths or range(db.max_depth + 1))
        with tqdm(desc=f"export {puzzle.name}", total=total, unit=" rows", unit_scale=True,
                  disable=None, leave=False, dynamic_ncols=True) as bar:
            done = export(db, args.output, args.format, depths, bar.update)
    what = "classes" if db.symmetric else "positions"
    print(f"{puzzle.name}: {done.rows:,} {what} of depths {done.depths.start}.."
          f"{done.depths.stop - 1} written to {args.output} ({done.bytes / 2**20:,.1f} MiB, "
          f"{done.seconds:.1f} s)", file=out)


@subcommand("show", "a board's picture, pieces coloured: an SVG file",
            argument("board", nargs="+", help="board string (a drawing: rows separated by "
                                              "spaces)"),
            argument("--output", default=None, metavar="FILE",
                     help="where to write it (default: <puzzle>.svg in the current "
                          "directory)"))
def _show(puzzle, args, out):
    """The picture of one board (report/pictures.py), written to --output; says where."""
    from puzzledb.report.pictures import write_board_svg

    path = args.output or f"{puzzle.name}.svg"
    write_board_svg(path, puzzle, puzzle.parse(board_of(args)))
    print(f"{puzzle.name}: wrote {path}", file=out)


@subcommand("design", "the designer's table: every placement of the pieces (sliding blocks), "
            "which reach the goal and how far, and the farthest")
def _design(puzzle, args, out):
    """The designer's table of the stored database (report/design.py)."""
    from puzzledb.report.design import design, lines

    with DepthDatabase.open(puzzle.name, args.results) as db:
        text, farthest = lines(puzzle.name, design(db))
    print("\n".join(text), file=out)
    out.write(show_boards(puzzle, farthest))


@subcommand("catalogue", "the puzzles of a catalogue built by the workflow (catalogue.csv), "
            "drawn, the hardest first",
            argument("--moves", type=nonnegative, default=None, metavar="N",
                     help="the puzzles of exactly N moves"),
            argument("--min-moves", type=nonnegative, default=None, metavar="N",
                     help="the puzzles of N moves or more"),
            argument("--limit", type=nonnegative, default=None, metavar="N",
                     help="at most N puzzles"),
            argument("--minimal", action="store_true",
                     help="only the minimal puzzles (no piece the solution leaves in place "
                          "can be taken away without making it easier)"),
            argument("--summary", action="store_true",
                     help="the whole box's totals instead (catalogue_totals.csv): its "
                          "boards, the clusters that reach the goal and their boards, the "
                          "largest of them (said to be the box's largest when the clusters "
                          "that do not reach it hold fewer boards), and the boards of "
                          "those"),
            puzzle="catalogue")
def _catalogue(puzzle, args, out):
    """Rows of the catalogue's table, or (--summary) the box's totals (catalogue_command)."""
    catalogue_command.show(puzzle, args, out)


@subcommand("peg-solutions", "shortest peg-solitaire solutions in moves (a chain of jumps by "
            "one peg is one move), as (0,6)(9,3)(2,0,6)...",
            argument("--first", default=None, metavar="HOLES",
                     help="fix the first move: the holes its peg visits, e.g. 0,6"),
            argument("--finish", type=int, default=None, metavar="HOLE",
                     help="the hole of the last peg (default: the finish of the puzzle's "
                          "definition)"),
            argument("--one", action="store_true", help="stop at the first solution"))
def _peg_solutions(puzzle, args, out):
    """Iterative deepening over moves, for a puzzle with the capability of chained moves
    (peg solitaire: ChainedMoves.solutions_in_moves); meant for small boards such as
    hoppers."""
    chains = puzzle.capability(ChainedMoves)  # refused first, whatever the options say
    first = None
    if args.first is not None:
        try:
            first = tuple(int(h) for h in args.first.strip("()").split(","))
        except ValueError:
            raise PuzzleError(f"--first {args.first!r}: give the holes of a move, "
                              f"e.g. 0,6") from None
    result = chains.solutions_in_moves(args.finish, first_move=first,
                                       all_solutions=not args.one)
    if result.length is None:
        raise SearchError(f"{puzzle.name}: no sequence of moves leaves one peg at the "
                          f"finish hole")
    for moves in result.solutions:
        print(chains.format_moves(moves), file=out)
    count = len(result.solutions)
    print(f"{count} solution{'s' * (count != 1)} of {result.length} moves", file=sys.stderr)


# -- the command line -----------------------------------------------------------------------

class _Parser(argparse.ArgumentParser):
    """argparse with its errors in one line, like every other error of puzzledb."""

    def error(self, message):
        self.exit(2, f"puzzledb: error: {one_line(message)} (see {self.prog} --help)\n")


def _parser():
    """The `puzzledb` command line: the global options, then every command of COMMANDS."""
    parser = _Parser(
        prog="puzzledb", description="Exhaustive depth databases of puzzles: build and query.",
        epilog="Errors are one line on stderr and exit status 2.  A database in doubt (after "
               "a crash, a full disk, a copy): `puzzledb verify <puzzle>` reads it all back; "
               "if a layer is bad, `--repair` and a rebuild (snakemake) put it right.",
    )
    parser.add_argument(
        "--results", default=DEFAULT["results"], metavar="DIR",
        help=f"directory holding <puzzle>/layers (default: {DEFAULT['results']})",
    )
    parser.add_argument(
        "--config", default=None, metavar="FILE",
        help="config file whose define: puzzles to know, and whose settings build and "
             "compile plan by, as the workflow does (default: ./config.yaml if any)",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, known in COMMANDS.items():
        p = sub.add_parser(name, help=known.help, description=known.description)
        for names, settings in known.arguments:
            p.add_argument(*names, **settings)
        # --results and --config also after the command
        p.add_argument("--results", default=argparse.SUPPRESS, metavar="DIR",
                       help="directory holding <puzzle>/layers")
        p.add_argument("--config", default=argparse.SUPPRESS, metavar="FILE",
                       help="config file whose define: puzzles to know (and settings, "
                            "for build and compile)")
    return parser


def run(args, out=sys.stdout):
    """Run the command `args` name, with the config's `define:` puzzles known (args.settings:
    the config's settings, which `build` and `compile` plan by; args.config_file: its name,
    None without one; args.pdbs: its pattern databases, for `info`)."""
    required = args.config is not None
    args.settings, args.config_file = command_settings(args.config if required
                                                       else "config.yaml", required)
    args.pdbs = args.settings["pdbs"]
    known = COMMANDS[args.command]
    if known.of_puzzle:
        known.run(puzzles.get(args.puzzle), args, out)
    else:
        known.run(args, out)


def main(argv=None):
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    # argparse ends a positional list at the first option, so a board given after an option
    # (`solve fifteen --goal "0 1 ... 15" "14 13 ..."`) comes back unrecognised: it is the
    # rest of the board
    if extra and hasattr(args, "board") and not any(word.startswith("-") for word in extra):
        args.board = [*args.board, *extra]
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        run(args, sys.stdout)  # the stdout of now, not of import time (in-process callers)
    except PuzzledbError as err:
        print(f"puzzledb: error: {one_line(err)}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("puzzledb: interrupted", file=sys.stderr)
        return 130
    return 0


def command():
    """The `puzzledb` console command: main, then exit at once (process.exit_now)."""
    exit_now(main())


if __name__ == "__main__":
    command()
