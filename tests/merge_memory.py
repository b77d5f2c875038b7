"""A merge job of the frontier search run alone in a child process, its peak resident memory
measured against what it states (FrontierPlan.merge_bytes, the mem_mb the workflow gives
it): tests/test_frontier.py and benchmarks/bench_merge_memory.py.

    python tests/merge_memory.py JOB   (JOB: the JSON that measure_merge writes)

The child loads the merge's kernels first, as the job does before its work, then resets
the kernel's high-water mark of its resident set (/proc/self/clear_refs) and runs the merge:
the peak's growth above that baseline is what the merge held."""

import json
import subprocess
import sys
import threading
import time
from pathlib import Path


def prepared_merge(directory, puzzle, depth, segments, parts=1, job_states=10**9):
    """The frontier search of `puzzle` (a puzzle, or its class puzzle) in `directory`: layers
    0..depth - 1 built, depth expanded into `parts` expand jobs' directories (unless an
    earlier call left them there: its file `expanded`); (the plan, those directories)."""
    from puzzledb.bfs.frontier.search import Frontier

    directory = Path(directory)
    frontier = Frontier(puzzle, directory / "layers", directory / "work", segments,
                        job_states, depth_limit=depth - 1)
    plan = frontier.plan
    expanded = [plan.expand_dir(depth, p, parts) for p in range(parts)]
    done = directory / "expanded"
    if not done.exists() or done.read_text() != f"{depth} {segments} {parts}\n":
        frontier.build(log=lambda m: None)
        for p in range(parts):
            frontier.expand(depth, p, parts, expanded[p])
        done.write_text(f"{depth} {segments} {parts}\n")
    return plan, expanded


def measure_merge(spec, plan, depth, part, parts, expanded):
    """Run merge job `part` of `parts` of depth in a child process; what it stated and held:
    a dict of stated (merge_bytes), mem_mb, baseline and peak (its resident set before the
    merge and at the most, bytes), growth (peak - baseline), anon_growth (the same of its
    anonymous memory, sampled), count (new states), seconds and cpu_seconds (the merge's
    wall and CPU time).  spec: the puzzle, as child_puzzle takes it."""
    import puzzledb
    from puzzledb.bfs.memory import mb_of

    stated = plan.merge_bytes(depth, part, parts, expanded)
    out = plan.merge_dir(depth, part, parts)
    job = dict(source=str(Path(puzzledb.__file__).parents[1]), spec=spec,
               directory=str(plan.directory), work=str(plan.work), segments=plan.segments,
               job_states=plan.job_states, depth=depth, part=part, parts=parts,
               expanded=[str(e) for e in expanded], out=str(out))
    done = subprocess.run([sys.executable, __file__, json.dumps(job)], capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the merge's child failed:\n{done.stderr}")
    measured = json.loads(done.stdout.splitlines()[-1])
    return dict(measured, stated=stated, mem_mb=mb_of(stated))


def child_puzzle(spec):
    """The puzzle a spec names: {"name": builtin} or {"name", "file": a twsearch definition},
    with "symmetric": true its class puzzle."""
    from puzzledb import puzzles
    from puzzledb.puzzles.permutation.puzzle import PermutationPuzzle
    from puzzledb.puzzles.symmetric import Classes

    puzzle = (PermutationPuzzle(spec["name"], file=spec["file"]) if "file" in spec
              else puzzles.get(spec["name"]))
    return Classes(puzzle, puzzle.symmetry_group()) if spec.get("symmetric") else puzzle


def status(field):
    """A field of /proc/self/status, in bytes."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(field)


class AnonPeak(threading.Thread):
    """The largest RssAnon seen, sampled every few milliseconds until stopped."""

    def __init__(self):
        super().__init__(daemon=True)
        self.base = self.peak = status("RssAnon")
        self.stopped = threading.Event()

    def run(self):
        while not self.stopped.wait(0.005):
            self.peak = max(self.peak, status("RssAnon"))


def reset_peak():
    """Start the high-water mark of this process's resident set (VmHWM) again from the
    resident set now, and return that."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    return status("VmRSS")


def run_child(job):
    from puzzledb.bfs.frontier.merge import merge_job, merge_kernels
    from puzzledb.bfs.frontier.plan import FrontierPlan
    from puzzledb.compiled import prepare

    plan = FrontierPlan(child_puzzle(job["spec"]), job["directory"], job["work"],
                        job["segments"], job["job_states"])
    prepare(merge_kernels(plan.puzzle))
    baseline, anon = reset_peak(), AnonPeak()
    anon.start()
    began, cpu = time.perf_counter(), time.process_time()
    entry = merge_job(plan, job["depth"], job["part"], job["parts"], job["expanded"],
                      job["out"])
    seconds = time.perf_counter() - began
    cpu = time.process_time() - cpu
    anon.stopped.set()
    anon.join()
    peak = status("VmHWM")
    print(json.dumps(dict(baseline=baseline, peak=peak, growth=peak - baseline,
                          anon_growth=anon.peak - anon.base,
                          count=entry["count"], seconds=seconds, cpu_seconds=cpu)))


if __name__ == "__main__":
    job = json.loads(sys.argv[1])
    sys.path.insert(0, job["source"])  # the puzzledb the parent imported
    run_child(job)
