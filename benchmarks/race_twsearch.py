"""The race of issues 35 and 44: `twsearch -g -t 2` against `puzzledb build` on the same
definition files of twsearch's own, whole command against whole command, same run,
alternated: first use (an empty kernel cache, as on a fresh install) and warm, the peak RSS
of each, whether the per-depth counts are identical (as far as both go), and with
--workflow the whole workflow (`snakemake`) too.

    python benchmarks/race_twsearch.py --twsearch /path/to/twsearch   # 2x2x2 (both) skewb pyraminx
    python benchmarks/race_twsearch.py --repeat 3 --workflow 3p1      # a quiet machine
    python benchmarks/race_twsearch.py --repeat 1 moonspinner 2x2x3 fto-corners-edges
    python benchmarks/race_twsearch.py --list                         # the races known

The files come from the checkout's samples/main: every file puzzledb builds in full
(twsearch_samples.py; the 2x2x2 in quarter turns too); two more are derived from them at
run time and written to the scratch directory only (never kept): `2x2x3`, the 3x3x3 with the
two corners and five edges that U and R never move named and every other piece identical
with its twist ignored ('?'): 1,532,805,120 positions; `fto-corners-edges`, FTO.tws with its
two centre sets taken out (its eight face moves, 16 generators), built to depth 9.

Each race gives both programs the same memory: `--memory-mb` to puzzledb and `-M` to twsearch
(4,000 MiB but where the two-bit array needs more).  Each race's first puzzledb run uses an
empty kernel cache of its own (PUZZLEDB_CACHE_DIR): its whole command is the first use, its
log's 'compiling' seconds what compiling cost, and its BFS seconds show whether anything
compiled inside the search; the runs after it are warm (--no-first-use: an untimed build to
depth 2 fills the cache instead).  twsearch's table is read from its "Dist" lines,
puzzledb's from its log; a run stopped by --time-limit counts as far as it got, and a
twsearch run stopped so gives the ratio as a lower bound ("at least").  The load
average before each run is shown: the machine may be shared.  The summary table at the end
is in markdown (docs/benchmarks.md), warm figures the best of the runs.
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
    metric: str = "htm"  # or "qtm": twsearch -q


# Every sample file twsearch_samples.py finds puzzledb builds in full (docs/permutation.md),
# the corners in quarter turns too, and two files derived from the samples.
RACES = {
    "2x2x2": Race("2x2x2.tws"),
    "2x2x2-qtm": Race("2x2x2.tws", metric="qtm"),
    # what `twsearch -g` makes, a table of counts: the same build keeping its counts, samples
    # and deepest positions, no layer files
    "2x2x2-counts": Race("2x2x2.tws", store="counts"),
    "2x2x2-qtm-counts": Race("2x2x2.tws", metric="qtm", store="counts"),
    "skewb": Race("skewb.tws"),
    "pyraminx": Race("pyraminx.tws"),
    "3p1": Race("3p1.tws"),
    "233": Race("233.tws"),
    "235": Race("235.tws"),
    "dino": Race("dino.tws"),
    "ufo": Race("ufo.tws"),
    "tangram": Race("tangram.tws"),
    "mastermorphix": Race("mastermorphix.tws"),
    "jing-pyraminx": Race("Jing_pyraminx.tws"),
    "skewb-diamond": Race("skewb_diamond.tws"),
    "master-pyramorphix": Race("master_pyramorphix.tws"),
    "puzzlerchallenger": Race("puzzlerchallenger.tws"),
    "lo33": Race("lo33.tws"),
    "puzzlernovice": Race("puzzlernovice.tws"),
    "pyramorphix": Race("pyramorphix.tws"),
    "turnstile": Race("turnstile.tws", store="counts"),
    "turnfour": Race("turnfour.tws", memory_mb=6000, store="counts"),
    "moonspinner": Race("moonspinner.tws", memory_mb=12000, store="counts"),
    "vertushka": Race("vertushka.tws", memory_mb=17500, store="counts"),
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
SMALL = ["2x2x2", "2x2x2-qtm", "skewb", "pyraminx"]


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
    """A first use (an empty kernel cache) unless --no-first-use, then twsearch, puzzledb
    and (--workflow) the whole workflow alternated --repeat times, warm; the tables, times,
    peak RSS and load before each run printed.  A row of the summary table."""
    options = build_arguments(race, args.threads)
    cache = scratch / f"kernels-{name}"  # empty: the first use compiles every kernel
    limit = [] if args.first_use else build_arguments(race, args.threads, depth_limit=2)
    first = (os.getloadavg()[0], peer.puzzledb_build(
        scratch, name, path, *(limit or options), metric=race.metric, cache=cache,
        timeout=args.time_limit))
    command = peer.twsearch_command(program, path, args.threads, metric=race.metric,
                                    memory_mb=race.memory_mb)
    runs = {"twsearch": [], "puzzledb": [], "workflow": []}
    for _ in range(args.repeat if first[1].returncode == 0 else 0):
        runs["twsearch"].append((os.getloadavg()[0], peer.measured(
            command, timeout=args.time_limit)))
        runs["puzzledb"].append((os.getloadavg()[0], peer.puzzledb_build(
            scratch, name, path, *options, metric=race.metric, cache=cache,
            timeout=args.time_limit)))
        if args.workflow:
            runs["workflow"].append((os.getloadavg()[0], peer.puzzledb_workflow(
                scratch, name, path, workflow_config(name, race, args.threads), race.metric,
                cache=cache, timeout=args.time_limit)))
    theirs = peer.twsearch_counts(runs["twsearch"][-1][1].stdout) if runs["twsearch"] else []
    ours = peer.layer_counts(runs["puzzledb"][-1][1].stderr) if runs["puzzledb"] else []
    print(f"\n== {name} ({path.name}, {race.metric}; memory {race.memory_mb:,} MiB, store "
          f"{race.store}" + (f", depth limit {race.depth_limit}" if race.depth_limit is not None
                              else "") + ")")
    index = peer.twsearch_index(runs["twsearch"][-1][1].stdout) if runs["twsearch"] else ""
    print(f"twsearch: {' '.join(command)} ({index})")
    print(f"puzzledb: build {name} {' '.join(options)} ({name} declared under define: as "
          f"family permutation, file {path}, metric {race.metric})")
    if first[1].returncode != 0:
        print(f"puzzledb refuses it: {(first[1].stderr.strip().splitlines() or ['?'])[-1]}")
    print(f"{'depth':>5} {'twsearch':>16} {'puzzledb':>16}")
    for d in range(max(len(theirs), len(ours))):
        cells = [f"{t[d]:,}" if d < len(t) else "-" for t in (theirs, ours)]
        print(f"{d:>5} {cells[0]:>16} {cells[1]:>16}")
    tables = peer.compare(ours, theirs) if ours and theirs else "-"
    if ours and theirs:
        print(f"tables {tables}; twsearch {sum(theirs):,} states to depth "
              f"{len(theirs) - 1}, puzzledb {sum(ours):,} to depth {len(ours) - 1}")
    print(("first use" if args.first_use else "warm-up to depth 2") + " (an empty kernel "
          f"cache) {describe(first[1])}{puzzledb_split(first[1])}, load {first[0]:.1f}")
    if race.depth_limit is not None and runs["twsearch"]:  # twsearch -g goes on past it
        reached = [peer.twsearch_seconds(run.stdout, race.depth_limit)
                   for _, run in runs["twsearch"]]
        print(f"twsearch reached depth {race.depth_limit} after " + "; ".join(
            "never" if s is None else f"{s:.1f} s" for s in reached))
    for program_name, measured in runs.items():
        if measured:
            print(f"{program_name:9s} " + "; ".join(
                describe(run) + (puzzledb_split(run) if program_name == "puzzledb" else "")
                + f", load {load:.1f}" for load, run in measured))
    return summary_row(name, ours, first[1] if args.first_use else None, runs, tables)


def workflow_config(name, race, threads):
    """The config lines of the whole workflow's run: the race's memory, threads, store and
    depth limit."""
    lines = f"memory_mb: {race.memory_mb}\nthreads: {threads}\n"
    if race.store != "layers":
        lines += f"store: {{'{name}': {race.store}}}\n"
    if race.depth_limit is not None:
        lines += f"depth_limit: {{'{name}': {race.depth_limit}}}\n"
    return lines


def best(runs):
    """The fastest of the runs that ended well, or None."""
    good = [run for _, run in runs if not run.ended()]
    return min(good, key=lambda run: run.seconds) if good else None


def summary_row(name, ours, first, runs, tables):
    """The race's row of the summary: whole commands, warm the best of the runs.  When no
    twsearch run finished but one was stopped by the time limit, its time is a lower bound:
    the ratio reads "at least" (puzzledb's best against the longest twsearch run cut)."""
    tw, pdb, flow = (best(runs[key]) for key in ("twsearch", "puzzledb", "workflow"))
    cut = max((run.seconds for _, run in runs["twsearch"] if run.cut == "time limit"),
              default=None)
    if tw:
        theirs, ratio = f"{tw.seconds:.2f}", (f"{tw.seconds / pdb.seconds:.2f}x" if pdb else "-")
    elif cut is not None:
        theirs = f"over {cut:.2f} (stopped, time limit)"
        ratio = f"at least {cut / pdb.seconds:.2f}x" if pdb else "-"
    else:
        theirs, ratio = "-", "-"
    cells = [name, f"{sum(ours):,}" if ours else "-",
             f"{first.seconds:.2f}{puzzledb_split(first, short=True)}" if first else "-",
             f"{pdb.seconds:.2f}{puzzledb_split(pdb, short=True)}" if pdb else "-",
             theirs, ratio,
             (f"{flow.seconds:.2f} ({tw.seconds / flow.seconds:.2f}x)" if flow and tw else "-"),
             tables]
    return cells


def describe(run):
    """A run's whole time, CPU, peak RSS; how it ended if not well."""
    return (f"{run.seconds:.2f} s (CPU {run.cpu:.1f} s, peak {run.peak_mib:,.0f} MiB)"
            + (f" [{run.ended()}]" if run.ended() else ""))


def puzzledb_split(run, short=False):
    """puzzledb's own split of its time, from its log: the search and the kernels' loading
    (or compiling) before it."""
    found = re.search(r"BFS ([\d.]+) s after ([\d.]+) s compiling", run.stderr)
    if not found:
        return ""
    return (f" ({found[1]} + {found[2]})" if short
            else f" [BFS {found[1]} s, compiling {found[2]} s]")


HEADS = ["race", "positions", "puzzledb first use (BFS + compiling)",
         "puzzledb warm (BFS + compiling)", "twsearch warm", "twsearch / puzzledb",
         "whole workflow (twsearch / it)", "tables"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", default=SMALL, help=f"races (default: {SMALL})")
    peer.add_arguments(parser)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=3 * 3600,
                        help="seconds a run may take before it is stopped (default 3 h)")
    parser.add_argument("--no-first-use", dest="first_use", action="store_false",
                        help="no first use timed: an untimed build to depth 2 fills the "
                             "kernel cache instead")
    parser.add_argument("--workflow", action="store_true",
                        help="also the whole workflow (snakemake: search, summary, deepest "
                             "positions and their moves, plot, report), warm")
    parser.add_argument("--scratch", type=Path, default=None,
                        help="where the layers and kernel caches go, made if missing "
                             "(default: the system's temporary directory); removed after")
    parser.add_argument("--list", action="store_true", help="the races known, and stop")
    args = parser.parse_args(argv)
    if peer.chosen(args.names, RACES, "race", args.list) is None:
        return
    root = peer.checkout(args.twsearch, args.clone_dir)
    program = peer.binary(root, args.twsearch_binary)
    if program is None:
        sys.exit(f"no twsearch binary in {root}/build/bin: `make build` there (its README), "
                 f"or give --twsearch-binary")
    print(f"twsearch {program} at {peer.commit(root)}; puzzledb from "
          f"{peer.puzzledb_env()['PYTHONPATH']}; {os.cpu_count()} cores")
    rows = []
    if args.scratch is not None:
        args.scratch.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=args.scratch) as tmp:
        scratch = Path(tmp)
        for name in args.names:
            rows.append(race_one(name, RACES[name], definition_file(name, RACES[name], root,
                                                                    scratch),
                                 program, scratch, args))
    print("\n| " + " | ".join(HEADS) + " |\n|" + "---|" * len(HEADS))
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
