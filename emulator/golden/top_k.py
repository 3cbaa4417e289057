"""TOP_K and TOP_K1, written from the pages and docs/NUMERICS.md ("Top-K").

Each sequence along Axis is ordered by value, the largest first (TOP_K, TOP_K1 with AxisDirection DECREASING) or
the smallest first (TOP_K1 INCREASING); equal values keep ascending element index in either direction (the pages'
tie rule). Where the pages are silent, NUMERICS.md's rule: -0 equals +0 (a tie), every NaN equals every other NaN
and is larger than every number (first when the largest come first, last otherwise); FLOAT16 compares as its
exact FLOAT32 value. The first K of that order are the output: the values as the input's bits (a NaN payload, -0
and every FLOAT16 pattern unchanged) and their indices within the sequence.

The order is a stable sort on the values (NumPy's stable argsort and lexsort keep equal keys in index order),
never the kernel's integer keys: this module is their oracle.
"""
import numpy as np

from dmlemu.golden.registry import operator

__all__ = ["top_k", "top_k1", "top_k_order"]


def top_k_order(x, axis, largest):
    """The indices that order `x` along `axis` as the operator selects: values largest (or smallest) first, NaN the
    largest, -0 == +0, ties in ascending index."""
    x = np.moveaxis(np.asarray(x), axis, -1)
    index = np.broadcast_to(np.arange(x.shape[-1]), x.shape)
    if x.dtype.kind == "f":
        wide = x.astype(np.float32) if x.dtype == np.float16 else x
        nan = np.isnan(wide)
        finite = np.where(nan, 0, wide)
        # lexsort: the last key is the first criterion; a stable sort keeps ties in index order
        keys = (index, -finite, ~nan) if largest else (index, finite, nan)
        order = np.lexsort(keys, axis=-1)
    else:
        order = np.argsort(~x if largest else x, axis=-1, kind="stable")   # ~x reverses any integer order
    return np.moveaxis(order, -1, axis)


def _select(x, axis, k, largest):
    x = np.asarray(x)
    axis, k = int(axis), int(k)
    order = np.take(top_k_order(x, axis, largest), np.arange(k), axis=axis)
    return np.take_along_axis(x, order, axis=axis), order.astype(np.uint32)


@operator(name="TOP_K", attributes=("Axis", "K"))
def top_k(x, axis=0, k=1):
    """DML_OPERATOR_TOP_K: (values, indices as UINT32) of the K largest along `axis`."""
    return _select(x, axis, k, True)


@operator(name="TOP_K1", attributes=("Axis", "K", "AxisDirection"))
def top_k1(x, axis=0, k=1, axis_direction=1):
    """DML_OPERATOR_TOP_K1: AxisDirection DECREASING (1) the K largest, INCREASING (0) the K smallest."""
    return _select(x, axis, k, int(axis_direction) == 1)
