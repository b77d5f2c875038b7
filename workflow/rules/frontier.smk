# The frontier workflow (puzzledb.bfs.frontier.search): a puzzle in `shards`, or one too large for the
# in-memory search that has a depth limit, is built by a chain of steps.  A step writes one
# or more layers and then its record, a checkpoint: the record says what comes next, the end
# or a depth fanned out into expand and merge jobs whose results the next step gathers.

checkpoint frontier_step:
    input:
        unpack(step_input),
    output:
        f"{RESULTS}/{{puzzle}}/frontier/step_{{first}}.json",
    log:
        f"{RESULTS}/{{puzzle}}/logs/frontier_step_{{first}}.log",
    benchmark:
        f"{RESULTS}/{{puzzle}}/benchmarks/frontier_step_{{first}}.tsv"
    params:
        plan=lambda wildcards: FRONTIER[wildcards.puzzle],
        work=f"{RESULTS}/{{puzzle}}/frontier",
    threads: config["threads"]
    resources:
        mem_mb=step_mb,
    wildcard_constraints:
        first=r"\d{3}",
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/frontier_step.py"


rule frontier_expand:
    input:
        previous=lambda wildcards: record_before(wildcards.puzzle, int(wildcards.depth))[0],
    output:
        temp(directory(f"{RESULTS}/{{puzzle}}/frontier/d{{depth}}/expand_{{part}}of{{parts}}")),
    log:
        f"{RESULTS}/{{puzzle}}/logs/frontier_expand_{{depth}}_{{part}}of{{parts}}.log",
    benchmark:
        f"{RESULTS}/{{puzzle}}/benchmarks/frontier_expand_{{depth}}_{{part}}of{{parts}}.tsv"
    params:
        plan=lambda wildcards: FRONTIER[wildcards.puzzle],
        work=f"{RESULTS}/{{puzzle}}/frontier",
    threads: config["threads"]
    resources:
        mem_mb=layer_before_mb,
    wildcard_constraints:
        depth=r"\d{3}",
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/frontier_expand.py"


rule frontier_merge:
    input:
        expanded=lambda wildcards: [
            str(frontier_plan(wildcards.puzzle).expand_dir(int(wildcards.depth), p,
                                                           int(wildcards.parts)))
            for p in range(int(wildcards.parts))
        ],
    output:
        temp(directory(f"{RESULTS}/{{puzzle}}/frontier/d{{depth}}/merge_{{part}}of{{parts}}")),
    log:
        f"{RESULTS}/{{puzzle}}/logs/frontier_merge_{{depth}}_{{part}}of{{parts}}.log",
    benchmark:
        f"{RESULTS}/{{puzzle}}/benchmarks/frontier_merge_{{depth}}_{{part}}of{{parts}}.tsv"
    params:
        plan=lambda wildcards: FRONTIER[wildcards.puzzle],
        work=f"{RESULTS}/{{puzzle}}/frontier",
    threads: config["threads"]
    resources:
        mem_mb=merge_mb,
    wildcard_constraints:
        depth=r"\d{3}",
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/frontier_merge.py"


rule frontier_manifest:
    input:
        record=final_record,
    output:
        manifest=f"{RESULTS}/{{puzzle}}/layers/manifest.json",
    log:
        f"{RESULTS}/{{puzzle}}/logs/frontier_manifest.log",
    benchmark:
        f"{RESULTS}/{{puzzle}}/benchmarks/frontier_manifest.tsv"
    params:
        plan=lambda wildcards: FRONTIER[wildcards.puzzle],
        work=f"{RESULTS}/{{puzzle}}/frontier",
    wildcard_constraints:
        puzzle=one_of(FRONTIER),
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/frontier_manifest.py"
