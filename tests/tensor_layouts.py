"""Tensors the operator tests build (tests/directml/test_reduce.py, test_gemm.py, test_convolution.py, ...): the
layouts they draw (packed, padded rows, permuted dimensions, or broadcast dimensions: stride 0) as DirectML
strides, a buffer tensor's DML_TENSOR_DESC by its short type name, and the bit-for-bit comparison."""
import numpy as np

from dmlemu.directml import (DML_BUFFER_TENSOR_DESC, DML_TENSOR_DATA_TYPE, DML_TENSOR_DESC, DML_TENSOR_TYPE_BUFFER,
                             DMLCalcBufferTensorSize)


def layout_strides(sizes, layout, rng):
    """(strides or None, the dimensions broadcast through stride 0) of a tensor of `sizes` in `layout`
    ("packed", "padded", "permuted" or "broadcast"); `rng` a numpy Generator."""
    if layout == "packed":
        return None, ()
    order = list(range(len(sizes)))
    if layout == "permuted":
        rng.shuffle(order)
    strides, step = [0] * len(sizes), 1
    for d in reversed(order):
        strides[d] = step
        step *= sizes[d] + (1 if layout == "padded" else 0)
    broadcast = ()
    if layout == "broadcast":
        broadcast = tuple(d for d in range(len(sizes)) if sizes[d] > 1 and rng.random() < 0.4)
        for d in broadcast:
            strides[d] = 0
    return strides, broadcast


def data_type(name):
    """The DML_TENSOR_DATA_TYPE of a short type name ("FLOAT32")."""
    return getattr(DML_TENSOR_DATA_TYPE, "DML_TENSOR_DATA_TYPE_" + name)


def tensor(type_name, sizes, strides=None):
    """A DML_TENSOR_DESC of a buffer tensor: `type_name` ("FLOAT16"), Sizes, Strides (None: packed), and the
    TotalTensorSizeInBytes DMLCalcBufferTensorSize gives."""
    sizes = [int(s) for s in sizes]
    strides = None if strides is None else [int(s) for s in strides]
    return DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=data_type(type_name), Sizes=sizes, Strides=strides,
        TotalTensorSizeInBytes=DMLCalcBufferTensorSize(data_type(type_name), len(sizes), sizes, strides)))


_BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def same_bits(got, expected):
    """Assert that two arrays hold the same shape, type and bits (NaN payloads and -0 included), naming the
    first elements that differ."""
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape and got.dtype == expected.dtype, (got.shape, expected.shape)
    bits = _BITS[got.dtype.itemsize]
    diff = np.flatnonzero(got.view(bits) != expected.view(bits))
    assert diff.size == 0, (f"{diff.size} elements differ, first at {diff[:5]}: got {got.ravel()[diff[:5]]}, "
                            f"expected {expected.ravel()[diff[:5]]}")
