"""Two-word cell masks for Skorm's fast paths (issue 13).

A board of up to 127 cells (``MAX_RADIUS`` 6) is a pair of uint64 words ``(w0, w1)``:
cell ``c`` is bit ``c & 63`` of word ``c >> 6``. ``popcount_nb`` is LLVM's ``ctpop``,
which (like ``cttz`` for the lowest cell) the code generator turns into the ``popcnt`` instruction when the host CPU has
it and into a portable bit-twiddling sequence when it does not (numba compiles for
the host, so the choice is made where the kernels are compiled).

All arithmetic stays in uint64: numba promotes mixed int64/uint64 to float.
"""
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_M63 = np.uint64(63)


@intrinsic
def _ctpop64(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(fn, args)
    return sig, codegen


@intrinsic
def _cttz64(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.cttz", [ir.IntType(64), ir.IntType(1)])
        return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 0)])
    return sig, codegen


@njit(cache=True, inline="always")
def lowest_cell_nb(w0, w1):
    """The lowest cell of a non-empty mask (trailing zeros: ``tzcnt``/``bsf``)."""
    if w0 != _ZERO:
        return np.int64(_cttz64(w0))
    return 64 + np.int64(_cttz64(w1))


@njit(cache=True, inline="always")
def popcount_nb(w):
    return np.int64(_ctpop64(w))


@njit(cache=True, inline="always")
def pop2_nb(w0, w1):
    return np.int64(_ctpop64(w0)) + np.int64(_ctpop64(w1))


@njit(cache=True, inline="always")
def has_nb(w0, w1, c):
    """Is cell ``c`` (>= 0) in the mask?"""
    w = w0 if c < 64 else w1
    return ((w >> (np.uint64(c) & _M63)) & _ONE) != _ZERO


@njit(cache=True, inline="always")
def cellbit_nb(c):
    """The single-cell mask of ``c`` as (w0, w1)."""
    b = _ONE << (np.uint64(c) & _M63)
    if c < 64:
        return b, _ZERO
    return _ZERO, b
