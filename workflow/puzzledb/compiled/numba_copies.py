"""Two copies numba makes while it compiles that copy nothing the compile needs, skipped: a
quarter of the CPU time of compiling a family's kernels (docs/changelog.md, "Compile once,
fifth round"), the machine code the same to the byte (tests/test_numba_copies.py).

- Inlining a function marked `inline="always"`, numba builds the callee's IR afresh for the
  call site (`InlineWorker.inline_function`), then `inline_ir` deep-copies it block by block
  twice: once to mutate, once to hand back unmutated, which the inlining pass throws away.
  Each block's copy copies the function's whole scope again, so the cost grows with blocks
  times variables (numba issues #8989 and #9204; numba-cuda PR 689 drops the second copy).
  Here the blocks of a fresh IR are not copied: nothing else holds them.
- `ir_utils.copy_propagate` and `find_potential_aliases` deep-copy dicts of sets of
  variable names (strings and pairs of them) on every round of their fixed points: a copy of
  each set is the same thing.

Applied at the first compile of a process (a process that only loads kernels from the cache
imports none of this), and only to the numba whose code it was written against: where the
source no longer holds the copies (a numba that fixed them, or changed them), nothing is
patched.  `PUZZLEDB_NUMBA_AS_IS=1` leaves numba as it is (to compare, or to rule this out).
"""

import copy
import inspect
import os
from functools import cache

from numba.core import event

_FRESH = set()  # ids of the blocks of callee IRs being inlined, built for that call site


class _CopyModule:
    """The `copy` module as one of numba's modules sees it: copy's own, but for deepcopy."""

    def __getattr__(self, name):
        return getattr(copy, name)


class _InliningCopies(_CopyModule):
    """inline_closurecall's `copy` module: a fresh block is given back as itself."""

    @staticmethod
    def deepcopy(x, memo=None):
        return x if id(x) in _FRESH else copy.deepcopy(x, memo)


def _names(value):
    return type(value) is str or type(value) is tuple and all(type(v) is str for v in value)


class _NameSetCopies(_CopyModule):
    """ir_utils' `copy` module: a dict of sets of names is copied set by set."""

    @staticmethod
    def deepcopy(x, memo=None):
        if type(x) is dict and all(type(s) is set and all(map(_names, s)) for s in x.values()):
            return {key: set(names) for key, names in x.items()}
        return copy.deepcopy(x, memo)


def _inline_function(self, caller_ir, block, i, function, arg_typs=None):
    """numba's InlineWorker.inline_function, the fresh callee's blocks marked uncopied."""
    callee_ir = self.run_untyped_passes(function)
    fresh = {id(b) for b in callee_ir.blocks.values()}
    _FRESH.update(fresh)
    try:
        return self.inline_ir(caller_ir, block, i, callee_ir, function.__code__.co_freevars,
                              arg_typs=arg_typs)
    finally:
        _FRESH.difference_update(fresh)


def _holds(function, *texts):
    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):
        return False
    return all(text in source for text in texts)


@cache
def skip_needless_copies():
    """Patch numba as the docstring says, once a process, where its code is as expected."""
    if os.environ.get("PUZZLEDB_NUMBA_AS_IS"):
        return
    from numba.core import inline_closurecall, ir_utils

    worker = inline_closurecall.InlineWorker
    if (inline_closurecall.copy is copy
            and _holds(worker.inline_ir, "copy.deepcopy(the_ir.blocks[block_label])")
            and _holds(worker.inline_function, "callee_ir = self.run_untyped_passes(function)",
                       "return self.inline_ir(caller_ir, block, i, callee_ir, freevars,")):
        worker.inline_function = _inline_function
        inline_closurecall.copy = _InliningCopies()
    if ir_utils.copy is copy and _holds(ir_utils.copy_propagate,
                                        "new_point = copy.deepcopy(out_copies)"):
        ir_utils.copy = _NameSetCopies()


class _FirstCompile(event.Listener):
    def on_start(self, ev):
        skip_needless_copies()

    def on_end(self, ev):
        pass


event.register("numba:compile", _FirstCompile())
