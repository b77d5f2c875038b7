"""compiled/numba_copies.py skips copies numba makes while compiling; the machine code it
compiles must be the same as numba's own, to the byte but for addresses."""

import json
import os
import re
import subprocess
import sys

# Kernels shaped like ours: helpers inlined by numba (nested, with loops and branches) into
# a parallel loop, whose passes run copy propagation; each compiled in a fresh process.
CHILD = r"""
import json, sys, tempfile
import numpy as np
from numba import prange
from numba.core import inline_closurecall, ir_utils
from puzzledb.compiled import jit


@jit(inline="always")
def step(x, table):
    for k in range(table.size):
        if x & (1 << k):
            x ^= table[k]
    return x


@jit(inline="always")
def twice(x, table):
    y = step(x, table)
    return step(y, table) if y > x else y


@jit(parallel=True)
def sweep(values, table, out):
    for i in prange(values.size):
        a = twice(values[i], table)
        b = a + 1 if a % 3 else a - 1
        out[i] = twice(b, table)
    return out.sum()


values, table = np.arange(1000, dtype=np.int64), np.arange(1, 17, dtype=np.int64)
total = sweep(values, table, np.empty_like(values))
print(json.dumps({"total": int(total), "asm": sweep.inspect_asm(sweep.signatures[0]),
                  "patched": inline_closurecall.InlineWorker.inline_function.__module__
                  == "puzzledb.compiled.numba_copies" and type(ir_utils.copy).__name__
                  == "_NameSetCopies"}))
"""


def compiled(tmp_path, name, **env):
    script = tmp_path / f"{name}.py"  # a file: numba caches only what has one
    script.write_text(CHILD)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env=dict(os.environ, PUZZLEDB_CACHE_DIR=str(tmp_path / name), **env))
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout)
    found["asm"] = re.sub(r"0x[0-9a-f]{6,}", "", found["asm"])  # the parallel loop's address
    return found


def test_the_copies_skipped_change_no_machine_code(tmp_path):
    patched = compiled(tmp_path, "patched")
    as_is = compiled(tmp_path, "as_is", PUZZLEDB_NUMBA_AS_IS="1")
    assert patched["patched"] and not as_is["patched"]
    assert patched["total"] == as_is["total"]
    assert patched["asm"] == as_is["asm"]
