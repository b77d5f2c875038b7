# The frontier workflow (puzzledb.bfs.frontier): the puzzles bfs.select gives the frontier
# search (those in `shards`, or too large for the in-memory search with a depth limit or a
# sparse rank space) are built by a chain of steps.  A step writes one or more layers and then its record, a
# checkpoint: the record says what comes next, the end or a depth fanned out into expand and
# merge jobs whose results the next step gathers.

from puzzledb.rules.frontier import FrontierRules

FRONTIER = FrontierRules(config, PLANS, checkpoints)
WORK = paths.frontier_work(RESULTS)


checkpoint frontier_step:
    input:
        unpack(FRONTIER.step_input),
    output:
        paths.step_record(WORK),
    log:
        paths.log(PUZZLE, "frontier_step_{first}"),
    benchmark:
        paths.benchmark(PUZZLE, "frontier_step_{first}")
    params:
        plan=FRONTIER.search_plan,
    threads: config["threads"]
    resources:
        mem_mb=FRONTIER.step_mb,
    wildcard_constraints:
        first=r"\d{3}",
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/frontier_step.py"


rule frontier_expand:
    input:
        previous=FRONTIER.previous_record,
    output:
        temp(directory(paths.expand_output(WORK))),
    log:
        paths.log(PUZZLE, "frontier_expand_{depth}_{part}of{parts}"),
    benchmark:
        paths.benchmark(PUZZLE, "frontier_expand_{depth}_{part}of{parts}")
    params:
        plan=FRONTIER.search_plan,
    threads: config["threads"]
    resources:
        mem_mb=FRONTIER.layer_before_mb,
    wildcard_constraints:
        depth=r"\d{3}",
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/frontier_expand.py"


rule frontier_merge:
    input:
        expanded=FRONTIER.expanded,
    output:
        temp(directory(paths.merge_output(WORK))),
    log:
        paths.log(PUZZLE, "frontier_merge_{depth}_{part}of{parts}"),
    benchmark:
        paths.benchmark(PUZZLE, "frontier_merge_{depth}_{part}of{parts}")
    params:
        plan=FRONTIER.search_plan,
    threads: config["threads"]
    resources:
        mem_mb=FRONTIER.merge_mb,
    wildcard_constraints:
        depth=r"\d{3}",
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/frontier_merge.py"


rule frontier_manifest:
    input:
        record=FRONTIER.final_record,
    output:
        manifest=paths.manifest(RESULTS),
    log:
        paths.log(PUZZLE, "frontier_manifest"),
    benchmark:
        paths.benchmark(PUZZLE, "frontier_manifest")
    params:
        plan=FRONTIER.search_plan,
    wildcard_constraints:
        puzzle=FRONTIER.puzzles(),
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/frontier_manifest.py"
