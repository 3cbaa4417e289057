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

from dmlemu import data_types as _data_types

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
# that store them (the stored rows of dmlemu.data_types).
DATA_TYPES = _data_types.DATA_TYPES

_TYPE_NAMES = {dtype: name for name, dtype in DATA_TYPES.items()}

# The unsigned integer of each element size: float bits are moved and compared through these.
_BITS = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16),
         4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}

_FLOATS = {t.dtype: t for t in _data_types.STORED if t.is_float}

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
    return _FLOATS[_as_dtype(dtype)].canonical_nan()


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
    if a.dtype not in _FLOATS:
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


# ---------------------------------------------------------------------------------------------
# The element-wise family (docs/NUMERICS.md): one function per operator, and `run`
# ---------------------------------------------------------------------------------------------
# Instruction-level primitives whose rounding the numeric rules define once (a correctly rounded
# reciprocal, a fused multiply-add rounded once, float -> integer conversion, FLOAT16 narrowing)
# come from isa/numerics.py; everything else here is plain NumPy on whole arrays.
from dmlemu.isa import numerics as _nm   # noqa: E402  (primitives only; the ISA is never run)


class _Work:
    """The working precision of one float operator: FLOAT16 widened to float32 (or, with half
    precision, every step rounded to float16), FLOAT32 in float32. Integer tensors work in their
    own type (NumPy's integer arithmetic wraps, as the kernels' 32- and 64-bit registers do once
    narrowed)."""

    def __init__(self, dtype, half_precision=False):
        self.storage = np.dtype(dtype)
        self.is_float = self.storage.kind == "f"
        self.half = bool(half_precision) and self.storage == np.float16
        if self.storage == np.float16 and not self.half:
            self.dtype = np.dtype(np.float32)
        else:
            self.dtype = self.storage

    def widen(self, x):
        """An input in the working type (FLOAT16 -> float32 is exact and keeps NaN payloads)."""
        return np.asarray(x).astype(self.dtype)

    def param(self, value):
        """A FLOAT attribute in the working type: rounded to FLOAT32 (it is a C FLOAT), then to FLOAT16
        with half precision."""
        with np.errstate(over="ignore"):
            return self.dtype.type(np.float32(value))

    def _binary(self, fn, a, b):
        with np.errstate(all="ignore"):
            if self.half:   # a float16 sum, difference or product is exact in float64: one rounding
                return _nm.narrow_f16(fn(np.asarray(a, np.float64), np.asarray(b, np.float64)))
            return _nm.canonicalize(np.asarray(fn(np.asarray(a, self.dtype), np.asarray(b, self.dtype)),
                                               dtype=self.dtype))

    def add(self, a, b):
        return self._binary(np.add, a, b)

    def sub(self, a, b):
        return self._binary(np.subtract, a, b)

    def mul(self, a, b):
        return self._binary(np.multiply, a, b)

    def mad(self, a, b, c):
        """a * b + c with the product and the sum each rounded (not fused)."""
        return self.add(self.mul(a, b), c)

    def fma(self, a, b, c):
        a, b, c = np.broadcast_arrays(np.asarray(a, self.dtype), np.asarray(b, self.dtype), np.asarray(c, self.dtype))
        return np.asarray(_nm.fused_multiply_add(a, b, c), dtype=self.dtype)

    def rcp(self, b):
        return np.asarray(_nm.reciprocal(np.asarray(b, self.dtype), self.dtype), dtype=self.dtype)

    def finish(self, y, canonical=False):
        """The stored result: NaNs made canonical when `canonical` (operators that select rather than
        compute), then FLOAT16 narrowed once (round to nearest even, NaN canonical) when widened."""
        y = np.asarray(y)
        if canonical and self.is_float:
            y = _nm.canonicalize(y)
        with np.errstate(over="ignore"):
            if self.is_float and self.storage == np.float16 and not self.half:
                return _nm.narrow_f16(y.astype(np.float32))
            return y.astype(self.storage)


def _scale_biased(x, scale_bias, half_precision):
    """(work, _Work): x in its working type after the optional ScaleBias."""
    x = np.asarray(x)
    _check_tensor_dtype(x.dtype)
    w = _Work(x.dtype, half_precision)
    if scale_bias is None:
        return w.widen(x), w
    with np.errstate(all="ignore"):
        work = _working_values(x, scale_bias, half_precision)   # float32 (holding FLOAT16 values with half)
    return _nm.canonicalize(work).astype(w.dtype), w


def _same_dtype(*arrays):
    arrays = [np.asarray(a) for a in arrays]
    for a in arrays[1:]:
        if a.dtype != arrays[0].dtype:
            raise TypeError(f"the tensors of this operator share one data type, not {arrays[0].dtype} and {a.dtype}")
    _check_tensor_dtype(arrays[0].dtype)
    return arrays


def _bits_of(x):
    x = np.asarray(x)
    return x.view(_BITS[x.dtype.itemsize])


# ---- arithmetic -------------------------------------------------------------------------------------------
def _arith(fn_name, a, b, half_precision, fused_activation=None):
    a, b = _same_dtype(a, b)
    w = _Work(a.dtype, half_precision)
    with np.errstate(all="ignore"):
        if not w.is_float:
            return {"add": np.add, "sub": np.subtract, "mul": np.multiply}[fn_name](a, b).astype(a.dtype)
        y = getattr(w, fn_name)(w.widen(a), w.widen(b))
        canonical = False
        if fused_activation is not None:
            y, canonical = _apply_activation(fused_activation, y, w)
        return w.finish(y, canonical)


def add(a, b, half_precision=False):
    """ELEMENT_WISE_ADD: a + b, rounded once in the working type; integers wrap."""
    return _arith("add", a, b, half_precision)


def add1(a, b, FusedActivation=None, half_precision=False):
    """ELEMENT_WISE_ADD1: FusedActivation(a + b); the activation runs on the working value, before the
    one narrowing to FLOAT16."""
    return _arith("add", a, b, half_precision, FusedActivation)


def subtract(a, b, half_precision=False):
    """ELEMENT_WISE_SUBTRACT: a - b; integers wrap."""
    return _arith("sub", a, b, half_precision)


def multiply(a, b, half_precision=False):
    """ELEMENT_WISE_MULTIPLY: a * b; integers keep the low bits."""
    return _arith("mul", a, b, half_precision)


def difference_square(a, b, half_precision=False):
    """ELEMENT_WISE_DIFFERENCE_SQUARE: (a - b) * (a - b), each step rounded; integers wrap."""
    a, b = _same_dtype(a, b)
    w = _Work(a.dtype, half_precision)
    with np.errstate(all="ignore"):
        if not w.is_float:
            d = np.subtract(a, b)
            return np.multiply(d, d).astype(a.dtype)
        d = w.sub(w.widen(a), w.widen(b))
        return w.finish(w.mul(d, d))


def mean(a, b, half_precision=False):
    """ELEMENT_WISE_MEAN: (a + b) * 0.5, the sum rounded, then halved (exact unless subnormal); integers:
    floor((a + b) / 2), exact (no overflow)."""
    a, b = _same_dtype(a, b)
    if a.dtype.kind in "iu":
        return (np.bitwise_and(a, b) + (np.bitwise_xor(a, b) >> a.dtype.type(1))).astype(a.dtype)
    w = _Work(a.dtype, half_precision)
    return w.finish(w.mul(w.add(w.widen(a), w.widen(b)), w.dtype.type(0.5)))


def minimum(a, b, half_precision=False):
    """ELEMENT_WISE_MIN: minNum (one NaN -> the other operand, min(-0, +0) = -0); integers: min."""
    a, b = _same_dtype(a, b)
    w = _Work(a.dtype, half_precision)
    return w.finish(min_num(w.widen(a), w.widen(b)))


def maximum(a, b, half_precision=False):
    """ELEMENT_WISE_MAX: maxNum (one NaN -> the other operand, max(-0, +0) = +0); integers: max."""
    a, b = _same_dtype(a, b)
    w = _Work(a.dtype, half_precision)
    return w.finish(max_num(w.widen(a), w.widen(b)))


_SIGN_BIT = {2: 0x8000, 4: 0x8000_0000, 8: 0x8000_0000_0000_0000}


def abs_(x, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_ABS: the sign bit cleared for floats (NaN payloads kept; after a ScaleBias the NaN is
    canonical first); integers: |x| with the most negative value wrapping to itself; unsigned: x."""
    x = np.asarray(x)
    _check_tensor_dtype(x.dtype)
    if x.dtype.kind != "f":
        with np.errstate(all="ignore"):
            return np.abs(x) if x.dtype.kind == "i" else x.copy()
    if scale_bias is None:
        bits = _bits_of(x)
        return (bits & bits.dtype.type(~_SIGN_BIT[x.dtype.itemsize] & ((1 << 8 * x.dtype.itemsize) - 1))).view(x.dtype)
    work, w = _scale_biased(x, scale_bias, half_precision)
    bits = _bits_of(work)
    work = (bits & bits.dtype.type(_SIGN_BIT[work.dtype.itemsize] - 1)).view(work.dtype)
    return w.finish(work)


def negate(x, half_precision=False):
    """ELEMENT_WISE_NEGATE: the sign bit flipped for floats (NaN payloads kept); integers: 0 - x (wraps)."""
    x = np.asarray(x)
    _check_tensor_dtype(x.dtype)
    if x.dtype.kind == "f":
        bits = _bits_of(x)
        return (bits ^ bits.dtype.type(_SIGN_BIT[x.dtype.itemsize])).view(x.dtype)
    with np.errstate(all="ignore"):
        return np.subtract(x.dtype.type(0), x).astype(x.dtype)


def sign(x, half_precision=False):
    """ELEMENT_WISE_SIGN: 1 for x > 0, -1 for x < 0, else x itself (+-0 keep their sign, NaN canonical);
    integers: (x > 0) - (x < 0)."""
    x = np.asarray(x)
    _check_tensor_dtype(x.dtype)
    w = _Work(x.dtype, half_precision)
    work = w.widen(x)
    with np.errstate(all="ignore"):
        if not w.is_float:
            return ((work > 0).astype(x.dtype) - (work < 0).astype(x.dtype)).astype(x.dtype)
        y = np.where(work > 0, w.dtype.type(1), np.where(work < 0, w.dtype.type(-1), work))
    return w.finish(y, canonical=True)


def _typed_bounds(w, low, high, dtype):
    """CLIP1 / CLIP_GRAD1 bounds (DML_SCALAR_UNION values of the tensor's own type) in the working type."""
    return w.dtype.type(dtype.type(low)), w.dtype.type(dtype.type(high))


def clip1(x, Min, Max, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_CLIP1: maxNum(Min, minNum(g(x), Max)) with Min and Max of the tensor's type (no cast)."""
    work, w = _scale_biased(x, scale_bias, half_precision)
    low, high = _typed_bounds(w, Min, Max, np.asarray(x).dtype)
    return w.finish(max_num(np.full_like(work, low), min_num(work, np.full_like(work, high))))


def _clip_grad(x, gradient, low, high, half_precision):
    x, gradient = _same_dtype(x, gradient)
    w = _Work(x.dtype, half_precision)
    work, grad = w.widen(x), w.widen(gradient)
    with np.errstate(invalid="ignore"):
        zero = (work <= low) | (work >= high)
    return w.finish(np.where(zero, w.dtype.type(0), grad), canonical=True)


def clip_grad(x, gradient, Min, Max, half_precision=False):
    """ELEMENT_WISE_CLIP_GRAD: 0 where x <= Min or x >= Max, else the gradient (a NaN x passes it). Min and
    Max are cast to the tensor's type as CLIP's are."""
    x = np.asarray(x)
    w = _Work(x.dtype, half_precision)
    low = w.dtype.type(cast_bound(Min, x.dtype))
    high = w.dtype.type(cast_bound(Max, x.dtype))
    return _clip_grad(x, gradient, low, high, half_precision)


def clip_grad1(x, gradient, Min, Max, half_precision=False):
    """ELEMENT_WISE_CLIP_GRAD1: CLIP_GRAD with Min and Max of the tensor's type."""
    x = np.asarray(x)
    w = _Work(x.dtype, half_precision)
    low, high = _typed_bounds(w, Min, Max, x.dtype)
    return _clip_grad(x, gradient, low, high, half_precision)


# ---- division -----------------------------------------------------------------------------------------------
_DIVISION_BY_ZERO = "all bits set"


def _magnitude(x):
    """|x| as uint64 (exact for every integer type: the most negative value included) and x < 0."""
    x64 = x.astype(np.int64) if x.dtype.kind == "i" else x.astype(np.uint64)
    if x.dtype.kind != "i":
        return x64, np.zeros(x.shape, dtype=bool)
    negative = x64 < 0
    bits = x64.view(np.uint64)
    return np.where(negative, ~bits + np.uint64(1), bits), negative


def _integer_divide(a, b):
    """(quotient, truncated remainder, b) of integer arrays: quotients round toward zero, the remainder has
    a's sign; the most negative value / -1 wraps; x / 0 and x % 0 have all bits set (D3D's udiv rule)."""
    a, b = _same_dtype(a, b)
    dtype = a.dtype
    ua, a_negative = _magnitude(a)
    ub, b_negative = _magnitude(b)
    zero = ub == 0
    safe = np.where(zero, np.uint64(1), ub)
    q, r = ua // safe, ua % safe
    q = np.where(a_negative != b_negative, ~q + np.uint64(1), q)     # two's complement negation in 64 bits
    r = np.where(a_negative, ~r + np.uint64(1), r)
    ones = np.uint64(0xFFFF_FFFF_FFFF_FFFF)
    q = np.where(zero, ones, q)
    r = np.where(zero, ones, r)
    wide = np.int64 if dtype.kind == "i" else np.uint64
    return q.view(wide).astype(dtype), r.view(wide).astype(dtype), b


def divide(a, b, half_precision=False):
    """ELEMENT_WISE_DIVIDE. Floats: the IEEE quotient, correctly rounded (FLOAT16: the float64 quotient
    rounded once; computing in float32 first and rounding again gives the same bits, 24 >= 2 * 11 + 2).
    Integers: toward zero; x / 0 has all bits set."""
    a, b = _same_dtype(a, b)
    if a.dtype.kind != "f":
        return _integer_divide(a, b)[0]
    with np.errstate(all="ignore"):
        if a.dtype == np.float16:
            return _nm.narrow_f64_to_f16(_nm.canonicalize(np.asarray(a, np.float64) / np.asarray(b, np.float64)))
        return _nm.canonicalize(np.divide(a, b))


def _fmod(a, b, half_precision):
    """(C fmod(a, b) exactly, the working type, b): the sign of a; fmod(x, +-inf) = x; fmod(+-inf, y) and
    fmod(x, 0) are NaN (canonical)."""
    a, b = _same_dtype(a, b)
    w = _Work(a.dtype, False)    # exact: the working type does not matter, FLOAT16 in float32
    with np.errstate(all="ignore"):
        r = _nm.canonicalize(np.fmod(np.asarray(a, np.float64), np.asarray(b, np.float64))).astype(w.dtype)
    return r, w, w.widen(b), half_precision


def modulus_truncate(a, b, half_precision=False):
    """ELEMENT_WISE_MODULUS_TRUNCATE: a - trunc(a / b) * b, the sign of a. Floats: C's fmod, exact;
    integers: x % 0 has all bits set."""
    if np.asarray(a).dtype.kind == "f":
        r, w, _, _ = _fmod(a, b, half_precision)
        return w.finish(r)
    return _integer_divide(a, b)[1]


def modulus_floor(a, b, half_precision=False):
    """ELEMENT_WISE_MODULUS_FLOOR: a - floor(a / b) * b, the sign of b. Floats: r = fmod(a, b); a non-zero r
    of the other sign than b becomes r + b (rounded), a zero r the zero of b's sign (NumPy's divmod rule);
    integers: x % 0 has all bits set."""
    if np.asarray(a).dtype.kind == "f":
        r, w, bw, _ = _fmod(a, b, half_precision)
        with np.errstate(all="ignore"):
            differ = np.signbit(r) != np.signbit(bw)
            adjusted = np.where(differ, w.add(r, bw), r)
            zero = np.copysign(np.zeros_like(r), bw)
            return w.finish(np.where(r == 0, zero, adjusted))
    q, r, b = _integer_divide(a, b)
    if r.dtype.kind == "i":
        with np.errstate(all="ignore"):
            fix = (r != 0) & ((r < 0) != (b < 0)) & (b != 0)
            r = np.where(fix, (r + b).astype(r.dtype), r)
    return r


# ---- rounding -------------------------------------------------------------------------------------------------
def _round_like(x, scale_bias, half_precision, fn):
    work, w = _scale_biased(x, scale_bias, half_precision)
    with np.errstate(all="ignore"):
        return w.finish(_nm.canonicalize(fn(work)))


def ceil(x, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_CEIL: the smallest integral value >= g(x), exact; -0 and +-inf kept, NaN canonical."""
    return _round_like(x, scale_bias, half_precision, np.ceil)


def floor(x, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_FLOOR: the largest integral value <= g(x), exact."""
    return _round_like(x, scale_bias, half_precision, np.floor)


def round_(x, RoundingMode=0, half_precision=False):
    """ELEMENT_WISE_ROUND: DML_ROUNDING_MODE 0 halves to nearest even, 1 toward zero, 2 halves away from zero
    (DirectML's TOWARD_INFINITY: -2.5 -> -3, 2.5 -> 3). Exact; zeros keep their sign; NaN canonical."""
    def fn(v):
        t = np.trunc(v)
        if int(RoundingMode) == 0:
            return np.rint(v)
        if int(RoundingMode) == 1:
            return t
        away = np.abs(v - t) >= 0.5
        return np.where(away, t + np.copysign(v.dtype.type(1), v), t)
    return _round_like(x, None, half_precision, fn)


# ---- comparisons and logic ------------------------------------------------------------------------------------
def _boolean(result, output_type):
    return np.asarray(result).astype(_as_dtype(output_type or "UINT8"))


_COMPARISONS = {"EQUALS": np.equal, "GREATER_THAN": np.greater, "LESS_THAN": np.less,
                "GREATER_THAN_OR_EQUAL": np.greater_equal, "LESS_THAN_OR_EQUAL": np.less_equal}


def compare(kind, a, b, output_type=None):
    """ELEMENT_WISE_LOGICAL_<kind> (EQUALS, GREATER_THAN, ...): 1 where a <op> b holds, else 0 (IEEE: false
    with a NaN operand); FLOAT16 compares exactly (as widened)."""
    a, b = _same_dtype(a, b)
    with np.errstate(invalid="ignore"):
        return _boolean(_COMPARISONS[kind](a, b), output_type)


def logical(kind, a, b=None, output_type=None):
    """ELEMENT_WISE_LOGICAL_AND / OR / XOR / NOT on integer tensors: non-zero is true; 1 or 0 out."""
    if kind == "NOT":
        return _boolean(np.asarray(a) == 0, output_type)
    a, b = _same_dtype(a, b)
    fn = {"AND": np.logical_and, "OR": np.logical_or, "XOR": np.logical_xor}[kind]
    return _boolean(fn(a != 0, b != 0), output_type)


def is_nan(x, output_type=None):
    """ELEMENT_WISE_IS_NAN: 1 for any NaN (quiet or signalling), else 0."""
    return _boolean(np.isnan(np.asarray(x)), output_type)


def is_infinity(x, InfinityMode=0, output_type=None):
    """ELEMENT_WISE_IS_INFINITY: DML_IS_INFINITY_MODE 0 either infinity, 1 +inf only, 2 -inf only."""
    x = np.asarray(x)
    mode = int(InfinityMode)
    hit = np.isinf(x) & (True if mode == 0 else (x > 0) if mode == 1 else (x < 0))
    return _boolean(hit, output_type)


# ---- bits -----------------------------------------------------------------------------------------------------
def _bitwise(fn, *arrays):
    arrays = _same_dtype(*arrays)
    return fn(*[_bits_of(a) for a in arrays]).view(arrays[0].dtype)


def bit_and(a, b):
    """ELEMENT_WISE_BIT_AND: a & b of the elements' bits (float tensors too)."""
    return _bitwise(np.bitwise_and, a, b)


def bit_or(a, b):
    """ELEMENT_WISE_BIT_OR: a | b of the elements' bits."""
    return _bitwise(np.bitwise_or, a, b)


def bit_xor(a, b):
    """ELEMENT_WISE_BIT_XOR: a ^ b of the elements' bits."""
    return _bitwise(np.bitwise_xor, a, b)


def bit_not(x):
    """ELEMENT_WISE_BIT_NOT: ~x of the element's bits."""
    return _bitwise(np.invert, x)


def bit_count(x, output_type=None):
    """ELEMENT_WISE_BIT_COUNT: the number of set bits of the element's own width."""
    bits = _bits_of(x).astype(np.uint64)
    count = np.zeros(bits.shape, dtype=np.uint64)
    for _ in range(8 * np.asarray(x).dtype.itemsize):
        count += bits & np.uint64(1)
        bits >>= np.uint64(1)
    return _boolean(count, output_type)


def _shift_count(b):
    """The shift count: B's value read as unsigned (a negative count is a huge one)."""
    return _bits_of(b).astype(np.uint64)


def bit_shift_left(a, b):
    """ELEMENT_WISE_BIT_SHIFT_LEFT: a << b; a count of the register width (32; 64 for 64-bit types) or
    more gives 0 (narrower types lose their bits earlier, as the shifted value is stored by its low bits)."""
    a, b = _same_dtype(a, b)
    width = 64 if a.dtype.itemsize == 8 else 32
    n = _shift_count(b)
    big = n >= width
    bits = _bits_of(a.astype(np.int64 if a.dtype.kind == "i" else np.uint64)).astype(np.uint64)
    shifted = bits << np.where(big, 0, n).astype(np.uint64)
    return np.where(big, 0, shifted).astype(np.uint64).view(np.int64 if a.dtype.kind == "i" else np.uint64) \
        .astype(a.dtype)


def bit_shift_right(a, b):
    """ELEMENT_WISE_BIT_SHIFT_RIGHT: logical for unsigned types, arithmetic for signed ones; a count of the
    register width or more gives 0 (unsigned) or the sign in every bit (signed)."""
    a, b = _same_dtype(a, b)
    width = 64 if a.dtype.itemsize == 8 else 32
    n = np.minimum(_shift_count(b), np.uint64(width))
    if a.dtype.kind == "i":
        return (a.astype(np.int64) >> np.minimum(n, width - 1).astype(np.int64)).astype(a.dtype)
    big = n >= width
    return np.where(big, 0, a.astype(np.uint64) >> np.where(big, 0, n)).astype(a.dtype)


# ---- conversion -----------------------------------------------------------------------------------------------
def cast(x, output_type):
    """CAST to `output_type` (a DirectML name or a dtype). Floats -> floats: round to nearest even once, NaN
    canonical (FLOAT16 -> FLOAT32 is exact and keeps the payload; a same-type cast copies bits); floats ->
    integers: truncate, saturate, NaN -> 0; integers -> floats: round to nearest even (FLOAT16: through
    FLOAT32, which is exact below 2^24, and every larger value overflows FLOAT16 anyway); integers ->
    integers: two's complement, the low bits kept, sign- or zero-extended by the source's signedness."""
    x = np.asarray(x)
    _check_tensor_dtype(x.dtype)
    out = _as_dtype(output_type)
    if out == x.dtype:
        return x.copy()
    with np.errstate(all="ignore"):
        if x.dtype.kind == "f" and out.kind == "f":
            if x.dtype == np.float16 and out == np.float32:
                return x.astype(np.float32)
            if out == np.float16:
                return _nm.narrow_f64_to_f16(_nm.canonicalize(x.astype(np.float64)))
            return _nm.canonicalize(x.astype(np.float32 if x.dtype == np.float16 else x.dtype)).astype(out)
        if x.dtype.kind == "f":
            return float_to_int(x, out)
        if out.kind == "f":
            as32 = _nm.int_to_float(x, np.float32) if out != np.float64 else _nm.int_to_float(x, np.float64)
            return as32.astype(out)
        wide = x.astype(np.int64 if x.dtype.kind == "i" else np.uint64)
        return wide.astype(out)


# ---- quantization ---------------------------------------------------------------------------------------------
# QUANTIZE_LINEAR, DEQUANTIZE_LINEAR, QUANTIZED_LINEAR_ADD (docs/NUMERICS.md, "Quantization"): FLOAT32
# throughout whatever the half-precision flag says; a zero point left out (None) is 0. Scales and zero points of
# other shapes broadcast the NumPy way (the kernels broadcast them through stride 0).
def _quantized(value, zero_point, output_type):
    """sat(rndne(value) + zero_point) of float32 `value`: round half to even (exact), add the zero point in
    float32 (exact while |rndne(value)| < 2^24; beyond it the result saturates either way), then the FLOAT ->
    integer rule (truncate, saturate to INT8 / UINT8, NaN -> 0)."""
    zero = np.float32(0) if zero_point is None else np.asarray(zero_point).astype(np.float32)
    with np.errstate(all="ignore"):
        y = np.rint(np.asarray(value, np.float32)) + zero
    return float_to_int(y, _as_dtype(output_type))


def _dequantized(x, scale, zero_point):
    """float32((x - zero_point)) * scale in float32: the difference exact (int64), converted once (exact below
    2^24), the product rounded once; NaN canonical."""
    x = np.asarray(x)
    diff = x.astype(np.int64) - (0 if zero_point is None else np.asarray(zero_point).astype(np.int64))
    with np.errstate(all="ignore"):
        return _nm.canonicalize(_nm.int_to_float(diff, np.float32) * np.asarray(scale).astype(np.float32))


def quantize_linear(x, scale, zero_point=None, output_type=None):
    """ELEMENT_WISE_QUANTIZE_LINEAR: sat(rndne(x / scale) + zero_point) into INT8 or UINT8 (`output_type`,
    default the zero point's type, else UINT8). x / scale is the IEEE quotient correctly rounded in float32
    (FLOAT16 x and scale widened exactly; INT32 x rounded once to float32 first)."""
    x = np.asarray(x)
    xf = _nm.int_to_float(x, np.float32) if x.dtype.kind in "iu" else x.astype(np.float32)
    with np.errstate(all="ignore"):
        q = xf / np.asarray(scale).astype(np.float32)   # NumPy's float32 division: the IEEE quotient
    if output_type is None:
        output_type = np.asarray(zero_point).dtype if zero_point is not None else np.uint8
    return _quantized(q, zero_point, output_type)


def dequantize_linear(x, scale, zero_point=None, output_type=None):
    """ELEMENT_WISE_DEQUANTIZE_LINEAR: (x - zero_point) * scale in float32 (see _dequantized), narrowed once to
    FLOAT16 when the output (`output_type`, default the scale's type) is FLOAT16."""
    y = _dequantized(x, scale, zero_point)
    out = _as_dtype(output_type) if output_type is not None else np.asarray(scale).dtype
    with np.errstate(over="ignore"):
        return _nm.narrow_f16(y) if out == np.float16 else y


def quantized_linear_add(a, a_scale, a_zero_point, b, b_scale, b_zero_point, output_scale, output_zero_point,
                         output_type=None):
    """ELEMENT_WISE_QUANTIZED_LINEAR_ADD: AValue = (A - AZeroPoint) * AScale and BValue likewise (each as
    dequantize_linear), OutputValue = AValue + BValue, then sat(rndne(OutputValue / OutputScale) +
    OutputZeroPoint), every step rounded in float32. `output_type` defaults to the output zero point's type,
    else A's."""
    with np.errstate(all="ignore"):
        total = _dequantized(a, a_scale, a_zero_point) + _dequantized(b, b_scale, b_zero_point)
        q = total / np.asarray(output_scale).astype(np.float32)
    if output_type is None:
        output_type = np.asarray(output_zero_point if output_zero_point is not None else a).dtype
    return _quantized(q, output_zero_point, output_type)


# ---- activations ----------------------------------------------------------------------------------------------
def _activation_fn(name):
    """(fn(w, x, attributes, extra inputs) -> working result, canonical) of an activation by name."""
    def relu(w, x, at, extra):
        return max_num(x, np.zeros_like(x)) if w.is_float else np.maximum(x, 0), False

    def leaky(w, x, at, extra):
        return np.where(x < 0, w.mul(x, w.param(at["Alpha"])), x), True

    def prelu(w, x, at, extra):
        return np.where(x < 0, w.mul(x, extra[0]), x), True

    def linear(w, x, at, extra):
        return w.mad(x, w.param(at["Alpha"]), w.param(at["Beta"])), False

    def hard_sigmoid(w, x, at, extra):
        y = w.mad(x, w.param(at["Alpha"]), w.param(at["Beta"]))
        return max_num(min_num(y, np.full_like(y, 1)), np.zeros_like(y)), False

    def hard_swish(w, x, at, extra):
        y, _ = hard_sigmoid(w, x, at, extra)
        return w.mul(x, y), False

    def shrink(w, x, at, extra):
        if not w.is_float:   # integers: Bias and Threshold cast to the type, arithmetic in the 32-bit register
            reg = _register_dtype(w.storage)
            bias, threshold = (reg.type(cast_bound(at[f], w.storage)) for f in ("Bias", "Threshold"))
            xr = x.astype(reg)
            with np.errstate(all="ignore"):
                return np.where(xr < reg.type(0) - threshold, xr + bias,
                                np.where(xr > threshold, xr - bias, 0)).astype(reg), False
        bias, threshold = w.param(at["Bias"]), w.param(at["Threshold"])
        with np.errstate(invalid="ignore"):
            return np.where(x < -threshold, w.add(x, bias), np.where(x > threshold, w.sub(x, bias), 0)), True

    def thresholded(w, x, at, extra):
        with np.errstate(invalid="ignore"):
            return np.where(x > w.param(at["Alpha"]), x, 0), True

    def relu_grad(w, x, at, extra):
        with np.errstate(invalid="ignore"):
            return np.where(x > 0, extra[0], 0), True

    def identity_(w, x, at, extra):
        return x, False

    return {"ACTIVATION_RELU": relu, "ACTIVATION_LEAKY_RELU": leaky, "ACTIVATION_PARAMETERIZED_RELU": prelu,
            "ACTIVATION_LINEAR": linear, "ACTIVATION_HARD_SIGMOID": hard_sigmoid, "ACTIVATION_HARD_SWISH": hard_swish,
            "ACTIVATION_SHRINK": shrink, "ACTIVATION_THRESHOLDED_RELU": thresholded,
            "ACTIVATION_RELU_GRAD": relu_grad, "ACTIVATION_IDENTITY": identity_, **_MATH_ACTIVATIONS}[name]


def _register_dtype(dtype):
    """The kernels' register type of an integer tensor: 8- to 32-bit types widen to 32 bits."""
    dtype = np.dtype(dtype)
    if dtype.itemsize == 8:
        return dtype
    return np.dtype(np.int32 if dtype.kind == "i" else np.uint32)


def _fused(fused):
    if isinstance(fused, tuple):
        return fused[0], dict(fused[1] or {})
    return fused.name, dict(fused.attributes or {})


def _apply_activation(fused, y, w):
    name, attributes = _fused(fused)
    with np.errstate(all="ignore"):
        return _activation_fn(name.replace("DML_OPERATOR_", ""))(w, y, attributes, ())


def activation(name, x, *extra, half_precision=False, **attributes):
    """ACTIVATION_<name> (RELU, LEAKY_RELU, LINEAR, PARAMETERIZED_RELU (extra: the slope), HARD_SIGMOID,
    HARD_SWISH, SHRINK, THRESHOLDED_RELU, RELU_GRAD (extra: the gradient), IDENTITY) on x, with its FLOAT
    attributes by C field name (Alpha, Beta, Bias, Threshold)."""
    arrays = _same_dtype(x, *extra)
    w = _Work(arrays[0].dtype, half_precision)
    with np.errstate(all="ignore"):
        y, canonical = _activation_fn("ACTIVATION_" + name)(w, w.widen(arrays[0]), attributes,
                                                            [w.widen(e) for e in arrays[1:]])
        return w.finish(y, canonical)


# ---- transcendental functions and their activations -----------------------------------------------------------
# The same sequences of rounded steps as kernels/element_wise_math.inc and its math_*.inc functions, step for
# step (each line below is one instruction there), with the constants of kernels/element_wise_math.py. The
# algorithms and special cases are written down in docs/NUMERICS.md.
from dmlemu.kernels.element_wise_math import constants as _math_constants   # noqa: E402  (a table of numbers)


class _Math(_Work):
    """The instruction-level steps of one compute type (float32, or float16 with half precision), on arrays:
    _Work's rounded add / sub / mul / fma on operands first cast to the compute type, and the rest below."""

    def __init__(self, dtype):
        super().__init__(dtype, half_precision=True)   # float16 computes in float16; float32 in float32
        self.dt = self.dtype
        self.k = {name: np.asarray(v, dtype=self.dt) for name, v in _math_constants(self.dt).items()}
        self.uint = _BITS[self.dt.itemsize]
        self.sign_bit = self.uint.type(1 << (8 * self.dt.itemsize - 1))
        self.one, self.zero = np.asarray(1, self.dt), np.asarray(0, self.dt)

    def _a(self, x):
        return np.asarray(x, dtype=self.dt)

    def _binary(self, fn, a, b):
        return super()._binary(fn, self._a(a), self._a(b))

    def div(self, a, b):
        a, b = np.broadcast_arrays(self._a(a), self._a(b))
        return np.asarray(_nm.divide(a, b), dtype=self.dt)

    def exp2(self, x):
        return np.asarray(_nm.exp2(self._a(x), self.dt), dtype=self.dt)

    def log2(self, x):
        return np.asarray(_nm.log2(self._a(x), self.dt), dtype=self.dt)

    def rcp(self, x):
        return np.asarray(_nm.reciprocal(self._a(x), self.dt), dtype=self.dt)

    def sqrt(self, x):
        return np.asarray(_nm.square_root(self._a(x), self.dt), dtype=self.dt)

    def sin_rev(self, x):
        return np.asarray(_nm.sin_revolutions(self._a(x), self.dt), dtype=self.dt)

    def cos_rev(self, x):
        return np.asarray(_nm.cos_revolutions(self._a(x), self.dt), dtype=self.dt)

    def rndne(self, x):
        return _nm.round_integral(self._a(x), "rndne")

    def trunc(self, x):
        return _nm.round_integral(self._a(x), "trunc")

    def fract(self, x):
        return _nm.fract(self._a(x))

    def cls(self, x, mask):
        return _nm.class_test(self._a(x), mask)

    def neg(self, x):        # v_xor_b32 with the sign bit: bits, NaN included
        return (self._a(x).view(self.uint) ^ self.sign_bit).view(self.dt)

    def abs(self, x):        # v_and_b32 with the magnitude mask
        return (self._a(x).view(self.uint) & self.uint.type(~int(self.sign_bit) & (int(self.sign_bit) * 2 - 1))
                ).view(self.dt)

    def sign_of(self, x):    # +-1.0 with x's sign bit (v_and_b32 then v_or_b32)
        return ((self._a(x).view(self.uint) & self.sign_bit) | self.one.view(self.uint)).view(self.dt)

    def sel(self, mask, b, a):   # v_cndmask_b32: mask ? b : a, bits
        a, b = np.broadcast_arrays(self._a(a), self._a(b))
        return np.where(mask, b, a)

    def poly(self, name, degree, x):
        """Horner with fma: c_n, then c = c * x + c_k for k = n - 1 .. 0."""
        c = np.broadcast_to(self.k[f"{name}{degree}"], np.shape(x))
        for k in range(degree - 1, -1, -1):
            c = self.fma(c, x, self.k[f"{name}{k}"])
        return c

    # ---- the shared functions (math_*.inc) ------------------------------------------------------------
    def exp(self, x, halved=False):
        k = self.k
        y = self.mul(x, k["LOG2E_HI"])
        e = self.fma(x, k["LOG2E_HI"], self.neg(y))
        e = self.fma(x, k["LOG2E_LO"], e)
        c = self.mul(e, k["LN2_HI"])
        if halved:
            y = self.sub(y, 1)
        p = self.exp2(y)
        return self.sel(self.cls(p, 0x240), p, self.fma(p, c, p))

    def expm1(self, x):
        large = self.add(self.exp(x), -1)
        small = self.fma(self.mul(x, x), self.poly("EXPM1_P", 7, x), x)
        with np.errstate(invalid="ignore"):
            r = self.sel(self.abs(x) < 0.5, small, large)
            return self.sel(self._a(x) == 0, x, r)

    def _times_ln2(self, l):
        return self.sel(self.cls(l, 0x204), l, self.fma(l, self.k["LN2_HI"], self.mul(l, self.k["LN2_LO"])))

    def log(self, x):
        return self._times_ln2(self.log2(x))

    def log1p(self, u):
        w = self.add(u, 1)
        d = self.sub(w, 1)
        r = self.mul(self.log(w), self.div(u, d))
        r = self.sel(d == 0, u, r)
        return self.sel(self.cls(w, 0x200), w, r)

    def atan2(self, y, x):
        k = self.k
        y, x = self._a(y), self._a(x)
        ay, ax = self.abs(y), self.abs(x)
        mn, mx = _nm.min_num(ay, ax), _nm.max_num(ay, ax)
        z = self.div(mn, mx)
        z = self.sel(np.isnan(z), _nm.min_num(mn, self.one), z)
        wq = self.div(self.sub(z, 1), self.add(z, 1))
        with np.errstate(invalid="ignore"):
            big = z > k["TAN_PI_8"]
            w = self.sel(big, wq, z)
            lo, hi = self.sel(big, k["PI_4_LO"], 0), self.sel(big, k["PI_4_HI"], 0)
            w2 = self.mul(w, w)
            r = self.fma(self.mul(w2, w), self.poly("ATAN_P", 7, w2), w)
            r = self.add(self.add(r, lo), hi)
            r = self.sel(ay > ax, self.add(self.sub(k["PI_2_HI"], r), k["PI_2_LO"]), r)
            r = self.sel(self.cls(x, 0x3C), self.add(self.sub(k["PI_HI"], r), k["PI_LO"]), r)
            r = (r.view(self.uint) | (y.view(self.uint) & self.sign_bit)).view(self.dt)
            return self.sel(np.isnan(y) | np.isnan(x), k["NAN"], r)

    def erf_erfc(self, a, lo):
        """(erf(a), erfc(a)) for a >= 0 (or NaN) with a low part lo (math_erf.inc)."""
        k = self.k
        a = self._a(a)
        s_small = self.fma(a, self.poly("ERF_P", 7, self.mul(a, a)), a)
        with np.errstate(invalid="ignore"):
            clamped = a > k["ERFC_CLAMP"]
            ac = self.sel(clamped, k["ERFC_CLAMP"], a)
            lo = self.sel(clamped, 0, lo)
            s = self.mul(ac, ac)
            ns = self.neg(s)
            r = self.fma(self.add(ac, ac), lo, self.fma(ac, ac, ns))
            e = self.exp(ns)
            e = self.fma(e, self.neg(r), e)
            t = self.rcp(ac)
            c = self.mul(e, self.mul(self.poly("ERFC_S", 12, self.sub(t, k["ERFC_MID"])), t))
            one_minus_s, one_minus_c = self.sub(1, s_small), self.sub(1, c)
            small = a < k["ERF_SPLIT"]
            return self.sel(small, s_small, one_minus_c), self.sel(small, one_minus_s, c)

    def reduce(self, a, cos=False):
        """(f, (-1)^k) of math_reduce.inc for a = |x|: FLOAT32 steps in both compute types."""
        m = self if self.dt == np.float32 else _Math(np.float32)
        k = m.k
        a = np.asarray(a).astype(np.float32)     # exact widening
        t = m.mul(a, k["INV_2PI_HI"])
        e0 = m.fma(a, k["INV_2PI_HI"], m.neg(t))
        p1 = m.mul(a, k["INV_2PI_LO"])
        p2 = m.fma(a, k["INV_2PI_LO2"], m.fma(a, k["INV_2PI_LO"], m.neg(p1)))
        n = m.rndne(m.fma(t, 2, -0.5) if cos else m.add(t, t))
        f = m.fma(n, -0.5, t)
        if cos:
            f = m.sub(f, 0.25)
        f = m.add(m.add(m.add(f, e0), p1), p2)
        if self.dt == np.float16:
            f = _nm.narrow_f16(f)
        even = m.fract(m.mul(n, 0.5)) == 0
        return f, self.sel(even, self.one, -self.one)

    # ---- the operators' bodies (element_wise_math.inc) ------------------------------------------------
    def _tiny(self, a, r):
        with np.errstate(invalid="ignore"):
            return self.sel(a < self.k["TRIG_TINY"], a, r)

    def sin(self, x):
        a = self.abs(x)
        f, parity = self.reduce(a)
        return self.mul(self._tiny(a, self.mul(self.sin_rev(f), parity)), self.sign_of(x))

    def cos(self, x):
        f, parity = self.reduce(self.abs(x), cos=True)
        return self.mul(self.sin_rev(f), self.neg(parity))

    def tan(self, x):
        a = self.abs(x)
        f, parity = self.reduce(a)
        s = self.mul(self.sin_rev(f), parity)
        f, parity = self.reduce(a, cos=True)
        c = self.mul(self.sin_rev(f), self.neg(parity))
        return self.mul(self._tiny(a, self.div(s, c)), self.sign_of(x))

    def asin_acos(self, x, acos):
        a = self.abs(x)
        root = self.sqrt(self.mul(self.sub(1, a), self.add(a, 1)))
        return self.atan2(root, x) if acos else self.atan2(x, root)

    def sinh(self, x):
        a = self.abs(x)
        e = self.expm1(a)
        small = self.mul(self.add(e, self.div(e, self.add(e, 1))), 0.5)
        h = self.exp(a, halved=True)
        large = self.sub(h, self.rcp(self.mul(h, 4)))
        with np.errstate(invalid="ignore"):
            return self.mul(self.sel(a < 1, small, large), self.sign_of(x))

    def cosh(self, x):
        h = self.exp(self.abs(x), halved=True)
        return self.add(h, self.rcp(self.mul(h, 4)))

    def tanh(self, x):
        a = self.abs(x)
        with np.errstate(invalid="ignore"):
            a = self.sel(a > self.k["TANH_CLAMP"], self.k["TANH_CLAMP"], a)
        e = self.expm1(self.add(a, a))
        return self.mul(self.div(e, self.add(e, 2)), self.sign_of(x))

    def _log_2x(self, a):
        return self._times_ln2(self.add(self.log2(a), 1))

    def asinh(self, x):
        a = self.abs(x)
        a2 = self.mul(a, a)
        u = self.add(a, self.div(a2, self.add(self.sqrt(self.add(a2, 1)), 1)))
        with np.errstate(invalid="ignore"):
            r = self.sel(a > self.k["BIG"], self._log_2x(a), self.log1p(u))
        return self.mul(r, self.sign_of(x))

    def acosh(self, x):
        x = self._a(x)
        t = self.sub(x, 1)
        u = self.add(t, self.sqrt(self.mul(self.add(t, 2), t)))
        with np.errstate(invalid="ignore"):
            r = self.sel(x > self.k["BIG"], self._log_2x(x), self.log1p(u))
            return self.sel(x < 1, self.k["NAN"], r)

    def atanh(self, x):
        a = self.abs(x)
        u = self.div(self.add(a, a), self.sub(1, a))
        return self.mul(self.mul(self.log1p(u), 0.5), self.sign_of(x))

    def erf(self, x):
        return self.mul(self.erf_erfc(self.abs(x), self.zero)[0], self.sign_of(x))

    def pow(self, x, y):
        x, y = np.broadcast_arrays(self._a(x), self._a(y))
        ax = self.abs(x)
        l = self.log2(ax)
        m = self.exp2(self.neg(l))
        l_lo = self.sel(self.cls(m, 0x100), self.mul(self.fma(ax, m, -1), self.k["LOG2E_HI"]), 0)
        t = self.mul(y, l)
        c = self.mul(self.fma(y, l_lo, self.fma(y, l, self.neg(t))), self.k["LN2_HI"])
        p = self.exp2(t)
        r = self.sel(self.cls(p, 0x240), p, self.fma(p, c, p))
        odd = self.fract(self.mul(y, 0.5)) == 0.5
        r = self.sel(self.cls(x, 0x3C), self.sel(odd, self.neg(r), r), r)
        with np.errstate(invalid="ignore"):
            r = self.sel(self.cls(x, 0x18), self.sel(self.trunc(y) != y, self.k["NAN"], r), r)
            r = self.sel(ax == 1, self.sel(self.cls(y, 0x204), self.one, r), r)
            r = self.sel(x == 1, self.one, r)
            return self.sel(y == 0, self.one, r)

    def sigmoid(self, z):
        e = self.exp(self.neg(self.abs(z)))
        with np.errstate(invalid="ignore"):
            return self.div(self.sel(self._a(z) < 0, e, self.one), self.add(e, 1))

    def softplus_core(self, z):
        lp = self.log1p(self.exp(self.neg(self.abs(z))))
        return self.add(_nm.max_num(self._a(z), self.zero), lp)

    def gelu(self, x):
        k = self.k
        x = self._a(x)
        u = self.mul(x, k["RSQRT2_HI"])
        ru = self.fma(x, k["RSQRT2_LO"], self.fma(x, k["RSQRT2_HI"], self.neg(u)))
        lo = (ru.view(self.uint) ^ (u.view(self.uint) & self.sign_bit)).view(self.dt)
        erf, erfc = self.erf_erfc(self.abs(u), lo)
        with np.errstate(invalid="ignore"):
            factor = self.sel(x >= 0, self.add(erf, 1), erfc)
        r = self.mul(self.mul(x, 0.5), factor)
        return self.sel(self.cls(x, 0x4), self.neg(self.zero), r)


def _math_unary(method):
    def fn(x, scale_bias=None, half_precision=False):
        work, w = _scale_biased(x, scale_bias, half_precision)
        with np.errstate(all="ignore"):
            return w.finish(method(_Math(w.dtype), work))
    return fn


_MATH_UNARY = {
    "EXP": lambda m, x: m.exp(x), "LOG": lambda m, x: m.log(x), "SQRT": lambda m, x: m.sqrt(x),
    "RECIP": lambda m, x: m.rcp(x), "SIN": lambda m, x: m.sin(x), "COS": lambda m, x: m.cos(x),
    "TAN": lambda m, x: m.tan(x), "ASIN": lambda m, x: m.asin_acos(x, False),
    "ACOS": lambda m, x: m.asin_acos(x, True), "ATAN": lambda m, x: m.atan2(x, np.ones_like(x)),
    "SINH": lambda m, x: m.sinh(x), "COSH": lambda m, x: m.cosh(x), "TANH": lambda m, x: m.tanh(x),
    "ASINH": lambda m, x: m.asinh(x), "ACOSH": lambda m, x: m.acosh(x), "ATANH": lambda m, x: m.atanh(x),
    "ERF": lambda m, x: m.erf(x),
}
exp, log, sqrt, recip, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, asinh, acosh, atanh, erf = (
    _math_unary(_MATH_UNARY[n]) for n in _MATH_UNARY)
for _f, _n in zip((exp, log, sqrt, recip, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, asinh, acosh, atanh,
                   erf), _MATH_UNARY):
    _f.__name__ = _n.lower()
    _f.__doc__ = (f"ELEMENT_WISE_{_n} with an optional ScaleBias, as kernels/element_wise_math.inc computes it "
                  f"(docs/NUMERICS.md).")


def constant_pow(x, Exponent, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_CONSTANT_POW: g(x)^Exponent, the Exponent a FLOAT attribute (IEEE pow's special cases)."""
    work, w = _scale_biased(x, scale_bias, half_precision)
    with np.errstate(all="ignore"):
        return w.finish(_Math(w.dtype).pow(work, np.full_like(work, w.param(Exponent))))


def pow_(x, exponent, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_POW: g(x)^exponent element by element, the exponent tensor of x's type."""
    x, exponent = _same_dtype(x, exponent)
    work, w = _scale_biased(x, scale_bias, half_precision)
    with np.errstate(all="ignore"):
        return w.finish(_Math(w.dtype).pow(work, w.widen(exponent)))


def atan_yx(a, b, half_precision=False):
    """ELEMENT_WISE_ATAN_YX: atan2(a, b), a the y and b the x coordinate (IEEE atan2's special cases)."""
    a, b = _same_dtype(a, b)
    w = _Work(a.dtype, half_precision)
    with np.errstate(all="ignore"):
        return w.finish(_Math(w.dtype).atan2(w.widen(a), w.widen(b)))


def _math_activation(fn):
    def activation_fn(w, x, at, extra):
        return fn(_Math(w.dtype), w, x, at), False
    return activation_fn


_MATH_ACTIVATIONS = {
    "ACTIVATION_ELU": _math_activation(lambda m, w, x, at: m.sel(
        np.asarray(x) >= 0, x, m.mul(m.expm1(x), w.param(at["Alpha"])))),
    "ACTIVATION_SCALED_ELU": _math_activation(lambda m, w, x, at: m.mul(m.sel(
        np.asarray(x) > 0, x, m.mul(m.expm1(x), w.param(at["Alpha"]))), w.param(at["Gamma"]))),
    "ACTIVATION_CELU": _math_activation(lambda m, w, x, at: m.add(
        _nm.max_num(m._a(x), m.zero),
        _nm.min_num(m.mul(m.expm1(m.div(x, w.param(at["Alpha"]))), w.param(at["Alpha"])), m.zero))),
    "ACTIVATION_SIGMOID": _math_activation(lambda m, w, x, at: m.sigmoid(x)),
    "ACTIVATION_SWISH": _math_activation(lambda m, w, x, at: m.mul(
        x, m.sigmoid(m.mul(x, w.param(at["SigmoidInputScale"]))))),
    "ACTIVATION_SOFTPLUS": _math_activation(lambda m, w, x, at: m.div(
        m.softplus_core(m.mul(x, w.param(at["Steepness"]))), w.param(at["Steepness"]))),
    "ACTIVATION_PARAMETRIC_SOFTPLUS": _math_activation(lambda m, w, x, at: m.mul(
        m.softplus_core(m.mul(x, w.param(at["Beta"]))), w.param(at["Alpha"]))),
    "ACTIVATION_SOFTSIGN": _math_activation(lambda m, w, x, at: m.sel(
        m.cls(x, 0x204), m.sign_of(x), m.div(x, m.add(m.abs(x), 1)))),
    "ACTIVATION_TANH": _math_activation(lambda m, w, x, at: m.tanh(x)),
    "ACTIVATION_SCALED_TANH": _math_activation(lambda m, w, x, at: m.mul(
        m.tanh(m.mul(x, w.param(at["Beta"]))), w.param(at["Alpha"]))),
    "ACTIVATION_GELU": _math_activation(lambda m, w, x, at: m.gelu(x)),
}


__all__ += ["exp", "log", "sqrt", "recip", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
            "asinh", "acosh", "atanh", "erf", "constant_pow", "pow_", "atan_yx"]


def _math_table():
    """The by-name entries of the operators above (`run`)."""
    table = {f"ELEMENT_WISE_{n}": (lambda f: lambda i, at, sb, h, o: f(i[0], sb, h))(f)
             for n, f in zip(_MATH_UNARY, (exp, log, sqrt, recip, sin, cos, tan, asin, acos, atan, sinh, cosh,
                                            tanh, asinh, acosh, atanh, erf))}
    table["ELEMENT_WISE_CONSTANT_POW"] = lambda i, at, sb, h, o: constant_pow(i[0], at["Exponent"], sb, h)
    table["ELEMENT_WISE_POW"] = lambda i, at, sb, h, o: pow_(i[0], i[1], sb, h)
    table["ELEMENT_WISE_ATAN_YX"] = lambda i, at, sb, h, o: atan_yx(*i, half_precision=h)
    for name in _MATH_ACTIVATIONS:
        table[name] = (lambda n: lambda i, at, sb, h, o: activation(
            n, *i, half_precision=h, **{k: v for k, v in at.items() if k != "FusedActivation"}))(name[11:])
    return table


# ---- by name ----------------------------------------------------------------------------------------------------
def _by_name():
    table = {
        "ELEMENT_WISE_IDENTITY": lambda i, at, sb, h, o: identity(i[0], sb, h),
        "ELEMENT_WISE_THRESHOLD": lambda i, at, sb, h, o: threshold(i[0], at["Min"], sb, h),
        "ELEMENT_WISE_CLIP": lambda i, at, sb, h, o: clip(i[0], at["Min"], at["Max"], sb, h),
        "ELEMENT_WISE_IF": lambda i, at, sb, h, o: if_(*i),
        "ELEMENT_WISE_ADD": lambda i, at, sb, h, o: add(*i, half_precision=h),
        "ELEMENT_WISE_ADD1": lambda i, at, sb, h, o: add1(*i, FusedActivation=at.get("FusedActivation"),
                                                          half_precision=h),
        "ELEMENT_WISE_SUBTRACT": lambda i, at, sb, h, o: subtract(*i, half_precision=h),
        "ELEMENT_WISE_MULTIPLY": lambda i, at, sb, h, o: multiply(*i, half_precision=h),
        "ELEMENT_WISE_DIFFERENCE_SQUARE": lambda i, at, sb, h, o: difference_square(*i, half_precision=h),
        "ELEMENT_WISE_MEAN": lambda i, at, sb, h, o: mean(*i, half_precision=h),
        "ELEMENT_WISE_MIN": lambda i, at, sb, h, o: minimum(*i, half_precision=h),
        "ELEMENT_WISE_MAX": lambda i, at, sb, h, o: maximum(*i, half_precision=h),
        "ELEMENT_WISE_ABS": lambda i, at, sb, h, o: abs_(i[0], sb, h),
        "ELEMENT_WISE_NEGATE": lambda i, at, sb, h, o: negate(i[0], h),
        "ELEMENT_WISE_SIGN": lambda i, at, sb, h, o: sign(i[0], h),
        "ELEMENT_WISE_CLIP1": lambda i, at, sb, h, o: clip1(i[0], at["Min"], at["Max"], sb, h),
        "ELEMENT_WISE_CLIP_GRAD": lambda i, at, sb, h, o: clip_grad(*i, at["Min"], at["Max"], h),
        "ELEMENT_WISE_CLIP_GRAD1": lambda i, at, sb, h, o: clip_grad1(*i, at["Min"], at["Max"], h),
        "ELEMENT_WISE_DIVIDE": lambda i, at, sb, h, o: divide(*i, half_precision=h),
        "ELEMENT_WISE_MODULUS_TRUNCATE": lambda i, at, sb, h, o: modulus_truncate(*i, half_precision=h),
        "ELEMENT_WISE_MODULUS_FLOOR": lambda i, at, sb, h, o: modulus_floor(*i, half_precision=h),
        "ELEMENT_WISE_CEIL": lambda i, at, sb, h, o: ceil(i[0], sb, h),
        "ELEMENT_WISE_FLOOR": lambda i, at, sb, h, o: floor(i[0], sb, h),
        "ELEMENT_WISE_ROUND": lambda i, at, sb, h, o: round_(i[0], at.get("RoundingMode", 0), h),
        "ELEMENT_WISE_LOGICAL_NOT": lambda i, at, sb, h, o: logical("NOT", i[0], output_type=o),
        "ELEMENT_WISE_IS_NAN": lambda i, at, sb, h, o: is_nan(i[0], o),
        "ELEMENT_WISE_IS_INFINITY": lambda i, at, sb, h, o: is_infinity(i[0], at.get("InfinityMode", 0), o),
        "ELEMENT_WISE_BIT_AND": lambda i, at, sb, h, o: bit_and(*i),
        "ELEMENT_WISE_BIT_OR": lambda i, at, sb, h, o: bit_or(*i),
        "ELEMENT_WISE_BIT_XOR": lambda i, at, sb, h, o: bit_xor(*i),
        "ELEMENT_WISE_BIT_NOT": lambda i, at, sb, h, o: bit_not(i[0]),
        "ELEMENT_WISE_BIT_COUNT": lambda i, at, sb, h, o: bit_count(i[0], o),
        "ELEMENT_WISE_BIT_SHIFT_LEFT": lambda i, at, sb, h, o: bit_shift_left(*i),
        "ELEMENT_WISE_BIT_SHIFT_RIGHT": lambda i, at, sb, h, o: bit_shift_right(*i),
        "CAST": lambda i, at, sb, h, o: cast(i[0], o),
        "ELEMENT_WISE_QUANTIZE_LINEAR": lambda i, at, sb, h, o: quantize_linear(*i, output_type=o),
        "ELEMENT_WISE_DEQUANTIZE_LINEAR": lambda i, at, sb, h, o: dequantize_linear(*i, output_type=o),
        "ELEMENT_WISE_QUANTIZED_LINEAR_ADD": lambda i, at, sb, h, o: quantized_linear_add(*i, output_type=o),
    }
    for kind in _COMPARISONS:
        table[f"ELEMENT_WISE_LOGICAL_{kind}"] = (lambda k: lambda i, at, sb, h, o: compare(k, *i, output_type=o))(kind)
    for kind in ("AND", "OR", "XOR"):
        table[f"ELEMENT_WISE_LOGICAL_{kind}"] = (lambda k: lambda i, at, sb, h, o: logical(k, *i, output_type=o))(kind)
    for name in ("RELU", "LEAKY_RELU", "LINEAR", "PARAMETERIZED_RELU", "HARD_SIGMOID", "HARD_SWISH", "SHRINK",
                 "THRESHOLDED_RELU", "RELU_GRAD", "IDENTITY"):
        table[f"ACTIVATION_{name}"] = (lambda n: lambda i, at, sb, h, o: activation(
            n, *i, half_precision=h, **{k: v for k, v in at.items() if k != "FusedActivation"}))(name)
    table.update(_math_table())
    return table


OPERATORS = _by_name()


def run(name, inputs, attributes=None, scale_bias=None, half_precision=False, output_type=None):
    """The golden result of operator `name` (without DML_OPERATOR_, e.g. ELEMENT_WISE_ADD) on NumPy arrays
    `inputs` (binding order), with the desc's non-tensor fields `attributes` by C field name (as
    validation.OperatorInfo.attributes has them), an optional ScaleBias (scale, bias) and the half-precision
    flag. `output_type` is the output tensor's data type where it is not the inputs' (CAST, comparisons)."""
    name = str(name)
    if name.startswith("DML_OPERATOR_"):
        name = name[len("DML_OPERATOR_"):]
    if name not in OPERATORS:
        raise KeyError(f"the golden model has no operator {name}")
    # None: an optional tensor the desc left out (QUANTIZE_LINEAR's ZeroPointTensor, ...)
    return OPERATORS[name]([None if i is None else np.asarray(i) for i in inputs], dict(attributes or {}), scale_bias,
                           bool(half_precision), output_type)


__all__ += ["quantize_linear", "dequantize_linear", "quantized_linear_add"]
__all__ += ["add", "add1", "subtract", "multiply", "difference_square", "mean", "minimum", "maximum", "abs_",
            "negate", "sign", "clip1", "clip_grad", "clip_grad1", "divide", "modulus_truncate", "modulus_floor",
            "ceil", "floor", "round_", "compare", "logical", "is_nan", "is_infinity", "bit_and", "bit_or",
            "bit_xor", "bit_not", "bit_count", "bit_shift_left", "bit_shift_right", "cast", "activation",
            "OPERATORS", "run"]
