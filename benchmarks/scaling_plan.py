"""A plan on paper: the 15-puzzle's full BFS (OEIS A089484, 16!/2 states, radius 80) through
the sharded workflow on a cluster of N nodes, from per-state costs measured on this machine.
Nothing is run: this is the cost model of docs/scaling.md, as arithmetic.

    python benchmarks/scaling_plan.py [--nodes 16 64 256] [--cores 16] [--node-gib 64]
        [--expand-us E] [--merge-us M] [--write-us W] [--stage-s S] [--link-gbs B]

Per depth d -> d + 1 (layer sizes n_d from the published table):
- a layer wider than job_states fans out into F = min(segments, ceil(n_d / job_states))
  expand and F merge jobs (job_states is chosen so that the widest layer gives one job of
  each kind per node), then one step job writes layer d + 1; a narrower layer is expanded,
  merged and written inside the step job;
- CPU: E CPU-microseconds per state of layer d to expand, M to merge its neighbours, both
  spread over a job's cores; W microseconds per state of layer d + 1 to write it, in the one
  step job (one HDF5 file per layer, written by one process: the code as it is), or with
  --parallel-write spread over the merge jobs (a file per part: not built);
- I/O: every byte a job reads or writes crosses its node's link at B GB/s (a shared file
  system): expand reads layer d and writes 8 bytes per neighbour, merge reads those and
  segments of layers d and d - 1 and writes 8 bytes per new state, the step reads those and
  writes the layer file (bytes per state as measured);
- scheduling: S seconds per stage (step, expand, merge: the SLURM status ladder's rung).
Segments: the fewest (a power of two) whose merge job fits a node (memory.frontier_job_bytes).
"""

import argparse
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "workflow"))
sys.path.insert(0, str(ROOT / "tests"))

from published_figures import FIFTEEN_CORNER  # noqa: E402
from puzzledb import puzzles  # noqa: E402
from puzzledb.bfs.memory import frontier_job_bytes  # noqa: E402

NEIGHBOUR_BYTES = 8  # an expanded or merged rank in a work file: a raw uint64


def mean_moves(width, height):
    """Moves of a sliding puzzle averaged over the blank's cells (a layer's blanks are spread
    over the cells of one colour of the board's chessboard colouring, evenly enough)."""
    degree = [(x > 0) + (x < width - 1) + (y > 0) + (y < height - 1)
              for y in range(height) for x in range(width)]
    return sum(degree) / len(degree)


def plan(nodes, args):
    layers = FIFTEEN_CORNER
    widest = max(layers)
    fifteen = puzzles.get("fifteen")
    budget = args.node_gib * 2**30
    segments = 1
    while frontier_job_bytes(fifteen, widest, segments) > budget:
        segments *= 2
    job_states = math.ceil(widest / nodes)
    moves = mean_moves(4, 4)
    per_state_disk = args.bytes_per_state
    link = args.link_gbs * 1e9
    wall = {"compute": 0.0, "io": 0.0, "write": 0.0}
    cpu = stages = 0.0
    jobs = peak_moved = peak_work = 0
    fanned = 0
    for d in range(len(layers) - 1):
        n, new, before = layers[d], layers[d + 1], layers[d - 1] if d else 0
        neighbours = n * moves
        fan = min(segments, math.ceil(n / job_states))
        compute = n * (args.expand_us + args.merge_us) * 1e-6
        write = new * args.write_us * 1e-6
        cpu += compute + write
        read_older = (n + before) * per_state_disk
        expand_io = n * per_state_disk + neighbours * NEIGHBOUR_BYTES
        merge_io = neighbours * NEIGHBOUR_BYTES + read_older + new * NEIGHBOUR_BYTES
        step_io = new * NEIGHBOUR_BYTES + new * per_state_disk
        if fan == 1:
            # expanded, merged and written inside one step job, on one node
            wall["compute"] += compute / args.cores
            wall["write"] += write
            wall["io"] += (n * per_state_disk + read_older + new * per_state_disk) / link
            continue
        fanned += 1
        jobs += 2 * fan + 1
        stages += 3
        # each stage waits for its slowest job: fan jobs over min(fan, nodes) nodes
        waves = math.ceil(fan / nodes)
        wall["compute"] += waves * compute / fan / args.cores
        wall["io"] += waves * (expand_io + merge_io) / fan / link
        if args.parallel_write:
            # each merge job writes its part of the layer (a file per part): not built
            wall["write"] += waves * write / fan
            wall["io"] += waves * step_io / fan / link
        else:
            wall["write"] += write
            wall["io"] += step_io / link
        moved = expand_io + merge_io + step_io
        peak_moved = max(peak_moved, moved)
        peak_work = max(peak_work, neighbours * NEIGHBOUR_BYTES + new * NEIGHBOUR_BYTES)
    scheduling = stages * args.stage_s
    total = sum(wall.values()) + scheduling
    return {"nodes": nodes, "segments": segments, "job_states": job_states,
            "fanned": fanned, "jobs": jobs, "widest_jobs": min(segments,
                                                                math.ceil(widest / job_states)),
            "merge_gib": frontier_job_bytes(fifteen, widest, segments) / 2**30,
            "disk_widest_tb": widest * per_state_disk / 1e12,
            "disk_all_tb": sum(layers) * per_state_disk / 1e12,
            "work_peak_tb": peak_work / 1e12, "moved_peak_tb": peak_moved / 1e12,
            "cpu_h": cpu / 3600, "compute_h": wall["compute"] / 3600,
            "io_h": wall["io"] / 3600, "write_h": wall["write"] / 3600,
            "scheduling_h": scheduling / 3600, "wall_h": total / 3600,
            "node_h": total / 3600 * nodes}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[16, 64, 256])
    parser.add_argument("--cores", type=int, default=16, help="cores of a node (one job a node)")
    parser.add_argument("--node-gib", type=float, default=64, help="memory of a node, GiB")
    parser.add_argument("--expand-us", type=float, required=True,
                        help="CPU microseconds to expand one state (measured)")
    parser.add_argument("--merge-us", type=float, required=True,
                        help="CPU microseconds to merge one state's neighbours (measured)")
    parser.add_argument("--write-us", type=float, required=True,
                        help="wall microseconds to write one state of a layer (measured)")
    parser.add_argument("--stage-s", type=float, default=33,
                        help="scheduling seconds per stage (measured on the local SLURM)")
    parser.add_argument("--bytes-per-state", type=float, default=1.547,
                        help="a layer file's bytes per state (issue 14, depth 28)")
    parser.add_argument("--link-gbs", type=float, default=1.0,
                        help="a node's file-system bandwidth, GB/s (an assumption)")
    parser.add_argument("--parallel-write", action="store_true",
                        help="each merge job writes its part of the layer (not built: "
                             "today one step job writes the whole layer)")
    args = parser.parse_args()
    print(f"15-puzzle, {sum(FIFTEEN_CORNER):,} states, depths 0..{len(FIFTEEN_CORNER) - 1}; "
          f"expand {args.expand_us} + merge {args.merge_us} CPU-us a state, write "
          f"{args.write_us} us a state, {args.stage_s} s a stage, {args.link_gbs} GB/s a node")
    columns = [("nodes", "{:d}"), ("segments", "{:,d}"), ("job_states", "{:,d}"),
               ("fanned", "{:d}"), ("jobs", "{:,d}"), ("widest_jobs", "{:,d}"),
               ("merge_gib", "{:.1f}"), ("disk_widest_tb", "{:.2f}"), ("disk_all_tb", "{:.1f}"),
               ("work_peak_tb", "{:.1f}"), ("moved_peak_tb", "{:.1f}"), ("cpu_h", "{:,.0f}"),
               ("compute_h", "{:,.1f}"), ("io_h", "{:,.1f}"), ("write_h", "{:,.1f}"),
               ("scheduling_h", "{:.1f}"), ("wall_h", "{:,.1f}"), ("node_h", "{:,.0f}")]
    rows = [plan(nodes, args) for nodes in args.nodes]
    for name, fmt in columns:
        print(f"{name:>14s} " + " ".join(f"{fmt.format(row[name]):>14s}" for row in rows))


if __name__ == "__main__":
    main()
