"""CreateOperator / DMLCreateDevice / CheckFeatureSupport validation: every rule's sentence is pinned.

The operator tables come from shared/seeds (IDENTITY, THRESHOLD, CLIP, IF) and are checked per
feature level: a device emulating an older DirectML runtime (max_feature_level=...) validates at
that level.
"""
import numpy as np
import pytest

from dmlemu.d3d12 import D3D12CreateDevice, D3D_FEATURE_LEVEL_11_0
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.directml import inspect
from dmlemu.dxgi import CreateDXGIFactory1
from dmlemu.errors import (
    DXGI_ERROR_DEVICE_REMOVED, DXGI_ERROR_UNSUPPORTED, E_INVALIDARG, E_NOINTERFACE, E_NOTIMPL, HResultError, S_OK,
)
from dmlemu.presets import IRIS_XE, PRESETS
from mirror_rig import highest_feature_level

F32, F16, F64 = DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_FLOAT64
I8, I16, I32, I64 = (DML_TENSOR_DATA_TYPE_INT8, DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_INT32,
                     DML_TENSOR_DATA_TYPE_INT64)
U8, U16, U32, U64 = (DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_UINT16, DML_TENSOR_DATA_TYPE_UINT32,
                     DML_TENSOR_DATA_TYPE_UINT64)
ALL_TYPES = (F32, F16, F64, I8, I16, I32, I64, U8, U16, U32, U64)


def d3d12_device(preset=None):
    adapter = None
    if preset is not None:
        adapter = CreateDXGIFactory1().EnumAdapters1(PRESETS.index(preset))
    return D3D12CreateDevice(adapter, D3D_FEATURE_LEVEL_11_0)


def dml_device(level=None, flags=DML_CREATE_DEVICE_FLAG_NONE, preset=None):
    return DMLCreateDevice(d3d12_device(preset), flags, max_feature_level=level)


def tensor(data_type=F32, sizes=(1, 2, 3, 4), strides=None, total=None, **fields):
    sizes = list(sizes)
    if total is None:
        total = DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides)
    return DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=data_type, Flags=DML_TENSOR_FLAG_NONE, Sizes=sizes, Strides=strides,
        TotalTensorSizeInBytes=total, **fields))


SAME = object()  # output tensor desc: the input's


def unary(op_type, input_tensor, output_tensor=SAME, **fields):
    desc_type = {DML_OPERATOR_ELEMENT_WISE_IDENTITY: DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC,
                 DML_OPERATOR_ELEMENT_WISE_THRESHOLD: DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC,
                 DML_OPERATOR_ELEMENT_WISE_CLIP: DML_ELEMENT_WISE_CLIP_OPERATOR_DESC}[op_type]
    return DML_OPERATOR_DESC(Type=op_type, Desc=desc_type(
        InputTensor=input_tensor, OutputTensor=input_tensor if output_tensor is SAME else output_tensor, **fields))


def clip(input_tensor, output_tensor=SAME, **fields):
    fields.setdefault("Min", -1.0)
    fields.setdefault("Max", 1.0)
    return unary(DML_OPERATOR_ELEMENT_WISE_CLIP, input_tensor, output_tensor, **fields)


def if_op(condition, a, b, out):
    return DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_IF, Desc=DML_ELEMENT_WISE_IF_OPERATOR_DESC(
        ConditionTensor=condition, ATensor=a, BTensor=b, OutputTensor=out))


def rejected(device, desc, hresult=E_INVALIDARG):
    with pytest.raises(HResultError) as info:
        device.CreateOperator(desc)
    assert info.value.hresult == hresult, info.value
    return info.value.message


# ---- devices ---------------------------------------------------------------------------------------
def test_create_device_defaults_to_the_adapter_feature_level():
    device = DMLCreateDevice(d3d12_device(), DML_CREATE_DEVICE_FLAG_NONE)
    assert highest_feature_level(device) == DML_FEATURE_LEVEL_6_4
    assert device.GetDeviceRemovedReason() == S_OK
    assert device.QueryInterface(IID_IDMLDevice) is device
    assert device.QueryInterface(IID_IDMLDevice1) is device


def test_create_device1_above_the_maximum_level_is_unsupported():
    with pytest.raises(HResultError) as info:
        DMLCreateDevice1(d3d12_device(), DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_5_0,
                         max_feature_level=DML_FEATURE_LEVEL_4_1)
    assert info.value.hresult == DXGI_ERROR_UNSUPPORTED
    assert info.value.message == ("DMLCreateDevice1 minimumFeatureLevel is DML_FEATURE_LEVEL_5_0; this DirectML "
                                  "supports up to DML_FEATURE_LEVEL_4_1.")
    device = DMLCreateDevice1(d3d12_device(), DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_4_1,
                              max_feature_level=DML_FEATURE_LEVEL_4_1)
    assert highest_feature_level(device) == DML_FEATURE_LEVEL_4_1
    # The device validates at its maximum level, not at the minimum asked for.
    assert highest_feature_level(DMLCreateDevice1(d3d12_device(), 0, DML_FEATURE_LEVEL_1_0)) == DML_FEATURE_LEVEL_6_4


@pytest.mark.parametrize("call, message", [
    (lambda: DMLCreateDevice(None, 0), "DMLCreateDevice d3d12Device is None; it must be an ID3D12Device."),
    (lambda: DMLCreateDevice(d3d12_device(), 0x10), "DMLCreateDevice flags is 0x10; bits 0x10 are not "
                                                    "DML_CREATE_DEVICE_FLAGS flags."),
    (lambda: DMLCreateDevice1(d3d12_device(), 0, 0x1234), "DMLCreateDevice1 minimumFeatureLevel is 4660, which is "
                                                          "not a DML_FEATURE_LEVEL value."),
    (lambda: DMLCreateDevice(d3d12_device(), 0, max_feature_level=7), "DMLCreateDevice max_feature_level is 7, which "
                                                                      "is not a DML_FEATURE_LEVEL value."),
])
def test_create_device_argument_errors(call, message):
    with pytest.raises(HResultError) as info:
        call()
    assert info.value.hresult == E_INVALIDARG
    assert info.value.message == message


def test_debug_device_interface_only_with_the_debug_flag():
    device = dml_device(flags=DML_CREATE_DEVICE_FLAG_DEBUG)
    assert device.QueryInterface(IID_IDMLDebugDevice) is device   # the debug device is the device itself
    with pytest.raises(HResultError) as info:
        dml_device().QueryInterface(IID_IDMLDebugDevice)
    assert info.value.hresult == E_NOINTERFACE


def test_parent_device_and_children_devices():
    parent = d3d12_device()
    device = DMLCreateDevice(parent, 0)
    assert device.GetParentDevice() is parent
    op = device.CreateOperator(clip(tensor()))
    assert op.GetDevice() is device


def test_private_data_and_name():
    device = dml_device()
    guid = "11111111-2222-3333-4444-555555555555"
    device.SetPrivateData(guid, b"abc")
    assert device.GetPrivateData(guid) == b"abc"
    device.SetName("my device")
    with pytest.raises(HResultError):
        device.GetPrivateData("11111111-2222-3333-4444-000000000000")


# ---- CheckFeatureSupport -------------------------------------------------------------------------
def _type_supported(device, data_type):
    return device.CheckFeatureSupport(DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT,
                                      DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT(DataType=data_type)).IsSupported


def test_tensor_data_type_support_follows_the_adapter():
    full = dml_device()
    assert all(_type_supported(full, t) for t in ALL_TYPES)
    no64 = dml_device(preset=IRIS_XE)
    assert not _type_supported(no64, DML_TENSOR_DATA_TYPE_INT64)
    assert not _type_supported(no64, DML_TENSOR_DATA_TYPE_FLOAT64)
    assert _type_supported(no64, DML_TENSOR_DATA_TYPE_INT32)
    assert not _type_supported(full, DML_TENSOR_DATA_TYPE_UNKNOWN)
    assert not _type_supported(dml_device(DML_FEATURE_LEVEL_2_1), DML_TENSOR_DATA_TYPE_UINT64)  # 64-bit from FL3.0


def test_feature_levels_query_returns_the_highest_supported_requested_level():
    device = dml_device(DML_FEATURE_LEVEL_3_1)
    query = DML_FEATURE_QUERY_FEATURE_LEVELS(RequestedFeatureLevels=[
        DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_3_0, DML_FEATURE_LEVEL_4_0, DML_FEATURE_LEVEL_6_4])
    data = device.CheckFeatureSupport(DML_FEATURE_FEATURE_LEVELS, query)
    assert data.MaxSupportedFeatureLevel == DML_FEATURE_LEVEL_3_0


@pytest.mark.parametrize("feature, query, hresult, message", [
    (7, None, DXGI_ERROR_UNSUPPORTED, "feature is 7, which is not a DML_FEATURE this DirectML knows."),
    (DML_FEATURE_FEATURE_LEVELS, DML_FEATURE_QUERY_FEATURE_LEVELS(RequestedFeatureLevels=[]), E_INVALIDARG,
     "featureQueryData.RequestedFeatureLevels is empty; it must list at least one feature level."),
    (DML_FEATURE_FEATURE_LEVELS, DML_FEATURE_QUERY_FEATURE_LEVELS(RequestedFeatureLevelCount=3,
                                                                  RequestedFeatureLevels=[0x1000]), E_INVALIDARG,
     "featureQueryData.RequestedFeatureLevelCount is 3 but RequestedFeatureLevels has 1 elements; they must agree."),
    (DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, DML_FEATURE_QUERY_FEATURE_LEVELS(), E_INVALIDARG,
     "featureQueryData is DML_FEATURE_QUERY_FEATURE_LEVELS; DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT needs a "
     "DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT."),
    (DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT(DataType=99), E_INVALIDARG,
     "featureQueryData.DataType is 99, which is not a DML_TENSOR_DATA_TYPE value."),
])
def test_check_feature_support_errors(feature, query, hresult, message):
    with pytest.raises(HResultError) as info:
        dml_device(DML_FEATURE_LEVEL_2_0).CheckFeatureSupport(feature, query)
    assert info.value.hresult == hresult
    assert info.value.message == message


# ---- operator type and feature level gating ----------------------------------------------------------
def test_valid_operators_are_created():
    device = dml_device()
    for desc, tensors in ((clip(tensor()), 2), (unary(DML_OPERATOR_ELEMENT_WISE_THRESHOLD, tensor(), Min=0.0), 2),
                          (unary(DML_OPERATOR_ELEMENT_WISE_IDENTITY, tensor(F16),
                                 ScaleBias=DML_SCALE_BIAS(Scale=2, Bias=1)), 2),
                          (if_op(tensor(U8), tensor(I64), tensor(I64), tensor(I64)), 4)):
        op = device.CreateOperator(desc)
        assert op.GetDevice() is device
        # it compiles, with one descriptor per tensor of its desc
        assert device.CompileOperator(op, 0).GetBindingProperties().RequiredDescriptorCount == tensors


def test_operator_without_a_schema_is_e_notimpl():
    message = rejected(dml_device(), DML_OPERATOR_DESC(Type=DML_OPERATOR_LSTM, Desc=None), E_NOTIMPL)
    assert message.startswith("DML_OPERATOR_DESC.Type is DML_OPERATOR_LSTM; dmlemu does not implement that "
                              "operator yet (it implements DML_OPERATOR_ELEMENT_WISE_IDENTITY, ")


def test_validated_operator_without_a_kernel_is_e_notimpl(monkeypatch):
    """The desc is validated completely first (a bad one is still E_INVALIDARG), then E_NOTIMPL."""
    import dmlemu.kernels.driver as driver
    monkeypatch.setattr(driver, "has_kernel", lambda name: name != "ELEMENT_WISE_CLIP")
    device = dml_device()
    assert rejected(device, clip(tensor(), Min=2.0, Max=3.0), E_NOTIMPL) == (
        "DML_OPERATOR_DESC.Type is DML_OPERATOR_ELEMENT_WISE_CLIP; its desc is validated, but dmlemu has no kernel "
        "for it yet.")
    assert "Sizes has 9 dimensions" in rejected(device, clip(tensor(sizes=(1,) * 9)))
    device.CreateOperator(if_op(tensor(U8), tensor(), tensor(), tensor()))


def test_operator_introduced_after_the_device_level():
    message = rejected(dml_device(DML_FEATURE_LEVEL_1_0), if_op(tensor(U8), tensor(F16), tensor(F16), tensor(F16)))
    assert message == ("DML_OPERATOR_DESC.Type is DML_OPERATOR_ELEMENT_WISE_IF, introduced in DML_FEATURE_LEVEL_2_0; "
                       "this device supports up to DML_FEATURE_LEVEL_1_0.")
    message = rejected(dml_device(DML_FEATURE_LEVEL_4_1), DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_CLIP1))
    assert "introduced in DML_FEATURE_LEVEL_5_0" in message


@pytest.mark.parametrize("desc, message", [
    (DML_OPERATOR_DESC(Type=999), "DML_OPERATOR_DESC.Type is 999, which is not a DML_OPERATOR_TYPE value."),
    (DML_OPERATOR_DESC(Type=0), "DML_OPERATOR_DESC.Type is DML_OPERATOR_INVALID; it must name an operator."),
    (DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_CLIP, Desc=DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC()),
     "DML_OPERATOR_DESC.Desc is a DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC; DML_OPERATOR_ELEMENT_WISE_CLIP needs a "
     "DML_ELEMENT_WISE_CLIP_OPERATOR_DESC."),
    (None, "the operator desc is None; CreateOperator needs a DML_OPERATOR_DESC."),
])
def test_operator_desc_shape(desc, message):
    assert rejected(dml_device(), desc) == message


# The support tables' rows: (device level, data type[, dims], outcome). The outcome is ACCEPTED (the operator's
# validated tensors have that type and rank) or (tensor, field, what the level allows): the exact sentence.
ACCEPTED = "accepted"
FLOATS = "FLOAT32, FLOAT16"
ALL_32 = "FLOAT32, FLOAT16, INT32, INT16, INT8, UINT32, UINT16, UINT8"
ALL_64 = "FLOAT32, FLOAT16, INT64, INT32, INT16, INT8, UINT64, UINT32, UINT16, UINT8"


def check_support(level, desc, data_type, dims, outcome):
    """CreateOperator's answer for a support-table row: the operator, or the row's sentence."""
    device = dml_device(level)
    name = DML_OPERATOR_TYPE(desc.Type).name
    if outcome == ACCEPTED:
        info = inspect(device.CreateOperator(desc)).info
        assert info.schema.c_name == name
        assert [(t.data_type, len(t.sizes)) for t in info.tensors if t.field != "ConditionTensor"] == \
            [(data_type, dims)] * (len(info.tensors) - (name == "DML_OPERATOR_ELEMENT_WISE_IF"))
        return
    tensor_name, field, allowed = outcome
    level_name = DML_FEATURE_LEVEL(level).name
    if field == "DataType":
        sentence = (f"{tensor_name}.DataType is {DML_TENSOR_DATA_TYPE(data_type).name}; {level_name} allows {allowed} "
                    f"for {tensor_name} of {name}.")
    else:
        sentence = f"{tensor_name}.Sizes has {dims} dimensions; {level_name} allows {allowed} for {name}."
    assert rejected(device, desc) == sentence


def input_rule(field, allowed):
    return ("InputTensor", field, allowed)


# THRESHOLD per level (CLIP agrees except 64-bit).
THRESHOLD_CASES = [
    (DML_FEATURE_LEVEL_1_0, F32, 4, ACCEPTED), (DML_FEATURE_LEVEL_1_0, F16, 4, ACCEPTED),
    (DML_FEATURE_LEVEL_1_0, I32, 4, input_rule("DataType", FLOATS)),
    (DML_FEATURE_LEVEL_1_0, F32, 3, input_rule("Sizes", "4")),
    (DML_FEATURE_LEVEL_2_0, I32, 4, input_rule("DataType", FLOATS)), (DML_FEATURE_LEVEL_2_1, I32, 4, ACCEPTED),
    (DML_FEATURE_LEVEL_2_1, U8, 4, ACCEPTED), (DML_FEATURE_LEVEL_2_1, I8, 4, ACCEPTED),
    (DML_FEATURE_LEVEL_2_1, F32, 3, input_rule("Sizes", "4")),
    (DML_FEATURE_LEVEL_2_1, F32, 5, input_rule("Sizes", "4")),
    (DML_FEATURE_LEVEL_3_0, F32, 1, ACCEPTED), (DML_FEATURE_LEVEL_3_0, U16, 8, ACCEPTED),
    (DML_FEATURE_LEVEL_3_0, F32, 9, input_rule("Sizes", "1 to 8")),
    (DML_FEATURE_LEVEL_6_4, I64, 4, input_rule("DataType", ALL_32)),
    (DML_FEATURE_LEVEL_6_4, F64, 4, input_rule("DataType", ALL_32)),
]


@pytest.mark.parametrize("level, data_type, dims, outcome", THRESHOLD_CASES)
def test_threshold_support_table(level, data_type, dims, outcome):
    t = tensor(data_type, (1,) * (dims - 1) + (3,))
    check_support(level, unary(DML_OPERATOR_ELEMENT_WISE_THRESHOLD, t, Min=0.0), data_type, dims, outcome)


@pytest.mark.parametrize("level, data_type, outcome", [
    (DML_FEATURE_LEVEL_4_1, I64, input_rule("DataType", ALL_32)), (DML_FEATURE_LEVEL_5_0, I64, ACCEPTED),
    (DML_FEATURE_LEVEL_5_0, U64, ACCEPTED), (DML_FEATURE_LEVEL_6_4, F64, input_rule("DataType", ALL_64)),
    (DML_FEATURE_LEVEL_2_1, U32, ACCEPTED), (DML_FEATURE_LEVEL_2_0, U32, input_rule("DataType", FLOATS)),
])
def test_clip_support_table(level, data_type, outcome):
    check_support(level, clip(tensor(data_type, (1, 1, 2, 2))), data_type, 4, outcome)


@pytest.mark.parametrize("level, data_type, dims, outcome", [
    (DML_FEATURE_LEVEL_1_0, F32, 4, ACCEPTED), (DML_FEATURE_LEVEL_1_0, F32, 5, ACCEPTED),
    (DML_FEATURE_LEVEL_1_0, F32, 3, input_rule("Sizes", "4 to 5")),
    (DML_FEATURE_LEVEL_1_0, I16, 4, input_rule("DataType", FLOATS)), (DML_FEATURE_LEVEL_2_1, I16, 5, ACCEPTED),
    (DML_FEATURE_LEVEL_2_1, I16, 2, input_rule("Sizes", "4 to 5")),
    (DML_FEATURE_LEVEL_3_0, I16, 2, ACCEPTED), (DML_FEATURE_LEVEL_4_0, I64, 2, input_rule("DataType", ALL_32)),
    (DML_FEATURE_LEVEL_4_1, I64, 2, ACCEPTED), (DML_FEATURE_LEVEL_4_1, F64, 2, ACCEPTED),
    (DML_FEATURE_LEVEL_4_1, U64, 8, ACCEPTED),
])
def test_identity_support_table(level, data_type, dims, outcome):
    desc = unary(DML_OPERATOR_ELEMENT_WISE_IDENTITY, tensor(data_type, (1,) * (dims - 1) + (2,)))
    check_support(level, desc, data_type, dims, outcome)


@pytest.mark.parametrize("level, data_type, dims, outcome", [
    (DML_FEATURE_LEVEL_2_0, F16, 4, ACCEPTED), (DML_FEATURE_LEVEL_2_0, F32, 4, ("ATensor", "DataType", "FLOAT16")),
    (DML_FEATURE_LEVEL_2_1, F16, 3, ("ConditionTensor", "Sizes", "4")),
    (DML_FEATURE_LEVEL_3_0, F32, 3, ACCEPTED), (DML_FEATURE_LEVEL_3_0, U8, 1, ACCEPTED),
    (DML_FEATURE_LEVEL_3_0, I64, 1, ("ATensor", "DataType", ALL_32)),
    (DML_FEATURE_LEVEL_5_0, I64, 1, ACCEPTED), (DML_FEATURE_LEVEL_5_0, F64, 8, ACCEPTED),
    (DML_FEATURE_LEVEL_4_1, F64, 2, ("ATensor", "DataType", ALL_32)),
])
def test_if_support_table(level, data_type, dims, outcome):
    sizes = (1,) * (dims - 1) + (2,)
    desc = if_op(tensor(U8, sizes), tensor(data_type, sizes), tensor(data_type, sizes), tensor(data_type, sizes))
    check_support(level, desc, data_type, dims, outcome)


def test_feature_level_messages_name_the_level_and_what_it_allows():
    assert rejected(dml_device(DML_FEATURE_LEVEL_2_0), unary(DML_OPERATOR_ELEMENT_WISE_THRESHOLD, tensor(I32))) == (
        "InputTensor.DataType is DML_TENSOR_DATA_TYPE_INT32; DML_FEATURE_LEVEL_2_0 allows FLOAT32, FLOAT16 for "
        "InputTensor of DML_OPERATOR_ELEMENT_WISE_THRESHOLD.")
    assert rejected(dml_device(DML_FEATURE_LEVEL_2_1), unary(DML_OPERATOR_ELEMENT_WISE_THRESHOLD, tensor(F32, (2, 3, 4)))) == (
        "InputTensor.Sizes has 3 dimensions; DML_FEATURE_LEVEL_2_1 allows 4 for DML_OPERATOR_ELEMENT_WISE_THRESHOLD.")
    assert rejected(dml_device(DML_FEATURE_LEVEL_5_0), clip(tensor(F32, (1,) * 9))) == (
        "InputTensor.Sizes has 9 dimensions; DML_FEATURE_LEVEL_5_0 allows 1 to 8 for DML_OPERATOR_ELEMENT_WISE_CLIP.")
    assert rejected(dml_device(DML_FEATURE_LEVEL_1_0), unary(DML_OPERATOR_ELEMENT_WISE_IDENTITY, tensor(F32, (2, 3)))) == (
        "InputTensor.Sizes has 2 dimensions; DML_FEATURE_LEVEL_1_0 allows 4 to 5 for DML_OPERATOR_ELEMENT_WISE_IDENTITY.")
    assert rejected(dml_device(), if_op(tensor(F32), tensor(F32), tensor(F32), tensor(F32))) == (
        "ConditionTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT32; DML_FEATURE_LEVEL_6_4 allows UINT8 for "
        "ConditionTensor of DML_OPERATOR_ELEMENT_WISE_IF.")


def test_64bit_types_need_an_adapter_that_supports_them():
    device = dml_device(preset=IRIS_XE)
    assert rejected(device, clip(tensor(I64, (4,)))) == (
        "InputTensor.DataType is DML_TENSOR_DATA_TYPE_INT64; the adapter 'Intel Iris Xe Graphics (emulated)' does "
        "not support 64-bit tensor data types (see DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT).")
    device.CreateOperator(clip(tensor(I32, (4,))))


# ---- tensor fields ----------------------------------------------------------------------------------
def _buffer(**fields):
    base = dict(DataType=F32, Flags=0, Sizes=[1, 2, 3, 4], Strides=None, TotalTensorSizeInBytes=96,
                GuaranteedBaseOffsetAlignment=0)
    base.update(fields)
    return DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(**base))


@pytest.mark.parametrize("output, message", [
    (None, "OutputTensor is None; DML_OPERATOR_ELEMENT_WISE_CLIP requires it."),
    ([1, 2], "OutputTensor is a list; it must be a DML_TENSOR_DESC."),
    (DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_INVALID, Desc=None),
     "OutputTensor.Type is DML_TENSOR_TYPE_INVALID; it must be DML_TENSOR_TYPE_BUFFER."),
    (DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=None),
     "OutputTensor.Desc is None; a DML_TENSOR_TYPE_BUFFER tensor needs a DML_BUFFER_TENSOR_DESC."),
    (_buffer(DataType=42), "OutputTensor.DataType is 42, which is not a DML_TENSOR_DATA_TYPE value."),
    (_buffer(DataType=1.0), "OutputTensor.DataType is 1.0; it must be a DML_TENSOR_DATA_TYPE value."),
    (_buffer(Flags=0x4), "OutputTensor.Flags is 0x4; bits 0x4 are not DML_TENSOR_FLAGS flags."),
    (_buffer(Flags=DML_TENSOR_FLAG_OWNED_BY_DML),
     "OutputTensor.Flags has DML_TENSOR_FLAG_OWNED_BY_DML; only input tensors can be owned by DirectML."),
    (_buffer(Sizes=None), "OutputTensor.Sizes is None; a buffer tensor needs its sizes."),
    (_buffer(Sizes="1234"), "OutputTensor.Sizes is '1234'; it must be a sequence of integers."),
    (_buffer(Sizes=[1, 2, 3, 4], DimensionCount=3),
     "OutputTensor.DimensionCount is 3 but OutputTensor.Sizes has 4 elements; they must agree."),
    (_buffer(Sizes=[1, 2, -3, 4]), "OutputTensor.Sizes[2] is -3; it must be an integer from 1 to 4294967295."),
    (_buffer(Sizes=[1, 2, 3.0, 4]), "OutputTensor.Sizes[2] is 3.0; it must be an integer from 1 to 4294967295."),
    (_buffer(Sizes=[1, 2, True, 4]), "OutputTensor.Sizes[2] is True; it must be an integer from 1 to 4294967295."),
    (_buffer(Sizes=[1, 0, 3, 4]), "OutputTensor.Sizes[1] is 0; sizes must be non-zero."),
    (_buffer(Sizes=[1, 2, 3, 1 << 32]), "OutputTensor.Sizes[3] is 4294967296; it must be an integer from 1 to 4294967295."),
    (_buffer(Strides=[12, 4, 1]), "OutputTensor.Strides has 3 elements; DimensionCount is 4."),
    (_buffer(Strides=[24, 12, 4, -1]), "OutputTensor.Strides[3] is -1; it must be an integer from 0 to 4294967295."),
    (_buffer(Strides=np.array([[1, 2], [3, 4]])), "OutputTensor.Strides is a 2-D array; it must be a sequence of integers."),
    (_buffer(TotalTensorSizeInBytes=95), "OutputTensor.TotalTensorSizeInBytes is 95; its Sizes and Strides need at "
                                         "least 96 bytes (DMLCalcBufferTensorSize)."),
    (_buffer(Sizes=[2, 2], Strides=[0xFFFFFFFF, 1], TotalTensorSizeInBytes=4),
     "OutputTensor.TotalTensorSizeInBytes is 4; its Sizes and Strides need at least 17179869188 bytes "
     "(DMLCalcBufferTensorSize)."),  # C's DMLCalcBufferTensorSize wraps the index to 0 and says 4
    (_buffer(TotalTensorSizeInBytes=96.0), "OutputTensor.TotalTensorSizeInBytes is 96.0; it must be an integer from 0 "
                                           "to 18446744073709551615."),
    (_buffer(GuaranteedBaseOffsetAlignment=2), "OutputTensor.GuaranteedBaseOffsetAlignment is 2; it must be 0 or a "
                                               "power of two of at least the element size (4 bytes)."),
    (_buffer(GuaranteedBaseOffsetAlignment=48), "OutputTensor.GuaranteedBaseOffsetAlignment is 48; it must be 0 or a "
                                                "power of two of at least the element size (4 bytes)."),
])
def test_tensor_field_rules(output, message):
    assert rejected(dml_device(), clip(_buffer(), output)) == message


def test_owned_by_dml_inputs_are_accepted():
    """An owned input is bound at initialization and kept in the persistent resource
    (tests/directml/test_persistent_resources.py runs it)."""
    op = dml_device().CreateOperator(clip(_buffer(Flags=DML_TENSOR_FLAG_OWNED_BY_DML), _buffer()))
    info = inspect(op).info
    assert info.inputs[0].owned_by_dml and not info.outputs[0].owned_by_dml


def test_sizes_as_numpy_arrays_and_tuples_are_accepted():
    device = dml_device()
    device.CreateOperator(clip(_buffer(Sizes=np.array([1, 2, 3, 4], dtype=np.uint32))))
    device.CreateOperator(clip(_buffer(Sizes=(1, 2, 3, 4), Strides=np.array([24, 12, 4, 1]))))
    device.CreateOperator(clip(_buffer(DimensionCount=4)))


def test_element_count_limit():
    big = tensor(U8, (65536, 65536), total=1 << 32)
    assert rejected(dml_device(), clip(big)) == (
        "InputTensor.Sizes {65536,65536} has 4294967296 elements; a buffer tensor may have at most 4294967295.")


def test_same_data_type_and_sizes():
    assert rejected(dml_device(), clip(tensor(F32), tensor(F16))) == (
        "OutputTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16 but InputTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT32; "
        "DML_OPERATOR_ELEMENT_WISE_CLIP requires the same DataType.")
    assert rejected(dml_device(), clip(tensor(F32, (1, 2, 3, 4)), tensor(F32, (1, 2, 3, 5)))) == (
        "OutputTensor.Sizes is {1,2,3,5} but InputTensor.Sizes is {1,2,3,4}; DML_OPERATOR_ELEMENT_WISE_CLIP requires "
        "the same Sizes.")
    assert rejected(dml_device(), clip(tensor(F32, (2, 3, 4)), tensor(F32, (1, 2, 3, 4)))) == (
        "OutputTensor.DimensionCount is 4 but InputTensor.DimensionCount is 3; DML_OPERATOR_ELEMENT_WISE_CLIP requires "
        "the same DimensionCount.")
    assert rejected(dml_device(), if_op(tensor(U8, (2, 2)), tensor(F32, (2, 2)), tensor(F16, (2, 2)), tensor(F32, (2, 2)))) == (
        "BTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16 but ATensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT32; "
        "DML_OPERATOR_ELEMENT_WISE_IF requires the same DataType.")
    assert rejected(dml_device(), if_op(tensor(U8, (2, 3)), tensor(F32, (2, 2)), tensor(F32, (2, 2)), tensor(F32, (2, 2)))) == (
        "ATensor.Sizes is {2,2} but ConditionTensor.Sizes is {2,3}; DML_OPERATOR_ELEMENT_WISE_IF requires the same Sizes.")


def test_scale_bias_only_for_float16_and_float32():
    assert rejected(dml_device(), clip(tensor(I32), ScaleBias=DML_SCALE_BIAS(Scale=1.0, Bias=0.0))) == (
        "ScaleBias is set but InputTensor.DataType is DML_TENSOR_DATA_TYPE_INT32; dmlemu accepts ScaleBias only for "
        "FLOAT32 and FLOAT16 tensors.")
    assert rejected(dml_device(), clip(tensor(I64, (2,)), ScaleBias=DML_SCALE_BIAS(Scale=1.0, Bias=0.0))).startswith(
        "ScaleBias is set but InputTensor.DataType is DML_TENSOR_DATA_TYPE_INT64")
    assert rejected(dml_device(), clip(tensor(F32), ScaleBias=(1.0, 0.0))) == (
        "ScaleBias is a tuple; it must be a DML_SCALE_BIAS or None.")
    assert rejected(dml_device(), clip(tensor(F32), ScaleBias=DML_SCALE_BIAS(Scale="2", Bias=0.0))) == (
        "ScaleBias.Scale is '2'; it must be a number (a C FLOAT).")


def test_float_attributes():
    assert rejected(dml_device(), clip(tensor(F32), Min=None)) == "Min is None; it must be a number (a C FLOAT)."
    assert rejected(dml_device(), clip(tensor(F32), Max=10 ** 400)) == (
        f"Max is {10 ** 400!r}; it is out of the range of a C FLOAT.")
    assert rejected(dml_device(), unary(DML_OPERATOR_ELEMENT_WISE_THRESHOLD, tensor(), Min=[0])) == (
        "Min is [0]; it must be a number (a C FLOAT).")
    op = dml_device().CreateOperator(clip(tensor(), Min=np.float64(0.1), Max=1e40))
    info = inspect(op).info
    assert info.floats["Min"] == np.float32(0.1)
    assert np.isinf(info.floats["Max"])
    assert info.attributes == {"Min": np.float32(0.1), "Max": np.float32(np.inf)}
    assert all(type(value) is np.float32 for value in info.attributes.values())


@pytest.mark.parametrize("sizes, strides, aliases", [
    ((2, 2), (0, 1), True), ((2, 3), (2, 1), True), ((2, 3), (3, 1), False), ((2, 3), (1, 2), False),
    ((3, 2), (2, 3), True),  # injective (0,3,2,5,4,7) but interleaved: the cheap check rejects it (documented)
    ((1, 3, 5, 5), (75, 1, 15, 3), False),  # NHWC
    ((2, 3), (4, 1), False),  # padded rows
    ((1, 4), (0, 1), False),  # stride of a size-1 dimension is irrelevant
])
def test_output_strides_that_may_alias_are_rejected(sizes, strides, aliases):
    device = dml_device()
    out = tensor(F32, sizes, strides)
    desc = clip(tensor(F32, sizes), out)
    if aliases:
        assert rejected(device, desc) == (
            f"OutputTensor.Strides {{{','.join(map(str, strides))}}} with Sizes {{{','.join(map(str, sizes))}}} can make "
            "two elements share an address; dmlemu requires each output element to have its own address.")
    else:
        output = inspect(device.CreateOperator(desc)).info.outputs[0]
        assert (output.sizes, output.strides) == (sizes, strides)
    # Inputs may broadcast freely.
    zeros = tuple(0 for _ in sizes)
    info = inspect(device.CreateOperator(clip(tensor(F32, sizes, zeros), tensor(F32, sizes)))).info
    assert (info.inputs[0].sizes, info.inputs[0].strides, info.outputs[0].strides) == (sizes, zeros, None)


def test_guaranteed_alignment_accepted_values():
    device = dml_device()
    for alignment in (0, 4, 16, 256):
        assert inspect(device.CreateOperator(clip(_buffer(GuaranteedBaseOffsetAlignment=alignment)))).info.inputs[
            0].alignment == alignment


# ---- removal and the debug layer --------------------------------------------------------------------
def test_debug_layer_reports_hresult_failures(capsys):
    device = dml_device(DML_FEATURE_LEVEL_2_0, flags=DML_CREATE_DEVICE_FLAG_DEBUG)
    rejected(device, unary(DML_OPERATOR_ELEMENT_WISE_THRESHOLD, tensor(I32)))
    assert capsys.readouterr().err == (
        "[DIRECTML ERROR]: IDMLDevice1.CreateOperator: InputTensor.DataType is DML_TENSOR_DATA_TYPE_INT32; "
        "DML_FEATURE_LEVEL_2_0 allows FLOAT32, FLOAT16 for InputTensor of DML_OPERATOR_ELEMENT_WISE_THRESHOLD.\n")
    device.SetMuteDebugOutput(True)
    rejected(device, unary(DML_OPERATOR_ELEMENT_WISE_THRESHOLD, tensor(I32)))
    assert capsys.readouterr().err == ""
    assert len(inspect(device).debug_messages) == 2   # muted, the debug layer still keeps what it would have printed


def test_no_debug_messages_without_the_flag(capsys):
    device = dml_device(DML_FEATURE_LEVEL_2_0)
    rejected(device, unary(DML_OPERATOR_ELEMENT_WISE_THRESHOLD, tensor(I32)))
    assert capsys.readouterr().err == ""


def test_removed_device_fails_hresult_methods():
    device = dml_device()
    device.CreateCommandRecorder().RecordDispatch(None, None, None)   # void-method misuse removes the device
    assert device.GetDeviceRemovedReason() == E_INVALIDARG
    with pytest.raises(HResultError) as info:
        device.CreateOperator(clip(tensor()))
    assert info.value.hresult == DXGI_ERROR_DEVICE_REMOVED
    assert info.value.message == ("IDMLDevice1.CreateOperator failed: the DirectML device was removed earlier "
                                  "(E_INVALIDARG): IDMLCommandRecorder.RecordDispatch: commandList is None; it must be "
                                  "an ID3D12GraphicsCommandList.")
