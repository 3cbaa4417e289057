"""Golden model: the reference implementation of every operator in NUMERICS.md.

One module, plain NumPy (no ISA, no kernels). Each operator here computes, for whole tensors at
once, exactly the bits that the project's numeric rules (NUMERICS.md) prescribe: FLOAT16 math
widened to FLOAT32 (or, with half precision allowed, rounded to FLOAT16 at every step), ScaleBias
as a rounded multiply then a rounded add, IEEE 754-2008 minNum/maxNum with -0 < +0, canonical
quiet NaNs out of arithmetic, FLOAT bounds cast to the tensor type (round to nearest even for
FLOAT16, truncate then saturate for integers), bit-exact copies for IDENTITY and IF. The
microkernels are checked against it bit for bit, and it doubles as the speed baseline, so every
function is vectorised; where a shortcut is taken, a comment says why it is exact.

It also holds the memory helpers the checks need: `gather` and `scatter` move a strided tensor
out of and into a byte buffer the way DirectML addresses it, and `calc_buffer_tensor_size` is
DMLCalcBufferTensorSize.
"""
import math

import numpy as np
from numpy.lib.stride_tricks import as_strided

__all__ = [
    "DATA_TYPES",
    "float_to_int",
    "cast_bound",
    "canonical_nan",
    "min_num",
    "max_num",
    "identity",
    "threshold",
    "clip",
    "if_",
    "gather",
    "scatter",
    "packed_strides",
    "calc_buffer_tensor_size",
]

# DirectML data type names (DML_TENSOR_DATA_TYPE_<name>) and the little-endian NumPy dtypes
# that store them.
DATA_TYPES = {
    "FLOAT32": np.dtype(np.float32),
    "FLOAT16": np.dtype(np.float16),
    "FLOAT64": np.dtype(np.float64),
    "UINT8": np.dtype(np.uint8),
    "UINT16": np.dtype(np.uint16),
    "UINT32": np.dtype(np.uint32),
    "UINT64": np.dtype(np.uint64),
    "INT8": np.dtype(np.int8),
    "INT16": np.dtype(np.int16),
    "INT32": np.dtype(np.int32),
    "INT64": np.dtype(np.int64),
}

_TYPE_NAMES = {dtype: name for name, dtype in DATA_TYPES.items()}

# The unsigned integer of each element size: float bits are moved and compared through these.
_BITS = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16),
         4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}

_CANONICAL_NAN_BITS = {
    np.dtype(np.float16): 0x7E00,
    np.dtype(np.float32): 0x7FC0_0000,
    np.dtype(np.float64): 0x7FF8_0000_0000_0000,
}

# Element sizes in bits for DMLCalcBufferTensorSize; any other type gives 0, as in C.
_ELEMENT_BITS = {
    "FLOAT64": 64, "UINT64": 64, "INT64": 64,
    "FLOAT32": 32, "UINT32": 32, "INT32": 32,
    "FLOAT16": 16, "UINT16": 16, "INT16": 16,
    "UINT8": 8, "INT8": 8,
    "UINT4": 4, "INT4": 4,
}

_U32 = (1 << 32) - 1
_U64 = (1 << 64) - 1


def _as_dtype(dtype):
    """A NumPy dtype from a NumPy dtype-like or a DirectML data type name."""
    if isinstance(dtype, str) and dtype.upper() in DATA_TYPES:
        return DATA_TYPES[dtype.upper()]
    return np.dtype(dtype)


def _type_name(dtype):
    return _TYPE_NAMES.get(np.dtype(dtype), str(np.dtype(dtype)))


def _check_tensor_dtype(dtype):
    if np.dtype(dtype) not in _TYPE_NAMES:
        raise TypeError(f"tensor data type {np.dtype(dtype)} is not a DirectML data type; "
                        f"expected one of {', '.join(DATA_TYPES)}")


# ---------------------------------------------------------------------------------------------
# Conversions
# ---------------------------------------------------------------------------------------------

def float_to_int(values, dtype):
    """FLOAT -> integer: truncate toward zero, then saturate to dtype's range; NaN -> 0.

    Works for FLOAT16/32/64 arrays or scalars and all eight integer types. Every float16, float32
    and float64 value is exact in float64, and the range limits -2**(n-1), 2**(n-1), 0 and 2**n
    are powers of two (exact too), so the range test is exact; only in-range values reach the
    float -> int cast, which is exact for them (NumPy's cast of out-of-range values is platform
    dependent and is never used). Returns an ndarray of dtype (0-d for a scalar).
    """
    dtype = np.dtype(dtype)
    if dtype.kind not in "iu":
        raise TypeError(f"float_to_int converts to an integer type, not {dtype}")
    info = np.iinfo(dtype)
    lower = float(info.min)             # 0 or -2**(bits-1): exact in float64
    upper_exclusive = float(info.max) + 1.0   # 2**bits or 2**(bits-1): exact in float64
    truncated = np.trunc(np.asarray(values, dtype=np.float64))
    too_small = truncated < lower       # includes -inf; False for NaN
    too_large = truncated >= upper_exclusive  # includes +inf; False for NaN
    in_range = ~(too_small | too_large | np.isnan(truncated))
    result = np.where(in_range, truncated, 0.0).astype(dtype)
    result[too_small] = info.min
    result[too_large] = info.max
    return result


def cast_bound(value, dtype):
    """A DirectML FLOAT bound (CLIP Min/Max, THRESHOLD Min) cast to the tensor's data type.

    The value is a C FLOAT, so it is first rounded to float32 (round to nearest even; beyond the
    float32 range it becomes +/-inf). Then FLOAT16 rounds to nearest even (NumPy converts float32
    to float16 directly with round-to-nearest-even; tests check it against struct's 'e' format),
    FLOAT32 keeps it, FLOAT64 widens it exactly, and integers use `float_to_int`.
    Returns a NumPy scalar of dtype.
    """
    dtype = _as_dtype(dtype)
    with np.errstate(over="ignore"):
        value32 = np.float32(value)
    if dtype.kind == "f":
        with np.errstate(over="ignore"):
            return dtype.type(value32)
    return float_to_int(value32, dtype)[()]


def canonical_nan(dtype):
    """The canonical quiet NaN of a float type: 0x7E00, 0x7FC00000 or 0x7FF8000000000000."""
    dtype = _as_dtype(dtype)
    bits = _BITS[dtype.itemsize]
    return np.array(_CANONICAL_NAN_BITS[dtype], dtype=bits).view(dtype)[()]


def _canonicalize_nans(array):
    """Replace every NaN in a float array (in place) by the canonical quiet NaN."""
    nans = np.isnan(array)
    if nans.any():
        array[nans] = canonical_nan(array.dtype)
    return array


# ---------------------------------------------------------------------------------------------
# Min and max
# ---------------------------------------------------------------------------------------------

def _min_max_num(a, b, is_min):
    a = np.asarray(a)
    b = np.asarray(b)
    if a.dtype != b.dtype:
        raise TypeError(f"min_num/max_num need operands of one dtype, not {a.dtype} and {b.dtype}")
    if a.dtype.kind in "iu":
        return np.minimum(a, b) if is_min else np.maximum(a, b)
    if a.dtype not in _CANONICAL_NAN_BITS:
        raise TypeError(f"min_num/max_num take float or integer arrays, not {a.dtype}")
    # np.fmin/np.fmax are not used: for a signalling NaN, NumPy's SIMD loops return the other
    # operand but its scalar loops (libm fmin, which follows 754-2008's sNaN clause) return
    # NaN, so the answer depends on the array length. Comparisons treat every NaN alike.
    uint = _BITS[a.dtype.itemsize]
    a_bits, b_bits = a.view(uint), b.view(uint)
    take_a = (a < b) if is_min else (a > b)
    take_a |= np.isnan(b)                 # b NaN: a (a NaN too: fixed below)
    result = np.where(take_a, a_bits, b_bits)
    # Equal operands have identical bits except for +0 == -0. In bit space, OR of the operands
    # is -0 if either is -0 (min); AND is +0 if either is +0 (max); any other tie is unchanged.
    ties = a == b
    if ties.any():
        combine = np.bitwise_or if is_min else np.bitwise_and
        combine(a_bits, b_bits, out=result, where=ties)
    # A NaN result now means both operands were NaN: return the canonical quiet NaN.
    return _canonicalize_nans(result.view(a.dtype))


def min_num(a, b):
    """IEEE 754-2008 minNum, elementwise: one NaN -> the other operand; two NaNs -> the
    canonical quiet NaN; min(-0, +0) = -0 in either order. Integers: plain minimum."""
    return _min_max_num(a, b, is_min=True)


def max_num(a, b):
    """IEEE 754-2008 maxNum, elementwise: one NaN -> the other operand; two NaNs -> the
    canonical quiet NaN; max(-0, +0) = +0 in either order. Integers: plain maximum."""
    return _min_max_num(a, b, is_min=False)


def _min_max_bound_inplace(work, bound, is_min):
    """work = minNum(work, bound) (or maxNum) in place, for a float scalar bound of work's dtype.

    The hot path of CLIP and THRESHOLD, so it takes shortcuts that are exact for one bound:
    - NaN bound: minNum(x, NaN) = x, so work stays as it is. A NaN in work then survives (both
      operands NaN); the caller canonicalises it.
    - Otherwise np.fmin/np.fmax: exact for any non-NaN work (the smaller/larger operand's own
      bits; a tie with a non-zero bound has identical bits), and a quiet NaN in work yields the
      bound. NumPy's scalar loops (libm fmin) return NaN for a signalling NaN, so any NaN left
      (minNum with a non-NaN bound is never NaN) is replaced by the bound.
    - Zero bound: fmin/fmax pick either zero on a +0/-0 tie, so the sign is set afterwards.
      maxNum(+/-0, +0) = +0: in round-to-nearest y + 0 is y for every non-zero y and +0 for
      either zero, so one add fixes it. minNum(+/-0, -0) = -0: the mirror image, -((-y) + 0).
      minNum(+/-0, +0) and maxNum(+/-0, -0) are work's own zero: the zeros of the other sign
      than the bound are found first and restored.
    """
    if np.isnan(bound):
        return work
    zero_bound = bound == 0
    bound_wins_ties = zero_bound and bool(np.signbit(bound)) == is_min
    if zero_bound and not bound_wins_ties:
        keep = work == 0
        keep &= np.signbit(work) != np.signbit(bound)
        if not keep.any():
            keep = None
    ufunc = np.fmin if is_min else np.fmax
    ufunc(work, bound, out=work)
    nans = np.isnan(work)
    if nans.any():
        work[nans] = bound
    if not zero_bound:
        return work
    if bound_wins_ties and not is_min:
        work += bound
    elif bound_wins_ties:
        np.negative(work, out=work)
        work += np.zeros((), work.dtype)
        np.negative(work, out=work)
    elif keep is not None:
        work[keep] = -bound
    return work


# ---------------------------------------------------------------------------------------------
# Element-wise operators
# ---------------------------------------------------------------------------------------------

def _scale_bias_values(scale_bias):
    if hasattr(scale_bias, "Scale"):           # a DML_SCALE_BIAS struct
        return float(scale_bias.Scale), float(scale_bias.Bias)
    scale, bias = scale_bias
    return float(scale), float(bias)


def _working_values(x, scale_bias, half_precision):
    """The operator's input in its working type (a fresh array), after ScaleBias if given.

    FLOAT16 tensors work in float32 (widening is exact), FLOAT32 in float32, FLOAT64 in float64,
    integers in their own type. After ScaleBias, NaNs in work may be non-canonical.
    """
    dtype = x.dtype
    if scale_bias is None:
        if dtype == np.float16:
            return x.astype(np.float32)
        return x.copy()
    if dtype not in (np.float16, np.float32):
        raise ValueError(f"ScaleBias is only valid for FLOAT16 and FLOAT32 tensors, "
                         f"not {_type_name(dtype)}")
    scale, bias = _scale_bias_values(scale_bias)
    if dtype == np.float16 and half_precision:
        # Every step rounds to FLOAT16, Scale and Bias included (float32 first: they are FLOATs).
        scale16 = cast_bound(scale, np.float16)
        bias16 = cast_bound(bias, np.float16)
        # A float16 x float16 product has at most 22 significant bits and a magnitude in
        # [2**-48, 2**32] (or is 0/inf/NaN), so float32 holds it exactly and the one cast to
        # float16 is the correctly rounded product (same result as exact float64; cheaper).
        work = x.astype(np.float32)
        work *= np.float32(scale16)
        product16 = work.astype(np.float16)
        # A float16 + float16 sum spans at most 40 + 11 bits, so float64 holds it exactly, and
        # NumPy's direct float64 -> float16 cast rounds it once to nearest even.
        total = product16.astype(np.float32).astype(np.float64)
        total += np.float64(bias16)
        sum16 = total.astype(np.float16)
        del total
        return sum16.astype(np.float32)
    # Default path (FLOAT32 tensors, and FLOAT16 widened to FLOAT32): a float32 multiply then a
    # float32 add, each correctly rounded (NumPy float32 ops are IEEE), never fused.
    work = x.astype(np.float32)
    work *= np.float32(scale)
    work += np.float32(bias)
    return work


def _store(work, dtype):
    """Narrow the working array to the tensor type (FLOAT16: one round to nearest even)."""
    if work.dtype == dtype:
        return work
    return work.astype(dtype)


def identity(x, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_IDENTITY: f(x) = x, or g(x) = x * Scale + Bias with a ScaleBias.

    Without a ScaleBias the bits are copied (NaN payloads, signalling NaNs and -0 survive).
    """
    x = np.asarray(x)
    _check_tensor_dtype(x.dtype)
    if scale_bias is None:
        return x.copy()
    with np.errstate(all="ignore"):
        work = _working_values(x, scale_bias, half_precision)
        _canonicalize_nans(work)
        return _store(work, x.dtype)


def threshold(x, min_value, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_THRESHOLD: f(x) = maxNum(g(x), Min). A NaN input gives Min."""
    x = np.asarray(x)
    _check_tensor_dtype(x.dtype)
    with np.errstate(all="ignore"):
        work = _working_values(x, scale_bias, half_precision)
        if x.dtype.kind in "iu":
            np.maximum(work, cast_bound(min_value, x.dtype), out=work)
            return work
        low = work.dtype.type(cast_bound(min_value, x.dtype))  # FLOAT16: widened exactly
        _min_max_bound_inplace(work, low, is_min=False)
        if np.isnan(low):
            # maxNum(x, NaN) = x: a NaN x is a NaN result and must be the canonical one.
            _canonicalize_nans(work)
        return _store(work, x.dtype)


def clip(x, min_value, max_value, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_CLIP: f(x) = maxNum(Min, minNum(g(x), Max)), in this order.

    So a NaN input gives maxNum(Min, Max), Min > Max gives Min everywhere, and a NaN bound is
    ignored.
    """
    x = np.asarray(x)
    _check_tensor_dtype(x.dtype)
    with np.errstate(all="ignore"):
        work = _working_values(x, scale_bias, half_precision)
        if x.dtype.kind in "iu":
            # Integers compare in their own width and signedness; x never becomes a float.
            np.minimum(work, cast_bound(max_value, x.dtype), out=work)
            np.maximum(work, cast_bound(min_value, x.dtype), out=work)
            return work
        low = work.dtype.type(cast_bound(min_value, x.dtype))
        high = work.dtype.type(cast_bound(max_value, x.dtype))
        _min_max_bound_inplace(work, high, is_min=True)
        _min_max_bound_inplace(work, low, is_min=False)
        if np.isnan(low) and np.isnan(high):
            # Only with both bounds NaN can a NaN reach the result (a NaN x passes both stages);
            # otherwise fmin/fmax have already replaced every NaN by a bound.
            _canonicalize_nans(work)
        return _store(work, x.dtype)


def if_(condition, a, b):
    """ELEMENT_WISE_IF: a where the UINT8 condition byte is non-zero, else b, bits copied."""
    a = np.asarray(a)
    b = np.asarray(b)
    if a.dtype != b.dtype:
        raise TypeError(f"IF needs ATensor and BTensor of one data type, not {a.dtype} and {b.dtype}")
    _check_tensor_dtype(a.dtype)
    # Select through unsigned views so no float register ever touches the bits.
    bits = _BITS[a.dtype.itemsize]
    selected = np.where(np.asarray(condition) != 0, a.view(bits), b.view(bits))
    return selected.view(a.dtype)


# ---------------------------------------------------------------------------------------------
# Tensor memory
# ---------------------------------------------------------------------------------------------

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
    dtype = _as_dtype(dtype).newbyteorder("<")
    buf = _byte_buffer(buffer)
    sizes, strides, end = _layout(sizes, strides, offset_bytes, dtype.itemsize, buf.size)
    if math.prod(sizes) == 0:
        return np.zeros(sizes, dtype=dtype)
    bits = _BITS[dtype.itemsize]
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
    _check_tensor_dtype(dtype.newbyteorder("="))
    values = values.astype(dtype.newbyteorder("<"), copy=False)
    buf = _byte_buffer(buffer)
    if not buf.flags.writeable:
        raise ValueError("buffer is read-only")
    sizes, strides, end = _layout(values.shape, strides, offset_bytes, dtype.itemsize, buf.size)
    if math.prod(sizes) == 0:
        return
    bits = _BITS[dtype.itemsize]
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
    element_bits = _ELEMENT_BITS.get(name, 0)
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
