# Additive pattern databases (`snakemake --cores 4 pdbs`, not part of the default target):
# one job per table of each partition in config `pdbs`, then the partition's manifest,
# written last once every table has been read back whole.  A failed table job leaves no
# file (tables are written under a temporary name and renamed), so a rerun builds it again.


rule pdbs:
    input:
        pdb_outputs(),


rule pdb_table:
    output:
        f"{RESULTS}/pdbs/{{puzzle}}/{{partition}}/{{tiles}}.h5",
    log:
        f"{RESULTS}/pdbs/{{puzzle}}/{{partition}}/logs/{{tiles}}.log",
    benchmark:
        f"{RESULTS}/pdbs/{{puzzle}}/{{partition}}/benchmarks/{{tiles}}.tsv"
    params:
        memory_mb=config["memory_mb"],
    threads: config["threads"]
    resources:
        mem_mb=pdb_build_mem_mb,
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/build_pdb.py"


rule pdb_manifest:
    input:
        pdb_tables,
    output:
        f"{RESULTS}/pdbs/{{puzzle}}/{{partition}}/manifest.json",
    log:
        f"{RESULTS}/pdbs/{{puzzle}}/{{partition}}/logs/manifest.log",
    benchmark:
        f"{RESULTS}/pdbs/{{puzzle}}/{{partition}}/benchmarks/manifest.tsv"
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/pdb_manifest.py"
