"""The numeric rules every family of the golden model shares: data types, conversions, canonical NaNs, minNum/maxNum.

DATA_TYPES (a DirectML name -> its NumPy dtype) and the canonical quiet NaNs are the data type table's
(dmlemu.data_types). float_to_int is the FLOAT -> integer rule (truncate, saturate, NaN -> 0), cast_bound the
cast of a FLOAT bound to a tensor's type, min_num / max_num IEEE 754-2008 minNum / maxNum with -0 < +0.
"""
import numpy as np

from dmlemu import data_types as _data_types

# DirectML data type names (DML_TENSOR_DATA_TYPE_<name>) and the little-endian NumPy dtypes
# that store them (the stored rows of dmlemu.data_types).
DATA_TYPES = _data_types.DATA_TYPES

_TYPE_NAMES = {dtype: name for name, dtype in DATA_TYPES.items()}

# The unsigned integer of each element size: float bits are moved and compared through these.
BITS = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16),
        4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}

FLOATS = {t.dtype: t for t in _data_types.STORED if t.is_float}


def as_dtype(dtype):
    """A NumPy dtype from a NumPy dtype-like or a DirectML data type name."""
    if isinstance(dtype, str) and dtype.upper() in DATA_TYPES:
        return DATA_TYPES[dtype.upper()]
    return np.dtype(dtype)


def type_name(dtype):
    return _TYPE_NAMES.get(np.dtype(dtype), str(np.dtype(dtype)))


def check_tensor_dtype(dtype):
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
    dtype = as_dtype(dtype)
    with np.errstate(over="ignore"):
        value32 = np.float32(value)
    if dtype.kind == "f":
        with np.errstate(over="ignore"):
            return dtype.type(value32)
    return float_to_int(value32, dtype)[()]


def canonical_nan(dtype):
    """The canonical quiet NaN of a float type: 0x7E00, 0x7FC00000 or 0x7FF8000000000000."""
    return FLOATS[as_dtype(dtype)].canonical_nan()


def canonicalize_nans(array):
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
    if a.dtype not in FLOATS:
        raise TypeError(f"min_num/max_num take float or integer arrays, not {a.dtype}")
    # np.fmin/np.fmax are not used: for a signalling NaN, NumPy's SIMD loops return the other
    # operand but its scalar loops (libm fmin, which follows 754-2008's sNaN clause) return
    # NaN, so the answer depends on the array length. Comparisons treat every NaN alike.
    uint = BITS[a.dtype.itemsize]
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
    return canonicalize_nans(result.view(a.dtype))


def min_num(a, b):
    """IEEE 754-2008 minNum, elementwise: one NaN -> the other operand; two NaNs -> the
    canonical quiet NaN; min(-0, +0) = -0 in either order. Integers: plain minimum."""
    return _min_max_num(a, b, is_min=True)


def max_num(a, b):
    """IEEE 754-2008 maxNum, elementwise: one NaN -> the other operand; two NaNs -> the
    canonical quiet NaN; max(-0, +0) = +0 in either order. Integers: plain maximum."""
    return _min_max_num(a, b, is_min=False)


def min_max_bound_inplace(work, bound, is_min):
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
