# The BFS: one job per puzzle, and (opt-in) its check.  The bfs rule's only declared output
# is the manifest, written last: the layer files beside it are not outputs, so a failed or
# killed job keeps every finished layer (Snakemake deletes the outputs of failed jobs) and
# the rerun resumes after them.


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
    threads: build_threads
    resources:
        mem_mb=build_mem_mb,
    wildcard_constraints:
        puzzle=none_of(frontier_settings(config)),
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/build_layers.py"


rule verify:
    # Opt-in (config `verify: true` adds every puzzle's verified.txt to the final outputs):
    # every layer read back in full and checked against the manifest, as `puzzledb verify`.
    # A bad layer fails the job with one line naming it; `puzzledb verify <puzzle> --repair`
    # then removes it and the layers after it, and the next run rebuilds them.
    input:
        manifest=f"{RESULTS}/{{puzzle}}/layers/manifest.json",
    output:
        f"{RESULTS}/{{puzzle}}/verified.txt",
    log:
        f"{RESULTS}/{{puzzle}}/logs/verify.log",
    benchmark:
        f"{RESULTS}/{{puzzle}}/benchmarks/verify.tsv"
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/verify.py"
