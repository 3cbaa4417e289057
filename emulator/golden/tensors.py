"""Tensor memory as DirectML addresses it: gather and scatter a strided tensor, DMLCalcBufferTensorSize.

Element c of a tensor lives at byte offset + sum(c[k] * strides[k]) * element size (strides in elements;
None = packed, last dimension fastest; stride 0 broadcasts). gather and scatter copy bits exactly.
"""
import math

import numpy as np
from numpy.lib.stride_tricks import as_strided

from dmlemu import data_types as _data_types
from dmlemu.golden.numbers import BITS, as_dtype, check_tensor_dtype

_U32 = (1 << 32) - 1
_U64 = (1 << 64) - 1


def packed_strides(sizes):
    """Strides (in elements) of a packed tensor: last dimension fastest."""
    strides = []
    step = 1
    for size in reversed(tuple(sizes)):
        strides.append(step)
        step *= int(size)
    return tuple(reversed(strides))


def _byte_buffer(buffer):
    """A 1-D uint8 view of buffer's bytes (no copy)."""
    if isinstance(buffer, np.ndarray):
        if buffer.dtype != np.uint8:
            raise TypeError(f"buffer must be a uint8 array, not {buffer.dtype}")
        if not buffer.flags.c_contiguous:
            raise ValueError("buffer must be C-contiguous")
        return buffer.reshape(-1)
    return np.frombuffer(buffer, dtype=np.uint8)


def _layout(sizes, strides, offset_bytes, itemsize, buffer_size):
    """Validated (sizes, strides, end) of a strided tensor inside a buffer of buffer_size bytes."""
    sizes = tuple(int(s) for s in sizes)
    strides = packed_strides(sizes) if strides is None else tuple(int(s) for s in strides)
    offset_bytes = int(offset_bytes)
    if len(strides) != len(sizes):
        raise ValueError(f"strides has {len(strides)} dimensions but sizes has {len(sizes)}")
    if any(s < 0 for s in sizes) or any(s < 0 for s in strides) or offset_bytes < 0:
        raise ValueError(f"sizes {sizes}, strides {strides} and offset {offset_bytes} "
                         f"must not be negative")
    if math.prod(sizes) == 0:
        return sizes, strides, offset_bytes
    last_index = sum((size - 1) * stride for size, stride in zip(sizes, strides))
    end = offset_bytes + (last_index + 1) * itemsize
    if end > buffer_size:
        raise ValueError(f"a tensor with sizes {sizes} and strides {strides} at byte offset "
                         f"{offset_bytes} ends at byte {end}, past the end of a "
                         f"{buffer_size}-byte buffer")
    return sizes, strides, end


def _strided_view(buf, offset_bytes, end, bits, sizes, strides, writeable):
    region = buf[offset_bytes:end].view(bits)   # unaligned views are fine for NumPy
    return as_strided(region, shape=sizes, strides=tuple(s * bits.itemsize for s in strides),
                      writeable=writeable)


def gather(buffer, offset_bytes, dtype, sizes, strides=None):
    """Read a strided tensor out of a byte buffer; returns a fresh array of shape sizes.

    Element c lives at byte offset_bytes + sum(c[k] * strides[k]) * itemsize (strides in
    elements; None = packed; stride 0 broadcasts). Bits are copied exactly.
    """
    dtype = as_dtype(dtype).newbyteorder("<")
    buf = _byte_buffer(buffer)
    sizes, strides, end = _layout(sizes, strides, offset_bytes, dtype.itemsize, buf.size)
    if math.prod(sizes) == 0:
        return np.zeros(sizes, dtype=dtype)
    bits = BITS[dtype.itemsize]
    view = _strided_view(buf, int(offset_bytes), end, bits, sizes, strides, writeable=False)
    return np.array(view, order="C").view(dtype)


def _never_aliases(sizes, strides):
    """True when every coordinate has its own element (a sufficient test: with dimensions
    sorted by stride, each stride reaches past everything the smaller strides span)."""
    span = 0
    for size, stride in sorted(((z, s) for z, s in zip(sizes, strides) if z > 1),
                               key=lambda pair: pair[1]):
        if stride <= span:
            return False
        span += (size - 1) * stride
    return True


def scatter(buffer, offset_bytes, values, strides=None):
    """Write values (shape = sizes) into a byte buffer at DirectML strided positions.

    Touches no other byte. Where several coordinates land on one element (stride 0 or
    overlapping strides), the value last in row-major order is the one left (our choice: a
    deterministic answer to what is a write race on hardware).
    """
    values = np.asarray(values)
    dtype = values.dtype
    check_tensor_dtype(dtype.newbyteorder("="))
    values = values.astype(dtype.newbyteorder("<"), copy=False)
    buf = _byte_buffer(buffer)
    if not buf.flags.writeable:
        raise ValueError("buffer is read-only")
    sizes, strides, end = _layout(values.shape, strides, offset_bytes, dtype.itemsize, buf.size)
    if math.prod(sizes) == 0:
        return
    bits = BITS[dtype.itemsize]
    source = values.view(bits)
    if _never_aliases(sizes, strides):
        target = _strided_view(buf, int(offset_bytes), end, bits, sizes, strides, True)
        target[...] = source
        return
    # Aliasing layout: find, for each element written, the last coordinate (row-major) aiming
    # at it, then write each element once.
    region = buf[int(offset_bytes):end].view(bits)
    index = np.zeros(sizes, dtype=np.int64)
    for axis, (size, stride) in enumerate(zip(sizes, strides)):
        shape = [1] * len(sizes)
        shape[axis] = size
        index += (np.arange(size, dtype=np.int64) * stride).reshape(shape)
    flat_index = index.reshape(-1)
    reversed_index = flat_index[::-1]
    unique, first_in_reversed = np.unique(reversed_index, return_index=True)
    last_position = flat_index.size - 1 - first_in_reversed
    region[unique] = source.reshape(-1)[last_position]


def calc_buffer_tensor_size(data_type_name, sizes, strides=None):
    """DMLCalcBufferTensorSize, with C's integer widths (DIRECTML_FACTS.md section 2.1).

    Packed: the product of sizes in UINT64 times the element size in bits. Strided: the index of
    the last element, sum((sizes[i] - 1) * strides[i]), accumulated in a 32-bit UINT (it wraps),
    then (UINT64(index) + 1) * bits. Bytes = ceil(bits / 8), rounded up to a multiple of 4. An
    unknown data type gives 0, as in C.
    """
    name = str(data_type_name).upper()
    if name.startswith("DML_TENSOR_DATA_TYPE_"):
        name = name[len("DML_TENSOR_DATA_TYPE_"):]
    element_bits = _data_types.BY_NAME[name].bits if name in _data_types.BY_NAME else 0
    sizes = [int(s) for s in sizes]
    if not sizes:
        raise ValueError("sizes must have at least one dimension")
    for label, seq in (("sizes", sizes), ("strides", strides or [])):
        if any(not 0 <= int(v) <= _U32 for v in seq):
            raise ValueError(f"{label} {list(seq)} must be UINT values (0 to 2**32 - 1)")
    if element_bits == 0:
        return 0
    if strides is None:
        size_in_bits = sizes[0]
        for size in sizes[1:]:
            size_in_bits = (size_in_bits * size) & _U64
        size_in_bits = (size_in_bits * element_bits) & _U64
    else:
        strides = [int(s) for s in strides]
        if len(strides) != len(sizes):
            raise ValueError(f"strides has {len(strides)} dimensions but sizes has {len(sizes)}")
        index_of_last_element = 0
        for size, stride in zip(sizes, strides):
            term = (((size - 1) & _U32) * stride) & _U32
            index_of_last_element = (index_of_last_element + term) & _U32
        size_in_bits = ((index_of_last_element + 1) * element_bits) & _U64
    size_in_bytes = ((size_in_bits + 7) & _U64) // 8
    return ((size_in_bytes + 3) & _U64) & ~3 & _U64
