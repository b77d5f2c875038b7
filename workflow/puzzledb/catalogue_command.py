"""`puzzledb catalogue` and a catalogue's board given to `distance` and `solve` (cli.py
parses their options): a catalogue's rows drawn, its box's totals, and an optimal
solution from one of its boards."""

from pathlib import Path

from puzzledb import paths
from puzzledb.errors import PuzzleError, SearchError
from puzzledb.puzzles.capabilities import Catalogued
from puzzledb.solve_command import board_of


def show(puzzle, args, out):
    """Rows of the catalogue's table (report/catalogue.py), each a line '<moves> moves,
    <states> states[, minimal]' and the board drawn; or (--summary) the box's totals."""
    from puzzledb.report.catalogue import rows

    catalogue = puzzle.capability(Catalogued)
    path = Path(paths.catalogue(args.results, catalogue.name))
    if not path.is_file():
        raise PuzzleError(f"{catalogue.name}: no catalogue in {path} (build it: snakemake "
                          f"--config 'puzzles=[]' 'catalogues=[{catalogue.name}]')")
    if args.summary:
        totals_lines(catalogue, args, out)
        return
    for row in rows(path, args.moves, args.min_moves, args.limit, args.minimal):
        minimal = ", minimal" if row["minimal"] == "true" else ""
        print(f"{row['moves']} moves, {int(row['states']):,} states{minimal}", file=out)
        print("\n".join(row["board"].split()) + "\n", file=out)


def totals_lines(catalogue, args, out):
    """The lines of `puzzledb catalogue NAME --summary` (report/catalogue.py's TOTALS)."""
    from puzzledb.report.catalogue import totals

    path = Path(paths.catalogue_totals(args.results, catalogue.name))
    if not path.is_file():
        raise PuzzleError(f"{catalogue.name}: no totals in {path} (made by the catalogue "
                          f"rule with catalogue.csv: build it again)")
    t = totals(path)
    # the clusters not searched hold fewer boards than the largest searched: it is the box's
    overall = (" (the largest of the box: the clusters that cannot reach the goal hold fewer "
               "boards all together)" if t["boards_not_reaching"] < t["largest_reaching"]
               else "")
    print(f"{catalogue.name}: {t['boards']:,} boards in the box\n"
          f"{t['clusters_reaching']:,} clusters reach the goal, holding "
          f"{t['boards_reaching']:,} boards; the largest {t['largest_reaching']:,}{overall}\n"
          f"{t['boards_not_reaching']:,} boards in clusters that cannot reach the goal (not "
          f"searched: those clusters are not counted)", file=out)


def route(puzzle, args):
    """An optimal solution from a catalogue's board (a search of its cluster, the board a
    puzzle of its own pieces), the board first; SearchError if it cannot reach the goal."""
    board = puzzle.parse(board_of(args))
    route = puzzle.solution(board)
    if route is None:
        raise SearchError(f"{puzzle.name}: {puzzle.format(board)!r} cannot reach the goal")
    return route
