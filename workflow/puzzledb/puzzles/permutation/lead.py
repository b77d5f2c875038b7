"""The lead factor of a permutation puzzle's canonical form (symmetry_kernels.py): an
arrangement of distinct pieces (a cube's corners) that every element of the symmetry group
maps onto itself, so that the value of its part of an image depends on its value alone.
Tabled once: its value after each move and in the inverse, and for each value the set of
the group's elements whose image takes the least value.  The canonical form minimises that
value first, so a neighbour's candidates are read from one word or two of the table (most
often the one element) instead of comparing all the group's images; the rest of the row
breaks ties.  Plain numpy, made with the tables."""

import numpy as np

from puzzledb.puzzles.permutation.rows import (
    component_rows,
    lehmer_rank_columns,
    narrow_type,
)

LEAD_MAX = 1 << 17  # values of a lead factor, at most (a cube's corners: 8! = 40,320)


def lead_component(puzzle, group, sources, images):
    """The component to lead with: the largest arrangement of distinct pieces of at most
    LEAD_MAX values whose slots every symmetry maps onto themselves, classes to classes
    whatever the orientation; None when there is none."""
    coding = group.coding
    best = None
    for c in puzzle.components:
        if c.kind not in ("perm", "even") or c.count > LEAD_MAX or c.split:
            continue
        slots = [coding.first[c.set] + i for i in c.slots]
        if all(_closed(coding, sources[s], images[s], slots) for s in range(len(sources))):
            if best is None or c.count > best[0].count:
                best = (c, slots)
    return best


def _closed(coding, source, image, slots):
    for j in slots:
        if source[j] not in slots:
            return False
        values = coding.values(source[j])
        shift = coding.shift[source[j]]
        classes = {v >> shift: set() for v in values}
        for v in values:
            classes[v >> shift].add(int(image[j, v]) >> coding.shift[j])
        if any(len(x) != 1 for x in classes.values()):
            return False
    return True


def lead_tables(puzzle, group, sources, images, move_sources, move_images):
    """The ld_* fields: ld_size (0: no lead factor), ld_slots (its global slots, in the
    component's order), ld_move[u * moves + m], ld_invert[u], ld_mask[u * words + w]
    (bit e of the elements 0..S-1, then S..2S-1 for the images of the inverse; uint8
    without a lead factor, which tells the kernels to compare every image),
    ld_even (whether its value is an even permutation's, the Lehmer rank halved),
    ld_component (its number among the puzzle's components, whose digit of a key it is),
    ld_least[u] (the least value of u's images: a canonical position's lead value)."""
    found = lead_component(puzzle, group, sources, images)
    if found is None:
        return dict(ld_size=np.int64(0), ld_slots=np.zeros(1, np.int64),
                    ld_move=np.zeros(1, np.int32), ld_invert=np.zeros(1, np.int32),
                    ld_mask=np.zeros(1, np.uint8), ld_words=np.int64(1), ld_even=np.int64(0),
                    ld_component=np.int64(-1), ld_least=np.zeros(1, np.int64))
    c, slots = found
    coding = group.coding
    values = np.arange(c.count, dtype=np.int64)
    classes, _ = component_rows(c, values)

    narrow = narrow_type(len(slots))

    def value(columns):
        ranks = lehmer_rank_columns(columns)
        return ranks // 2 if c.kind == "even" else ranks

    def moved(columns, source, image):
        """The classes (a column a slot, as indices: np.take would convert narrower ones
        at every call) after a slot map (orientations 0: the classes ignore them), each
        column through the map's table of classes."""
        out = np.empty(columns.shape, dtype=narrow)
        for i, j in enumerate(slots):
            g = int(source[j])
            kinds = np.arange(len(coding.kinds[coding.orbit[g]]))
            table = (image[j][kinds << coding.shift[g]] >> coding.shift[j]).astype(narrow)
            np.take(table, columns[slots.index(g)], out=out[i])
        return out

    columns = np.ascontiguousarray(classes.T, dtype=np.intp)
    moves = [value(moved(columns, move_sources[m], move_images[m]))
             for m in range(len(move_sources))]
    inverse = np.ascontiguousarray(_inverse_rows(coding, slots, classes).T, dtype=np.intp)
    inverted = value(inverse.astype(narrow))
    direct = _composed(coding, sources, images,
                       lambda s: value(moved(columns, sources[s], images[s])))
    images_of = direct + ([image[inverted] for image in direct] if group.inversion else [])
    least = np.min(images_of, axis=0)
    words = (len(images_of) + 63) // 64
    mask = np.zeros((c.count, words), dtype=np.uint64)
    for e, image in enumerate(images_of):
        mask[image == least, e // 64] |= np.uint64(1) << np.uint64(e % 64)
    return dict(ld_size=np.int64(c.count), ld_slots=np.array(slots, dtype=np.int64),
                ld_move=np.stack(moves, axis=1).astype(np.int32).ravel(),
                ld_invert=inverted.astype(np.int32), ld_mask=mask.ravel(),
                ld_words=np.int64(words), ld_even=np.int64(c.kind == "even"),
                ld_component=np.int64(puzzle.components.index(c)),
                ld_least=least.astype(np.int64))


def _composed(coding, sources, images, ranked):
    """The lead value of every element's image of each lead value (a permutation of them:
    the lead factor is closed), element s's made by ranked(s) for a few, the rest as
    compositions: "s then t" is the slot map whose source is source_s[source_t] and whose
    image is image_t after image_s, and its values are those of t taken at those of s.  An
    element found as no composition is ranked and joins the generators."""
    count, n, width = images.shape
    valid = np.array([[(v & ((1 << coding.shift[j]) - 1)) < coding.k[j]
                       and v >> coding.shift[j] < len(coding.kinds[coding.orbit[j]])
                       for v in range(width)] for j in range(n)])

    def key(source, image):
        return source.tobytes() + np.where(valid, image, -1).tobytes()

    elements = {}
    for s in range(count):
        elements.setdefault(key(sources[s], images[s]), []).append(s)
    values, generators = [None] * count, []
    for s in range(count):
        if values[s] is not None:
            continue
        values[s] = ranked(s)
        generators.append(s)
        found = [e for e in range(count) if values[e] is not None]
        while found:
            new = []
            for a in found:
                for b in generators:
                    image = np.take_along_axis(images[b], images[a][sources[b]], axis=1)
                    for e in elements.get(key(sources[a][sources[b]], image), []):
                        if values[e] is None:
                            values[e] = values[b][values[a]]
                            new.append(e)
            found = new
    return values


def _inverse_rows(coding, slots, classes):
    """The lead factor's classes in the inverse position: the piece of class c at local
    slot i puts the class solved at i in c's home slot."""
    solved = [coding.unpack(g, coding.row(coding.solved)[g])[0] for g in slots]
    home = {cls: i for i, cls in enumerate(solved)}
    out = np.empty_like(classes)
    for i in range(len(slots)):
        target = np.array([home[c] for c in range(len(slots))])[classes[:, i]]
        out[np.arange(classes.shape[0]), target] = solved[i]
    return out
