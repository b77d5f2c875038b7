"""Problem extraction: the distribution of a query set's distances, and problem files of its
hardest positions with an optimal route each, replayable to the goal.

Problem file format (text, UTF-8).  Lines starting with '#' are comments (the header names
the puzzle and the format).  Every other line is one problem, the seed's format:

    <board>:<length>:<route>
    14ba5e729cd638__:32:13|9|5|6|2|...|14

board  -- the cells row-major with no separators ('_' an empty cell); a board given one
          decimal number a cell (`puzzledb solve --batch`) keeps that notation, the numbers
          separated by spaces (`14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3:57:...`)
length -- the optimal number of moves
route  -- the blank's cell after each move, '|'-separated, `length` entries; where the
          blank is several cells (the 14-puzzle's domino) it is the first of them, row-major
          (the domino's left cell); a family whose moves the blank does not tell apart says
          what stands there instead (Puzzle.route_cell; sliding blocks: docs/blocks.md).
          Replaying: at each step exactly one move gives that token; after the last the
          board is the goal.
"""

import csv
from dataclasses import dataclass

import numpy as np

from puzzledb.query import matching
from puzzledb.compiled import set_threads
from puzzledb.errors import BoardError, ProblemError
from puzzledb.puzzles.base import SEPARATORS
from puzzledb.store.files import write_text

FORMAT = "board:length:route (route: the blank's first cell after each move, '|'-separated)"
PER_DISTANCE = 200  # problems kept per distance unless a problem set says otherwise


@dataclass
class Problem:
    board: str
    length: int
    route: list


def select_problems(ranks, distances, per_distance=PER_DISTANCE, min_distance=None, seed=0):
    """The chosen problems as (ranks, distances), hardest first: for every distance >=
    min_distance (default: all), all positions if there are at most per_distance, else a
    sample drawn with numpy's generator seeded by `seed` (so the same inputs always give the
    same file); within a distance by rank."""
    ranks = np.asarray(ranks, dtype=np.uint64)
    distances = np.asarray(distances)
    rng = np.random.default_rng(seed)
    chosen_r, chosen_d = [], []
    for d in sorted(set(int(x) for x in np.unique(distances) if x >= 0), reverse=True):
        if min_distance is not None and d < min_distance:
            continue
        pick = np.flatnonzero(distances == d)
        if pick.size > per_distance:
            pick = rng.choice(pick, per_distance, replace=False)
        pick = pick[np.argsort(ranks[pick], kind="stable")]
        chosen_r.append(ranks[pick])
        chosen_d.append(np.full(pick.size, d, dtype=np.int64))
    if not chosen_r:
        return np.zeros(0, np.uint64), np.zeros(0, np.int64)
    return np.concatenate(chosen_r), np.concatenate(chosen_d)


def problem_line(puzzle, path, frame=None, notation="symbols"):
    """One problem line from a path of ranks (the problem first, a goal last).  frame: a
    GoalFrames.goal_frame; the board and the route are then written as the frame's goal has them.
    notation: the board's, as Puzzle.notation names it; symbols are written without
    separators, another notation (decimal) as format_as writes it."""
    board = puzzle.unrank(path[0])
    text = frame.format(board, notation) if frame else puzzle.format_as(board, notation)
    if notation == "symbols":
        text = "".join(ch for ch in text if ch not in SEPARATORS)
    boards = [puzzle.unrank(r) for r in path]
    cells = [puzzle.route_cell(a, b) for a, b in zip(boards, boards[1:])]
    route = "|".join(str(frame.cell(c) if frame else c) for c in cells)
    return f"{text}:{len(path) - 1}:{route}"


def read_boards(path, parse):
    """The boards of a file, one a line (blank lines and '#' comments skipped), each parsed
    by parse(text).  BoardError naming the file and the line of the first bad one."""
    boards = []
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise BoardError(f"cannot read {path}: {getattr(err, 'strerror', None) or err}") \
            from None
    for number, line in enumerate(lines, 1):
        if line.strip() and not line.lstrip().startswith("#"):
            try:
                boards.append(parse(line.strip()))
            except BoardError as err:
                raise BoardError(f"{path} line {number}: {err}") from None
    return boards


def write_problems(path, layers, ranks, distances, per_distance=PER_DISTANCE,
                   min_distance=None, seed=0, relabel=True):
    """Select problems (see select_problems), find an optimal route for each from the goal
    layers (matching.optimal_route), check that it has the stated length, and write the
    problem file.  Returns the number of problems."""
    puzzle = layers.puzzle
    chosen, lengths = select_problems(ranks, distances, per_distance, min_distance, seed)
    lines = [
        f"# puzzledb problems: {puzzle.name}",
        f"# format: {FORMAT}",
        f"# {chosen.size} problems, up to {per_distance} per distance, sample seed {seed}",
    ]
    for rank, length in zip(chosen, lengths):
        route = matching.optimal_route(layers, int(rank), relabel=relabel)
        if len(route) - 1 != length:
            raise ProblemError(f"{puzzle.name}: route of {len(route) - 1} moves for a "
                               f"position at distance {length}")
        lines.append(problem_line(puzzle, route))
    write_text(path, "\n".join(lines) + "\n")
    return int(chosen.size)


def parse_problem(line):
    try:
        board, length, route = line.strip().split(":")
        return Problem(board, int(length), [int(x) for x in route.split("|")] if route else [])
    except ValueError:
        raise ProblemError(f"malformed problem line {line.strip()!r}") from None


def read_problems(path):
    with open(path) as f:
        return [parse_problem(line) for line in f if line.strip() and not line.startswith("#")]


def replay(puzzle, problem):
    """Follow a problem's route from its board; the ranks visited.  ProblemError unless every
    step is exactly one move and the route ends at a goal after `length` moves."""
    rank = puzzle.board_rank(problem.board)
    goals = set(int(g) for g in puzzle.goal_ranks())
    visited = [rank]
    if len(problem.route) != problem.length:
        raise ProblemError(f"{problem.board}: route has {len(problem.route)} moves, "
                           f"length says {problem.length}")
    for step, cell in enumerate(problem.route, 1):
        before = puzzle.unrank(rank)
        moves = [n for n in puzzle.neighbours(rank)
                 if puzzle.route_cell(before, puzzle.unrank(n)) == cell]
        if len(moves) != 1:
            raise ProblemError(f"{problem.board}: move {step} to cell {cell} is "
                               f"{'impossible' if not moves else 'ambiguous'}")
        rank = moves[0]
        visited.append(rank)
    if rank not in goals:
        raise ProblemError(f"{problem.board}: the route ends at {puzzle.decode(rank)}, "
                           f"not at the goal")
    return visited


def check_problem_file(path, puzzle):
    """Replay every problem of a file; the number checked (ProblemError at the first bad)."""
    problems = read_problems(path)
    for problem in problems:
        replay(puzzle, problem)
    return len(problems)


def distribution(distances):
    """(distance, count) pairs, ascending; -1 (unresolved) first if present."""
    values, counts = np.unique(np.asarray(distances), return_counts=True)
    return [(int(v), int(c)) for v, c in zip(values, counts)]


def write_distribution(path, distances):
    """CSV `distance,count,cumulative` of a query set's distances (-1: unresolved)."""
    lines = ["distance,count,cumulative"]
    total = 0
    for d, c in distribution(distances):
        total += c
        lines.append(f"{d},{c},{total}")
    write_text(path, "\n".join(lines) + "\n")


def read_distribution(path):
    """(distance, count, cumulative) rows of a distribution CSV."""
    with open(path) as f:
        return [(int(r["distance"]), int(r["count"]), int(r["cumulative"]))
                for r in csv.DictReader(f)]



def extract(puzzle, layer_directory, k, query_set, distribution_path, problems_path,
            per_distance=PER_DISTANCE, min_distance=None, seed=0, distances_path=None,
            threads=None, log=None):
    """The whole step, for a workflow rule or the command line: read layers 0..k of
    `puzzle` from `layer_directory`, match the named query set (matching.query_set), write the
    distribution CSV and the problem file (problems at distances >= min_distance, default
    k + 1), optionally the distances as .npy (aligned with the query set's ranks).
    threads: numba threads of the matching.  Returns the distances."""
    set_threads(threads)
    layers = matching.open_goal_layers(puzzle, layer_directory, k)
    queries = matching.query_set(puzzle, query_set)
    found = matching.distances(layers, queries, log=log)
    write_distribution(distribution_path, found)
    if distances_path is not None:
        np.save(distances_path, found)
    write_problems(problems_path, layers, queries, found, per_distance,
                   layers.k + 1 if min_distance is None else min_distance, seed)
    return found
