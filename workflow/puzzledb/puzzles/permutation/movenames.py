"""How twsearch names moves: the powers of a move (R, R2, R') and which names are rotations
of the whole puzzle (x, y, z and names ending in v), which are not generators."""


def power_names(name, order):
    """The names of the powers 1..order-1 of a move: R, R2, R' for a quarter turn; a move
    named F2 of order 2 is F2."""
    out = []
    for k in range(1, order):
        if 2 * k <= order:
            out.append(name + (str(k) if k > 1 else ""))
        else:
            out.append(name + (str(order - k) if order - k > 1 else "") + "'")
    return out


def is_rotation(name):
    """x, y, z (and x2, x'), or capitals and _ followed by one v (Fv, UBLv): a turn of the
    whole puzzle, as twsearch reads the name."""
    if name[:1] in ("x", "y", "z") and (len(name) == 1 or name[1:] in ("2", "'")):
        return True
    head = name[:-1]
    return (name.endswith("v") and len(head) > 0
            and all(c == "_" or "A" <= c <= "Z" for c in head))
