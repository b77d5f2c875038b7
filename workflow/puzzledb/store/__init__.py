"""What is on disk.  The two kinds of database a build may keep (config `store:`), named here
so that what only plans (config.py, bfs/select.py) knows them without loading a store."""

LAYERS = "layers"  # every layer's states, one file per depth (layers.py): the default
COUNTS = "counts"  # every layer's count and a sample of its states (counts.py)
STORES = (LAYERS, COUNTS)
