"""What makes a stored set of files trustworthy, the same for the layer store (layers.py) and
the table store (tables.py): every file carries a CRC-32 of its data and the hash of the
definition it was built from (stamp), is read back against them (check_crc,
check_definition), and a manifest listing the files is written last, marking the set complete.
"""

import json
from pathlib import Path

import numpy as np
from isal import isal_zlib

from puzzledb.errors import LayerError, one_line
from puzzledb.paths import MANIFEST
from puzzledb.puzzles.base import FORMAT_VERSION
from puzzledb.store.files import write_text


def crc32(data, crc=0):
    """The CRC-32 of an array's bytes as they lie in memory (zlib's CRC-32, computed by
    ISA-L); `crc` continues one computed over the data before it."""
    return isal_zlib.crc32(np.ascontiguousarray(data).view(np.uint8), crc)


def stamp(crc, definition_hash):
    """The attributes every stored file carries beside its data: its CRC-32, the hash of the
    definition it was built from and the format version."""
    return dict(crc32=crc, definition_hash=definition_hash, format_version=FORMAT_VERSION)


def check_crc(computed, *stored, what):
    """LayerError unless the CRC-32 of the data read back is the one stored (the file's, and
    the manifest's where it lists one); `what`: the file, for the message."""
    if any(computed != crc for crc in stored):
        raise LayerError(f"corrupt {what}: checksum mismatch")


def check_definition(found, expected, what, of=""):
    """LayerError unless a file or manifest (`what`) was built from the definition whose hash
    is `expected`.  A file of another definition (another puzzle definition, another encoding)
    would pass every other check and be read as nonsense."""
    if found != expected:
        raise LayerError(f"{what} was built from another definition{of}")


def manifest_path(directory):
    return Path(directory) / MANIFEST


def write_manifest(directory, manifest):
    """Write a set's manifest (a dict, as JSON), whole (files.write_text).  Called last, once
    every file it lists is whole and checked, so that a manifest present means a complete set:
    a reader that finds none knows the set is being built, or was stopped."""
    write_text(manifest_path(directory), json.dumps(manifest, indent=1) + "\n")
    return manifest


def read_manifest(directory, what, advice):
    """A set's manifest, parsed; LayerError when there is none ("no <what> in <directory>
    (missing manifest.json); <advice>") or it is not JSON."""
    path = manifest_path(directory)
    if not path.exists():
        raise LayerError(f"no {what} in {directory} (missing {MANIFEST}); {advice}")
    try:
        return json.loads(path.read_text())
    except ValueError as err:
        raise LayerError(f"corrupt manifest {path}: {one_line(err)}") from None
