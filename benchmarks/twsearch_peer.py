"""Rokicki's twsearch as a peer of the benchmarks: where its checkout is (a directory, or a
clone made from a URL), its God's-number table (`twsearch -g`), and puzzledb run on the same
definition file through a `define:` of its own; every command timed whole, with its peak RSS.

twsearch is not built here: build it as its README says (`make build` in the checkout) and
the scripts find `build/bin/twsearch` in it (or give --twsearch-binary)."""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENV = "PUZZLEDB_TWSEARCH"  # the checkout the scripts use when --twsearch is not given
URL = "https://github.com/rokicki/twsearch"


def add_arguments(parser):
    """The options every twsearch script takes: the checkout (or a URL to clone) and the binary."""
    parser.add_argument(
        "--twsearch", default=os.environ.get(ENV), metavar="DIR|URL",
        help=f"twsearch checkout (default ${ENV}); a git URL (such as {URL}) is cloned into "
             f"--clone-dir first")
    parser.add_argument("--clone-dir", type=Path, default=Path.home() / ".cache/puzzledb",
                        help="where a URL is cloned (default ~/.cache/puzzledb/twsearch)")
    parser.add_argument("--twsearch-binary", type=Path, default=None,
                        help="the twsearch program (default: build/bin/twsearch in the checkout)")


def chosen(names, known, what, listing=False):
    """The entries of the table `known` that `names` name, in order; with `listing`, every
    entry printed and None.  An unknown name ends the script naming it."""
    if listing:
        for name, entry in known.items():
            print(f"{name:18s} {entry}")
        return None
    unknown = [name for name in names if name not in known]
    if unknown:
        sys.exit(f"unknown {what} {', '.join(unknown)} (known: {', '.join(known)})")
    return [known[name] for name in names]


def checkout(where, clone_dir):
    """The twsearch checkout `where` names: a directory as it is, or a URL cloned (once) into
    clone_dir/twsearch with git."""
    if not where:
        sys.exit(f"no twsearch checkout: give --twsearch DIR (or a URL such as {URL}) or set "
                 f"${ENV}")
    if re.match(r"^(\w+://|git@)", where):
        target = Path(clone_dir) / "twsearch"
        if not (target / ".git").is_dir():
            target.parent.mkdir(parents=True, exist_ok=True)
            print(f"cloning {where} into {target} ...", file=sys.stderr)
            subprocess.run(["git", "clone", "--depth", "1", where, str(target)], check=True)
        return target
    root = Path(where)
    if not (root / "samples").is_dir():
        sys.exit(f"{root}: not a twsearch checkout (no samples/ in it)")
    return root


def commit(root):
    """The checkout's git commit, or a note that it is not a git checkout."""
    run = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                         text=True)
    return run.stdout.strip() if run.returncode == 0 else "(not a git checkout)"


def binary(root, given=None):
    """The twsearch program: `given`, else build/bin/twsearch in the checkout; None if absent."""
    path = Path(given) if given else Path(root) / "build/bin/twsearch"
    return path if path.is_file() and os.access(path, os.X_OK) else None


@dataclass
class Run:
    """One whole command: wall seconds, CPU seconds, peak RSS (MiB) of the process and the
    children it waited for, exit status, its output, and whether it was cut short."""

    seconds: float
    cpu: float
    peak_mib: float
    returncode: int
    stdout: str
    stderr: str
    cut: str = ""  # "time limit" or "stopped" when the run was killed before its end

    def ended(self):
        """How the run ended unless by itself and well: 'time limit', 'stopped', 'exit N'."""
        return self.cut or ("" if self.returncode == 0 else f"exit {self.returncode}")


def measured(command, *, env=None, timeout=None, stop=None):
    """Run `command` to its end, or kill it (its process group) after `timeout` seconds or
    as soon as `stop(line)` is true of a line it printed (stdout or stderr)."""
    began = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env, start_new_session=True)
    cut = []

    def kill(reason):
        if not cut and process.returncode is None:
            cut.append(reason)
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:  # it ended meanwhile
                pass

    def pump(stream, lines):
        for line in stream:
            lines.append(line)
            if stop is not None and stop(line):
                kill("stopped")

    out, err = [], []
    pumps = [threading.Thread(target=pump, args=(process.stdout, out)),
             threading.Thread(target=pump, args=(process.stderr, err))]
    for pump_thread in pumps:
        pump_thread.start()
    timer = threading.Timer(timeout, kill, ("time limit",)) if timeout else None
    if timer:
        timer.start()
    _, status, usage = os.wait4(process.pid, 0)  # its own rusage: the peak RSS is its
    process.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - began
    if timer:
        timer.cancel()
    for pump_thread in pumps:
        pump_thread.join()
    return Run(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024,
               process.returncode, "".join(out), "".join(err), cut[0] if cut else "")


def twsearch_command(program, path, threads, metric="htm", memory_mb=None, flags=()):
    """`twsearch -g`: the God's-number table of a file (-q for the quarter-turn metric; -M its
    memory cap, 8 GiB when not given; `flags` more, such as -F, its search up to symmetry
    keeping sorted arrays of classes)."""
    return ([str(program)] + (["-q"] if metric == "qtm" else [])
            + (["-M", str(int(memory_mb))] if memory_mb else [])
            + ["-t", str(threads), *flags, "-g", str(path)])


def twsearch_counts(text):
    """The per-depth counts of `twsearch -g`'s lines "Dist 7 cnt 5402628 tot ... in 0.46",
    as far as it printed them; a closing empty depth dropped."""
    table = {int(d): int(c) for d, c in re.findall(r"^\s*Dist\s+(\d+)\s+cnt\s+(\d+)", text,
                                                   re.MULTILINE)}
    counts = [table[d] for d in sorted(table)]
    while counts and counts[-1] == 0:
        counts.pop()
    return counts


def twsearch_seconds(text, depth):
    """The seconds `twsearch -g` took for depths 0 .. `depth` (each "Dist 7 cnt ... in
    0.46" line gives its depth's own), or None when it never reached it: its time to a
    prefix's depth, its start (reading the file, its tables) left out."""
    times = {int(d): float(t) for d, t in re.findall(
        r"^\s*Dist\s+(\d+)\s+cnt\s+\d+.*?\bin\s+([\d.e+-]+)", text, re.M)}
    return sum(t for d, t in times.items() if d <= depth) if depth in times else None


def twsearch_index(text):
    """What twsearch said of its search: its index size and the mode it chose."""
    size = re.search(r"^State size is (\d+)", text, re.M)
    mode = re.search(r"^Using (.*)\.$", text, re.M)
    return (f"index {int(size[1]):,}" if size else "") + (f", {mode[1]}" if mode else "")


def puzzledb_env(cache=None):
    """The environment puzzledb runs in: PYTHONPATH as given (another checkout's puzzledb),
    else this repository's; its kernel cache in `cache` if given (PUZZLEDB_CACHE_DIR: an
    empty directory is a first use, as on a fresh install); bytecode written and read as
    Python's default is."""
    env = dict(os.environ, PYTHONPATH=os.environ.get("PYTHONPATH") or str(ROOT / "workflow"))
    # Python's bytecode cache as a user's install has it: a shell that sets
    # PYTHONDONTWRITEBYTECODE makes every run compile the package's modules again (about
    # 0.1 s of each whole command on this machine, never paid by a user after the first run)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if cache is not None:
        env["PUZZLEDB_CACHE_DIR"] = str(cache)
    return env


def define(scratch, name, path, metric="htm", extra=""):
    """A config file in `scratch` declaring the definition file `path` as puzzle `name`
    (and the config lines `extra`)."""
    config = Path(scratch) / f"{name}.yaml"
    config.write_text(f"puzzles: ['{name}']\ndefine:\n  '{name}':\n    family: permutation\n"
                      f"    file: '{Path(path).resolve()}'\n    metric: {metric}\n{extra}")
    return config


def puzzledb_command(config, results, *arguments):
    """`puzzledb --config CONFIG --results RESULTS ARGUMENTS...` in this Python."""
    return [sys.executable, "-m", "puzzledb.cli", "--config", str(config), "--results",
            str(results), *map(str, arguments)]


def puzzledb_build(scratch, name, path, *arguments, metric="htm", cache=None, timeout=None,
                   stop=None):
    """`puzzledb build NAME ARGUMENTS...` of the definition file `path`, measured, in a fresh
    results directory in `scratch` (removed after: layer files can be large); its kernels
    in `cache` if given."""
    results = Path(tempfile.mkdtemp(dir=scratch))
    try:
        return measured(puzzledb_command(define(scratch, name, path, metric), results, "build",
                                         name, *arguments),
                        env=puzzledb_env(cache), timeout=timeout, stop=stop)
    finally:
        shutil.rmtree(results, ignore_errors=True)


def puzzledb_workflow(scratch, name, path, config_lines, metric="htm", cache=None,
                      timeout=None):
    """The whole workflow, `snakemake --cores 2` with the definition file `path` declared
    as the one puzzle (and `config_lines`: memory_mb, store, ...), measured from no results
    in a fresh directory of `scratch` (removed after): search, summary, deepest positions
    and their moves, plot, report."""
    workdir = Path(tempfile.mkdtemp(dir=scratch))
    try:
        define(workdir, name, path, metric, config_lines).rename(workdir / "config.yaml")
        return measured([sys.executable, "-m", "snakemake", "--snakefile",
                         str(ROOT / "Snakefile"), "--directory", str(workdir), "--cores", "2",
                         "--quiet"], env=puzzledb_env(cache), timeout=timeout)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def layer_counts(log):
    """The per-depth counts a build logged ("p: depth 7: 3,782,376 states, 4,641,876 in
    all, ..."; searched up to symmetry, "p: depth 7: 100,803,036 positions in 1,053,077
    classes": the positions); the in-memory search does not log depth 0, whose count is then
    depth 1's total less depth 1's count (its goals)."""
    table, totals = {}, {}
    for depth, count, total in re.findall(
            r"depth (\d+): ([\d,]+) (?:states|positions)(?:, ([\d,]+) in all)?", log):
        table[int(depth)] = int(count.replace(",", ""))
        if total:
            totals[int(depth)] = int(total.replace(",", ""))
    if table and 0 not in table:
        table[0] = totals[1] - table[1] if 1 in totals else 1
    return [table[d] for d in sorted(table)]


def layer_classes(log):
    """The per-depth classes a build searched up to symmetry logged ("p: depth 7:
    100,803,036 positions in 1,053,077 classes"); [] for a build without."""
    table = {int(d): int(c.replace(",", "")) for d, c in re.findall(
        r"depth (\d+): [\d,]+ positions in ([\d,]+) classes", log)}
    return [table[d] for d in sorted(table)]


def twsearch_symmetric(text):
    """(positions, classes) by depth of `twsearch -F -g`, whose lines count the classes it
    stores in cnt and the positions in scnt ("Dist 1 cnt 2 tot 3 scnt 18 stot 19 in ...")."""
    rows = {int(d): (int(s), int(c)) for d, c, s in re.findall(
        r"^\s*Dist\s+(\d+)\s+cnt\s+(\d+)\s+tot\s+\d+\s+scnt\s+(\d+)", text, re.M)}
    return ([rows[d][0] for d in sorted(rows)], [rows[d][1] for d in sorted(rows)])


def compare(ours, theirs):
    """Two per-depth tables, one or both perhaps cut short: 'equal', 'equal to depth D' (as
    far as both go), or 'DIFFER at depth D'."""
    common = min(len(ours), len(theirs))
    for depth in range(common):
        if ours[depth] != theirs[depth]:
            return f"DIFFER at depth {depth}"
    return "equal" if len(ours) == len(theirs) else f"equal to depth {common - 1}"


def name_of(path):
    """A puzzle name for a definition file: its stem, lower case, letters, digits and '-'."""
    return re.sub(r"[^a-z0-9-]", "-", Path(path).stem.lower()).strip("-") or "puzzle"
