"""Bit tricks for the Martian Chess bitboards (a 4x8 board is one 32-bit mask, held in int64).

``popcount_nb``, ``lowest_nb`` (index of the lowest set bit) and ``highest_nb`` (index of
the highest) map to LLVM's ``ctpop`` / ``cttz`` / ``ctlz`` intrinsics, which become single
POPCNT / TZCNT / LZCNT instructions where the CPU has them and LLVM's own expansion where
it does not. If this llvmlite's IR builder lacks them, portable bit tricks are chosen at
import instead (same results, a few more instructions). ``nth_bit_nb`` (the k-th lowest set
bit) is one PDEP where numba compiles for a host CPU with BMI2 (``HAVE_PDEP``), else a short
loop; with BMI2 the move generator also indexes its slide tables by PEXT (moves.py). Masks
are never 0 when passed to ``lowest_nb`` / ``highest_nb``.

The choice is made once, at import; numba's cache keys compiled code by CPU name and
features, so a cache never serves one machine's choice to another.
"""
import platform

import numba
import numpy as np
from llvmlite import binding as llvm
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

HAVE_INTRINSICS = all(hasattr(ir.IRBuilder, f) for f in ("ctpop", "cttz", "ctlz"))


def _host_has_bmi2() -> bool:
    if platform.machine().lower() not in ("x86_64", "amd64") or numba.config.CPU_NAME not in (None, "host"):
        return False   # a portable build (NUMBA_CPU_NAME=generic) must not emit PDEP
    try:
        return bool(llvm.get_host_cpu_features().get("bmi2"))
    except Exception:   # pragma: no cover - a host whose features LLVM cannot read
        return False


HAVE_PDEP = _host_has_bmi2()


@intrinsic
def _ctpop(typingctx, x):
    def codegen(context, builder, sig, args):
        return builder.ctpop(args[0])
    return types.int64(types.int64), codegen


@intrinsic
def _cttz(typingctx, x):
    def codegen(context, builder, sig, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))   # 1: the input is never 0
    return types.int64(types.int64), codegen


@intrinsic
def _ctlz(typingctx, x):
    def codegen(context, builder, sig, args):
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 1))
    return types.int64(types.int64), codegen


@intrinsic
def _pdep(typingctx, src, mask):
    def codegen(context, builder, sig, args):
        i64 = ir.IntType(64)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i64, [i64, i64]),
                                            "llvm.x86.bmi.pdep.64")
        return builder.call(fn, args)
    return types.int64(types.int64, types.int64), codegen


@intrinsic
def _pext(typingctx, src, mask):
    def codegen(context, builder, sig, args):
        i64 = ir.IntType(64)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i64, [i64, i64]),
                                            "llvm.x86.bmi.pext.64")
        return builder.call(fn, args)
    return types.int64(types.int64, types.int64), codegen


@njit(cache=True, inline="always")
def pext_nb(x, mask):
    """The bits of x under mask, packed to the low end (PEXT; only used when HAVE_PDEP)."""
    return _pext(x, mask)


@njit(cache=True, inline="always")
def _nth_bit_pdep(m, k):
    return _cttz(_pdep(np.int64(1) << k, m))


@njit(cache=True, inline="always")
def _nth_bit_loop(m, k):
    for _ in range(k):
        m &= m - 1
    return lowest_nb(m)


@njit(cache=True, inline="always")
def _popcount_swar(x):
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    return (x * 0x01010101 & 0xFFFFFFFF) >> 24


_DEBRUIJN = np.array([0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8,
                      31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9], dtype=np.int64)


@njit(cache=True, inline="always")
def _lowest_debruijn(x):
    return _DEBRUIJN[(((x & -x) * 0x077CB531) & 0xFFFFFFFF) >> 27]


@njit(cache=True, inline="always")
def _highest_fold(x):
    # smear the top bit down, keep it alone, then find it as a lowest bit
    x |= x >> 1
    x |= x >> 2
    x |= x >> 4
    x |= x >> 8
    x |= x >> 16
    return _lowest_debruijn(x ^ (x >> 1))


if HAVE_INTRINSICS:
    @njit(cache=True, inline="always")
    def popcount_nb(x):
        return _ctpop(x)

    @njit(cache=True, inline="always")
    def lowest_nb(x):
        return _cttz(x)

    @njit(cache=True, inline="always")
    def highest_nb(x):
        return 63 - _ctlz(x)
else:   # pragma: no cover - every llvmlite numba supports has the three builders
    popcount_nb = _popcount_swar
    lowest_nb = _lowest_debruijn
    highest_nb = _highest_fold

# k-th lowest set bit of m (0 <= k < popcount(m))
nth_bit_nb = _nth_bit_pdep if (HAVE_PDEP and HAVE_INTRINSICS) else _nth_bit_loop
