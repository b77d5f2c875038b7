# Analyses of finished databases: each reads the layers through the store.

SYMMETRIC = PUZZLEDB.symmetric_puzzles()


rule summary:
    # One job per puzzle for its two small products: a job each would add a process and its
    # imports, and nothing else.  The plots are drawn by one job for all puzzles (plots).
    input:
        manifest=paths.manifest(RESULTS),
    output:
        summary=paths.summary(RESULTS),
        antipodes=paths.antipodes(RESULTS),
    log:
        paths.log(PUZZLE, "summary"),
    benchmark:
        paths.benchmark(PUZZLE, "summary")
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/summarize.py"


rule plots:
    # Every puzzle's depth distribution from its layers' counts, in one job: matplotlib is
    # imported once, and the job runs beside the summary jobs.
    input:
        manifests=[paths.manifest(RESULTS, p) for p in config["puzzles"]],
    output:
        plots=[paths.depth_plot(RESULTS, p) for p in config["puzzles"]],
    log:
        paths.log(RESULTS, "plots"),
    benchmark:
        paths.benchmark(RESULTS, "plots")
    params:
        puzzles=config["puzzles"],
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/plot.py"


rule report:
    input:
        summaries=[paths.summary(RESULTS, p) for p in config["puzzles"]],
        antipodes=[paths.antipodes(RESULTS, p) for p in config["puzzles"]],
        plots=[paths.depth_plot(RESULTS, p) for p in config["puzzles"]],
        symmetry=[paths.symmetry_summary(RESULTS, p) for p in SYMMETRIC],
        symmetry_antipodes=[paths.symmetry_antipodes(RESULTS, p) for p in SYMMETRIC],
        distributions=[PUZZLEDB.problem_files(entry)[0] for entry in config["problem_sets"]],
        problems=[PUZZLEDB.problem_files(entry)[1] for entry in config["problem_sets"]],
    output:
        paths.report(RESULTS),
    log:
        paths.log(RESULTS, "report"),
    benchmark:
        paths.benchmark(RESULTS, "report")
    params:
        puzzles=config["puzzles"],
        declared=[puzzles.declaration(p) for p in config["puzzles"]],
        symmetric=SYMMETRIC,
        problem_sets=config["problem_sets"],
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/report.py"


rule symmetry:
    # Only for puzzles that declare symmetries (see Workflow.all_outputs).
    input:
        manifest=paths.manifest(RESULTS),
    output:
        summary=paths.symmetry_summary(RESULTS),
        antipodes=paths.symmetry_antipodes(RESULTS),
    log:
        paths.log(PUZZLE, "symmetry"),
    benchmark:
        paths.benchmark(PUZZLE, "symmetry")
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/symmetry.py"


rule mitm:
    # Meet-in-the-middle: reads only the goal layers 0..k of the puzzle's database.
    input:
        manifest=paths.manifest(RESULTS),
    output:
        distribution=f"{paths.problem_stem(RESULTS)}_distribution.csv",
        problems=f"{paths.problem_stem(RESULTS)}.txt",
    log:
        paths.log(PUZZLE, "mitm_{queries}_k{k}"),
    benchmark:
        paths.benchmark(PUZZLE, "mitm_{queries}_k{k}")
    params:
        problem_set=lambda wildcards: problem_set(
            config, wildcards.puzzle, wildcards.queries, wildcards.k
        ),
    threads: config["threads"]
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/mitm.py"
