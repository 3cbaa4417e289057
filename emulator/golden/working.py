"""The working precision of an operator: ScaleBias, FLOAT16 widened to FLOAT32 (or every step in FLOAT16), the store.

Instruction-level primitives whose rounding the numeric rules define once (a correctly rounded reciprocal, a
fused multiply-add rounded once, float -> integer conversion, FLOAT16 narrowing) come from dmlemu.isa.numerics;
everything else is plain NumPy on whole arrays.
"""
import numpy as np

from dmlemu.golden.numbers import BITS, cast_bound, check_tensor_dtype, type_name
from dmlemu.isa import numerics as _nm   # primitives only; the ISA is never run


def _scale_bias_values(scale_bias):
    if hasattr(scale_bias, "Scale"):           # a DML_SCALE_BIAS struct
        return float(scale_bias.Scale), float(scale_bias.Bias)
    scale, bias = scale_bias
    return float(scale), float(bias)


def working_values(x, scale_bias, half_precision):
    """The operator's input in its working type (a fresh array), after ScaleBias if given.

    FLOAT16 tensors work in float32 (widening is exact), FLOAT32 in float32, FLOAT64 in float64,
    integers in their own type. After ScaleBias, NaNs in work may be non-canonical.
    """
    dtype = x.dtype
    if scale_bias is None:
        if dtype == np.float16:
            return x.astype(np.float32)
        return x.copy()
    if dtype not in (np.float16, np.float32):
        raise ValueError(f"ScaleBias is only valid for FLOAT16 and FLOAT32 tensors, "
                         f"not {type_name(dtype)}")
    scale, bias = _scale_bias_values(scale_bias)
    if dtype == np.float16 and half_precision:
        # Every step rounds to FLOAT16, Scale and Bias included (float32 first: they are FLOATs).
        scale16 = cast_bound(scale, np.float16)
        bias16 = cast_bound(bias, np.float16)
        # A float16 x float16 product has at most 22 significant bits and a magnitude in
        # [2**-48, 2**32] (or is 0/inf/NaN), so float32 holds it exactly and the one cast to
        # float16 is the correctly rounded product (same result as exact float64; cheaper).
        work = x.astype(np.float32)
        work *= np.float32(scale16)
        product16 = work.astype(np.float16)
        # A float16 + float16 sum spans at most 40 + 11 bits, so float64 holds it exactly, and
        # NumPy's direct float64 -> float16 cast rounds it once to nearest even.
        total = product16.astype(np.float32).astype(np.float64)
        total += np.float64(bias16)
        sum16 = total.astype(np.float16)
        del total
        return sum16.astype(np.float32)
    # Default path (FLOAT32 tensors, and FLOAT16 widened to FLOAT32): a float32 multiply then a
    # float32 add, each correctly rounded (NumPy float32 ops are IEEE), never fused.
    work = x.astype(np.float32)
    work *= np.float32(scale)
    work += np.float32(bias)
    return work


def store(work, dtype):
    """Narrow the working array to the tensor type (FLOAT16: one round to nearest even)."""
    if work.dtype == dtype:
        return work
    return work.astype(dtype)


class Work:
    """The working precision of one float operator: FLOAT16 widened to float32 (or, with half
    precision, every step rounded to float16), FLOAT32 in float32. Integer tensors work in their
    own type (NumPy's integer arithmetic wraps, as the kernels' 32- and 64-bit registers do once
    narrowed)."""

    def __init__(self, dtype, half_precision=False):
        self.storage = np.dtype(dtype)
        self.is_float = self.storage.kind == "f"
        self.half = bool(half_precision) and self.storage == np.float16
        if self.storage == np.float16 and not self.half:
            self.dtype = np.dtype(np.float32)
        else:
            self.dtype = self.storage

    def widen(self, x):
        """An input in the working type (FLOAT16 -> float32 is exact and keeps NaN payloads)."""
        return np.asarray(x).astype(self.dtype)

    def param(self, value):
        """A FLOAT attribute in the working type: rounded to FLOAT32 (it is a C FLOAT), then to FLOAT16
        with half precision."""
        with np.errstate(over="ignore"):
            return self.dtype.type(np.float32(value))

    def _binary(self, fn, a, b):
        with np.errstate(all="ignore"):
            if self.half:   # a float16 sum, difference or product is exact in float64: one rounding
                return _nm.narrow_f16(fn(np.asarray(a, np.float64), np.asarray(b, np.float64)))
            return _nm.canonicalize(np.asarray(fn(np.asarray(a, self.dtype), np.asarray(b, self.dtype)),
                                               dtype=self.dtype))

    def add(self, a, b):
        return self._binary(np.add, a, b)

    def sub(self, a, b):
        return self._binary(np.subtract, a, b)

    def mul(self, a, b):
        return self._binary(np.multiply, a, b)

    def mad(self, a, b, c):
        """a * b + c with the product and the sum each rounded (not fused)."""
        return self.add(self.mul(a, b), c)

    def fma(self, a, b, c):
        a, b, c = np.broadcast_arrays(np.asarray(a, self.dtype), np.asarray(b, self.dtype), np.asarray(c, self.dtype))
        fma = _nm.fused_multiply_add_f64 if self.dtype == np.float64 else _nm.fused_multiply_add
        return np.asarray(fma(a, b, c), dtype=self.dtype)

    def rcp(self, b):
        return np.asarray(_nm.reciprocal(np.asarray(b, self.dtype), self.dtype), dtype=self.dtype)

    def finish(self, y, canonical=False):
        """The stored result: NaNs made canonical when `canonical` (operators that select rather than
        compute), then FLOAT16 narrowed once (round to nearest even, NaN canonical) when widened."""
        y = np.asarray(y)
        if canonical and self.is_float:
            y = _nm.canonicalize(y)
        with np.errstate(over="ignore"):
            if self.is_float and self.storage == np.float16 and not self.half:
                return _nm.narrow_f16(y.astype(np.float32))
            return y.astype(self.storage)


def scale_biased(x, scale_bias, half_precision):
    """(work, Work): x in its working type after the optional ScaleBias."""
    x = np.asarray(x)
    check_tensor_dtype(x.dtype)
    w = Work(x.dtype, half_precision)
    if scale_bias is None:
        return w.widen(x), w
    with np.errstate(all="ignore"):
        work = working_values(x, scale_bias, half_precision)   # float32 (holding FLOAT16 values with half)
    return _nm.canonicalize(work).astype(w.dtype), w


def same_dtype(*arrays):
    arrays = [np.asarray(a) for a in arrays]
    for a in arrays[1:]:
        if a.dtype != arrays[0].dtype:
            raise TypeError(f"the tensors of this operator share one data type, not {arrays[0].dtype} and {a.dtype}")
    check_tensor_dtype(arrays[0].dtype)
    return arrays


def bits_of(x):
    x = np.asarray(x)
    return x.view(BITS[x.dtype.itemsize])
