"""`puzzledb verify` reads every layer in full and checks it against the manifest: a whole
database passes in one line, each kind of damage is named by its layer's depth and file, and
--repair leaves a directory that the next build completes to the same layers."""

import json
import shutil
import zlib

import h5py
import numpy as np
import pytest

from building import build_in_memory
from puzzledb import puzzles
from puzzledb.cli import main
from puzzledb.errors import LayerError
from puzzledb.store.layer import Layer
from puzzledb.store.layers import LayerStore, write_ranks

EIGHT = puzzles.get("eight")


def quiet(message):
    pass


@pytest.fixture(scope="module")
def eight_database(tmp_path_factory):
    """A results directory holding the whole eight database, built in-process."""
    results = tmp_path_factory.mktemp("verify")
    build_in_memory(EIGHT, results / "eight" / "layers", progress=False, log=quiet)
    return results


@pytest.fixture
def eight_copy(eight_database, tmp_path):
    shutil.copytree(eight_database / "eight", tmp_path / "eight")
    return tmp_path


def layers_of(results):
    return results / "eight" / "layers"


def verify(capsys, results, *options):
    """Run `puzzledb verify eight` in-process: (exit status, stdout lines, stderr lines)."""
    status = main(["--results", str(results), "verify", "eight", *options])
    captured = capsys.readouterr()
    return status, captured.out.splitlines(), captured.err.splitlines()


def assert_bad(capsys, results, *fragments, options=()):
    status, out, err = verify(capsys, results, *options)
    assert (status, out, len(err)) == (2, [], 1), err
    for fragment in fragments:
        assert fragment in err[0]
    return err[0]


def manifest_of(results):
    return json.loads((layers_of(results) / "manifest.json").read_text())


def test_a_whole_eight_database_verifies_with_a_one_line_summary(capsys, eight_database):
    status, out, err = verify(capsys, eight_database)
    assert (status, err, len(out)) == (0, [], 1)
    assert out[0].startswith("eight: verified 32 layers (depths 0..31), 181,440 states")


def test_the_layers_read_back_through_hdf5s_own_gzip_filter_and_each_chunk_through_zlib(
        eight_database):
    # the store deflates chunks with ISA-L; any HDF5 reader (and plain zlib) must decode them
    manifest = manifest_of(eight_database)
    for info in manifest["layers"]:
        with h5py.File(layers_of(eight_database) / f"depth_{info['depth']:03d}.h5") as f:
            ranks = f["ranks"][:]
            assert (ranks.size, zlib.crc32(ranks.astype("<u8").tobytes())) == (
                info["count"], info["crc32"])
            chunked = [f["ranks"].id.read_direct_chunk((start,))[1]
                       for start in range(0, ranks.size, f["ranks"].chunks[0])]
        raw = [np.frombuffer(zlib.decompress(c), np.uint8).reshape(8, -1).T.copy().view("<u8")
               for c in chunked]
        assert np.array_equal(np.concatenate(raw).ravel()[: ranks.size], ranks)


def test_keys_of_every_byte_and_rows_of_two_words_read_back_through_hdf5s_own_filters(
        tmp_path):
    # the writer shuffles the bytes itself (a compiled loop): HDF5's unshuffle must give
    # back keys whose eight bytes all vary, and a wide key's rows, across chunks
    rng = np.random.default_rng(11)
    keys = np.unique(rng.integers(0, 2**64 - 1, 150_000, dtype=np.uint64))
    rows = np.unique(rng.integers(0, 2**64 - 1, (70_000, 2), dtype=np.uint64), axis=0)
    for name, data, words in (("one", keys, 1), ("two", rows, 2)):
        path = tmp_path / f"{name}.h5"
        write_ranks(path, np.array_split(data, 3), len(data), {}, "0" * 16, name, words=words)
        with h5py.File(path) as f:
            assert np.array_equal(f["ranks"][:], data)


def test_the_stores_own_chunk_decoding_reads_what_hdf5_reads(tmp_path):
    # Layer.ranks decodes the chunks itself (and keeps the ones at the ends of a read); any
    # slice, in any order of reads, must equal HDF5's own; a file with other filters is
    # read through HDF5
    rng = np.random.default_rng(7)
    ranks = np.unique(rng.integers(0, EIGHT.size, 150_000).astype(np.uint64))
    store = LayerStore(tmp_path / "own", EIGHT)
    store.directory.mkdir()
    store.write_layer(3, np.array_split(ranks, 7), ranks.size)
    other = tmp_path / "other" / "depth_003.h5"
    other.parent.mkdir()
    shutil.copy(store.path(3), other)
    with h5py.File(other, "r+") as f:
        del f["ranks"]
        f.create_dataset("ranks", data=ranks, chunks=(1000,), compression="lzf")
    for path in (store.path(3), other):
        with Layer(path) as layer:
            assert layer._direct == (path == store.path(3))
            assert np.array_equal(layer.ranks(), ranks)
            for _ in range(200):
                a, b = sorted(int(x) for x in rng.integers(0, ranks.size + 10, 2))
                assert np.array_equal(layer.ranks(a, b), ranks[a:b])
            assert layer.ranks(5, 3).size == 0
            assert np.array_equal(layer.ranks_between(1000, 90_000),
                                  ranks[(ranks >= 1000) & (ranks < 90_000)])
            # membership over every chunk at once (decoded a batch at a time, in threads)
            queries = rng.integers(0, EIGHT.size, 5_000).astype(np.uint64)
            assert np.array_equal(layer.contains_many(queries), np.isin(queries, ranks))
    data = bytearray(store.path(3).read_bytes())  # a chunk's bytes flipped: one line, named
    middle = len(data) // 2
    data[middle:middle + 64] = bytes(255 - b for b in data[middle:middle + 64])
    store.path(3).write_bytes(bytes(data))
    with Layer(store.path(3)) as layer, pytest.raises(LayerError, match="corrupt layer file"):
        layer.contains_many(np.arange(0, EIGHT.size, 7, dtype=np.uint64))


def test_verify_reports_its_progress_rank_by_rank_up_to_the_total(eight_database):
    seen = []
    LayerStore(layers_of(eight_database), EIGHT).verify(
        progress=lambda n, total: seen.append((n, total)))
    assert sum(n for n, _ in seen) == 181_440
    assert {total for _, total in seen} == {181_440}


def test_64_flipped_bytes_in_the_middle_of_a_layer_are_named_by_depth_and_file(capsys,
                                                                               eight_copy):
    # the experiment: queries still answer from the good chunks, verify does not
    path = layers_of(eight_copy) / "depth_020.h5"
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 64] = bytes(255 - b for b in data[middle:middle + 64])
    path.write_bytes(bytes(data))
    assert_bad(capsys, eight_copy, "eight: layer 20 is bad", str(path),
               "`puzzledb verify eight --repair` removes it")


def test_a_layer_whose_count_and_crc_differ_from_the_manifest_is_bad(capsys, eight_copy):
    manifest = manifest_of(eight_copy)
    manifest["layers"][5]["crc32"] ^= 1
    (layers_of(eight_copy) / "manifest.json").write_text(json.dumps(manifest))
    assert_bad(capsys, eight_copy, "layer 5 is bad", "depth_005.h5", "the manifest lists")


def test_a_layer_of_another_definition_is_bad(capsys, eight_copy):
    with h5py.File(layers_of(eight_copy) / "depth_003.h5", "r+") as f:
        f.attrs["definition_hash"] = "0123456789abcdef"
    assert_bad(capsys, eight_copy, "layer 3 is bad", "built from another definition")


def test_a_missing_layer_is_bad(capsys, eight_copy):
    (layers_of(eight_copy) / "depth_010.h5").unlink()
    assert_bad(capsys, eight_copy, "layer 10 is bad", "missing layer file", "depth_010.h5")


def test_an_index_that_does_not_match_its_ranks_is_bad(capsys, eight_copy):
    with h5py.File(layers_of(eight_copy) / "depth_025.h5", "r+") as f:
        f["index"][0] += 1
    assert_bad(capsys, eight_copy, "layer 25 is bad", "index does not match the ranks")


def rewrite_layer(results, depth, ranks):
    """Replace layer `depth` by a file of `ranks` written by the store itself (so its own
    CRC agrees), and list it so in the manifest: only the checks of content remain."""
    store = LayerStore(layers_of(results), EIGHT)
    info = store.write_layer(depth, [np.asarray(ranks, dtype=np.uint64)], len(ranks))
    manifest = manifest_of(results)
    manifest["total"] += info.count - manifest["layers"][depth]["count"]
    manifest["layers"][depth].update(count=info.count, crc32=info.crc32)
    (layers_of(results) / "manifest.json").write_text(json.dumps(manifest))


def test_ranks_out_of_order_are_bad(capsys, eight_copy):
    rewrite_layer(eight_copy, 7, [5, 9, 7, 11])
    assert_bad(capsys, eight_copy, "layer 7 is bad", "ranks not strictly ascending")


def test_a_rank_outside_the_rank_space_is_bad(capsys, eight_copy):
    rewrite_layer(eight_copy, 7, [5, 181_440])
    assert_bad(capsys, eight_copy, "layer 7 is bad", "rank 181440 outside the rank space")


def test_repair_removes_the_bad_layer_and_those_after_it_and_the_rebuild_is_identical(
        capsys, eight_copy):
    directory = layers_of(eight_copy)
    before = manifest_of(eight_copy)["layers"]
    kept = {d: (directory / f"depth_{d:03d}.h5").stat().st_mtime_ns for d in range(20)}
    path = directory / "depth_020.h5"
    path.write_bytes(path.read_bytes()[:2000])
    assert_bad(capsys, eight_copy, "layer 20 is bad", "removed it, the layers after it and "
               "the manifest", "resumes after layer 19", options=["--repair"])
    assert sorted(p.name for p in directory.iterdir()) == [f"depth_{d:03d}.h5"
                                                           for d in range(20)]
    report = build_in_memory(EIGHT, directory, progress=False, log=quiet)
    assert report.resumed_from == 19
    assert manifest_of(eight_copy)["layers"] == before
    assert kept == {d: (directory / f"depth_{d:03d}.h5").stat().st_mtime_ns for d in range(20)}
    assert verify(capsys, eight_copy)[0] == 0


def test_a_corrupt_manifest_is_bad_and_repair_removes_it_alone(capsys, eight_copy):
    (layers_of(eight_copy) / "manifest.json").write_text('{"puzzle": "eight", ')
    assert_bad(capsys, eight_copy, "the manifest is bad", "corrupt manifest",
               options=["--repair"])
    assert len(list(layers_of(eight_copy).glob("depth_*.h5"))) == 32
    report = build_in_memory(EIGHT, layers_of(eight_copy), progress=False, log=quiet)
    assert report.resumed_from == 31
    assert verify(capsys, eight_copy)[0] == 0


def test_a_manifest_that_contradicts_itself_is_bad(capsys, eight_copy):
    manifest = manifest_of(eight_copy)
    manifest["total"] += 1
    (layers_of(eight_copy) / "manifest.json").write_text(json.dumps(manifest))
    assert_bad(capsys, eight_copy, "the manifest is bad", "do not sum to its total")


def test_a_database_without_manifest_is_reported_incomplete_with_its_whole_layers(
        capsys, eight_copy):
    (layers_of(eight_copy) / "manifest.json").unlink()
    for depth in range(12, 32):
        (layers_of(eight_copy) / f"depth_{depth:03d}.h5").unlink()
    assert_bad(capsys, eight_copy, "no complete database", "layers 0..11 are whole")


def test_no_database_at_all_is_one_line(capsys, tmp_path):
    assert_bad(capsys, tmp_path, "no complete database", "no layers")


def test_good_layers_and_verify_share_one_check(eight_copy):
    store = LayerStore(layers_of(eight_copy), EIGHT)
    path = store.path(9)
    path.write_bytes(path.read_bytes()[:-10])
    assert len(store.good_layers()) == 9
    with pytest.raises(LayerError) as bad:
        store.check_layer(9)
    assert bad.value.depth == 9
