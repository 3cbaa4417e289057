"""Comparisons, logic and bits: the LOGICAL_ operators, IS_NAN, IS_INFINITY and the BIT_ operators.

A comparison or a logical operator writes 1 or 0 into its output type (UINT8 by default); the bit operators
work on the elements' bits, float tensors included.
"""
import numpy as np

from dmlemu.golden.numbers import as_dtype
from dmlemu.golden.registry import operator, register
from dmlemu.golden.working import bits_of, same_dtype


def _boolean(result, output_type):
    return np.asarray(result).astype(as_dtype(output_type or "UINT8"))


_COMPARISONS = {"EQUALS": np.equal, "GREATER_THAN": np.greater, "LESS_THAN": np.less,
                "GREATER_THAN_OR_EQUAL": np.greater_equal, "LESS_THAN_OR_EQUAL": np.less_equal}


def compare(kind, a, b, output_type=None):
    """ELEMENT_WISE_LOGICAL_<kind> (EQUALS, GREATER_THAN, ...): 1 where a <op> b holds, else 0 (IEEE: false
    with a NaN operand); FLOAT16 compares exactly (as widened)."""
    a, b = same_dtype(a, b)
    with np.errstate(invalid="ignore"):
        return _boolean(_COMPARISONS[kind](a, b), output_type)


for _kind in _COMPARISONS:
    register(name=f"ELEMENT_WISE_LOGICAL_{_kind}", function=compare, leading=(_kind,), output_type=True)


def logical(kind, a, b=None, output_type=None):
    """ELEMENT_WISE_LOGICAL_AND / OR / XOR / NOT on integer tensors: non-zero is true; 1 or 0 out."""
    if kind == "NOT":
        return _boolean(np.asarray(a) == 0, output_type)
    a, b = same_dtype(a, b)
    fn = {"AND": np.logical_and, "OR": np.logical_or, "XOR": np.logical_xor}[kind]
    return _boolean(fn(a != 0, b != 0), output_type)


for _kind in ("AND", "OR", "XOR", "NOT"):
    register(name=f"ELEMENT_WISE_LOGICAL_{_kind}", function=logical, leading=(_kind,), output_type=True)
del _kind


@operator(name="ELEMENT_WISE_IS_NAN", output_type=True)
def is_nan(x, output_type=None):
    """ELEMENT_WISE_IS_NAN: 1 for any NaN (quiet or signalling), else 0."""
    return _boolean(np.isnan(np.asarray(x)), output_type)


@operator(name="ELEMENT_WISE_IS_INFINITY", attributes=("InfinityMode",), output_type=True)
def is_infinity(x, InfinityMode=0, output_type=None):
    """ELEMENT_WISE_IS_INFINITY: DML_IS_INFINITY_MODE 0 either infinity, 1 +inf only, 2 -inf only."""
    x = np.asarray(x)
    mode = int(InfinityMode)
    hit = np.isinf(x) & (True if mode == 0 else (x > 0) if mode == 1 else (x < 0))
    return _boolean(hit, output_type)


# ---- bits -----------------------------------------------------------------------------------------------------
def _bitwise(fn, *arrays):
    arrays = same_dtype(*arrays)
    return fn(*[bits_of(a) for a in arrays]).view(arrays[0].dtype)


@operator(name="ELEMENT_WISE_BIT_AND")
def bit_and(a, b):
    """ELEMENT_WISE_BIT_AND: a & b of the elements' bits (float tensors too)."""
    return _bitwise(np.bitwise_and, a, b)


@operator(name="ELEMENT_WISE_BIT_OR")
def bit_or(a, b):
    """ELEMENT_WISE_BIT_OR: a | b of the elements' bits."""
    return _bitwise(np.bitwise_or, a, b)


@operator(name="ELEMENT_WISE_BIT_XOR")
def bit_xor(a, b):
    """ELEMENT_WISE_BIT_XOR: a ^ b of the elements' bits."""
    return _bitwise(np.bitwise_xor, a, b)


@operator(name="ELEMENT_WISE_BIT_NOT")
def bit_not(x):
    """ELEMENT_WISE_BIT_NOT: ~x of the element's bits."""
    return _bitwise(np.invert, x)


@operator(name="ELEMENT_WISE_BIT_COUNT", output_type=True)
def bit_count(x, output_type=None):
    """ELEMENT_WISE_BIT_COUNT: the number of set bits of the element's own width."""
    bits = bits_of(x).astype(np.uint64)
    count = np.zeros(bits.shape, dtype=np.uint64)
    for _ in range(8 * np.asarray(x).dtype.itemsize):
        count += bits & np.uint64(1)
        bits >>= np.uint64(1)
    return _boolean(count, output_type)


def _shift_count(b):
    """The shift count: B's value read as unsigned (a negative count is a huge one)."""
    return bits_of(b).astype(np.uint64)


@operator(name="ELEMENT_WISE_BIT_SHIFT_LEFT")
def bit_shift_left(a, b):
    """ELEMENT_WISE_BIT_SHIFT_LEFT: a << b; a count of the register width (32; 64 for 64-bit types) or
    more gives 0 (narrower types lose their bits earlier, as the shifted value is stored by its low bits)."""
    a, b = same_dtype(a, b)
    width = 64 if a.dtype.itemsize == 8 else 32
    n = _shift_count(b)
    big = n >= width
    bits = bits_of(a.astype(np.int64 if a.dtype.kind == "i" else np.uint64)).astype(np.uint64)
    shifted = bits << np.where(big, 0, n).astype(np.uint64)
    return np.where(big, 0, shifted).astype(np.uint64).view(np.int64 if a.dtype.kind == "i" else np.uint64) \
        .astype(a.dtype)


@operator(name="ELEMENT_WISE_BIT_SHIFT_RIGHT")
def bit_shift_right(a, b):
    """ELEMENT_WISE_BIT_SHIFT_RIGHT: logical for unsigned types, arithmetic for signed ones; a count of the
    register width or more gives 0 (unsigned) or the sign in every bit (signed)."""
    a, b = same_dtype(a, b)
    width = 64 if a.dtype.itemsize == 8 else 32
    n = np.minimum(_shift_count(b), np.uint64(width))
    if a.dtype.kind == "i":
        return (a.astype(np.int64) >> np.minimum(n, width - 1).astype(np.int64)).astype(a.dtype)
    big = n >= width
    return np.where(big, 0, a.astype(np.uint64) >> np.where(big, 0, n)).astype(a.dtype)
