"""YAML as puzzledb reads it (the config, its schema, the built-in puzzles): PyYAML's safe
loader in its C implementation (libyaml) where PyYAML was built with one, as its wheels
are, else the pure-Python one, which gives the same documents 5 to 7 times slower (20 ms of
every command's start on the schema and the built-in puzzles, issue 44)."""

import yaml

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
Error = yaml.YAMLError


def load(text):
    """The document in `text` (safe: plain data only); Error if it is not YAML."""
    return yaml.load(text, Loader=LOADER)
