"""Checks of the workflow configuration that the JSON schema cannot make, and the memory a
rule should ask the scheduler for."""

from . import puzzles
from .engine import memory_needed
from .puzzle import PuzzleError

# What a search process holds besides its bitsets: the interpreter, numba, h5py.
PROCESS_OVERHEAD_MB = 400


def check_config(config):
    """PuzzleError naming the first unknown puzzle or a search that exceeds the budget."""
    for name in config["puzzles"]:
        puzzle = puzzles.get(name)
        need = memory_needed(puzzle) / 2**20
        if need > config["memory_mb"]:
            raise PuzzleError(
                f"config: {name} needs {need:,.0f} MiB for its search, "
                f"more than memory_mb: {config['memory_mb']}"
            )


def search_mem_mb(name):
    return int(memory_needed(puzzles.get(name)) / 2**20) + PROCESS_OVERHEAD_MB
