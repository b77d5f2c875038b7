"""The errors puzzledb reports to its users: one small hierarchy, one class per kind of
thing that went wrong.  Each carries a one-line message naming the problem; the command
line and the workflow print that line and exit with status 2."""


class PuzzledbError(Exception):
    """Anything puzzledb reports in one line rather than as a traceback."""


class PuzzleError(PuzzledbError):
    """An unknown puzzle, or a request the puzzle cannot serve (a capability it lacks)."""


class ChoiceError(PuzzleError):
    """A search mode or a store asked of a puzzle that it cannot serve (bfs/modes.py says
    what each needs): `key` names the setting that asked for it (the config key `puzzles`,
    `shards`, `depth_limit` or `store`), so that the config check names the key the user
    set."""

    def __init__(self, key, message):
        super().__init__(message)
        self.key = key


class BoardError(PuzzledbError):
    """A board string or rank that is malformed, or a position that is unreachable."""


class LayerError(PuzzledbError):
    """A layer file or manifest that is missing, truncated, corrupt or of another puzzle.
    `depth` is the depth of the layer at fault when there is one (None: the manifest, or
    the database as a whole)."""

    def __init__(self, message, depth=None):
        super().__init__(message)
        self.depth = depth


class StorageError(PuzzledbError):
    """Writing to disk failed: a full disk, a read-only directory, an I/O error."""


class ConfigError(PuzzledbError):
    """A config.yaml that breaks the schema or names something that does not exist."""


class DefinitionError(ConfigError):
    """A puzzle definition (a `define:` entry of config.yaml, or a built-in) that declares
    no valid puzzle: `key` names the parameter at fault.  puzzles.definitions.build adds
    where the definition stands."""

    def __init__(self, key, message):
        super().__init__(f"{key}: {message}")
        self.key = key
        self.message = message


class BudgetError(PuzzledbError):
    """A search that needs more memory than its budget allows, refused before it starts."""


class SearchError(PuzzledbError):
    """A tree search that cannot answer: a bad option, or no solution within its limit."""


class MissingPackageError(PuzzledbError):
    """A command that needs a package of an optional extra (pyproject.toml) not installed."""


class ProblemError(PuzzledbError):
    """A problem-file line that is malformed or whose route does not replay to the goal."""


def one_line(message):
    """A message (or an exception) as one line: every run of whitespace, line breaks
    included, becomes one space; an exception without a message gives its class name."""
    return " ".join(str(message).split()) or type(message).__name__
