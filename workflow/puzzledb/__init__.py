"""puzzledb: exhaustive depth databases of puzzles, built by BFS and mined from HDF5 layers."""

__version__ = "0.1.0"
