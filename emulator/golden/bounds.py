"""IDENTITY, THRESHOLD, CLIP and IF: the copy, the bounds and the select (the kernels' own listings).

Without a ScaleBias IDENTITY copies bits; THRESHOLD and CLIP cast their FLOAT bounds to the tensor type and
apply maxNum / minNum in the working type; IF selects bits under a UINT8 condition.
"""
import numpy as np

from dmlemu.golden.numbers import (BITS, canonicalize_nans, cast_bound, check_tensor_dtype,
                                   min_max_bound_inplace)
from dmlemu.golden.registry import operator
from dmlemu.golden.working import store, working_values


@operator(name="ELEMENT_WISE_IDENTITY", scale_bias=True, half_precision=True)
def identity(x, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_IDENTITY: f(x) = x, or g(x) = x * Scale + Bias with a ScaleBias.

    Without a ScaleBias the bits are copied (NaN payloads, signalling NaNs and -0 survive).
    """
    x = np.asarray(x)
    check_tensor_dtype(x.dtype)
    if scale_bias is None:
        return x.copy()
    with np.errstate(all="ignore"):
        work = working_values(x, scale_bias, half_precision)
        canonicalize_nans(work)
        return store(work, x.dtype)


@operator(name="ELEMENT_WISE_THRESHOLD", attributes=("Min",), scale_bias=True, half_precision=True)
def threshold(x, min_value, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_THRESHOLD: f(x) = maxNum(g(x), Min). A NaN input gives Min."""
    x = np.asarray(x)
    check_tensor_dtype(x.dtype)
    with np.errstate(all="ignore"):
        work = working_values(x, scale_bias, half_precision)
        if x.dtype.kind in "iu":
            np.maximum(work, cast_bound(min_value, x.dtype), out=work)
            return work
        low = work.dtype.type(cast_bound(min_value, x.dtype))  # FLOAT16: widened exactly
        min_max_bound_inplace(work, low, is_min=False)
        if np.isnan(low):
            # maxNum(x, NaN) = x: a NaN x is a NaN result and must be the canonical one.
            canonicalize_nans(work)
        return store(work, x.dtype)


@operator(name="ELEMENT_WISE_CLIP", attributes=("Min", "Max"), scale_bias=True, half_precision=True)
def clip(x, min_value, max_value, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_CLIP: f(x) = maxNum(Min, minNum(g(x), Max)), in this order.

    So a NaN input gives maxNum(Min, Max), Min > Max gives Min everywhere, and a NaN bound is
    ignored.
    """
    x = np.asarray(x)
    check_tensor_dtype(x.dtype)
    with np.errstate(all="ignore"):
        work = working_values(x, scale_bias, half_precision)
        if x.dtype.kind in "iu":
            # Integers compare in their own width and signedness; x never becomes a float.
            np.minimum(work, cast_bound(max_value, x.dtype), out=work)
            np.maximum(work, cast_bound(min_value, x.dtype), out=work)
            return work
        low = work.dtype.type(cast_bound(min_value, x.dtype))
        high = work.dtype.type(cast_bound(max_value, x.dtype))
        min_max_bound_inplace(work, high, is_min=True)
        min_max_bound_inplace(work, low, is_min=False)
        if np.isnan(low) and np.isnan(high):
            # Only with both bounds NaN can a NaN reach the result (a NaN x passes both stages);
            # otherwise fmin/fmax have already replaced every NaN by a bound.
            canonicalize_nans(work)
        return store(work, x.dtype)


@operator(name="ELEMENT_WISE_IF")
def if_(condition, a, b):
    """ELEMENT_WISE_IF: a where the UINT8 condition byte is non-zero, else b, bits copied."""
    a = np.asarray(a)
    b = np.asarray(b)
    if a.dtype != b.dtype:
        raise TypeError(f"IF needs ATensor and BTensor of one data type, not {a.dtype} and {b.dtype}")
    check_tensor_dtype(a.dtype)
    # Select through unsigned views so no float register ever touches the bits.
    bits = BITS[a.dtype.itemsize]
    selected = np.where(np.asarray(condition) != 0, a.view(bits), b.view(bits))
    return selected.view(a.dtype)
