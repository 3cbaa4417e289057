"""The index-driven operators as NumPy indexing, written from the DirectML pages: GATHER, GATHER_ELEMENTS,
GATHER_ND, GATHER_ND1, ONE_HOT, SCATTER_ELEMENTS, SCATTER_ND, REVERSE_SUBSEQUENCES, NONZERO_COORDINATES.

Each function returns the output tensor in its own DimensionCount (the pages right-align the relevant sizes:
leading 1s cropped or padded). Index values follow docs/NUMERICS.md ("Gathers"): a signed index i < 0 counts
from the end (i + size); an index still outside [0, size) makes its output element 0 (all bits clear), and reads
nothing. The data moves as bits (NumPy's take copies NaN payloads and FLOAT16 patterns unchanged). This module
never imports the kernels nor dmlemu.directml's shape rules: it is their oracle.
"""
import numpy as np

from dmlemu.golden.registry import operator


def resolve(indices, size):
    """(coordinates as int64, in-range mask) of index values against a dimension of `size`."""
    indices = np.asarray(indices)
    if indices.dtype.kind == "u":
        values = indices.astype(np.uint64)
        valid = values < np.uint64(size)
        return np.where(valid, values, 0).astype(np.int64), valid
    values = indices.astype(np.int64)
    values = np.where(values < 0, values + size, values)
    valid = (values >= 0) & (values < size)
    return np.where(valid, values, 0), valid


def _right_align(x, rank):
    """x reshaped to `rank` dimensions: leading 1s cropped, or 1s padded in front."""
    shape = list(x.shape)
    while len(shape) > rank and shape[0] == 1:
        shape.pop(0)
    if len(shape) > rank:
        raise ValueError(f"a gather result of shape {tuple(x.shape)} does not fit {rank} dimensions")
    return x.reshape([1] * (rank - len(shape)) + shape)


def _zero_outside(values, valid):
    return np.where(valid, values, np.zeros((), dtype=values.dtype))


@operator(name="GATHER", attributes=("Axis", "IndexDimensions"))
def gather(x, indices, axis, index_dimensions):
    """output[..] = input[.., indices[..], ..] along `axis`, with the last `index_dimensions` dimensions of
    `indices` (the leading ones are read at coordinate 0)."""
    x, indices = np.asarray(x), np.asarray(indices)
    rank, k = x.ndim, int(index_dimensions)
    axis = int(axis)
    idx = indices[(0,) * (indices.ndim - k)]
    coords, valid = resolve(idx, x.shape[axis])
    out = np.take(x, coords, axis=axis)
    mask = valid.reshape((1,) * axis + valid.shape + (1,) * (rank - axis - 1))
    return _right_align(_zero_outside(out, mask), rank)


@operator(name="GATHER_ELEMENTS", attributes=("Axis",))
def gather_elements(x, indices, axis):
    """output[i, j, ..] = input[.., indices[i, j, ..], ..] (the index replaces the coordinate along `axis`)."""
    x, indices = np.asarray(x), np.asarray(indices)
    axis = int(axis)
    coords, valid = resolve(indices, x.shape[axis])
    return _zero_outside(np.take_along_axis(x, coords, axis=axis), valid)


def _gather_nd(x, indices, input_dimension_count, indices_dimension_count, batch_dimension_count=0):
    x, indices = np.asarray(x), np.asarray(indices)
    rank = x.ndim
    data = x[(0,) * (x.ndim - int(input_dimension_count))]
    idx = indices[(0,) * (indices.ndim - int(indices_dimension_count))]
    b = int(batch_dimension_count)
    m = idx.shape[-1]
    batches = int(np.prod(data.shape[:b], dtype=np.int64))
    flat_data = data.reshape((batches,) + data.shape[b:])
    tuples = idx.reshape(batches, -1, m)
    valid = np.ones(tuples.shape[:2], dtype=bool)
    coords = []
    for j in range(m):
        c, ok = resolve(tuples[..., j], flat_data.shape[1 + j])
        coords.append(c)
        valid &= ok
    batch = np.arange(batches).reshape(batches, 1)
    out = flat_data[(batch, *coords)]                          # (batches, tuples, trailing sizes ..)
    mask = valid.reshape(valid.shape + (1,) * (out.ndim - 2))
    out = _zero_outside(out, mask).reshape(idx.shape[:-1] + data.shape[b + m:])
    return _right_align(out, rank)


@operator(name="GATHER_ND", attributes=("InputDimensionCount", "IndicesDimensionCount"))
def gather_nd(x, indices, input_dimension_count, indices_dimension_count):
    """output[..] = input[indices[.., :]]: each tuple of the indices' last dimension names a sub-block."""
    return _gather_nd(x, indices, input_dimension_count, indices_dimension_count)


@operator(name="GATHER_ND1", attributes=("InputDimensionCount", "IndicesDimensionCount", "BatchDimensionCount"))
def gather_nd1(x, indices, input_dimension_count, indices_dimension_count, batch_dimension_count):
    """GATHER_ND whose first `batch_dimension_count` dimensions pair input and indices one to one."""
    return _gather_nd(x, indices, input_dimension_count, indices_dimension_count, batch_dimension_count)


@operator(name="ONE_HOT", attributes=("Axis",), keyword_attributes=("OutputSizes",))
def one_hot(indices, values, axis, OutputSizes=None):      # noqa: N803 (the desc's field name)
    """output[.., k, ..] = OnValue where indices[.., 0, ..] (resolved as a gather index against the output's size
    along Axis) is k, else OffValue; an index out of range sets nothing (the page: "ignored"). OffValue is the
    first element of `values`, OnValue the second along its last dimension of size > 1. `OutputSizes` is the
    output's Sizes (the inputs do not fix its size along Axis)."""
    indices, values = np.asarray(indices), np.asarray(values)
    axis = int(axis)
    if OutputSizes is None:
        raise ValueError("ONE_HOT needs the output's Sizes (OutputSizes)")
    depth = int(OutputSizes[axis])
    last = max(d for d in range(values.ndim) if values.shape[d] > 1)
    off = values[(0,) * values.ndim]
    on = values[tuple(1 if d == last else 0 for d in range(values.ndim))]
    coords, valid = resolve(indices, depth)
    shape = [1] * indices.ndim
    shape[axis] = depth
    k = np.arange(depth).reshape(shape)
    hit = valid & (coords == k)
    return np.where(hit, on, off).astype(values.dtype)


@operator(name="SCATTER_ELEMENTS", attributes=("Axis",))
def scatter_elements(x, indices, updates, axis):
    """The input, then updates[.., t, ..] written at the index indices[.., t, ..] along `axis`, for t ascending:
    the last update that targets an element wins (the page: "only the last write takes effect"); an index out of
    range (resolved as a gather index) writes nothing."""
    x, indices, updates = np.asarray(x), np.asarray(indices), np.asarray(updates)
    axis = int(axis)
    out = x.copy()
    for t in range(indices.shape[axis]):
        coords, valid = resolve(np.take(indices, [t], axis=axis), x.shape[axis])   # Axis kept, of size 1
        values = np.take(updates, [t], axis=axis)
        where = np.nonzero(valid)
        target = list(where)
        target[axis] = coords[where]
        out[tuple(target)] = values[where]
    return out


@operator(name="SCATTER_ND", attributes=("InputDimensionCount", "IndicesDimensionCount"))
def scatter_nd(x, indices, updates, input_dimension_count, indices_dimension_count):
    """The input, then for each index tuple k in row-major order whose every component is in range, the tuple's
    slice of `updates` written at the sub-block it names: the last tuple that names an element wins."""
    x, indices, updates = np.asarray(x), np.asarray(indices), np.asarray(updates)
    rank = x.ndim
    out = x.copy()
    data = out[(0,) * (rank - int(input_dimension_count))]          # a view: writes reach `out`
    idx = indices[(0,) * (indices.ndim - int(indices_dimension_count))]
    m = idx.shape[-1]
    tuples = idx.reshape(-1, m)
    slices = updates.reshape((tuples.shape[0],) + data.shape[m:])
    coords, valid = zip(*(resolve(tuples[:, j], data.shape[j]) for j in range(m)))
    every = np.logical_and.reduce(valid)
    for k in range(tuples.shape[0]):
        if every[k]:
            data[tuple(int(c[k]) for c in coords)] = slices[k]
    return out


@operator(name="REVERSE_SUBSEQUENCES", attributes=("Axis",))
def reverse_subsequences(x, lengths, axis):
    """Along `axis`, the first L elements reversed and the rest copied, L the subsequence's length clamped to
    [0, size] (the page: "as if the value were clamped to the maximum"; a negative length reverses nothing)."""
    x, lengths = np.asarray(x), np.asarray(lengths)
    axis = int(axis)
    size = x.shape[axis]
    if lengths.dtype.kind == "u":
        clamped = np.minimum(lengths.astype(np.uint64), np.uint64(size)).astype(np.int64)
    else:
        clamped = np.clip(lengths.astype(np.int64), 0, size)
    shape = [1] * x.ndim
    shape[axis] = size
    c = np.arange(size).reshape(shape)
    source = np.where(c < clamped, clamped - 1 - c, c)
    return np.take_along_axis(x, np.broadcast_to(source, x.shape), axis=axis)


@operator(name="NONZERO_COORDINATES", keyword_attributes=("OutputSizes",))
def nonzero_coordinates(x, OutputSizes=None):      # noqa: N803 (the coordinates tensor's Sizes)
    """(count as a one-element UINT32 tensor of the input's rank, coordinates as UINT32 {1, .., M, N}): the
    coordinates of the last N dimensions of every element that is not 0 (-0 is 0, NaN is not), in ascending element
    index; rows past the count are 0 here (the page: undefined). `OutputSizes`: the coordinates tensor's Sizes
    (default N = the input's DimensionCount)."""
    x = np.asarray(x)
    rank = x.ndim
    n = int(OutputSizes[-1]) if OutputSizes is not None else rank
    flat = np.flatnonzero(x.reshape(-1) != 0)
    coords = np.stack(np.unravel_index(flat, x.shape), axis=1) if flat.size else np.zeros((0, rank), np.int64)
    out = np.zeros((x.size, n), np.uint32)
    out[:flat.size] = coords[:, rank - n:]
    count = np.full((1,) * rank, flat.size, np.uint32)
    return count, out.reshape((1,) * (rank - 2) + (x.size, n))
