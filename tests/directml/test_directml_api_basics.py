"""DirectML mirror basics: enum values and names, constants, structs, DMLCalcBufferTensorSize."""
import numpy as np
import pytest

import dmlemu.directml as dml
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.directml.enums import OPERATOR_TYPE_TABLE
from dmlemu.errors import E_INVALIDARG, HResultError


# ---- enums and constants ----------------------------------------------------------------------------
def test_constants():
    assert DML_TENSOR_DIMENSION_COUNT_MAX == 5
    assert DML_TENSOR_DIMENSION_COUNT_MAX1 == 8
    assert DML_TEMPORARY_BUFFER_ALIGNMENT == 256
    assert DML_PERSISTENT_BUFFER_ALIGNMENT == 256
    assert DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT == 16
    assert DML_TARGET_VERSION == 0x6400


@pytest.mark.parametrize("name, value", [
    ("DML_TENSOR_DATA_TYPE_UNKNOWN", 0), ("DML_TENSOR_DATA_TYPE_FLOAT32", 1), ("DML_TENSOR_DATA_TYPE_FLOAT16", 2),
    ("DML_TENSOR_DATA_TYPE_UINT32", 3), ("DML_TENSOR_DATA_TYPE_UINT16", 4), ("DML_TENSOR_DATA_TYPE_UINT8", 5),
    ("DML_TENSOR_DATA_TYPE_INT32", 6), ("DML_TENSOR_DATA_TYPE_INT16", 7), ("DML_TENSOR_DATA_TYPE_INT8", 8),
    ("DML_TENSOR_DATA_TYPE_FLOAT64", 9), ("DML_TENSOR_DATA_TYPE_UINT64", 10), ("DML_TENSOR_DATA_TYPE_INT64", 11),
    ("DML_TENSOR_DATA_TYPE_UINT4", 12), ("DML_TENSOR_DATA_TYPE_INT4", 13),
    ("DML_TENSOR_TYPE_INVALID", 0), ("DML_TENSOR_TYPE_BUFFER", 1),
    ("DML_TENSOR_FLAG_NONE", 0), ("DML_TENSOR_FLAG_OWNED_BY_DML", 1),
    ("DML_FEATURE_LEVEL_1_0", 0x1000), ("DML_FEATURE_LEVEL_2_0", 0x2000), ("DML_FEATURE_LEVEL_2_1", 0x2100),
    ("DML_FEATURE_LEVEL_3_0", 0x3000), ("DML_FEATURE_LEVEL_3_1", 0x3100), ("DML_FEATURE_LEVEL_4_0", 0x4000),
    ("DML_FEATURE_LEVEL_4_1", 0x4100), ("DML_FEATURE_LEVEL_5_0", 0x5000), ("DML_FEATURE_LEVEL_5_1", 0x5100),
    ("DML_FEATURE_LEVEL_5_2", 0x5200), ("DML_FEATURE_LEVEL_6_0", 0x6000), ("DML_FEATURE_LEVEL_6_1", 0x6100),
    ("DML_FEATURE_LEVEL_6_2", 0x6200), ("DML_FEATURE_LEVEL_6_3", 0x6300), ("DML_FEATURE_LEVEL_6_4", 0x6400),
    ("DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT", 0), ("DML_FEATURE_FEATURE_LEVELS", 1),
    ("DML_EXECUTION_FLAG_NONE", 0), ("DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION", 1),
    ("DML_EXECUTION_FLAG_DISABLE_META_COMMANDS", 2), ("DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE", 4),
    ("DML_CREATE_DEVICE_FLAG_NONE", 0), ("DML_CREATE_DEVICE_FLAG_DEBUG", 1),
    ("DML_BINDING_TYPE_NONE", 0), ("DML_BINDING_TYPE_BUFFER", 1), ("DML_BINDING_TYPE_BUFFER_ARRAY", 2),
    ("DML_OPERATOR_INVALID", 0), ("DML_OPERATOR_ELEMENT_WISE_IDENTITY", 1), ("DML_OPERATOR_ELEMENT_WISE_CLIP", 8),
    ("DML_OPERATOR_ELEMENT_WISE_THRESHOLD", 32), ("DML_OPERATOR_ELEMENT_WISE_ERF", 81),
    ("DML_OPERATOR_ELEMENT_WISE_IF", 88), ("DML_OPERATOR_SCATTER_ELEMENTS", 94), ("DML_OPERATOR_SCATTER", 94),
    ("DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1", 115), ("DML_OPERATOR_ELEMENT_WISE_ATAN_YX", 141),
    ("DML_OPERATOR_ROI_ALIGN1", 149), ("DML_OPERATOR_ACTIVATION_GELU", 157), ("DML_OPERATOR_MULTIHEAD_ATTENTION", 164),
    ("DML_OPERATOR_DEQUANTIZE", 174), ("DML_OPERATOR_UNFOLD", 177),
    ("DML_REDUCE_FUNCTION_SUM_SQUARE", 11), ("DML_PADDING_MODE_WRAP", 4), ("DML_IS_INFINITY_MODE_NEGATIVE", 2),
    ("DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN", 4), ("DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT", 2),
    ("DML_GRAPH_EDGE_TYPE_INTERMEDIATE", 3), ("DML_GRAPH_NODE_TYPE_CONSTANT", 2),
    ("DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10", 0), ("DML_ROUNDING_MODE_TOWARD_INFINITY", 2),
])
def test_enum_constant_values(name, value):
    constant = getattr(dml, name)
    assert constant == value
    assert isinstance(constant, int)
    assert name in dml.__all__


def test_operator_table_is_consecutive_and_complete():
    assert [value for value, _, _ in OPERATOR_TYPE_TABLE] == list(range(178))
    assert len(DML_OPERATOR_TYPE.__members__) == 179  # plus the DML_OPERATOR_SCATTER alias
    levels = {level for _, _, level in OPERATOR_TYPE_TABLE}
    assert 0x5200 not in levels and 0x6000 not in levels  # FL5.2 and FL6.0 added no operators


def test_enum_members_carry_c_names():
    assert DML_TENSOR_DATA_TYPE(1).name == "DML_TENSOR_DATA_TYPE_FLOAT32"
    assert DML_OPERATOR_TYPE(88).name == "DML_OPERATOR_ELEMENT_WISE_IF"
    flags = DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION | DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE
    assert int(flags) == 5


def test_star_import_gives_the_public_names():
    namespace = {}
    exec("from dmlemu.directml import *", namespace)
    for name in ("DMLCreateDevice", "DMLCreateDevice1", "DMLCalcBufferTensorSize", "DML_BUFFER_TENSOR_DESC",
                 "DML_ELEMENT_WISE_IF_OPERATOR_DESC", "IDMLCommandRecorder", "DML_OPERATOR_ELEMENT_WISE_CLIP",
                 "IID_IDMLDevice", "DML_SCALAR_UNION", "DML_GRAPH_DESC"):
        assert name in namespace, name


# ---- structs -----------------------------------------------------------------------------------
def test_struct_keywords_positional_defaults_and_mutability():
    desc = DML_BUFFER_TENSOR_DESC(DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Sizes=[1, 2, 3, 4])
    assert desc.Flags == 0 and desc.Strides is None and desc.TotalTensorSizeInBytes == 0
    assert desc.DimensionCount == 4  # derived from Sizes
    assert desc.explicit_count("DimensionCount") is None
    desc.Sizes = [5, 6]
    assert desc.DimensionCount == 2
    desc.DimensionCount = 3  # given: kept as given; CreateOperator checks it agrees
    assert desc.DimensionCount == 3
    binding = DML_BUFFER_BINDING(None, 16, 32)
    assert (binding.Buffer, binding.Offset, binding.SizeInBytes) == (None, 16, 32)
    array = DML_BUFFER_ARRAY_BINDING(Bindings=[binding, binding])
    assert array.BindingCount == 2


def test_struct_rejects_unknown_fields():
    with pytest.raises(TypeError, match="DML_SCALE_BIAS has no field 'Sclae'"):
        DML_SCALE_BIAS(Sclae=1.0)
    bias = DML_SCALE_BIAS(Scale=1.0, Bias=0.0)
    with pytest.raises(AttributeError, match="DML_SCALE_BIAS has no field 'bias'"):
        bias.bias = 2.0


@pytest.mark.parametrize("struct, fields", [
    (DML_ELEMENT_WISE_CLIP_OPERATOR_DESC, ("InputTensor", "OutputTensor", "ScaleBias", "Min", "Max")),
    (DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC, ("InputTensor", "OutputTensor", "ScaleBias", "Min")),
    (DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC, ("InputTensor", "OutputTensor", "ScaleBias")),
    (DML_ELEMENT_WISE_IF_OPERATOR_DESC, ("ConditionTensor", "ATensor", "BTensor", "OutputTensor")),
])
def test_operator_desc_structs_have_c_fields(struct, fields):
    # C aggregate initialization: positional values fill the fields in C order, and there are no more fields.
    desc = struct(*range(len(fields)))
    assert [getattr(desc, field) for field in fields] == list(range(len(fields)))
    with pytest.raises(TypeError, match=f"{struct.__name__} has {len(fields)} fields; {len(fields) + 1} values"):
        struct(*range(len(fields) + 1))


def test_scalar_union_shares_bytes():
    value = DML_SCALAR_UNION(Float32=1.0)
    assert value.UInt32 == 0x3F800000
    value.Int8 = -1
    assert value.Bytes == b"\xff" + bytes(7)


# ---- DMLCalcBufferTensorSize ------------------------------------------------------------------------
@pytest.mark.parametrize("data_type, sizes, strides, expected", [
    (DML_TENSOR_DATA_TYPE_FLOAT32, [1, 2, 3, 4], None, 96),          # HelloDirectML
    (DML_TENSOR_DATA_TYPE_FLOAT16, [3], None, 8),                    # 6 bytes rounded up to 8
    (DML_TENSOR_DATA_TYPE_FLOAT32, [1, 8, 28, 28], [8, 1, 0, 0], 32),  # mnist broadcast bias
    (DML_TENSOR_DATA_TYPE_FLOAT16, [1, 2, 3, 4], None, 48),
    (DML_TENSOR_DATA_TYPE_UINT8, [5], None, 8),
    (DML_TENSOR_DATA_TYPE_INT64, [3], None, 24),
    (DML_TENSOR_DATA_TYPE_INT4, [3], None, 4),                       # 12 bits -> 2 bytes -> 4
    (DML_TENSOR_DATA_TYPE_FLOAT32, [2, 3], [6, 1], 36),              # padded rows: last index 8
    (DML_TENSOR_DATA_TYPE_UNKNOWN, [1, 2], None, 0),
    (DML_TENSOR_DATA_TYPE_UINT8, [2, 2], [0x80000000, 0x80000000], 4),  # index wraps in 32-bit UINT
    (DML_TENSOR_DATA_TYPE_FLOAT32, [65536, 65536], None, 1 << 34),    # product in 64 bits
])
def test_calc_buffer_tensor_size(data_type, sizes, strides, expected):
    assert DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides) == expected


def test_calc_buffer_tensor_size_matches_golden():
    from dmlemu import golden
    rng = np.random.default_rng(1)
    for _ in range(200):
        n = int(rng.integers(1, 6))
        sizes = [int(s) for s in rng.integers(1, 9, n)]
        strides = None if rng.random() < 0.3 else [int(s) for s in rng.integers(0, 50, n)]
        data_type = int(rng.integers(1, 12))
        name = DML_TENSOR_DATA_TYPE(data_type).name[len("DML_TENSOR_DATA_TYPE_"):]
        assert DMLCalcBufferTensorSize(data_type, n, sizes, strides) == golden.calc_buffer_tensor_size(name, sizes, strides)


@pytest.mark.parametrize("args, message", [
    ((1, 0, [1], None), "DMLCalcBufferTensorSize dimensionCount is 0; it must be an integer from 1 to 4294967295."),
    ((1, 3, [1, 2], None), "DMLCalcBufferTensorSize sizes has 2 elements; dimensionCount is 3."),
    ((1, 2, [1, 2], [1]), "DMLCalcBufferTensorSize strides has 1 elements; dimensionCount is 2."),
    ((1, 1, [-1], None), "DMLCalcBufferTensorSize sizes[0] is -1; it must be an integer from 0 to 4294967295."),
    ((1, 1, [1.5], None), "DMLCalcBufferTensorSize sizes[0] is 1.5; it must be an integer from 0 to 4294967295."),
    ((1, 1, 7, None), "DMLCalcBufferTensorSize sizes is 7; it must be a sequence of integers."),
    (("FLOAT32", 1, [1], None), "DMLCalcBufferTensorSize dataType is 'FLOAT32'; it must be a DML_TENSOR_DATA_TYPE value."),
])
def test_calc_buffer_tensor_size_rejects_what_c_would_misread(args, message):
    with pytest.raises(HResultError) as info:
        DMLCalcBufferTensorSize(*args)
    assert info.value.hresult == E_INVALIDARG
    assert info.value.message == message
