# The BFS: one job per puzzle that bfs.select gives the in-memory search (the others are
# frontier.smk's), and (opt-in) its check.  The bfs rule's only declared output is the
# manifest, written last: the layer files beside it are not outputs, so a failed or killed
# job keeps every finished layer (Snakemake deletes the outputs of failed jobs) and the rerun
# resumes after them.  With `store: counts` it writes no layers but the manifest and
# samples.h5, and checkpoints the search (checkpoint.2bit, also not an output); with
# `store: distances` also the table of every state's depth (distances.2bit, not an output).

from puzzledb.rules.bfs import BfsRules

BFS = BfsRules(config, PLANS, SOURCE)


rule bfs:
    output:
        manifest=paths.manifest(RESULTS),
    log:
        paths.log(PUZZLE, "bfs"),
    benchmark:
        paths.benchmark(PUZZLE, "bfs")
    params:
        plan=BFS.plan,
    threads: BFS.threads
    resources:
        mem_mb=BFS.mem_mb,
    wildcard_constraints:
        puzzle=BFS.puzzles(),
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
        manifest=paths.manifest(RESULTS),
    output:
        report(
            paths.verified(RESULTS),
            caption="../report/verified.rst",
            category="{puzzle}",
            subcategory="verification",
            labels={"content": "every layer read back"},
        ),
    log:
        paths.log(PUZZLE, "verify"),
    benchmark:
        paths.benchmark(PUZZLE, "verify")
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/verify.py"
