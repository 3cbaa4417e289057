"""End to end through the mirror: DirectML operators on the emulated GPU, bit for bit against golden.

Every run goes the whole DirectML way (dmlemu.convenience.run_operator is built on the mirror:
devices, upload, binding table, RecordDispatch, ExecuteCommandLists, fence, readback); results are
compared with dmlemu.golden as unsigned integers, so NaN payloads, -0 and rounding all count.
"""

import numpy as np
import pytest

from dmlemu import golden
from dmlemu.convenience import run_operator
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.errors import E_INVALIDARG, HResultError, S_OK
from dmlemu.presets import IRIS_XE, TEACHING
from mirror_rig import BITS, buffer_binding, same_bits

TYPE_OF = {name: getattr(DML_TENSOR_DATA_TYPE, "DML_TENSOR_DATA_TYPE_" + name) for name in golden.DATA_TYPES}
FLOAT_TYPES = ("FLOAT32", "FLOAT16")
INT_TYPES = ("INT8", "INT16", "INT32", "UINT8", "UINT16", "UINT32")
INT64_TYPES = ("INT64", "UINT64")


def tensor(type_name, sizes, strides=None, total=None, alignment=0):
    data_type = TYPE_OF[type_name]
    if total is None:
        total = DMLCalcBufferTensorSize(data_type, len(sizes), list(sizes), strides)
    return DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=data_type, Flags=DML_TENSOR_FLAG_NONE, Sizes=list(sizes), Strides=strides,
        TotalTensorSizeInBytes=total, GuaranteedBaseOffsetAlignment=alignment))


def sample(type_name, shape, seed):
    """Random values with the special ones (NaN, +-inf, +-0, subnormals, extremes) mixed in."""
    rng = np.random.default_rng(seed)
    dtype = golden.DATA_TYPES[type_name]
    count = int(np.prod(shape))
    if dtype.kind == "f":
        bits = BITS[dtype.itemsize]
        values = rng.integers(0, np.iinfo(bits).max, count, dtype=bits, endpoint=True).view(dtype)
        finfo = np.finfo(dtype)
        specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, finfo.tiny / 2, -finfo.tiny / 4, 1.0, -1.0,
                             0.5, 2.5, finfo.max, finfo.min], dtype=dtype)
        values[:min(count, specials.size)] = specials[:count]
        small = rng.uniform(-4, 4, count).astype(dtype)
        values = np.where(rng.random(count) < 0.5, small, values)
    else:
        info = np.iinfo(dtype)
        values = rng.integers(info.min, info.max, count, dtype=dtype, endpoint=True)
        values[:2] = (info.min, info.max)[:count]
    return values.reshape(shape)


# ---- CLIP / THRESHOLD / IDENTITY over every data type ---------------------------------------------
@pytest.mark.parametrize("type_name", FLOAT_TYPES + INT_TYPES + INT64_TYPES)
def test_clip_every_type(type_name):
    shape = (2, 3, 5, 7)
    x = sample(type_name, shape, 1)
    t = tensor(type_name, shape)
    lo, hi = (-1.5, 2.25) if type_name in FLOAT_TYPES else (-37.9, 100.7)
    [y] = run_operator(DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(InputTensor=t, OutputTensor=t, Min=lo, Max=hi), [x])
    same_bits(y, golden.clip(x, np.float32(lo), np.float32(hi)))


@pytest.mark.parametrize("type_name", FLOAT_TYPES + INT_TYPES)
def test_threshold_every_type(type_name):
    shape = (1, 4, 3, 9)
    x = sample(type_name, shape, 2)
    t = tensor(type_name, shape)
    [y] = run_operator(DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC(InputTensor=t, OutputTensor=t, Min=-3.5), [x])
    same_bits(y, golden.threshold(x, np.float32(-3.5)))


@pytest.mark.parametrize("type_name", FLOAT_TYPES + INT_TYPES + INT64_TYPES + ("FLOAT64",))
def test_identity_every_type(type_name):
    shape = (3, 1, 4, 5)
    x = sample(type_name, shape, 3)
    t = tensor(type_name, shape)
    [y] = run_operator(DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC(InputTensor=t, OutputTensor=t), [x])
    same_bits(y, golden.identity(x))


@pytest.mark.parametrize("type_name", FLOAT_TYPES + INT_TYPES + INT64_TYPES + ("FLOAT64",))
def test_if_every_type(type_name):
    shape = (2, 2, 3, 5)
    rng = np.random.default_rng(4)
    condition = rng.integers(0, 4, shape, dtype=np.uint8)  # any non-zero byte selects A
    a, b = sample(type_name, shape, 5), sample(type_name, shape, 6)
    c_t, t = tensor("UINT8", shape), tensor(type_name, shape)
    [y] = run_operator(DML_ELEMENT_WISE_IF_OPERATOR_DESC(ConditionTensor=c_t, ATensor=t, BTensor=t, OutputTensor=t),
                       [condition, a, b])
    same_bits(y, golden.if_(condition, a, b))


# ---- ScaleBias and half precision: all 65,536 FLOAT16 patterns ---------------------------------------
@pytest.mark.parametrize("flags", [DML_EXECUTION_FLAG_NONE, DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION])
@pytest.mark.parametrize("op", ["CLIP", "THRESHOLD", "IDENTITY"])
def test_float16_sweep_with_scale_bias(op, flags):
    x = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    t = tensor("FLOAT16", x.shape)
    scale_bias = DML_SCALE_BIAS(Scale=3.0, Bias=-0.1)
    half = bool(flags & DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION)
    sb = (np.float32(3.0), np.float32(-0.1))
    if op == "CLIP":
        desc = DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(InputTensor=t, OutputTensor=t, ScaleBias=scale_bias, Min=-60000.0,
                                                   Max=7.3)
        expected = golden.clip(x, np.float32(-60000.0), np.float32(7.3), scale_bias=sb, half_precision=half)
    elif op == "THRESHOLD":
        desc = DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC(InputTensor=t, OutputTensor=t, ScaleBias=scale_bias, Min=-0.3)
        expected = golden.threshold(x, np.float32(-0.3), scale_bias=sb, half_precision=half)
    else:
        desc = DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC(InputTensor=t, OutputTensor=t, ScaleBias=scale_bias)
        expected = golden.identity(x, scale_bias=sb, half_precision=half)
    [y] = run_operator(desc, [x], flags=flags)
    same_bits(y, expected)


def test_float32_scale_bias():
    x = sample("FLOAT32", (4, 64), 7)
    t = tensor("FLOAT32", x.shape)
    desc = DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(InputTensor=t, OutputTensor=t, ScaleBias=DML_SCALE_BIAS(Scale=0.3, Bias=7.0),
                                               Min=-5.0, Max=1e30)
    [y] = run_operator(desc, [x])
    same_bits(y, golden.clip(x, np.float32(-5.0), np.float32(1e30), scale_bias=(np.float32(0.3), np.float32(7.0))))


# ---- layouts ----------------------------------------------------------------------------------------
def test_strided_layouts_nchw_to_nhwc_with_padding():
    sizes = (2, 3, 4, 5)
    x = sample("FLOAT32", sizes, 8)
    padded_in = tensor("FLOAT32", sizes, strides=[80, 24, 6, 1])           # rows padded to 6
    nhwc_out = tensor("FLOAT32", sizes, strides=[60, 1, 15, 3])            # channels innermost
    [y] = run_operator(DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC(InputTensor=padded_in, OutputTensor=nhwc_out), [x])
    same_bits(y, x)


def test_broadcast_input():
    sizes = (1, 8, 4, 4)
    bias = sample("FLOAT16", (8,), 9)
    x = np.broadcast_to(bias.reshape(1, 8, 1, 1), sizes)
    inp = tensor("FLOAT16", sizes, strides=[8, 1, 0, 0])
    out = tensor("FLOAT16", sizes)
    [y] = run_operator(DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC(InputTensor=inp, OutputTensor=out, Min=0.0), [x])
    same_bits(y, golden.threshold(np.ascontiguousarray(x), np.float32(0.0)))


def test_if_with_broadcast_condition_and_three_dims():
    sizes = (3, 4, 5)
    cond = np.array([1, 0, 7, 0, 1], dtype=np.uint8)
    a, b = sample("INT16", sizes, 10), sample("INT16", sizes, 11)
    c_t = tensor("UINT8", sizes, strides=[0, 0, 1])
    [y] = run_operator(DML_ELEMENT_WISE_IF_OPERATOR_DESC(ConditionTensor=c_t, ATensor=tensor("INT16", sizes),
                                                         BTensor=tensor("INT16", sizes), OutputTensor=tensor("INT16", sizes)),
                       [np.broadcast_to(cond, sizes), a, b])
    same_bits(y, golden.if_(np.broadcast_to(cond, sizes), a, b))


@pytest.mark.parametrize("adapter", [TEACHING, IRIS_XE])
def test_other_adapters(adapter):
    x = sample("FLOAT16", (1, 3, 7, 11), 12)
    t = tensor("FLOAT16", x.shape)
    [y] = run_operator(DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(InputTensor=t, OutputTensor=t, Min=-0.5, Max=0.5), [x],
                       adapter=adapter.key)
    same_bits(y, golden.clip(x, np.float32(-0.5), np.float32(0.5)))


def test_old_feature_level_runs_its_own_operators():
    x = sample("FLOAT32", (1, 1, 4, 4), 13)
    t = tensor("FLOAT32", x.shape)
    [y] = run_operator(DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC(InputTensor=t, OutputTensor=t, Min=0.0), [x],
                       feature_level=DML_FEATURE_LEVEL_1_0)
    same_bits(y, golden.threshold(x, np.float32(0.0)))
    with pytest.raises(HResultError) as info:
        run_operator(DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC(InputTensor=tensor("FLOAT32", (16,)),
                                                              OutputTensor=tensor("FLOAT32", (16,))),
                     [x.ravel()], feature_level=DML_FEATURE_LEVEL_2_1)
    assert info.value.hresult == E_INVALIDARG


# ---- the mirror by hand: offsets, in-place, several dispatches -----------------------------------------
@pytest.fixture
def rig(dml_rig):
    """The shared DirectML rig (tests/mirror_rig.py): default adapter, DML_CREATE_DEVICE_FLAG_DEBUG, a 16-slot heap."""
    return dml_rig


def test_in_place_clip_at_an_aligned_offset_then_identity_in_one_list(rig):
    x = sample("FLOAT32", (1, 2, 3, 4), 14)
    t = tensor("FLOAT32", x.shape, alignment=64)
    clip = rig.dml.CompileOperator(rig.dml.CreateOperator(DML_OPERATOR_DESC(
        Type=DML_OPERATOR_ELEMENT_WISE_CLIP, Desc=DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(
            InputTensor=t, OutputTensor=t, Min=-1.0, Max=1.0))), DML_EXECUTION_FLAG_NONE)
    copy = rig.dml.CompileOperator(rig.dml.CreateOperator(DML_OPERATOR_DESC(
        Type=DML_OPERATOR_ELEMENT_WISE_IDENTITY, Desc=DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC(
            InputTensor=t, OutputTensor=t))), DML_EXECUTION_FLAG_NONE)
    rig.initialize(clip, copy)

    work, out = rig.buffer(512), rig.buffer(512)
    upload = rig.buffer(512, D3D12_HEAP_TYPE_UPLOAD)
    upload.Map(0, None)[128:128 + 96] = x.view(np.uint8).ravel()
    rig.list.CopyBufferRegion(work, 128, upload, 128, 96)
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(work, D3D12_RESOURCE_STATE_COPY_DEST,
                                                                  D3D12_RESOURCE_STATE_UNORDERED_ACCESS)])
    clip_table = rig.table(clip, first=0)
    clip_table.BindInputs([buffer_binding(work, 128, 96)])
    clip_table.BindOutputs([buffer_binding(work, 128, 96)])  # in place
    rig.recorder.RecordDispatch(rig.list, clip, clip_table)
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.UAV(work)])
    copy_table = rig.table(copy, first=2)
    copy_table.BindInputs([buffer_binding(work, 128, 96)])
    copy_table.BindOutputs([buffer_binding(out, 192, 112)])
    rig.recorder.RecordDispatch(rig.list, copy, copy_table)
    readback = rig.buffer(512, D3D12_HEAP_TYPE_READBACK)
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(out, D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                                                  D3D12_RESOURCE_STATE_COPY_SOURCE)])
    rig.list.CopyResource(readback, out)
    rig.execute()
    assert rig.dml.GetDeviceRemovedReason() == S_OK
    data = readback.Map(0, None)
    same_bits(data[192:192 + 96].copy().view(np.float32).reshape(x.shape), golden.clip(x, np.float32(-1), np.float32(1)))
    assert not data[:192].any() and not data[192 + 96:].any()  # nothing written outside the output tensor


def test_initialization_survives_across_submissions_and_executes_repeatedly(rig):
    t = tensor("INT32", (4,))
    op = rig.dml.CompileOperator(rig.dml.CreateOperator(DML_OPERATOR_DESC(
        Type=DML_OPERATOR_ELEMENT_WISE_THRESHOLD,
        Desc=DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC(InputTensor=t, OutputTensor=t, Min=2.9))), 0)
    rig.initialize(op)
    rig.execute()
    assert rig.dml.GetDeviceRemovedReason() == S_OK   # initialized; no later submission initializes it again
    buf = rig.buffer(256)
    upload = rig.buffer(256, D3D12_HEAP_TYPE_UPLOAD)
    upload.Map(0, None)[:16] = np.array([-5, 1, 2, 9], np.int32).view(np.uint8)
    rig.list.CopyBufferRegion(buf, 0, upload, 0, 16)
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(buf, D3D12_RESOURCE_STATE_COPY_DEST,
                                                                  D3D12_RESOURCE_STATE_UNORDERED_ACCESS)])
    table = rig.table(op)
    table.BindInputs([buffer_binding(buf, 0, 16)])
    table.BindOutputs([buffer_binding(buf, 0, 16)])
    for _ in range(3):
        rig.recorder.RecordDispatch(rig.list, op, table)
        rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.UAV(buf)])
    readback = rig.buffer(256, D3D12_HEAP_TYPE_READBACK)
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(buf, D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                                                  D3D12_RESOURCE_STATE_COPY_SOURCE)])
    rig.list.CopyBufferRegion(readback, 0, buf, 0, 16)
    rig.execute()
    assert list(readback.Map(0, None)[:16].view(np.int32)) == [2, 2, 2, 9]  # Min 2.9 truncates to 2


def test_timestamps_bracket_a_dispatch(rig):
    t = tensor("FLOAT32", (1024,))
    op = rig.dml.CompileOperator(rig.dml.CreateOperator(DML_OPERATOR_DESC(
        Type=DML_OPERATOR_ELEMENT_WISE_IDENTITY, Desc=DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC(InputTensor=t, OutputTensor=t))), 0)
    rig.initialize(op)
    table = rig.table(op)
    a, b = rig.buffer(4096), rig.buffer(4096)
    table.BindInputs([buffer_binding(a, 0, 4096)])
    table.BindOutputs([buffer_binding(b, 0, 4096)])
    heap = rig.device.CreateQueryHeap(D3D12_QUERY_HEAP_DESC(Type=D3D12_QUERY_HEAP_TYPE_TIMESTAMP, Count=2))
    rig.list.EndQuery(heap, D3D12_QUERY_TYPE_TIMESTAMP, 0)
    rig.recorder.RecordDispatch(rig.list, op, table)
    rig.list.EndQuery(heap, D3D12_QUERY_TYPE_TIMESTAMP, 1)
    readback = rig.buffer(256, D3D12_HEAP_TYPE_READBACK)
    rig.list.ResolveQueryData(heap, D3D12_QUERY_TYPE_TIMESTAMP, 0, 2, readback, 0)
    rig.execute()
    ticks = readback.Map(0, None)[:16].view(np.uint64)
    assert ticks[1] > ticks[0]


# ---- convenience layer ---------------------------------------------------------------------------
def test_run_operator_accepts_a_dml_operator_desc_and_reshapes():
    x = np.arange(24, dtype=np.float32) - 12
    t = tensor("FLOAT32", (1, 2, 3, 4))
    desc = DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_CLIP,
                             Desc=DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(InputTensor=t, OutputTensor=t, Min=-2, Max=3))
    [y] = run_operator(desc, [x])
    assert y.shape == (1, 2, 3, 4)
    same_bits(y.ravel(), np.clip(x, -2, 3))


def test_run_operator_argument_errors():
    t = tensor("FLOAT32", (4,))
    desc = DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC(InputTensor=t, OutputTensor=t)
    with pytest.raises(TypeError, match="InputTensor is FLOAT32; the array given has dtype float64"):
        run_operator(desc, [np.zeros(4)])
    with pytest.raises(ValueError, match="takes 1 inputs"):
        run_operator(desc, [])
    with pytest.raises(ValueError, match="no adapter preset named 'nope'"):
        run_operator(desc, [np.zeros(4, np.float32)], adapter="nope")
    with pytest.raises(HResultError) as info:
        run_operator(DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(InputTensor=tensor("INT64", (4,)),
                                                         OutputTensor=tensor("INT64", (4,))),
                     [np.zeros(4, np.int64)], adapter=IRIS_XE)
    assert info.value.hresult == E_INVALIDARG
