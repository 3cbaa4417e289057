"""CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT in the order docs/NUMERICS.md fixes ("Cumulative scans").

Along Axis, in AxisDirection order (INCREASING: ascending index; DECREASING: descending), each line keeps a running
tally: it starts at the identity (a float sum at -0, so that the first inclusive output is the first element, or
at +0 with HasExclusiveSum, its first output; a product at 1; integers at 0 or 1), and each element joins it by one
rounded FLOAT32 add or multiply (FLOAT16 widened exactly, the tally kept in FLOAT32 and each output rounded once to
FLOAT16), or a wrapping integer add or multiply of the tensor's own width. The output at an element is the tally
after it (inclusive) or before it (HasExclusive*). NaN results are canonical. Vectorised: one ufunc.accumulate,
which is that sequential scan (tests/directml/test_cumulative.py checks it against a loop written from the text).
"""
import numpy as np

from dmlemu.golden.numbers import canonicalize_nans
from dmlemu.golden.registry import operator
from dmlemu.isa import numerics as _nm   # primitives only (FLOAT16 narrowing); the ISA is never run


def _scan(x, axis, decreasing, exclusive, ufunc, identity):
    x = np.asarray(x)
    storage = x.dtype
    is_float = storage.kind == "f"
    work = np.moveaxis(x.astype(np.float32) if is_float else x, int(axis), 0)
    if decreasing:
        work = work[::-1]
    # ufunc.accumulate is the sequential scan: out[0] = x[0], out[i] = out[i-1] (op) x[i]. Starting the tally at
    # the identity changes only the first step: -0 + x and 1 * x are x (a NaN comes out canonical below); an
    # exclusive sum's +0 + x turns a first -0 into +0, so that element is replaced by the sum before the scan.
    first = ufunc(work.dtype.type(identity(is_float, exclusive)), work[:1])
    with np.errstate(all="ignore"):
        tally = ufunc.accumulate(np.concatenate([first, work[1:]]), axis=0, dtype=work.dtype)
    if exclusive:
        start = np.full((1,) + work.shape[1:], identity(is_float, exclusive), work.dtype)
        out = np.concatenate([start, tally[:-1]])
    else:
        out = tally
    if decreasing:
        out = out[::-1]
    out = np.moveaxis(out, 0, int(axis))
    if is_float:
        out = canonicalize_nans(np.ascontiguousarray(out, np.float32))
        with np.errstate(over="ignore"):
            out = _nm.narrow_f16(out) if storage == np.float16 else out
    return np.ascontiguousarray(out).astype(storage)


def _sum_identity(is_float, exclusive):
    return (0.0 if exclusive else -0.0) if is_float else 0


def _product_identity(is_float, exclusive):
    return 1


@operator(name="CUMULATIVE_SUMMATION", keyword_attributes=("Axis", "AxisDirection", "HasExclusiveSum"))
def cumulative_summation(x, Axis=0, AxisDirection=0, HasExclusiveSum=False):
    """DML_OPERATOR_CUMULATIVE_SUMMATION: the running sum along Axis (AxisDirection 1: from the last index)."""
    return _scan(x, Axis, int(AxisDirection) == 1, bool(HasExclusiveSum), np.add, _sum_identity)


@operator(name="CUMULATIVE_PRODUCT", keyword_attributes=("Axis", "AxisDirection", "HasExclusiveProduct"))
def cumulative_product(x, Axis=0, AxisDirection=0, HasExclusiveProduct=False):
    """DML_OPERATOR_CUMULATIVE_PRODUCT: the running product along Axis (AxisDirection 1: from the last index)."""
    return _scan(x, Axis, int(AxisDirection) == 1, bool(HasExclusiveProduct), np.multiply, _product_identity)
