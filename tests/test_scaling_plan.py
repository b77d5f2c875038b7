"""benchmarks/scaling_inputs.py reads a kept run of bench_frontier.py, and
benchmarks/scaling_plan.py plans the 15-puzzle's full search from what it read: here on a
small run written by hand (a manifest, Snakemake benchmark files, job logs), whose figures
are worked out below."""

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from published_figures import FIFTEEN_CORNER

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"
HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"

# Two fanned-out depths, 2 and 3, of two parts each: (seconds, max_rss MiB, cpu_time) per job.
# Depth 3 expands layer 2 (2,000,000 states) and writes layer 3 (4,000,000) in parts.
JOBS = {
    "frontier_expand_002_0of2": (0.3, 100.0, 0.1),
    "frontier_expand_002_1of2": (0.3, 100.0, 0.1),
    "frontier_merge_002_0of2": (0.5, 150.0, 0.2),
    "frontier_merge_002_1of2": (0.5, 150.0, 0.2),
    "frontier_step_002": (0.2, 90.0, 0.1),
    "frontier_expand_003_0of2": (0.5, 120.0, 0.3),
    "frontier_expand_003_1of2": (0.7, 130.0, 0.5),
    "frontier_merge_003_0of2": (0.9, 250.0, 0.6),
    "frontier_merge_003_1of2": (0.4, 200.0, 0.2),
    "frontier_step_003": (0.4, 95.0, 0.1),
    "frontier_step_000": (2.0, 300.0, 1.9),  # depths 0 and 1 in-process: not a fanned depth
}
# Depth 3's jobs log their work files and segments; depth 2's (an older run's) do not.
LOGS = {
    "frontier_expand_003_0of2": "fifteen: depth 3, part 0 of 2: 1,000,000 states expanded into "
                                "2,000,000 neighbours, 5,000,000 bytes of work files\n",
    "frontier_expand_003_1of2": "fifteen: depth 3, part 1 of 2: 1,000,000 states expanded into "
                                "4,000,000 neighbours, 7,000,000 bytes of work files\n",
    "frontier_merge_003_0of2": "fifteen: depth 3, part 0 of 2: mem_mb 710 (from the neighbours "
                               "its segments received)\n"
                               "fifteen: depth 3, part 0 of 2: 3,000,000 neighbours received "
                               "in 3 segments, 2,500,000 new states (its fullest segment "
                               "1,000,000), part file 3,750,000 bytes\n",
    "frontier_merge_003_1of2": "fifteen: depth 3, part 1 of 2: 3,000,000 neighbours received "
                               "in 1 segments, 1,500,000 new states (its fullest segment "
                               "1,500,000), part file 2,250,000 bytes\n",
}
COUNTS = [1, 1_000_000, 2_000_000, 4_000_000]
BYTES = [11_688, 1_700_000, 3_200_000, 6_000_000]  # 1.7, 1.6 and 1.5 bytes a state
RUN = {"name": "tiny", "date": "2026-11-25T03:00:00+00:00",
       "command": "python benchmarks/bench_frontier.py --keep tiny --depth 3",
       "machine": {"cpu": "a test", "cores": 2}, "wall_s": 12.5}


def write_run(run_dir, logs=True, record=True):
    results = run_dir / "results" / "fifteen"
    for folder in ("layers", "benchmarks", "logs"):
        (results / folder).mkdir(parents=True)
    layers = [{"depth": d, "count": c, "crc32": 0, "bytes": b}
              for d, (c, b) in enumerate(zip(COUNTS, BYTES))]
    layers[3]["parts"] = [{"count": 2_500_000, "crc32": 0, "bytes": 3_750_000},
                          {"count": 1_500_000, "crc32": 0, "bytes": 2_250_000}]
    (results / "layers" / "manifest.json").write_text(json.dumps(
        {"puzzle": "fifteen", "max_depth": 3, "total": sum(COUNTS), "mode": "frontier",
         "segments": 256, "layers": layers}))
    for job, (s, rss, cpu) in JOBS.items():
        (results / "benchmarks" / f"{job}.tsv").write_text(
            HEADER + f"{s}\t0:00:00\t{rss}\t1\t1\t1\t0\t0\t50\t{cpu}\n")
        (results / "logs" / f"{job}.log").write_text(LOGS.get(job, "") if logs else "")
    if record:
        (run_dir / "run.json").write_text(json.dumps(RUN))
    return run_dir


def run(script, *args):
    done = subprocess.run([sys.executable, str(BENCHMARKS / script), *map(str, args)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done


def measured(tmp_path, **kw):
    run_dir = write_run(tmp_path / "run", **kw)
    out = tmp_path / "inputs.json"
    run("scaling_inputs.py", run_dir, "-o", out)
    return out, json.loads(out.read_text())


def value(inputs, key):
    return inputs["inputs"][key]["value"]


def test_inputs_are_the_jobs_cpu_over_the_layer_expanded_at_the_fanned_out_depths(tmp_path):
    _, inputs = measured(tmp_path)
    assert inputs["widest_depths"] == [2, 3]
    by_depth = {row["depth"]: row for row in inputs["depths"]}
    # depth 3: expand 0.3 + 0.5 CPU-s over layer 2's 2,000,000 states: 0.4 us a state; depth
    # 2: 0.2 CPU-s over 1,000,000: 0.2; the input is their mean
    assert by_depth[3]["expand"]["us_per_state"] == pytest.approx(0.4)
    assert by_depth[2]["expand"]["us_per_state"] == pytest.approx(0.2)
    assert value(inputs, "expand_us") == pytest.approx(0.3)
    # merge: 0.8 CPU-s / 2,000,000 and 0.4 / 1,000,000, both 0.4
    assert value(inputs, "merge_us") == pytest.approx(0.4)
    # the busiest job over the mean: expand 0.5 / 0.4 and 0.1 / 0.1; merge 0.6 / 0.4 and 1
    assert value(inputs, "expand_imbalance") == pytest.approx((1.25 + 1) / 2)
    assert value(inputs, "merge_imbalance") == pytest.approx((1.5 + 1) / 2)
    # the step jobs of depths 2 and 3, 0.2 and 0.4 s (not step 0's in-process depths)
    assert value(inputs, "step_s") == pytest.approx(0.3)
    # layers 3, 2, 1: 1.5, 1.6, 1.7 bytes a state
    assert value(inputs, "layer_bytes") == pytest.approx(1.6)
    assert inputs["largest_max_rss"] == {"mib": 300.0, "job": "frontier_step_000"}


def test_work_bytes_and_skew_come_from_the_log_lines_summed_over_the_jobs(tmp_path):
    _, inputs = measured(tmp_path)
    # 12,000,000 bytes for 6,000,000 neighbours (not the mean of 2.5 and 1.75 per job)
    assert value(inputs, "work_bytes") == pytest.approx(2.0)
    assert value(inputs, "neighbours_per_state") == pytest.approx(3.0)
    # 3 + 1 segments; layer 3's share of one is 1,000,000; the fullest holds 1,500,000
    depth3 = inputs["depths"][-1]
    assert (depth3["segments"], depth3["fullest_segment"]) == (4, 1_500_000)
    assert value(inputs, "skew") == pytest.approx(1.5)
    assert "depths 3: 1.5" in inputs["inputs"]["skew"]["from"]
    assert inputs["run"]["name"] == "tiny" and inputs["wall_s"] == 12.5
    assert inputs["run"]["command"] == RUN["command"]


def test_a_run_without_the_log_lines_falls_back_to_raw_work_files_and_the_estimates_skew(
        tmp_path):
    out, inputs = measured(tmp_path, logs=False, record=False)
    for key in ("work_bytes", "skew", "neighbours_per_state"):
        assert value(inputs, key) == "not measured"
    assert inputs["wall_s"] == "not measured" and inputs["run"]["machine"] == "not recorded"
    done = run("scaling_plan.py", "--inputs", out, "--json", "--nodes", "16")
    row, = json.loads(done.stdout)
    assert row["inputs"]["work_bytes"]["value"] == 8
    assert row["inputs"]["skew"]["value"] == 2
    assert "warning: work_bytes not measured" in done.stderr
    assert "warning: skew not measured" in done.stderr


def test_the_plan_takes_the_measured_inputs_and_a_flag_over_them(tmp_path):
    out, _ = measured(tmp_path)
    done = run("scaling_plan.py", "--inputs", out, "--json", "--nodes", "16", "64",
               "--step-s", "5")
    rows = json.loads(done.stdout)
    assert [row["nodes"] for row in rows] == [16, 64]
    row = rows[0]
    assert row["inputs"]["step_s"] == {"value": 5.0, "from": "given"}
    assert row["inputs"]["work_bytes"] == {"value": 2.0, "from": "measured"}
    assert row["run"] == {"name": "tiny", "date": RUN["date"]}
    assert done.stderr == ""
    total = sum(FIFTEEN_CORNER)  # 10,461,394,944,000
    widest = max(FIFTEEN_CORNER)  # depth 53: 784,195,801,886
    # 0.3 + 0.4 CPU-us for each state expanded (every layer but the last, 17 states)
    assert row["cpu_h"] == pytest.approx((total - 17) * 0.7e-6 / 3600)
    assert row["disk_layers_tb"] == pytest.approx(total * 1.6 / 1e12)
    # expanding depth 53: 3 neighbours a state at 2 bytes each
    assert row["work_widest_tb"] == pytest.approx(widest * 3 * 2 / 1e12)
    # a merge job holds three segments (two merged at once, one written) of 1.5 shares at
    # (16 x 4 moves + 16) bytes a state: with 8,192 segments 34.5 GB, fits 64 GiB; 4,096
    # would need 68.9 GB
    assert row["segments"] == 8192
    held = int(3 * 1.5 * widest / 8192 * 80) + 2**14 * 64 * 8
    assert row["merge_gib"] == pytest.approx((int(held / 2**20) + 1 + 256) / 1024)
    assert row["job_states"] == math.ceil(widest / 16) and row["widest_jobs"] == 16
    assert row["node_h"] == pytest.approx(row["wall_h"] * 16)


def test_a_stage_lasts_its_slowest_job_and_33_seconds():
    spec = importlib.util.spec_from_file_location("scaling_plan", BENCHMARKS / "scaling_plan.py")
    scaling_plan = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scaling_plan)
    x = dict(expand_us=1, merge_us=2, step_s=10, layer_bytes=1.5, work_bytes=2, skew=2,
             neighbours_per_state=3, expand_imbalance=1, merge_imbalance=1)
    # four layers on 4 nodes: job_states 10^11, so layer 1 fans out into 2 jobs of each
    # kind, layer 2 into 4; layer 0 is expanded inside the step job
    row = scaling_plan.plan(4, x, layers=[1, 2 * 10**11, 4 * 10**11, 1])
    assert (row["fanned"], row["jobs"], row["widest_jobs"]) == (2, 5 + 9, 4)
    # depth 0 -> 1, in the step job: writing layer 1, 3e11 bytes at 1 GB/s, 300 s.
    # depth 1 -> 2, 2 jobs: expand 2e5 CPU-s / 2 / 16 cores = 6,250 s, and 3e11 bytes read
    # + 1.2e12 written over 2 links, 750 s; merge 4e5 CPU-s, 12,500 s, and 1.2e12 + 3e11 +
    # 6e11 bytes, 1,050 s; step 10 s.  Depth 2 -> 3, 4 jobs: 6,250 + 750 s, 12,500 s and
    # (2.4e12 + 9e11) / 4 GB/s = 825 s, 10 s.  Stages: 2 x 3 and the first step and the
    # manifest, 33 s each.
    seconds = 300 + (6250 + 750 + 12500 + 1050 + 10) + (6250 + 750 + 12500 + 825 + 10) + 8 * 33
    assert row["wall_h"] == pytest.approx(seconds / 3600, rel=1e-6)
    # the peak: every layer (6e11 states, 9e11 bytes) and depth 2's work files (2.4e12)
    assert (row["disk_peak_tb"], row["disk_peak_depth"]) == (pytest.approx(3.3), 3)
