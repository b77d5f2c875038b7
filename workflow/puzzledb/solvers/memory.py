"""The memory of an additive pattern database (additive.py), known before its build starts:
the size of a table and what its build holds.  Plain arithmetic on sizes, so that the config
check and the workflow's `resources` can state it without loading the compiled builder."""

from math import perm

from puzzledb.bfs.memory import mb_of


def placements(cells, tiles):
    """The placements of `tiles` distinct tiles on `cells` cells: cells! / (cells - tiles)!."""
    return perm(int(cells), int(tiles))


def pattern_table_bytes(cells, tiles):
    """Bytes of one additive pattern database: a 4-bit value per placement."""
    return (placements(cells, tiles) + 1) // 2


def pattern_build_bytes(cells, tiles):
    """Bytes a build of one additive pattern database holds: per placement a word of 2 bits
    per free cell (16, 32 or 64 bits, see additive.py) and the 4-bit table."""
    word = pattern_word_bits(cells, tiles) // 8
    return placements(cells, tiles) * word + pattern_table_bytes(cells, tiles)


def pattern_word_bits(cells, tiles):
    """Bits of a placement's word in the build: 2 per free cell, rounded up to 16, 32, 64."""
    need = 2 * (int(cells) - int(tiles))
    return next(bits for bits in (16, 32, 64) if need <= bits)


def pattern_job_mb(cells, tiles):
    """What a build job of one additive pattern database needs in all, in MB."""
    return mb_of(pattern_build_bytes(cells, tiles))


# CPU seconds a build spends per placement and free cell (the layers scan each placement's
# free cells for the frontier): measured on this project's 2-core machine, see
# docs/solvers.md (the 15-puzzle's 7-8 tables and the 24-puzzle's 6-6-6-6 ones).
BUILD_CPU_SECONDS = 5.5e-8


def pattern_build_seconds(cells, tiles, threads=1):
    """The estimated wall seconds of one table's build on `threads` threads, before it
    starts (`puzzledb info`, `snakemake -n` through the rule's runtime)."""
    cpu = BUILD_CPU_SECONDS * placements(cells, tiles) * (int(cells) - int(tiles))
    return cpu / max(1, int(threads))
