"""QUANTIZE_LINEAR, DEQUANTIZE_LINEAR and QUANTIZED_LINEAR_ADD: the rules pinned by value, every data type
combination their FL6.4 tables allow with and without the optional zero points, scales and zero points
broadcast through strides, and the mirror end to end (a left-out zero point bound as DML_BINDING_TYPE_NONE).

The generic tables of tests/kernels/test_element_wise_ops.py run these operators too (special values, ranks 1 to 8,
strides, hypothesis draws of types, widths and left-out zero points); here the values the rules give are
written out, so that the kernel and the golden model cannot agree on a wrong rule.
"""
import numpy as np
import pytest

from dmlemu import golden
from dmlemu.direct_run import DirectRun
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.directml import inspect
from dmlemu.directml import enums, structs
from dmlemu.errors import E_INVALIDARG, HResultError
from dmlemu.gpu import Gpu
from dmlemu.kernels.driver import TensorSpec
from dmlemu.kernels.element_wise_ops import OPERATORS
from dmlemu.presets import TEACHING
from mirror_rig import MirrorRig, buffer_binding, removal, same_bits
from element_wise_cases import check_operator, random_values, seeded

Q, DQ, QLA = "ELEMENT_WISE_QUANTIZE_LINEAR", "ELEMENT_WISE_DEQUANTIZE_LINEAR", "ELEMENT_WISE_QUANTIZED_LINEAR_ADD"


def kernel(name, types, inputs, sizes):
    """The kernel's output for `inputs` (None: a left-out optional tensor; an input of another shape holds one
    element per dimension of size 1, which the kernel broadcasts through stride 0), checked against the golden
    model bit for bit."""
    specs, buffers = [], []
    for dt, x in zip(types, list(inputs) + ["output"]):
        if x is None:
            specs.append(None)
            buffers.append(np.full(64, 0xA5, np.uint8))   # garbage the kernel must not read
            continue
        own = tuple(sizes) if isinstance(x, str) else (1,) * (len(sizes) - np.ndim(x)) + np.shape(x)
        nbytes = golden.calc_buffer_tensor_size(dt, own, None)
        specs.append(TensorSpec(dt, own, None, nbytes))
        buf = np.zeros(nbytes + 16, np.uint8)
        if not isinstance(x, str):
            golden.scatter(buf, 0, np.asarray(x, golden.DATA_TYPES[dt]).reshape(own), None)
        buffers.append(buf)
    run = DirectRun(Gpu(TEACHING, wave_width=8, timing=False), name, specs, buffers)
    stats = run.dispatch()
    assert stats.oob_reads == 0 and stats.oob_writes == 0
    got = golden.gather(run.allocations[-1].data, 0, golden.DATA_TYPES[types[-1]], tuple(sizes), None)
    want = golden.run(name, [None if x is None else np.asarray(x, golden.DATA_TYPES[dt]) for dt, x in
                             zip(types, inputs)], output_type=types[-1])
    same_bits(got, np.asarray(want).astype(got.dtype).reshape(sizes), name)
    return got


INT8_EDGES = np.array([-2.5, -1.5, -0.5, -0.0, 0.5, 1.5, 2.5, 3.5, 126.5, 127.5, -128.5, -129.5, np.inf, -np.inf,
                       np.nan, 1e30, -1e30, 126.49999], np.float32)
INT8_WANT = [-2, -2, 0, 0, 0, 2, 2, 4, 126, 127, -128, -128, 127, -128, 0, 127, -128, 126]


@pytest.mark.parametrize("data_type", ["FLOAT32", "FLOAT16"])
def test_quantize_rounds_halves_to_even_and_saturates(data_type):
    with np.errstate(over="ignore"):
        x = INT8_EDGES.astype(golden.DATA_TYPES[data_type])   # FLOAT16: +-1e30 -> +-inf, saturating alike
    one = np.ones_like(x)
    got = kernel(Q, (data_type, data_type, "INT8", "INT8"), [x, one, None], x.shape)
    assert got.tolist() == INT8_WANT
    # UINT8 with a zero point: round first, then add it, then saturate
    x = np.array([-3.5, 252.5, 253.5, -2.5, -7.0, 0.25], np.float32).astype(golden.DATA_TYPES[data_type])
    got = kernel(Q, (data_type, data_type, "UINT8", "UINT8"), [x, np.ones_like(x), np.full(x.shape, 3, np.uint8)],
                 x.shape)
    assert got.tolist() == [0, 255, 255, 1, 0, 3]


def test_quantize_divides_rather_than_multiplying_by_the_reciprocal():
    """x / scale is the IEEE quotient, correctly rounded: 484.79105 / 8.287026 rounds to 58.5, a tie (-> 58),
    where x * (1 / scale) gives 58.500004 (-> 59) and -406.5558 / 7.894287 gives -51.5 (-> -52) where the
    reciprocal gives -51.499996 (-> -51); a scale of 0 gives +-inf (saturating) or NaN (-> 0)."""
    x = np.array([484.79105, -406.5558, 3.0, 5.0, -5.0, 0.0, np.nan], np.float32)
    s = np.array([8.287026, 7.894287, 6.0, 0.0, 0.0, 0.0, 1.0], np.float32)
    got = kernel(Q, ("FLOAT32", "FLOAT32", "INT8", "INT8"), [x, s, np.zeros(7, np.int8)], x.shape)
    assert got.tolist() == [58, -52, 0, 127, -128, 0, 0]


def test_quantize_int32_input_is_rounded_to_float32_first():
    x = np.array([16777217, -16777217, 1000, -1000, 2 ** 31 - 1, -2 ** 31, 255], np.int32)
    s = np.array([131072.0, 131072.0, 8.0, 8.0, 2.0 ** 24, 2.0 ** 24, 2.0], np.float32)
    got = kernel(Q, ("INT32", "FLOAT32", "UINT8", "UINT8"), [x, s, np.full(7, 100, np.uint8)], x.shape)
    # 16777217 -> 16777216.0, / 2^17 = 128 (+100 = 228); 1000 / 8 = 125 (+100 = 225 ); 2^31 / 2^24 = 128 -> 228
    assert got.tolist() == [228, 0, 225, 0, 228, 0, 228]


def test_dequantize_takes_the_difference_exactly_even_for_32_bit_types():
    x = np.array([-2 ** 31, 2 ** 31 - 1, 0, 16777217, 5], np.int32)
    zp = np.array([2 ** 31 - 1, -2 ** 31, -2 ** 31, 0, 5], np.int32)
    one = np.ones(5, np.float32)
    got = kernel(DQ, ("INT32", "FLOAT32", "INT32", "FLOAT32"), [x, one, zp], x.shape)
    assert got.tolist() == [-4294967296.0, 4294967296.0, 2147483648.0, 16777216.0, 0.0]
    got = kernel(DQ, ("UINT32", "FLOAT32", "UINT32", "FLOAT32"),
                 [np.array([0, 4294967295, 7], np.uint32), np.ones(3, np.float32),
                  np.array([4294967295, 0, 9], np.uint32)], (3,))
    assert got.tolist() == [-4294967296.0, 4294967296.0, -2.0]
    half = kernel(DQ, ("INT16", "FLOAT16", "INT16", "FLOAT16"),
                  [np.array([32767, -32768, 3, 3, 1], np.int16), np.array([4, 4, np.inf, 0.1, np.nan], np.float16),
                   np.array([-32768, 32767, 3, 0, 1], np.int16)], (5,))
    # 65535 * 4 overflows FLOAT16; 0 * inf is NaN (canonical 0x7E00); 3 * float16(0.1) is rounded in FLOAT32
    # and again to FLOAT16; 0 * NaN is NaN
    assert half.view(np.uint16).tolist() == [0x7C00, 0xFC00, 0x7E00,
                                             int(np.float16(np.float32(3) * np.float32(np.float16(0.1)))
                                                 .view(np.uint16)), 0x7E00]


def test_quantized_linear_add_by_value():
    a = np.array([10, -10, 127, -128, 0], np.int8)
    b = np.array([3, 250, 255, 0, 128], np.uint8)
    scalar = lambda v, t: np.array([[v]], t)
    # AValue = (a - 2) * 0.5, BValue = (b - 128) * 0.25; (AValue + BValue) / 0.5 + 7, rounded half to even
    got = kernel(QLA, ("INT8", "FLOAT32", "INT8", "UINT8", "FLOAT32", "UINT8", "FLOAT32", "INT8", "INT8"),
                 [a.reshape(1, 5), scalar(0.5, np.float32), scalar(2, np.int8), b.reshape(1, 5),
                  scalar(0.25, np.float32), scalar(128, np.uint8), scalar(0.5, np.float32), scalar(7, np.int8)], (1, 5))
    a_value, b_value = (a.astype(np.float64) - 2) * 0.5, (b.astype(np.float64) - 128) * 0.25
    want = np.clip(np.round((a_value + b_value) / 0.5) + 7, -128, 127)   # np.round: halves to even
    assert got.reshape(-1).tolist() == want.tolist()
    # every zero point left out: 0
    got = kernel(QLA, ("UINT8", "FLOAT32", "UINT8", "UINT8", "FLOAT32", "UINT8", "FLOAT32", "UINT8", "UINT8"),
                 [np.array([[1, 3, 200]], np.uint8), scalar(1.0, np.float32), None, np.array([[2, 2, 100]], np.uint8),
                  scalar(0.5, np.float32), None, scalar(2.0, np.float32), None], (1, 3))
    assert got.reshape(-1).tolist() == [1, 2, 125]   # (1 + 1) / 2 = 1; (3 + 1) / 2 = 2; (200 + 50) / 2 = 125


COMBOS = [(name, combo, absent) for name in (Q, DQ, QLA) for combo in OPERATORS[name].type_combos
          for absent in ((), OPERATORS[name].optional)]


@pytest.mark.parametrize("name, combo, absent", COMBOS)
def test_every_type_combination_with_and_without_zero_points(name, combo, absent):
    """Every data type tuple the FL6.4 tables allow (QUANTIZED_LINEAR_ADD: A, B and the output each INT8 or
    UINT8), random values with special ones mixed in, strided, with the zero points present or left out."""
    rng = seeded("combos", name, combo, absent)
    sizes = [3, 2, 5]
    strides = [[1, 15, 3], None, None, None] if name != QLA else [[1, 15, 3]] + [None] * 8
    check_operator(name, combo[0], sizes, rng=rng, types=combo, absent=absent, strides=strides,
                   gpu=Gpu(TEACHING, wave_width=16, timing=False), width=16)


@pytest.mark.parametrize("name, data_type, output_type", [(Q, "FLOAT16", "INT8"), (Q, "INT32", "UINT8"),
                                                          (DQ, "UINT16", "FLOAT16"), (DQ, "INT8", "FLOAT32")])
def test_per_channel_and_per_tensor_scales_broadcast_through_strides(name, data_type, output_type):
    """NCHW data with a scale and zero point per channel (strides {0, 1, 0, 0}) and per tensor (all 0)."""
    rng = seeded("broadcast", name, data_type)
    sizes = [2, 3, 4, 5]
    for scale_strides in ([0, 1, 0, 0], [0, 0, 0, 0]):
        check_operator(name, data_type, sizes, rng=rng, output_type=output_type,
                       strides=[None, scale_strides, scale_strides, None], width=32,
                       gpu=Gpu(TEACHING, wave_width=32, timing=False))


# ---- the mirror ----------------------------------------------------------------------------------------------------
def tensor(type_name, sizes, strides=None):
    data_type = getattr(DML_TENSOR_DATA_TYPE, "DML_TENSOR_DATA_TYPE_" + type_name)
    return DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=data_type, Flags=DML_TENSOR_FLAG_NONE, Sizes=list(sizes), Strides=strides,
        TotalTensorSizeInBytes=DMLCalcBufferTensorSize(data_type, len(sizes), list(sizes), strides)))


def mirror_run(rig, name, fields, inputs, none_binding=None):
    """One operator through the mirror: each input tensor of `fields` (a None field: left out, bound as
    DML_BINDING_TYPE_NONE, or as `none_binding` when given), the output read back at its strides."""
    desc_type = getattr(structs, f"DML_{name}_OPERATOR_DESC")
    desc = DML_OPERATOR_DESC(Type=getattr(enums, f"DML_OPERATOR_{name}"), Desc=desc_type(**fields))
    compiled = rig.compile(desc)
    rig.initialize(compiled)
    rig.execute()
    bindings, keep = [], []
    for field, array in zip(OPERATORS[name].tensors[:-1], inputs):
        desc_ = fields[field]
        if desc_ is None:
            bindings.append(none_binding or DML_BINDING_DESC(Type=DML_BINDING_TYPE_NONE, Desc=None))
            continue
        t = desc_.Desc
        data = np.zeros(t.TotalTensorSizeInBytes, np.uint8)
        golden.scatter(data, 0, np.asarray(array), t.Strides)
        resource = rig.buffer(t.TotalTensorSizeInBytes)
        keep.append(rig.record_upload(resource, data))
        bindings.append(buffer_binding(resource))
    out = fields["OutputTensor"].Desc
    output = rig.buffer(out.TotalTensorSizeInBytes)
    rig.execute()
    table = rig.table(compiled)
    table.BindInputs(bindings)
    table.BindOutputs([buffer_binding(output)])
    rig.recorder.RecordDispatch(rig.list, compiled, table)
    rig.execute()
    name_ = DML_TENSOR_DATA_TYPE(out.DataType).name[len("DML_TENSOR_DATA_TYPE_"):]
    return golden.gather(rig.read(output), 0, golden.DATA_TYPES[name_], tuple(out.Sizes), out.Strides)


@pytest.fixture(scope="module")
def rig():
    return MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_NONE, timing=False)


SIZES = (2, 3, 4)


@pytest.mark.parametrize("with_zero_point", [True, False])
def test_quantize_and_dequantize_through_the_mirror(rig, with_zero_point):
    rng = seeded("mirror-quantize", with_zero_point)
    x = random_values(rng, np.float16, SIZES)
    scale = (rng.random((1, 3, 1)) + 0.01).astype(np.float16)     # one per channel: strides {0, 1, 0}
    zp = rng.integers(-128, 128, (1, 3, 1)).astype(np.int8)
    per_channel = [0, 1, 0]
    fields = dict(InputTensor=tensor("FLOAT16", SIZES), ScaleTensor=tensor("FLOAT16", SIZES, per_channel),
                  ZeroPointTensor=tensor("INT8", SIZES, per_channel) if with_zero_point else None,
                  OutputTensor=tensor("INT8", SIZES))
    scale_full, zp_full = np.broadcast_to(scale, SIZES), np.broadcast_to(zp, SIZES)
    got = mirror_run(rig, Q, fields, [x, scale_full, zp_full if with_zero_point else None])
    want = golden.quantize_linear(x, scale_full, zp_full if with_zero_point else None, "INT8")
    same_bits(got, want, "QUANTIZE_LINEAR")
    q = random_values(rng, np.int32, SIZES)
    fields = dict(InputTensor=tensor("INT32", SIZES), ScaleTensor=tensor("FLOAT16", SIZES, per_channel),
                  ZeroPointTensor=tensor("INT32", SIZES, [0, 0, 0]) if with_zero_point else None,
                  OutputTensor=tensor("FLOAT16", SIZES))
    zp32 = np.full(SIZES, -2 ** 31, np.int32)
    got = mirror_run(rig, DQ, fields, [q, scale_full, zp32 if with_zero_point else None])
    same_bits(got, golden.dequantize_linear(q, scale_full, zp32 if with_zero_point else None, "FLOAT16"),
              "DEQUANTIZE_LINEAR")


def test_quantized_linear_add_through_the_mirror_with_one_zero_point_left_out(rig):
    rng = seeded("mirror-qla")
    a, b = random_values(rng, np.uint8, SIZES), random_values(rng, np.int8, SIZES)
    one = (1, 1, 1)
    scalars = [np.array(v, dtype=t).reshape(one) for v, t in ((0.02, np.float32), (128, np.uint8), (0.05, np.float32),
                                                               (0.1, np.float32), (-3, np.int8))]
    fields = dict(ATensor=tensor("UINT8", SIZES), AScaleTensor=tensor("FLOAT32", one),
                  AZeroPointTensor=tensor("UINT8", one), BTensor=tensor("INT8", SIZES),
                  BScaleTensor=tensor("FLOAT32", one), BZeroPointTensor=None, OutputScaleTensor=tensor("FLOAT32", one),
                  OutputZeroPointTensor=tensor("INT8", one), OutputTensor=tensor("INT8", SIZES))
    inputs = [a, scalars[0], scalars[1], b, scalars[2], None, scalars[3], scalars[4]]
    got = mirror_run(rig, QLA, fields, inputs)
    same_bits(got, golden.quantized_linear_add(*inputs, output_type="INT8"), "QUANTIZED_LINEAR_ADD")


def test_a_buffer_bound_for_a_left_out_zero_point_removes_the_device():
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_NONE, timing=False)
    fields = dict(InputTensor=tensor("FLOAT32", SIZES), ScaleTensor=tensor("FLOAT32", SIZES, [0, 0, 0]),
                  ZeroPointTensor=None, OutputTensor=tensor("UINT8", SIZES))
    stray = buffer_binding(rig.buffer(256))
    try:
        mirror_run(rig, Q, fields, [np.zeros(SIZES, np.float32), np.ones(SIZES, np.float32), None],
                   none_binding=stray)
    except HResultError:
        pass   # later calls on the removed device answer DXGI_ERROR_DEVICE_REMOVED
    reason, sentence = removal(rig.dml)
    assert reason != 0
    assert sentence == ("IDMLBindingTable.BindInputs: BindInputs[2] (ZeroPointTensor) is DML_BINDING_TYPE_BUFFER; "
                        "ZeroPointTensor was left out of the operator desc (None), so it must be DML_BINDING_TYPE_NONE.")


def test_a_left_out_zero_point_below_feature_level_6_2_is_e_invalidarg():
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_NONE, feature_level=DML_FEATURE_LEVEL_6_1, timing=False)
    desc = DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR,
                             Desc=DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC(
        InputTensor=tensor("FLOAT32", SIZES), ScaleTensor=tensor("FLOAT32", SIZES), ZeroPointTensor=None,
        OutputTensor=tensor("UINT8", SIZES)))
    with pytest.raises(HResultError) as caught:
        rig.dml.CreateOperator(desc)
    assert caught.value.hresult == E_INVALIDARG
    assert "ZeroPointTensor is None" in str(caught.value) and "DML_FEATURE_LEVEL_6_2" in str(caught.value)


def graph_run(rig, nodes, edges, graph_inputs, output_desc):
    """A two-node graph through IDMLDevice1.CompileGraph (fused where graph.py's partition allows): `nodes` the
    operator descs, `edges` (graph input, node, node input) for each graph input, node 0 feeding node 1's input
    0, node 1's output the graph output. Returns (the output, the compiled graph)."""
    E = lambda kind, desc, **k: DML_GRAPH_EDGE_DESC(Type=kind, Desc=desc(**k))
    operators = [rig.dml.CreateOperator(d) for d in nodes]
    desc = DML_GRAPH_DESC(
        InputCount=len(graph_inputs), OutputCount=1,
        Nodes=[DML_GRAPH_NODE_DESC(Type=DML_GRAPH_NODE_TYPE_OPERATOR,
                                   Desc=DML_OPERATOR_GRAPH_NODE_DESC(Operator=o, Name=f"n{k}"))
               for k, o in enumerate(operators)],
        InputEdges=[E(DML_GRAPH_EDGE_TYPE_INPUT, DML_INPUT_GRAPH_EDGE_DESC, GraphInputIndex=g, ToNodeIndex=n,
                      ToNodeInputIndex=i) for g, n, i in edges],
        OutputEdges=[E(DML_GRAPH_EDGE_TYPE_OUTPUT, DML_OUTPUT_GRAPH_EDGE_DESC, FromNodeIndex=1, FromNodeOutputIndex=0,
                       GraphOutputIndex=0)],
        IntermediateEdges=[E(DML_GRAPH_EDGE_TYPE_INTERMEDIATE, DML_INTERMEDIATE_GRAPH_EDGE_DESC, FromNodeIndex=0,
                             FromNodeOutputIndex=0, ToNodeIndex=1, ToNodeInputIndex=0)])
    graph = rig.dml.CompileGraph(desc, DML_EXECUTION_FLAG_NONE)
    rig.initialize(graph)
    rig.execute()
    bindings, keep = [], []
    for desc_, array in graph_inputs:
        t = desc_.Desc
        data = np.zeros(t.TotalTensorSizeInBytes, np.uint8)
        golden.scatter(data, 0, np.asarray(array), t.Strides)
        resource = rig.buffer(t.TotalTensorSizeInBytes)
        keep.append(rig.record_upload(resource, data))
        bindings.append(buffer_binding(resource))
    out = output_desc.Desc
    output = rig.buffer(out.TotalTensorSizeInBytes)
    rig.execute()
    table = rig.table(graph)
    temporary = graph.GetBindingProperties().TemporaryResourceSize   # the intermediate, when not fused
    if temporary:
        table.BindTemporaryResource(buffer_binding(rig.buffer(max(256, temporary))))
    table.BindInputs(bindings)
    table.BindOutputs([buffer_binding(output)])
    rig.recorder.RecordDispatch(rig.list, graph, table)
    rig.execute()
    name_ = DML_TENSOR_DATA_TYPE(out.DataType).name[len("DML_TENSOR_DATA_TYPE_"):]
    return golden.gather(rig.read(output), 0, golden.DATA_TYPES[name_], tuple(out.Sizes), out.Strides), graph


def test_dequantize_then_relu_and_identity_then_quantize_fuse_bit_exact(rig):
    """Graph nodes of one Sizes fuse into one kernel built from each node's own variant (fusion.py): the
    quantization bodies run as stages too, a scale broadcast through stride 0 among the group's tensors. A
    left-out zero point keeps DEQUANTIZE_LINEAR a dispatch of its own (graph.py's partition), bit-exact too."""
    rng = seeded("graph-quantize")
    x8 = random_values(rng, np.uint8, SIZES)
    scale = np.full(SIZES, 0.05, np.float32)
    zp = np.full(SIZES, 7, np.uint8)
    flat = [0, 0, 0]
    dq = DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_DEQUANTIZE_LINEAR,
                           Desc=DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC(
        InputTensor=tensor("UINT8", SIZES), ScaleTensor=tensor("FLOAT32", SIZES, flat),
        ZeroPointTensor=tensor("UINT8", SIZES, flat), OutputTensor=tensor("FLOAT32", SIZES)))
    relu = DML_OPERATOR_DESC(Type=DML_OPERATOR_ACTIVATION_RELU, Desc=DML_ACTIVATION_RELU_OPERATOR_DESC(
        InputTensor=tensor("FLOAT32", SIZES), OutputTensor=tensor("FLOAT32", SIZES)))
    got, graph = graph_run(rig, [dq, relu], [(0, 0, 0), (1, 0, 1), (2, 0, 2)],
                           [(tensor("UINT8", SIZES), x8), (tensor("FLOAT32", SIZES, flat), scale),
                            (tensor("UINT8", SIZES, flat), zp)], tensor("FLOAT32", SIZES))
    assert [d.nodes for d in inspect(graph).dispatches] == [(0, 1)]   # one fused dispatch
    same_bits(got, golden.activation("RELU", golden.dequantize_linear(x8, scale, zp, "FLOAT32")), "DQ -> RELU")
    dq.Desc.ZeroPointTensor = None
    got, graph = graph_run(rig, [dq, relu], [(0, 0, 0), (1, 0, 1)],
                           [(tensor("UINT8", SIZES), x8), (tensor("FLOAT32", SIZES, flat), scale)],
                           tensor("FLOAT32", SIZES))
    same_bits(got, golden.activation("RELU", golden.dequantize_linear(x8, scale, None, "FLOAT32")), "DQ -> RELU")
    x = random_values(rng, np.float32, SIZES)
    identity = DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_IDENTITY, Desc=DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC(
        InputTensor=tensor("FLOAT32", SIZES), OutputTensor=tensor("FLOAT32", SIZES),
        ScaleBias=DML_SCALE_BIAS(Scale=3.0, Bias=-0.5)))
    q = DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR,
                          Desc=DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC(
        InputTensor=tensor("FLOAT32", SIZES), ScaleTensor=tensor("FLOAT32", SIZES, flat),
        ZeroPointTensor=tensor("INT8", SIZES, flat), OutputTensor=tensor("INT8", SIZES)))
    zp8 = np.full(SIZES, -3, np.int8)
    got, graph = graph_run(rig, [identity, q], [(0, 0, 0), (1, 1, 1), (2, 1, 2)],
                           [(tensor("FLOAT32", SIZES), x), (tensor("FLOAT32", SIZES, flat), scale),
                            (tensor("INT8", SIZES, flat), zp8)], tensor("INT8", SIZES))
    assert [d.nodes for d in inspect(graph).dispatches] == [(0, 1)]
    same_bits(got, golden.quantize_linear(golden.identity(x, (3.0, -0.5)), scale, zp8, "INT8"), "IDENTITY -> Q")


def test_run_operator_takes_none_for_a_left_out_zero_point():
    """dmlemu.run_operator: one input per input tensor, None for a left-out optional one (bound as NONE)."""
    import dmlemu
    desc = DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR,
                             Desc=DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC(
        InputTensor=tensor("FLOAT32", SIZES), ScaleTensor=tensor("FLOAT32", SIZES, [0, 0, 0]), ZeroPointTensor=None,
        OutputTensor=tensor("UINT8", SIZES)))
    x, scale = np.arange(24, dtype=np.float32).reshape(SIZES), np.full(SIZES, 2, np.float32)
    (got,) = dmlemu.run_operator(desc, [x, scale, None])
    assert got.reshape(-1)[:8].tolist() == [0, 0, 1, 2, 2, 2, 3, 4]   # x / 2, halves to even
    with pytest.raises(ValueError, match=r"ZeroPointTensor was left out of the desc \(None\); its input must be None, "
                                         r"not a ndarray"):
        dmlemu.run_operator(desc, [x, scale, x])
