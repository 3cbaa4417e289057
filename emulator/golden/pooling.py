"""AVERAGE_POOLING(1), LP_POOLING(1), MAX_POOLING(1, 2) and MAX_UNPOOLING in the order docs/NUMERICS.md ("Pooling")
fixes.

Every output element (n, c, o) visits the taps t of its window in row-major ascending order (the last spatial
dimension fastest), the tap reading the input at i = o * Strides - StartPadding + t * Dilations (Dilations 1 where
the desc has none); a tap whose i falls in the padding is skipped.

  AVERAGE   acc = -0, acc = acc + x for each tap inside the input (each add rounded once, FLOAT32), then one
            correctly rounded divide by the count of those taps (IncludePadding FALSE) or by the window's size
            (IncludePadding TRUE); a window with no tap inside the input and IncludePadding FALSE gives -0 / 0 = NaN.
  LP        acc = -0, acc = acc + |x| (P 1) or acc + x x (P 2, the product rounded, then the add) for each tap inside
            the input, then (P 2) the correctly rounded square root; other P have no fixed order (no kernel either).
  MAX       acc = maxNum over the taps inside the input (a NaN element is skipped; all NaN, or no tap inside the
            input, gives NaN; max(-0, +0) = +0): the result does not depend on the order.

FLOAT16 tensors are widened (exact), computed in FLOAT32 and rounded once; NaN results are canonical. Integer
MAX_POOLING (INT8 .. UINT64) takes the integer maximum, the type's least value where no tap is inside the input.

  INDICES   (MAX_POOLING1 / 2's OutputIndicesTensor) the flat index ((((n C + c) D + d) H + h) W + w over the input's
            Sizes, whatever its Strides) of the first tap, in window order, whose element the running maximum took:
            a tap is taken when it is the first tap inside the input, or when maxNum(acc, x) differs from acc bit
            for bit (floats; integers: x > acc). So of equal values the first wins, a NaN is never taken after a
            number, the +0 after a -0 is, and an all-NaN window points at its first tap; a window with no tap
            inside the input gives all ones (UINT32 0xFFFFFFFF, UINT64 2^64 - 1: "no element", ONNX's -1).
  UNPOOL    (MAX_UNPOOLING) the output filled with zeros; each input element, in row-major order of the input's
            Sizes, written at the flat index (row-major over the output's Sizes) its index names; an index past the
            output writes nothing; of input elements naming the same index, the last in that order wins. Values
            are copied bit for bit (NaN payloads, -0).

This module follows that text, not the kernel: it never assembles or runs anything; one NumPy step per tap over every
output element at once.
"""
import itertools

import numpy as np

from dmlemu.golden.numbers import canonicalize_nans, max_num
from dmlemu.golden.registry import operator
from dmlemu.isa import numerics as _nm   # primitives only (FLOAT16 narrowing); the ISA is never run

__all__ = ["average_pooling", "average_pooling1", "lp_pooling", "lp_pooling1", "max_pooling", "max_pooling1",
           "max_pooling2", "max_unpooling", "pooling_taps"]
NO_ELEMENT = np.uint64(0xFFFFFFFFFFFFFFFF)     # the index of a window with no tap inside the input (all ones)


def _spatial(values, count, default):
    return tuple(int(v) for v in values) if values is not None else (default,) * count


def pooling_taps(shape, WindowSize, Strides=None, StartPadding=None, EndPadding=None, Dilations=None):
    """(output spatial sizes, [(valid mask, index arrays)] per tap in ascending order) of a window over an input
    of `shape` { N, C, spatial.. }."""
    spatial = len(shape) - 2
    window = _spatial(WindowSize, spatial, 1)
    strides, dilations = _spatial(Strides, spatial, 1), _spatial(Dilations, spatial, 1)
    start, end = _spatial(StartPadding, spatial, 0), _spatial(EndPadding, spatial, 0)
    sizes = tuple((shape[2 + d] + start[d] + end[d] - ((window[d] - 1) * dilations[d] + 1)) // strides[d] + 1
                  for d in range(spatial))
    coords = np.meshgrid(*[np.arange(s) for s in sizes], indexing="ij")
    taps = []
    for tap in itertools.product(*[range(s) for s in window]):
        valid = np.ones(sizes, dtype=bool)
        index = []
        for d, t in enumerate(tap):
            i = coords[d] * strides[d] - start[d] + t * dilations[d]
            valid &= (i >= 0) & (i < shape[2 + d])
            index.append(np.clip(i, 0, shape[2 + d] - 1))
        taps.append((valid, tuple(index)))
    return sizes, taps


def _average(x, WindowSize, Strides=None, StartPadding=None, EndPadding=None, IncludePadding=False, Dilations=None):
    storage = x.dtype
    x = np.asarray(x).astype(np.float32)
    sizes, taps = pooling_taps(x.shape, WindowSize, Strides, StartPadding, EndPadding, Dilations)
    acc = np.full(x.shape[:2] + sizes, -0.0, dtype=np.float32)    # -0: the identity of addition
    count = np.zeros(sizes, dtype=np.int64)
    with np.errstate(all="ignore"):
        for valid, index in taps:
            xs = x[(slice(None), slice(None)) + index]
            acc = np.where(valid, (acc + xs).astype(np.float32), acc)
            count += valid
        divisor = np.float32(np.prod(WindowSize)) if IncludePadding else count.astype(np.float32)
        acc = canonicalize_nans((acc / divisor).astype(np.float32))
    return _nm.narrow_f16(acc) if storage == np.float16 else acc


@operator(name="AVERAGE_POOLING", keyword_attributes=("Strides", "WindowSize", "StartPadding", "EndPadding",
                                                      "IncludePadding"))
def average_pooling(x, WindowSize=None, Strides=None, StartPadding=None, EndPadding=None, IncludePadding=False,
                    Dilations=None):
    """Output of AVERAGE_POOLING (AVERAGE_POOLING1 with Dilations) on x { N, C, spatial.. }."""
    return _average(x, WindowSize, Strides, StartPadding, EndPadding, bool(IncludePadding), Dilations)


@operator(name="AVERAGE_POOLING1", keyword_attributes=("Strides", "WindowSize", "StartPadding", "EndPadding",
                                                       "Dilations", "IncludePadding"))
def average_pooling1(x, WindowSize=None, Strides=None, StartPadding=None, EndPadding=None, Dilations=None,
                     IncludePadding=False):
    """Output of AVERAGE_POOLING1 on x { N, C, spatial.. }."""
    return _average(x, WindowSize, Strides, StartPadding, EndPadding, bool(IncludePadding), Dilations)


def _lp(x, WindowSize, Strides, StartPadding, EndPadding, Dilations, P):
    p = int(P)
    if p not in (1, 2):
        raise NotImplementedError(f"LP_POOLING's order is fixed for P 1 and 2 only, not {p}")
    storage = x.dtype
    x = np.asarray(x).astype(np.float32)
    sizes, taps = pooling_taps(x.shape, WindowSize, Strides, StartPadding, EndPadding, Dilations)
    acc = np.full(x.shape[:2] + sizes, -0.0, dtype=np.float32)
    with np.errstate(all="ignore"):
        for valid, index in taps:
            xs = x[(slice(None), slice(None)) + index]
            term = np.abs(xs) if p == 1 else (xs * xs).astype(np.float32)
            acc = np.where(valid, (acc + term).astype(np.float32), acc)
        if p == 2:
            acc = np.sqrt(acc).astype(np.float32)       # correctly rounded (IEEE), -0 stays -0
        acc = canonicalize_nans(acc)
    return _nm.narrow_f16(acc) if storage == np.float16 else acc


@operator(name="LP_POOLING", keyword_attributes=("Strides", "WindowSize", "StartPadding", "EndPadding", "P"))
def lp_pooling(x, WindowSize=None, Strides=None, StartPadding=None, EndPadding=None, P=2, Dilations=None):
    """Output of LP_POOLING on x { N, C, spatial.. }: P 1 the sum of |x|, P 2 the square root of the sum of x x."""
    return _lp(x, WindowSize, Strides, StartPadding, EndPadding, Dilations, P)


@operator(name="LP_POOLING1", keyword_attributes=("Strides", "WindowSize", "StartPadding", "EndPadding", "Dilations",
                                                  "P"))
def lp_pooling1(x, WindowSize=None, Strides=None, StartPadding=None, EndPadding=None, Dilations=None, P=2):
    """Output of LP_POOLING1 on x { N, C, spatial.. }."""
    return _lp(x, WindowSize, Strides, StartPadding, EndPadding, Dilations, P)


@operator(name="MAX_POOLING", keyword_attributes=("Strides", "WindowSize", "StartPadding", "EndPadding"))
def max_pooling(x, WindowSize=None, Strides=None, StartPadding=None, EndPadding=None, Dilations=None):
    """Output of MAX_POOLING on x { N, C, spatial.. } (floats: maxNum; INT8 / UINT8: the integer maximum)."""
    storage = x.dtype
    is_float = storage.kind == "f"
    x = np.asarray(x).astype(np.float32) if is_float else np.asarray(x)
    sizes, taps = pooling_taps(x.shape, WindowSize, Strides, StartPadding, EndPadding, Dilations)
    identity = np.float32(np.nan) if is_float else np.iinfo(storage).min
    acc = np.full(x.shape[:2] + sizes, identity, dtype=x.dtype)
    for valid, index in taps:
        xs = x[(slice(None), slice(None)) + index]
        acc = np.where(valid, max_num(acc, xs) if is_float else np.maximum(acc, xs), acc).astype(x.dtype)
    if not is_float:
        return acc
    acc = canonicalize_nans(acc)
    return _nm.narrow_f16(acc) if storage == np.float16 else acc


def _max_with_indices(x, WindowSize, Strides, StartPadding, EndPadding, Dilations):
    """(maxima, flat input indices as UINT64) of a max pooling (the INDICES rule of the module docstring)."""
    storage = x.dtype
    is_float = storage.kind == "f"
    x = np.asarray(x).astype(np.float32) if is_float else np.asarray(x)
    sizes, taps = pooling_taps(x.shape, WindowSize, Strides, StartPadding, EndPadding, Dilations)
    identity = np.float32(np.nan) if is_float else np.iinfo(storage).min
    shape = x.shape[:2] + sizes
    acc = np.full(shape, identity, dtype=x.dtype)
    index = np.full(shape, NO_ELEMENT, dtype=np.uint64)
    plane = int(np.prod(x.shape[2:], dtype=np.int64))
    channel = (np.arange(x.shape[0] * x.shape[1], dtype=np.uint64) * np.uint64(plane)).reshape(
        x.shape[:2] + (1,) * len(sizes))
    bits = (lambda a: a.view(np.uint32)) if is_float else (lambda a: a)
    for valid, where in taps:
        xs = x[(slice(None), slice(None)) + where]
        new = (max_num(acc, xs) if is_float else np.maximum(acc, xs)).astype(x.dtype)
        taken = valid & ((index == NO_ELEMENT) | (bits(new) != bits(acc)))
        flat = channel + np.ravel_multi_index(where, x.shape[2:]).astype(np.uint64)
        index = np.where(taken, flat, index)
        acc = np.where(valid, new, acc).astype(x.dtype)
    if is_float:
        acc = canonicalize_nans(acc)
        acc = _nm.narrow_f16(acc) if storage == np.float16 else acc
    return acc, index


@operator(name="MAX_POOLING1", keyword_attributes=("Strides", "WindowSize", "StartPadding", "EndPadding"))
def max_pooling1(x, WindowSize=None, Strides=None, StartPadding=None, EndPadding=None):
    """(OutputTensor, OutputIndicesTensor as UINT64) of MAX_POOLING1 on x { N, C, spatial.. }."""
    return _max_with_indices(x, WindowSize, Strides, StartPadding, EndPadding, None)


@operator(name="MAX_POOLING2", keyword_attributes=("Strides", "WindowSize", "StartPadding", "EndPadding",
                                                   "Dilations"))
def max_pooling2(x, WindowSize=None, Strides=None, StartPadding=None, EndPadding=None, Dilations=None):
    """(OutputTensor, OutputIndicesTensor as UINT64) of MAX_POOLING2 on x { N, C, spatial.. }."""
    return _max_with_indices(x, WindowSize, Strides, StartPadding, EndPadding, Dilations)


@operator(name="MAX_UNPOOLING", output_sizes=True)
def max_unpooling(x, indices, output_sizes=None):
    """OutputTensor of MAX_UNPOOLING: zeros of `output_sizes` with x written at its flat `indices` (the UNPOOL rule
    of the module docstring)."""
    if output_sizes is None:
        raise ValueError("MAX_UNPOOLING's golden model needs the output's Sizes (output_sizes=)")
    out = np.zeros(tuple(int(s) for s in output_sizes), dtype=x.dtype)
    flat_out = out.reshape(-1)
    targets = np.asarray(indices).astype(np.uint64).reshape(-1)
    values = np.asarray(x).reshape(-1)
    inside = np.nonzero(targets < np.uint64(flat_out.size))[0]
    # the last source of each target: the first in reversed order
    _, first_reversed = np.unique(targets[inside][::-1], return_index=True)
    last = inside[::-1][first_reversed]
    flat_out[targets[last].astype(np.int64)] = values[last]
    return out
