# Additive pattern databases (`snakemake --cores 4 pdbs`, not part of the default target):
# one job per table of each partition in config `pdbs`, then the partition's manifest,
# written last once every table has been read back whole.  A failed table job leaves no
# file (tables are written under a temporary name and renamed), so a rerun builds it again.

from puzzledb.rules.pdbs import PatternRules

PDBS = PatternRules(config)
TABLES = paths.pattern_databases(RESULTS)  # results/pdbs/{puzzle}/{partition}


rule pdbs:
    input:
        PDBS.outputs(),


rule pdb_table:
    output:
        paths.pattern_table(RESULTS),
    log:
        paths.log(TABLES, "{tiles}"),
    benchmark:
        paths.benchmark(TABLES, "{tiles}")
    params:
        memory_mb=config["memory_mb"],
    threads: config["threads"]
    resources:
        mem_mb=PDBS.mem_mb,
        runtime=PDBS.minutes,
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/build_pdb.py"


rule pdb_manifest:
    input:
        PDBS.tables,
    output:
        f"{TABLES}/{paths.MANIFEST}",
    log:
        paths.log(TABLES, "manifest"),
    benchmark:
        paths.benchmark(TABLES, "manifest")
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/pdb_manifest.py"
