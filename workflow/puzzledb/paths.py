"""Where everything lives under a results directory: the one spelling of the layout that the
library, the command line and the workflow's rules share (the interface contract of SPEC §3).

Each function gives a string.  Called with the defaults, the Snakemake wildcards
(`{puzzle}`, `{queries}`, ...), it gives a rule's file pattern; called with names, a file.
"""

PUZZLE = "{puzzle}"
MANIFEST = "manifest.json"  # a database's or a table set's last file: it marks it complete
SAMPLES = "samples.h5"  # a counts-only database's sample of each layer (store/counts.py)
CHECKPOINT = "checkpoint.2bit"  # a counts-only search's last checkpoint (bfs/checkpoint.py)
DISTANCES = "distances.2bit"  # a distances store's table of depths (store/distances.py)


def puzzle_directory(results, puzzle=PUZZLE):
    return f"{results}/{puzzle}"


def layers(results, puzzle=PUZZLE):
    """The layer store of a puzzle: depth_NNN.h5 files and the manifest."""
    return f"{puzzle_directory(results, puzzle)}/layers"


def layer_name(depth):
    """A layer's file name inside the layer store."""
    return f"depth_{depth:03d}.h5"


def part_name(depth, part, parts):
    """The file of part `part` of `parts` of a layer written in parts (a merge job's each),
    inside the layer store: the layer's file maps them (store/parts.py)."""
    return f"depth_{depth:03d}.parts/part_{part:03d}of{parts:03d}.h5"


def manifest(results, puzzle=PUZZLE):
    return f"{layers(results, puzzle)}/{MANIFEST}"


def frontier_work(results, puzzle=PUZZLE):
    """The frontier search's work files and step records."""
    return f"{puzzle_directory(results, puzzle)}/frontier"


def _depth(depth):
    """A depth in a file name: three digits, or a wildcard as it is."""
    return depth if isinstance(depth, str) else f"{depth:03d}"


def step_record(work, first="{first}"):
    """The record of the frontier step that starts at depth `first` (work: frontier_work)."""
    return f"{work}/step_{_depth(first)}.json"


def depth_work(work, depth="{depth}"):
    """The work files of one depth of the frontier search, every job's below."""
    return f"{work}/d{_depth(depth)}"


def expand_output(work, depth="{depth}", part="{part}", parts="{parts}"):
    """The work files of one expand job of the frontier search."""
    return f"{depth_work(work, depth)}/expand_{part}of{parts}"


def merge_output(work, depth="{depth}", part="{part}", parts="{parts}"):
    """The merged segments of one merge job of the frontier search."""
    return f"{depth_work(work, depth)}/merge_{part}of{parts}"


def _puzzle_file(name):
    """The function giving results/<puzzle>/<name>."""
    def path(results, puzzle=PUZZLE):
        return f"{puzzle_directory(results, puzzle)}/{name}"

    path.__doc__ = f"<results>/<puzzle>/{name}"
    return path


summary = _puzzle_file("summary.csv")
antipodes = _puzzle_file("antipodes.txt")
depth_plot = _puzzle_file("depth_distribution.png")
symmetry_summary = _puzzle_file("summary_symmetry.csv")
symmetry_antipodes = _puzzle_file("antipodes_symmetry.txt")
verified = _puzzle_file("verified.txt")
antipode_moves = _puzzle_file("antipodes_moves.txt")
start_distribution = _puzzle_file("start_distribution.csv")
design = _puzzle_file("design.csv")  # the designer's table over every placement


def problem_stem(results, puzzle=PUZZLE, queries="{queries}", k="{k}"):
    """What a problem set's two files share (problem_distribution, problem_file)."""
    return f"{puzzle_directory(results, puzzle)}/problems/{queries}_k{k}"


def problem_distribution(results, puzzle=PUZZLE, queries="{queries}", k="{k}"):
    """A problem set's table of distances: distance,count,cumulative."""
    return f"{problem_stem(results, puzzle, queries, k)}_distribution.csv"


def problem_file(results, puzzle=PUZZLE, queries="{queries}", k="{k}"):
    """A problem set's hardest problems with their optimal routes (query.problems)."""
    return f"{problem_stem(results, puzzle, queries, k)}.txt"


def report(results):
    return f"{results}/report.html"


def kernels_record(results):
    """What `snakemake kernels` compiled ahead (a line of text): a target of its own."""
    return f"{results}/kernels.txt"


def log(directory, name):
    """A job's log: `<directory>/logs/<name>.log` (directory: a puzzle's, a table set's)."""
    return f"{directory}/logs/{name}.log"


def benchmark(directory, name):
    """A job's Snakemake benchmark: `<directory>/benchmarks/<name>.tsv`."""
    return f"{directory}/benchmarks/{name}.tsv"


def pattern_partitions(results, puzzle=PUZZLE):
    """The table sets of a puzzle's additive partitions, a directory each."""
    return f"{results}/pdbs/{puzzle}"


def pattern_databases(results, puzzle=PUZZLE, partition="{partition}"):
    """The table set of one additive partition: <tiles>.h5 files and the manifest."""
    return f"{pattern_partitions(results, puzzle)}/{partition}"


def pattern_table(results, puzzle=PUZZLE, partition="{partition}", tiles="{tiles}"):
    return f"{pattern_databases(results, puzzle, partition)}/{tiles}.h5"


def catalogue(results, name=PUZZLE):
    """A catalogue's table: one row per cluster that reaches the goal (report/catalogue.py)."""
    return f"{puzzle_directory(results, name)}/catalogue.csv"


def catalogue_summary(results, name=PUZZLE):
    """A catalogue's clusters and minimal puzzles per number of moves."""
    return f"{puzzle_directory(results, name)}/catalogue_summary.csv"


def catalogue_totals(results, name=PUZZLE):
    """A catalogue's box in totals: its boards, the clusters that reach the goal, the largest."""
    return f"{puzzle_directory(results, name)}/catalogue_totals.csv"


def catalogue_hardest(results, name=PUZZLE):
    """A catalogue's hardest puzzles drawn, a page of the report (report/catalogue.py)."""
    return f"{puzzle_directory(results, name)}/catalogue_hardest.html"


def catalogue_part(results, name=PUZZLE, job="{job}", jobs="{jobs}"):
    """The clusters of one catalogue job (job of jobs), before the merge."""
    job, jobs = (x if isinstance(x, str) else f"{x:03d}" for x in (job, jobs))
    return f"{puzzle_directory(results, name)}/catalogue/part_{job}of{jobs}.npz"
