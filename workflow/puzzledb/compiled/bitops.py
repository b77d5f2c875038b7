"""Word-level bit operations for numba kernels, as LLVM intrinsics: population count, lowest
set bit, atomic OR into an array (and a bitset's set_bit on it), and BMI2 bit
extract/deposit (pext/pdep).

pext/pdep use the BMI2 instructions where the CPU has them and a plain loop elsewhere;
numba's cache is keyed by CPU, so a cached kernel never runs on a CPU without them.
"""

import numpy as np
from llvmlite import binding as llvm
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from puzzledb.compiled import jit

HAS_BMI2 = "+bmi2" in llvm.get_host_cpu_features().flatten().split(",")


@intrinsic
def atomic_or(typingctx, array, index, value):
    """array[index] |= value, atomically; the old value.  The array may hold any unsigned
    integer width; value is cut to it."""
    sig = types.uint64(array, types.intp, types.uint64)

    def codegen(context, builder, signature, args):
        ary_t = signature.args[0]
        ary = context.make_array(ary_t)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, ary_t, ary, [args[1]])
        width = ary_t.dtype.bitwidth
        if width == 64:
            return builder.atomic_rmw("or", ptr, args[2], "monotonic")
        value = builder.trunc(args[2], ir.IntType(width))
        return builder.zext(builder.atomic_rmw("or", ptr, value, "monotonic"), ir.IntType(64))

    return sig, codegen


@jit(inline="always")
def set_bit(bits, r):
    """Set bit r of a bitset of uint64 words (atomically; a bit already set is not
    written)."""
    w = r >> 6
    bit = np.uint64(1) << np.uint64(r & 63)
    if not bits[w] & bit:
        atomic_or(bits, w, bit)


@intrinsic
def popcount(typingctx, value):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def lowest_bit(typingctx, value):
    """Index of the lowest set bit (value must not be 0)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], context.get_constant(types.boolean, True))

    return sig, codegen


def _bmi2(name):
    @intrinsic
    def op(typingctx, value, mask):
        sig = types.uint64(types.uint64, types.uint64)

        def codegen(context, builder, signature, args):
            i64 = ir.IntType(64)
            fn = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(i64, [i64, i64]), f"llvm.x86.bmi.{name}.64")
            return builder.call(fn, args)

        return sig, codegen

    return op


@jit
def pext_loop(value, mask):
    """The bits of value at the set bits of mask, packed to the low end."""
    out = np.uint64(0)
    k = np.uint64(0)
    while mask:
        low = mask & (~mask + np.uint64(1))
        if value & low:
            out |= np.uint64(1) << k
        k += np.uint64(1)
        mask ^= low
    return out


@jit
def pdep_loop(value, mask):
    """The low bits of value spread onto the set bits of mask."""
    out = np.uint64(0)
    while mask:
        low = mask & (~mask + np.uint64(1))
        if value & np.uint64(1):
            out |= low
        value >>= np.uint64(1)
        mask ^= low
    return out


pext = _bmi2("pext") if HAS_BMI2 else pext_loop
pdep = _bmi2("pdep") if HAS_BMI2 else pdep_loop
