"""MATRIX_MULTIPLY_INTEGER and QUANTIZED_LINEAR_MATRIX_MULTIPLY in the order docs/NUMERICS.md ("Integer and
quantized matrix multiplication") fixes, vectorised over (batch, m, n).

Every output element is the exact sum over k of (A[m, k] - AZeroPoint[m]) * (B[k, n] - BZeroPoint[n]), kept modulo
2^32 as INT32 (two's complement; the products of 8-bit values are exact, so the order of the sum is immaterial);
a zero point left out is 0, one value is per tensor, a vector of M (N) values per row (column). The quantized
product then takes, per element: float(sum) rounded once to FLOAT32; times (AScale[m] * BScale[n], rounded),
rounded; divided by OutputScale[m], correctly rounded; round half to even; plus OutputZeroPoint[m] (exact); then
saturated to INT8 / UINT8 (NaN -> 0), as QUANTIZE_LINEAR requantizes. This module follows that text, not the
kernel (kernels/gemm.s with INTEGER): it never assembles or runs anything.
"""
import numpy as np

from dmlemu.golden.numbers import as_dtype
from dmlemu.golden.quantize import _quantized
from dmlemu.golden.registry import operator
from dmlemu.isa import numerics as _nm   # primitives only (integer -> FLOAT32 rounding); the ISA is never run


def _per_line(x, shape, axis):
    """A scale or zero point (None, one value, or one per row (axis -2) / column (axis -1)) as an array that
    broadcasts against `shape`."""
    if x is None:
        return np.zeros(1, np.int64)
    x = np.asarray(x)
    if x.size == 1:
        return x.reshape(())
    along = shape[axis]
    return x.reshape((along, 1) if axis == -2 else (along,))


def _integer_product(a, a_zero_point, b, b_zero_point):
    """The INT32 sums: (A - AZP) x (B - BZP) exact in int64, wrapped to 32 bits."""
    a, b = np.asarray(a), np.asarray(b)
    ad = a.astype(np.int64) - _per_line(a_zero_point, a.shape, -2).astype(np.int64)
    bd = b.astype(np.int64) - _per_line(b_zero_point, b.shape, -1).astype(np.int64)
    return np.matmul(ad, bd).astype(np.int32)     # |products| < 2^16: int64 is exact for any K below 2^47


@operator(name="MATRIX_MULTIPLY_INTEGER")
def matrix_multiply_integer(a, a_zero_point, b, b_zero_point):
    """MATRIX_MULTIPLY_INTEGER on INT8 / UINT8 arrays (.., M, K) and (.., K, N): INT32 (.., M, N)."""
    return _integer_product(a, a_zero_point, b, b_zero_point)


@operator(name="QUANTIZED_LINEAR_MATRIX_MULTIPLY", output_type=True)
def quantized_linear_matrix_multiply(a, a_scale, a_zero_point, b, b_scale, b_zero_point, output_scale,
                                     output_zero_point, output_type=None):
    """QUANTIZED_LINEAR_MATRIX_MULTIPLY: the INT32 sums requantized into `output_type` (default the output zero
    point's type, else UINT8) in the order of the module docstring."""
    acc = _integer_product(a, a_zero_point, b, b_zero_point)
    shape = acc.shape
    a_s = _per_line(a_scale, shape, -2).astype(np.float32)
    b_s = _per_line(b_scale, shape, -1).astype(np.float32)
    o_s = _per_line(output_scale, shape, -2).astype(np.float32)
    o_z = None if output_zero_point is None else _per_line(output_zero_point, shape, -2)
    if output_type is None:
        output_type = np.asarray(output_zero_point).dtype if output_zero_point is not None else np.uint8
    with np.errstate(all="ignore"):
        value = _nm.int_to_float(acc, np.float32) * (a_s * b_s)      # each product rounded once in float32
        value = value.astype(np.float32) / o_s                        # the IEEE quotient, float32
    return _quantized(np.asarray(value, np.float32), o_z, as_dtype(output_type))
