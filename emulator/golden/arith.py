"""Arithmetic, division and rounding: ADD ... MAX, ABS, NEGATE, SIGN, CLIP1, the clip gradients, DIVIDE, the
moduli, CEIL, FLOOR and ROUND.

Floats compute in the working type (dmlemu.golden.working) with each step rounded once and NaNs canonical;
integers wrap as the kernels' registers do once narrowed; x / 0 and x % 0 of integers have all bits set.
"""
import numpy as np

from dmlemu.golden.activation import apply_activation
from dmlemu.golden.numbers import cast_bound, check_tensor_dtype, max_num, min_num
from dmlemu.golden.registry import operator
from dmlemu.golden.working import Work, bits_of, same_dtype, scale_biased
from dmlemu.isa import numerics as _nm


def _arith(fn_name, a, b, half_precision, fused_activation=None):
    a, b = same_dtype(a, b)
    w = Work(a.dtype, half_precision)
    with np.errstate(all="ignore"):
        if not w.is_float:
            return {"add": np.add, "sub": np.subtract, "mul": np.multiply}[fn_name](a, b).astype(a.dtype)
        y = getattr(w, fn_name)(w.widen(a), w.widen(b))
        canonical = False
        if fused_activation is not None:
            y, canonical = apply_activation(fused_activation, y, w)
        return w.finish(y, canonical)


@operator(name="ELEMENT_WISE_ADD", half_precision=True)
def add(a, b, half_precision=False):
    """ELEMENT_WISE_ADD: a + b, rounded once in the working type; integers wrap."""
    return _arith("add", a, b, half_precision)


@operator(name="ELEMENT_WISE_ADD1", keyword_attributes=("FusedActivation",), half_precision=True)
def add1(a, b, FusedActivation=None, half_precision=False):
    """ELEMENT_WISE_ADD1: FusedActivation(a + b); the activation runs on the working value, before the
    one narrowing to FLOAT16."""
    return _arith("add", a, b, half_precision, FusedActivation)


@operator(name="ELEMENT_WISE_SUBTRACT", half_precision=True)
def subtract(a, b, half_precision=False):
    """ELEMENT_WISE_SUBTRACT: a - b; integers wrap."""
    return _arith("sub", a, b, half_precision)


@operator(name="ELEMENT_WISE_MULTIPLY", half_precision=True)
def multiply(a, b, half_precision=False):
    """ELEMENT_WISE_MULTIPLY: a * b; integers keep the low bits."""
    return _arith("mul", a, b, half_precision)


@operator(name="ELEMENT_WISE_DIFFERENCE_SQUARE", half_precision=True)
def difference_square(a, b, half_precision=False):
    """ELEMENT_WISE_DIFFERENCE_SQUARE: (a - b) * (a - b), each step rounded; integers wrap."""
    a, b = same_dtype(a, b)
    w = Work(a.dtype, half_precision)
    with np.errstate(all="ignore"):
        if not w.is_float:
            d = np.subtract(a, b)
            return np.multiply(d, d).astype(a.dtype)
        d = w.sub(w.widen(a), w.widen(b))
        return w.finish(w.mul(d, d))


@operator(name="ELEMENT_WISE_MEAN", half_precision=True)
def mean(a, b, half_precision=False):
    """ELEMENT_WISE_MEAN: (a + b) * 0.5, the sum rounded, then halved (exact unless subnormal); integers:
    floor((a + b) / 2), exact (no overflow)."""
    a, b = same_dtype(a, b)
    if a.dtype.kind in "iu":
        return (np.bitwise_and(a, b) + (np.bitwise_xor(a, b) >> a.dtype.type(1))).astype(a.dtype)
    w = Work(a.dtype, half_precision)
    return w.finish(w.mul(w.add(w.widen(a), w.widen(b)), w.dtype.type(0.5)))


@operator(name="ELEMENT_WISE_MIN", half_precision=True)
def minimum(a, b, half_precision=False):
    """ELEMENT_WISE_MIN: minNum (one NaN -> the other operand, min(-0, +0) = -0); integers: min."""
    a, b = same_dtype(a, b)
    w = Work(a.dtype, half_precision)
    return w.finish(min_num(w.widen(a), w.widen(b)))


@operator(name="ELEMENT_WISE_MAX", half_precision=True)
def maximum(a, b, half_precision=False):
    """ELEMENT_WISE_MAX: maxNum (one NaN -> the other operand, max(-0, +0) = +0); integers: max."""
    a, b = same_dtype(a, b)
    w = Work(a.dtype, half_precision)
    return w.finish(max_num(w.widen(a), w.widen(b)))


_SIGN_BIT = {2: 0x8000, 4: 0x8000_0000, 8: 0x8000_0000_0000_0000}


@operator(name="ELEMENT_WISE_ABS", scale_bias=True, half_precision=True)
def abs_(x, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_ABS: the sign bit cleared for floats (NaN payloads kept; after a ScaleBias the NaN is
    canonical first); integers: |x| with the most negative value wrapping to itself; unsigned: x."""
    x = np.asarray(x)
    check_tensor_dtype(x.dtype)
    if x.dtype.kind != "f":
        with np.errstate(all="ignore"):
            return np.abs(x) if x.dtype.kind == "i" else x.copy()
    if scale_bias is None:
        bits = bits_of(x)
        return (bits & bits.dtype.type(~_SIGN_BIT[x.dtype.itemsize] & ((1 << 8 * x.dtype.itemsize) - 1))).view(x.dtype)
    work, w = scale_biased(x, scale_bias, half_precision)
    bits = bits_of(work)
    work = (bits & bits.dtype.type(_SIGN_BIT[work.dtype.itemsize] - 1)).view(work.dtype)
    return w.finish(work)


@operator(name="ELEMENT_WISE_NEGATE", half_precision=True)
def negate(x, half_precision=False):
    """ELEMENT_WISE_NEGATE: the sign bit flipped for floats (NaN payloads kept); integers: 0 - x (wraps)."""
    x = np.asarray(x)
    check_tensor_dtype(x.dtype)
    if x.dtype.kind == "f":
        bits = bits_of(x)
        return (bits ^ bits.dtype.type(_SIGN_BIT[x.dtype.itemsize])).view(x.dtype)
    with np.errstate(all="ignore"):
        return np.subtract(x.dtype.type(0), x).astype(x.dtype)


@operator(name="ELEMENT_WISE_SIGN", half_precision=True)
def sign(x, half_precision=False):
    """ELEMENT_WISE_SIGN: 1 for x > 0, -1 for x < 0, else x itself (+-0 keep their sign, NaN canonical);
    integers: (x > 0) - (x < 0)."""
    x = np.asarray(x)
    check_tensor_dtype(x.dtype)
    w = Work(x.dtype, half_precision)
    work = w.widen(x)
    with np.errstate(all="ignore"):
        if not w.is_float:
            return ((work > 0).astype(x.dtype) - (work < 0).astype(x.dtype)).astype(x.dtype)
        y = np.where(work > 0, w.dtype.type(1), np.where(work < 0, w.dtype.type(-1), work))
    return w.finish(y, canonical=True)


def _typed_bounds(w, low, high, dtype):
    """CLIP1 / CLIP_GRAD1 bounds (DML_SCALAR_UNION values of the tensor's own type) in the working type."""
    return w.dtype.type(dtype.type(low)), w.dtype.type(dtype.type(high))


@operator(name="ELEMENT_WISE_CLIP1", attributes=("Min", "Max"), scale_bias=True, half_precision=True)
def clip1(x, Min, Max, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_CLIP1: maxNum(Min, minNum(g(x), Max)) with Min and Max of the tensor's type (no cast)."""
    work, w = scale_biased(x, scale_bias, half_precision)
    low, high = _typed_bounds(w, Min, Max, np.asarray(x).dtype)
    return w.finish(max_num(np.full_like(work, low), min_num(work, np.full_like(work, high))))


def _clip_grad(x, gradient, low, high, half_precision):
    x, gradient = same_dtype(x, gradient)
    w = Work(x.dtype, half_precision)
    work, grad = w.widen(x), w.widen(gradient)
    with np.errstate(invalid="ignore"):
        zero = (work <= low) | (work >= high)
    return w.finish(np.where(zero, w.dtype.type(0), grad), canonical=True)


@operator(name="ELEMENT_WISE_CLIP_GRAD", attributes=("Min", "Max"), half_precision=True)
def clip_grad(x, gradient, Min, Max, half_precision=False):
    """ELEMENT_WISE_CLIP_GRAD: 0 where x <= Min or x >= Max, else the gradient (a NaN x passes it). Min and
    Max are cast to the tensor's type as CLIP's are."""
    x = np.asarray(x)
    w = Work(x.dtype, half_precision)
    low = w.dtype.type(cast_bound(Min, x.dtype))
    high = w.dtype.type(cast_bound(Max, x.dtype))
    return _clip_grad(x, gradient, low, high, half_precision)


@operator(name="ELEMENT_WISE_CLIP_GRAD1", attributes=("Min", "Max"), half_precision=True)
def clip_grad1(x, gradient, Min, Max, half_precision=False):
    """ELEMENT_WISE_CLIP_GRAD1: CLIP_GRAD with Min and Max of the tensor's type."""
    x = np.asarray(x)
    w = Work(x.dtype, half_precision)
    low, high = _typed_bounds(w, Min, Max, x.dtype)
    return _clip_grad(x, gradient, low, high, half_precision)


# ---- division -----------------------------------------------------------------------------------------------
_DIVISION_BY_ZERO = "all bits set"


def _magnitude(x):
    """|x| as uint64 (exact for every integer type: the most negative value included) and x < 0."""
    x64 = x.astype(np.int64) if x.dtype.kind == "i" else x.astype(np.uint64)
    if x.dtype.kind != "i":
        return x64, np.zeros(x.shape, dtype=bool)
    negative = x64 < 0
    bits = x64.view(np.uint64)
    return np.where(negative, ~bits + np.uint64(1), bits), negative


def _integer_divide(a, b):
    """(quotient, truncated remainder, b) of integer arrays: quotients round toward zero, the remainder has
    a's sign; the most negative value / -1 wraps; x / 0 and x % 0 have all bits set (D3D's udiv rule)."""
    a, b = same_dtype(a, b)
    dtype = a.dtype
    ua, a_negative = _magnitude(a)
    ub, b_negative = _magnitude(b)
    zero = ub == 0
    safe = np.where(zero, np.uint64(1), ub)
    q, r = ua // safe, ua % safe
    q = np.where(a_negative != b_negative, ~q + np.uint64(1), q)     # two's complement negation in 64 bits
    r = np.where(a_negative, ~r + np.uint64(1), r)
    ones = np.uint64(0xFFFF_FFFF_FFFF_FFFF)
    q = np.where(zero, ones, q)
    r = np.where(zero, ones, r)
    wide = np.int64 if dtype.kind == "i" else np.uint64
    return q.view(wide).astype(dtype), r.view(wide).astype(dtype), b


@operator(name="ELEMENT_WISE_DIVIDE", half_precision=True)
def divide(a, b, half_precision=False):
    """ELEMENT_WISE_DIVIDE. Floats: the IEEE quotient, correctly rounded (FLOAT16: the float64 quotient
    rounded once; computing in float32 first and rounding again gives the same bits, 24 >= 2 * 11 + 2).
    Integers: toward zero; x / 0 has all bits set."""
    a, b = same_dtype(a, b)
    if a.dtype.kind != "f":
        return _integer_divide(a, b)[0]
    with np.errstate(all="ignore"):
        if a.dtype == np.float16:
            return _nm.narrow_f64_to_f16(_nm.canonicalize(np.asarray(a, np.float64) / np.asarray(b, np.float64)))
        return _nm.canonicalize(np.divide(a, b))


def _fmod(a, b, half_precision):
    """(C fmod(a, b) exactly, the working type, b): the sign of a; fmod(x, +-inf) = x; fmod(+-inf, y) and
    fmod(x, 0) are NaN (canonical)."""
    a, b = same_dtype(a, b)
    w = Work(a.dtype, False)    # exact: the working type does not matter, FLOAT16 in float32
    with np.errstate(all="ignore"):
        r = _nm.canonicalize(np.fmod(np.asarray(a, np.float64), np.asarray(b, np.float64))).astype(w.dtype)
    return r, w, w.widen(b), half_precision


@operator(name="ELEMENT_WISE_MODULUS_TRUNCATE", half_precision=True)
def modulus_truncate(a, b, half_precision=False):
    """ELEMENT_WISE_MODULUS_TRUNCATE: a - trunc(a / b) * b, the sign of a. Floats: C's fmod, exact;
    integers: x % 0 has all bits set."""
    if np.asarray(a).dtype.kind == "f":
        r, w, _, _ = _fmod(a, b, half_precision)
        return w.finish(r)
    return _integer_divide(a, b)[1]


@operator(name="ELEMENT_WISE_MODULUS_FLOOR", half_precision=True)
def modulus_floor(a, b, half_precision=False):
    """ELEMENT_WISE_MODULUS_FLOOR: a - floor(a / b) * b, the sign of b. Floats: r = fmod(a, b); a non-zero r
    of the other sign than b becomes r + b (rounded), a zero r the zero of b's sign (NumPy's divmod rule);
    integers: x % 0 has all bits set."""
    if np.asarray(a).dtype.kind == "f":
        r, w, bw, _ = _fmod(a, b, half_precision)
        with np.errstate(all="ignore"):
            differ = np.signbit(r) != np.signbit(bw)
            adjusted = np.where(differ, w.add(r, bw), r)
            zero = np.copysign(np.zeros_like(r), bw)
            return w.finish(np.where(r == 0, zero, adjusted))
    q, r, b = _integer_divide(a, b)
    if r.dtype.kind == "i":
        with np.errstate(all="ignore"):
            fix = (r != 0) & ((r < 0) != (b < 0)) & (b != 0)
            r = np.where(fix, (r + b).astype(r.dtype), r)
    return r


# ---- rounding -------------------------------------------------------------------------------------------------
def _round_like(x, scale_bias, half_precision, fn):
    work, w = scale_biased(x, scale_bias, half_precision)
    with np.errstate(all="ignore"):
        return w.finish(_nm.canonicalize(fn(work)))


@operator(name="ELEMENT_WISE_CEIL", scale_bias=True, half_precision=True)
def ceil(x, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_CEIL: the smallest integral value >= g(x), exact; -0 and +-inf kept, NaN canonical."""
    return _round_like(x, scale_bias, half_precision, np.ceil)


@operator(name="ELEMENT_WISE_FLOOR", scale_bias=True, half_precision=True)
def floor(x, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_FLOOR: the largest integral value <= g(x), exact."""
    return _round_like(x, scale_bias, half_precision, np.floor)


@operator(name="ELEMENT_WISE_ROUND", attributes=("RoundingMode",), half_precision=True)
def round_(x, RoundingMode=0, half_precision=False):
    """ELEMENT_WISE_ROUND: DML_ROUNDING_MODE 0 halves to nearest even, 1 toward zero, 2 halves away from zero
    (DirectML's TOWARD_INFINITY: -2.5 -> -3, 2.5 -> 3). Exact; zeros keep their sign; NaN canonical."""
    def fn(v):
        t = np.trunc(v)
        if int(RoundingMode) == 0:
            return np.rint(v)
        if int(RoundingMode) == 1:
            return t
        away = np.abs(v - t) >= 0.5
        return np.where(away, t + np.copysign(v.dtype.type(1), v), t)
    return _round_like(x, None, half_precision, fn)
