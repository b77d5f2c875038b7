# Analyses of finished databases: each reads the layers through the store.  What a user reads
# is marked with report(): `snakemake --report report.zip` files it under its puzzle (the
# category) and its kind (the subcategory), with the caption in workflow/report/.

from puzzledb.rules.analysis import AnalysisRules

ANALYSIS = AnalysisRules(config, PLANS)
SYMMETRIC = ANALYSIS.symmetric_puzzles()
DESIGNED = ANALYSIS.designed_puzzles()
ROUTED = ANALYSIS.routed_puzzles()


rule summary:
    # One job per puzzle for its two small products: a job each would add a process and its
    # imports, and nothing else.  The plots are drawn by one job for all puzzles (plots).
    input:
        manifest=paths.manifest(RESULTS),
    output:
        summary=report(
            paths.summary(RESULTS),
            caption="../report/summary.rst",
            category="{puzzle}",
            subcategory="layers",
            labels={"content": "positions per depth (table)"},
        ),
        antipodes=report(
            paths.antipodes(RESULTS),
            caption="../report/antipodes.rst",
            category="{puzzle}",
            subcategory="layers",
            labels={"content": "deepest positions"},
        ),
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
        # one job, no wildcards: each plot's category is its puzzle's name, given here
        plots=[
            report(
                paths.depth_plot(RESULTS, p),
                caption="../report/depth_distribution.rst",
                category=p,
                subcategory="layers",
                labels={"content": "positions per depth (plot)"},
            )
            for p in config["puzzles"]
        ],
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
    # The page covers every finished database in RESULTS, not only this run's puzzles (its
    # inputs): the others it reads as it finds them (report.page.finished_databases).
    input:
        summaries=[paths.summary(RESULTS, p) for p in config["puzzles"]],
        antipodes=[paths.antipodes(RESULTS, p) for p in config["puzzles"]],
        plots=[paths.depth_plot(RESULTS, p) for p in config["puzzles"]],
        symmetry=[paths.symmetry_summary(RESULTS, p) for p in SYMMETRIC],
        symmetry_antipodes=[paths.symmetry_antipodes(RESULTS, p) for p in SYMMETRIC],
        designs=[paths.design(RESULTS, p) for p in DESIGNED],
        antipode_moves=[paths.antipode_moves(RESULTS, p) for p in ROUTED],
        distributions=[ANALYSIS.problem_files(entry)[0] for entry in config["problem_sets"]],
        problems=[ANALYSIS.problem_files(entry)[1] for entry in config["problem_sets"]],
    output:
        report(
            paths.report(RESULTS),
            caption="../report/report_page.rst",
            category="all puzzles",
            labels={"content": "every database in the results directory, on one page"},
        ),
    log:
        paths.log(RESULTS, "report"),
    benchmark:
        paths.benchmark(RESULTS, "report")
    params:
        puzzles=config["puzzles"],
        declared=[puzzles.declaration(p) for p in config["puzzles"]],
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/report.py"


rule symmetry:
    # Only for puzzles that declare symmetries (see AnalysisRules.symmetric_puzzles).
    input:
        manifest=paths.manifest(RESULTS),
    output:
        summary=report(
            paths.symmetry_summary(RESULTS),
            caption="../report/summary_symmetry.rst",
            category="{puzzle}",
            subcategory="symmetry",
            labels={"content": "positions and orbits per depth"},
        ),
        antipodes=report(
            paths.symmetry_antipodes(RESULTS),
            caption="../report/antipodes_symmetry.rst",
            category="{puzzle}",
            subcategory="symmetry",
            labels={"content": "deepest positions, one per orbit"},
        ),
    log:
        paths.log(PUZZLE, "symmetry"),
    benchmark:
        paths.benchmark(PUZZLE, "symmetry")
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/symmetry.py"


rule design:
    # Only for puzzles whose ranks number every placement of their pieces (sliding blocks).
    input:
        manifest=paths.manifest(RESULTS),
    output:
        report(
            paths.design(RESULTS),
            caption="../report/design.rst",
            category="{puzzle}",
            subcategory="layers",
            labels={"content": "designer's table: every placement"},
        ),
    log:
        paths.log(PUZZLE, "design"),
    benchmark:
        paths.benchmark(PUZZLE, "design")
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/design.py"


rule mitm:
    # Meet-in-the-middle: reads only the goal layers 0..k of the puzzle's database.
    input:
        manifest=paths.manifest(RESULTS),
    output:
        distribution=report(
            paths.problem_distribution(RESULTS),
            caption="../report/problem_distribution.rst",
            category="{puzzle}",
            subcategory="problem sets",
            labels={"content": "{queries}, layers 0..{k}: distances"},
        ),
        problems=report(
            paths.problem_file(RESULTS),
            caption="../report/problems.rst",
            category="{puzzle}",
            subcategory="problem sets",
            labels={"content": "{queries}, layers 0..{k}: problems"},
        ),
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


rule antipode_moves:
    # Only for puzzles whose moves have names (see AnalysisRules.routed_puzzles).
    input:
        manifest=paths.manifest(RESULTS),
    output:
        report(
            paths.antipode_moves(RESULTS),
            caption="../report/antipodes_moves.rst",
            category="{puzzle}",
            subcategory="layers",
            labels={"content": "deepest positions as move sequences"},
        ),
    log:
        paths.log(PUZZLE, "antipode_moves"),
    benchmark:
        paths.benchmark(PUZZLE, "antipode_moves")
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/antipode_moves.py"


rule start_distribution:
    # Only for puzzles with a start pattern (see AnalysisRules.phased_puzzles).
    input:
        manifest=paths.manifest(RESULTS),
    output:
        report(
            paths.start_distribution(RESULTS),
            caption="../report/start_distribution.rst",
            category="{puzzle}",
            subcategory="phases",
            labels={"content": "distances of the start pattern's positions"},
        ),
    log:
        paths.log(PUZZLE, "start_distribution"),
    benchmark:
        paths.benchmark(PUZZLE, "start_distribution")
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/start_distribution.py"
