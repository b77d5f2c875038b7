"""How many boards a catalogue's box holds (definition.py): every board the catalogue stands
for, counted without listing one, cell by cell in reading order, remembering only what the
cells ahead must know (which are covered already, walls left, goal pieces placed, empty
cells still wanted, and in Fogleman's space what fills the row and the columns so far).
Plain Python: the box's totals of report/catalogue.py; tests/test_catalogue.py compares it
with every board listed.
"""

from functools import lru_cache


def count_boards(cat, space="every"):
    """The boards of a catalogue (definition.Catalogue): each goal piece once, anywhere in
    its lane, any number of pieces of the other classes, up to cat.walls walls on cells
    that leave the goal open (not under a goal piece at its goal) and at least
    cat.min_empty cells empty, as the searches list them; in Fogleman's space (lanes.py,
    bars only) no other bar on a goal bar's line and no line full of its own bars."""
    width, height, cells = cat.width, cat.drawing.height, cat.cells
    box_walls, fogleman = cat.drawing.walls, space == "fogleman"
    goal_open = 0
    for k in range(cat.goals):
        goal_open |= _mask(cat.drawing.at(cat.classes[k].shape, cat.goal_anchor(k)))
    # per class: its mask at each anchor, whether it lies along a row, its length
    places = [{a: _mask(cat.drawing.at(c.shape, a)) for a in c.anchors} for c in cat.classes]
    across = [len({r for r, _ in c.shape}) == 1 for c in cat.classes]
    goal_rows = {cat.goal_anchor(k) // width for k in range(cat.goals) if across[k]}
    goal_columns = {cat.goal_anchor(k) % width for k in range(cat.goals) if not across[k]}
    free_row = [sum(r * width + c not in box_walls for c in range(width)) for r in range(height)]
    all_goals = (1 << cat.goals) - 1

    @lru_cache(maxsize=None)
    def count(x, down, along, left, goals, in_row, columns_full, need):
        """Boards from cell x on: `down` the cells ahead covered by pieces from earlier
        rows (or by any piece, outside Fogleman's space), `along` by this row's bars;
        in_row: the cells this row's own bars cover; columns_full: the columns whose free
        cells so far are all under their own bars; need: the empty cells still wanted."""
        if x == cells:
            return int(goals == all_goals and need == 0)
        row, column = divmod(x, width)
        here = 1 << x

        def after(down, along, left, goals, in_row, full, need=need):
            down, along = down & ~here, along & ~here
            if fogleman and column == width - 1:
                if in_row == free_row[row]:
                    return 0
                in_row = 0
            if fogleman and row == height - 1 and full >> column & 1:
                return 0
            return count(x + 1, down, along, left, goals, in_row, full, need)

        cleared = columns_full & ~(1 << column) if fogleman else columns_full
        if x in box_walls or down & here:
            return after(down, along, left, goals, in_row, columns_full)
        if along & here:
            return after(down, along, left, goals, in_row, cleared)
        total = after(down, along, left, goals, in_row, cleared, max(need - 1, 0))  # empty
        if left and not goal_open & here:
            total += after(down, along, left - 1, goals, in_row, cleared)
        for k, piece_class in enumerate(cat.classes):
            mask = places[k].get(x)
            if mask is None or mask & (down | along) or (piece_class.goal and goals >> k & 1):
                continue
            placed = goals | (1 << k if piece_class.goal else 0)
            if not fogleman:
                total += after(down | mask, along, left, placed, in_row, cleared)
            elif across[k] and (piece_class.goal or row not in goal_rows):
                total += after(down, along | mask, left, placed,
                               in_row + len(piece_class.shape), cleared)
            elif not across[k] and (piece_class.goal or column not in goal_columns):
                total += after(down | mask, along, left, placed, in_row, columns_full)
        return total

    return count(0, 0, 0, cat.walls, 0, 0, (1 << width) - 1, cat.min_empty)


def _mask(cells):
    return sum(1 << c for c in cells)
