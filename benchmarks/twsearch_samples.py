"""The acceptance table of twsearch's own definitions (issue 35): for each samples/main/*.tws
of a twsearch checkout, does puzzledb read it, and how would it build it: in full, a prefix,
or not at all (its one line)?  Optionally builds each and compares with `twsearch -g`.

    python benchmarks/twsearch_samples.py --twsearch /path/to/twsearch        # every file
    python benchmarks/twsearch_samples.py --twsearch https://github.com/rokicki/twsearch
    python benchmarks/twsearch_samples.py --markdown > acceptance.txt          # docs/permutation.md
    python benchmarks/twsearch_samples.py --build --time-limit 300 2x2x2 skewb lo33
    PYTHONPATH=/other/worktree/workflow python benchmarks/twsearch_samples.py  # its puzzledb

Each file is declared under `define:` in a temporary config and `puzzledb info` is run on
it (the puzzledb of PYTHONPATH, else this repository's).  The verdict, from what info prints:
refused (info's error line); tree search only (ranks past 64 bits); in full when the
in-memory search fits --memory-mb (default 20,000: this 24 GiB machine less room for the
rest), keeping every layer, or `store: counts` past --counts-above ranks (layer files of a
few bytes a state); else a prefix by the frontier search.

--build: each file that reads is built in a temporary results directory, the whole command
timed with its peak RSS, under --time-limit: in full when its search fits --build-memory-mb
(default 4,000), a prefix until its layers pass --prefix-states (10^8; the depth reached is
the depth limit to give it; 0: on to its end, which tells a small reachable set in a large
rank space); then `twsearch -M BUILD_MEMORY -t THREADS -g FILE` under the
same limit, and the two tables compared as far as both got.  twsearch is not built here:
`make build` in its checkout, as its README says.
"""

import argparse
import re
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import twsearch_peer as peer

FULL, PREFIX, TREE, REFUSED = "full", "prefix", "tree search only", "refused"
# keys of several words: a sparse space whose group has at most this many states is built
# whole by the frontier search (m24conway's 244,823,040), a larger one is a prefix
WHOLE_STATES = 10**10


@dataclass
class Verdict:
    """What puzzledb says of one file, and (with --build) what building it gave."""

    path: Path
    kind: str  # FULL, PREFIX, TREE or REFUSED
    ranks: int | None = None
    need_mib: float | None = None
    store: str = "layers"
    words: int = 1  # the 64-bit words of a key
    reachable: int | None = None  # keys of several words, a sparse space: its group's order
    line: str = ""  # REFUSED: puzzledb's one line, its config prefix taken off
    built: str = ""  # --build: what the build gave, or why it was not built
    counts: list = field(default_factory=list)  # --build: puzzledb's per-depth counts
    twsearch: str = ""
    tables: str = ""

    def detail(self):
        if self.kind == REFUSED:
            return self.line
        if self.kind == TREE:
            return "ranks past 64 bits: no database"
        if self.words > 1:
            whole = (f"; sparse, at most {self.reachable:,} states: the frontier search "
                     f"builds it whole" if self.reachable else "")
            return f"frontier search, keys of {self.words} words ({8 * self.words} bytes){whole}"
        if self.kind == PREFIX:
            return f"frontier search; in memory it would need {self.need_mib:,.0f} MiB"
        return f"in memory, store {self.store}, {self.need_mib:,.1f} MiB"


def classify(path, scratch, memory_mb, counts_above):
    """`puzzledb info` on a define of `path`, and the verdict it implies."""
    name = peer.name_of(path)
    run = peer.measured(peer.puzzledb_command(peer.define(scratch, name, path), scratch / "r",
                                              "info", name), env=peer.puzzledb_env())
    if run.returncode != 0:
        line = (run.stderr.strip().splitlines() or ["(no message)"])[-1]
        return Verdict(path, REFUSED, line=re.sub(r"^puzzledb: (error: )?(\S+\.yaml: define\."
                                                  r"[^:]+: )?", "", line))
    ranks = int(re.search(r"^rank space\s+([\d,]+)", run.stdout, re.M)[1].replace(",", ""))
    words = int(re.search(r"^key\s+(\d+) word", run.stdout, re.M)[1])
    if words > 1:  # the frontier search alone: a prefix, or the whole of a sparse space
        reachable = re.search(r"^reachable\s+at most ([\d,]+) states", run.stdout, re.M)
        bound = int(reachable[1].replace(",", "")) if reachable else None
        whole = bound is not None and 32 * bound < ranks and bound <= WHOLE_STATES
        return Verdict(path, FULL if whole else PREFIX, ranks, words=words,
                       reachable=bound if whole else None)
    memory = re.search(r"^search memory\s+([\d,.]+) MiB", run.stdout, re.M)
    if memory is None:
        return Verdict(path, TREE, ranks)
    need = float(memory[1].replace(",", ""))
    if need > memory_mb:
        return Verdict(path, PREFIX, ranks, need)
    return Verdict(path, FULL, ranks, need, "counts" if ranks > counts_above else "layers")


def in_short(n):
    """A rank space in a table cell: its digits, or about m x 10^e past 24 digits."""
    digits = len(str(n)) - 1
    return f"{n:,}" if digits < 24 else f"about {n / 10 ** (digits - 3) / 1000:.2f} x 10^{digits}"


def reason(verdict):
    """A refusal's kind: its line with the file and line number, the file's set and move
    names and every number replaced, so that refusals for one cause count together."""
    text = re.sub(r"^\S+ line \d+: ", "", verdict.line)
    names = re.findall(r"^\s*(?:Set|Move)\s+(\S+)", verdict.path.read_text(errors="replace"),
                       re.M)
    for name in sorted(set(names), key=len, reverse=True):
        text = re.sub(rf"(?<![\w']){re.escape(name)}(?![\w])", "NAME", text)
        text = text.replace(f"'{name}'", "'NAME'")
    text = re.sub(r"\([^)]*\)", "", text)
    text = re.sub(r"-slot [^:]*:", "-slot …:", text)  # one kind for every factor's size
    return re.sub(r"\s+", " ", re.sub(r"\d[\d,]*", "N", text)).strip()


def build(verdict, scratch, args):
    """Build the file's database (in full or a prefix) as --build says; sets verdict.built
    and verdict.counts."""
    name = peer.name_of(verdict.path)
    if verdict.kind == FULL and (verdict.need_mib or 0) > args.build_memory_mb:
        verdict.built = f"not built: needs {verdict.need_mib:,.0f} MiB (--build-memory-mb)"
        return
    if verdict.kind == PREFIX:
        extra = ["--depth-limit", 1000]  # stopped by `enough` below
    else:
        extra = ["--store", "counts"] if verdict.store == "counts" else []
    passed = [0]

    def enough(line):  # a prefix: stop once its layers pass --prefix-states
        found = re.search(r"depth \d+: ([\d,]+) states", line)
        passed[0] += int(found[1].replace(",", "")) if found else 0
        return verdict.kind == PREFIX and 0 < args.prefix_states <= passed[0]

    run = peer.puzzledb_build(scratch, name, verdict.path, "--threads", args.threads,
                              "--memory-mb", args.build_memory_mb, *extra,
                              timeout=args.time_limit, stop=enough)
    verdict.counts = counts = peer.layer_counts(run.stderr)
    if run.returncode != 0 and not run.cut:
        verdict.built = "failed: " + (run.stderr.strip().splitlines() or ["?"])[-1]
        return
    if run.cut == "stopped":  # the depth limit that passes --prefix-states
        verdict.built = f"depth limit {len(counts) - 1}: {sum(counts):,} positions"
    else:
        verdict.built = (f"{sum(counts):,} positions to depth {len(counts) - 1}"
                         + (" (time limit)" if run.cut else "")
                         + (" (the whole space)" if verdict.kind == PREFIX and not run.cut
                            else ""))
    verdict.built += f", {run.seconds:.1f} s, {run.peak_mib:,.0f} MiB"


def race(verdict, program, args):
    """`twsearch -g` on the file under the time limit; sets verdict.twsearch and .tables."""
    run = peer.measured(peer.twsearch_command(program, verdict.path, args.threads,
                                              memory_mb=args.build_memory_mb),
                        timeout=args.time_limit)
    counts = peer.twsearch_counts(run.stdout)
    reached = f"{sum(counts):,} positions to depth {len(counts) - 1}" if counts else "nothing"
    verdict.twsearch = (reached + (f" ({run.ended()})" if run.ended() else "")
                        + f", {run.seconds:.1f} s, {run.peak_mib:,.0f} MiB")
    verdict.tables = peer.compare(verdict.counts, counts) if verdict.counts and counts else ""


def print_table(verdicts, markdown, built):
    heads = ["file", "ranks", "verdict", "detail"] + (
        ["puzzledb build", "twsearch -g", "tables"] if built else [])
    rows = [[v.path.name, in_short(v.ranks) if v.ranks is not None else "", v.kind, v.detail()]
            + ([v.built, v.twsearch, v.tables] if built else []) for v in verdicts]
    if markdown:
        print("| " + " | ".join(heads) + " |")
        print("|" + "---|" * len(heads))
        for row in rows:
            print("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |")
        return
    widths = [max(len(r[i]) for r in rows + [heads]) for i in range(len(heads) - 1)]
    for row in [heads] + rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[-1])


def print_counts(verdicts, markdown):
    """The totals: how many read, built how; the refusals by kind, with an example each."""
    kinds = Counter(v.kind for v in verdicts)
    stores = Counter(v.store for v in verdicts if v.kind == FULL and v.words == 1)
    sparse = sum(v.kind == FULL and v.words > 1 for v in verdicts)
    bullet = "- " if markdown else ""
    print(f"\n{bullet}puzzledb reads {len(verdicts) - kinds[REFUSED]} of {len(verdicts)} files: "
          f"in full {kinds[FULL]} (in memory: store layers {stores['layers']}, counts "
          f"{stores['counts']}; the frontier search of a sparse space {sparse}), a prefix "
          f"{kinds[PREFIX]}, tree search only {kinds[TREE]}; refused {kinds[REFUSED]}")
    refusals = {}
    for v in verdicts:
        if v.kind == REFUSED:
            refusals.setdefault(reason(v), []).append(v.path.stem)
    for why, stems in sorted(refusals.items(), key=lambda item: -len(item[1])):
        print(f"{bullet}{len(stems)} refused: {why} ({', '.join(stems)})")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="file stems of samples/main (default: all)")
    peer.add_arguments(parser)
    parser.add_argument("--memory-mb", type=float, default=20000,
                        help="memory of an in-memory search counted as 'in full' (MiB)")
    parser.add_argument("--counts-above", type=int, default=2**32,
                        help="ranks past which a full build keeps counts, not layers")
    parser.add_argument("--markdown", action="store_true", help="the table in markdown")
    parser.add_argument("--build", action="store_true",
                        help="build each file that reads, and run twsearch -g on it")
    parser.add_argument("--time-limit", type=float, default=300, help="seconds, per run")
    parser.add_argument("--build-memory-mb", type=int, default=4000,
                        help="--build: memory_mb of puzzledb and -M of twsearch")
    parser.add_argument("--prefix-states", type=int, default=10**8,
                        help="--build: a prefix stops once its layers pass this many "
                             "positions (0: it runs to its end or the time limit)")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    root = peer.checkout(args.twsearch, args.clone_dir)
    files = sorted((root / "samples/main").glob("*.tws"), key=lambda p: p.name.lower())
    if args.names:
        files = [f for f in files if f.stem in args.names]
    program = peer.binary(root, args.twsearch_binary) if args.build else None
    env = peer.puzzledb_env()
    print(f"twsearch {root} at {peer.commit(root)}; puzzledb from {env['PYTHONPATH']}; "
          f"{len(files)} files", file=sys.stderr)
    if args.build and program is None:
        print("no twsearch binary (make build in the checkout, or --twsearch-binary): "
              "puzzledb's builds only", file=sys.stderr)
    verdicts = []
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        for path in files:
            verdict = classify(path, scratch, args.memory_mb, args.counts_above)
            if args.build and verdict.kind in (FULL, PREFIX):
                build(verdict, scratch, args)
                if program is not None and verdict.counts:
                    race(verdict, program, args)
            print(f"{path.name}: {verdict.kind} {verdict.built}", file=sys.stderr)
            verdicts.append(verdict)
    print_table(verdicts, args.markdown, args.build)
    print_counts(verdicts, args.markdown)


if __name__ == "__main__":
    main()
