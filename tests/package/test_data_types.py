"""The data type table (dmlemu.data_types) is the one source of every data type fact its readers use."""
import numpy as np
import pytest

from dmlemu import data_types, golden
from dmlemu.directml import DML_TENSOR_DATA_TYPE, DMLCalcBufferTensorSize
from dmlemu.directml.validation import SIXTY_FOUR_BIT_TYPES
from dmlemu.isa import numerics
from dmlemu.kernels import element_wise_math
from dmlemu.kernels.driver import VARIANTS
from dmlemu.kernels.element_wise_ops import ALL_TYPES


def test_the_enum_is_built_from_the_table():
    members = {m.name[len("DML_TENSOR_DATA_TYPE_"):]: int(m) for m in DML_TENSOR_DATA_TYPE}
    assert members == {"UNKNOWN": 0, **{t.name: t.value for t in data_types.DATA_TYPE_TABLE}}


def test_readers_take_the_table_stored_types():
    assert golden.DATA_TYPES is data_types.DATA_TYPES
    assert set(ALL_TYPES) == set(VARIANTS) == set(data_types.DATA_TYPES)
    assert set(SIXTY_FOUR_BIT_TYPES) == {"FLOAT64", "UINT64", "INT64"}
    for name, variant in VARIANTS.items():
        assert variant.size == data_types.DATA_TYPES[name].itemsize


@pytest.mark.parametrize("row", [t for t in data_types.DATA_TYPE_TABLE if t.is_float], ids=lambda t: t.name)
def test_one_canonical_nan_per_float_type(row):
    bits = row.canonical_nan_bits
    assert int(np.asarray(golden.canonical_nan(row.dtype)).view(row.uint_dtype)) == bits
    assert int(numerics.CANONICAL_NAN_BITS[row.dtype]) == bits
    compute = {"FLOAT32": "f32", "FLOAT16": "f16"}.get(row.name)
    if compute:
        assert int(element_wise_math.symbols(compute)["K_NAN"], 16) == bits


@pytest.mark.parametrize("row", data_types.DATA_TYPE_TABLE, ids=lambda t: t.name)
def test_element_bits_size_a_buffer(row):
    expected = ((7 * row.bits + 7) // 8 + 3) & ~3
    assert golden.calc_buffer_tensor_size(row.name, [7]) == expected
    assert DMLCalcBufferTensorSize(row.value, 1, [7], None) == expected


def test_lookup_by_any_key():
    row = data_types.BY_NAME["FLOAT16"]
    for key in ("FLOAT16", "float16", "DML_TENSOR_DATA_TYPE_FLOAT16", 2, np.float16, np.dtype("<f2")):
        assert data_types.data_type(key) is row
    with pytest.raises(KeyError):
        data_types.data_type("BFLOAT16")
