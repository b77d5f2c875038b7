"""A plan on paper: the 15-puzzle's full BFS (OEIS A089484, 16!/2 states, radius 80) through
the frontier workflow on a cluster of N nodes, from costs measured on this machine by a kept
run (benchmarks/scaling_inputs.py). Nothing is run: this is the cost model of docs/scaling.md.

    python benchmarks/scaling_plan.py [--inputs benchmarks/scaling_inputs.json] [--json]
        [--nodes 16 64 256] [--cores 16] [--node-gib 64] [--stage-s 33] [--link-gbs 1]
        [--expand-us E] [--merge-us M] [--step-s S] [--layer-bytes B] [--work-bytes W]
        [--skew K] [--neighbours-per-state R] [--expand-imbalance X] [--merge-imbalance Y]

A flag overrides the input of the same name read from --inputs. The design modelled is the
one built: per depth d -> d + 1 (layer sizes n_d from the published table),
- a layer wider than job_states fans out into F = min(segments, ceil(n_d / job_states))
  expand and F merge jobs, job_states chosen so that the widest layer gives one job of each
  kind per node; a narrower layer is expanded and merged inside the step job, on one node;
- expand stage: a job reads its 1/F of layer d (B bytes a state) and expands it (E CPU-us a
  state), writing R neighbours a state to work files at W bytes each;
- merge stage: a job reads its segments' neighbours (W bytes each) and the same segments of
  layers d and d - 1, merges them (M CPU-us per state of layer d, the compression of its part
  included) and writes its part of layer d + 1 as a final file (B bytes a state);
- step stage: the step job writes the layer's map of its parts (S seconds, measured);
- a stage lasts as long as its slowest job (the mean job's work times the measured
  imbalance, in ceil(F / nodes) waves) plus 33 s of scheduling (the local SLURM's status
  ladder's second rung: an assumption for another cluster); a job's reading, computing and
  writing follow each other, its CPU spread over the node's cores, its bytes over the node's
  link to a shared file system (1 GB/s; the file system is assumed to carry every node's);
- segments: the fewest (a power of two) whose merge job fits a node's memory, a merge job
  holding its fullest segment, K times its share of the widest layer (memory.py's estimate
  with the measured skew K for its SKEW).
Two more stages: the first step job (the narrow depths) and the manifest's job.
Disk at its peak: the layers kept so far (the database is the product) and the work files of
the step then running.
"""

import argparse
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "workflow"))
sys.path.insert(0, str(ROOT / "tests"))

from published_figures import FIFTEEN_CORNER  # noqa: E402
from puzzledb import puzzles  # noqa: E402
from puzzledb.bfs.memory import EXTRACT_BUFFER_BYTES, SKEW, mb_of, merge_window_bytes  # noqa: E402

INPUTS = ROOT / "benchmarks" / "scaling_inputs.json"
RAW_NEIGHBOUR_BYTES = 8  # a neighbour in an uncoded work file: a raw uint64
# Published searches of the same space, for comparison
PUBLISHED = ("lightln2's GPU program about 40 h (its predecessor SlidingTilesSolver 71.5 h, "
             "3.4 TB of files at peak); Korf and Schultze 2005, a disk-based parallel "
             "frontier search, about 28 days (672 h)")


def mean_moves(width, height):
    """Moves of a sliding puzzle averaged over the blank's cells (a layer's blanks are spread
    over the cells of one colour of the board's chessboard colouring, evenly enough)."""
    degree = [(x > 0) + (x < width - 1) + (y > 0) + (y < height - 1)
              for y in range(height) for x in range(width)]
    return sum(degree) / len(degree)


# input: (flag help, the fallback when the run did not measure it: value and why, or None)
INPUT_FLAGS = {
    "expand_us": ("CPU-us to expand a state (of the layer expanded)", None),
    "merge_us": ("CPU-us per state of the layer expanded to merge its neighbours and write "
                 "the part", None),
    "step_s": ("seconds of a fanned-out depth's step job (the map of the parts)", None),
    "layer_bytes": ("a layer file's bytes per state", None),
    "work_bytes": ("work-file bytes per neighbour",
                   (RAW_NEIGHBOUR_BYTES, "uncoded work files: a raw uint64 a neighbour")),
    "skew": ("the fullest segment over its share",
             (SKEW, "the skew the workflow's memory estimate assumes (memory.SKEW)")),
    "neighbours_per_state": ("neighbours per state expanded",
                             (mean_moves(4, 4), "the 15-puzzle's mean moves")),
    "expand_imbalance": ("the busiest expand job's work over the mean's",
                         (1.0, "jobs of equal work")),
    "merge_imbalance": ("the busiest merge job's work over the mean's",
                        (1.0, "jobs of equal work")),
}


def resolve(args, measured):
    """{input: (value, where it comes from)} from the flags, else the measured inputs, else
    the fallbacks (each fallback warned of on stderr); SystemExit when a cost has none."""
    inputs = measured.get("inputs", {}) if measured else {}
    run = measured["run"]["name"] if measured else None
    values = {}
    for key, (_, fallback) in INPUT_FLAGS.items():
        flag = getattr(args, key)
        entry = inputs.get(key, {})
        if flag is not None:
            values[key] = (flag, "given")
        elif isinstance(entry.get("value"), (int, float)):
            values[key] = (entry["value"], "measured")
        elif fallback is not None:
            value, why = fallback
            values[key] = (value, f"not measured: {why}")
            print(f"scaling_plan: warning: {key} not measured by "
                  f"{run or 'any run'}; using {value:g} ({why})", file=sys.stderr)
        else:
            raise SystemExit(f"scaling_plan: {key} not measured by {run or 'any run'}: give "
                             f"--{key.replace('_', '-')}")
    return values


def merge_job_bytes(puzzle, count, segments, skew):
    """What a merge job holds for its fullest segment of a layer of `count` states in
    `segments`: memory.frontier_job_bytes's merge term with `skew` for its SKEW."""
    moves = max(puzzle.max_moves, 1)
    share = min(count, skew * count / segments)
    return int(merge_window_bytes(moves, share)) + EXTRACT_BUFFER_BYTES


def plan(nodes, x, cores=16, node_gib=64, stage_s=33, link_gbs=1.0, layers=FIFTEEN_CORNER):
    """The plan on `nodes` nodes; x: {input: value} (resolve's values)."""
    fifteen = puzzles.get("fifteen")
    widest = max(layers)
    segments = 1
    while mb_of(merge_job_bytes(fifteen, widest, segments, x["skew"])) > node_gib * 1024:
        segments *= 2
    job_states = math.ceil(widest / nodes)
    B, W, link = x["layer_bytes"], x["work_bytes"], link_gbs * 1e9
    wall = {"compute": 0.0, "io": 0.0, "step": 0.0}
    stages = 2  # the first step job and the manifest's job
    cpu = 0.0
    jobs = fanned = 0
    disk_peak = (0.0, 0)
    widest_step = {}
    for d in range(len(layers) - 1):
        n, new, before = layers[d], layers[d + 1], layers[d - 1] if d else 0
        neighbours = n * x["neighbours_per_state"]
        expand_cpu, merge_cpu = n * x["expand_us"] * 1e-6, n * x["merge_us"] * 1e-6
        expand_bytes = n * B + neighbours * W
        merge_bytes = neighbours * W + (n + before) * B + new * B
        cpu += expand_cpu + merge_cpu
        # while a merge runs: every layer so far, the part files of d + 1, the work files
        disk = sum(layers[:d + 2]) * B + neighbours * W
        disk_peak = max(disk_peak, (disk, d + 1))
        fan = min(segments, max(1, math.ceil(n / job_states)))
        if fan == 1:  # inside the step job, on one node, no stage of its own
            wall["compute"] += (expand_cpu + merge_cpu) / cores
            wall["io"] += (expand_bytes + merge_bytes) / link
            continue
        fanned += 1
        jobs += 2 * fan + 1
        stages += 3
        waves = math.ceil(fan / nodes)
        for work_cpu, work_bytes, imbalance in (
                (expand_cpu, expand_bytes, x["expand_imbalance"]),
                (merge_cpu, merge_bytes, x["merge_imbalance"])):
            slowest = waves * imbalance / fan
            wall["compute"] += slowest * work_cpu / cores
            wall["io"] += slowest * work_bytes / link
        wall["step"] += x["step_s"]
        if n == widest:
            widest_step = {"jobs": fan, "work_tb": neighbours * W / 1e12,
                           "moved_tb": (expand_bytes + merge_bytes) / 1e12}
    scheduling = stages * stage_s
    total = sum(wall.values()) + scheduling
    return {"nodes": nodes, "cores": cores, "segments": segments, "job_states": job_states,
            "fanned": fanned, "jobs": jobs, "widest_jobs": widest_step.get("jobs", 1),
            "merge_gib": mb_of(merge_job_bytes(fifteen, widest, segments, x["skew"])) / 1024,
            "disk_layers_tb": sum(layers) * B / 1e12,
            "work_widest_tb": widest_step.get("work_tb", 0.0),
            "disk_peak_tb": disk_peak[0] / 1e12, "disk_peak_depth": disk_peak[1],
            "moved_widest_tb": widest_step.get("moved_tb", 0.0),
            "fs_gbs": nodes * link_gbs,
            "cpu_h": cpu / 3600, "compute_h": wall["compute"] / 3600,
            "io_h": wall["io"] / 3600, "step_h": wall["step"] / 3600,
            "scheduling_h": scheduling / 3600, "wall_h": total / 3600,
            "node_h": total / 3600 * nodes}


ROWS = [("nodes (16 cores, 64 GiB each)", "nodes", "{:d}"),
        ("segments", "segments", "{:,d}"),
        ("job_states", "job_states", "{:,d}"),
        ("fanned-out depths", "fanned", "{:d}"),
        ("jobs in all", "jobs", "{:,d}"),
        ("jobs of a kind, widest depth", "widest_jobs", "{:,d}"),
        ("merge job, GiB", "merge_gib", "{:.1f}"),
        ("disk: all layers, TB", "disk_layers_tb", "{:.1f}"),
        ("disk: work files, widest, TB", "work_widest_tb", "{:.1f}"),
        ("disk at its peak, TB", "disk_peak_tb", "{:.1f}"),
        ("  ... while writing depth", "disk_peak_depth", "{:d}"),
        ("moved by the widest step, TB", "moved_widest_tb", "{:.1f}"),
        ("file system, GB/s (assumed)", "fs_gbs", "{:,.0f}"),
        ("CPU, CPU-h", "cpu_h", "{:,.0f}"),
        ("wall: compute, h", "compute_h", "{:,.1f}"),
        ("wall: I/O, h", "io_h", "{:,.1f}"),
        ("wall: step jobs, h", "step_h", "{:,.2f}"),
        ("wall: scheduling, h", "scheduling_h", "{:,.1f}"),
        ("wall time, h", "wall_h", "{:,.1f}"),
        ("node-hours", "node_h", "{:,.0f}")]


def main():
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--inputs", type=Path, default=INPUTS,
                        help="scaling_inputs.py's JSON (default: the committed measured run)")
    parser.add_argument("--nodes", type=int, nargs="+", default=[16, 64, 256])
    parser.add_argument("--cores", type=int, default=16, help="cores of a node (one job a node)")
    parser.add_argument("--node-gib", type=float, default=64, help="memory of a node, GiB")
    parser.add_argument("--stage-s", type=float, default=33,
                        help="scheduling seconds per stage (the local SLURM's second rung)")
    parser.add_argument("--link-gbs", type=float, default=1.0,
                        help="a node's file-system bandwidth, GB/s (an assumption)")
    for key, (text, _) in INPUT_FLAGS.items():
        parser.add_argument(f"--{key.replace('_', '-')}", dest=key, type=float, metavar="X",
                            help=text)
    parser.add_argument("--json", action="store_true", help="print a JSON list, one per nodes")
    args = parser.parse_args()
    try:
        measured = json.loads(args.inputs.read_text()) if args.inputs.exists() else None
    except (OSError, ValueError) as err:
        sys.exit(f"scaling_plan: error: cannot read the inputs {args.inputs}: {err}")
    if measured is None:
        print(f"scaling_plan: warning: no {args.inputs}; every cost from the flags",
              file=sys.stderr)
    values = resolve(args, measured)
    x = {key: value for key, (value, _) in values.items()}
    rows = [plan(nodes, x, args.cores, args.node_gib, args.stage_s, args.link_gbs)
            for nodes in args.nodes]
    if args.json:
        for row in rows:
            row["run"] = ({k: measured["run"].get(k) for k in ("name", "date")} if measured
                          else None)
            row["inputs"] = {key: {"value": v, "from": why} for key, (v, why) in values.items()}
        print(json.dumps(rows, indent=1))
        return
    if measured:
        run = measured["run"]
        print(f"inputs: {args.inputs} ({run['name']}, {run.get('date', 'no date')})")
    for key, (value, why) in values.items():
        print(f"  {key:>22s} {value:10.4g}  {why}")
    print(f"15-puzzle, {sum(FIFTEEN_CORNER):,} states, depths 0..{len(FIFTEEN_CORNER) - 1}; "
          f"{args.stage_s:g} s a stage (assumed: the local SLURM's second rung), "
          f"{args.link_gbs:g} GB/s a node to a shared file system (assumed), one "
          f"{args.cores}-thread job a node (the kernels assumed to scale)")
    for label, key, fmt in ROWS:
        print(f"{label:<30s}" + "".join(f"{fmt.format(row[key]):>17s}" for row in rows))
    print(f"Published: {PUBLISHED}.")


if __name__ == "__main__":
    main()
