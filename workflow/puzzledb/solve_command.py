"""`puzzledb solve` (cli.py parses its options): an optimal solution from the stored
database, or by tree search (IDA* with the puzzle's bound, the additive pattern databases
when built), of one board or of a --batch file on --threads threads, with a progress bar
and one line on stderr saying which search and bound ran."""

import sys
import time

from tqdm import tqdm

from puzzledb import paths
from puzzledb.errors import BoardError, SearchError
from puzzledb.puzzles.base import show_boards
from puzzledb.puzzles.capabilities import GoalFrames
from puzzledb.query.database import DepthDatabase
from puzzledb.store.layers import LayerStore


def board_of(args):
    """The board the command line gives (its words joined)."""
    return " ".join(args.board)


def _no_database_but_a_bound(puzzle, results):
    """True when no database of puzzle was built (a corrupt one is reported, not bypassed)
    and IDA* has a bound for it."""
    from puzzledb.solvers import default_heuristic

    if LayerStore(paths.layers(results, puzzle.name), puzzle).manifest_path().exists():
        return False
    try:
        default_heuristic(puzzle, results)
    except SearchError:
        return False
    return True


def solve(puzzle, args, out):
    """solve: descend the stored database, or search (--search, --heuristic, --all, --batch
    and --goal mean IDA* unless --search says otherwise; so does a puzzle with no database
    built but a bound).  Boards are answered in the notation they were given in."""
    from puzzledb.query.problems import read_boards
    from puzzledb.solvers import Solver

    began = time.perf_counter()
    if (args.batch is None) == (not args.board):
        raise SearchError("solve takes either a board or --batch FILE")
    if args.batch and (args.all or args.limit):
        raise SearchError("--batch prints one optimal solution a board; --all and --limit "
                          "are for one board")
    frame = puzzle.capability(GoalFrames).goal_frame(args.goal) if args.goal else None
    parse = frame.parse if frame else puzzle.parse

    def given(text):  # a board and the notation it is written in
        return parse(text), puzzle.notation(text)

    # a malformed board is the first thing to report
    boards = read_boards(args.batch, given) if args.batch else [given(board_of(args))]
    if args.threads > 1 and not args.batch:
        raise SearchError("--threads is for --batch: one board is searched on one thread")
    # a puzzle beyond 64-bit ranks has no database: tree search it is
    tree = (args.search or args.heuristic or args.all or args.batch or args.goal
            or not puzzle.ranks_fit)
    reason = None  # why a solve that would read the database searches instead
    if not tree:
        if _no_database_but_a_bound(puzzle, args.results):
            reason = f"no database of {puzzle.name} in {args.results}"
        else:
            with DepthDatabase.open(puzzle.name, args.results) as db:
                if db.refusal is not None:  # a database that keeps no routes
                    reason = (f"the database of {puzzle.name} keeps {db.kind.keeps} "
                              f"(store: {db.store.kind})")
                elif db.distance(board_of(args)) is not None:
                    notation = boards[0][1]
                    route = db.solution(board_of(args))
                    out.write(show_boards(puzzle, [puzzle.format_as(puzzle.unrank(rank),
                                                                    notation)
                                                   for rank in route]))
                    moves = puzzle.route_moves(route)
                    if moves is not None:  # a puzzle whose moves have names: them too
                        print(f"moves: {' '.join(moves) or '(none)'}", file=out)
                    return
                else:
                    reason = (f"{board_of(args)!r} lies beyond the {db.max_depth} stored "
                              f"layers of {puzzle.name}")
    if args.batch and not (args.search or args.heuristic or args.goal):
        db = _walking_database(puzzle, args.results)
        if db is not None:
            with db:
                _batch_from_table(db, boards, out, began)
            return
    solver = Solver(puzzle, args.search or "ida", args.heuristic, args.results)
    _say_how(solver, args, reason)
    if args.batch:
        _batch(solver, boards, frame, args, out, began)
    else:
        _tree_search(solver, *boards[0], frame, args, out)


def _walking_database(puzzle, results):
    """The database of `puzzle` whose routes are walks down a distance table (store:
    distances), which answers solve --batch itself; None for any other (a batch is then
    solved by tree search, as it always was)."""
    if not LayerStore(paths.layers(results, puzzle.name), puzzle).manifest_path().exists():
        return None
    db = DepthDatabase.open(puzzle.name, results)
    if db.lookup.walks:
        return db
    db.close()
    return None


def _batch_from_table(db, boards, out, began):
    """solve --batch from a distance table: one problem line per board, in input order, and
    a summary on stderr."""
    from puzzledb.query.problems import problem_line

    puzzle = db.puzzle
    for board, notation in boards:
        rank = puzzle.rank(board)
        depth = int(db.depths(puzzle.key_array([rank]))[0])
        if depth < 0:
            raise BoardError(f"{puzzle.name}: board {puzzle.format(board)!r} is "
                             + (f"more than {db.max_depth} moves away, beyond the table"
                                if db.partial else "unreachable (in no layer)"))
        print(problem_line(puzzle, db.lookup.route(rank, depth), None, notation), file=out,
              flush=True)
    print(f"distance table of {puzzle.name}: {len(boards)} boards in "
          f"{time.perf_counter() - began:.2f} s, loading included", file=sys.stderr)


# What the additive pattern databases buy, measured (docs/solvers.md, docs/benchmarks.md):
# Korf's 100 random 15-puzzles, 35.9 billion nodes generated with Manhattan distance (Korf
# 1985) against 3.7 million with the 7-8 tables; his instance 1, 85.5 s against 0.04 s.
PDBS_HINT = ("the additive pattern databases (`snakemake pdbs`) solve random positions "
             "thousands of times faster")


def _say_how(solver, args, reason):
    """One line on stderr when solve searches where a user may not expect it: why (reason:
    no database, a board beyond a partial one) and by which bound, and, when the puzzle's
    additive pattern databases are not built and no bound was asked for, what building
    them buys."""
    hint = (solver.heuristic is not None and solver.additive is None and not args.heuristic
            and solver.puzzle.additive_partitions())
    if reason is None and not hint:
        return
    line = f"solving by tree search ({solver.heuristic or 'no heuristic'})"
    if reason is not None:
        line = f"{reason}: {line}"
    if hint:
        line = f"{line}; {PDBS_HINT}"
    print(f"puzzledb: {line}", file=sys.stderr)


def _batch(solver, boards, frame, args, out, began):
    """solve --batch: one problem line per board, in input order, on --threads threads; a
    progress bar (shown in a log too: a batch may run for minutes) and a line per board on
    stderr (its length, nodes and seconds), a summary at the end."""
    from puzzledb.query.problems import problem_line
    from puzzledb.solvers import solve_in_order

    search = args.search or "ida"
    solvers = [solver] + [solver.twin() for _ in range(min(args.threads, len(boards)) - 1)]
    nodes = seconds = 0
    running = {}  # board -> nodes so far, for the bar
    with tqdm(total=len(boards), desc=f"{search} {solver.puzzle.name}", unit=" boards",
              leave=False, dynamic_ncols=True) as bar:
        def progress(i, threshold, n):
            running[i] = n
            bar.set_postfix_str(f"{nodes + sum(running.values()):,} nodes, threshold "
                                f"{threshold}")

        def solved(i, result):
            nonlocal nodes, seconds
            running.pop(i, None)
            nodes += result.nodes
            seconds += result.seconds
            generated = ("" if result.generated is None else
                         f" ({result.generated:,} generated)")
            bar.write(f"board {i + 1}: {result.length} moves, {result.nodes:,} nodes"
                      f"{generated}, {result.seconds:.2f} s", file=sys.stderr)
            bar.set_postfix_str(f"{nodes:,} nodes", refresh=False)
            bar.update()

        for (board, notation), result in zip(boards, solve_in_order(
                solvers, [board for board, _ in boards], solved, progress)):
            print(problem_line(solver.puzzle, result.paths[0], frame, notation), file=out,
                  flush=True)
    print(f"{search} ({solver.heuristic or 'no heuristic'}): {len(boards)} boards, "
          f"{nodes:,} nodes in {seconds:.2f} s"
          + (f" of search on {len(solvers)} threads" if len(solvers) > 1 else "")
          + f" ({time.perf_counter() - began:.2f} s in all, loading included)",
          file=sys.stderr)


def _tree_search(solver, board, notation, frame, args, out):
    """One board by tree search, no database of the puzzle needed (a pattern database
    named by --heuristic is read from --results)."""
    from puzzledb.query.problems import problem_line

    search = args.search or "ida"
    puzzle = solver.puzzle
    bar = None

    def progress(threshold, nodes):  # called every few million nodes: long searches only
        nonlocal bar
        if bar is None:
            bar = tqdm(desc=f"{search} {puzzle.name}", unit=" nodes", unit_scale=True,
                       disable=None, leave=False)
        bar.set_postfix_str(f"threshold {threshold}", refresh=False)
        bar.update(nodes - bar.n)

    try:
        solved = solver.solve(board, all_solutions=args.all, limit=args.limit,
                              progress=progress)
    finally:
        if bar is not None:
            bar.close()
    if args.all:
        for path in solved.paths:
            print(problem_line(puzzle, path, frame, notation), file=out)
    else:
        out.write(show_boards(puzzle, [frame.format(puzzle.unrank(rank), notation) if frame
                                       else puzzle.format_as(puzzle.unrank(rank), notation)
                                       for rank in solved.paths[0]]))
    count = len(solved.paths)
    what = f"{count} optimal solution{'s' * (count != 1)}" if args.all else "an optimal solution"
    print(f"{search} ({solved.heuristic or 'no heuristic'}): {what} of {solved.length} "
          f"moves, {solved.nodes:,} nodes in {solved.seconds:.2f} s", file=sys.stderr)
