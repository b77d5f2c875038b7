"""Layers written in parts (store/parts.py): each merge job of the frontier search writes its
part of a layer, and depth_NNN.h5 maps them as an HDF5 virtual dataset.  Every reader (ours,
plain h5py, h5dump) must see the same sorted layer as the single file the in-memory engine
writes; a lost or corrupt part is found by verify and rebuilt alone."""

import json
import re
import shutil
import subprocess

import h5py
import numpy as np
import pytest

from building import build_in_memory
from conftest import assert_reads_alike, parted_depths, puzzledb_cli
from puzzledb import puzzles

from puzzledb.bfs.frontier.search import Frontier
from puzzledb.store.layers import LayerStore
from puzzledb.store.parts import PartError


def build(name, directory, segments, job_states):
    return Frontier(puzzles.get(name), directory / "layers", directory / "frontier", segments,
                    job_states).build(log=lambda m: None)


@pytest.fixture(scope="module")
def eight(tmp_path_factory):
    """eight built by the frontier search in 4 segments (fanned out from depth 14 on) and in
    memory: (parted layers, single-file layers)."""
    root = tmp_path_factory.mktemp("eight")
    build("eight", root / "parted", 4, 3000)
    build_in_memory(puzzles.get("eight"), root / "single", threads=1, progress=False,
                    log=lambda m: None)
    return root / "parted" / "layers", root / "single"


def test_the_parts_of_eight_read_as_the_single_files_do(eight):
    parted, single = eight
    depths = parted_depths(parted)
    assert len(depths) >= 10
    assert_reads_alike(parted, single, puzzles.get("eight"), depths)


@pytest.mark.skipif(shutil.which("h5dump") is None,
                    reason="h5dump not installed (Debian: apt-get install hdf5-tools)")
def test_h5dump_reads_a_layer_written_in_parts_as_one_array(eight):
    """A reader that is not Python (HDF5's own h5dump) follows the map to the parts."""
    parted, single = eight
    depth = parted_depths(parted)[-3]
    with LayerStore(single, puzzles.get("eight")).open_layer(depth) as layer:
        whole = layer.ranks()
    # -y: no indices, -w 0: no wrapping; run from elsewhere (the parts' names are relative
    # to the layer file, not to the working directory)
    out = subprocess.run(["h5dump", "-d", "ranks", "-y", "-w", "0",
                          str(parted / f"depth_{depth:03d}.h5")],
                         capture_output=True, text=True, check=True, cwd="/").stdout
    data = out[out.index("DATA {") + len("DATA {"):out.rindex("}", 0, out.rindex("}"))]
    values = np.array(re.findall(r"\d+", data), dtype=np.uint64)
    assert np.array_equal(values, whole)


def copy_database(eight, tmp_path):
    parted, _ = eight
    shutil.copytree(parted.parent, tmp_path / "eight")
    return tmp_path / "eight" / "layers"


def corrupt(path):
    """Flip bytes in the middle of the file's first chunk of ranks."""
    with h5py.File(path, "r") as f:
        chunk = f["ranks"].id.get_chunk_info(0)
    data = bytearray(path.read_bytes())
    middle = chunk.byte_offset + chunk.size // 2
    for k in range(middle, middle + 16):
        data[k] ^= 0xFF
    path.write_bytes(bytes(data))


def test_a_missing_part_is_an_error_naming_it_never_fill_values(eight, tmp_path):
    layers = copy_database(eight, tmp_path)
    depth = parted_depths(layers)[2]
    store = LayerStore(layers, puzzles.get("eight"))
    with store.open_layer(depth) as layer:
        q = max(range(layer.parts), key=layer.part_count)
        lost = layer.part_path(q)
    lost.unlink()
    with store.open_layer(depth) as layer, pytest.raises(PartError, match="missing part file"):
        layer.ranks()


def test_verify_finds_a_corrupt_part_and_the_next_build_rebuilds_it_alone(eight, tmp_path):
    layers = copy_database(eight, tmp_path)
    results = layers.parent.parent
    before = json.loads((layers / "manifest.json").read_text())
    depth = parted_depths(layers)[3]
    store = LayerStore(layers, puzzles.get("eight"))
    with store.open_layer(depth) as layer:
        q = max(range(layer.parts), key=layer.part_count)
        bad = layer.part_path(q)
    corrupt(bad)
    others = {p: p.stat().st_mtime_ns for p in layers.rglob("*.h5") if p != bad}

    found = puzzledb_cli("--results", str(results), "verify", "eight")
    assert found.returncode != 0
    assert found.stderr.count("\n") == 1 and f"part {q} of layer {depth} is bad" in found.stderr
    assert bad.exists()
    repaired = puzzledb_cli("--results", str(results), "verify", "eight", "--repair")
    assert repaired.returncode != 0 and "rebuilds that part alone" in repaired.stderr
    assert not bad.exists() and not (layers / "manifest.json").exists()

    manifest = Frontier(store.puzzle, layers, results / "eight" / "frontier", 4,
                        3000).build(log=lambda m: None)
    assert manifest["layers"] == before["layers"]
    assert bad.exists()
    assert others == {p: p.stat().st_mtime_ns for p in others}, "more than the part was rebuilt"
    assert puzzledb_cli("--results", str(results), "verify", "eight").returncode == 0


def test_a_part_that_is_not_the_one_mapped_is_found(eight, tmp_path):
    """A part file swapped for another depth's (whole, but not the part the map lists)."""
    layers = copy_database(eight, tmp_path)
    first, second = parted_depths(layers)[2:4]
    store = LayerStore(layers, puzzles.get("eight"))
    with store.open_layer(first) as a, store.open_layer(second) as b:
        shutil.copy(b.part_path(0), a.part_path(0))
    with store.open_layer(first) as layer, pytest.raises(PartError, match="not part 0"):
        layer.verify()
