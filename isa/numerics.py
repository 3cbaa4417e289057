"""Vectorised arithmetic helpers that the opcode semantics share.

These pin the numeric rules of ../shared/NUMERICS.md at the instruction level: canonical quiet NaNs
out of arithmetic, IEEE 754-2008 minNum/maxNum with -0 < +0, round-to-nearest-even narrowing, and
float -> integer conversion that truncates, saturates and maps NaN to 0. Every function takes and
returns NumPy arrays over lanes (any broadcastable shapes) and never loops over lanes.
"""
import numpy as np

CANONICAL_NAN_BITS = {
    np.dtype(np.float16): np.uint16(0x7E00),
    np.dtype(np.float32): np.uint32(0x7FC00000),
    np.dtype(np.float64): np.uint64(0x7FF8000000000000),
}
UINT_OF = {np.dtype(np.float16): np.uint16, np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}


def canonical_nan(dtype):
    dtype = np.dtype(dtype)
    return CANONICAL_NAN_BITS[dtype].view(dtype)


def canonicalize(values):
    """Replace every NaN by the canonical quiet NaN of its type (arithmetic does not keep payloads)."""
    # Hot path: one isnan pass and an any(); the rewrite runs only when a NaN is present.
    nan = np.isnan(values)
    if nan.any():
        values = np.where(nan, canonical_nan(values.dtype), values)
    return values


def _uniform_value(x):
    """The single value of a one-element (uniform) operand, else None."""
    return x.flat[0] if x.size == 1 else None


def _min_max(a, b, pick_a, fast, combine_signs):
    """minNum/maxNum: a NaN operand yields the other; two NaNs yield the canonical NaN.

    `pick_a(a, b)` is the strict comparison (a < b for min, a > b for max); it is false whenever
    an operand is NaN, so `where(pick_a, a, b)` already returns b for a NaN a. np.fmin/np.fmax are
    not used: their scalar and SIMD loops disagree on signalling NaNs. Left to fix: a NaN b
    (return a), a tie between -0 and +0 (combine the sign bits), and NaN, NaN (canonical). A
    uniform operand that is neither zero nor NaN rules all three out, which is the common case in
    CLIP and THRESHOLD: then one compare and one select are the whole cost.
    """
    for uniform in (b, a):
        u = _uniform_value(uniform)
        if u is not None and u != 0 and not np.isnan(u):
            # Fast path: np.minimum/np.maximum (SIMD) propagate NaN; only a NaN in the other
            # operand can make a NaN result here, and it must become the uniform value.
            result = fast(a, b)
            nan = np.isnan(result)
            if nan.any():
                result = np.where(nan, uniform, result)
            return result
    result = np.where(pick_a(a, b), a, b)
    ints = UINT_OF[result.dtype]
    b_nan = np.isnan(b)
    if b_nan.any():
        result = np.where(b_nan, a, result)
    tie = (a == b)
    if tie.any():
        signs = combine_signs(a.view(ints), b.view(ints)).view(result.dtype)
        result = np.where(tie, signs, result)
    return canonicalize(result)


def min_num(a, b):
    """IEEE minNum with min(-0, +0) = -0."""
    return _min_max(a, b, np.less, np.minimum, np.bitwise_or)


def max_num(a, b):
    """IEEE maxNum with max(-0, +0) = +0."""
    return _min_max(a, b, np.greater, np.maximum, np.bitwise_and)


def narrow_f16(values):
    """Round float32/float64 lanes to float16, to nearest even, keeping subnormals; NaN canonical."""
    # Canonicalise before narrowing: the wide canonical NaN narrows to 0x7E00, and isnan on
    # float32 is ten times faster than on float16.
    return canonicalize(values).astype(np.float16)


def f16_arith(op, a, b):
    """A float16 operation rounded once: float16 sums and products are exact in float64."""
    return narrow_f16(op(a.astype(np.float64), b.astype(np.float64)))


_INT_RANGE = {np.dtype(t): (np.iinfo(t).min, np.iinfo(t).max)
              for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64)}


def float_to_int(values, dtype):
    """Truncate toward zero, saturate to the range of `dtype`, NaN -> 0 (D3D ftoi/ftou)."""
    dtype = np.dtype(dtype)
    lo, hi = _INT_RANGE[dtype]
    x = np.trunc(values.astype(np.float64))
    x = np.where(np.isnan(x), 0.0, x)
    # hi + 1 is a power of two, exact in float64; anything at or past it saturates.
    too_big = x >= float(hi + 1)
    too_small = x < float(lo)
    safe = np.where(too_big | too_small, 0.0, x)
    if dtype == np.uint64:
        # float64 -> uint64 casts above 2**63 differ between platforms; go through int64.
        upper = safe >= 2.0 ** 63
        low_part = np.where(upper, safe - 2.0 ** 63, safe).astype(np.int64).astype(np.uint64)
        out = np.where(upper, low_part + np.uint64(1 << 63), low_part)
    else:
        out = safe.astype(np.int64 if dtype.kind == "i" else np.uint64).astype(dtype)
    out = np.where(too_big, dtype.type(hi), out)
    out = np.where(too_small, dtype.type(lo), out)
    return out.astype(dtype, copy=False)
