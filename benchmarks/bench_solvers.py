"""Benchmark: nodes, time and nodes/s of the tree-search solvers (solvers.solve).

    python benchmarks/bench_solvers.py [--results results] [--skip-slow]

Cases: the 8-puzzle start 867 254 301 with all 40 optimal solutions (Manhattan, and
iterative deepening unless --skip-slow); 15-puzzle positions from seeded random walks
(Manhattan, the 3-colour pattern database alone on the shallower ones, and the max of
Manhattan and both coloured databases); Korf's first random 15-puzzle instance (57 moves;
the max bound, and Manhattan alone unless --skip-slow); the 16 all-black flip-it starts
with the corner bound.  The pattern databases are read from --results, or built into a
temporary directory when they are not there (about 15 s).  Times exclude numba compilation
and loading the pattern databases; each case runs once.
"""

import argparse
import random
import tempfile
import time

from puzzledb import engine, puzzles, solvers
from puzzledb.database import DepthDatabase, layer_directory
from puzzledb.errors import PuzzledbError
from puzzledb.store import LayerStore

PDBS = ("fifteen-6colour", "fifteen-3colour")
WALKS = ((60, 1), (60, 2), (60, 0), (80, 0))  # (steps, seed): optimal 28, 38, 40, 44 moves
SHALLOW = 2  # the first two walks also run with the 3-colour database alone (weak: slow)
# Korf's (1985) first random instance, 57 moves, turned by 180 degrees with tiles t -> 16-t
# so that its goal (blank top left) becomes ours (blank bottom right); distances are kept.
KORF_1 = (14, 13, 15, 7, 11, 12, 9, 5, 6, 0, 2, 1, 4, 8, 10, 3)


def korf_board(tiles):
    """A board in Korf's convention (cell p holds tile t, goal t at cell t) as ours."""
    cells = ["0"] * 16
    for p, t in enumerate(tiles):
        cells[15 - p] = "0123456789abcdef"[(16 - t) % 16]
    return " ".join("".join(cells[i:i + 4]) for i in range(0, 16, 4))


def walk(steps, seed):
    """The 15-puzzle goal after `steps` random slides that never undo the last one."""
    rng = random.Random(seed)
    board, previous = list("123456789abcdef0"), None
    for _ in range(steps):
        blank = board.index("0")
        r, c = divmod(blank, 4)
        near = [n for n, ok in ((blank - 4, r > 0), (blank + 4, r < 3), (blank - 1, c > 0),
                                (blank + 1, c < 3)) if ok and n != previous]
        n = rng.choice(near)
        board[blank], board[n], previous = board[n], board[blank], blank
    return " ".join("".join(board[i:i + 4]) for i in range(0, 16, 4))


def pattern_results(results):
    """A results directory holding both coloured databases, building them if needed."""
    try:
        for name in PDBS:
            DepthDatabase.open(name, results).close()
        return results
    except PuzzledbError:
        tmp = tempfile.mkdtemp(prefix="puzzledb-pdb-")
        for name in PDBS:
            engine.build(puzzles.get(name), layer_directory(tmp, name), progress=False,
                         log=lambda m: None)
        return tmp


def row(case, solved, solutions=None):
    rate = solved.nodes / solved.seconds if solved.seconds else float("inf")
    count = len(solved.paths) if solutions is None else solutions
    print(f"{case:38s} {solved.heuristic or 'none':50s} {solved.length:>4d} {count:>4d} "
          f"{solved.nodes:>11,d} {solved.seconds:>8.2f} {rate:>11,.0f}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default="results")
    parser.add_argument("--skip-slow", action="store_true",
                        help="skip the slow cases: the 8-puzzle by plain iterative deepening and "
                             "Korf's instance by Manhattan distance alone (minutes)")
    args = parser.parse_args()
    results = pattern_results(args.results)
    print(f"{'case':38s} {'bound':50s} {'len':>4s} {'sols':>4s} {'nodes':>11s} "
          f"{'seconds':>8s} {'nodes/s':>11s}")

    row("eight 867 254 301, all", solvers.solve("eight", "867 254 301", all_solutions=True))
    eight = puzzles.get("eight")
    if LayerStore(layer_directory(results, "eight"), eight).manifest_path().exists():
        row("eight 867 254 301, all", solvers.solve(  # the database as its own bound
            "eight", "867 254 301", all_solutions=True, heuristic="pdb:eight",
            results=results))
    if not args.skip_slow:
        row("eight 867 254 301, all",
            solvers.solve("eight", "867 254 301", search="iddfs", all_solutions=True))

    for spec in ("manhattan", "pdb:fifteen-6colour", "pdb:fifteen-3colour"):
        solvers.lower_bound(puzzles.get("fifteen"), spec, results)  # load before timing
    every = "manhattan,pdb:fifteen-6colour,pdb:fifteen-3colour"
    for n, (steps, seed) in enumerate(WALKS):
        board = walk(steps, seed)
        specs = ("manhattan", "pdb:fifteen-3colour", every) if n < SHALLOW else (
            "manhattan", every)
        for spec in specs:
            row(f"fifteen {board}", solvers.solve("fifteen", board, heuristic=spec,
                                                   results=results))
    board = korf_board(KORF_1)
    row(f"fifteen {board} (Korf 1)", solvers.solve("fifteen", board, heuristic=every,
                                                   results=results))
    if not args.skip_slow:
        row(f"fifteen {board} (Korf 1)", solvers.solve("fifteen", board,
                                                       heuristic="manhattan"))

    for name in ("flipit-square", "flipit-square-diagonal"):
        nodes = seconds = 0
        lengths = []
        for empty in range(16):
            board = "".join("S" if c == empty else "B" for c in range(16))
            solved = solvers.solve(name, board)
            nodes, seconds = nodes + solved.nodes, seconds + solved.seconds
            lengths.append(solved.length)
            if name == "flipit-square" and empty in (0, 1, 5):
                row(f"{name} all black, empty at {empty}", solved)
        total = solvers.Solved(solved.puzzle, max(lengths), [], nodes, seconds, "corner")
        row(f"{name} 16 all-black starts", total, solutions=16)


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"total {time.perf_counter() - start:.1f} s")
