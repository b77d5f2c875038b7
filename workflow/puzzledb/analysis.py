"""Products mined from a finished database: summary.csv, antipodes.txt, the depth plot and
an HTML report.  Each reads the layers through DepthDatabase and writes one file atomically.
"""

import csv
import html
import io
import os
from pathlib import Path


def _write_atomic(path, text):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def write_summary(db, path):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["depth", "count", "cumulative"])
    writer.writerows(db.summary())
    _write_atomic(path, out.getvalue())


def antipodes(db):
    """Board strings of the deepest layer, in rank order."""
    level = db.max_depth if db.puzzle.graded else 0
    return [db.puzzle.decode(r, level) for r in db.layer(db.max_depth).ranks()]


def write_antipodes(db, path, limit=None):
    boards = antipodes(db)
    if limit is not None:
        boards = boards[:limit]
    _write_atomic(path, "".join(b + "\n" for b in boards))


def read_summary(path):
    with open(path) as f:
        return [(int(r["depth"]), int(r["count"]), int(r["cumulative"]))
                for r in csv.DictReader(f)]


def plot_depths(rows, title, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    depths = [r[0] for r in rows]
    counts = [r[1] for r in rows]
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    ax.bar(depths, counts, width=0.85, color="#3b6ea8")
    ax.set_xlabel("distance from the goal (moves)")
    ax.set_ylabel("positions")
    ax.set_title(f"{title}: {rows[-1][2]:,} positions, deepest {depths[-1]}")
    ax.ticklabel_format(axis="y", style="plain")
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp.png")
    fig.savefig(tmp)
    plt.close(fig)
    os.replace(tmp, path)


def write_report(entries, path):
    """entries: (puzzle, summary rows, antipode boards, plot file name relative to path)."""
    parts = [
        "<!doctype html><meta charset='utf-8'><title>puzzledb report</title>",
        "<style>body{font-family:sans-serif;max-width:60em;margin:auto}"
        "table{border-collapse:collapse}td,th{padding:2px 8px;text-align:right}"
        "tr:nth-child(even){background:#eee}</style>",
        "<h1>puzzledb report</h1>",
    ]
    for puzzle, rows, boards, plot in entries:
        name = html.escape(puzzle.name)
        parts.append(f"<h2 id='{name}'>{name}</h2><p>{html.escape(puzzle.description)}</p>")
        parts.append(
            f"<p>{rows[-1][2]:,} positions in {len(rows)} layers; the deepest, "
            f"{rows[-1][0]}, holds {rows[-1][1]:,}.</p>"
        )
        parts.append(f"<img src='{html.escape(plot)}' alt='depth distribution of {name}'>")
        shown = boards[:20]
        parts.append("<p>Deepest positions" + (f" (first {len(shown)})" if len(boards) > 20
                                              else "") + ":</p><pre>")
        parts.append(html.escape("\n".join(shown)) + "</pre>")
        parts.append("<table><tr><th>depth</th><th>count</th><th>cumulative</th></tr>")
        parts.extend(f"<tr><td>{d}</td><td>{c:,}</td><td>{t:,}</td></tr>" for d, c, t in rows)
        parts.append("</table>")
    _write_atomic(path, "\n".join(parts) + "\n")
