"""The layers a frontier step finds on disk: a layer is taken up only when a whole, verified
copy is there (stored_layer), and a layer written in parts whose part is lost or damaged
(removed by `puzzledb verify --repair`, or by hand) has that part rebuilt alone, as its
merge job wrote it, and checked against the count and CRC-32 the layer's map lists."""

import shutil

from puzzledb.bfs.frontier.expand import expand_part
from puzzledb.bfs.frontier.merge import merge_part, open_pieces
from puzzledb.store.layers import LayerError
from puzzledb.store.parts import PartedLayer, PartError


def stored_layer(plan, depth):
    """The LayerInfo of layer `depth` when a whole, verified copy is on disk (left by a
    step that was stopped), else None (and a damaged copy is removed).  A layer written in
    parts whose part is lost or damaged has that part rebuilt alone."""
    store = plan.store
    if not store.path(depth).exists():
        return None
    try:
        restore_parts(plan, depth)
        try:
            return store.check_layer(depth)
        except PartError as err:  # a part whose data does not read back whole
            restore_parts(plan, depth, bad=[err.part])
            return store.check_layer(depth)
    except LayerError:
        store.remove(depth)
        return None


def restore_parts(plan, depth, bad=(), log=print):
    """Rebuild alone each part of stored layer `depth` that is missing or is not the part
    its map lists, and the parts `bad` (a layer in one file: nothing to do).  A rebuilt
    part replaces the file atomically."""
    with plan.store.open_layer(depth) as layer:
        if not isinstance(layer, PartedLayer):
            return
        lost = set(bad)
        for q in range(layer.parts):
            try:
                layer.part(q)
            except PartError:
                lost.add(q)
    for q in sorted(lost):
        rebuild_part(plan, depth, q, log)


def rebuild_part(plan, depth, part, log=print):
    """Part `part` of stored layer `depth` written again alone, as its merge job wrote it:
    layer depth - 1 expanded whole, only the neighbours in the part's segments kept.  The
    rebuilt part must be the one the layer's map lists (count and CRC-32)."""
    with plan.store.open_layer(depth) as layer:
        parts = layer.parts
        segments = range(int(layer.segments[part]), int(layer.segments[part + 1]))
        count, crc = layer.part_count(part), int(layer.part_crc32[part])
    name = plan.puzzle.name
    log(f"{name}: depth {depth}: rebuilding part {part} of {parts} ({count:,} states)")
    scratch = plan.depth_work(depth) / f"rebuild_{part}of{parts}"
    shutil.rmtree(scratch, ignore_errors=True)
    try:
        expand_part(plan, depth, 0, 1, scratch, keep=segments)
        pieces = open_pieces([scratch])
        entry = merge_part(plan, depth, part, parts, pieces, plan.received(depth, pieces),
                           segments)
    finally:
        shutil.rmtree(scratch.parent, ignore_errors=True)
    if (entry["count"], entry["crc32"]) != (count, crc):
        raise LayerError(f"{name}: part {part} of layer {depth} rebuilt with "
                         f"{entry['count']:,} states and CRC-32 {entry['crc32']:08x}, its "
                         f"layer lists {count:,} and {crc:08x}: the layers before it are "
                         f"not those it was built from", depth)
