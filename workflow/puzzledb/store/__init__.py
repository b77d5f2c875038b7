"""What is on disk.  The names of the kinds of database a build may keep (config `store:`),
as a store writes them in its manifest; each kind is one object of query/kinds.py."""

LAYERS = "layers"  # every layer's states, one file per depth (layers.py): the default
COUNTS = "counts"  # every layer's count and a sample of its states (counts.py)
DISTANCES = "distances"  # counts and samples, and every state's depth in two bits (distances.py)


def label_modulus(puzzle):
    """The modulus the distances store keeps a state's depth by (distances.py): 4 for a
    puzzle whose moves flip a colouring of its states that comes in runs of ranks (its
    colour gives depth & 1: Puzzle.move_parity, parity_run), else 3."""
    return 4 if puzzle.bipartite and puzzle.parity_run() else 3
