"""CAST and the quantization operators: QUANTIZE_LINEAR, DEQUANTIZE_LINEAR and QUANTIZED_LINEAR_ADD.

CAST converts between any two stored data types (round to nearest even, truncate and saturate to integers,
two's complement between integers); the quantization operators compute in FLOAT32 whatever the
half-precision flag says.
"""
import numpy as np

from dmlemu.golden.numbers import as_dtype, check_tensor_dtype, float_to_int
from dmlemu.golden.registry import operator
from dmlemu.isa import numerics as _nm


@operator(name="CAST", output_type=True)
def cast(x, output_type):
    """CAST to `output_type` (a DirectML name or a dtype). Floats -> floats: round to nearest even once, NaN
    canonical (FLOAT16 -> FLOAT32 is exact and keeps the payload; a same-type cast copies bits); floats ->
    integers: truncate, saturate, NaN -> 0; integers -> floats: round to nearest even (FLOAT16: through
    FLOAT32, which is exact below 2^24, and every larger value overflows FLOAT16 anyway); integers ->
    integers: two's complement, the low bits kept, sign- or zero-extended by the source's signedness."""
    x = np.asarray(x)
    check_tensor_dtype(x.dtype)
    out = as_dtype(output_type)
    if out == x.dtype:
        return x.copy()
    with np.errstate(all="ignore"):
        if x.dtype.kind == "f" and out.kind == "f":
            if x.dtype == np.float16 and out == np.float32:
                return x.astype(np.float32)
            if out == np.float16:
                return _nm.narrow_f64_to_f16(_nm.canonicalize(x.astype(np.float64)))
            return _nm.canonicalize(x.astype(np.float32 if x.dtype == np.float16 else x.dtype)).astype(out)
        if x.dtype.kind == "f":
            return float_to_int(x, out)
        if out.kind == "f":
            as32 = _nm.int_to_float(x, np.float32) if out != np.float64 else _nm.int_to_float(x, np.float64)
            return as32.astype(out)
        wide = x.astype(np.int64 if x.dtype.kind == "i" else np.uint64)
        return wide.astype(out)


# ---- quantization ---------------------------------------------------------------------------------------------
# QUANTIZE_LINEAR, DEQUANTIZE_LINEAR, QUANTIZED_LINEAR_ADD (docs/NUMERICS.md, "Quantization"): FLOAT32
# throughout whatever the half-precision flag says; a zero point left out (None) is 0. Scales and zero points of
# other shapes broadcast the NumPy way (the kernels broadcast them through stride 0).
def _quantized(value, zero_point, output_type):
    """sat(rndne(value) + zero_point) of float32 `value`: round half to even (exact), add the zero point in
    float32 (exact while |rndne(value)| < 2^24; beyond it the result saturates either way), then the FLOAT ->
    integer rule (truncate, saturate to INT8 / UINT8, NaN -> 0)."""
    zero = np.float32(0) if zero_point is None else np.asarray(zero_point).astype(np.float32)
    with np.errstate(all="ignore"):
        y = np.rint(np.asarray(value, np.float32)) + zero
    return float_to_int(y, as_dtype(output_type))


def _dequantized(x, scale, zero_point):
    """float32((x - zero_point)) * scale in float32: the difference exact (int64), converted once (exact below
    2^24), the product rounded once; NaN canonical."""
    x = np.asarray(x)
    diff = x.astype(np.int64) - (0 if zero_point is None else np.asarray(zero_point).astype(np.int64))
    with np.errstate(all="ignore"):
        return _nm.canonicalize(_nm.int_to_float(diff, np.float32) * np.asarray(scale).astype(np.float32))


@operator(name="ELEMENT_WISE_QUANTIZE_LINEAR", output_type=True)
def quantize_linear(x, scale, zero_point=None, output_type=None):
    """ELEMENT_WISE_QUANTIZE_LINEAR: sat(rndne(x / scale) + zero_point) into INT8 or UINT8 (`output_type`,
    default the zero point's type, else UINT8). x / scale is the IEEE quotient correctly rounded in float32
    (FLOAT16 x and scale widened exactly; INT32 x rounded once to float32 first)."""
    x = np.asarray(x)
    xf = _nm.int_to_float(x, np.float32) if x.dtype.kind in "iu" else x.astype(np.float32)
    with np.errstate(all="ignore"):
        q = xf / np.asarray(scale).astype(np.float32)   # NumPy's float32 division: the IEEE quotient
    if output_type is None:
        output_type = np.asarray(zero_point).dtype if zero_point is not None else np.uint8
    return _quantized(q, zero_point, output_type)


@operator(name="ELEMENT_WISE_DEQUANTIZE_LINEAR", output_type=True)
def dequantize_linear(x, scale, zero_point=None, output_type=None):
    """ELEMENT_WISE_DEQUANTIZE_LINEAR: (x - zero_point) * scale in float32 (see _dequantized), narrowed once to
    FLOAT16 when the output (`output_type`, default the scale's type) is FLOAT16."""
    y = _dequantized(x, scale, zero_point)
    out = as_dtype(output_type) if output_type is not None else np.asarray(scale).dtype
    with np.errstate(over="ignore"):
        return _nm.narrow_f16(y) if out == np.float16 else y


@operator(name="ELEMENT_WISE_QUANTIZED_LINEAR_ADD", output_type=True)
def quantized_linear_add(a, a_scale, a_zero_point, b, b_scale, b_zero_point, output_scale, output_zero_point,
                         output_type=None):
    """ELEMENT_WISE_QUANTIZED_LINEAR_ADD: AValue = (A - AZeroPoint) * AScale and BValue likewise (each as
    dequantize_linear), OutputValue = AValue + BValue, then sat(rndne(OutputValue / OutputScale) +
    OutputZeroPoint), every step rounded in float32. `output_type` defaults to the output zero point's type,
    else A's."""
    with np.errstate(all="ignore"):
        total = _dequantized(a, a_scale, a_zero_point) + _dequantized(b, b_scale, b_zero_point)
        q = total / np.asarray(output_scale).astype(np.float32)
    if output_type is None:
        output_type = np.asarray(output_zero_point if output_zero_point is not None else a).dtype
    return _quantized(q, output_zero_point, output_type)
