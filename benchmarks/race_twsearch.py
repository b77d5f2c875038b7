"""The race of issue 35: `twsearch -g -t 2` against `puzzledb build` on the same definition
files of twsearch's own, same run, alternated: whole-command times side by side, the peak RSS
of each, and whether the per-depth counts are identical (as far as both go).

    python benchmarks/race_twsearch.py --twsearch /path/to/twsearch       # 2x2x2 skewb pyraminx
    python benchmarks/race_twsearch.py --repeat 3 3p1                     # a quiet machine
    python benchmarks/race_twsearch.py --repeat 1 moonspinner 2x2x3 fto-corners-edges
    python benchmarks/race_twsearch.py --list                             # the races known

The files come from the checkout's samples/main; two are derived from them at run time and
written to a temporary directory only (never kept): `2x2x3`, the 3x3x3 with the two corners
and five edges that U and R never move named and every other piece identical with its twist
ignored ('?'): 1,532,805,120 positions; `fto-corners-edges`, FTO.tws with its two centre
sets taken out (its eight face moves, 16 generators), built to depth 9.

Each race gives both programs the same memory: `--memory-mb` to puzzledb and `-M` to twsearch
(4,000 MiB but for moonspinner, whose two-bit array is 11 GiB: 12,000).  Before the clock, one
untimed puzzledb run of the same file to depth 2 loads its compiled kernels (the log's
'compiling' seconds of each timed run are shown: a backward kernel may still load in the
first).  twsearch's table is read from its "Dist" lines, puzzledb's from its log; a run
stopped by --time-limit counts as far as it got.  The load average before each run is shown:
the machine may be shared.
"""

import argparse
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import twsearch_peer as peer

BLOCKS = ("Solved", "StartState", "Move", "Scramble", "ScrambleState", "MoveTransformation")


def read_blocks(lines):
    """A definition's sets and blocks by line index: sets {name: (its line, pieces,
    orientations)}; blocks [(words of the first line, first line, End's line, {set: [the
    set name's line, its rows' lines]})]."""
    sets, blocks, current, name = {}, [], None, None
    for index, line in enumerate(lines):
        words = line.split("#")[0].split()
        if not words:
            continue
        if current is None:
            if words[0] == "Set":
                sets[words[1]] = (index, int(words[2]), int(words[3]))
            elif words[0] in BLOCKS:
                current = (words, index, {})
        elif words[0] == "End":
            blocks.append((*current[:2], index, current[2]))
            current = None
        elif words[0][0].isdigit() or words[0] == "?":
            current[2][name].append(index)
        else:
            name = words[0]
            current[2][name] = [index]
    return sets, blocks


def without_sets(text, names):
    """The definition without the sets `names`: their Set lines, their rows in every block
    and their Illegal lines taken out."""
    lines = text.splitlines()
    sets, blocks = read_blocks(lines)
    missing = set(names) - set(sets)
    if missing:
        sys.exit(f"no set {', '.join(sorted(missing))} in the definition")
    drop = {sets[name][0] for name in names}
    for *_, rows in blocks:
        drop.update(i for name in names for i in rows.get(name, ()))
    drop.update(i for i, line in enumerate(lines)
                if line.split()[:1] == ["Illegal"] and line.split()[1] in names)
    return "\n".join(line for i, line in enumerate(lines) if i not in drop) + "\n"


def numbers(line):
    return [int(x) for x in line.split("#")[0].split()]


def named_block(text, faces):
    """The definition with only the pieces no move of `faces` moves or twists told apart: a
    new Solved block numbers them 1, 2, ... in slot order (their twists as they were) and
    gives every other piece of their set one shared number and '?' twists.  Faces U and R of
    the 3x3x3 leave the 2x2x3 block at D, L: two corners and five edges."""
    lines = text.splitlines()
    sets, blocks = read_blocks(lines)
    moves = {words[1]: rows for words, _, _, rows in blocks if words[0] == "Move"}
    solved = next((b for b in blocks if b[0][0] == "Solved"), None)
    new = ["Solved"]
    for name, (_, size, twists) in sets.items():
        touched = set()
        for face in faces:
            rows = moves[face].get(name)  # a set a move leaves out: unchanged
            if rows:
                perm = numbers(lines[rows[1]])
                turn = numbers(lines[rows[2]]) if len(rows) > 2 else [0] * size
                touched.update(s for s in range(size) if perm[s] != s + 1 or turn[s])
        rows = solved[3].get(name) if solved else None
        labels = numbers(lines[rows[1]]) if rows else list(range(1, size + 1))
        oris = lines[rows[2]].split("#")[0].split() if rows and len(rows) > 2 else ["0"] * size
        named = [s for s in range(size) if s not in touched]
        number = {label: i + 1 for i, label in enumerate(sorted({labels[s] for s in named}))}
        new += [name, " ".join(str(number[labels[s]]) if s in named else str(len(number) + 1)
                               for s in range(size))]
        if twists > 1:
            new.append(" ".join(oris[s] if s in named else "?" for s in range(size)))
    new.append("End")
    if solved:
        return "\n".join(lines[:solved[1]] + new + lines[solved[2] + 1:]) + "\n"
    first = min(b[1] for b in blocks)
    return "\n".join(lines[:first] + new + [""] + lines[first:]) + "\n"


@dataclass(frozen=True)
class Race:
    """One file of the race and how both programs run it."""

    source: str  # the file in samples/main
    memory_mb: int = 4000  # puzzledb --memory-mb and twsearch -M
    store: str = "layers"
    depth_limit: int | None = None
    derive: tuple = ()  # ("without", set names) or ("block", face moves)


RACES = {
    "2x2x2": Race("2x2x2.tws"),
    "skewb": Race("skewb.tws"),
    "pyraminx": Race("pyraminx.tws"),
    "3p1": Race("3p1.tws"),
    "moonspinner": Race("moonspinner.tws", memory_mb=12000, store="counts"),
    "2x2x3": Race("3x3x3.tws", derive=("block", ("U", "R"))),
    "fto-corners-edges": Race("FTO.tws", depth_limit=9,
                              derive=("without", ("CENTER", "CENTER2"))),
    # keys of several words (issue 42): prefixes, and m24conway's sparse group in full
    "3x3x3": Race("3x3x3.tws", depth_limit=7, memory_mb=12000),
    "megaminx": Race("megaminx.tws", depth_limit=6, memory_mb=12000),
    "4x4x4": Race("4x4x4.tws", depth_limit=6, memory_mb=12000),
    "fto": Race("FTO.tws", depth_limit=8, memory_mb=12000),
    "squareone": Race("squareone.tws", depth_limit=15, memory_mb=12000),
    "master-pyraminx": Race("master_pyraminx.tws", depth_limit=7, memory_mb=12000),
    "m24conway": Race("m24conway.tws", memory_mb=12000),
}
SMALL = ["2x2x2", "skewb", "pyraminx"]


def definition_file(name, race, root, scratch):
    """The race's file: the sample itself, or the one derived from it in scratch."""
    source = root / "samples/main" / race.source
    if not race.derive:
        return source
    kind, argument = race.derive
    text = source.read_text()
    derived = without_sets(text, argument) if kind == "without" else named_block(text, argument)
    path = scratch / f"{name}.tws"
    path.write_text(f"# {name}: derived from twsearch's {race.source} by "
                    f"benchmarks/race_twsearch.py\n" + derived)
    return path


def build_arguments(race, threads, depth_limit=None):
    """`puzzledb build`'s options for the race (a depth limit of its own, or another)."""
    extra = ["--store", race.store] if race.store != "layers" else []
    limit = depth_limit if depth_limit is not None else race.depth_limit
    extra += ["--depth-limit", str(limit)] if limit is not None else []
    return ["--threads", str(threads), "--memory-mb", str(race.memory_mb), *extra]


def race_one(name, race, path, program, scratch, args):
    """Alternate twsearch and puzzledb --repeat times; print tables, times and peak RSS."""
    options = build_arguments(race, args.threads)
    warm = peer.puzzledb_build(scratch, name, path,
                               *build_arguments(race, args.threads, depth_limit=2),
                               timeout=args.time_limit)
    command = peer.twsearch_command(program, path, args.threads, memory_mb=race.memory_mb)
    tw_runs, pdb_runs = [], []
    for _ in range(args.repeat):
        load = os.getloadavg()[0]
        tw_runs.append((load, peer.measured(command, timeout=args.time_limit)))
        if warm.returncode == 0:
            load = os.getloadavg()[0]
            pdb_runs.append((load, peer.puzzledb_build(scratch, name, path, *options,
                                                       timeout=args.time_limit)))
    theirs = peer.twsearch_counts(tw_runs[-1][1].stdout)
    ours = peer.layer_counts(pdb_runs[-1][1].stderr) if pdb_runs else []
    print(f"\n== {name} ({path.name}; memory {race.memory_mb:,} MiB, store {race.store}"
          + (f", depth limit {race.depth_limit}" if race.depth_limit is not None else "") + ")")
    print(f"twsearch: {' '.join(command)} ({peer.twsearch_index(tw_runs[-1][1].stdout)})")
    print(f"puzzledb: build {name} {' '.join(options)} ({name} declared under define: as "
          f"family permutation, file {path})")
    if warm.returncode != 0:
        print(f"puzzledb refuses it: {(warm.stderr.strip().splitlines() or ['?'])[-1]}")
    print(f"{'depth':>5} {'twsearch':>16} {'puzzledb':>16}")
    for d in range(max(len(theirs), len(ours))):
        cells = [f"{t[d]:,}" if d < len(t) else "-" for t in (theirs, ours)]
        print(f"{d:>5} {cells[0]:>16} {cells[1]:>16}")
    if ours and theirs:
        print(f"tables {peer.compare(ours, theirs)}; twsearch {sum(theirs):,} states to depth "
              f"{len(theirs) - 1}, puzzledb {sum(ours):,} to depth {len(ours) - 1}")
    print("twsearch  " + "; ".join(describe(load, run) for load, run in tw_runs))
    if race.depth_limit is not None:  # twsearch -g goes on: its time to the same depth
        reached = [peer.twsearch_seconds(run.stdout, race.depth_limit) for _, run in tw_runs]
        print(f"twsearch to depth {race.depth_limit}: " + "; ".join(
            "never" if s is None else f"{s:.1f} s" for s in reached))
    if pdb_runs:
        print("puzzledb  " + "; ".join(describe(load, run) + puzzledb_split(run)
                                       for load, run in pdb_runs))


def describe(load, run):
    """A run's whole time, CPU, peak RSS and the load before it; how it ended if not well."""
    return (f"{run.seconds:.2f} s (CPU {run.cpu:.1f} s, peak {run.peak_mib:,.0f} MiB, load "
            f"{load:.1f})" + (f" [{run.ended()}]" if run.ended() else ""))


def puzzledb_split(run):
    """puzzledb's own split of its time, from its log: the search and kernel loading."""
    found = re.search(r"BFS ([\d.]+) s after ([\d.]+) s compiling", run.stderr)
    return f" [BFS {found[1]} s, compiling {found[2]} s]" if found else ""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", default=SMALL, help=f"races (default: {SMALL})")
    peer.add_arguments(parser)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=3 * 3600,
                        help="seconds a run may take before it is stopped (default 3 h)")
    parser.add_argument("--list", action="store_true", help="the races known, and stop")
    args = parser.parse_args(argv)
    if args.list:
        for name, race in RACES.items():
            print(f"{name:18s} {race}")
        return
    unknown = [n for n in args.names if n not in RACES]
    if unknown:
        sys.exit(f"unknown race {', '.join(unknown)} (known: {', '.join(RACES)})")
    root = peer.checkout(args.twsearch, args.clone_dir)
    program = peer.binary(root, args.twsearch_binary)
    if program is None:
        sys.exit(f"no twsearch binary in {root}/build/bin: `make build` there (its README), "
                 f"or give --twsearch-binary")
    print(f"twsearch {program} at {peer.commit(root)}; puzzledb from "
          f"{peer.puzzledb_env()['PYTHONPATH']}; {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        for name in args.names:
            race_one(name, RACES[name], definition_file(name, RACES[name], root, scratch),
                     program, scratch, args)


if __name__ == "__main__":
    main()
