"""The `puzzledb` command: build databases and query them.

    puzzledb list                       the puzzles known: built-in and defined in the config
    puzzledb info <puzzle>              definition, size, memory need, the stored database
    puzzledb build <puzzle>             build or resume the layers (the bfs rule does this)
    puzzledb distance <puzzle> <board>  exact distance to the goal
    puzzledb solve <puzzle> <board>     an optimal solution, one board per line
        [--search ida|iddfs] [--heuristic B] [--all]   by tree search, without a database
    puzzledb count <puzzle> <board>     the number of optimal solutions
    puzzledb sample <puzzle> <depth>    positions at a depth (all, or --count at random)
    puzzledb decode <puzzle> <rank>...  ranks to boards
    puzzledb peg-solutions <puzzle>     shortest peg-solitaire solutions, a chain of jumps
        [--first 0,6] [--finish H] [--one]   by one peg counting as one move

Puzzles declared under `define:` in ./config.yaml (or --config FILE) are known like the
built-in ones.  Errors are one line on stderr and exit status 2.
"""

import argparse
import sys

from tqdm import tqdm

from . import puzzles, solvers
from .config import load_definitions
from .database import DepthDatabase, layer_directory
from .engine import build
from .errors import PuzzledbError, PuzzleError, SearchError
from .memory import search_mib
from .problems import problem_line
from .search import format_moves
from .store import LayerStore


def _parser():
    parser = argparse.ArgumentParser(
        prog="puzzledb", description="Exhaustive depth databases of puzzles: build and query."
    )
    parser.add_argument(
        "--results", default="results", metavar="DIR",
        help="directory holding <puzzle>/layers (default: results)",
    )
    parser.add_argument(
        "--config", default=None, metavar="FILE",
        help="config file whose define: puzzles to know (default: ./config.yaml if any)",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    sub.add_parser("list", help="the puzzles known, and where each is defined")
    p = sub.add_parser("info", help="definition, size, memory need and stored database of "
                                    "a puzzle")
    p.add_argument("puzzle")
    p = sub.add_parser("build", help="build or resume a puzzle's layers")
    p.add_argument("puzzle")
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--memory-mb", type=int, default=8000,
                   help="refuse a search that needs more (default 8000, as in config.yaml)")
    for name, text in (
        ("distance", "exact distance of a board to the goal"),
        ("solve", "an optimal solution, one board per line"),
        ("count", "the number of distinct optimal solutions"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("puzzle")
        p.add_argument("board", nargs="+", help="board string (spaces between rows allowed)")
    p = sub.choices["solve"]
    p.add_argument("--search", choices=solvers.SEARCHES, default=None,
                   help="tree search instead of the database: ida (IDA*) or iddfs "
                        "(iterative deepening)")
    p.add_argument("--heuristic", default=None, metavar="BOUND",
                   help="IDA*'s lower bound: manhattan, corner, pdb:<puzzle>, or several "
                        "joined by commas (their max); default: the puzzle's own")
    p.add_argument("--all", action="store_true",
                   help="every optimal solution, one per line as board:length:route "
                        "(route: the empty cell after each move)")
    p.add_argument("--limit", type=int, default=None, help="with --all: at most this many")
    p = sub.add_parser("sample", help="positions at a depth")
    p.add_argument("puzzle")
    p.add_argument("depth", type=int)
    p.add_argument("--count", type=int, default=None, help="draw this many at random")
    p.add_argument("--seed", type=int, default=0)
    p = sub.add_parser("decode", help="ranks to boards")
    p.add_argument("puzzle")
    p.add_argument("ranks", nargs="+", type=int)
    p.add_argument("--level", type=int, default=0, help="layer of the ranks (graded puzzles)")
    p = sub.add_parser("peg-solutions", help="shortest peg-solitaire solutions in moves "
                       "(a chain of jumps by one peg is one move), as (0,6)(9,3)(2,0,6)...")
    p.add_argument("puzzle")
    p.add_argument("--first", default=None, metavar="HOLES",
                   help="fix the first move: the holes its peg visits, e.g. 0,6")
    p.add_argument("--finish", type=int, default=None, metavar="HOLE",
                   help="the hole of the last peg (default: the finish of the puzzle's "
                        "definition)")
    p.add_argument("--one", action="store_true", help="stop at the first solution")
    for command in sub.choices.values():  # --results also after the command
        command.add_argument("--results", default=argparse.SUPPRESS, metavar="DIR",
                             help="directory holding <puzzle>/layers (default: results)")
        command.add_argument("--config", default=argparse.SUPPRESS, metavar="FILE",
                             help="config file whose define: puzzles to know")
    return parser


def _board(args):
    return " ".join(args.board)


def run(args, out=sys.stdout):
    if args.config is not None:
        load_definitions(args.config)
    else:
        load_definitions("config.yaml", required=False)
    if args.command == "list":
        for name in puzzles.names():
            puzzle = puzzles.get(name)
            print(f"{name:24s} {puzzles.source(name):12s} {puzzle.description}", file=out)
        return
    puzzle = puzzles.get(args.puzzle)
    if args.command == "info":
        print(f"puzzle        {puzzle.name}: {puzzle.description}", file=out)
        print(f"defined       {puzzles.declaration(puzzle.name)}", file=out)
        print(f"hash          {puzzle.definition_hash()} "
              f"(ranking {puzzle.definition()['ranking']})", file=out)
        print(f"rank space    {puzzle.rank_space()}", file=out)
        print(f"symmetries    {len(puzzle.symmetries()) + 1 if puzzle.symmetries() else 'none'}",
              file=out)
        print(f"search memory {search_mib(puzzle):,.1f} MiB", file=out)
        try:
            with DepthDatabase.open(puzzle.name, args.results) as db:
                print(f"database      {db.total:,} states, max depth {db.max_depth}, "
                      f"in {db.store.directory}", file=out)
        except PuzzledbError as err:
            print(f"database      none ({err})", file=out)
        return
    if args.command == "build":
        report = build(puzzle, layer_directory(args.results, puzzle.name), threads=args.threads,
                       memory_mb=args.memory_mb, progress=True,
                       log=lambda m: print(m, file=sys.stderr))
        print(f"{report.total:,} states, max depth {report.max_depth}", file=out)
        return
    if args.command == "decode":
        for rank in args.ranks:
            print(puzzle.decode(rank, args.level), file=out)
        return
    if args.command == "peg-solutions":
        _peg_solutions(puzzle, args, out)
        return
    if args.command in ("distance", "solve", "count"):
        puzzle.parse(_board(args))  # a malformed board is the first thing to report
    if args.command == "solve":
        tree = args.search or args.heuristic or args.all
        if not tree and _no_database_but_a_bound(puzzle, args.results):
            print(f"puzzledb: no database of {puzzle.name} in {args.results}: solving by "
                  f"tree search", file=sys.stderr)
            tree = True
        if tree:
            _tree_search(puzzle, args, out)
            return
    with DepthDatabase.open(puzzle.name, args.results) as db:
        if args.command == "distance":
            print(db.distance(_board(args)), file=out)
        elif args.command == "solve":
            for board in db.solve(_board(args)):
                print(board, file=out)
        elif args.command == "count":
            print(db.count_solutions(_board(args)), file=out)
        elif args.command == "sample":
            level = args.depth if puzzle.graded else 0
            for rank in db.positions_at(args.depth, args.count, args.seed):
                print(puzzle.decode(rank, level), file=out)


def _no_database_but_a_bound(puzzle, results):
    """True when no database of puzzle was built (a corrupt one is reported, not bypassed)
    and IDA* has a bound of its own for it."""
    if LayerStore(layer_directory(results, puzzle.name), puzzle).manifest_path().exists():
        return False
    try:
        solvers.default_heuristic(puzzle)
    except SearchError:
        return False
    return True


def _tree_search(puzzle, args, out):
    """solve --search: IDA* or iterative deepening, no database of the puzzle needed (a
    pattern database named by --heuristic is read from --results).  --heuristic or --all
    alone mean --search ida."""
    search = args.search or "ida"
    bar = None

    def progress(threshold, nodes):  # called every few million nodes: long searches only
        nonlocal bar
        if bar is None:
            bar = tqdm(desc=f"{search} {puzzle.name}", unit=" nodes", unit_scale=True,
                       disable=None, leave=False)
        bar.set_postfix_str(f"threshold {threshold}", refresh=False)
        bar.update(nodes - bar.n)

    try:
        solved = solvers.solve(puzzle, _board(args), search=search, heuristic=args.heuristic,
                               all_solutions=args.all, limit=args.limit,
                               results=args.results, progress=progress)
    finally:
        if bar is not None:
            bar.close()
    if args.all:
        for path in solved.paths:
            print(problem_line(puzzle, path), file=out)
    else:
        for board in solved.solutions[0]:
            print(board, file=out)
    count = len(solved.paths)
    what = f"{count} optimal solution{'s' * (count != 1)}" if args.all else "an optimal solution"
    print(f"{search} ({solved.heuristic or 'no heuristic'}): {what} of {solved.length} "
          f"moves, {solved.nodes:,} nodes in {solved.seconds:.2f} s", file=sys.stderr)


def _peg_solutions(puzzle, args, out):
    """peg-solutions: iterative deepening over moves (Puzzle.solutions_in_moves); meant for
    small boards such as hoppers."""
    first = None
    if args.first is not None:
        try:
            first = tuple(int(h) for h in args.first.strip("()").split(","))
        except ValueError:
            raise PuzzleError(f"--first {args.first!r}: give the holes of a move, "
                              f"e.g. 0,6") from None
    result = puzzle.solutions_in_moves(args.finish, first_move=first,
                                       all_solutions=not args.one)
    if result.length is None:
        raise SearchError(f"{puzzle.name}: no sequence of moves leaves one peg at the "
                          f"finish hole")
    for moves in result.solutions:
        print(format_moves(moves), file=out)
    count = len(result.solutions)
    print(f"{count} solution{'s' * (count != 1)} of {result.length} moves", file=sys.stderr)


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        run(args)
    except PuzzledbError as err:
        print(f"puzzledb: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("puzzledb: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
