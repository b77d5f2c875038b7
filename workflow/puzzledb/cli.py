"""The `puzzledb` command: build databases and query them.

    puzzledb list                       the puzzles known: built-in and defined in the config
    puzzledb info <puzzle>              definition, size, memory need, the stored database
    puzzledb build <puzzle>             build or resume the layers (the bfs rule does this)
        [--depth-limit D] [--shards S]      a partial database; the frontier search
        [--store counts|distances]          keep counts, samples and the deepest positions
                                            only (distances: and every position's depth in
                                            two bits), checkpointed (a space too large for
                                            layer files)
    puzzledb verify <puzzle>            read every layer in full and check it against the
        [--repair]                          manifest; --repair removes the first bad layer,
                                            those after it and the manifest, for a rebuild
                                            (a bad part of a layer: that part alone)
    puzzledb distance <puzzle> <board>  exact distance to the goal ("more than D" beyond the
                                        D stored layers of a partial database), from the
                                        layers or a distance table (store: distances)
    puzzledb solve <puzzle> <board>     an optimal solution, one board per line (then
                                        "moves: R U' F2" for a puzzle whose moves have names)
        [--search ida|iddfs] [--heuristic B] [--all]   by tree search, without a database
        [--batch FILE] [--goal GOAL]    every board of a file: board:length:route lines
        [--threads N]                       (N boards at a time, in input order; from the
                                            distance table when there is one)
    puzzledb count <puzzle> <board>     the number of optimal solutions
    puzzledb sample <puzzle> <depth>    positions at a depth (all, or --count at random)
    puzzledb decode <puzzle> <rank>...  ranks to boards
    puzzledb show <puzzle> <board>      the board's picture, an SVG file (--output FILE,
                                        default <puzzle>.svg in the current directory)
    puzzledb design <puzzle>            the designer's table: every placement of the pieces,
                                        which reach the goal, how far, in how many components
    puzzledb catalogue <catalogue>      the puzzles of a catalogue (catalogue.csv), drawn, the
        [--moves N] [--min-moves N]         hardest first: those of N moves, or of N or more
        [--limit N] [--minimal]             (at most N of them; only the minimal ones)
    puzzledb peg-solutions <puzzle>     shortest peg-solitaire solutions, a chain of jumps
        [--first 0,6] [--finish H] [--one]   by one peg counting as one move

Puzzles declared under `define:` in ./config.yaml (or --config FILE) are known like the
built-in ones.  Errors are one line on stderr and exit status 2 (usage errors too).
"""

import argparse
import sys
from pathlib import Path

from tqdm import tqdm

from puzzledb import paths, puzzles
from puzzledb.bfs import select
from puzzledb.config import defaults, load_definitions
from puzzledb.query.database import DepthDatabase
from puzzledb.errors import PuzzledbError, PuzzleError, SearchError, one_line
from puzzledb.process import exit_now
from puzzledb.solve_command import board_of, solve
from puzzledb.puzzles.base import Catalogued, ChainedMoves, show_boards
from puzzledb.solvers import SEARCHES
from puzzledb.store import DISTANCES, LAYERS, STORES, label_modulus
from puzzledb.store.distances import table_bytes
from puzzledb.store.kinds import stored

# The engine, the solvers and the problem files load numba (half a second of CPU): they are
# imported by the commands that use them, so that a query that needs no kernel (distance,
# decode, sample and info of a sliding puzzle) answers without.


class _Parser(argparse.ArgumentParser):
    """argparse with its errors in one line, like every other error of puzzledb."""

    def error(self, message):
        self.exit(2, f"puzzledb: error: {one_line(message)} (see {self.prog} --help)\n")


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


def _parser():
    """The `puzzledb` command line: the global options, then each group of commands."""
    default = defaults()  # the config schema's: one place for every default
    parser = _Parser(
        prog="puzzledb", description="Exhaustive depth databases of puzzles: build and query.",
        epilog="Errors are one line on stderr and exit status 2.  A database in doubt (after "
               "a crash, a full disk, a copy): `puzzledb verify <puzzle>` reads it all back; "
               "if a layer is bad, `--repair` and a rebuild (snakemake) put it right.",
    )
    parser.add_argument(
        "--results", default=default["results"], metavar="DIR",
        help=f"directory holding <puzzle>/layers (default: {default['results']})",
    )
    parser.add_argument(
        "--config", default=None, metavar="FILE",
        help="config file whose define: puzzles to know (default: ./config.yaml if any)",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _database_commands(sub, default)
    _query_commands(sub)
    _drawing_commands(sub)
    _peg_commands(sub)
    for command in sub.choices.values():  # --results also after the command
        command.add_argument("--results", default=argparse.SUPPRESS, metavar="DIR",
                             help="directory holding <puzzle>/layers")
        command.add_argument("--config", default=argparse.SUPPRESS, metavar="FILE",
                             help="config file whose define: puzzles to know")
    return parser


def _database_commands(sub, default):
    """list, info, build and verify: the puzzles known and their databases."""
    sub.add_parser("list", help="the puzzles known, and where each is defined")
    p = sub.add_parser("info", help="definition, size, memory need and stored database of "
                                    "a puzzle")
    p.add_argument("puzzle")
    p = sub.add_parser("build", help="build or resume a puzzle's database (its layers, or with "
                       "--store counts its counts and samples, --store distances those and "
                       "every position's depth)")
    p.add_argument("puzzle")
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--memory-mb", type=int, default=default["memory_mb"],
                   help=f"refuse an in-memory search that needs more (default "
                        f"{default['memory_mb']}, as in config.yaml)")
    p.add_argument("--depth-limit", type=int, default=None, metavar="D",
                   help="stop after depth D (a partial database); a puzzle too large for "
                        "the in-memory search is then built by the frontier search")
    p.add_argument("--shards", type=int, default=None, metavar="S",
                   help="build by the frontier search, the rank space cut into S segments")
    p.add_argument("--store", choices=STORES, default=LAYERS,
                   help="layers (default): every layer's file; counts: the in-memory search "
                        "keeps each layer's count, a sample and the deepest positions, and "
                        "checkpoints itself (a rerun resumes from the last checkpoint); "
                        "distances: the same, and every position's depth modulo 3 (or 4) in "
                        "two bits, one file (distance, solve and count answer from it; "
                        "`puzzledb info <puzzle>` gives its size)")
    p.add_argument("--checkpoint-minutes", type=float, default=default["checkpoint_minutes"],
                   metavar="M", help=f"--store counts or distances: minutes between "
                                     f"checkpoints (default {default['checkpoint_minutes']:g}; "
                                     f"0: every layer)")
    p.add_argument("--job-states", type=int, default=default["job_states"], metavar="N",
                   help=f"frontier search: states a job expands (default "
                        f"{default['job_states']:,})")
    p = sub.add_parser(
        "verify", help="read every layer in full and check it against the manifest (a scrub)",
        description="Read every layer of the stored database in full and check its order, "
                    "count, CRC-32 and definition hash against the manifest.  Exit 0 with a "
                    "one-line summary when all is well, else exit 2 naming the first bad "
                    "layer (depth and file).")
    p.add_argument("puzzle")
    p.add_argument("--repair", action="store_true",
                   help="remove the first bad layer, the layers after it and the manifest, so "
                        "that the next build (snakemake, or puzzledb build) resumes from the "
                        "last good layer; a bad part of a layer written in parts: that part "
                        "and the manifest, and the next build rebuilds the part alone")


def _query_commands(sub):
    """distance, solve, count, sample and decode: questions about positions."""
    for name, text in (
        ("distance", "exact distance of a board to the goal"),
        ("solve", "an optimal solution, one board per line (and a last line 'moves: ...' "
                  "for a puzzle whose moves have names: the permutation family's)"),
        ("count", "the number of distinct optimal solutions"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("puzzle")
        p.add_argument("board", nargs="*" if name == "solve" else "+",
                       help="board string (spaces between rows allowed; a permutation "
                            "puzzle's board may be a sequence of its moves, e.g. R U' F2)")
    _solve_options(sub.choices["solve"])
    p = sub.add_parser("sample", help="positions at a depth")
    p.add_argument("puzzle")
    p.add_argument("depth", type=int)
    p.add_argument("--count", type=nonnegative, default=None, help="draw this many at random")
    p.add_argument("--seed", type=nonnegative, default=0)
    p = sub.add_parser("decode", help="ranks to boards")
    p.add_argument("puzzle")
    p.add_argument("ranks", nargs="+", type=int)
    p.add_argument("--level", type=int, default=0, help="layer of the ranks (graded puzzles)")


def _solve_options(p):
    """solve's options: tree search, its bound, every solution, a batch, another goal."""
    p.add_argument("--search", choices=SEARCHES, default=None,
                   help="tree search instead of the database: ida (IDA*) or iddfs "
                        "(iterative deepening)")
    p.add_argument("--heuristic", default=None, metavar="BOUND",
                   help="IDA*'s lower bound: manhattan, corner, pdb:<puzzle>, or several "
                        "joined by commas (their max), or additive:<partition> (e.g. "
                        "additive:7-8); default: the strongest additive pattern databases "
                        "built (snakemake pdbs), else the puzzle's own")
    p.add_argument("--all", action="store_true",
                   help="every optimal solution, one per line as board:length:route "
                        "(route: the empty cell after each move)")
    p.add_argument("--limit", type=nonnegative, default=None,
                   help="with --all: at most this many")
    p.add_argument("--batch", default=None, metavar="FILE",
                   help="solve every board of FILE (one a line) by tree search, or by walks "
                        "down the distance table of a database built with store: distances; "
                        "one line board:length:route each, in input order")
    p.add_argument("--threads", type=positive, default=1, metavar="N",
                   help="with --batch: solve N boards at a time, one a thread (default 1); "
                        "the output keeps the input order")
    p.add_argument("--goal", default=None, metavar="GOAL",
                   help="boards are written for this goal instead of the puzzle's, e.g. "
                        "the literature's 15-puzzle goal \"0 1 2 3 4 5 6 7 8 9 10 11 12 13 "
                        "14 15\" (docs/solvers.md); output as given")


def _drawing_commands(sub):
    """show and design: a board's picture, and the designer's table of sliding blocks."""
    p = sub.add_parser("show", help="a board's picture, pieces coloured: an SVG file")
    p.add_argument("puzzle")
    p.add_argument("board", nargs="+", help="board string (a drawing: rows separated by "
                                            "spaces)")
    p.add_argument("--output", default=None, metavar="FILE",
                   help="where to write it (default: <puzzle>.svg in the current directory)")
    p = sub.add_parser("design", help="the designer's table: every placement of the pieces "
                       "(sliding blocks), which reach the goal and how far, and the farthest")
    p.add_argument("puzzle")
    p = sub.add_parser("catalogue", help="the puzzles of a catalogue built by the workflow "
                       "(catalogue.csv), drawn, the hardest first")
    p.add_argument("puzzle", metavar="catalogue")
    p.add_argument("--moves", type=nonnegative, default=None, metavar="N",
                   help="the puzzles of exactly N moves")
    p.add_argument("--min-moves", type=nonnegative, default=None, metavar="N",
                   help="the puzzles of N moves or more")
    p.add_argument("--limit", type=nonnegative, default=None, metavar="N",
                   help="at most N puzzles")
    p.add_argument("--minimal", action="store_true",
                   help="only the minimal puzzles (no piece the solution leaves in place can "
                        "be taken away without making it easier)")


def _peg_commands(sub):
    """peg-solutions: a family's own command, answered through its capability."""
    p = sub.add_parser("peg-solutions", help="shortest peg-solitaire solutions in moves "
                       "(a chain of jumps by one peg is one move), as (0,6)(9,3)(2,0,6)...")
    p.add_argument("puzzle")
    p.add_argument("--first", default=None, metavar="HOLES",
                   help="fix the first move: the holes its peg visits, e.g. 0,6")
    p.add_argument("--finish", type=int, default=None, metavar="HOLE",
                   help="the hole of the last peg (default: the finish of the puzzle's "
                        "definition)")
    p.add_argument("--one", action="store_true", help="stop at the first solution")


def run(args, out=sys.stdout):
    if args.config is not None:
        pdbs = load_definitions(args.config)
    else:
        pdbs = load_definitions("config.yaml", required=False)
    if args.command == "list":
        for name in puzzles.names():
            puzzle = puzzles.get(name)
            print(f"{name:24s} {puzzles.source(name):12s} {puzzle.description}", file=out)
        return
    puzzle = puzzles.get(args.puzzle)
    if args.command == "info":
        _info(puzzle, args, pdbs, out)
        return
    own = {"build": _build, "verify": _verify, "decode": _decode,
           "peg-solutions": _peg_solutions, "solve": solve, "show": _show,
           "design": _design, "catalogue": _catalogue}
    if isinstance(puzzle, Catalogued) and args.command in ("distance", "solve"):
        _catalogue_board(puzzle, args, out)
        return
    if args.command in own:
        own[args.command](puzzle, args, out)
        return
    if args.command in ("distance", "count"):
        puzzle.parse(board_of(args))  # a malformed board is the first thing to report
    with DepthDatabase.open(puzzle.name, args.results) as db:
        if args.command == "distance":
            distance = db.distance(board_of(args))
            print(f"more than {db.max_depth}" if distance is None else distance, file=out)
        elif args.command == "count":
            print(db.count_solutions(board_of(args)), file=out)
        elif args.command == "sample":
            boards = db.boards_at(args.depth, args.count, args.seed)
            kept = db.kept(args.depth)
            if kept < db.counts[args.depth] and (args.count is None or args.count > kept):
                print(f"puzzledb: {puzzle.name} keeps a sample of each layer (store: "
                      f"{db.store.kind}): {kept:,} of the {db.counts[args.depth]:,} "
                      f"positions at depth {args.depth} were kept, drawn at random",
                      file=sys.stderr)
            out.write(show_boards(puzzle, boards))


def _info(puzzle, args, pdbs, out):
    """info: the definition, its size and memory, what store: distances would take on
    disk, the stored database and the additive pattern databases."""
    print(f"puzzle        {puzzle.name}: {puzzle.description}", file=out)
    print(f"defined       {puzzles.declaration(puzzle.name)}", file=out)
    if isinstance(puzzle, Catalogued):
        for label, text in puzzle.info_lines():
            print(f"{label:13s} {text}", file=out)
        return
    print(f"hash          {puzzle.definition_hash()} "
          f"(ranking {puzzle.definition()['ranking']})", file=out)
    print(f"rank space    {puzzle.rank_space()}", file=out)
    for label, text in puzzle.info_lines():
        print(f"{label:13s} {text}", file=out)
    print(f"symmetries    {len(puzzle.symmetries()) + 1 if puzzle.symmetries() else 'none'}",
          file=out)
    words = puzzle.key_words
    bounds = ", ".join(f"{b:,}" for b in puzzle.key_bounds())
    print(f"key           {words} word{'s' * (words > 1)} of 64 bits (below {bounds}): "
          f"{8 * words} bytes a stored state before compression", file=out)
    if words > 1:
        print(f"search memory frontier search only (keys of {words} words: no in-memory "
              f"search), a job's bounded by its piece or segment; a prefix with depth_limit "
              f"unless the space is sparse (reachable)", file=out)
    elif puzzle.ranks_fit:
        print(f"search memory {select.search_mib(puzzle):,.1f} MiB in memory (frontier "
              f"mode: bounded by segment)", file=out)
        if not puzzle.graded:  # what store: distances would take
            print(f"table         {table_bytes(puzzle) / 2**20:,.1f} MiB on disk with "
                  f"store: distances (depth modulo {label_modulus(puzzle)}), its search "
                  f"{select.search_mib(puzzle, DISTANCES):,.1f} MiB", file=out)
    else:
        print("search memory none: ranks beyond 64 bits, no database (tree search)",
              file=out)
    try:
        with DepthDatabase.open(puzzle.name, args.results) as db:
            contents = f" ({db.store.contents})" if db.store.contents else ""
            print(f"database      {db.total:,} states, max depth {db.max_depth}, "
                  f"{db.extent()}, built {db.manifest.get('mode', 'in-memory')}, "
                  f"store {db.store.kind}{contents}, in {db.store.directory}", file=out)
    except PuzzledbError as err:
        print(f"database      none ({err})", file=out)
    if (puzzle.additive_partitions() or pdbs.get(puzzle.name)
            or Path(paths.pattern_partitions(args.results, puzzle.name)).is_dir()):
        from puzzledb.solvers import additive  # loads numba: only when there is any

        for line in additive.describe(puzzle, args.results, defaults()["threads"],
                                      pdbs.get(puzzle.name, ())):
            print(f"additive pdbs {line}", file=out)


def _decode(puzzle, args, out):
    for rank in args.ranks:
        print(puzzle.decode(rank, args.level), file=out)


def _show(puzzle, args, out):
    """show: the picture of one board (report/pictures.py), written to --output; says where."""
    from puzzledb.report.pictures import write_board_svg

    path = args.output or f"{puzzle.name}.svg"
    write_board_svg(path, puzzle, puzzle.parse(board_of(args)))
    print(f"{puzzle.name}: wrote {path}", file=out)


def _design(puzzle, args, out):
    """design: the designer's table of the stored database (report/design.py)."""
    from puzzledb.report.design import design, lines

    with DepthDatabase.open(puzzle.name, args.results) as db:
        text, farthest = lines(puzzle.name, design(db))
    print("\n".join(text), file=out)
    out.write(show_boards(puzzle, farthest))


def _catalogue(puzzle, args, out):
    """catalogue: rows of the catalogue's table (report/catalogue.py), each a line
    '<moves> moves, <states> states[, minimal]' and the board drawn."""
    from puzzledb.report.catalogue import rows

    catalogue = puzzle.capability(Catalogued)
    path = Path(paths.catalogue(args.results, catalogue.name))
    if not path.is_file():
        raise PuzzleError(f"{catalogue.name}: no catalogue in {path} (build it: snakemake "
                          f"--config 'catalogues=[{catalogue.name}]')")
    for row in rows(path, args.moves, args.min_moves, args.limit, args.minimal):
        minimal = ", minimal" if row["minimal"] == "true" else ""
        print(f"{row['moves']} moves, {int(row['states']):,} states{minimal}", file=out)
        print("\n".join(row["board"].split()) + "\n", file=out)


def _catalogue_board(puzzle, args, out):
    """distance and solve of a catalogue's board: a search of its cluster, the board a
    puzzle of its own pieces."""
    board = puzzle.parse(board_of(args))
    route = puzzle.solution(board)
    if route is None:
        raise SearchError(f"{puzzle.name}: {puzzle.format(board)!r} cannot reach the goal")
    if args.command == "distance":
        print(len(route) - 1, file=out)
    else:
        out.write(show_boards(puzzle, [puzzle.format(b) for b in route]))


def _build(puzzle, args, out):
    """build: the search bfs.select chooses (the in-memory search when it fits --memory-mb,
    else, with --depth-limit, or with --shards, the frontier search), in this process."""
    plan = select.choose(puzzle, args.memory_mb, args.shards, args.depth_limit, args.store)
    total, max_depth = select.build(
        puzzle, paths.layers(args.results, puzzle.name),
        paths.frontier_work(args.results, puzzle.name), plan, threads=args.threads,
        memory_mb=args.memory_mb, job_states=args.job_states,
        checkpoint_minutes=args.checkpoint_minutes,
        log=lambda message: print(message, file=sys.stderr))
    print(f"{total:,} states, max depth {max_depth}", file=out)


def _verify(puzzle, args, out):
    """verify: the store's verify (the layer store's, or a counts store's: its manifest and
    samples) with a progress bar on a terminal."""
    store = stored(paths.layers(args.results, puzzle.name), puzzle)
    with tqdm(desc=f"verify {puzzle.name}", unit=" states", unit_scale=True, disable=None,
              leave=False, dynamic_ncols=True) as bar:
        def progress(count, total):
            bar.total = total
            bar.update(count)

        verified = store.verify(repair=args.repair, progress=progress)
    print(verified, file=out)


def _peg_solutions(puzzle, args, out):
    """peg-solutions: iterative deepening over moves, for a puzzle with the capability of
    chained moves (peg solitaire: ChainedMoves.solutions_in_moves); meant for small boards
    such as hoppers."""
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
