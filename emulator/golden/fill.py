"""FILL_VALUE_CONSTANT, FILL_VALUE_SEQUENCE, DIAGONAL_MATRIX and DIAGONAL_MATRIX1, written from the pages and
docs/NUMERICS.md ("Fills").

The operators have no input (DIAGONAL_MATRIX1 an optional one): `run` passes the output's Sizes as the OutputSizes
attribute and its data type as `output_type`. A sequence's element k (row-major over the Sizes) is ValueStart + k *
ValueDelta: floats in FLOAT32 (k rounded to FLOAT32, a rounded multiply, a rounded add, a NaN made canonical;
FLOAT16 rounded once at the end), integers in 32-bit wrapping arithmetic narrowed to the type by their low bits.
"""
import numpy as np

from dmlemu.golden.numbers import DATA_TYPES, canonicalize_nans, cast_bound
from dmlemu.golden.registry import operator
from dmlemu.golden.working import store


def _dtype(output_type, value):
    return DATA_TYPES[output_type] if output_type is not None else np.asarray(value).dtype


@operator(name="FILL_VALUE_CONSTANT", attributes=("Value",), keyword_attributes=("OutputSizes",), output_type=True)
def fill_value_constant(value, OutputSizes=(1,), output_type=None):      # noqa: N803 (the desc's field name)
    dtype = _dtype(output_type, value)
    return np.full(tuple(OutputSizes), np.asarray(value).astype(dtype), dtype=dtype)


@operator(name="FILL_VALUE_SEQUENCE", attributes=("ValueStart", "ValueDelta"), keyword_attributes=("OutputSizes",),
          output_type=True)
def fill_value_sequence(start, delta, OutputSizes=(1,), output_type=None):   # noqa: N803
    dtype = np.dtype(_dtype(output_type, start))
    count = int(np.prod(OutputSizes, dtype=np.int64))
    k = np.arange(count, dtype=np.uint64)
    if dtype.kind == "f":
        with np.errstate(all="ignore"):
            values = (k.astype(np.float32) * np.float32(np.asarray(delta).astype(dtype))
                      + np.float32(np.asarray(start).astype(dtype)))
        return store(canonicalize_nans(values.astype(np.float32)), dtype).reshape(tuple(OutputSizes))

    def dword(v):             # the value in 32 bits, sign- or zero-extended as the kernel's dword
        return np.uint32(int(np.asarray(v).astype(dtype)) & 0xFFFFFFFF)
    values = (k.astype(np.uint32) * dword(delta) + dword(start)).astype(np.uint32)
    return values.astype(dtype).reshape(tuple(OutputSizes))


@operator(name="DIAGONAL_MATRIX", attributes=("Offset", "Value"), keyword_attributes=("OutputSizes",), output_type=True)
def diagonal_matrix(offset, value, OutputSizes=(1, 1, 1, 1), output_type="FLOAT32"):   # noqa: N803
    """OutputTensor[.., y, x] = Value if y + Offset == x else 0 (the page's pseudocode), Value cast to the type as
    CLIP's FLOAT bounds are; y + Offset wraps in 32 bits (the kernel's integer add)."""
    dtype = DATA_TYPES[output_type or "FLOAT32"]
    sizes = tuple(OutputSizes)
    y = np.arange(sizes[-2], dtype=np.int64).reshape(-1, 1)
    x = np.arange(sizes[-1], dtype=np.int64).reshape(1, -1)
    hit = ((y + int(offset)) & 0xFFFFFFFF) == x
    plane = np.where(hit, cast_bound(value, dtype), np.zeros((), dtype)).astype(dtype)
    return np.broadcast_to(plane, sizes).copy()


@operator(name="DIAGONAL_MATRIX1", attributes=("Value", "DiagonalFillBegin", "DiagonalFillEnd"),
          keyword_attributes=("OutputSizes",), output_type=True)
def diagonal_matrix1(x, value, begin=0, end=1, OutputSizes=None, output_type=None):     # noqa: N803
    """The page's pseudocode: topX = x - y; Value where (End >= Begin) ^ (topX >= Begin) ^ (topX < End), else the
    input's element (`x`, None when the desc has no InputTensor: 0). Value is already of the output's type (a
    DML_SCALAR_UNION of ValueDataType) and moves as bits, as the input's elements do."""
    dtype = np.dtype(DATA_TYPES[output_type]) if output_type is not None else np.asarray(value).dtype
    sizes = tuple(np.shape(x)) if x is not None else tuple(OutputSizes)
    top_x = (np.arange(sizes[-1], dtype=np.int64).reshape(1, -1)
             - np.arange(sizes[-2], dtype=np.int64).reshape(-1, 1))
    begin, end = int(begin), int(end)
    use = (end >= begin) ^ (top_x >= begin) ^ (top_x < end)
    base = np.asarray(x, dtype) if x is not None else np.zeros(sizes, dtype)
    fill = np.asarray(value).astype(dtype)
    return np.where(np.broadcast_to(use, sizes), fill, base).astype(dtype)
