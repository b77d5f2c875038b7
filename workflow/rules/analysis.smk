# Analyses of finished databases: each reads the layers through the store.


rule summary:
    # One job per puzzle for its two small products: a job each would add a process and its
    # imports, and nothing else.  The plots are drawn by one job for all puzzles (plots).
    input:
        manifest=f"{RESULTS}/{{puzzle}}/layers/manifest.json",
    output:
        summary=f"{RESULTS}/{{puzzle}}/summary.csv",
        antipodes=f"{RESULTS}/{{puzzle}}/antipodes.txt",
    log:
        f"{RESULTS}/{{puzzle}}/logs/summary.log",
    benchmark:
        f"{RESULTS}/{{puzzle}}/benchmarks/summary.tsv"
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/summarize.py"


rule plots:
    # Every puzzle's depth distribution from its layers' counts, in one job: matplotlib is
    # imported once, and the job runs beside the summary jobs.
    input:
        manifests=expand(f"{RESULTS}/{{puzzle}}/layers/manifest.json", puzzle=config["puzzles"]),
    output:
        plots=expand(f"{RESULTS}/{{puzzle}}/depth_distribution.png", puzzle=config["puzzles"]),
    log:
        f"{RESULTS}/logs/plots.log",
    benchmark:
        f"{RESULTS}/benchmarks/plots.tsv"
    params:
        puzzles=config["puzzles"],
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/plot.py"


rule report:
    input:
        summaries=expand(f"{RESULTS}/{{puzzle}}/summary.csv", puzzle=config["puzzles"]),
        antipodes=expand(f"{RESULTS}/{{puzzle}}/antipodes.txt", puzzle=config["puzzles"]),
        plots=expand(f"{RESULTS}/{{puzzle}}/depth_distribution.png", puzzle=config["puzzles"]),
        symmetry=expand(f"{RESULTS}/{{puzzle}}/summary_symmetry.csv", puzzle=symmetric_puzzles()),
        symmetry_antipodes=expand(
            f"{RESULTS}/{{puzzle}}/antipodes_symmetry.txt", puzzle=symmetric_puzzles()
        ),
        distributions=[problem_files(entry)[0] for entry in config["problem_sets"]],
        problems=[problem_files(entry)[1] for entry in config["problem_sets"]],
    output:
        f"{RESULTS}/report.html",
    log:
        f"{RESULTS}/logs/report.log",
    benchmark:
        f"{RESULTS}/benchmarks/report.tsv"
    params:
        puzzles=config["puzzles"],
        declared=[puzzles.declaration(p) for p in config["puzzles"]],
        symmetric=symmetric_puzzles(),
        problem_sets=config["problem_sets"],
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/report.py"


rule symmetry:
    # Only for puzzles that declare symmetries (see all_outputs).
    input:
        manifest=f"{RESULTS}/{{puzzle}}/layers/manifest.json",
    output:
        summary=f"{RESULTS}/{{puzzle}}/summary_symmetry.csv",
        antipodes=f"{RESULTS}/{{puzzle}}/antipodes_symmetry.txt",
    log:
        f"{RESULTS}/{{puzzle}}/logs/symmetry.log",
    benchmark:
        f"{RESULTS}/{{puzzle}}/benchmarks/symmetry.tsv"
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/symmetry.py"


rule mitm:
    # Meet-in-the-middle: reads only the goal layers 0..k of the puzzle's database.
    input:
        manifest=f"{RESULTS}/{{puzzle}}/layers/manifest.json",
    output:
        distribution=f"{RESULTS}/{{puzzle}}/problems/{{queries}}_k{{k}}_distribution.csv",
        problems=f"{RESULTS}/{{puzzle}}/problems/{{queries}}_k{{k}}.txt",
    log:
        f"{RESULTS}/{{puzzle}}/logs/mitm_{{queries}}_k{{k}}.log",
    benchmark:
        f"{RESULTS}/{{puzzle}}/benchmarks/mitm_{{queries}}_k{{k}}.tsv"
    params:
        problem_set=lambda wildcards: problem_set(
            config, wildcards.puzzle, wildcards.queries, wildcards.k
        ),
    threads: config["threads"]
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/mitm.py"
