"""Small permutation definitions, written here, whose rank spaces pass 2^63 while their
moves reach a few thousand states, so that their keys are two or three words and a plain
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
