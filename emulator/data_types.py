"""The DirectML tensor data types: one row per DML_TENSOR_DATA_TYPE, the one table every layer reads.

Each `DataType` row gives the short name DirectML's tables use (FLOAT32 ... INT4), the C enum value
(dmlemu.directml.enums builds DML_TENSOR_DATA_TYPE from these rows), the element size in bits, the
kind (float, signed or unsigned), the little-endian NumPy dtype that stores an element (None for the
4-bit types, which DMLCalcBufferTensorSize sizes but nothing stores), the unsigned dtype of the same
width (float bits are moved and compared through it) and, for floats, the bits of the canonical quiet
NaN that arithmetic produces (docs/NUMERICS.md). DML_TENSOR_DATA_TYPE_UNKNOWN (0) is not a data type
and has no row.

Readers: the golden model (DATA_TYPES, canonical NaNs, DMLCalcBufferTensorSize), the ISA numerics
(canonical NaNs), the DirectML mirror (the enum, element sizes, 64-bit types, DML_SCALAR_UNION views),
the kernels (the type lists of their rows) and the tools. This module imports only NumPy.
"""
from dataclasses import dataclass

import numpy as np

__all__ = ["DataType", "DATA_TYPE_TABLE", "BY_NAME", "BY_VALUE", "BY_DTYPE", "DATA_TYPES", "STORED",
           "data_type", "names"]

FLOAT, SIGNED, UNSIGNED = "float", "signed", "unsigned"
_UNSIGNED_OF_SIZE = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32),
                     8: np.dtype(np.uint64)}


@dataclass(frozen=True, kw_only=True)
class DataType:
    """One DirectML tensor data type (see the module docstring for each field)."""
    name: str                   # the short name, e.g. "FLOAT16" (DML_TENSOR_DATA_TYPE_FLOAT16)
    value: int                  # the DML_TENSOR_DATA_TYPE value
    bits: int                   # element size in bits
    kind: str                   # FLOAT, SIGNED or UNSIGNED
    dtype: np.dtype = None      # the little-endian NumPy dtype of an element; None: not stored
    canonical_nan_bits: int = None  # floats: the canonical quiet NaN

    @property
    def c_name(self):
        return "DML_TENSOR_DATA_TYPE_" + self.name

    @property
    def itemsize(self):
        """Bytes per element (None for the 4-bit types)."""
        return self.bits // 8 if self.bits % 8 == 0 else None

    @property
    def uint_dtype(self):
        """The unsigned NumPy dtype of the element's width (None for the 4-bit types)."""
        return _UNSIGNED_OF_SIZE.get(self.itemsize)

    @property
    def is_float(self):
        return self.kind == FLOAT

    @property
    def is_64bit(self):
        """A 64-bit type: an adapter without 64-bit support rejects it."""
        return self.bits == 64

    def canonical_nan(self):
        """The canonical quiet NaN as a NumPy scalar of this float type."""
        return np.array(self.canonical_nan_bits, dtype=self.uint_dtype).view(self.dtype)[()]


def _row(name, value, bits, kind, dtype=None, canonical_nan_bits=None):
    return DataType(name=name, value=value, bits=bits, kind=kind,
                    dtype=None if dtype is None else np.dtype(dtype).newbyteorder("<"),
                    canonical_nan_bits=canonical_nan_bits)


# In DML_TENSOR_DATA_TYPE order (DirectML.h).
DATA_TYPE_TABLE = (
    _row("FLOAT32", 1, 32, FLOAT, np.float32, 0x7FC0_0000),
    _row("FLOAT16", 2, 16, FLOAT, np.float16, 0x7E00),
    _row("UINT32", 3, 32, UNSIGNED, np.uint32),
    _row("UINT16", 4, 16, UNSIGNED, np.uint16),
    _row("UINT8", 5, 8, UNSIGNED, np.uint8),
    _row("INT32", 6, 32, SIGNED, np.int32),
    _row("INT16", 7, 16, SIGNED, np.int16),
    _row("INT8", 8, 8, SIGNED, np.int8),
    _row("FLOAT64", 9, 64, FLOAT, np.float64, 0x7FF8_0000_0000_0000),
    _row("UINT64", 10, 64, UNSIGNED, np.uint64),
    _row("INT64", 11, 64, SIGNED, np.int64),
    _row("UINT4", 12, 4, UNSIGNED),
    _row("INT4", 13, 4, SIGNED),
)

BY_NAME = {t.name: t for t in DATA_TYPE_TABLE}
BY_VALUE = {t.value: t for t in DATA_TYPE_TABLE}
STORED = tuple(t for t in DATA_TYPE_TABLE if t.dtype is not None)   # the types an element can be stored in
BY_DTYPE = {t.dtype: t for t in STORED}
# Name -> NumPy dtype of every stored type (dmlemu.golden.DATA_TYPES).
DATA_TYPES = {t.name: t.dtype for t in STORED}


def _check_table():
    assert len(BY_NAME) == len(BY_VALUE) == len(DATA_TYPE_TABLE)
    assert 0 not in BY_VALUE    # DML_TENSOR_DATA_TYPE_UNKNOWN
    for t in DATA_TYPE_TABLE:
        assert t.kind in (FLOAT, SIGNED, UNSIGNED), t.name
        assert (t.canonical_nan_bits is not None) == t.is_float, t.name
        if t.dtype is not None:
            assert t.dtype.itemsize * 8 == t.bits, t.name
            assert t.dtype.kind == {FLOAT: "f", SIGNED: "i", UNSIGNED: "u"}[t.kind], t.name
        if t.is_float:
            assert np.isnan(t.canonical_nan()), t.name


_check_table()


def data_type(key):
    """The DataType of a short name ('FLOAT16'), C name ('DML_TENSOR_DATA_TYPE_FLOAT16'), enum value or NumPy
    dtype; KeyError for anything else."""
    if isinstance(key, str):
        name = key.upper()
        if name.startswith("DML_TENSOR_DATA_TYPE_"):
            name = name[len("DML_TENSOR_DATA_TYPE_"):]
        return BY_NAME[name]
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        return BY_VALUE[int(key)]
    return BY_DTYPE[np.dtype(key).newbyteorder("<")]


def names(*kinds, stored=True, bits=None):
    """The short names of the data types of `kinds` (all kinds when none is given), in table order; `stored`:
    only types with a NumPy dtype; `bits`: only types of these element sizes."""
    return tuple(t.name for t in DATA_TYPE_TABLE
                 if (not kinds or t.kind in kinds) and (not stored or t.dtype is not None)
                 and (bits is None or t.bits in bits))
