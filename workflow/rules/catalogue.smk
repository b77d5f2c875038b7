# The catalogues of config catalogues (docs/blocks.md, "The catalogue"): every board of a box
# around its goal pieces, its clusters searched by catalogue_part jobs (config
# catalogue_jobs), each cluster by the job holding its least board, then merged.

from puzzledb.rules.catalogue import CatalogueRules

CATALOGUE = CatalogueRules(config)


rule catalogue_part:
    # One job's share of the units of work (puzzles/blocks/catalogue/split.py), written whole or not at
    # all: a job killed is run again, the others' parts are kept.
    output:
        paths.catalogue_part(RESULTS),
    wildcard_constraints:
        job=r"\d+",
        jobs=r"\d+",
    log:
        paths.log(PUZZLE, "catalogue_{job}of{jobs}"),
    benchmark:
        paths.benchmark(PUZZLE, "catalogue_{job}of{jobs}")
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/catalogue_part.py"


rule catalogue:
    input:
        CATALOGUE.parts,
    output:
        table=report(
            paths.catalogue(RESULTS),
            caption="../report/catalogue.rst",
            category="{puzzle}",
            subcategory="catalogue",
            labels={"content": "every cluster that reaches the goal"},
        ),
        hardest=report(
            paths.catalogue_hardest(RESULTS),
            caption="../report/catalogue_hardest.rst",
            category="{puzzle}",
            subcategory="catalogue",
            labels={"content": "the hardest puzzles, drawn"},
        ),
        summary=paths.catalogue_summary(RESULTS),
        totals=paths.catalogue_totals(RESULTS),
    resources:
        # a slice of each part and a block of rows, whatever the box (docs/blocks.md)
        mem_mb=CATALOGUE.merge_mb,
    log:
        paths.log(PUZZLE, "catalogue"),
    benchmark:
        paths.benchmark(PUZZLE, "catalogue")
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/catalogue.py"
