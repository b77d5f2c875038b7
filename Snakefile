# puzzledb: depth databases of puzzles, built by BFS layer by layer, then mined.
# Data flow: config.yaml -> rule bfs (layers + manifest) -> summary (table, antipodes) and
# plots (every puzzle's chart, one job) -> report (results/report.html); `snakemake --report
# report.zip` archives what the rules mark with report(), with run statistics.
# `snakemake pdbs` builds the additive pattern databases of config `pdbs` (rules/pdbs.smk).

from snakemake.utils import min_version

min_version("8.0")  # the version pyproject.toml requires


configfile: "config.yaml"


# The description at the top of `snakemake --report report.zip` (captions of its files: one
# per kind, beside it in workflow/report/).
report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/bfs.smk"
include: "workflow/rules/frontier.smk"
include: "workflow/rules/analysis.smk"
include: "workflow/rules/pdbs.smk"
include: "workflow/rules/catalogue.smk"
include: "workflow/rules/kernels.smk"


onsuccess:
    release_exit()


onerror:
    release_exit()


rule all:
    default_target: True
    input:
        ANALYSIS.all_outputs(),
        CATALOGUE.outputs(),
