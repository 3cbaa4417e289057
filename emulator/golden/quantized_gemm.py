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


@operator(name="CONVOLUTION_INTEGER", keyword_attributes=("Strides", "Dilations", "StartPadding", "EndPadding",
                                                          "GroupCount"))
def convolution_integer(x, x_zero_point, w, w_zero_point, Strides=None, Dilations=None, StartPadding=None,
                        EndPadding=None, GroupCount=1):
    """CONVOLUTION_INTEGER (cross-correlation, FORWARD): x {N, C, spatial..} and w {K, C/G, window..} (INT8 /
    UINT8), each less its zero point (one value; the filter's also one per output channel {1, K, 1, ..}), summed
    exactly over (channel of the group, window taps) with the padded taps contributing nothing (the input less its
    zero point is padded with 0, as ONNX's ConvInteger), kept modulo 2^32 as INT32."""
    x, w = np.asarray(x), np.asarray(w)
    spatial = x.ndim - 2
    ones, zeros = (1,) * spatial, (0,) * spatial
    strides = tuple(int(s) for s in (Strides if Strides is not None else ones))
    dilations = tuple(int(d) for d in (Dilations if Dilations is not None else ones))
    start = tuple(int(p) for p in (StartPadding if StartPadding is not None else zeros))
    end = tuple(int(p) for p in (EndPadding if EndPadding is not None else zeros))
    groups = int(GroupCount)
    xd = x.astype(np.int64) - (0 if x_zero_point is None else np.asarray(x_zero_point).astype(np.int64).reshape(()))
    wd = w.astype(np.int64)
    if w_zero_point is not None:
        wz = np.asarray(w_zero_point).astype(np.int64)
        wd = wd - (wz.reshape(()) if wz.size == 1 else wz.reshape((-1,) + (1,) * (w.ndim - 1)))
    xd = np.pad(xd, [(0, 0), (0, 0)] + list(zip(start, end)))       # padded taps add 0
    window = w.shape[2:]
    extent = tuple((k - 1) * d + 1 for k, d in zip(window, dilations))
    views = np.lib.stride_tricks.sliding_window_view(xd, extent, axis=tuple(range(2, 2 + spatial)))
    views = views[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in strides)
                  + tuple(slice(None, None, d) for d in dilations)]        # {N, C, O.., window..}
    n, c = x.shape[:2]
    k = w.shape[0]
    out_spatial = views.shape[2:2 + spatial]
    views = views.reshape((n, groups, c // groups) + out_spatial + tuple(window))
    wg = wd.reshape((groups, k // groups, c // groups) + tuple(window))
    letters = "defg"[:spatial]
    taps = "uvw"[:spatial]
    out = np.einsum(f"nhc{letters}{taps},hkc{taps}->nhk{letters}", views, wg, optimize=True)
    return out.reshape((n, k) + out_spatial).astype(np.int32)


@operator(name="QUANTIZED_LINEAR_CONVOLUTION", output_type=True,
          keyword_attributes=("Strides", "Dilations", "StartPadding", "EndPadding", "GroupCount"))
def quantized_linear_convolution(x, x_scale, x_zero_point, w, w_scale, w_zero_point, bias, output_scale,
                                 output_zero_point, output_type=None, Strides=None, Dilations=None, StartPadding=None,
                                 EndPadding=None, GroupCount=1):
    """QUANTIZED_LINEAR_CONVOLUTION: CONVOLUTION_INTEGER's INT32 sums plus the INT32 bias (modulo 2^32), then per
    element float(acc) rounded once, times (InputScale * FilterScale[k], rounded), rounded; / OutputScale,
    correctly rounded; round half to even; + OutputZeroPoint; saturated to `output_type` (default the output zero
    point's type, else UINT8)."""
    acc = convolution_integer(x, x_zero_point, w, w_zero_point, Strides, Dilations, StartPadding, EndPadding,
                              GroupCount)
    channel = lambda v: np.asarray(v).reshape((1, -1) + (1,) * (acc.ndim - 2))
    if bias is not None:
        acc = (acc.astype(np.int64) + channel(bias).astype(np.int64)).astype(np.int32)
    scale = np.asarray(x_scale, np.float32).reshape(()) * channel(np.asarray(w_scale, np.float32).reshape(-1))
    if output_type is None:
        output_type = np.asarray(output_zero_point).dtype if output_zero_point is not None else np.uint8
    with np.errstate(all="ignore"):
        value = _nm.int_to_float(acc, np.float32) * scale.astype(np.float32)
        value = value.astype(np.float32) / np.asarray(output_scale, np.float32).reshape(())
    zero = None if output_zero_point is None else np.asarray(output_zero_point).reshape(())
    return _quantized(np.asarray(value, np.float32), zero, as_dtype(output_type))


@operator(name="MATRIX_MULTIPLY_INTEGER_TO_FLOAT", output_type=True)
def matrix_multiply_integer_to_float(a, a_scale, a_zero_point, b, b_scale, b_zero_point, bias=None, output_type=None):
    """MATRIX_MULTIPLY_INTEGER_TO_FLOAT: the INT32 sums, then per element float(acc) rounded once to FLOAT32; times
    (AScale[m] * BScale[n], rounded), rounded; plus Bias[n] where given, rounded; FLOAT16 output (`output_type`,
    default the scales' type) rounded once more at the end (FLOAT16 scales and bias widened exactly)."""
    acc = _integer_product(a, a_zero_point, b, b_zero_point)
    shape = acc.shape
    out = as_dtype(output_type) if output_type is not None else np.asarray(a_scale).dtype
    a_s = _per_line(a_scale, shape, -2).astype(np.float32)
    b_s = _per_line(b_scale, shape, -1).astype(np.float32)
    with np.errstate(all="ignore"):
        value = (_nm.int_to_float(acc, np.float32) * (a_s * b_s)).astype(np.float32)
        if bias is not None:
            value = (value + _per_line(bias, shape, -1).astype(np.float32)).astype(np.float32)
        return _nm.narrow_f16(value) if out == np.float16 else value
