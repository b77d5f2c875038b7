"""The plot of a database: its depth distribution as a PNG bar chart, written atomically.
Drawn on a matplotlib Figure of its own (no pyplot, no global figure state, no GUI
backend): savefig renders it with Agg."""

from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator

from puzzledb.store.files import atomic_file


def depth_axis(puzzle):
    """What a layer's depth counts: moves from the goal, or (graded puzzles) jumps from the
    start."""
    return "jumps from the start" if puzzle.graded else "distance from the goal (moves)"


def plot_depths(rows, title, path, xlabel="distance from the goal (moves)", note=None):
    """A bar chart of (depth, count, cumulative) rows written to `path` (depth_figure)."""
    fig = depth_figure(rows, title, xlabel, note)
    with atomic_file(path) as tmp:
        fig.savefig(tmp, format="png")


def depth_figure(rows, title, xlabel="distance from the goal (moves)", note=None):
    """The Figure of a bar chart of (depth, count, cumulative) rows, its depth axis marked
    at whole numbers only; note: what a partial database stores, shown under the title."""
    depths = [r[0] for r in rows]
    counts = [r[1] for r in rows]
    fig = Figure(figsize=(8, 4.5), dpi=100)
    ax = fig.subplots()
    ax.bar(depths, counts, width=0.85, color="#3b6ea8")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("positions")
    if note:
        ax.set_title(f"{title}: {rows[-1][2]:,} positions\n{note}")
    else:
        ax.set_title(f"{title}: {rows[-1][2]:,} positions, deepest {depths[-1]}")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # depths are whole numbers
    ax.ticklabel_format(axis="y", style="plain")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return fig
