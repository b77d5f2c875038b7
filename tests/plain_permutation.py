"""An independent reading of the ksolve/twsearch format and a breadth-first search over
sets of states, in plain Python, for the permutation family's tests: what twsearch's reader
does (a set a move leaves out is unchanged, `?` twists not part of the state, Illegal
states never entered, MoveSequence as the moves it makes) written again from its rules, not
from the family's code."""

ROTATION_SUFFIXES = ("", "2", "'")


def read_plain(text):
    """(sets [(name, size, orientations)], solved state, moves [{set: (perm, twist)}],
    illegal [(set, slot 1-based, piece)], wild {set: labels with a ? twist})."""
    sets, moves, solved, illegal, sequences, named = [], [], {}, [], [], {}
    lines = [ln.split("#")[0].split() for ln in text.splitlines()]
    lines = [ln for ln in lines if ln]
    i = 0
    while i < len(lines):
        words = lines[i]
        if words[0] == "Set":
            sets.append((words[1], int(words[2]), int(words[3])))
        elif words[0] == "Illegal":
            illegal += [(words[1], int(words[2]), int(p)) for p in words[3:]]
        elif words[0] == "MoveSequence":
            sequences.append((words[1], words[2:]))
        elif words[0] in ("Solved", "Move"):
            block, i = _block(lines, i + 1)
            if words[0] == "Solved":
                solved = block
            else:
                named[words[1]] = block
                moves.append(words[1])
        i += 1
    wild = {name: {label for label, o in zip(*solved[name]) if o == "?"}
            for name in solved}
    start = tuple((tuple(solved[n][0]), tuple(0 if o == "?" else int(o) for o in solved[n][1]))
                  if n in solved else (tuple(range(1, size + 1)), (0,) * size)
                  for n, size, _ in sets)
    resolved = [_resolve(named, sets, moves, sequence) for sequence in sequences]
    generators = [named[m] for m in moves if not is_rotation(m)] + resolved
    return sets, start, generators, illegal, wild


def _block(lines, i):
    block = {}
    while lines[i][0] != "End":
        name = lines[i][0]
        perm = [int(x) for x in lines[i + 1]]
        i += 2
        twist = [0] * len(perm)
        if i < len(lines) and (lines[i][0].isdigit() or lines[i][0] == "?"):
            twist = lines[i]
            i += 1
        block[name] = (perm, twist)
    return block, i


def is_rotation(name):
    return (name[0] in "xyz" and name[1:] in ROTATION_SUFFIXES) or (
        name.endswith("v") and name[:-1].isupper())


def _resolve(named, sets, moves, sequence):
    """A MoveSequence as one move: its moves applied one after the other to the identity,
    each written with an optional power (2) or inverse (')."""
    name, tokens = sequence
    state = tuple((tuple(range(1, size + 1)), (0,) * size) for _, size, _ in sets)
    for token in tokens:
        base = token.rstrip("2'")
        move = named[base]
        times = {"": 1, "2": 2, "'": -1}[token[len(base):]]
        state = power(state, move, sets, times)
    return {set_name: (list(labels), _twist_by_source(labels, oris))
            for (set_name, _, _), (labels, oris) in zip(sets, state)}


def _twist_by_source(labels, oris):
    twist = [0] * len(labels)
    for i, source in enumerate(labels):
        twist[source - 1] = oris[i]
    return twist


def apply_plain(state, move, sets, wild=None):
    out = []
    for (labels, oris), (name, size, k) in zip(state, sets):
        perm, twist = move.get(name, (list(range(1, size + 1)), [0] * size))
        twist = [0 if t == "?" else int(t) for t in twist]
        labels2 = tuple(labels[perm[i] - 1] for i in range(size))
        oris2 = tuple((oris[perm[i] - 1] + twist[perm[i] - 1]) % k for i in range(size))
        if wild and wild.get(name):
            oris2 = tuple(0 if x in wild[name] else o for x, o in zip(labels2, oris2))
        out.append((labels2, oris2))
    return tuple(out)


def power(state, move, sets, times, wild=None):
    if times < 0:
        cycle = [apply_plain(state, move, sets, wild)]
        while cycle[-1] != state:
            cycle.append(apply_plain(cycle[-1], move, sets, wild))
        return cycle[-2]
    for _ in range(times):
        state = apply_plain(state, move, sets, wild)
    return state


def legal(state, sets, illegal):
    names = [s[0] for s in sets]
    return all(state[names.index(s)][0][slot - 1] != piece for s, slot, piece in illegal)


def bfs_plain(text, metric, goals=None, depth_limit=None):
    """The layers, as sets of states, by the moves' cycles through each state: every state
    on the cycle (htm) or its two ends (qtm); a state that breaks an Illegal rule is never
    entered.  goals: the states of layer 0 (default: the solved state); depth_limit: the
    last layer (a prefix)."""
    sets, start, moves, illegal, wild = read_plain(text)
    layer = set(goals) if goals else {start}
    seen, layers = set(layer), [set(layer)]
    while layer and len(layers) - 1 != depth_limit:
        following = set()
        for state in layer:
            for move in moves:
                cycle = [apply_plain(state, move, sets, wild)]
                while cycle[-1] != state:
                    cycle.append(apply_plain(cycle[-1], move, sets, wild))
                if metric == "htm" or len(cycle) == 1:  # a move may fix a state (? twists)
                    near = cycle[:-1]
                else:
                    near = [cycle[0], cycle[-2]]
                following.update(s for s in near if s not in seen and
                                 legal(s, sets, illegal))
        seen |= following
        layer = following
        if layer:
            layers.append(layer)
    return sets, layers, wild


def board_text(state, sets, wild=None):
    """A state as the family writes boards (a `?` twist written ?)."""
    parts = []
    for (labels, oris), (name, _, k) in zip(state, sets):
        text = f"{name} " + " ".join(map(str, labels))
        if k > 1:
            marks = wild.get(name, set()) if wild else set()
            text += " / " + " ".join("?" if x in marks else str(o)
                                     for x, o in zip(labels, oris))
        parts.append(text)
    return " | ".join(parts)
