"""The inputs of benchmarks/scaling_plan.py, measured from a kept run of
benchmarks/bench_frontier.py (`--keep RUN_DIR --depth D`): the expand and merge jobs' CPU per
state, the step's seconds, bytes per state and per neighbour, the segments' skew; each input
with the depths it was read from and how.

    python benchmarks/scaling_inputs.py RUN_DIR [-o FILE] [--name TEXT] [--widest 3]

Read from RUN_DIR/results/fifteen/: layers/manifest.json (counts, bytes, segments), the
Snakemake benchmark files benchmarks/frontier_{expand,merge}_DDD_PofQ.tsv and
frontier_step_DDD.tsv (s, max_rss, cpu_time), the jobs' logs (logs/*.log: the lines in
which an expand job states its work files and a merge job its segments), and RUN_DIR/run.json
(bench_frontier.py's record of the command, date, machine and wall time) when there is one.
A fanned-out depth D is one with expand and merge jobs: they expand layer D - 1 and write
layer D (in parts, or, in a run before parts, through the step job frontier_step_D).  An
input that the run does not show is "not measured"; the plan then falls back and says so.
"""

import argparse
import csv
import json
import re
import sys
from datetime import datetime, timezone
from pathlib import Path

PUZZLE = "fifteen"
NOT_MEASURED = "not measured"
JOB = re.compile(r"frontier_(expand|merge)_(\d+)_(\d+)of(\d+)$")
STEP = re.compile(r"frontier_step_(\d+)$")

# The log lines (bfs/frontier/expand.py and merge.py), read piece by piece so that a reworded line still
# yields what it keeps:
#   ...: depth 30, part 3 of 12: 29,756,000 states expanded into 89,000,000 neighbours,
#        312,000,000 bytes of work files
#   ...: depth 30, part 3 of 12: 89,000,000 neighbours received in 64 segments, 51,000,000
#        new states (its fullest segment 1,234,567), part file 78,000,000 bytes
NUMBER = r"([\d,_]+)"
EXPAND_LINE = {"states": rf"{NUMBER}\s+states\s+expanded",
               "neighbours": rf"into\s+{NUMBER}\s+neighbours",
               "work_bytes": rf"{NUMBER}\s+bytes\s+of\s+work\s+files"}
MERGE_LINE = {"received": rf"{NUMBER}\s+neighbours\s+received",
              "segments": rf"in\s+{NUMBER}\s+segments",
              "new": rf"{NUMBER}\s+new\s+states",
              "fullest": rf"fullest\s+segment\s+(?:of\s+)?{NUMBER}",
              "part_bytes": rf"part\s+file\s+(?:of\s+)?{NUMBER}\s+bytes"}


def number(text):
    return int(text.replace(",", "").replace("_", ""))


def log_figures(path, patterns):
    """The figures that the log at `path` states in the line with most of `patterns` (at
    least two; {} when no line has two, or there is no log)."""
    best = {}
    if path.exists():
        for line in path.read_text(errors="replace").splitlines():
            found = {}
            for key, pattern in patterns.items():
                if match := re.search(pattern, line, re.IGNORECASE):
                    found[key] = number(match.group(1))
            if len(found) >= 2 and len(found) > len(best):
                best = found
    return best


def benchmark_row(path):
    """The benchmark file's figures as floats (None for NA or a missing column); None when
    it has no row (a job that had not finished)."""
    with open(path) as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    if not rows:
        return None

    def value(key):
        try:
            return float(rows[0][key])
        except (KeyError, TypeError, ValueError):
            return None
    return {key: value(key) for key in ("s", "max_rss", "cpu_time")}


def read_jobs(results):
    """{(kind, depth): [job, ...]} with kind expand, merge or step; a job is a dict of its
    name, part, parts, benchmark figures and the figures its log states."""
    jobs = {}
    for tsv in sorted((results / "benchmarks").glob("frontier_*.tsv")):
        row = benchmark_row(tsv)
        if row is None:
            continue
        job = dict(name=tsv.stem, **row)
        log = results / "logs" / f"{tsv.stem}.log"
        if match := JOB.match(tsv.stem):
            kind, depth = match.group(1), int(match.group(2))
            job.update(part=int(match.group(3)), parts=int(match.group(4)))
            job.update(log_figures(log, EXPAND_LINE if kind == "expand" else MERGE_LINE))
        elif match := STEP.match(tsv.stem):
            kind, depth = "step", int(match.group(1))
        else:
            continue
        jobs.setdefault((kind, depth), []).append(job)
    return jobs


def stage(jobs, source):
    """An expand or merge stage of a depth: its jobs' CPU in all, per state of the layer
    expanded (source), its slowest job, and how much more CPU than the mean its busiest job
    took (its imbalance)."""
    cpu = [j["cpu_time"] or 0.0 for j in jobs]
    total = sum(cpu)
    return {"jobs": len(jobs), "cpu_s": round(total, 3),
            "us_per_state": total / source * 1e6,
            "slowest_s": max(j["s"] or 0.0 for j in jobs),
            "imbalance": max(cpu) / (total / len(cpu)) if total else None}


def depth_figures(depth, counts, layers, jobs, manifest_segments, in_parts):
    """What the run shows of fanned-out depth `depth`."""
    source, states = counts[depth - 1], counts[depth]
    expand, merge = jobs[("expand", depth)], jobs[("merge", depth)]
    step = jobs.get(("step", depth), [])
    row = {"depth": depth, "source_states": source, "states": states,
           "parts": max(j["parts"] for j in expand),
           "expand": stage(expand, source), "merge": stage(merge, source),
           "step_s": step[0]["s"] if step else None,
           "step_cpu_s": step[0]["cpu_time"] if step else None,
           "layer_bytes_per_state": layers[depth]["bytes"] / states}
    if not in_parts and step:
        # before parts, the step job wrote the layer that the merge jobs write now: its CPU
        # is what the merge jobs take on
        row["merge"]["us_per_state_with_step"] = \
            (row["merge"]["cpu_s"] + (step[0]["cpu_time"] or 0.0)) / source * 1e6
    # the logged jobs' sums (a job whose log lacks the line is left out, and said so)
    logged = [j for j in expand if {"states", "neighbours", "work_bytes"} <= j.keys()]
    neighbours = sum(j["neighbours"] for j in logged)
    if neighbours:
        row["expand_logs"] = f"{len(logged)} of {len(expand)}"
        row["neighbours_per_state"] = neighbours / sum(j["states"] for j in logged)
        row["work_bytes_per_neighbour"] = sum(j["work_bytes"] for j in logged) / neighbours
    logged = [j for j in merge if "fullest" in j]
    if all("segments" in j for j in merge):
        segments, segments_from = sum(j["segments"] for j in merge), "the merge logs, summed"
    else:
        segments, segments_from = manifest_segments, "the manifest"
    if logged and segments and states:
        # a lower bound when some merge job did not log its fullest segment
        row.update(merge_logs=f"{len(logged)} of {len(merge)}", segments=segments,
                   segments_from=segments_from,
                   fullest_segment=max(j["fullest"] for j in logged))
        row["skew"] = row["fullest_segment"] / (states / segments)
    return row


def chosen(rows, key, how, label):
    """An input from the widest depths' rows: mean or max of `key` (a function of a row) over
    the rows that have it; NOT_MEASURED with the reason when none has it."""
    have = [(r["depth"], key(r)) for r in rows if key(r) is not None]
    if not have:
        return {"value": NOT_MEASURED, "from": f"no fanned-out depth of the run shows {label}"}
    values = [v for _, v in have]
    value = sum(values) / len(values) if how == "mean" else max(values)
    per_depth = ", ".join(f"{d}: {v:.4g}" for d, v in have)
    return {"value": round(value, 4), "from": f"the {how} of depths {per_depth} (the widest "
                                              f"fanned-out depths of the run)"}


def run_record(run_dir, name, results):
    """The run's name, date, command, machine, load and wall time: run.json's (written by
    bench_frontier.py) where there is one, else what the files show."""
    record = {"name": name or run_dir.name, "dir": str(run_dir)}
    path = run_dir / "run.json"
    if path.exists():
        record.update(json.loads(path.read_text()))
        record["name"] = name or record.get("name") or run_dir.name
        record["from"] = "run.json (bench_frontier.py)"
        return record
    config = run_dir / "config.yaml"
    newest = max((p.stat().st_mtime for p in (results / "benchmarks").glob("*.tsv")),
                 default=None)
    record.update(
        date=(datetime.fromtimestamp(newest, timezone.utc).isoformat(timespec="seconds")
              + " (the newest benchmark file's time)") if newest else NOT_MEASURED,
        command=(f"benchmarks/bench_frontier.py --keep {run_dir} with config "
                 f"{config.read_text().strip()}" if config.exists() else "not recorded"),
        machine="not recorded", load="not recorded", wall_s=NOT_MEASURED,
        **{"from": "no run.json (a run before bench_frontier.py wrote one)"})
    return record


def measure(run_dir, name=None, widest=3, puzzle=PUZZLE):
    """The plan's inputs measured from the kept run in run_dir, as a dict for the JSON."""
    results = run_dir / "results" / puzzle
    manifest = json.loads((results / "layers" / "manifest.json").read_text())
    layers = {layer["depth"]: layer for layer in manifest["layers"]}
    counts = {d: layer["count"] for d, layer in layers.items()}
    in_parts = any("parts" in layer for layer in manifest["layers"])
    jobs = read_jobs(results)
    fanned = sorted(d for kind, d in jobs if kind == "expand" and ("merge", d) in jobs
                    and d in counts and d - 1 in counts)
    if not fanned:
        raise SystemExit(f"{results}: no fanned-out depth (expand and merge jobs) to measure")
    rows = [depth_figures(d, counts, layers, jobs, manifest.get("segments"), in_parts)
            for d in fanned]
    top = sorted(rows, key=lambda r: r["source_states"])[-widest:]
    top.sort(key=lambda r: r["depth"])
    widest_layers = sorted(layers.values(), key=lambda layer: layer["count"])[-widest:]
    bytes_per_state = [layer["bytes"] / layer["count"] for layer in widest_layers]
    every = [j for group in jobs.values() for j in group if j["max_rss"] is not None]
    largest = max(every, key=lambda j: j["max_rss"])

    merge_key = "us_per_state" if in_parts else "us_per_state_with_step"
    inputs = {
        "expand_us": dict(chosen(top, lambda r: r["expand"]["us_per_state"], "mean",
                                 "expand CPU"),
                          unit="CPU-us per state of layer d - 1 (the layer expanded)"),
        "merge_us": dict(chosen(top, lambda r: r["merge"].get(merge_key), "mean", "merge CPU"),
                         unit="CPU-us per state of layer d - 1, the part's write included"),
        "step_s": dict(chosen(top, lambda r: r["step_s"], "mean", "a step job"),
                       unit="wall seconds of the step job of a fanned-out depth"),
        "layer_bytes": {"value": round(sum(bytes_per_state) / len(bytes_per_state), 4),
                        "unit": "bytes on disk per state of a layer file",
                        "from": "the mean of the manifest's bytes / count at depths "
                                + ", ".join(f"{layer['depth']}: {b:.4g}" for layer, b
                                            in zip(widest_layers, bytes_per_state))
                                + " (the run's widest layers)"},
        "work_bytes": dict(chosen(top, lambda r: r.get("work_bytes_per_neighbour"), "mean",
                                  "work-file bytes (an expand log line)"),
                           unit="bytes of work files per neighbour"),
        "neighbours_per_state": dict(chosen(top, lambda r: r.get("neighbours_per_state"),
                                            "mean", "neighbours (an expand log line)"),
                                     unit="neighbours per state expanded"),
        "skew": dict(chosen(top, lambda r: r.get("skew"), "max",
                            "its fullest segment (a merge log line)"),
                     unit="the fullest segment's new states over the layer's count / "
                          "segments"),
        "expand_imbalance": dict(chosen(top, lambda r: r["expand"]["imbalance"], "mean",
                                        "expand CPU"),
                                 unit="the busiest expand job's CPU over the mean job's"),
        "merge_imbalance": dict(chosen(top, lambda r: r["merge"]["imbalance"], "mean",
                                       "merge CPU"),
                                unit="the busiest merge job's CPU over the mean job's"),
    }
    if not in_parts:
        inputs["merge_us"]["from"] += (
            "; layers in one file (a run before parts): the merge jobs' CPU plus the step "
            "job's, which wrote the layer that the merge jobs write now")
        inputs["step_s"]["from"] += (
            "; layers in one file (a run before parts): the step wrote the whole layer, so "
            "this overstates the step that writes a map of parts")
    run = run_record(run_dir, name, results)
    return {"run": run, "puzzle": puzzle, "layers_in_parts": in_parts,
            "widest_depths": [r["depth"] for r in top], "inputs": inputs,
            "largest_max_rss": {"mib": largest["max_rss"], "job": largest["name"]},
            "wall_s": run.get("wall_s", NOT_MEASURED), "depths": rows}


def main():
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("run_dir", type=Path, help="bench_frontier.py's --keep directory")
    parser.add_argument("-o", "--output", type=Path, help="write the JSON here (else stdout)")
    parser.add_argument("--name", help="the run's name in the JSON (default: RUN_DIR's name)")
    parser.add_argument("--widest", type=int, default=3,
                        help="how many of the widest fanned-out depths an input is read from")
    args = parser.parse_args()
    measured = measure(args.run_dir, args.name, args.widest)
    for key, entry in measured["inputs"].items():
        if entry["value"] == NOT_MEASURED:
            print(f"scaling_inputs: {key} not measured: {entry['from']}", file=sys.stderr)
    if not measured["layers_in_parts"]:
        print("scaling_inputs: a run before parts (the step job wrote each layer): merge_us "
              "includes the step's CPU", file=sys.stderr)
    text = json.dumps(measured, indent=1) + "\n"
    if args.output:
        args.output.write_text(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
