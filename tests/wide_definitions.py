"""Small permutation definitions, written here, whose rank spaces pass 2^63 while their
moves reach a few thousand states, so that their keys are two or more words and a plain
BFS (plain_permutation.py) checks them in seconds."""


def wide_definition(words=2):
    """BIG: twenty pieces on ten pairs of slots, A turning the pairs round and B swapping
    pairs 0 and 5 (an even factor of 20!/2 values, a word of its own).  words=2: MID, four
    orbits of four slots that C turns, twisting one piece (the second word, with a table
    block of orientations for the low block).  words=3: MID one orbit of sixteen that C
    turns, and X, nineteen slots whose first ten A turns with BIG (16! x 10! do not fit one
    word; X's 10! is split into rows of 720)."""
    def line(values):
        return " ".join(map(str, values))

    big_a = [0] * 20
    for i in range(10):
        for j in range(2):
            big_a[2 * ((i + 1) % 10) + j] = 2 * i + j + 1
    big_b = list(range(1, 21))
    for i in (0, 5):
        big_b[2 * i], big_b[2 * i + 1] = 2 * i + 2, 2 * i + 1
    if words == 2:
        mid_c = [x for base in range(0, 16, 4) for x in (base + 4, base + 1, base + 2, base + 3)]
        twist = [1] + [0] * 15
    else:
        mid_c, twist = [16] + list(range(1, 16)), [0] * 16
    x_a = [10] + list(range(1, 10)) + list(range(11, 20))
    text = [f"Name wide{words}", "Set BIG 20 1", "Set MID 16 2"]
    text += ["Set X 19 1"] if words == 3 else []
    text += ["Move A", "BIG", line(big_a)] + (["X", line(x_a)] if words == 3 else []) + ["End"]
    text += ["Move B", "BIG", line(big_b), "End"]
    text += ["Move C", "MID", line(mid_c), line(twist), "End"]
    return "\n".join(text) + "\n"


def cut_definition():
    """Twenty-four pieces on twelve pairs of slots, A turning the pairs round, B swapping
    pairs 0 and 6 with each other: an even factor of 24!/2 values, past a word, so cut
    into two parts (layout._cuts), and no other factor (rows of one key); 768 states."""
    turn = [0] * 24
    for i in range(12):
        for j in range(2):
            turn[12 * j + (i + 1) % 12] = 12 * j + i + 1
    swap = list(range(1, 25))
    for i in (0, 6):
        swap[i], swap[12 + i] = 13 + i, 1 + i
    return ("Name cut\nSet BIG 24 1\nMove A\nBIG\n" + " ".join(map(str, turn))
            + "\nEnd\nMove B\nBIG\n" + " ".join(map(str, swap)) + "\nEnd\n")


def _line(values):
    return " ".join(map(str, values))


def _columns_turn(rows, columns=12):
    """Slots of `rows` rows of `columns` columns (slot r * columns + c), the columns turned
    round one step (1-based, as a move's line)."""
    return [r * columns + (c - 1) % columns + 1 for r in range(rows) for c in range(columns)]


def identical_definition():
    """Identical pieces past a word, each factor cut into parts across words: MULTI, 24
    slots holding 14 distinct pieces and two kinds of five alike (24!/(5! 5!) values); WILD,
    16 distinct pieces twisting in three and 8 alike whose twist is `?` (24!/8! x 3^16);
    ORI, 24 alike pieces in seven orientations, their total kept (7^23).  Each set is twelve
    columns of two slots: A turns the columns round, B swaps the two slots of columns 0 and
    6 (twisting WILD's and ORI's pieces): 768 states at most, as cut_definition."""
    swap = list(range(1, 25))
    for c in (0, 6):
        swap[c], swap[12 + c] = 13 + c, 1 + c
    multi = [15 if i % 5 == 1 else 16 if i % 5 == 3 else 0 for i in range(24)]
    wild = [17 if i % 3 == 2 else 0 for i in range(24)]
    for labels in (multi, wild):
        named = iter(range(1, 17))
        labels[:] = [x or next(named) for x in labels]
    twists = {"WILD": [0] * 24, "ORI": [0] * 24}
    for c in (0, 6):
        twists["WILD"][c], twists["WILD"][12 + c] = 1, 2
        twists["ORI"][c], twists["ORI"][12 + c] = 1, 6
    text = ["Name identical", "Set MULTI 24 1", "Set WILD 24 3", "Set ORI 24 7", "Solved",
            "MULTI", _line(multi), "WILD", _line(wild),
            _line("?" if x == 17 else 0 for x in wild), "ORI", _line([1] * 24),
            _line([0] * 24), "End", "Move A"]
    for name in ("MULTI", "WILD", "ORI"):
        text += [name, _line(_columns_turn(2))]
    text += ["End", "Move B", "MULTI", _line(swap)]
    for name in ("WILD", "ORI"):
        text += [name, _line(swap), _line(twists[name])]
    return "\n".join(text + ["End"]) + "\n"


def many_slots_definition():
    """MANY: 72 slots (six rows of twelve columns), six kinds of twelve alike pieces, one
    kind a row: past the 64 slots a mask holds.  A turns the columns round, B swaps rows 0
    and 1, 2 and 3, 4 and 5 in column 0, C rows 1 and 2, 3 and 4, 5 and 0 in column 6 (one
    orbit of 72 slots); its prefixes are small."""
    def swaps(column, first):
        move = list(range(1, 73))
        for r in range(first, first + 6, 2):
            a, b = (r % 6) * 12 + column, ((r + 1) % 6) * 12 + column
            move[a], move[b] = b + 1, a + 1
        return move

    text = ["Name many", "Set MANY 72 1", "Solved", "MANY",
            _line(1 + i // 12 for i in range(72)), "End", "Move A", "MANY",
            _line(_columns_turn(6)), "End", "Move B", "MANY", _line(swaps(0, 0)), "End",
            "Move C", "MANY", _line(swaps(6, 1)), "End"]
    return "\n".join(text) + "\n"
