"""The data movement operators: SLICE, SLICE1, PADDING, PADDING1, TILE, DEPTH_TO_SPACE(1), SPACE_TO_DEPTH(1).

Each output element is one input element's bits (or, for constant padding, the padding value's): there is no
arithmetic, so the golden result is NumPy indexing written from each DirectML page's own description, with
nothing to order or round (docs/NUMERICS.md, "Data movement"). Integer index arrays per dimension (`np.ix_`)
select the source of every output element; the arrays keep their dtype, so FLOAT16 NaN payloads, -0 and
64-bit integers pass through untouched.
"""
import numpy as np

from dmlemu.golden.numbers import cast_bound
from dmlemu.golden.registry import operator

PADDING_MODES = ("CONSTANT", "EDGE", "REFLECTION", "SYMMETRIC", "WRAP")     # DML_PADDING_MODE values 0 .. 4
ORDERS = ("DEPTH_COLUMN_ROW", "COLUMN_ROW_DEPTH")                            # DML_DEPTH_SPACE_ORDER values 0, 1


def _take(x, indices):
    """x at the outer product of one index array per dimension."""
    return x[np.ix_(*[np.asarray(i, dtype=np.int64) for i in indices])]


@operator(name="SLICE", attributes=("Offsets", "Sizes", "Strides"))
def slice_(x, offsets, sizes, strides):
    """Output[i] = Input[Offsets + Strides * i] (per dimension)."""
    return _take(np.asarray(x), [o + t * np.arange(s) for o, s, t in zip(offsets, sizes, strides)])


@operator(name="SLICE1", attributes=("InputWindowOffsets", "InputWindowSizes", "InputWindowStrides"),
          keyword_attributes=("OutputSizes",))
def slice1(x, offsets, sizes, strides, OutputSizes=None):
    """The page's pseudo-code: CopyStart = offsets, plus InputWindowSizes - 1 where the stride is negative;
    Output[i] = Input[CopyStart + InputWindowStrides * i]. The output's sizes default to every element the
    window reaches (1 + (size - 1) / |stride|)."""
    out = OutputSizes or [1 + (s - 1) // abs(t) for s, t in zip(sizes, strides)]
    return _take(np.asarray(x), [o + (s - 1 if t < 0 else 0) + t * np.arange(n)
                                 for o, s, t, n in zip(offsets, sizes, strides, out)])


def _padding_source(n, start, end, mode):
    """(source coordinate per output coordinate, mask of the padding cells CONSTANT fills) of one dimension of
    input size n: c = output coordinate - start; EDGE clamps c to [0, n - 1]; REFLECTION mirrors about the edge
    elements (period 2 (n - 1), the edges not repeated), SYMMETRIC about the edges (period 2 n, the edges
    repeated), WRAP repeats the input (period n), each periodically past the first fold."""
    c = np.arange(-start, n + end, dtype=np.int64)
    outside = (c < 0) | (c >= n)
    if mode == "CONSTANT":
        return np.where(outside, 0, c), outside
    if mode == "EDGE":
        return np.clip(c, 0, n - 1), outside & False
    if mode == "WRAP":
        return np.mod(c, n), outside & False
    if mode == "REFLECTION":
        if n == 1:
            return np.zeros_like(c), outside & False
        m = np.mod(c, 2 * (n - 1))
        return np.where(m < n, m, 2 * (n - 1) - m), outside & False
    m = np.mod(c, 2 * n)                                             # SYMMETRIC
    return np.where(m < n, m, 2 * n - 1 - m), outside & False


def _mode_name(mode):
    return mode.removeprefix("DML_PADDING_MODE_") if isinstance(mode, str) else PADDING_MODES[int(mode)]


def _pad(x, mode, value, start, end):
    x = np.asarray(x)
    mode = _mode_name(mode)
    pairs = [_padding_source(n, a, b, mode) for n, a, b in zip(x.shape, start, end)]
    sources, masks = [p[0] for p in pairs], [p[1] for p in pairs]
    out = _take(x, sources)
    if mode == "CONSTANT":
        fill = np.zeros(out.shape, dtype=bool)
        for d, mask in enumerate(masks):
            fill |= mask.reshape([-1 if k == d else 1 for k in range(x.ndim)])
        out[fill] = value
    return out


@operator(name="PADDING", attributes=("PaddingMode", "PaddingValue", "StartPadding", "EndPadding"))
def padding(x, mode, value, start, end):
    """PADDING: the FLOAT PaddingValue cast to the tensor's type as a FLOAT bound is (cast_bound: FLOAT16 rounds to
    nearest even, integers truncate and saturate, NaN -> 0)."""
    x = np.asarray(x)
    return _pad(x, mode, cast_bound(value, x.dtype), start, end)


@operator(name="PADDING1", attributes=("PaddingMode", "PaddingValueDataType", "PaddingValue", "StartPadding",
                                       "EndPadding"))
def padding1(x, mode, value_type, value, start, end):
    """PADDING1: the PaddingValue already holds the output's type (its bits are stored as they are)."""
    x = np.asarray(x)
    return _pad(x, mode, np.asarray(value).astype(x.dtype), start, end)


@operator(name="TILE", attributes=("Repeats",))
def tile(x, repeats):
    """Output[i] = Input[i mod InputTensor.Sizes] (per dimension)."""
    x = np.asarray(x)
    return _take(x, [np.arange(n * r) % n for n, r in zip(x.shape, repeats)])


def _order(order):
    return ORDERS[int(order)] if not isinstance(order, str) else order.removeprefix("DML_DEPTH_SPACE_ORDER_")


@operator(name="DEPTH_TO_SPACE", attributes=("BlockSize",))
def depth_to_space(x, block, order=0):
    """Output[n, c, h * b + i, w * b + j] = Input[n, channel, h, w] with channel = (i * b + j) * C' + c
    (DEPTH_COLUMN_ROW) or c * b * b + i * b + j (COLUMN_ROW_DEPTH), C' = C / b^2."""
    x = np.asarray(x)
    n, c, h, w = x.shape
    b = int(block)
    k = c // (b * b)
    if _order(order) == "DEPTH_COLUMN_ROW":
        y = x.reshape(n, b, b, k, h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        y = x.reshape(n, k, b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return y.reshape(n, k, h * b, w * b).copy()


@operator(name="SPACE_TO_DEPTH", attributes=("BlockSize",))
def space_to_depth(x, block, order=0):
    """The inverse of DEPTH_TO_SPACE: Output[n, channel, h, w] = Input[n, c, h * b + i, w * b + j]."""
    x = np.asarray(x)
    n, c, h, w = x.shape
    b = int(block)
    y = x.reshape(n, c, h // b, b, w // b, b)
    if _order(order) == "DEPTH_COLUMN_ROW":
        y = y.transpose(0, 3, 5, 1, 2, 4)
    else:
        y = y.transpose(0, 1, 3, 5, 2, 4)
    return y.reshape(n, c * b * b, h // b, w // b).copy()


@operator(name="DEPTH_TO_SPACE1", attributes=("BlockSize", "Order"))
def depth_to_space1(x, block, order):
    return depth_to_space(x, block, order)


@operator(name="SPACE_TO_DEPTH1", attributes=("BlockSize", "Order"))
def space_to_depth1(x, block, order):
    return space_to_depth(x, block, order)


@operator(name="JOIN", keyword_attributes=("Axis",))
def join(*inputs, Axis):
    """The inputs one after another along Axis (InputTensors in array order)."""
    return np.concatenate([np.asarray(x) for x in inputs], axis=int(Axis))


@operator(name="SPLIT", keyword_attributes=("Axis", "OutputSizes"))
def split(x, Axis, OutputSizes):
    """The input cut along Axis into consecutive parts of OutputSizes (each output's size along Axis), in
    OutputTensors order: a tuple of arrays."""
    x = np.asarray(x)
    edges = np.cumsum(OutputSizes)[:-1]
    return tuple(part.copy() for part in np.split(x, edges, axis=int(Axis)))
