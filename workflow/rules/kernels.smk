# The kernels compiled ahead (opt-in: `snakemake --cores N kernels`): what every build of the
# config and its queries will load, compiled into the kernel cache side by side, so that a
# first build, or a cluster run's jobs on a shared cache, load instead of compiling (docs/install.md,
# "The kernel cache"; docs/scaling.md).  No build job takes it as an input: a finished database
# is never rebuilt because this record was made again.


rule kernels:
    output:
        paths.kernels_record(RESULTS),
    log:
        paths.log(RESULTS, "kernels"),
    params:
        plans=PLANS,
        mem_mb=config["memory_mb"],
    threads: config["threads"]
    resources:
        mem_mb=lambda wildcards, threads: 600 * threads,
    conda:
        "../envs/puzzledb.yaml"
    script:
        "../../scripts/compile_kernels.py"
