"""The frontier search's work files (bfs/frontier/workfiles.py): every group reads back as
numpy's sorted distinct ranks of what was written, whatever the segments and ranks; the
kernels' LEB128 bytes are those of the plain-Python reference; and a damaged or cut file is a
LayerError naming it, never wrong ranks."""

import os

import numpy as np
import psutil
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from puzzledb.bfs.frontier import workfiles
from puzzledb.bfs.frontier.workfiles import PieceFile, write_piece
from puzzledb.errors import LayerError

TOP = 2**63 - 1  # the largest cut an int64 holds


def leb128_reference(keys, low, words=1):
    """The LEB128 gaps of the distinct keys (ints, or tuples of `words` words) of a segment
    whose first key is (low, 0, ...), as bytes."""
    out, nxt = bytearray(), [low] + [0] * (words - 1)
    for key in sorted(set((int(k),) if words == 1 else tuple(int(w) for w in k)
                          for k in keys)):
        whole = False
        for w, v in enumerate(key):
            g = v if whole else v - nxt[w]
            whole = whole or g != 0
            while g >= 128:
                out.append(g & 127 | 128)
                g >>= 7
            out.append(g)
        nxt = list(key[:-1]) + [key[-1] + 1]
    return bytes(out)


def ranks_reference(data, low):
    """The ranks whose LEB128 gaps from `low` are the bytes `data`."""
    ranks, nxt, g, shift = [], low, 0, 0
    for b in data:
        g |= (b & 127) << shift
        shift += 7
        if b < 128:
            ranks.append(nxt + g)
            nxt, g, shift = nxt + g + 1, 0, 0
    return ranks


def grouped_from(groups):
    """(grouped, offsets) of a list of rank lists, as group_by_segment gives them."""
    offsets = np.zeros(len(groups) + 1, np.int64)
    offsets[1:] = np.cumsum([len(g) for g in groups])
    grouped = np.array([r for g in groups for r in g], np.uint64)
    return grouped, offsets


def written_and_read(path, groups, cuts):
    """Write the groups of segments cut at `cuts`; (bytes written, the PieceFile)."""
    grouped, offsets = grouped_from(groups)
    written = write_piece(path, grouped, offsets, np.array(cuts, np.int64))
    return written, PieceFile(path)


def assert_reads_back(piece, groups):
    """Each group reads back as numpy's sorted distinct ranks, and received counts them."""
    expected = [np.unique(np.array(g, np.uint64)) for g in groups]
    assert piece.segments == len(groups)
    assert piece.received.tolist() == [e.size for e in expected]
    for t, e in enumerate(expected):
        group = piece.read_group(t)
        assert group.dtype == np.uint64
        assert group.tolist() == e.tolist(), f"segment {t}"


def random_piece(rng, cuts, density=0.5, most=300):
    """Random groups (in no order, some ranks repeated) of the segments cut at `cuts`."""
    groups = []
    for low, high in zip(cuts, cuts[1:]):
        n = int(rng.integers(0, most)) if high > low and rng.random() < density else 0
        ranks = rng.integers(low, high, n, dtype=np.uint64, endpoint=False) if n else []
        groups.append(list(ranks) + list(ranks[: n // 10]))
    return groups


def test_groups_read_back_sorted_and_distinct_with_empty_single_and_end_of_segment_ones(
        tmp_path):
    cuts = [0, 10, 10, 1000, 1001, 5000, 2**40, 2**40 + 7]
    groups = [[9, 0, 5, 5, 9],  # the first rank and the last of its segment, repeats
              [],  # a segment without ranks
              [999],  # one rank, at the segment's end
              [1000],  # a segment of one rank
              [4999, 1001, 4000, 4999],
              list(range(2**40 - 1, 2**40 - 300, -1)),  # the segment's last ranks, reversed
              [2**40, 2**40 + 6]]
    _, piece = written_and_read(tmp_path / "x.wf", groups, cuts)
    assert_reads_back(piece, groups)


def test_ranks_near_two_to_the_63_and_gaps_of_62_bits_read_back(tmp_path):
    cuts = [0, 2**62, TOP - 1000, TOP]
    groups = [[0, 2**62 - 1, 2**61],
              [2**62, TOP - 1001, 2**62 + 1],
              [TOP - 1, TOP - 1000, TOP - 500, TOP - 1]]
    _, piece = written_and_read(tmp_path / "x.wf", groups, cuts)
    assert_reads_back(piece, groups)


def test_random_pieces_of_unequal_segments_read_back_as_numpy_unique(tmp_path):
    rng = np.random.default_rng(7)
    for trial in range(4):
        widths = rng.choice([1, 3, 200, 10**6, 10**12], size=int(rng.integers(1, 60)))
        cuts = [0, *np.cumsum(widths).tolist()]
        groups = random_piece(rng, cuts)
        _, piece = written_and_read(tmp_path / f"x{trial}.wf", groups, cuts)
        assert_reads_back(piece, groups)


def test_a_piece_without_neighbours_is_a_header_of_32_bytes(tmp_path):
    written, piece = written_and_read(tmp_path / "x.wf", [[], [], []], [0, 5, 6, 9])
    assert written == os.path.getsize(tmp_path / "x.wf") == 32
    assert piece.received.tolist() == [0, 0, 0]
    assert piece.read_group(2).size == 0
    with pytest.raises(IndexError):
        piece.read_group(3)


def test_dense_groups_cost_about_a_byte_and_a_bit_a_neighbour_not_eight(tmp_path):
    rng = np.random.default_rng(1)
    cuts = [0, 2**20, 2**34]
    ranks = rng.choice(2**20, 2**17, replace=False)  # gaps of 8 on average
    written, piece = written_and_read(tmp_path / "x.wf", [ranks, []], cuts)
    assert written < 1.25 * ranks.size
    assert piece.read_group(0).tolist() == sorted(ranks.tolist())


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(0, 2**20), min_size=1, max_size=12), st.data())
def test_any_groups_of_any_segments_read_back_as_numpy_unique(tmp_path, widths, data):
    shift = data.draw(st.sampled_from([0, 20, 39]), "scale")  # 12 widths << 39 < 2**63
    cuts = [0, *np.cumsum([w << shift for w in widths]).tolist()]
    groups = [data.draw(st.lists(st.integers(low, high - 1), max_size=40), f"group {t}")
              if high > low else [] for t, (low, high) in enumerate(zip(cuts, cuts[1:]))]
    _, piece = written_and_read(tmp_path / "x.wf", groups, cuts)
    assert_reads_back(piece, groups)


def test_the_kernels_leb128_bytes_are_the_references_and_decode_back(tmp_path):
    rng = np.random.default_rng(3)
    cuts = np.array([0, 1000, 2**35, 2**35 + 2**20, TOP], np.int64)
    groups = [rng.integers(0, 1000, 50).tolist(), rng.integers(1000, 2**35, 400).tolist(),
              [], rng.integers(2**35 + 2**20, TOP, 30, dtype=np.int64).tolist()]
    grouped, offsets = grouped_from(groups)
    counts, sizes = np.empty(4, np.int64), np.empty(4, np.int64)
    workfiles._sort_groups(grouped, offsets, cuts, counts, sizes)
    starts = np.concatenate(([0], np.cumsum(sizes)))
    out = np.empty(int(starts[-1]), np.uint8)
    workfiles._leb128_groups(grouped, offsets, cuts, counts, starts, out)
    for t, group in enumerate(groups):
        data = out[starts[t]:starts[t + 1]]
        assert data.tobytes() == leb128_reference(group, int(cuts[t]))
        ranks = np.empty(counts[t], np.uint64)
        assert workfiles._decode_group(data, np.uint64(cuts[t]), np.uint64(cuts[t + 1]),
                                       ranks) == data.size
        assert ranks.tolist() == ranks_reference(data.tobytes(), int(cuts[t]))
        assert ranks.tolist() == sorted(set(group))


@pytest.mark.parametrize("values", [
    [], [5], [3, 1], list(range(100)), list(range(5000, 0, -1)), [2**64 - 1, 0, 2**63] * 50])
def test_the_radix_sort_sorts_like_numpy(values):
    a = np.array(values, np.uint64)
    workfiles._radix_sort(a)
    assert a.tolist() == sorted(values)


def test_the_radix_sort_sorts_random_full_width_ranks_like_numpy():
    a = np.random.default_rng(5).integers(0, 2**64 - 1, 30000, dtype=np.uint64)
    expected = np.sort(a)
    workfiles._radix_sort(a)
    assert np.array_equal(a, expected)


def test_a_rank_outside_its_segment_is_refused(tmp_path):
    grouped, offsets = grouped_from([[1, 2], [10]])
    with pytest.raises(ValueError, match="segment 1"):
        write_piece(tmp_path / "x.wf", grouped, offsets, np.array([0, 5, 10], np.int64))
    assert not (tmp_path / "x.wf").exists()


@pytest.fixture
def small_file(tmp_path):
    """A small work file and the groups it holds."""
    groups = [[3, 1, 4, 1, 5], [], [9, 26, 53, 58, 97], [2**50 + 3]]
    written_and_read(tmp_path / "x.wf", groups, [0, 8, 9, 100, 2**51])
    return tmp_path / "x.wf", groups


def test_every_flipped_bit_is_a_layer_error_naming_the_file_or_changes_no_rank(small_file):
    path, groups = small_file
    data = path.read_bytes()
    caught = 0
    for at in range(len(data)):
        for bit in (0, 7):
            damaged = bytearray(data)
            damaged[at] ^= 1 << bit
            path.write_bytes(bytes(damaged))
            try:
                assert_reads_back(PieceFile(path), groups)
            except LayerError as err:
                assert str(path) in str(err) and "\n" not in str(err)
                caught += 1
    # every byte counts: the header's words of a key are under its CRC-32 too
    assert caught == 2 * len(data)


def test_a_truncated_or_missing_file_is_a_layer_error_naming_it(small_file):
    path, _ = small_file
    data = path.read_bytes()
    for length in (0, 7, 31, 32, 40, len(data) - 1):
        path.write_bytes(data[:length])
        with pytest.raises(LayerError, match=str(path)):
            PieceFile(path)
    path.write_bytes(data + b"\0")
    with pytest.raises(LayerError, match=str(path)):
        PieceFile(path)
    with pytest.raises(LayerError, match="y.wf"):
        PieceFile(path.with_name("y.wf"))


def test_a_file_cut_after_it_was_opened_is_a_layer_error_when_a_group_is_read(small_file):
    path, _ = small_file
    piece = PieceFile(path)
    path.write_bytes(path.read_bytes()[:-3])
    with pytest.raises(LayerError, match=str(path)):
        piece.read_group(3)


def test_open_piece_files_hold_no_file_open(tmp_path):
    for k in range(50):
        written_and_read(tmp_path / f"x{k}.wf", [[1, 2, 3], [7]], [0, 5, 10])
    pieces = [PieceFile(tmp_path / f"x{k}.wf") for k in range(50)]
    assert [p.read_group(1).tolist() for p in pieces] == [[7]] * 50
    assert not [f for f in psutil.Process().open_files() if str(tmp_path) in f.path]
