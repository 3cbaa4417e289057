"""Vectorised arithmetic helpers that the opcode semantics share.

These pin the numeric rules of docs/NUMERICS.md at the instruction level: canonical quiet NaNs
out of arithmetic, IEEE 754-2008 minNum/maxNum with -0 < +0, round-to-nearest-even narrowing, and
float -> integer conversion that truncates, saturates and maps NaN to 0. Every function takes and
returns NumPy arrays over lanes (any broadcastable shapes) and never loops over lanes.

The second half holds the rules of the transcendental (exp2, log2, sin/cos in revolutions, rcp,
rsq, sqrt), rounding, fused multiply-add, classification and conversion instructions: each is
built from IEEE basic operations only, so it gives the same bits on every machine, and the golden
model calls the same functions. docs/ISA.md prints every rule; docs/ISA_PRECISION.md the errors.

The fused multiply-adds have a compiled fast path (isa/fma_compiled.pyx, built where a C compiler is):
the same bits as their NumPy references here, which run when it was not built or DMLEMU_NUMERICS=reference.
"""
import decimal as _decimal
import math as _math
import os as _os
import warnings as _warnings

import numpy as np

from dmlemu.data_types import DATA_TYPE_TABLE

__all__ = [
    "CANONICAL_NAN_BITS", "CLASS_BITS", "canonical_nan", "canonicalize", "min_num", "max_num", "narrow_f16",
    "f16_arith", "float_to_int", "exp2", "log2", "sin_revolutions", "cos_revolutions", "reciprocal",
    "square_root", "reciprocal_sqrt", "round_integral", "fract", "round_sum_once", "fused_multiply_add",
    "float_class", "class_test", "ldexp_exact", "int_to_float", "narrow_f64_to_f16", "popcount32", "divide",
    "fused_multiply_add_f64", "fused_multiply_add_reference", "fused_multiply_add_f64_reference", "compiled_fma",
    "bit_field_extract", "select", "packed_fma_f16",
]

# The canonical quiet NaN of each float type (the data type table's), as its unsigned bits.
_FLOAT_ROWS = tuple(t for t in DATA_TYPE_TABLE if t.is_float)
CANONICAL_NAN_BITS = {t.dtype: t.uint_dtype.type(t.canonical_nan_bits) for t in _FLOAT_ROWS}
UINT_OF = {t.dtype: t.uint_dtype.type for t in _FLOAT_ROWS}


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


def select(a, b, mask):
    """mask ? b : a per lane (v_cndmask), the bits of np.where(mask, b, a) for unsigned integer a, b.

    Hot path: computed as the blend a ^ ((a ^ b) * mask) (mask as 0 or 1 in a's type) rather than
    np.where, whose per-element branch costs about 4 ns a lane on unpredictable masks (a comparison's
    result): 2^17 lanes took 500 us by np.where and 60 us by the blend; with a and b uniform (the
    0 / 1 of a comparison's result) it is one widening and two in-place passes. The product is a ^ b
    or 0 exactly (no overflow with a factor of 0 or 1), so the result is b or a bit for bit.
    """
    a, b, mask = np.asarray(a), np.asarray(b), np.asarray(mask)
    dtype = np.result_type(a, b)
    shape = np.broadcast_shapes(mask.shape, a.shape, b.shape)
    out = np.broadcast_to(mask, shape).astype(dtype)     # a fresh 0/1 array of the result's shape
    difference = a ^ b
    if difference.size != 1 or difference.flat[0] != 1:  # (uniform a ^ b == 1: out is already the product)
        out *= difference
    if a.size != 1 or a.flat[0] != 0:                    # (uniform a == 0: nothing to flip)
        out ^= a
    return out


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
    CLIP and THRESHOLD: then one compare and one select are the whole cost. A uniform zero (RELU's
    max(x, 0)) leaves only the ties with the other operand's zeros, fixed where there are any.
    """
    for uniform in (b, a):
        u = _uniform_value(uniform)
        if u is not None and not np.isnan(u):
            # Fast path: np.minimum/np.maximum (SIMD) propagate NaN; only a NaN in the other
            # operand can make a NaN result here, and it must become the uniform value. (Not
            # np.where on the comparison: its per-element branch costs about 4 ns a lane on
            # unpredictable signs, 10x the SIMD loop.)
            result = fast(a, b)
            nan = np.isnan(result)
            if nan.any():
                result = np.where(nan, uniform, result)
            if u == 0:
                # -0 against +0: NumPy may return either zero; the rule combines the sign bits.
                tie = (a == b)
                if tie.any():
                    ints = UINT_OF[result.dtype]
                    signs = combine_signs(a.view(ints), b.view(ints)).view(result.dtype)
                    result = np.where(tie, signs, result)
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


# =================================================================================================
# Instruction-level rules for the transcendental, rounding, fused and conversion instructions.
#
# Every rule below gives the same bits on every machine: it is built only from IEEE 754 basic
# operations in float64 (+ - * / and sqrt, correctly rounded on every platform NumPy supports),
# exact operations (floor, rint, comparisons, integer bit manipulation) and one final
# round-to-nearest-even conversion to the destination type. No libm function (np.exp, np.log,
# np.sin, np.exp2, ...) is called: their results differ between platforms and NumPy builds.
# Polynomial coefficients are computed once, at import, with the decimal module (software
# arithmetic at 40 digits), then rounded to float64: the same constants everywhere.
#
# The golden model (dmlemu.golden) calls these same functions for the operators built on the
# instructions: it never runs instructions, but it shares the instruction-level rules.
# Measured errors: docs/ISA_PRECISION.md (bench/isa_precision.py).
# =================================================================================================


def _decimal_constants():
    """ln 2 and 2*pi to 40 digits, from series in decimal arithmetic (no float anywhere)."""
    ctx = _decimal.Context(prec=50)
    one = _decimal.Decimal(1)
    # ln 2 = 2 atanh(1/3) = 2 * sum 1 / ((2k+1) 3^(2k+1))
    ln2, term, k = _decimal.Decimal(0), ctx.divide(one, 3), 0
    while term > _decimal.Decimal("1e-48"):
        ln2 = ctx.add(ln2, ctx.divide(term, 2 * k + 1))
        term, k = ctx.divide(term, 9), k + 1
    ln2 = ctx.multiply(ln2, 2)
    # pi by Machin: 16 atan(1/5) - 4 atan(1/239)
    def atan_inv(n):
        total, power, k, sign = _decimal.Decimal(0), ctx.divide(one, n), 0, 1
        while power > _decimal.Decimal("1e-48"):
            total = ctx.add(total, ctx.multiply(sign, ctx.divide(power, 2 * k + 1)))
            power, k, sign = ctx.divide(power, n * n), k + 1, -sign
        return total
    pi = ctx.subtract(ctx.multiply(16, atan_inv(5)), ctx.multiply(4, atan_inv(239)))
    return ctx, ln2, ctx.multiply(2, pi)


def _series_coefficients():
    ctx, ln2, two_pi = _decimal_constants()
    fact = [_decimal.Decimal(1)]
    for k in range(1, 24):
        fact.append(fact[-1] * k)
    exp2 = tuple(float(ctx.divide(ctx.power(ln2, k), fact[k])) for k in range(16))
    sin = tuple(float(ctx.divide(ctx.power(two_pi, 2 * j + 1), fact[2 * j + 1]) * (-1) ** j) for j in range(10))
    cos = tuple(float(ctx.divide(ctx.power(two_pi, 2 * j), fact[2 * j]) * (-1) ** j) for j in range(11))
    return exp2, sin, cos, float(ctx.divide(1, ln2))


# 2^f = sum (ln2)^k / k! f^k; sin(2 pi f) = sum (-1)^j (2 pi)^(2j+1) / (2j+1)! f^(2j+1); cos likewise.
EXP2_COEFFICIENTS, SIN_COEFFICIENTS, COS_COEFFICIENTS, INV_LN2 = _series_coefficients()
# log(m) = 2 atanh(s), s = (m - 1) / (m + 1): coefficients 2 / (2k+1), exact-ish in float64 by one division
LOG_COEFFICIENTS = tuple(2.0 / (2 * k + 1) for k in range(12))
_SQRT2_BITS = 0x3FF6A09E667F3BCD   # float64 sqrt(2) rounded; the split point of log2's mantissa


def _horner(coefficients, x):
    # In place: one result array instead of two temporaries per step (the same operations, in the
    # same order, so the same bits).
    result = x * coefficients[-1]
    result += coefficients[-2]
    for c in coefficients[-3::-1]:
        result *= x
        result += c
    return result


def _power_of_two(n):
    """2.0 ** n as float64 for integer-valued float64 n in the normal range, built from bits."""
    return ((n.astype(np.int64) + 1023) << 52).view(np.float64)


def _round_to(value, out_dtype):
    """float64 -> out_dtype, one rounding to nearest even. float16 goes through narrow_f64_to_f16,
    which never rounds twice (NumPy's own float64 -> float16 cast is not relied on)."""
    if np.dtype(out_dtype) == np.float16:
        return narrow_f64_to_f16(value)
    return value.astype(out_dtype)


def _finish(value, out_dtype, nan_mask=None):
    """Round a float64 result once to the destination type; NaN lanes get the canonical NaN."""
    out = _round_to(value, out_dtype)
    if nan_mask is not None and nan_mask.any():
        out = np.where(nan_mask, canonical_nan(out_dtype), out)
    return out


def _as_f64(x):
    return np.asarray(x).astype(np.float64)


def exp2(x, out_dtype):
    """2^x rounded once to out_dtype (float16 or float32), x of out_dtype.

    Rule: n = rint(x), f = x - n (exact, |f| <= 1/2); 2^f by the Taylor series of e^(f ln 2) to
    degree 15 in Horner form (truncation < 1e-17 relative); times 2^n built from bits; one
    round-to-nearest-even to the destination (overflow -> +inf, subnormals produced, underflow to
    +0). exp2(-inf) = +0, exp2(+inf) = +inf, exp2(+-0) = 1, NaN -> canonical NaN.
    """
    with np.errstate(all="ignore"):
        x = _as_f64(x)
        nan = np.isnan(x)
        # Past +-200 every result is inf or 0 in both destination types: clamp so 2^n stays normal.
        clamped = np.clip(np.where(nan, 0.0, x), -200.0, 200.0)
        n = np.rint(clamped)
        f = clamped - n
        value = _horner(EXP2_COEFFICIENTS, f) * _power_of_two(n)
        return _finish(value, out_dtype, nan)


def log2(x, out_dtype):
    """log2(x) rounded once to out_dtype, x of out_dtype.

    Rule: x = m * 2^e with m in [sqrt(2)/2, sqrt(2)) (from the float64 bits; float16/32 subnormals
    are normal in float64); s = (m - 1) / (m + 1); ln m = 2 atanh(s) = sum 2 s^(2k+1) / (2k+1) to
    k = 11 (|s| <= 0.172, truncation < 1e-18); log2 x = e + ln m / ln 2, rounded once. Specials:
    log2(+-0) = -inf, log2(x < 0) = NaN, log2(+inf) = +inf, log2(1) = +0, NaN -> canonical NaN.
    """
    with np.errstate(all="ignore"):
        x = _as_f64(x)
        bits = x.view(np.uint64)
        # Exponent relative to the mantissa's split at sqrt(2): m's bits are x's with the exponent
        # field replaced by 1023 (m in [1, 2)) or 1022 (m in [0.5, 1)).
        mant = bits & np.uint64((1 << 52) - 1)
        high = mant >= np.uint64(_SQRT2_BITS & ((1 << 52) - 1))
        e = (bits >> np.uint64(52)).astype(np.int64) & 0x7FF
        e = e - 1023 + high.astype(np.int64)
        m = (mant | np.where(high, np.uint64(1022 << 52), np.uint64(1023 << 52))).view(np.float64)
        s = (m - 1.0) / (m + 1.0)
        s2 = s * s
        ln_m = s * _horner(LOG_COEFFICIENTS, s2)
        value = e.astype(np.float64) + ln_m * INV_LN2
        value = np.where(x == 0.0, -np.inf, value)
        value = np.where(x == np.inf, np.inf, value)
        nan = np.isnan(x) | (x < 0.0)
        return _finish(value, out_dtype, nan)


def _sin_cos_reduced(x):
    """(quadrant k mod 4, f) with x = k/4 + f exactly, |f| <= 1/8, for finite float64 x from float16/32."""
    k = np.rint(x * 4.0)           # exact: x * 4 and k / 4 are exact, x - k/4 is exact (see below)
    f = x - k * 0.25               # x has <= 24 significant bits, so x - k/4 fits in 53
    # k mod 4 for the integer k >= 0 (callers pass |x|): k - 4 floor(k / 4), every step exact (a
    # power-of-two scaling, an integer floor); a few times faster than np.mod's fmod, same value.
    quadrant = (k - 4.0 * np.floor(k * 0.25)).astype(np.int64)
    return quadrant, f


def _sin_cos_of_magnitude(x, cosine):
    """(sin or cos of 2 pi |x| in float64, zeros +0; the non-finite lanes) for float64 x."""
    nan = ~np.isfinite(x)
    quadrant, f = _sin_cos_reduced(np.where(nan, 0.0, np.abs(x)))
    f2 = f * f
    s = f * _horner(SIN_COEFFICIENTS, f2)
    c = _horner(COS_COEFFICIENTS, f2)
    # by k mod 4 (one gather): sin 2pi(k/4 + f) is s, c, -s, -c for k = 0..3; cos is c, -s, -c, s
    value = np.choose(quadrant, [c, -s, -c, s] if cosine else [s, c, -s, -c])
    return np.where(value == 0.0, 0.0, value), nan                 # zeros are +0 before any sign


def sin_revolutions(x, out_dtype):
    """sin(2 pi x) rounded once to out_dtype: the angle is in revolutions (AMD V_SIN_F32).

    Rule: reduce exactly, x = k/4 + f (|f| <= 1/8, exact for every finite float16/32 x, so there is
    no domain limit); sin(2 pi f) and cos(2 pi f) by their Taylor series (degree 19 and 20, Horner
    in f^2, truncation < 1e-17); pick by k mod 4; round once. Odd: sin(-x) = -sin(x) bit for bit;
    an exact zero result (x a multiple of 1/2) has the sign of x. +-inf and NaN -> canonical NaN.
    """
    with np.errstate(all="ignore"):
        x = _as_f64(x)
        value, nan = _sin_cos_of_magnitude(x, cosine=False)
        value = np.where(np.signbit(x), -value, value)
        return _finish(value, out_dtype, nan)


def cos_revolutions(x, out_dtype):
    """cos(2 pi x) rounded once to out_dtype, the angle in revolutions (AMD V_COS_F32).

    Rule: as sin_revolutions, on |x| (cos is even: cos(-x) = cos(x) bit for bit); an exact zero
    result (x an odd multiple of 1/4) is +0. +-inf and NaN -> canonical NaN.
    """
    with np.errstate(all="ignore"):
        x = _as_f64(x)
        value, nan = _sin_cos_of_magnitude(x, cosine=True)
        return _finish(value, out_dtype, nan)


def reciprocal(x, out_dtype):
    """1 / x, correctly rounded to out_dtype (float16/32/64).

    float16/32: the float64 quotient rounded again; float64 has more than 2p + 2 bits for both, so
    this double rounding is innocuous (the result is the correctly rounded 1/x). rcp(+-0) = +-inf,
    rcp(+-inf) = +-0, NaN -> canonical NaN. Subnormal inputs and outputs are kept.
    """
    with np.errstate(all="ignore"):
        if np.dtype(out_dtype) == np.float64:
            return canonicalize(np.divide(1.0, np.asarray(x, dtype=np.float64)))
        x = _as_f64(x)
        return _finish(1.0 / x, out_dtype, np.isnan(x))


def square_root(x, out_dtype):
    """sqrt(x), correctly rounded to out_dtype (IEEE squareRoot; double rounding through float64
    is innocuous for float16/32). sqrt(-0) = -0, sqrt(x < 0) = NaN, NaN -> canonical NaN."""
    with np.errstate(all="ignore"):
        x = _as_f64(x)
        return _finish(np.sqrt(x), out_dtype, np.isnan(x) | (x < 0.0))


def reciprocal_sqrt(x, out_dtype):
    """1 / sqrt(x). float16/32: float64 sqrt, float64 division, then one rounding to out_dtype.
    float64: x = m 2^(2k) with m in [0.5, 2) (frexp, exact); y0 = 1 / sqrt(m); one Newton step
    y1 = y0 + y0 (r / 2) with the residual r = 1 - m y0^2 computed exactly but for one rounding
    (Dekker's TwoProduct twice); the result y1 2^-k. Within 0.5 ulp plus about 2^-40 ulp.
    rsq(+0) = +inf, rsq(-0) = -inf, rsq(+inf) = +0, rsq(x < 0) = NaN, NaN -> canonical NaN."""
    with np.errstate(all="ignore"):
        x = _as_f64(x)
        if np.dtype(out_dtype) == np.float64:
            m, e = np.frexp(np.where(np.isfinite(x) & (x > 0.0), x, 1.0))
            e = e.astype(np.int64)
            odd = (e & 1) == 1
            m = np.where(odd, m * 2.0, m)
            k = (e - odd) // 2
            y0 = 1.0 / np.sqrt(m)
            square_high, square_low = _two_product(y0, y0)
            p1, p2 = _two_product(m, square_high)
            residual = ((1.0 - p1) - p2) - m * square_low
            value = _scale(y0 + y0 * (residual * 0.5), -k)
        else:
            value = 1.0 / np.sqrt(x)
        value = np.where(x == np.inf, 0.0, value)
        value = np.where(x == 0.0, np.where(np.signbit(x), -np.inf, np.inf), value)
        return _finish(value, out_dtype, np.isnan(x) | (x < 0.0))


def divide(a, b):
    """a / b correctly rounded in the operands' type (IEEE division): float16/32 through the
    float64 quotient (its rounding is innocuous: 53 >= 2p + 2), float64 directly. x / +-0 = +-inf
    (sign of a xor b), 0 / 0 and inf / inf = NaN; NaN canonical; subnormals kept."""
    with np.errstate(all="ignore"):
        dtype = np.result_type(a, b)
        if dtype == np.float64 or dtype == np.float32:
            # Hot path for float32 (the rule above, computed without widening): NumPy's float32
            # division is the IEEE quotient correctly rounded to float32 (divps: round to nearest
            # even, subnormals kept, as NumPy never sets FTZ/DAZ). The float64 route rounds the
            # quotient correctly too (53 >= 2 * 24 + 2 makes its double rounding innocuous), so
            # both give the same bits, NaN payloads aside, which canonicalize makes equal; about 6x
            # faster. tests/functional/test_executor.py compares the routes on special and random bit patterns.
            return canonicalize(np.divide(a, b))
        wide_a, wide_b = _as_f64(a), _as_f64(b)
        quotient = wide_a / wide_b
        return _finish(quotient, dtype, np.isnan(quotient))


def bit_field_extract(a, offset, width, signed):
    """AMD V_BFE_U32 / V_BFE_I32: bits [offset, offset + width) of a (offset and width taken mod 32),
    zero- or sign-extended; width 0 gives 0."""
    a = np.asarray(a).astype(np.uint32).astype(np.int64)
    o = np.asarray(offset).astype(np.int64) & 31
    w = np.asarray(width).astype(np.int64) & 31
    field = (a >> o) & ((np.int64(1) << w) - 1)
    if signed:
        sign = (field >> np.maximum(w - 1, 0)) & 1
        field = np.where((w > 0) & (sign == 1), field - (np.int64(1) << w), field)
        return field.astype(np.int32)
    return field.astype(np.uint32)


# ---- rounding to integral values ------------------------------------------------------------------
def round_integral(x, how):
    """floor / ceil / trunc / rndne (ties to even) of x in its own type: exact, sign of zero kept
    (floor(-0.5) = -1, ceil(-0.5) = -0, trunc(-0.5) = -0, rndne(-0.5) = -0); +-inf kept; NaN canonical."""
    fn = {"floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "rndne": np.rint}[how]
    x = np.asarray(x)
    return canonicalize(fn(x).astype(x.dtype, copy=False))


_BELOW_ONE = {np.dtype(np.float16): np.uint16(0x3BFF), np.dtype(np.float32): np.uint32(0x3F7FFFFF),
              np.dtype(np.float64): np.uint64(0x3FEFFFFFFFFFFFFF)}


def fract(x):
    """x - floor(x), clamped to the largest value below 1 (a tiny negative x would round to 1.0),
    as AMD V_FRACT and OpenCL fract: fract(-0) = -0, fract(+-inf) = NaN, NaN canonical."""
    with np.errstate(all="ignore"):
        x = np.asarray(x)
        wide = _as_f64(x)
        value = wide - np.floor(wide)          # exact in float64 for float16/32; rounds for float64
        out = value.astype(x.dtype)
        below_one = _BELOW_ONE[x.dtype].view(x.dtype)
        out = np.where(out >= 1.0, below_one, out)
        out = np.where(wide == 0.0, x, out)    # keeps -0
        return canonicalize(out.astype(x.dtype, copy=False))


# ---- one rounding of an exact sum: the round-to-odd trick ------------------------------------------
def _two_sum(a, b):
    """s = fl(a + b) and the exact error e = (a + b) - s (Knuth's TwoSum, any magnitudes)."""
    s = a + b
    bb = s - a
    if not isinstance(bb, np.ndarray):        # NumPy scalars (0-d operands)
        return s, (a - (s - bb)) + (b - bb)
    # e = (a - (s - bb)) + (b - bb), the same operations in the same order, in place (three fewer
    # lane arrays allocated: this runs three times per element of EXP's kernel, in float64).
    e = s - bb
    np.subtract(a, e, out=e)
    np.subtract(b, bb, out=bb)
    e += bb
    return s, e


def _round_to_odd(s, e):
    """The float64 nearest a + b = s + e rounded to odd: if the sum was inexact and s's last bit is
    even, step s one ulp toward e. Rounding that once more to a format of p <= 51 bits gives the
    correctly rounded a + b (Boldo and Melquiond, 'Emulation of FMA and correctly rounded sums:
    proved algorithms using rounding to odd', IEEE TC 2008)."""
    bits = s.view(np.int64)
    inexact = (e != 0.0) & np.isfinite(s) & ((bits & 1) == 0)
    toward_bigger = (e > 0.0) == (s > 0.0)      # away from zero when e has s's sign
    # Hot path, branch-free (np.where on these unpredictable masks costs ~4 ns a lane): the step is
    # +1 or -1 (2 * toward_bigger - 1), times 0 or 1 (inexact), added to the bits.
    step = toward_bigger.astype(np.int64)
    step *= 2
    step -= 1
    step *= inexact
    step += bits
    return step.view(np.float64)


def round_sum_once(a, b, out_dtype):
    """a + b for float64 a, b, rounded once to float16 or float32 (no double rounding)."""
    with np.errstate(all="ignore"):
        s, e = _two_sum(a, b)
        return _round_to(_round_to_odd(s, e), out_dtype)


def fused_multiply_add(a, b, c):
    """a * b + c rounded once (IEEE fusedMultiplyAdd) for float16 or float32 lanes.

    The product is exact in float64 (2 x 24 bits <= 53); the sum is rounded to odd in float64 and
    then to nearest even in the destination. Special cases follow IEEE: inf * 0 is NaN, inf - inf
    is NaN, the sign of an exact zero sum is + unless both addends are -0. NaN canonical.
    Computed by the compiled kernel where it was built (compiled_fma), else by
    fused_multiply_add_reference: the same bits.
    """
    kernels = compiled_fma()
    if kernels is not None:
        dtype = np.result_type(a, b, c)
        if dtype == np.float16 or dtype == np.float32:
            operands = [np.asarray(v) for v in (a, b, c)]
            # Only operands that the destination type holds exactly (the reference widens each one to
            # float64 as it is: a float64 or integer operand must keep its own value).
            if all(v.dtype.kind == "f" and v.dtype.itemsize <= dtype.itemsize for v in operands):
                if dtype == np.float16:
                    return _run_compiled(kernels.fma_f16, dtype, [v.astype(dtype, copy=False).view(np.uint16)
                                                                  for v in operands])
                return _run_compiled(kernels.fma_f32, dtype, [v.astype(dtype, copy=False) for v in operands])
    return fused_multiply_add_reference(a, b, c)


def fused_multiply_add_reference(a, b, c):
    """fused_multiply_add in NumPy, the rule as written there (15 to 40 ns a lane at 2^20 lanes: bench/bench_fma.py)."""
    with np.errstate(all="ignore"):
        dtype = np.result_type(a, b, c)
        p = _as_f64(a) * _as_f64(b)
        cc = _as_f64(c)
        out = round_sum_once(p, cc, dtype)
        return canonicalize(out)


def packed_fma_f16(a, b, c):
    """Two FLOAT16 fused multiply-adds per lane (v_pk_fma_f16): a, b, c are uint32 lanes each holding two
    float16 values, bits [15:0] the low half and [31:16] the high half; the result's low half is
    fma(a.lo, b.lo, c.lo) and its high half fma(a.hi, b.hi, c.hi), each rounded once
    (fused_multiply_add, NaN canonical), returned as uint32 lanes.

    Hot path: each operand is viewed as (..., 2) float16 (the lanes' bits as little-endian halves, as
    wave.py reads a register's low half), so one fused_multiply_add call computes both halves of every
    lane; the (..., 2) result is viewed back as one uint32 per lane. Uniform operands ((1, 1) or (W, 1):
    constants, scalar registers) stay that small and broadcast inside fused_multiply_add."""
    halves = [np.ascontiguousarray(np.asarray(x), dtype=np.uint32)[..., None].view(np.uint16).view(np.float16)
              for x in (a, b, c)]
    out = np.ascontiguousarray(fused_multiply_add(*halves))
    return out.view(np.uint16).view(np.uint32)[..., 0]


# ---- the compiled fused multiply-add ---------------------------------------------------------------
_compiled_fma_module = None      # the loaded module, False when it was not built or is stale; None: not looked up


def compiled_fma():
    """The compiled fused multiply-add kernels (the module dmlemu.isa.fma_compiled), or None where they
    were not built, are older than isa/fma_compiled.pyx (edited, not rebuilt: a RuntimeWarning says so)
    or DMLEMU_NUMERICS=reference (read at every call, so a test or a session may switch)."""
    global _compiled_fma_module
    if _os.environ.get("DMLEMU_NUMERICS", "").lower() == "reference":
        return None
    if _compiled_fma_module is None:
        _compiled_fma_module = _load_compiled_fma()
    return _compiled_fma_module or None


def _load_compiled_fma():
    try:
        from dmlemu.isa import fma_compiled
    except ImportError:
        return False
    source = _os.path.join(_os.path.dirname(fma_compiled.__file__), "fma_compiled.pyx")
    if _os.path.exists(source) and _os.path.getmtime(source) > _os.path.getmtime(fma_compiled.__file__):
        _warnings.warn(f"{source} changed after its compiled module was built; the fused multiply-adds run "
                       f"their NumPy reference (same results, slower) until it is rebuilt (make, or pip install -e .)",
                       RuntimeWarning, stacklevel=3)
        return False
    return fma_compiled


def _run_compiled(kernel, dtype, operands):
    """kernel over the operands broadcast to one shape: 3-D strided views, blocks of rows of lanes (stride 0
    where broadcast; more than three dimensions are folded into the first, copying where a view cannot, fewer
    get leading blocks of one), one output array of the destination's bits, returned as dtype in the broadcast
    shape."""
    shape = operands[0].shape
    if len(shape) == 2 and operands[1].shape == shape and operands[2].shape == shape:
        # Hot path: a register's (waves, lanes) operands, one shape: the kernel takes them as they are.
        out = np.empty((1,) + shape, dtype=UINT_OF[dtype])
        kernel(operands[0][None], operands[1][None], operands[2][None], out, CANONICAL_NAN_BITS[dtype])
        return out.view(dtype).reshape(shape)
    shape = np.broadcast_shapes(*(v.shape for v in operands))
    grid = (_math.prod(shape[:-2]),) + shape[-2:] if len(shape) >= 2 else (1, 1, _math.prod(shape))
    views = [np.broadcast_to(v, shape).reshape(grid) for v in operands]
    out = np.empty(grid, dtype=UINT_OF[dtype])
    kernel(*views, out, CANONICAL_NAN_BITS[dtype])
    out = out.view(dtype).reshape(shape)
    return out


_SPLITTER = 134217729.0   # 2^27 + 1: Veltkamp's constant for float64


def _split(x):
    gamma = _SPLITTER * x
    high = gamma - (gamma - x)
    return high, x - high


def _two_product(a, b):
    """p = fl(a * b) and the exact error (Dekker): exact while nothing overflows or underflows."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _scale(x, exponent):
    """x * 2^exponent for integer arrays |exponent| <= 2200, as three exact power-of-two factors
    (exact whenever the start and the result are normal or the result is larger)."""
    third = exponent // 3
    rest = exponent - 2 * third
    for e in (third, third, rest):
        x = x * _power_of_two(e.astype(np.float64))
    return x


def _fma_f64_exact_lanes(a, b, c):
    """The correctly rounded a * b + c one lane at a time, with Python integers (Fraction): the rare
    lanes whose result is subnormal or overflows, where the scaled algorithm cannot round once."""
    from fractions import Fraction
    out = []
    for x, y, z in zip(a.tolist(), b.tolist(), c.tolist()):
        exact = Fraction(x) * Fraction(y) + Fraction(z)
        try:
            out.append(float(exact))         # int / int true division: correctly rounded
        except OverflowError:
            out.append(float("inf") if exact > 0 else float("-inf"))
    return np.array(out, dtype=np.float64)


def fused_multiply_add_f64(a, b, c):
    """a * b + c rounded once for float64 lanes (IEEE fusedMultiplyAdd).

    Computed by the compiled kernel where it was built (compiled_fma: C's fma(), correctly rounded),
    else by fused_multiply_add_f64_reference, the same bits, by the rule that follows.

    Finite non-zero operands: a = ma 2^ea, b = mb 2^eb (frexp, exact), E = ea + eb; c is scaled by
    2^-E (exactly, in three power-of-two steps; a c below 2^(E-200) is replaced by +-2^(E-200) of
    its sign, which cannot change the rounding, and a c above 2^(E+55) is the result); then
    Boldo and Melquiond's emulated FMA in the scaled range: (uh, ul) = TwoProduct(ma, mb),
    (th, tl) = TwoSum(c', uh), v = RoundToOdd(tl + ul), z' = RN(th + v), and z = z' 2^E. Lanes
    whose z would be subnormal or overflow are computed exactly with Python integers. Zeros and
    specials follow IEEE (inf * 0 = NaN, a finite product plus +-inf is +-inf, an exact zero sum
    is +0 unless both addends are -0, a non-zero result that rounds to zero keeps its sign); NaN
    canonical.
    """
    kernels = compiled_fma()
    if kernels is not None:
        return _run_compiled(kernels.fma_f64, np.dtype(np.float64),
                             [np.asarray(v, dtype=np.float64) for v in (a, b, c)])
    return fused_multiply_add_f64_reference(a, b, c)


def fused_multiply_add_f64_reference(a, b, c):
    """fused_multiply_add_f64 in NumPy, the rule written there (about 130 ns a lane: bench/bench_fma.py)."""
    with np.errstate(all="ignore"):
        a, b, c = (np.asarray(v, dtype=np.float64) for v in (a, b, c))
        a, b, c = np.broadcast_arrays(a, b, c)
        naive = a * b + c
        result = np.where(np.isinf(c) & np.isfinite(a) & np.isfinite(b), c, naive)
        result = np.where((c == 0.0) & (a != 0.0) & (b != 0.0) & np.isfinite(a) & np.isfinite(b), a * b, result)
        general = np.isfinite(a) & np.isfinite(b) & np.isfinite(c) & (a != 0.0) & (b != 0.0) & (c != 0.0)
        if general.any():
            ga, gb, gc = a[general], b[general], c[general]
            ma, ea = np.frexp(ga)
            mb, eb = np.frexp(gb)
            _, ec = np.frexp(gc)
            e = ea.astype(np.int64) + eb.astype(np.int64)
            ec = ec.astype(np.int64)
            c_dominates = e <= ec - 55
            tiny = ec < e - 200
            c_scaled = np.where(tiny, np.copysign(2.0 ** -200, gc),
                                _scale(gc, -np.clip(e, ec - 300, ec + 300)))
            uh, ul = _two_product(ma, mb)
            th, tl = _two_sum(c_scaled, uh)
            s, err = _two_sum(tl, ul)
            z = th + _round_to_odd(s, err)
            _, ez = np.frexp(z)
            final_exponent = ez.astype(np.int64) + e
            exact_lanes = (z != 0.0) & ~c_dominates & ((final_exponent < -1021) | (final_exponent > 1024))
            value = np.where(z == 0.0, 0.0, _scale(z, np.where(exact_lanes, 0, e)))
            value = np.where(c_dominates, gc, value)
            if exact_lanes.any():
                value[exact_lanes] = _fma_f64_exact_lanes(ga[exact_lanes], gb[exact_lanes], gc[exact_lanes])
            result = result.copy()
            result[general] = value
        return canonicalize(result)


# ---- classification ------------------------------------------------------------------------------
# AMD's V_CMP_CLASS mask bits: 0 signalling NaN, 1 quiet NaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0,
# 6 +0, 7 +denormal, 8 +normal, 9 +inf.
CLASS_BITS = ("snan", "qnan", "-inf", "-normal", "-denormal", "-0", "+0", "+denormal", "+normal", "+inf")
_LAYOUT = {np.dtype(np.float16): (np.uint16, 10, 5), np.dtype(np.float32): (np.uint32, 23, 8),
           np.dtype(np.float64): (np.uint64, 52, 11)}


def _class_of(negative, exp_top, exp_zero, mant_zero, quiet):
    """The class index (CLASS_BITS) of one value from its sign, exponent and mantissa tests."""
    if exp_top:
        return 9 if mant_zero and not negative else 2 if mant_zero else 1 if quiet else 0
    if exp_zero:
        return (5 if negative else 6) if mant_zero else (4 if negative else 7)
    return 3 if negative else 8


# float_class's table, indexed by sign << 4 | exponent all ones << 3 | exponent zero << 2 |
# mantissa zero << 1 | quiet bit.
_CLASS_TABLE = np.array([_class_of(*((k >> b) & 1 for b in (4, 3, 2, 1, 0))) for k in range(32)], dtype=np.int64)


def float_class(x):
    """The index (0..9) of each lane's class in CLASS_BITS."""
    # Hot path: five bit tests form an index into _CLASS_TABLE, one gather, instead of selects
    # over every class (about 4x faster; the table is the same rules, _class_of).
    x = np.asarray(x)
    uint, mant_bits, exp_bits = _LAYOUT[x.dtype]
    bits = x.view(uint)
    exp_mask = uint(((1 << exp_bits) - 1) << mant_bits)
    exp = bits & exp_mask
    key = (exp == exp_mask).astype(np.uint8) << np.uint8(3)
    key |= (exp == 0).astype(np.uint8) << np.uint8(2)
    key |= ((bits & uint((1 << mant_bits) - 1)) == 0).astype(np.uint8) << np.uint8(1)
    key |= ((bits >> uint(mant_bits - 1)) & uint(1)).astype(np.uint8)
    key |= np.signbit(x).astype(np.uint8) << np.uint8(4)
    return _CLASS_TABLE[key]


def class_test(x, mask):
    """AMD V_CMP_CLASS: true where bit class(x) of mask is set."""
    return ((np.asarray(mask).astype(np.uint32) >> float_class(x).astype(np.uint32)) & np.uint32(1)) != 0


def ldexp_exact(x, n):
    """x * 2^n rounded once (float32 x, int32 n): exact in float64 after clamping n to +-300."""
    with np.errstate(all="ignore"):
        wide = _as_f64(x)
        k = np.clip(np.asarray(n).astype(np.int64), -300, 300)
        # 2^k for |k| <= 300 in two normal factors keeps the product exact and in range
        half = k // 2
        value = wide * _power_of_two(half.astype(np.float64)) * _power_of_two((k - half).astype(np.float64))
        return _finish(value, np.asarray(x).dtype, np.isnan(wide))


# ---- integer -> float conversions, one rounding ----------------------------------------------------
def int_to_float(values, out_dtype):
    """A signed or unsigned integer (up to 64 bits) converted to float16/32/64 with one rounding to
    nearest even. The value is split into a high part (x >> 32, signed for signed types) times 2^32
    and a low part (x & 0xFFFFFFFF), both exact in float64; their float64 sum is the correctly
    rounded result for float64, and for narrower types the sum is rounded to odd first."""
    with np.errstate(all="ignore"):
        v = np.asarray(values)
        if v.dtype.itemsize < 8:
            return _round_to(v.astype(np.float64), out_dtype)   # exact in float64, rounded once
        high = (v >> v.dtype.type(32)).astype(np.float64) * 4294967296.0
        low = (v & v.dtype.type(0xFFFFFFFF)).astype(np.float64)
        if np.dtype(out_dtype) == np.float64:
            return high + low
        return round_sum_once(high, low, out_dtype)


def narrow_f64_to_f16(values):
    """float64 -> float16, one rounding to nearest even (not via float32's rounding): the value is
    first rounded to odd at 24 bits (truncate the low 29 mantissa bits, set bit 29 if any was
    set), which float32 holds exactly, then rounded once to float16. Magnitudes are clamped into
    [2^-30, 2^17] first (every value outside rounds to 0 or inf alike). NaN canonical."""
    with np.errstate(all="ignore"):
        x = _as_f64(values)
        nan = np.isnan(x)
        a = np.abs(x)
        a = np.where(a > 131072.0, 131072.0, a)
        a = np.where((a < 2.0 ** -30) & (a > 0.0), 2.0 ** -30, a)
        bits = a.view(np.uint64)
        low = bits & np.uint64((1 << 29) - 1)
        odd = (bits & ~np.uint64((1 << 29) - 1)) | np.where(low != 0, np.uint64(1 << 29), np.uint64(0))
        out = odd.view(np.float64).astype(np.float32).astype(np.float16)
        out = np.where(np.signbit(x), -out, out)
        return np.where(nan, canonical_nan(np.float16), out) if nan.any() else out


def popcount32(values):
    """Set bits per 32-bit lane."""
    return np.bitwise_count(np.asarray(values).astype(np.uint32)).astype(np.uint32)
