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
    threads: config["threads"]
    resources:
        mem_mb=build_mem_mb,
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/build_layers.py"
