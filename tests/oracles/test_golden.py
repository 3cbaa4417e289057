"""Tests of the golden model (emulator/golden/) against hand-checked values and independent
references: a per-element Python reference (struct does the float16/float32 rounding, Python
ints do the integer rules) and a second vectorised formulation that shares none of the golden
model's shortcuts. Every float comparison is on bit patterns."""
import itertools
import math
import struct

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dmlemu import golden

NAN = math.nan
INF = math.inf
FLOAT_TYPES = [np.float16, np.float32, np.float64]
INT_TYPES = [np.uint8, np.uint16, np.uint32, np.uint64, np.int8, np.int16, np.int32, np.int64]
UINT_OF = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
ALL_F16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)


def bits(array):
    array = np.asarray(array)
    return array.view(UINT_OF[array.dtype.itemsize])


def assert_same_bits(actual, expected):
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    mismatch = np.flatnonzero(bits(actual).reshape(-1) != bits(expected).reshape(-1))
    if mismatch.size:
        i = mismatch[0]
        raise AssertionError(
            f"{mismatch.size} elements differ; first at flat index {i}: got "
            f"{bits(actual).reshape(-1)[i]:#x}, expected {bits(expected).reshape(-1)[i]:#x}")


def assert_values(actual, values):
    """Bits of actual equal those of values (a list) stored in actual's dtype; NaN = canonical."""
    actual = np.asarray(actual)
    with np.errstate(over="ignore"):
        expected = np.array(values, dtype=actual.dtype)
    if expected.dtype.kind == "f":
        expected[np.isnan(expected)] = golden.canonical_nan(expected.dtype)
    assert_same_bits(actual, expected)


def from_bits(values, dtype):
    dtype = np.dtype(dtype)
    return np.array(values, dtype=UINT_OF[dtype.itemsize]).view(dtype)


def f16(*values):
    return np.array(values, dtype=np.float16)


# ---------------------------------------------------------------------------------------------
# Scalar reference: Python floats (doubles); struct rounds to float32 ('f', the C cast: round to
# nearest even) and float16 ('e', CPython's round-half-even packer).
# ---------------------------------------------------------------------------------------------

def py_from_f16_bits(pattern):
    return struct.unpack("<e", struct.pack("<H", int(pattern)))[0]


def py_round_f32(value):
    if math.isnan(value) or math.isinf(value):
        return value
    try:
        return struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:          # rounds past the largest float32
        return math.copysign(INF, value)


def py_round_f16(value):
    if math.isnan(value) or math.isinf(value):
        return value
    try:
        return struct.unpack("<e", struct.pack("<e", value))[0]
    except OverflowError:          # rounds past 65504
        return math.copysign(INF, value)


def py_f16_bits(value):
    if math.isnan(value):
        return 0x7E00
    return struct.unpack("<H", struct.pack("<e", value))[0]


def py_f32_bits(value):
    if math.isnan(value):
        return 0x7FC00000
    if math.isinf(value):
        return 0x7F800000 if value > 0 else 0xFF800000
    return struct.unpack("<I", struct.pack("<f", value))[0]


def py_min_num(a, b):
    if math.isnan(a) and math.isnan(b):
        return NAN
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    if a == b:        # only +0 / -0 can differ here: min(-0, +0) = -0
        return a if math.copysign(1.0, a) < 0 else b
    return a if a < b else b


def py_max_num(a, b):
    if math.isnan(a) and math.isnan(b):
        return NAN
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    if a == b:        # max(-0, +0) = +0
        return a if math.copysign(1.0, a) > 0 else b
    return a if a > b else b


def py_scale_bias(x, scale_bias, half):
    """g(x) for a float16 tensor element x (a Python float)."""
    if scale_bias is None:
        return x
    scale, bias = scale_bias
    if half:
        scale = py_round_f16(py_round_f32(scale))
        bias = py_round_f16(py_round_f32(bias))
        # x * scale has at most 22 significant bits and x + bias at most 51: both exact in a
        # double, so each struct rounding is the only rounding.
        return py_round_f16(py_round_f16(x * scale) + bias)
    scale = py_round_f32(scale)
    bias = py_round_f32(bias)
    # x * scale (11 + 24 bits) is exact in a double. The float32 sum is rounded twice (double,
    # then float32), which is still correctly rounded since 53 >= 2 * 24 + 2 (Figueroa 1995).
    return py_round_f32(py_round_f32(x * scale) + bias)


def py_f16_op(op, pattern, low, high, scale_bias, half):
    """Reference bits of CLIP ('clip') or THRESHOLD ('threshold') on one FLOAT16 element."""
    value = py_scale_bias(py_from_f16_bits(pattern), scale_bias, half)
    low = py_round_f16(py_round_f32(low))
    if op == "clip":
        high = py_round_f16(py_round_f32(high))
        result = py_max_num(low, py_min_num(value, high))
    else:
        result = py_max_num(value, low)
    return py_f16_bits(py_round_f16(result))


def py_f32_op(op, value, low, high, scale_bias):
    if scale_bias is not None:
        scale, bias = (py_round_f32(v) for v in scale_bias)
        value = py_round_f32(py_round_f32(value * scale) + bias)   # see py_scale_bias
    low = py_round_f32(low)
    if op == "clip":
        result = py_max_num(low, py_min_num(value, py_round_f32(high)))
    else:
        result = py_max_num(value, low)
    return py_f32_bits(result)


def py_float_to_int(value, dtype):
    info = np.iinfo(dtype)
    if math.isnan(value):
        return 0
    if math.isinf(value):
        return int(info.max) if value > 0 else int(info.min)
    return min(max(int(math.trunc(value)), int(info.min)), int(info.max))


# ---------------------------------------------------------------------------------------------
# Vectorised second formulation: float64 arithmetic with explicit casts, min/max by comparisons
# and np.where (no fmin/fmax, no bit tricks on ties).
# ---------------------------------------------------------------------------------------------

def vec_min_num(a, b):
    a_nan, b_nan = np.isnan(a), np.isnan(b)
    tie = np.where(np.signbit(a), a, b)
    result = np.where(a < b, a, np.where(b < a, b, tie))
    result = np.where(a_nan, b, np.where(b_nan, a, result))
    return np.where(a_nan & b_nan, NAN, result)


def vec_max_num(a, b):
    a_nan, b_nan = np.isnan(a), np.isnan(b)
    tie = np.where(np.signbit(a), b, a)
    result = np.where(a > b, a, np.where(b > a, b, tie))
    result = np.where(a_nan, b, np.where(b_nan, a, result))
    return np.where(a_nan & b_nan, NAN, result)


def vec_f16_op(op, x16, low, high, scale_bias, half):
    with np.errstate(all="ignore"):
        x = x16.astype(np.float64)
        if scale_bias is not None:
            scale = np.float64(np.float32(scale_bias[0]))
            bias = np.float64(np.float32(scale_bias[1]))
            if half:
                scale = np.float64(np.float16(np.float32(scale)))
                bias = np.float64(np.float16(np.float32(bias)))
                x = (x * scale).astype(np.float16).astype(np.float64)
                x = (x + bias).astype(np.float16).astype(np.float64)
            else:
                x = (x * scale).astype(np.float32).astype(np.float64)
                x = (x + bias).astype(np.float32).astype(np.float64)
        low = np.float64(np.float16(np.float32(low)))
        if op == "clip":
            high = np.float64(np.float16(np.float32(high)))
            result = vec_max_num(np.full_like(x, low), vec_min_num(x, np.full_like(x, high)))
        else:
            result = vec_max_num(x, np.full_like(x, low))
        out = result.astype(np.float16)
    out[np.isnan(out)] = from_bits(0x7E00, np.float16)
    return out


# ---------------------------------------------------------------------------------------------
# Basics
# ---------------------------------------------------------------------------------------------

def test_data_types_map_names_to_numpy_dtypes():
    expected = {
        "FLOAT32": np.float32, "FLOAT16": np.float16, "FLOAT64": np.float64,
        "UINT8": np.uint8, "UINT16": np.uint16, "UINT32": np.uint32, "UINT64": np.uint64,
        "INT8": np.int8, "INT16": np.int16, "INT32": np.int32, "INT64": np.int64,
    }
    assert set(golden.DATA_TYPES) == set(expected)
    for name, dtype in expected.items():
        assert np.dtype(golden.DATA_TYPES[name]) == np.dtype(dtype), name


def test_public_namespace_is_small():
    helpers = {"DATA_TYPES", "float_to_int", "cast_bound", "canonical_nan", "min_num", "max_num", "gather",
               "scatter", "packed_strides", "calc_buffer_tensor_size", "OPERATORS", "run"}
    operators = {"identity", "threshold", "clip", "if_", "add", "add1", "subtract", "multiply", "difference_square",
                 "mean", "minimum", "maximum", "abs_", "negate", "sign", "clip1", "clip_grad", "clip_grad1", "divide",
                 "modulus_truncate", "modulus_floor", "ceil", "floor", "round_", "compare", "logical", "is_nan",
                 "is_infinity", "bit_and", "bit_or", "bit_xor", "bit_not", "bit_count", "bit_shift_left",
                 "bit_shift_right", "cast", "activation", "quantize_linear", "dequantize_linear",
                 "quantized_linear_add", "exp", "log", "sqrt", "recip", "sin", "cos", "tan", "asin", "acos", "atan",
                 "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "constant_pow", "pow_", "atan_yx",
                 "reduce", "argmax", "argmin", "gemm", "softmax", "log_softmax", "hardmax", "softmax1", "log_softmax1",
                 "hardmax1", "cumulative_summation", "cumulative_product", "mean_variance_normalization0",
                 "mean_variance_normalization1", "batch_normalization", "batch_normalization_training", "lp_normalization",
                 "local_response_normalization"}
    operators |= {"convolution", "average_pooling", "average_pooling1", "max_pooling", "lp_pooling", "lp_pooling1",
                  "max_pooling1", "max_pooling2", "max_unpooling"}
    operators |= {"matrix_multiply_integer", "quantized_linear_matrix_multiply", "matrix_multiply_integer_to_float",
                  "convolution_integer", "quantized_linear_convolution"}
    assert set(golden.__all__) == helpers | operators   # one function per operator (families by name), and run


@pytest.mark.parametrize("dtype, pattern", [
    (np.float16, 0x7E00), (np.float32, 0x7FC00000), (np.float64, 0x7FF8000000000000)])
def test_canonical_nan_bits(dtype, pattern):
    nan = golden.canonical_nan(dtype)
    assert np.asarray(nan).dtype == dtype
    assert int(bits(nan)) == pattern


def test_packed_strides():
    assert golden.packed_strides((2, 3, 4)) == (12, 4, 1)
    assert golden.packed_strides((5,)) == (1,)
    assert golden.packed_strides((1, 2, 3, 4)) == (24, 12, 4, 1)
    assert golden.packed_strides([7, 1, 1]) == (1, 1, 1)


# ---------------------------------------------------------------------------------------------
# Conversions
# ---------------------------------------------------------------------------------------------

def test_numpy_narrowing_casts_round_to_nearest_even_like_struct():
    """The golden model narrows with NumPy's array casts float32 -> float16 and
    float64 -> float16 (the latter in the half-precision path): check both against struct on
    every float16 value, every midpoint between neighbours, and one float32 ulp either side."""
    finite = ALL_F16[np.isfinite(ALL_F16)].astype(np.float64)
    finite = np.unique(finite)                     # sorted, +0/-0 merged
    mids = (finite[:-1] + finite[1:]) / 2          # exact: 12 significant bits
    top = np.array([65504.0, 65519.0, 65520.0, 65535.0, 65536.0, 1e6, 1e-9, 2.0 ** -25,
                    2.0 ** -25 * 1.5, 2.0 ** -26])
    candidates = np.concatenate([finite, mids, top, -mids, -top]).astype(np.float32)
    up = np.nextafter(candidates, np.float32(np.inf))
    down = np.nextafter(candidates, np.float32(-np.inf))
    values32 = np.concatenate([candidates, up, down])
    expected = np.array([py_f16_bits(py_round_f16(float(v))) for v in values32], dtype=np.uint16)
    with np.errstate(over="ignore"):
        assert_same_bits(values32.astype(np.float16), expected.view(np.float16))
        assert_same_bits(values32.astype(np.float64).astype(np.float16), expected.view(np.float16))
    # float64 values that are not float32 values (double rounding through float32 would fail):
    values64 = np.concatenate([mids + mids * 2.0 ** -40, mids - mids * 2.0 ** -40])
    expected64 = np.array([py_f16_bits(py_round_f16(float(v))) for v in values64],
                          dtype=np.uint16)
    assert_same_bits(values64.astype(np.float16), expected64.view(np.float16))


def test_numpy_float16_to_float32_widening_is_exact():
    finite = ALL_F16[~np.isnan(ALL_F16)]
    widened = finite.astype(np.float32)
    expected = [py_f32_bits(py_from_f16_bits(b)) for b in bits(finite)]
    assert_same_bits(widened, from_bits(expected, np.float32))


@pytest.mark.parametrize("value, pattern", [
    (0.1, 0x3DCCCCCD), (1.0 + 2.0 ** -24, 0x3F800000), (1.0 + 3 * 2.0 ** -24, 0x3F800002),
    (-0.0, 0x80000000), (1e-45, 0x00000001), (7.1e-46, 0x00000001), (2.0 ** -150, 0x00000000),
    (1.5 * 2.0 ** -149, 0x00000002), (1e-46, 0x00000000),
    (3.4028235677973366e38, 0x7F800000), (3.4028235e38, 0x7F7FFFFF), (1e39, 0x7F800000),
    (-1e39, 0xFF800000), (INF, 0x7F800000), (NAN, 0x7FC00000)])
def test_cast_bound_float32_rounds_c_float(value, pattern):
    assert int(bits(golden.cast_bound(value, np.float32))) == pattern


@pytest.mark.parametrize("value, pattern", [
    (1.0, 0x3C00), (0.1, 0x2E66), (-0.0, 0x8000), (65504.0, 0x7BFF), (65519.0, 0x7BFF),
    (65520.0, 0x7C00),                      # tie between 65504 (odd) and 2**16: even wins
    (2.0 ** -24, 0x0001), (2.0 ** -25, 0x0000),  # tie to even (0)
    (1.5 * 2.0 ** -24, 0x0002),             # tie between 1 and 2 subnormal ulps: 2
    (2.0 ** -14 - 2.0 ** -25, 0x0400),      # tie between 0x3FF (odd) and 0x400
    (1.0 + 2.0 ** -11, 0x3C00), (1.0 + 3 * 2.0 ** -11, 0x3C02),
    (1.0 + 2.0 ** -11 + 2.0 ** -23, 0x3C01),  # just above the tie
    (1.0 + 2.0 ** -11 + 2.0 ** -24, 0x3C00),  # a float32 tie (to even), then a float16 tie
    (-INF, 0xFC00)])
def test_cast_bound_float16_round_to_nearest_even(value, pattern):
    result = golden.cast_bound(value, np.float16)
    assert np.asarray(result).dtype == np.float16
    assert int(bits(result)) == pattern


def test_cast_bound_rounds_to_float32_before_float16():
    # 1 + 2**-11 + 2**-30 is above the float16 midpoint as a double, but float32 drops the
    # 2**-30, leaving an exact tie that goes to even (1.0).
    assert int(bits(golden.cast_bound(1.0 + 2.0 ** -11 + 2.0 ** -30, np.float16))) == 0x3C00
    # and the integer path: 16777217 is not a float32; it rounds to 16777216 first.
    assert golden.cast_bound(16777217.0, np.int32) == 16777216
    assert golden.cast_bound(2.0 ** 63 - 1, np.int64) == 2 ** 63 - 1   # 2**63 saturates


@pytest.mark.parametrize("dtype", INT_TYPES)
def test_cast_bound_integers_truncate_saturate_nan_zero(dtype):
    info = np.iinfo(dtype)
    cases = [2.9, -2.9, 0.5, -0.5, -0.0, 100.99, -128.5, 255.9, 256.0, -129.0, 1e10, -1e10,
             1e30, -1e30, INF, -INF, NAN, 2.0 ** 31, -2.0 ** 31, 2.0 ** 32, 2.0 ** 63,
             -2.0 ** 63, 2.0 ** 64, 2.0 ** 63 - 2.0 ** 39, 2.0 ** 64 - 2.0 ** 40, 65535.5,
             32767.9, -32768.9]
    for value in cases:
        result = golden.cast_bound(value, dtype)
        assert isinstance(result, np.generic) and result.dtype == dtype
        expected = py_float_to_int(py_round_f32(value), dtype)
        assert int(result) == expected, (value, int(result), expected)
        assert info.min <= expected <= info.max


def test_cast_bound_accepts_directml_type_names():
    assert golden.cast_bound(-3.9, "INT8") == np.int8(-3)
    assert int(bits(golden.cast_bound(0.1, "FLOAT16"))) == 0x2E66


def _float_to_int_edges(dtype):
    info = np.iinfo(dtype)
    anchors = [0.0, 1.0, float(info.min), float(info.max), float(info.max) + 1.0,
               float(info.min) - 1.0, 0.5, -0.5, 0.999, -0.999]
    values = []
    for ftype in FLOAT_TYPES:
        with np.errstate(over="ignore"):
            a = np.array(anchors, dtype=np.float64).astype(ftype)
        neighbours = [a, np.nextafter(a, ftype(np.inf)), np.nextafter(a, ftype(-np.inf))]
        values.append(np.concatenate(neighbours))
    return values


@pytest.mark.parametrize("dtype", INT_TYPES)
def test_float_to_int_edges_of_every_type(dtype):
    for values in _float_to_int_edges(dtype):
        values = np.concatenate([values, np.array([np.nan, np.inf, -np.inf], values.dtype)])
        result = golden.float_to_int(values, dtype)
        assert result.dtype == dtype and result.shape == values.shape
        expected = [py_float_to_int(float(v), dtype) for v in values]
        assert [int(r) for r in result] == expected, values.dtype


def test_float_to_int_64_bit_saturation_near_2_63_and_2_64():
    x = np.array([2.0 ** 63, 2.0 ** 63 - 1024, -2.0 ** 63, -2.0 ** 63 - 2048, 2.0 ** 64,
                  2.0 ** 64 - 2048, 1.8e19, -1.0, 1e300])
    assert [int(v) for v in golden.float_to_int(x, np.int64)] == [
        2 ** 63 - 1, 2 ** 63 - 1024, -2 ** 63, -2 ** 63, 2 ** 63 - 1, 2 ** 63 - 1,
        2 ** 63 - 1, -1, 2 ** 63 - 1]
    assert [int(v) for v in golden.float_to_int(x, np.uint64)] == [
        2 ** 63, 2 ** 63 - 1024, 0, 0, 2 ** 64 - 1, 2 ** 64 - 2048, 18000000000000000000, 0,
        2 ** 64 - 1]
    x32 = np.array([2.0 ** 63, 2.0 ** 64, 2.0 ** 63 - 2.0 ** 39], dtype=np.float32)
    assert [int(v) for v in golden.float_to_int(x32, np.int64)] == [
        2 ** 63 - 1, 2 ** 63 - 1, 2 ** 63 - 2 ** 39]
    assert [int(v) for v in golden.float_to_int(x32, np.uint64)] == [
        2 ** 63, 2 ** 64 - 1, 2 ** 63 - 2 ** 39]


def test_float_to_int_scalar_and_shape():
    assert golden.float_to_int(-7.9, np.int16).shape == ()
    assert int(golden.float_to_int(-7.9, np.int16)) == -7
    result = golden.float_to_int(np.full((2, 3), 300.5, np.float16), np.uint8)
    assert result.shape == (2, 3) and (result == 255).all()


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from(INT_TYPES), width=st.sampled_from([16, 32, 64]), data=st.data())
def test_float_to_int_matches_python_trunc_and_clamp(dtype, width, data):
    values = data.draw(st.lists(st.floats(width=width), min_size=1, max_size=40))
    ftype = {16: np.float16, 32: np.float32, 64: np.float64}[width]
    array = np.array(values, dtype=ftype)
    result = golden.float_to_int(array, dtype)
    assert [int(r) for r in result] == [py_float_to_int(float(v), dtype) for v in array]


# ---------------------------------------------------------------------------------------------
# min_num / max_num
# ---------------------------------------------------------------------------------------------

SPECIAL_BITS = {
    np.float16: [0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x3C00, 0xBC00, 0x7BFF,
                 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7C01, 0x7D55, 0xFFFF, 0x3555],
    np.float32: [0x0, 0x80000000, 0x1, 0x80000001, 0x007FFFFF, 0x00800000, 0x3F800000,
                 0xBF800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000,
                 0xFFC00000, 0x7F800001, 0x7FA5A5A5, 0xFFFFFFFF, 0x3EAAAAAB],
    np.float64: [0x0, 0x8000000000000000, 0x1, 0x000FFFFFFFFFFFFF, 0x3FF0000000000000,
                 0xBFF0000000000000, 0x7FEFFFFFFFFFFFFF, 0x7FF0000000000000,
                 0xFFF0000000000000, 0x7FF8000000000000, 0xFFF8000000000000,
                 0x7FF0000000000001, 0x7FF4000000000123],
}


# signalling NaNs (quiet bit clear, payload set), positive and negative
SNAN_BITS = {np.float16: (0x7C01, 0xFD55), np.float32: (0x7F800001, 0xFFA00000),
             np.float64: (0x7FF0000000000001, 0xFFF4000000000000)}


def _expected_min_max_bits(ref, a, b):
    """Bits the scalar reference picks: py_min_num/py_max_num return one of their two operand
    objects (compared by identity, so -0/+0 and NaN payloads are told apart) or a fresh NaN."""
    canon = int(bits(golden.canonical_nan(a.dtype)))
    a_bits, b_bits = bits(a).tolist(), bits(b).tolist()
    expected = []
    for i, (x, y) in enumerate(zip(a.tolist(), b.tolist())):
        picked = ref(x, y)
        expected.append(a_bits[i] if picked is x else b_bits[i] if picked is y else canon)
        assert picked is x or picked is y or math.isnan(picked)
    return from_bits(expected, a.dtype)


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
def test_min_max_num_every_pair_of_special_values(dtype):
    specials = from_bits(SPECIAL_BITS[dtype], dtype)
    a, b = (np.array(p, dtype=dtype) for p in zip(*itertools.product(specials, repeat=2)))
    for func, ref in ((golden.min_num, py_min_num), (golden.max_num, py_max_num)):
        assert_same_bits(func(a, b), _expected_min_max_bits(ref, a, b))


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
@pytest.mark.parametrize("length", [1, 2, 3, 7, 8, 15, 16, 17, 31, 33, 64, 65, 129])
def test_signed_zero_ties_do_not_depend_on_length_or_order(dtype, length):
    neg = np.full(length, -0.0, dtype)
    pos = np.zeros(length, dtype)
    for a, b in ((neg, pos), (pos, neg)):
        assert (bits(golden.min_num(a, b)) == bits(neg)).all()
        assert (bits(golden.max_num(a, b)) == bits(pos)).all()
    assert (bits(golden.min_num(neg, neg)) == bits(neg)).all()
    assert (bits(golden.max_num(neg, neg)) == bits(neg)).all()
    assert (bits(golden.min_num(pos, pos)) == bits(pos)).all()


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
def test_min_max_num_random_bits_against_scalar_reference(dtype):
    rng = np.random.default_rng(1234)
    uint = UINT_OF[np.dtype(dtype).itemsize]
    n = 3000
    a = rng.integers(0, np.iinfo(uint).max, n, dtype=uint, endpoint=True)
    b = rng.integers(0, np.iinfo(uint).max, n, dtype=uint, endpoint=True)
    b[::3] = a[::3]                                                          # equal operands
    b[1::7] = a[1::7] ^ (uint(1) << uint(8 * np.dtype(dtype).itemsize - 1))  # opposite signs
    a, b = a.view(dtype), b.view(dtype)
    for func, ref in ((golden.min_num, py_min_num), (golden.max_num, py_max_num)):
        assert_same_bits(func(a, b), _expected_min_max_bits(ref, a, b))


def test_min_max_num_broadcast_scalar_and_dtype_check():
    x = f16(-0.0, 0.0, 1.0, NAN)
    zero = np.float16(0.0)
    assert_same_bits(golden.max_num(x, zero), f16(0.0, 0.0, 1.0, 0.0))
    assert_same_bits(golden.min_num(zero, x), f16(-0.0, 0.0, 0.0, 0.0))
    with pytest.raises(TypeError):
        golden.min_num(np.zeros(2, np.float16), np.zeros(2, np.float32))


@pytest.mark.parametrize("dtype", INT_TYPES)
def test_min_max_num_integers_plain(dtype):
    info = np.iinfo(dtype)
    a = np.array([info.min, info.max, 0, 1, info.max - 1], dtype=dtype)
    b = np.array([info.max, info.min, 1, 0, info.max], dtype=dtype)
    assert golden.min_num(a, b).tolist() == [min(int(x), int(y)) for x, y in zip(a, b)]
    assert golden.max_num(a, b).tolist() == [max(int(x), int(y)) for x, y in zip(a, b)]
    assert golden.min_num(a, b).dtype == dtype


# ---------------------------------------------------------------------------------------------
# Operators: hand-checked examples
# ---------------------------------------------------------------------------------------------

def test_if_seed_example():
    condition = np.array([[1, 0], [1, 1]], dtype=np.uint8)
    a = np.array([[1, 2], [3, 4]], dtype=np.float16)
    b = np.array([[9, 8], [7, 6]], dtype=np.float16)
    assert_same_bits(golden.if_(condition, a, b), np.array([[1, 8], [3, 4]], np.float16))
    for dtype in INT_TYPES + FLOAT_TYPES:
        out = golden.if_(condition, a.astype(dtype), b.astype(dtype))
        assert_values(out, [[1, 8], [3, 4]])


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
def test_if_copies_bits_of_nan_payloads_snan_and_negative_zero(dtype):
    pattern = SPECIAL_BITS[dtype]
    a = from_bits(pattern, dtype)
    b = from_bits(pattern[::-1], dtype)
    condition = np.array([0, 1, 2, 255, 128] * 4, dtype=np.uint8)[:len(pattern)]
    result = golden.if_(condition, a, b)
    expected = np.where(condition != 0, bits(a), bits(b))
    assert_same_bits(result, expected.view(dtype))


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
def test_identity_without_scale_bias_copies_bits(dtype):
    x = from_bits(SPECIAL_BITS[dtype], dtype).reshape(1, -1)
    result = golden.identity(x)
    assert_same_bits(result, x)
    assert result is not x
    assert_same_bits(golden.identity(x, half_precision=True), x)


@pytest.mark.parametrize("dtype", INT_TYPES)
def test_identity_integers(dtype):
    info = np.iinfo(dtype)
    x = np.array([info.min, info.max, 0, 7], dtype=dtype)
    assert_same_bits(golden.identity(x), x)


@pytest.mark.parametrize("dtype, half", [(np.float16, False), (np.float16, True),
                                         (np.float32, False)])
def test_identity_with_scale_bias_canonicalizes_nans(dtype, half):
    x = from_bits(SPECIAL_BITS[dtype], dtype)
    result = golden.identity(x, scale_bias=(1.0, 0.0), half_precision=half)
    canon = int(bits(golden.canonical_nan(dtype)))
    expected = np.where(np.isnan(x), canon, bits(x))   # x * 1 + 0 = x except NaN; -0+0 = +0
    expected = np.where(bits(x) == bits(np.array(-0.0, dtype)), 0, expected)
    assert_same_bits(result, expected.astype(bits(x).dtype).view(dtype))
    # inf * 0 is the x86 "default NaN" (negative) in hardware; the rule makes it canonical
    inf_times_zero = golden.identity(np.array([np.inf, -np.inf], dtype), (0.0, 1.0), half)
    assert (bits(inf_times_zero) == canon).all()


def test_identity_scale_bias_is_not_fused_float32():
    # (1 + 2**-12)**2 = 1 + 2**-11 + 2**-24: the float32 product ties and rounds to even
    # (1 + 2**-11), so adding -(1 + 2**-11) gives +0; a fused multiply-add would give 2**-24.
    x = np.array([1.0 + 2.0 ** -12], np.float32)
    result = golden.identity(x, scale_bias=(1.0 + 2.0 ** -12, -(1.0 + 2.0 ** -11)))
    assert int(bits(result)[0]) == 0x00000000


def test_identity_float16_default_and_half_paths_differ():
    x = f16(1.0 + 2.0 ** -10)
    scale_bias = (1.0 + 2.0 ** -10, 2.0 ** -11)
    # float32: 1 + 2**-9 + 2**-11 + 2**-20 -> float16 rounds up to 1 + 3 * 2**-10 (0x3C03)
    assert int(bits(golden.identity(x, scale_bias))[0]) == 0x3C03
    # float16 steps: product -> 1 + 2**-9; + 2**-11 is an exact tie -> even 0x3C02
    assert int(bits(golden.identity(x, scale_bias, half_precision=True))[0]) == 0x3C02
    # Scale and Bias are rounded to float16 first on the half path: 0.1 -> 0x2E66
    one = f16(1.0)
    assert int(bits(golden.identity(one, (0.1, 0.0), half_precision=True))[0]) == 0x2E66
    assert int(bits(golden.identity(one, (0.1, 0.0)))[0]) == 0x2E66


def test_identity_float16_subnormals_are_kept():
    x = f16(2.0 ** -14, -(2.0 ** -14), 2.0 ** -24)
    for half in (False, True):
        result = golden.identity(x, (0.5, 0.0), half_precision=half)
        # 2**-15, -2**-15 (subnormals); 2**-25 is a tie between 0 and 2**-24: even (0)
        assert bits(result).tolist() == [0x0200, 0x8200, 0x0000]


def test_clip_seed_formula_examples():
    x = f16(-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, -INF, INF)
    assert_values(golden.clip(x, -1.0, 1.0), [-1, -1, -0.5, 0, 0.5, 1, 1, -1, 1])
    x32 = x.astype(np.float32)
    assert_values(golden.clip(x32, -1.0, 1.0), [-1, -1, -0.5, 0, 0.5, 1, 1, -1, 1])
    # with ScaleBias g(x) = 2x + 0.5 first
    assert_values(golden.clip(f16(-1.0, 0.0, 0.25, 1.0), -1.0, 1.0, scale_bias=(2.0, 0.5)),
                  [-1.0, 0.5, 1.0, 1.0])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_clip_nan_rules(dtype):
    x = np.array([NAN, -NAN, 0.0, -5.0, 5.0], dtype)
    # NaN input gives max(Min, Max) = Max when Min < Max
    assert_values(golden.clip(x, -1.0, 2.0), [2.0, 2.0, 0.0, -1.0, 2.0])
    # Min > Max gives Min for every input, NaN included
    assert_values(golden.clip(x, 3.0, -3.0), [3.0] * 5)
    # a NaN bound is ignored
    assert_values(golden.clip(x, NAN, 2.0), [2.0, 2.0, 0.0, -5.0, 2.0])
    assert_values(golden.clip(x, -1.0, NAN), [-1.0, -1.0, 0.0, -1.0, 5.0])
    # both bounds NaN: x passes through; a NaN x becomes the canonical NaN
    payload = from_bits(SNAN_BITS[dtype], dtype)
    result = golden.clip(np.concatenate([x, payload]), NAN, NAN)
    canon = int(bits(golden.canonical_nan(dtype)))
    assert bits(result).tolist()[:2] == [canon, canon]
    assert_same_bits(result[2:5], x[2:5])
    assert (bits(result[5:]) == canon).all()


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_threshold_nan_and_signed_zero(dtype):
    x = np.array([NAN, -0.0, 0.0, -1.0, 3.0, -INF], dtype)
    assert bits(golden.threshold(x, 0.0)).tolist() == bits(
        np.array([0.0, 0.0, 0.0, 0.0, 3.0, 0.0], dtype)).tolist()
    assert bits(golden.threshold(x, -0.0)).tolist() == bits(
        np.array([-0.0, -0.0, 0.0, -0.0, 3.0, -0.0], dtype)).tolist()
    assert_values(golden.threshold(x, 1.5), [1.5, 1.5, 1.5, 1.5, 3.0, 1.5])
    result = golden.threshold(x, NAN)   # NaN Min: x passes, NaN made canonical
    assert int(bits(result)[0]) == int(bits(golden.canonical_nan(dtype)))
    assert bits(result).tolist()[1:] == bits(x).tolist()[1:]


def test_clip_signed_zero_results():
    x = f16(-0.0, 0.0)
    assert bits(golden.clip(x, 0.0, 1.0)).tolist() == [0x0000, 0x0000]   # max(+0, -0) = +0
    assert bits(golden.clip(x, -1.0, -0.0)).tolist() == [0x8000, 0x8000]  # min(x, -0) = -0
    assert bits(golden.clip(x, -1.0, 0.0)).tolist() == [0x8000, 0x0000]   # min(-0, +0) = -0
    assert bits(golden.clip(x, -0.0, 1.0)).tolist() == [0x8000, 0x0000]   # max(-0, -0) = -0
    x32 = np.array([-0.0, 0.0], np.float32)
    assert bits(golden.clip(x32, 0.0, 1.0)).tolist() == [0, 0]
    assert bits(golden.clip(x32, -0.0, -0.0)).tolist() == [0x80000000, 0x80000000]


def test_clip_float32_subnormals_preserved():
    tiny = from_bits([0x00000001, 0x807FFFFF, 0x00400000], np.float32)
    assert_same_bits(golden.clip(tiny, -1.0, 1.0), tiny)
    assert bits(golden.threshold(tiny, 0.0)).tolist() == [0x1, 0x0, 0x00400000]
    # bound subnormal in float16: 1e-7 rounds to the subnormal 0x0002 (2 * 2**-24 = 1.19e-7)
    assert bits(golden.threshold(f16(0.0), 1e-7)).tolist() == [0x0002]


def test_bounds_rounding_to_float16_and_overflow():
    x = from_bits([0x7C00, 0xFC00, 0x3266], np.float16)   # +inf, -inf, 0.2
    # Max 65520 rounds to +inf in float16, so inf passes; Min 0.1 rounds to 0x2E66
    assert bits(golden.clip(x, 0.1, 65520.0)).tolist() == [0x7C00, 0x2E66, 0x3266]
    assert bits(golden.clip(x, 0.1, 65519.0)).tolist() == [0x7BFF, 0x2E66, 0x3266]


@pytest.mark.parametrize("dtype", INT_TYPES)
def test_integer_clip_and_threshold_follow_integer_rules(dtype):
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max)
    candidates = {lo, lo + 1, -3, -1, 0, 1, 2, 3, 99, 100, 101, 127, 128, 255, 256,
                  2 ** 53 + 1, 2 ** 63 - 1, hi - 1, hi}
    xs = sorted(v for v in candidates if lo <= v <= hi)
    x = np.array(xs, dtype=dtype)
    bounds = [(-3.7, 100.9), (NAN, NAN), (-INF, INF), (1e20, -1e20), (2.0 ** 63, 2.0 ** 64),
              (-2.0 ** 63, 2.0 ** 63), (0.5, -0.5), (-0.9, 2.99), (NAN, 1.0), (-1e30, NAN)]
    for low, high in bounds:
        low_i = py_float_to_int(py_round_f32(low), dtype)
        high_i = py_float_to_int(py_round_f32(high), dtype)
        result = golden.clip(x, low, high)
        assert result.dtype == dtype
        assert [int(v) for v in result] == [max(low_i, min(v, high_i)) for v in xs], (low, high)
        result = golden.threshold(x, low)
        assert [int(v) for v in result] == [max(v, low_i) for v in xs], low
    # x is never converted to float: 2**53 + 1 and 2**63 - 1 survive an all-pass clip
    if dtype in (np.int64, np.uint64):
        assert golden.clip(x, -INF, INF).tolist() == xs


@pytest.mark.parametrize("dtype", INT_TYPES + [np.float64])
def test_scale_bias_rejected_outside_float16_and_float32(dtype):
    x = np.zeros(3, dtype)
    name = {v: k for k, v in golden.DATA_TYPES.items()}[np.dtype(dtype)]
    message = f"ScaleBias is only valid for FLOAT16 and FLOAT32 tensors, not {name}"
    with pytest.raises(ValueError, match=message):
        golden.identity(x, scale_bias=(1.0, 0.0))
    with pytest.raises(ValueError, match=message):
        golden.threshold(x, 0.0, scale_bias=(1.0, 0.0))
    with pytest.raises(ValueError, match=message):
        golden.clip(x, 0.0, 1.0, scale_bias=(1.0, 0.0))


def test_half_precision_changes_nothing_for_float32():
    rng = np.random.default_rng(7)
    x = rng.integers(0, 2 ** 32, 5000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    for sb in (None, (0.1, 0.3), (1e-30, -1e-38)):
        for op in (lambda v, h: golden.clip(v, -0.7, 1e3, sb, h),
                   lambda v, h: golden.threshold(v, 0.0, sb, h),
                   lambda v, h: golden.identity(v, sb, h)):
            assert_same_bits(op(x, True), op(x, False))


def test_operators_keep_shape_and_do_not_modify_input():
    x = np.arange(24, dtype=np.float16).reshape(2, 3, 4) - 10
    before = x.copy()
    for result in (golden.clip(x, -1, 1, (2.0, 0.5)), golden.threshold(x, 0.0, (2.0, 0.5), True),
                   golden.identity(x, (2.0, 0.5)), golden.clip(x, -1, 1)):
        assert result.shape == (2, 3, 4) and result.dtype == np.float16
    assert_same_bits(x, before)
    xi = np.arange(6, dtype=np.int32).reshape(2, 3)
    golden.clip(xi, 1, 3)
    assert xi.tolist() == [[0, 1, 2], [3, 4, 5]]


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
def test_signalling_nans_count_as_nans_at_every_array_length(dtype):
    # NumPy's fmin/fmax treat a signalling NaN differently in their SIMD and scalar loops, so
    # the answer could depend on where an element falls; it must not.
    for length in range(1, 70):
        x_bits = bits(np.full(length, 0.5, dtype)).copy()
        x_bits[0], x_bits[-1] = SNAN_BITS[dtype]
        x_bits[length // 2] = SNAN_BITS[dtype][0]
        x = x_bits.view(dtype)
        is_nan = np.isnan(x)
        assert_values(golden.clip(x, -1.0, 2.0), np.where(is_nan, 2.0, 0.5))
        assert_values(golden.threshold(x, -1.0), np.where(is_nan, -1.0, 0.5))
        assert_values(golden.clip(x, -1.0, 0.0), np.zeros(length))
        one = np.full(length, 1.5, dtype)
        assert_values(golden.min_num(x, one), np.where(is_nan, 1.5, 0.5))
        assert_values(golden.max_num(one, x), [1.5] * length)
        if dtype != np.float64:
            assert_values(golden.clip(x, -1.0, 2.0, scale_bias=(1.0, 0.0)),
                          np.where(is_nan, 2.0, 0.5))


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
def test_zero_bounds_against_vectorised_reference_at_many_lengths(dtype):
    pattern = from_bits(SPECIAL_BITS[dtype], dtype)
    # NumPy's loops peel unaligned heads and leave scalar tails, and fmin/fmax break +0/-0
    # ties differently there: vary the length, the start address and where each value sits.
    base = np.concatenate([np.array([0.0, -0.0, -0.0, 0.0], dtype), pattern])
    backing = np.zeros(200, dtype)
    with np.errstate(invalid="ignore"):
        for length, shift, start in itertools.product((1, 2, 5, 17, 33, 100), range(4), (0, 1, 3)):
            x = backing[start:start + length]
            x[...] = np.resize(np.roll(base, shift), length)
            for low, high in ((0.0, 6.0), (-6.0, 0.0), (-6.0, -0.0), (-0.0, 6.0), (0.0, -0.0),
                              (-0.0, -0.0), (0.0, 0.0), (-0.0, 0.0)):
                lo = np.full_like(x, golden.cast_bound(low, dtype))
                hi = np.full_like(x, golden.cast_bound(high, dtype))
                expected = vec_max_num(lo, vec_min_num(x, hi))
                expected[np.isnan(expected)] = golden.canonical_nan(dtype)
                assert_same_bits(golden.clip(x, low, high), expected)
                expected = vec_max_num(x, lo)
                expected[np.isnan(expected)] = golden.canonical_nan(dtype)
                assert_same_bits(golden.threshold(x, low), expected)


# ---------------------------------------------------------------------------------------------
# Every float16 bit pattern through CLIP and THRESHOLD, both FLOAT16 paths
# ---------------------------------------------------------------------------------------------

BOUNDS = [(-1.5, 2.0), (0.0, 6.0), (-0.0, 0.0), (0.0, -0.0), (-0.0, -0.0), (NAN, NAN),
          (NAN, 1.0), (-1.0, NAN), (3.0, -3.0), (-INF, INF), (1e-7, 65520.0), (0.1, 0.3),
          (-65504.0, -(2.0 ** -24)), (2.0 ** -14, 65504.0)]
SCALE_BIASES = [None, (1.5, 0.25), (0.1, -0.0), (-2.0, 1e-5), (1e4, 0.0), (0.0, 0.0),
                (INF, 1.0), (1.0 + 2.0 ** -10, 2.0 ** -11), (3.0, -INF), (2.0 ** -20, 0.0)]
SUBSET = np.unique(np.concatenate([
    np.random.default_rng(2024).choice(1 << 16, 4096, replace=False).astype(np.uint16),
    np.array(SPECIAL_BITS[np.float16], np.uint16)])).view(np.float16)


def _golden_f16(op, x, low, high, sb, half):
    if op == "clip":
        return golden.clip(x, low, high, scale_bias=sb, half_precision=half)
    return golden.threshold(x, low, scale_bias=sb, half_precision=half)


@pytest.mark.parametrize("half", [False, True], ids=["float32-math", "half-precision"])
@pytest.mark.parametrize("sb", SCALE_BIASES, ids=str)
def test_every_float16_pattern_matches_vectorised_reference(sb, half):
    for op, (low, high) in itertools.product(("clip", "threshold"), BOUNDS):
        result = _golden_f16(op, ALL_F16, low, high, sb, half)
        expected = vec_f16_op(op, ALL_F16, low, high, sb, half)
        assert_same_bits(result, expected)


@pytest.mark.parametrize("half", [False, True], ids=["float32-math", "half-precision"])
@pytest.mark.parametrize("sb", SCALE_BIASES, ids=str)
def test_float16_subset_matches_scalar_reference(sb, half):
    patterns = bits(SUBSET).tolist()
    for op, (low, high) in itertools.product(("clip", "threshold"), BOUNDS):
        result = _golden_f16(op, SUBSET, low, high, sb, half)
        expected = [py_f16_op(op, p, low, high, sb, half) for p in patterns]
        assert_same_bits(result, from_bits(expected, np.float16))


@pytest.mark.parametrize("op, low, high, sb", [
    ("clip", 0.0, 6.0, (1.5, 0.25)), ("clip", -1.5, 2.0, None), ("clip", NAN, NAN, (0.1, 0.0)),
    ("threshold", -0.0, None, (-2.0, 1e-5)), ("threshold", 0.1, None, None)])
@pytest.mark.parametrize("half", [False, True], ids=["float32-math", "half-precision"])
def test_every_float16_pattern_matches_scalar_reference(op, low, high, sb, half):
    result = _golden_f16(op, ALL_F16, low, high, sb, half)
    expected = [py_f16_op(op, p, low, high, sb, half) for p in range(1 << 16)]
    assert_same_bits(result, from_bits(expected, np.float16))


def test_float32_random_patterns_match_scalar_reference():
    rng = np.random.default_rng(99)
    patterns = np.concatenate([rng.integers(0, 2 ** 32, 3000, dtype=np.uint64).astype(np.uint32),
                               np.array(SPECIAL_BITS[np.float32], np.uint32)])
    x = patterns.view(np.float32)
    for sb in (None, (1.5, 0.25), (1e-30, -1e-38), (3e38, 0.0), (0.0, 0.0)):
        for op, (low, high) in itertools.product(("clip", "threshold"), BOUNDS[:10]):
            if op == "clip":
                result = golden.clip(x, low, high, scale_bias=sb)
            else:
                result = golden.threshold(x, low, scale_bias=sb)
            expected = [py_f32_op(op, float(v), low, high, sb) for v in x]
            assert_same_bits(result, from_bits(expected, np.float32))


# ---------------------------------------------------------------------------------------------
# gather / scatter / calc_buffer_tensor_size
# ---------------------------------------------------------------------------------------------

@st.composite
def layouts(draw, max_elements=256):
    ndim = draw(st.integers(1, 8))
    sizes = []
    for _ in range(ndim):
        room = max(1, min(4, max_elements // max(1, math.prod(sizes))))
        sizes.append(draw(st.integers(1, room)))
    kind = draw(st.sampled_from(["none", "packed", "padded", "broadcast", "random"]))
    if kind == "none":
        strides = None
    elif kind == "packed":
        strides = list(golden.packed_strides(sizes))
    elif kind == "padded":   # descending strides with gaps
        strides, step = [], 1
        for size in reversed(sizes):
            step += draw(st.integers(0, 3)) if strides else 0
            strides.append(step)
            step *= size
        strides.reverse()
    elif kind == "broadcast":
        strides = [0 if draw(st.booleans()) else s for s in golden.packed_strides(sizes)]
    else:
        strides = [draw(st.integers(0, 12)) for _ in sizes]
    dtype = draw(st.sampled_from(sorted(golden.DATA_TYPES)))
    offset = draw(st.integers(0, 17))
    return sizes, strides, golden.DATA_TYPES[dtype], offset


def _element_offsets(sizes, strides, itemsize, offset):
    strides = golden.packed_strides(sizes) if strides is None else strides
    return [offset + sum(c * s for c, s in zip(coord, strides)) * itemsize
            for coord in itertools.product(*(range(n) for n in sizes))]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layout=layouts(), seed=st.integers(0, 2 ** 32 - 1), slack=st.integers(0, 9))
def test_gather_and_scatter_match_a_per_element_reference(layout, seed, slack):
    sizes, strides, dtype, offset = layout
    itemsize = np.dtype(dtype).itemsize
    offsets = _element_offsets(sizes, strides, itemsize, offset)
    size = max(offsets) + itemsize + slack
    rng = np.random.default_rng(seed)
    buffer = rng.integers(0, 256, size, dtype=np.uint8)
    original = buffer.copy()

    # gather: each element's bytes, in row-major order
    result = golden.gather(buffer, offset, dtype, sizes, strides)
    assert result.shape == tuple(sizes) and result.dtype == dtype
    raw = buffer.tobytes()
    assert result.tobytes() == b"".join(raw[o:o + itemsize] for o in offsets)
    assert_same_bits(buffer, original)                    # read only
    result[...] = 0                                       # and a copy, not a view
    assert_same_bits(buffer, original)

    # scatter: write in row-major order, the last write to an element wins
    values = rng.integers(0, 256, len(offsets) * itemsize, dtype=np.uint8).view(dtype)
    values = values.reshape(sizes)
    expected = bytearray(raw)
    value_bytes = values.tobytes()
    for i, o in enumerate(offsets):
        expected[o:o + itemsize] = value_bytes[i * itemsize:(i + 1) * itemsize]
    golden.scatter(buffer, offset, values, strides)
    assert buffer.tobytes() == bytes(expected)

    # round trip where no two coordinates share an element
    if len(set(offsets)) == len(offsets):
        assert_same_bits(golden.gather(buffer, offset, dtype, sizes, strides), values)


def test_gather_scatter_examples_and_errors():
    buffer = np.arange(32, dtype=np.uint8)
    got = golden.gather(buffer, 2, "UINT16", (2, 3), (0, 2))   # broadcast rows, stride 2
    assert got.tolist() == [[0x0302, 0x0706, 0x0B0A]] * 2
    assert golden.gather(buffer, 1, np.uint32, (2,)).tolist() == [0x04030201, 0x08070605]
    with pytest.raises(ValueError, match="past the end of a 32-byte buffer"):
        golden.gather(buffer, 28, np.uint32, (2,))
    with pytest.raises(ValueError):
        golden.scatter(buffer, 30, np.zeros(2, np.uint16))
    out = np.zeros(8, np.uint8)
    golden.scatter(out, 1, np.array([0x1122, 0x3344], np.uint16), strides=(2,))
    assert out.tolist() == [0, 0x22, 0x11, 0, 0, 0x44, 0x33, 0]
    nan = from_bits([0x7D01, 0xFC01], np.float16)    # signalling NaN payloads survive
    golden.scatter(out, 0, nan)
    assert_same_bits(golden.gather(out, 0, np.float16, (2,)), nan)


def _calc_reference(name, sizes, strides):
    """DMLCalcBufferTensorSize with NumPy fixed-width integers (C's wrap-around for free)."""
    element_bits = {"FLOAT64": 64, "UINT64": 64, "INT64": 64, "FLOAT32": 32, "UINT32": 32,
                    "INT32": 32, "FLOAT16": 16, "UINT16": 16, "INT16": 16, "UINT8": 8,
                    "INT8": 8}[name]
    with np.errstate(over="ignore"):
        if strides is None:
            total = np.array([sizes[0]], np.uint64)
            for s in sizes[1:]:
                total *= np.uint64(s)
            total *= np.uint64(element_bits)
        else:
            index = np.zeros(1, np.uint32)
            for size, stride in zip(sizes, strides):
                index += (np.array([size], np.uint32) - np.uint32(1)) * np.uint32(stride)
            total = (index.astype(np.uint64) + np.uint64(1)) * np.uint64(element_bits)
        nbytes = (total + np.uint64(7)) // np.uint64(8)
        return int(((nbytes + np.uint64(3)) & ~np.uint64(3))[0])


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(sorted(golden.DATA_TYPES)),
       sizes=st.lists(st.integers(1, 2 ** 32 - 1) | st.integers(1, 9), min_size=1, max_size=8),
       data=st.data())
def test_calc_buffer_tensor_size_matches_fixed_width_reference(name, sizes, data):
    strides = data.draw(st.none() | st.lists(st.integers(0, 2 ** 32 - 1) | st.integers(0, 9),
                                             min_size=len(sizes), max_size=len(sizes)))
    assert golden.calc_buffer_tensor_size(name, sizes, strides) == \
        _calc_reference(name, sizes, strides)


@settings(max_examples=100, deadline=None)
@given(layout=layouts())
def test_calc_buffer_tensor_size_is_the_doc_formula_and_fits_gather(layout):
    sizes, strides, dtype, _ = layout
    name = {v: k for k, v in golden.DATA_TYPES.items()}[np.dtype(dtype)]
    size = golden.calc_buffer_tensor_size(name, sizes, strides)
    used = strides if strides is not None else golden.packed_strides(sizes)
    last = sum((n - 1) * s for n, s in zip(sizes, used))
    assert size == -(-(last + 1) * np.dtype(dtype).itemsize // 4) * 4
    golden.gather(np.zeros(size, np.uint8), 0, dtype, sizes, strides)   # fits exactly


def test_calc_buffer_tensor_size_examples():
    assert golden.calc_buffer_tensor_size("FLOAT32", [1, 2, 3, 4]) == 96          # HelloDirectML
    assert golden.calc_buffer_tensor_size("FLOAT16", [3]) == 8
    assert golden.calc_buffer_tensor_size("FLOAT32", [1, 8, 28, 28], [8, 1, 0, 0]) == 32
    assert golden.calc_buffer_tensor_size("UINT8", [5]) == 8
    assert golden.calc_buffer_tensor_size("INT64", [3]) == 24
    # strided: the last index wraps at 2**32 (2**32 + 2**16 -> 2**16)
    assert golden.calc_buffer_tensor_size("FLOAT32", [2 ** 16 + 1, 2 ** 16 + 1],
                                          [2 ** 16, 1]) == (2 ** 16 + 1) * 4
    # packed: 64-bit product, no wrap
    assert golden.calc_buffer_tensor_size("FLOAT32", [2 ** 20, 2 ** 20]) == 2 ** 42
    # (UINT64(index) + 1): index 2**32 - 1 does not wrap to 0
    assert golden.calc_buffer_tensor_size("UINT8", [2 ** 32 - 1, 2], [1, 1]) == 2 ** 32
    assert golden.calc_buffer_tensor_size("UINT8", [2, 1], [2 ** 32 - 1, 0]) == 2 ** 32
    assert golden.calc_buffer_tensor_size("UINT4", [3]) == 4       # 12 bits -> 2 bytes -> 4
    assert golden.calc_buffer_tensor_size("UNKNOWN", [3]) == 0
    assert golden.calc_buffer_tensor_size("DML_TENSOR_DATA_TYPE_FLOAT16", [3]) == 8


# ---------------------------------------------------------------------------------------------
# The element-wise family (docs/NUMERICS.md): the golden model against the documented
# examples and against independent references (fractions, Python's integers, math.fmod)
# ---------------------------------------------------------------------------------------------

def bits_equal(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    width = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize]
    return np.array_equal(a.view(width), b.view(width))


def test_round_follows_the_rounding_mode_table_of_the_directml_page():
    # DML_ROUNDING_MODE remarks: the rows for -2.5, -1.75, -1.5, -1.25, 0, 1.25, 1.5, 1.75, 2.5
    x = np.array([-2.5, -1.75, -1.5, -1.25, 0, 1.25, 1.5, 1.75, 2.5], dtype=np.float32)
    table = {0: [-2, -2, -2, -1, 0, 1, 2, 2, 2], 1: [-2, -1, -1, -1, 0, 1, 1, 1, 2], 2: [-3, -2, -2, -1, 0, 1, 2, 2, 3]}
    for mode, expected in table.items():
        for dtype in (np.float32, np.float16):
            for half in (False, True):
                got = golden.run("ELEMENT_WISE_ROUND", [x.astype(dtype)], {"RoundingMode": mode}, half_precision=half)
                assert got.dtype == dtype and got.tolist() == expected, (mode, dtype, half)
    zeros = golden.round_(np.array([-0.25, -0.0, 0.4], np.float32), 2)
    assert np.signbit(zeros).tolist() == [True, True, False] and not zeros.any()


def test_float_divide_is_the_correctly_rounded_quotient():
    from fractions import Fraction
    rng = np.random.default_rng(3)
    a = rng.integers(0, 2 ** 32, 400, dtype=np.uint64).astype(np.uint32).view(np.float32)
    b = rng.integers(0, 2 ** 32, 400, dtype=np.uint64).astype(np.uint32).view(np.float32)
    q = golden.divide(a, b)
    for x, y, got in zip(a, b, q):
        if not (np.isfinite(x) and np.isfinite(y)) or y == 0:
            continue
        exact = Fraction(float(x)) / Fraction(float(y))
        below = np.nextafter(got, np.float32(-np.inf))
        above = np.nextafter(got, np.float32(np.inf))
        if np.isfinite(got) and got != 0:   # no representable value is nearer to the exact quotient
            assert abs(Fraction(float(got)) - exact) <= abs(Fraction(float(below)) - exact)
            assert abs(Fraction(float(got)) - exact) <= abs(Fraction(float(above)) - exact)
    assert bits_equal(golden.divide(np.float32([1, -1, 0, np.inf]), np.float32([0, 0, 0, np.inf]))[:2],
                      np.float32([np.inf, -np.inf]))
    assert np.isnan(golden.divide(np.float32([0, np.inf]), np.float32([0, np.inf]))).all()


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
def test_integer_division_and_both_moduli_follow_c_and_python(dtype):
    values = [-7, 7, -1, 1, 2, -2, 3, -3, 0, np.iinfo(dtype).min, np.iinfo(dtype).max]
    a = np.array([x for x in values for _ in values], dtype=dtype)
    b = np.array([y for _ in values for y in values], dtype=dtype)
    q, t, f = golden.divide(a, b), golden.modulus_truncate(a, b), golden.modulus_floor(a, b)
    bits = 8 * np.dtype(dtype).itemsize
    wrap = lambda v: (v + (1 << bits - 1)) % (1 << bits) - (1 << bits - 1)
    for x, y, qq, tt, ff in zip(a.tolist(), b.tolist(), q.tolist(), t.tolist(), f.tolist()):
        if y == 0:
            assert qq == tt == ff == -1            # all bits set
            continue
        trunc = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
        assert qq == wrap(trunc), (x, y)          # toward zero; MIN / -1 wraps
        assert tt == wrap(x - trunc * y) and ff == wrap(x % y), (x, y)   # C's % and Python's %
    assert golden.divide(np.uint8([200, 7]), np.uint8([0, 2])).tolist() == [255, 3]


def test_float_moduli_are_fmod_and_python_mod():
    rng = np.random.default_rng(4)
    a = (rng.normal(size=300) * 10.0 ** rng.integers(-5, 6, 300)).astype(np.float32)
    b = (rng.normal(size=300) * 10.0 ** rng.integers(-5, 6, 300)).astype(np.float32)
    t, f = golden.modulus_truncate(a, b), golden.modulus_floor(a, b)
    for x, y, tt, ff in zip(a, b, t, f):
        assert bits_equal(np.float32(math.fmod(float(x), float(y))), tt)   # exact
        r = math.fmod(float(x), float(y))
        if r != 0 and (r < 0) != (y < 0):
            r = float(np.float32(r) + y)
        assert ff == np.float32(r)
    assert bits_equal(golden.modulus_truncate(np.float32([-4.0, 5.0]), np.float32([2.0, np.inf])),
                      np.float32([-0.0, 5.0]))
    assert np.signbit(golden.modulus_floor(np.float32([4.0]), np.float32([-2.0])))[0]   # zero of b's sign


def test_cast_saturates_wraps_and_rounds_once():
    assert golden.cast(np.float32([1e10, -1e10, np.nan, -1.9, 2.9]), "INT32").tolist() == \
        [2 ** 31 - 1, -2 ** 31, 0, -1, 2]
    assert golden.cast(np.float32([300.0, -5.0]), "UINT8").tolist() == [255, 0]
    assert golden.cast(np.int64([300, -1]), "INT8").tolist() == [44, -1]            # the low bits
    assert golden.cast(np.int8([-1]), "UINT64").tolist() == [2 ** 64 - 1]          # sign-extended
    assert golden.cast(np.uint8([255]), "INT64").tolist() == [255]                 # zero-extended
    # 1 + 2^-11 + 2^-40: through FLOAT32 it would round to the tie 1 + 2^-11 and then to even (1.0)
    x = np.float64(1 + 2 ** -11 + 2 ** -40)
    assert golden.cast(np.array([x]), "FLOAT16")[0] == np.float16(1 + 2 ** -10)
    signalling = np.array([0x7C01], np.uint16).view(np.float16)
    assert golden.cast(signalling, "FLOAT32").view(np.uint32)[0] == 0x7F802000        # exact widening
    assert golden.cast(signalling, "FLOAT64").view(np.uint64)[0] == 0x7FF8000000000000
    assert golden.cast(np.int32([16777217]), "FLOAT32")[0] == np.float32(16777216)


def test_shifts_bit_count_mean_and_sign_rules():
    assert golden.bit_shift_left(np.uint32([1, 1, 1]), np.uint32([31, 32, 100])).tolist() == [2 ** 31, 0, 0]
    assert golden.bit_shift_right(np.int8([-128, -128, 64]), np.int8([1, 100, -1])).tolist() == [-64, -1, 0]
    assert golden.bit_shift_left(np.uint8([1]), np.uint8([9])).tolist() == [0]
    assert golden.bit_count(np.int8([-1, 0, 5])).tolist() == [8, 0, 2]
    assert golden.bit_count(np.float32([-0.0])).tolist() == [1]
    big = np.iinfo(np.int32).max
    assert golden.mean(np.int32([big, -3, 3]), np.int32([big, 0, 0])).tolist() == [big, -2, 1]
    got = golden.sign(np.float32([-0.0, 0.0, -3, 7, np.nan]))
    assert bits_equal(got, np.array([0x80000000, 0, 0xBF800000, 0x3F800000, 0x7FC00000], np.uint32).view(np.float32))
    assert golden.sign(np.int8([-128, 0, 5])).tolist() == [-1, 0, 1]


def test_abs_and_negate_keep_nan_payloads_and_wrap_integers():
    payload = np.array([0xFFC01234, 0x7F800001], np.uint32).view(np.float32)
    assert golden.abs_(payload).view(np.uint32).tolist() == [0x7FC01234, 0x7F800001]
    assert golden.negate(payload).view(np.uint32).tolist() == [0x7FC01234, 0xFF800001]
    assert golden.abs_(np.int32([-2 ** 31])).tolist() == [-2 ** 31]
    assert golden.negate(np.int64([-2 ** 63])).tolist() == [-2 ** 63]


def test_clip_grad_and_the_activations_follow_their_formulas():
    x = np.float32([-2, -1, 0, 0.5, 1, 2, np.nan])
    g = np.float32([10, 20, 30, 40, 50, 60, 70])
    # DML_ELEMENT_WISE_CLIP_GRAD: 0 where x <= Min or x >= Max, else the gradient; NaN fails both tests
    assert golden.clip_grad(x, g, -1.0, 1.0).tolist() == [0, 0, 30, 40, 0, 0, 70]
    assert golden.activation("RELU_GRAD", x, g).tolist() == [0, 0, 0, 40, 50, 60, 0]
    assert golden.activation("THRESHOLDED_RELU", x, Alpha=0.5).tolist()[:6] == [0, 0, 0, 0, 1, 2]
    assert golden.activation("SHRINK", x, Bias=0.5, Threshold=1.0).tolist()[:6] == [-1.5, 0, 0, 0, 0, 1.5]
    # a negative Threshold: x < -Threshold is tested first (the formula's order), so it wins
    assert golden.activation("SHRINK", np.float32([0.25, 2.0]), Bias=1.0, Threshold=-0.5).tolist() == [1.25, 1.0]
    hs = golden.activation("HARD_SIGMOID", x, Alpha=0.2, Beta=0.5)
    assert hs[-1] == 1.0 and hs[0] == np.float32(np.float32(0.2) * np.float32(-2)) + np.float32(0.5)
    relu = golden.activation("RELU", np.float32([-0.0, np.nan, -1, 3]))
    assert bits_equal(relu, np.float32([0.0, 0.0, 0.0, 3.0]))
    fused = golden.add1(np.float32([1, -4]), np.float32([1, 1]), ("ACTIVATION_LEAKY_RELU", {"Alpha": 0.5}))
    assert fused.tolist() == [2.0, -1.5]


def test_run_dispatches_every_operator_by_name():
    from dmlemu.kernels.element_wise_ops import OPERATORS
    assert set(OPERATORS) <= set(golden.OPERATORS)
    x = np.float32([1.5, -2.0])
    assert golden.run("DML_OPERATOR_ELEMENT_WISE_ADD", [x, x]).tolist() == [3.0, -4.0]
    assert golden.run("ELEMENT_WISE_LOGICAL_LESS_THAN", [x, np.float32([2, -3])], output_type="UINT32").dtype == \
        np.uint32
    with pytest.raises(KeyError, match="no operator LSTM"):
        golden.run("LSTM", [x])


INF, NAN = np.inf, np.nan
# (operator, attributes, inputs, expected): the special cases docs/NUMERICS.md writes down for the
# transcendental functions, in FLOAT32 and FLOAT16 (both paths); -0 and NaN compared by bits.
MATH_SPECIAL_CASES = [
    ("ELEMENT_WISE_EXP", {}, [[0.0, -0.0, INF, -INF, NAN, -200.0, 200.0]], [1.0, 1.0, INF, 0.0, NAN, 0.0, INF]),
    ("ELEMENT_WISE_LOG", {}, [[1.0, 0.0, -0.0, -1.0, INF, NAN]], [0.0, -INF, -INF, NAN, INF, NAN]),
    ("ELEMENT_WISE_SQRT", {}, [[-0.0, -1.0, INF, 4.0]], [-0.0, NAN, INF, 2.0]),
    ("ELEMENT_WISE_RECIP", {}, [[0.0, -0.0, INF, -INF, 4.0]], [INF, -INF, 0.0, -0.0, 0.25]),
    ("ELEMENT_WISE_SIN", {}, [[0.0, -0.0, INF, -INF, NAN, 1e-30, -1e-30]], [0.0, -0.0, NAN, NAN, NAN, 1e-30, -1e-30]),
    ("ELEMENT_WISE_COS", {}, [[0.0, -0.0, INF, NAN]], [1.0, 1.0, NAN, NAN]),
    ("ELEMENT_WISE_TAN", {}, [[0.0, -0.0, INF, NAN]], [0.0, -0.0, NAN, NAN]),
    ("ELEMENT_WISE_ASIN", {}, [[0.0, -0.0, 1.5, -INF, NAN]], [0.0, -0.0, NAN, NAN, NAN]),
    ("ELEMENT_WISE_ACOS", {}, [[1.0, 2.0, NAN]], [0.0, NAN, NAN]),
    ("ELEMENT_WISE_ATAN", {}, [[0.0, -0.0, NAN]], [0.0, -0.0, NAN]),
    ("ELEMENT_WISE_ATAN_YX", {}, [[0.0, -0.0, 0.0, -0.0, 1.0, NAN, 0.0], [0.0, 0.0, -0.0, -0.0, NAN, 1.0, 5.0]],
     [0.0, -0.0, np.pi, -np.pi, NAN, NAN, 0.0]),
    ("ELEMENT_WISE_SINH", {}, [[0.0, -0.0, INF, -INF, NAN]], [0.0, -0.0, INF, -INF, NAN]),
    ("ELEMENT_WISE_COSH", {}, [[0.0, -0.0, INF, -INF, NAN]], [1.0, 1.0, INF, INF, NAN]),
    ("ELEMENT_WISE_TANH", {}, [[0.0, -0.0, INF, -INF, NAN, 50.0]], [0.0, -0.0, 1.0, -1.0, NAN, 1.0]),
    ("ELEMENT_WISE_ASINH", {}, [[0.0, -0.0, INF, -INF, NAN]], [0.0, -0.0, INF, -INF, NAN]),
    ("ELEMENT_WISE_ACOSH", {}, [[1.0, 0.5, -2.0, INF, NAN]], [0.0, NAN, NAN, INF, NAN]),
    ("ELEMENT_WISE_ATANH", {}, [[0.0, -0.0, 1.0, -1.0, 1.5, NAN]], [0.0, -0.0, INF, -INF, NAN, NAN]),
    ("ELEMENT_WISE_ERF", {}, [[0.0, -0.0, INF, -INF, NAN, 10.0]], [0.0, -0.0, 1.0, -1.0, NAN, 1.0]),
    ("ELEMENT_WISE_POW", {}, [[NAN, 1.0, -1.0, -2.0, -0.0, -0.0, -INF, -0.0, -2.0, 0.0, INF, 2.0],
                              [0.0, NAN, INF, 3.0, 3.0, -3.0, 3.0, 0.5, 0.5, -1.0, -1.0, 10.0]],
     [1.0, 1.0, 1.0, -8.0, -0.0, -INF, -INF, 0.0, NAN, INF, 0.0, 1024.0]),
    ("ELEMENT_WISE_CONSTANT_POW", {"Exponent": np.float32(2.0)}, [[-3.0, NAN, -0.0]], [9.0, NAN, 0.0]),
    ("ACTIVATION_ELU", {"Alpha": np.float32(1.0)}, [[-0.0, -INF, NAN, 2.0]], [-0.0, -1.0, NAN, 2.0]),
    ("ACTIVATION_CELU", {"Alpha": np.float32(1.0)}, [[NAN, -INF, 3.0]], [0.0, -1.0, 3.0]),
    ("ACTIVATION_GELU", {}, [[-INF, INF, NAN, 0.0]], [-0.0, INF, NAN, 0.0]),
    ("ACTIVATION_SIGMOID", {}, [[0.0, INF, -INF, NAN]], [0.5, 1.0, 0.0, NAN]),
    ("ACTIVATION_SOFTPLUS", {"Steepness": np.float32(1.0)}, [[INF, -INF, NAN]], [INF, 0.0, NAN]),
    ("ACTIVATION_SOFTSIGN", {}, [[INF, -INF, NAN, 1.0]], [1.0, -1.0, NAN, 0.5]),
    ("ACTIVATION_SWISH", {"SigmoidInputScale": np.float32(1.0)}, [[0.0, INF, NAN]], [0.0, INF, NAN]),
]


@pytest.mark.parametrize("name, attributes, inputs, expected", MATH_SPECIAL_CASES)
@pytest.mark.parametrize("dtype, half", [(np.float32, False), (np.float16, False), (np.float16, True)])
def test_transcendental_special_cases(name, attributes, inputs, expected, dtype, half):
    with np.errstate(over="ignore"):
        got = golden.run(name, [np.array(i, dtype=dtype) for i in inputs], attributes, None, half)
        want = np.array(expected, dtype=np.float64).astype(dtype)
    bits = {2: np.uint16, 4: np.uint32}[np.dtype(dtype).itemsize]
    exact = ~np.isnan(want) & (np.isinf(want) | (want == 0) | (np.abs(want) == 1) | (want == 0.5) | (np.abs(want) == 8))
    assert np.array_equal(np.isnan(got), np.isnan(want)), (got, want)
    assert np.all(got.view(bits)[np.isnan(got)] == golden.canonical_nan(dtype).view(bits))   # canonical NaNs
    assert np.array_equal(got[exact].view(bits), want[exact].view(bits)), (got, want)        # signs of zero too
    close = ~np.isnan(want) & ~exact
    assert np.allclose(got[close], want[close], rtol=4e-3), (got, want)


# ---------------------------------------------------------------------------------------------
# Speed baseline (excluded by default: pytest -m benchmark)
# ---------------------------------------------------------------------------------------------

@pytest.mark.benchmark
def test_benchmark_clip_float16_scale_bias_2_24_elements():
    import time
    x = np.random.default_rng(0).integers(0, 1 << 16, 1 << 24, dtype=np.uint32)
    x = x.astype(np.uint16).view(np.float16)
    golden.clip(x, -1.0, 2.0, scale_bias=(1.5, 0.25))     # warm-up (page faults)
    start = time.perf_counter()
    golden.clip(x, -1.0, 2.0, scale_bias=(1.5, 0.25))
    elapsed = time.perf_counter() - start
    print(f"golden clip, 2**24 float16 elements with ScaleBias: {elapsed:.3f} s")
    assert elapsed < 1.0
