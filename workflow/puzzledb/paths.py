"""Where everything lives under a results directory: the one spelling of the layout that the
library, the command line and the workflow's rules share (the interface contract of SPEC §3).

Each function gives a string.  Called with the defaults, the Snakemake wildcards
(`{puzzle}`, `{queries}`, ...), it gives a rule's file pattern; called with names, a file.
"""

PUZZLE = "{puzzle}"
MANIFEST = "manifest.json"  # a database's or a table set's last file: it marks it complete


def puzzle_directory(results, puzzle=PUZZLE):
    return f"{results}/{puzzle}"


def layers(results, puzzle=PUZZLE):
    """The layer store of a puzzle: depth_NNN.h5 files and the manifest."""
    return f"{puzzle_directory(results, puzzle)}/layers"


def layer_name(depth):
    """A layer's file name inside the layer store."""
    return f"depth_{depth:03d}.h5"


def manifest(results, puzzle=PUZZLE):
    return f"{layers(results, puzzle)}/{MANIFEST}"


def frontier_work(results, puzzle=PUZZLE):
    """The frontier search's work files and step records."""
    return f"{puzzle_directory(results, puzzle)}/frontier"


def summary(results, puzzle=PUZZLE):
    return f"{puzzle_directory(results, puzzle)}/summary.csv"


def antipodes(results, puzzle=PUZZLE):
    return f"{puzzle_directory(results, puzzle)}/antipodes.txt"


def depth_plot(results, puzzle=PUZZLE):
    return f"{puzzle_directory(results, puzzle)}/depth_distribution.png"


def symmetry_summary(results, puzzle=PUZZLE):
    return f"{puzzle_directory(results, puzzle)}/summary_symmetry.csv"


def symmetry_antipodes(results, puzzle=PUZZLE):
    return f"{puzzle_directory(results, puzzle)}/antipodes_symmetry.txt"


def verified(results, puzzle=PUZZLE):
    return f"{puzzle_directory(results, puzzle)}/verified.txt"


def problem_stem(results, puzzle=PUZZLE, queries="{queries}", k="{k}"):
    """A problem set's files are this stem plus `.txt` and `_distribution.csv`."""
    return f"{puzzle_directory(results, puzzle)}/problems/{queries}_k{k}"


def report(results):
    return f"{results}/report.html"


def log(directory, name):
    """A job's log: `<directory>/logs/<name>.log` (directory: a puzzle's, a table set's)."""
    return f"{directory}/logs/{name}.log"


def benchmark(directory, name):
    """A job's Snakemake benchmark: `<directory>/benchmarks/<name>.tsv`."""
    return f"{directory}/benchmarks/{name}.tsv"


def pattern_databases(results, puzzle=PUZZLE, partition="{partition}"):
    """The table set of one additive partition: <tiles>.h5 files and the manifest."""
    return f"{results}/pdbs/{puzzle}/{partition}"


def pattern_table(results, puzzle=PUZZLE, partition="{partition}", tiles="{tiles}"):
    return f"{pattern_databases(results, puzzle, partition)}/{tiles}.h5"
