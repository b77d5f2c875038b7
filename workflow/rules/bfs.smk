# The BFS: one job per puzzle.  Its only declared output is the manifest, written last:
# the layer files beside it are not outputs, so a failed or killed job keeps every finished
# layer (Snakemake deletes the outputs of failed jobs) and the rerun resumes after them.


rule bfs:
    output:
        manifest=f"{RESULTS}/{{puzzle}}/layers/manifest.json",
    log:
        f"{RESULTS}/{{puzzle}}/logs/bfs.log",
    benchmark:
        f"{RESULTS}/{{puzzle}}/benchmarks/bfs.tsv"
    params:
        memory_mb=config["memory_mb"],
        depth_limit=lambda wildcards: config["depth_limit"].get(wildcards.puzzle),
    threads: config["threads"]
    resources:
        mem_mb=build_mem_mb,
    wildcard_constraints:
        puzzle=none_of(frontier_settings(config)),
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/build_layers.py"
