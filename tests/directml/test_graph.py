"""IDMLDevice1.CompileGraph: validation sentences, binding, dispatch order and barriers, and results bit for
bit equal to running the same operators one by one through the mirror.

A graph here is built from `GraphSpec`: operator descs (or constant bytes) and edges as plain tuples,
turned into a DML_GRAPH_DESC by `graph_desc`. `run_graph` runs it the way a DirectML program does
(CompileGraph, an initializer dispatch with the DML-owned graph inputs, a binding table with inputs,
outputs, temporary and persistent resources, RecordDispatch, ExecuteCommandLists) and returns every graph
output's bytes; `run_one_by_one` runs each node alone in the graph's order (MirrorRig.run_operator), each
node's inputs read from the bytes the earlier nodes wrote (so a consumer that reads its producer's bytes
with other Sizes, Strides or DataType reads exactly what the graph's consumer reads). The property test
draws small random DAGs of whatever element-wise operators have kernels, and broken variants of them.
"""
import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dmlemu import golden
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.directml import inspect
from dmlemu.errors import E_INVALIDARG, HResultError, S_OK
from dmlemu.directml.graph import FUSED_LIVE_LIMIT, FUSED_NODE_LIMIT, FUSED_TENSOR_LIMIT, FUSED_UNIFORM_LIMIT
from dmlemu.kernels.driver import MAX_TENSORS, has_kernel
from dmlemu.kernels.fusion import MAX_UNIFORM
from dmlemu.traces import capture
from dmlemu.traces.recorder import MAX_NAME
from mirror_rig import MirrorRig, buffer_binding, removal, same_bits
from operator_cases import scaled

F32, F16, U8, U32 = (DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_UINT8,
                     DML_TENSOR_DATA_TYPE_UINT32)


# ---- building graphs ---------------------------------------------------------------------------------
def tensor(sizes, data_type=F32, strides=None, flags=DML_TENSOR_FLAG_NONE):
    sizes = list(sizes)
    total = DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides)
    return DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=data_type, Flags=flags, Sizes=sizes, Strides=strides, TotalTensorSizeInBytes=total))


def op(name, **fields):
    """A DML_OPERATOR_DESC of DML_OPERATOR_<name> with its desc's fields."""
    struct = globals()[f"DML_{name}_OPERATOR_DESC"]
    return DML_OPERATOR_DESC(Type=int(globals()[f"DML_OPERATOR_{name}"]), Desc=struct(**fields))


def clip(t, lo, hi, out=None):
    return op("ELEMENT_WISE_CLIP", InputTensor=t, OutputTensor=out or t, Min=lo, Max=hi)


def threshold(t, lo, out=None):
    return op("ELEMENT_WISE_THRESHOLD", InputTensor=t, OutputTensor=out or t, Min=lo)


def identity(t, out=None, scale_bias=None):
    sb = None if scale_bias is None else DML_SCALE_BIAS(Scale=scale_bias[0], Bias=scale_bias[1])
    return op("ELEMENT_WISE_IDENTITY", InputTensor=t, OutputTensor=out or t, ScaleBias=sb)


def if_(c, a, b, out=None):
    return op("ELEMENT_WISE_IF", ConditionTensor=c, ATensor=a, BTensor=b, OutputTensor=out or a)


@dataclasses.dataclass
class GraphSpec:
    """nodes: (DML_OPERATOR_DESC or bytes, name); inputs: (graph input, node, node input);
    intermediates: (node, output, node, input); outputs: (node, output, graph output)."""
    nodes: list
    input_count: int
    output_count: int
    inputs: list
    intermediates: list
    outputs: list
    names: bool = True


def _edge(kind, struct, **fields):
    return DML_GRAPH_EDGE_DESC(Type=kind, Desc=struct(**fields))


def graph_desc(dml, spec):
    nodes = []
    for node, name in spec.nodes:
        name = name if spec.names else None
        if isinstance(node, bytes):
            nodes.append(DML_GRAPH_NODE_DESC(Type=DML_GRAPH_NODE_TYPE_CONSTANT,
                                             Desc=DML_CONSTANT_DATA_GRAPH_NODE_DESC(Data=node, Name=name)))
        else:
            operator = node if isinstance(node, IDMLOperator) else dml.CreateOperator(node)
            nodes.append(DML_GRAPH_NODE_DESC(Type=DML_GRAPH_NODE_TYPE_OPERATOR,
                                             Desc=DML_OPERATOR_GRAPH_NODE_DESC(Operator=operator, Name=name)))
    return DML_GRAPH_DESC(
        InputCount=spec.input_count, OutputCount=spec.output_count, Nodes=nodes,
        InputEdges=[_edge(DML_GRAPH_EDGE_TYPE_INPUT, DML_INPUT_GRAPH_EDGE_DESC, GraphInputIndex=g, ToNodeIndex=k,
                          ToNodeInputIndex=j) for g, k, j in spec.inputs],
        OutputEdges=[_edge(DML_GRAPH_EDGE_TYPE_OUTPUT, DML_OUTPUT_GRAPH_EDGE_DESC, FromNodeIndex=k, FromNodeOutputIndex=o,
                           GraphOutputIndex=h) for k, o, h in spec.outputs],
        IntermediateEdges=[_edge(DML_GRAPH_EDGE_TYPE_INTERMEDIATE, DML_INTERMEDIATE_GRAPH_EDGE_DESC, FromNodeIndex=m,
                                 FromNodeOutputIndex=o, ToNodeIndex=k, ToNodeInputIndex=j)
                           for m, o, k, j in spec.intermediates])


def _tensors(op_desc):
    """(inputs, outputs): the DML_BUFFER_TENSOR_DESCs of an operator desc in binding order."""
    tensors = [(name, value.Desc) for name, value in vars(op_desc.Desc).items() if isinstance(value, DML_TENSOR_DESC)]
    return ([t for name, t in tensors if not name.startswith("Output")],
            [t for name, t in tensors if name.startswith("Output")])


def _buffer_desc(t):
    return t.Desc if isinstance(t, DML_TENSOR_DESC) else t


def _dtype(t):
    t = _buffer_desc(t)
    return golden.DATA_TYPES[DML_TENSOR_DATA_TYPE(t.DataType).name[len("DML_TENSOR_DATA_TYPE_"):]]


def _strides(t):
    t = _buffer_desc(t)
    return tuple(t.Strides) if t.Strides is not None else golden.packed_strides(tuple(t.Sizes))


def _as_array(data, t):
    t = _buffer_desc(t)
    return golden.gather(data, 0, _dtype(t), tuple(t.Sizes), _strides(t))


def _as_bytes(array, t):
    t = _buffer_desc(t)
    data = np.zeros(t.TotalTensorSizeInBytes, np.uint8)
    golden.scatter(data, 0, np.asarray(array, _dtype(t)), _strides(t))
    return data


def graph_input_tensors(spec):
    """The tensor desc of each graph input (that of the first node input it feeds)."""
    found = {}
    for g, k, j in spec.inputs:
        found.setdefault(g, _tensors(spec.nodes[k][0])[0][j])
    return [found[g] for g in range(spec.input_count)]


def graph_output_tensors(spec):
    found = {h: _tensors(spec.nodes[k][0])[1][o] for k, o, h in spec.outputs}
    return [found[h] for h in range(spec.output_count)]


# ---- running them --------------------------------------------------------------------------------------
def run_graph(rig, spec, inputs, flags=DML_EXECUTION_FLAG_NONE, owned=(), trace=False, fuse=True):
    """Compile (fused or not), initialize, bind and dispatch the graph on `inputs` (one uint8 array per graph
    input); returns each graph output's bytes (and the dispatch-level trace with trace=True)."""
    graph = rig.dml.CompileGraph(graph_desc(rig.dml, spec), flags, fuse=fuse)
    props = graph.GetBindingProperties()
    buffers = []
    for data in inputs:
        buffer = rig.buffer(max(256, data.size))
        rig.write(buffer, data)
        buffers.append(buffer)
    entries = [DML_BUFFER_BINDING(Buffer=buffers[g] if g in owned else None, SizeInBytes=inputs[g].size)
               for g in range(spec.input_count)]
    rig.initialize(graph, owned=[entries] if owned else None)
    rig.execute()
    out_tensors = graph_output_tensors(spec)
    outputs = [rig.buffer(max(256, t.TotalTensorSizeInBytes)) for t in out_tensors]
    table = rig.table(graph, size=props.RequiredDescriptorCount)
    table.BindInputs([DML_BINDING_DESC(Type=DML_BINDING_TYPE_NONE) if g in owned else
                      buffer_binding(buffers[g], 0, inputs[g].size) for g in range(spec.input_count)])
    table.BindOutputs([buffer_binding(r, 0, t.TotalTensorSizeInBytes) for r, t in zip(outputs, out_tensors)])
    temporary = None
    if props.TemporaryResourceSize:
        temporary = rig.buffer(props.TemporaryResourceSize)
        table.BindTemporaryResource(buffer_binding(temporary))
    rig.recorder.RecordDispatch(rig.list, graph, table)
    with capture(rig.device, detail="dispatch") as cap:
        rig.execute()
    assert removal(rig.dml) == (S_OK, "") and removal(rig.device) == (S_OK, ""), (removal(rig.dml), removal(rig.device))
    data = [d[:t.TotalTensorSizeInBytes] for d, t in zip(rig.download(outputs), out_tensors)]
    return (data, cap.trace) if trace else data


def run_one_by_one(rig, spec, inputs, flags=DML_EXECUTION_FLAG_NONE):
    """Each operator node alone (MirrorRig.run_operator) in an order that respects the edges; a node input
    reads the bytes its source holds with the input's own tensor desc. Returns each graph output's bytes."""
    produced = {}
    done = set()
    operator_nodes = [k for k, (node, _) in enumerate(spec.nodes) if not isinstance(node, bytes)]
    while len(done) < len(operator_nodes):
        for k in operator_nodes:
            if k in done:
                continue
            ins, outs = _tensors(spec.nodes[k][0])
            sources = {}
            for g, kk, j in spec.inputs:
                if kk == k:
                    sources[j] = inputs[g]
            ready = True
            for m, o, kk, j in spec.intermediates:
                if kk != k:
                    continue
                node = spec.nodes[m][0]
                if isinstance(node, bytes):
                    sources[j] = np.frombuffer(node.ljust(ins[j].TotalTensorSizeInBytes, b"\0"), np.uint8)
                elif (m, o) in produced:
                    sources[j] = produced[(m, o)]
                else:
                    ready = False
            if not ready:
                continue
            arrays = [_as_array(sources[j], t) for j, t in enumerate(ins)]
            results = rig.run_operator(spec.nodes[k][0], arrays, flags)
            for o, (array, t) in enumerate(zip(results, outs)):
                produced[(k, o)] = _as_bytes(array, t)
            done.add(k)
    return [produced[(k, o)] for k, o, h in sorted(spec.outputs, key=lambda e: e[2])]


def assert_graph_matches(spec, inputs, flags=DML_EXECUTION_FLAG_NONE, owned=(), rig=None):
    """The graph, fused and unfused, against its nodes one by one: every graph output bit for bit."""
    rig = rig or MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=64)
    expected = run_one_by_one(rig, spec, inputs, flags)
    for fuse in (False, True):
        got = run_graph(rig, spec, inputs, flags, owned, fuse=fuse)
        for h, (g, e, t) in enumerate(zip(got, expected, graph_output_tensors(spec))):
            same_bits(_as_array(g, t), _as_array(e, t), f"graph output {h} ({'fused' if fuse else 'unfused'})")
    return got


def _random(t, seed, special=True):
    """Bytes for a tensor desc: values around the bounds the tests use, with NaN, -0 and infinities."""
    rng = np.random.default_rng(seed)
    t = _buffer_desc(t)
    dtype = _dtype(t)
    count = t.TotalTensorSizeInBytes // dtype.itemsize
    if dtype.kind == "f":
        values = rng.uniform(-4, 4, count).astype(dtype)
        if special and count >= 4:
            values[:4] = np.array([np.nan, -0.0, np.inf, -np.inf], dtype)
    else:
        values = rng.integers(0, 3, count).astype(dtype)
    return np.frombuffer(values.tobytes().ljust(t.TotalTensorSizeInBytes, b"\0"), np.uint8).copy()


# ---- results -------------------------------------------------------------------------------------------------
X = tensor([4, 16])


def chain(x=X):
    return GraphSpec(nodes=[(clip(x, -1.0, 2.0), "clip"), (threshold(x, 0.5), "threshold"),
                            (identity(x, scale_bias=(3.0, 1.0)), "scale")],
                     input_count=1, output_count=1, inputs=[(0, 0, 0)],
                     intermediates=[(0, 0, 1, 0), (1, 0, 2, 0)], outputs=[(2, 0, 0)])


def test_a_chain_is_bit_exact_runs_three_named_dispatches_with_two_barriers_and_no_hazard():
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=64)
    x = _random(X, 1)
    (out,), trace = run_graph(rig, chain(), [x], trace=True, fuse=False)
    a = x.view(np.float32)
    expected = golden.identity(golden.threshold(golden.clip(a, -1.0, 2.0), 0.5), scale_bias=(3.0, 1.0))
    same_bits(out.view(np.float32), expected)
    assert [str(n).split(":")[0] for n in trace.dispatches["name"]] == ["clip", "threshold", "scale"]
    assert inspect(rig.device).hazard_count == 0
    graph = rig.dml.CompileGraph(graph_desc(rig.dml, chain()), DML_EXECUTION_FLAG_NONE, fuse=False)
    assert [(d.nodes, d.barrier_before) for d in inspect(graph).dispatches] == [((0,), False), ((1,), True),
                                                                                 ((2,), True)]
    props = graph.GetBindingProperties()
    assert (props.RequiredDescriptorCount, props.TemporaryResourceSize) == (6, 512)   # two intermediates, 256 each
    assert_graph_matches(chain(), [x])


def test_an_intermediate_region_is_reused_once_its_readers_are_done_with_no_hazard():
    spec = GraphSpec(nodes=[(clip(X, -1.0, 2.0), "a"), (threshold(X, 0.5), "b"), (identity(X, scale_bias=(3.0, 1.0)), "c"),
                            (clip(X, 0.0, 4.0), "d")],
                     input_count=1, output_count=1, inputs=[(0, 0, 0)],
                     intermediates=[(0, 0, 1, 0), (1, 0, 2, 0), (2, 0, 3, 0)], outputs=[(3, 0, 0)])
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=64, d3d12_debug=True)
    graph = rig.dml.CompileGraph(graph_desc(rig.dml, spec), DML_EXECUTION_FLAG_NONE, fuse=False)
    assert graph.GetBindingProperties().TemporaryResourceSize == 512   # three intermediates, two regions
    assert [inspect(graph).temporary_offsets[(k, 0)] for k in range(3)] == [0, 256, 0]
    assert_graph_matches(spec, [_random(X, 11)], rig=rig)
    assert inspect(rig.device).hazard_count == 0


def test_a_diamond_runs_its_two_branches_in_one_level_and_if_reads_both():
    c = tensor([4, 16], U8)
    spec = GraphSpec(nodes=[(clip(X, -1.0, 1.0), "left"), (threshold(X, 0.0), "right"), (if_(c, X, X), "select")],
                     input_count=2, output_count=1, inputs=[(0, 0, 0), (0, 1, 0), (1, 2, 0)],
                     intermediates=[(0, 0, 2, 1), (1, 0, 2, 2)], outputs=[(2, 0, 0)])
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=64)
    graph = rig.dml.CompileGraph(graph_desc(rig.dml, spec), DML_EXECUTION_FLAG_NONE, fuse=False)
    assert [(d.nodes, d.level, d.barrier_before) for d in inspect(graph).dispatches] == [
        ((0,), 0, False), ((1,), 0, False), ((2,), 1, True)]
    assert_graph_matches(spec, [_random(X, 2), _random(c, 3)], rig=rig)
    assert inspect(rig.device).hazard_count == 0


def test_a_graph_output_that_another_node_reads_is_written_once_into_the_output_binding():
    spec = GraphSpec(nodes=[(clip(X, -1.0, 1.0), None), (identity(X, scale_bias=(0.5, 0.25)), None)],
                     input_count=1, output_count=2, inputs=[(0, 0, 0)], intermediates=[(0, 0, 1, 0)],
                     outputs=[(1, 0, 0), (0, 0, 1)], names=False)
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=64)
    assert rig.dml.CompileGraph(graph_desc(rig.dml, spec), DML_EXECUTION_FLAG_NONE, fuse=False) \
        .GetBindingProperties().TemporaryResourceSize == 0   # no intermediate tensor: node 1 reads graph output 1
    (scaled_out, clipped), trace = run_graph(rig, spec, [_random(X, 4)], trace=True, fuse=False)
    assert [str(n).split(":")[0] for n in trace.dispatches["name"]] == ["node 0", "node 1"]
    assert_graph_matches(spec, [_random(X, 4)], rig=rig)


def test_an_edge_may_broadcast_through_strides_and_reinterpret_the_data_type():
    row = tensor([1, 16])
    wide = tensor([4, 16], strides=[0, 1])            # the same 64 bytes, each row the producer's row
    bits = tensor([4, 16], U32, strides=[0, 1])       # ... read as UINT32 bits
    spec = GraphSpec(nodes=[(clip(row, -2.0, 2.0), "clip"), (identity(wide, out=X, scale_bias=(2.0, 0.0)), "twice"),
                            (identity(bits, out=tensor([4, 16], U32)), "bits")],
                     input_count=1, output_count=2, inputs=[(0, 0, 0)],
                     intermediates=[(0, 0, 1, 0), (0, 0, 2, 0)], outputs=[(1, 0, 0), (2, 0, 1)])
    twice, as_bits = assert_graph_matches(spec, [_random(row, 5)])
    clipped = golden.clip(_random(row, 5).view(np.float32), -2.0, 2.0)
    assert np.array_equal(as_bits.view(np.uint32).reshape(4, 16)[3], clipped.view(np.uint32))


@pytest.mark.parametrize("flags", [DML_EXECUTION_FLAG_NONE, DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION])
def test_a_float16_chain_is_bit_exact_with_and_without_half_precision(flags):
    h = tensor([2, 33], F16)        # 66 elements: TotalTensorSizeInBytes 132
    spec = GraphSpec(nodes=[(identity(h, scale_bias=(1.7, -0.3)), "a"), (clip(h, -1.5, 1.25), "b"),
                            (identity(h, scale_bias=(3.1, 0.1)), "c"), (threshold(h, 0.2), "d")],
                     input_count=1, output_count=1, inputs=[(0, 0, 0)],
                     intermediates=[(0, 0, 1, 0), (1, 0, 2, 0), (2, 0, 3, 0)], outputs=[(3, 0, 0)])
    assert_graph_matches(spec, [_random(h, 6)], flags)


def test_dml_owned_graph_inputs_are_bound_at_initialization_and_read_from_the_persistent_resource():
    owned_c = tensor([4, 16], U8, flags=DML_TENSOR_FLAG_OWNED_BY_DML)
    spec = GraphSpec(nodes=[(clip(X, 0.0, 1.0), "clip"), (if_(owned_c, X, X), "mask")],
                     input_count=2, output_count=1, inputs=[(0, 0, 0), (1, 1, 0), (0, 1, 2)],
                     intermediates=[(0, 0, 1, 1)], outputs=[(1, 0, 0)])
    c = _random(owned_c, 7)
    x = _random(X, 8)
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=64)
    clipped = golden.clip(x.view(np.float32), 0.0, 1.0)
    for fuse in (False, True):
        (out,) = run_graph(rig, spec, [x, c], owned={1}, fuse=fuse)
        same_bits(out.view(np.float32), np.where(c != 0, clipped, x.view(np.float32)))


def test_a_constant_node_feeds_node_inputs_through_the_persistent_resource():
    c = tensor([4, 16], U8)
    mask = bytes([1, 0, 0, 1] * 15)   # 60 of the 64 bytes: the rest reads as zeros
    spec = GraphSpec(nodes=[(mask, "mask"), (if_(c, X, X), "select")], input_count=2, output_count=1,
                     inputs=[(0, 1, 1), (1, 1, 2)], intermediates=[(0, 0, 1, 0)], outputs=[(1, 0, 0)])
    a, b = _random(X, 9), _random(X, 10)
    (out,) = assert_graph_matches(spec, [a, b])
    select = np.frombuffer(mask.ljust(64, b"\0"), np.uint8) != 0
    same_bits(out.view(np.float32), np.where(select, a.view(np.float32), b.view(np.float32)))


def test_a_fused_chain_is_one_dispatch_that_reads_and_writes_one_tensor_each():
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=64)
    graph = rig.dml.CompileGraph(graph_desc(rig.dml, chain()), DML_EXECUTION_FLAG_NONE)
    (unit,) = inspect(graph).units
    props = graph.GetBindingProperties()
    assert (unit.nodes, props.RequiredDescriptorCount, props.TemporaryResourceSize) == ((0, 1, 2), 2, 0)
    loads = [line for line in unit.source.splitlines() if "buffer_load" in line]
    stores = [line for line in unit.source.splitlines() if "buffer_store" in line]
    assert len(loads) == 1 and len(stores) == 1, unit.source   # the intermediates never touch memory
    x = _random(X, 12)
    (fused,), trace = run_graph(rig, chain(), [x], trace=True)
    (unfused,), unfused_trace = run_graph(rig, chain(), [x], trace=True, fuse=False)
    same_bits(fused.view(np.float32), unfused.view(np.float32))
    assert [str(n) for n in trace.dispatches["name"]] == ["clip+threshold+scale: fused_clip_threshold_identity"]
    assert (int(trace.dispatches["bytes_read"].sum()), int(trace.dispatches["bytes_written"].sum())) == (256, 256)
    assert (int(unfused_trace.dispatches["bytes_read"].sum()),
            int(unfused_trace.dispatches["bytes_written"].sum())) == (768, 768)


def test_fusion_stops_at_nine_memory_tensors_and_at_edges_that_change_the_layout():
    if not has_kernel("ELEMENT_WISE_ADD"):
        pytest.skip("no ELEMENT_WISE_ADD kernel")
    assert (FUSED_TENSOR_LIMIT, FUSED_UNIFORM_LIMIT) == (MAX_TENSORS, MAX_UNIFORM)   # what the kernels address
    # A chain of 9 ADDs each reading one more graph input: nodes 0 .. 7 would read 9 inputs and write node
    # 7's value for node 8 (10 tensors); the first pass joins node 7 optimistically, the check gives it back.
    add = op("ELEMENT_WISE_ADD", ATensor=X, BTensor=X, OutputTensor=X)
    spec = GraphSpec(nodes=[(add, f"a{i}") for i in range(9)], input_count=10, output_count=1,
                     inputs=[(0, 0, 0)] + [(g, g - 1, 1) for g in range(1, 10)],
                     intermediates=[(i, 0, i + 1, 0) for i in range(8)], outputs=[(8, 0, 0)])
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=64)
    graph = rig.dml.CompileGraph(graph_desc(rig.dml, spec), DML_EXECUTION_FLAG_NONE)
    assert [(d.nodes, d.barrier_before) for d in inspect(graph).dispatches] == [(tuple(range(7)), False),
                                                                             ((7, 8), True)]
    assert [len(u.infos) for u in inspect(graph).units] == [9, 4]   # x0 .. x7 and a6; a6, x8, x9 and a8
    assert_graph_matches(spec, [_random(X, 20 + g) for g in range(10)], rig=rig)
    row, wide = tensor([1, 16]), tensor([4, 16], strides=[0, 1])
    spec = GraphSpec(nodes=[(clip(row, -2.0, 2.0), "clip"), (identity(row, scale_bias=(2.0, 0.0)), "twice"),
                            (identity(wide, out=X), "broadcast")],
                     input_count=1, output_count=1, inputs=[(0, 0, 0)],
                     intermediates=[(0, 0, 1, 0), (1, 0, 2, 0)], outputs=[(2, 0, 0)])
    graph = rig.dml.CompileGraph(graph_desc(rig.dml, spec), DML_EXECUTION_FLAG_NONE)
    assert [d.nodes for d in inspect(graph).dispatches] == [(0, 1), (2,)]
    assert_graph_matches(spec, [_random(row, 30)], rig=rig)


def test_two_independent_chains_of_two_shapes_become_two_fused_dispatches():
    y = tensor([2, 9])
    spec = GraphSpec(nodes=[(clip(X, -1.0, 1.0), "a1"), (clip(y, 0.0, 2.0), "b1"), (threshold(X, 0.5), "a2"),
                            (identity(y, scale_bias=(2.0, 1.0)), "b2")],
                     input_count=2, output_count=2, inputs=[(0, 0, 0), (1, 1, 0)],
                     intermediates=[(0, 0, 2, 0), (1, 0, 3, 0)], outputs=[(2, 0, 0), (3, 0, 1)])
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=64)
    graph = rig.dml.CompileGraph(graph_desc(rig.dml, spec), DML_EXECUTION_FLAG_NONE)
    assert [(d.nodes, d.barrier_before) for d in inspect(graph).dispatches] == [((0, 2), False), ((1, 3), False)]
    assert_graph_matches(spec, [_random(X, 70), _random(y, 71)], rig=rig)


# ---- validation sentences --------------------------------------------------------------------------------------------
def _compile_error(spec, rig=None, mutate=None, flags=DML_EXECUTION_FLAG_NONE):
    rig = rig or MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_NONE)
    desc = graph_desc(rig.dml, spec)
    if mutate is not None:
        mutate(desc)
    with pytest.raises(HResultError) as error:
        rig.dml.CompileGraph(desc, flags)
    assert error.value.hresult == E_INVALIDARG, error.value
    return error.value.message


def _spec(**changes):
    return dataclasses.replace(chain(), **changes)


def test_a_cycle_is_named_node_by_node():
    spec = _spec(intermediates=[(0, 0, 1, 0), (1, 0, 2, 0), (2, 0, 0, 0)], inputs=[])
    assert _compile_error(dataclasses.replace(spec, input_count=0)) == (
        'DML_GRAPH_DESC.IntermediateEdges form a cycle: node 0 ("clip") -> node 1 ("threshold") -> node 2 ("scale") '
        '-> node 0 ("clip"); the graph must be a directed acyclic graph.')


@pytest.mark.parametrize("changes, sentence", [
    (dict(intermediates=[(1, 0, 2, 0)], outputs=[(2, 0, 0), (0, 0, 1)], output_count=2),
     'input 0 (InputTensor) of node 1 ("threshold") is fed by no edge; every node input must be connected '
     '(DML_GRAPH_DESC), except inputs optional for the operator.'),
    (dict(intermediates=[(0, 0, 1, 0), (1, 0, 2, 0), (0, 0, 2, 0)]),
     'IntermediateEdges[2] feeds input 0 (InputTensor) of node 2 ("scale"), which IntermediateEdges[1] already '
     'feeds; a node input takes exactly one edge.'),
    (dict(intermediates=[(0, 0, 1, 0), (1, 0, 3, 0)]),
     'DML_GRAPH_DESC.IntermediateEdges[1].ToNodeIndex is 3; the graph has 3 nodes.'),
    (dict(intermediates=[(0, 0, 1, 0), (1, 1, 2, 0)]),
     'DML_GRAPH_DESC.IntermediateEdges[1].FromNodeOutputIndex is 1; node 1 ("threshold") '
     '(DML_OPERATOR_ELEMENT_WISE_THRESHOLD) has 1 outputs.'),
    (dict(inputs=[(1, 0, 0)]),
     'DML_GRAPH_DESC.InputEdges[0].GraphInputIndex is 1; the graph has 1 inputs (DML_GRAPH_DESC.InputCount).'),
    (dict(outputs=[(2, 0, 0), (1, 0, 0)]),
     'DML_GRAPH_DESC.OutputEdges[1].GraphOutputIndex is 0, which OutputEdges[0] already writes; every graph output '
     'is written by exactly one output edge.'),
    (dict(output_count=2),
     'graph output 1 is written by no element of DML_GRAPH_DESC.OutputEdges; every graph output '
     '(DML_GRAPH_DESC.OutputCount is 2) is written by exactly one output edge.'),
    (dict(outputs=[]),
     'graph output 0 is written by no element of DML_GRAPH_DESC.OutputEdges; every graph output '
     '(DML_GRAPH_DESC.OutputCount is 1) is written by exactly one output edge.'),
    (dict(outputs=[(1, 0, 0)], intermediates=[(0, 0, 1, 0)]),
     'input 0 (InputTensor) of node 2 ("scale") is fed by no edge; every node input must be connected '
     '(DML_GRAPH_DESC), except inputs optional for the operator.'),
    (dict(nodes=[], intermediates=[], inputs=[], outputs=[]),
     'DML_GRAPH_DESC.NodeCount is 0; a graph has at least one node.'),
])
def test_bad_graphs_are_refused_with_a_sentence(changes, sentence):
    assert _compile_error(_spec(**changes)) == sentence


def test_an_unused_node_output_is_refused():
    spec = _spec(nodes=chain().nodes + [(identity(X), "spare")], inputs=[(0, 0, 0), (0, 3, 0)])
    assert _compile_error(spec) == (
        'output 0 (OutputTensor) of node 3 ("spare") goes to no graph output and no node input; every node output '
        'must be connected (DML_GRAPH_DESC), except outputs optional for the operator.')


def test_connected_tensors_must_have_one_total_tensor_size():
    spec = _spec(nodes=[(clip(X, 0.0, 1.0), "clip"), (threshold(tensor([4, 8]), 0.0), "threshold"),
                        (identity(tensor([4, 8])), "scale")])
    assert _compile_error(spec) == (
        'DML_GRAPH_DESC.IntermediateEdges[0] connects output 0 (OutputTensor) of node 0 ("clip") '
        '(TotalTensorSizeInBytes 256) to input 0 (InputTensor) of node 1 ("threshold") (TotalTensorSizeInBytes 128); '
        'connected tensors must have identical TotalTensorSizeInBytes (their DataType and Sizes may differ).')


def test_owned_by_dml_inputs_come_from_graph_inputs_that_agree_on_the_flag():
    owned = tensor([4, 16], flags=DML_TENSOR_FLAG_OWNED_BY_DML)
    spec = _spec(nodes=[(clip(X, 0.0, 1.0), "clip"), (threshold(owned, 0.0, out=X), "threshold"),
                        (identity(X), "scale")])
    assert _compile_error(spec) == (
        'DML_GRAPH_DESC.IntermediateEdges[0] feeds input 0 (InputTensor) of node 1 ("threshold") from node 0 ("clip"), '
        'but that input is DML_TENSOR_FLAG_OWNED_BY_DML; such inputs must be connected to graph inputs.')
    both = _spec(nodes=spec.nodes, inputs=[(0, 0, 0), (0, 1, 0)], intermediates=[(1, 0, 2, 0)],
                 outputs=[(2, 0, 0), (0, 0, 1)], output_count=2)
    assert _compile_error(both) == (
        'graph input 0 feeds input 0 (InputTensor) of node 0 ("clip") without DML_TENSOR_FLAG_OWNED_BY_DML and input 0 '
        '(InputTensor) of node 1 ("threshold") with it; all inputs connected to one graph input must use or omit the '
        'flag equivalently.')


def test_struct_and_edge_type_mistakes_name_the_field():
    def wrong_type(desc):
        desc.OutputEdges[0].Type = DML_GRAPH_EDGE_TYPE_INPUT

    assert _compile_error(chain(), mutate=wrong_type) == (
        "DML_GRAPH_DESC.OutputEdges[0].Type is DML_GRAPH_EDGE_TYPE_INPUT; every element of OutputEdges must be "
        "DML_GRAPH_EDGE_TYPE_OUTPUT.")

    def wrong_count(desc):
        desc.NodeCount = 4

    assert _compile_error(chain(), mutate=wrong_count) == (
        "DML_GRAPH_DESC.NodeCount is 4 but DML_GRAPH_DESC.Nodes has 3 elements; they must agree.")


def test_graphs_and_constant_nodes_need_their_feature_levels():
    old = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_NONE, feature_level=DML_FEATURE_LEVEL_2_0)
    assert _compile_error(chain(tensor([1, 1, 4, 16])), rig=old) == (
        "IDMLDevice1.CompileGraph was introduced in DML_FEATURE_LEVEL_2_1 (DirectML 1.2.0); this device supports "
        "up to DML_FEATURE_LEVEL_2_0.")
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_NONE, feature_level=DML_FEATURE_LEVEL_6_1)
    c = tensor([4, 16], U8)
    spec = GraphSpec(nodes=[(bytes(64), "mask"), (if_(c, X, X), "select")], input_count=1, output_count=1,
                     inputs=[(0, 1, 1), (0, 1, 2)], intermediates=[(0, 0, 1, 0)], outputs=[(1, 0, 0)])
    assert _compile_error(spec, rig=rig) == (
        "DML_GRAPH_DESC.Nodes[0].Type is DML_GRAPH_NODE_TYPE_CONSTANT, introduced in DML_FEATURE_LEVEL_6_2; this "
        "device supports up to DML_FEATURE_LEVEL_6_1.")
    big = dataclasses.replace(spec, nodes=[(bytes(68), "mask"), spec.nodes[1]])
    assert _compile_error(big) == (
        'DML_GRAPH_DESC.IntermediateEdges[0] feeds input 0 (ConditionTensor) of node 1 ("select") '
        '(TotalTensorSizeInBytes 64) from node 0 ("mask"), whose DataSize is 68; a constant node\'s data must fit '
        'the inputs it feeds (dmlemu).')


def test_binding_a_graph_takes_one_binding_per_graph_input_and_needs_its_temporary_resource():
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=64, mute_debug_output=True)
    graph = rig.dml.CompileGraph(graph_desc(rig.dml, chain()), DML_EXECUTION_FLAG_NONE, fuse=False)
    a, b = rig.buffer(256), rig.buffer(256)
    table = rig.table(graph)
    table.BindInputs([buffer_binding(a), buffer_binding(b)])
    assert removal(rig.dml)[1] == ("IDMLBindingTable.BindInputs: BindInputs got 2 bindings; graph of 3 nodes has 1 "
                                   "input (graph input 0), and the count must match exactly.")
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=64, mute_debug_output=True)
    graph = rig.dml.CompileGraph(graph_desc(rig.dml, chain()), DML_EXECUTION_FLAG_NONE, fuse=False)
    rig.initialize(graph)
    table = rig.table(graph)
    table.BindInputs([buffer_binding(rig.buffer(256))])
    table.BindOutputs([buffer_binding(rig.buffer(256))])
    rig.recorder.RecordDispatch(rig.list, graph, table)
    assert removal(rig.dml)[1] == ("IDMLCommandRecorder.RecordDispatch: <IDMLCompiledOperator graph of 3 nodes> needs "
                                   "a temporary resource of 512 bytes; none is bound (BindTemporaryResource).")


# ---- random DAGs ----------------------------------------------------------------------------------------------
UNARY = [name for name in ("ELEMENT_WISE_IDENTITY", "ELEMENT_WISE_CLIP", "ELEMENT_WISE_THRESHOLD", "ELEMENT_WISE_ABS",
                           "ELEMENT_WISE_NEGATE", "ACTIVATION_RELU") if has_kernel(name)]
BINARY = [name for name in ("ELEMENT_WISE_ADD", "ELEMENT_WISE_MULTIPLY", "ELEMENT_WISE_MAX", "ELEMENT_WISE_SUBTRACT")
          if has_kernel(name)]


def _node_desc(kind, t, draw):
    """One node of `kind` on tensor desc t (every tensor the same desc)."""
    if kind == "ELEMENT_WISE_IDENTITY":
        return identity(t, scale_bias=draw(st.sampled_from([None, (1.5, -0.25), (-2.0, 0.5)])))
    if kind == "ELEMENT_WISE_CLIP":
        return clip(t, draw(st.sampled_from([-1.0, 0.0])), draw(st.sampled_from([0.5, 2.0])))
    if kind == "ELEMENT_WISE_THRESHOLD":
        return threshold(t, draw(st.sampled_from([-0.5, 0.25])))
    if kind == "IF":
        return if_(tensor(t.Desc.Sizes, U8), t, t)
    if kind in BINARY:
        return op(kind, ATensor=t, BTensor=t, OutputTensor=t)
    if kind.startswith("ACTIVATION_"):
        return op(kind, InputTensor=t, OutputTensor=t)
    return op(kind, InputTensor=t, OutputTensor=t)


@st.composite
def random_graphs(draw):
    """A DAG of 1 to 6 nodes on one or two FLOAT32 or FLOAT16 shapes: each node has one of the shapes and
    each of its inputs reads a graph input or an earlier node of its shape; each node output is a graph
    output, or read later, or both. A binary node's BTensor may be one element broadcast by stride 0 (a
    uniform input: fused kernels read it with a scalar load), fed by that shape's scalar graph input."""
    dt = draw(st.sampled_from([F32, F16]))
    shapes = draw(st.lists(st.sampled_from([(7,), (2, 9), (3, 1, 5)]), min_size=1, max_size=2, unique=True))
    kinds = ["ELEMENT_WISE_IDENTITY", "ELEMENT_WISE_CLIP", "ELEMENT_WISE_THRESHOLD", "IF"] + UNARY + BINARY
    n = draw(st.integers(1, 6))
    n_inputs = draw(st.integers(1, 2))
    per_shape = n_inputs + 2      # graph inputs of a shape: n_inputs, then its condition, then its scalar
    nodes, inputs, intermediates, shape_of, cond_inputs = [], [], [], [], []
    for k in range(n):
        shape = draw(st.integers(0, len(shapes) - 1))
        kind = draw(st.sampled_from(kinds))
        scalar = kind in BINARY and draw(st.booleans())
        if scalar:
            t = tensor(shapes[shape], dt)
            desc = op(kind, ATensor=t, BTensor=tensor(shapes[shape], dt, strides=[0] * len(shapes[shape])),
                      OutputTensor=t)
        else:
            desc = _node_desc(kind, tensor(shapes[shape], dt), draw)
        nodes.append((desc, f"n{k}"))
        shape_of.append(shape)
        if kind == "IF":
            cond_inputs.append((k, shape))
        same = [m for m in range(k) if shape_of[m] == shape]
        for j in (range(1, 3) if kind == "IF" else range(len(_tensors(desc)[0]))):
            if scalar and j == 1:
                inputs.append((shape * per_shape + n_inputs + 1, k, j))
                continue
            source = draw(st.integers(-n_inputs, len(same) - 1))
            if source < 0:   # graph inputs: n_inputs per shape, then one condition input per shape
                inputs.append((shape * per_shape + (-source - 1), k, j))
            else:
                intermediates.append((same[source], 0, k, j))
    for k, shape in cond_inputs:
        inputs.append((shape * per_shape + n_inputs, k, 0))
    used = {m for m, _, _, _ in intermediates}
    outputs = [(k, 0) for k in range(n) if k not in used or draw(st.booleans())]
    used_inputs = sorted({g for g, _, _ in inputs})
    renumber = {g: i for i, g in enumerate(used_inputs)}
    spec = GraphSpec(nodes=nodes, input_count=len(used_inputs), output_count=len(outputs),
                     inputs=[(renumber[g], k, j) for g, k, j in inputs], intermediates=intermediates,
                     outputs=[(k, o, h) for h, (k, o) in enumerate(outputs)])
    flags = draw(st.sampled_from([DML_EXECUTION_FLAG_NONE, DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION]))
    return spec, flags, draw(st.integers(0, 2 ** 16))


@settings(max_examples=scaled(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_graphs())
def test_random_graphs_are_bit_exact_against_their_operators_one_by_one(case):
    spec, flags, seed = case
    inputs = [_random(t, seed + g) for g, t in enumerate(graph_input_tensors(spec))]
    assert_graph_matches(spec, inputs, flags)


BREAKS = ["drop an input edge", "cycle", "duplicate output", "unwritten output", "feed twice"]


@settings(max_examples=scaled(10), deadline=None)
@given(random_graphs(), st.sampled_from(BREAKS), st.data())
def test_broken_random_graphs_are_refused_with_a_sentence(case, how, data):
    spec, flags, _ = case
    if how == "drop an input edge" and spec.inputs:
        spec = dataclasses.replace(spec, inputs=spec.inputs[1:])
    elif how == "cycle" and spec.intermediates:
        m, o, k, j = spec.intermediates[0]
        spec = dataclasses.replace(spec, intermediates=spec.intermediates[1:] + [(k, 0, m, 0)],
                                   inputs=[e for e in spec.inputs if e[1:] != (m, 0)])
    elif how == "duplicate output":
        spec = dataclasses.replace(spec, outputs=spec.outputs + [spec.outputs[0]])
    elif how == "unwritten output":
        spec = dataclasses.replace(spec, output_count=spec.output_count + 1)
    else:
        g, k, j = data.draw(st.sampled_from(spec.inputs)) if spec.inputs else (0, 0, 0)
        spec = dataclasses.replace(spec, inputs=spec.inputs + [(g, k, j)], input_count=max(1, spec.input_count))
    message = _compile_error(spec)
    assert message.endswith(".") and len(message) > 40, message
    from operator_cases import REFUSED, outcome
    outcome(REFUSED)


# ---- dmlemu graph ------------------------------------------------------------------------------------------
def test_dmlemu_graph_prints_the_example_partition_level_by_level(capsys):
    from dmlemu.tools.cli import main
    assert main(["graph"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:4] == ["dispatches: 1 (1 fused), UAV barriers: 0", "level 0",
                          "  dispatch 1  scale > floor > relu > clip > select  ELEMENT_WISE_IDENTITY > "
                          "ELEMENT_WISE_THRESHOLD > ACTIVATION_RELU > ELEMENT_WISE_CLIP > ELEMENT_WISE_IF  reads graph "
                          "input 0, graph input 1; writes graph output 1, graph output 0; in registers: scale, floor, "
                          "clip"]
    assert lines[4] == "binding: 4 descriptors, temporary resource 0 bytes, persistent resource 0 bytes"
    assert main(["graph", "--source"]) == 0
    source = capsys.readouterr().out
    assert source.count("buffer_load_") == 2 and source.count("buffer_store_") == 2   # x and mask read once each
    assert main(["graph", "--no-fuse"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == ["graph: 5 nodes (5 operators), 2 inputs, 2 outputs; FLOAT32 [256, 1024]",
                         "dispatches: 5 (no fusion: one per operator node), UAV barriers: 3"]
    assert [line.split()[2] for line in lines if line.startswith("  dispatch")] == [
        "scale", "floor", "relu", "clip", "select"]
    assert lines.count("  -- UAV barrier --") == 3
    assert lines[-1].startswith("binding: 12 descriptors, temporary resource 2097152 bytes")   # clip reuses scale's


def test_dmlemu_graph_reads_a_json_graph_and_draws_it(tmp_path, capsys):
    import json
    from dmlemu.tools.cli import main
    spec = {"dtype": "FLOAT16", "sizes": [8, 8], "inputs": ["x"],
            "nodes": [{"name": "a", "op": "CLIP", "inputs": ["x"], "attrs": {"Min": 0, "Max": 1}},
                      {"name": "b", "op": "THRESHOLD", "inputs": ["x"], "attrs": {"Min": 0.5}},
                      {"name": "c", "op": "add", "inputs": ["a", "b"]}],
            "outputs": ["c"]}
    path = tmp_path / "g.json"
    path.write_text(json.dumps(spec))
    png = tmp_path / "g.png"
    assert main(["graph", str(path), "--plot", str(png), "--no-fuse"]) == 0
    out = capsys.readouterr().out
    assert "  dispatch 3  c  ELEMENT_WISE_ADD        reads a, b; writes graph output 0" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    path.write_text(json.dumps(dict(spec, outputs=["z"])))
    assert main(["graph", str(path)]) == 2
    assert capsys.readouterr().err == 'dmlemu: error: the graph\'s output "z" is no node\n'


def test_execute_graph_runs_a_graph_dict_fused_and_unfused_to_the_same_bits():
    from dmlemu.tools.graph_view import EXAMPLE, execute_graph
    spec = dict(EXAMPLE, sizes=[8, 40])
    graph, fused, trace = execute_graph(spec, fuse=True, trace="dispatch")
    _, unfused, unfused_trace = execute_graph(spec, fuse=False, trace="dispatch")
    assert [len(o) for o in fused] == [1280, 1280]
    for a, b in zip(fused, unfused):
        assert np.array_equal(a, b)
    assert len(trace.dispatches) == 1 and len(unfused_trace.dispatches) == 5
    assert str(trace.dispatches["name"][0]).startswith("scale+floor+relu+clip+select: fused_identity_threshold")


# ---- hostile descs, late binding, the debug layer ------------------------------------------------------------
_FIELDS = [("desc", None), ("InputCount", None), ("OutputCount", None), ("NodeCount", None), ("Nodes", None),
           ("Nodes", 0), ("Nodes.Type", 0), ("Nodes.Desc", 0), ("Nodes.Desc.Operator", 0), ("Nodes.Desc.Name", 0),
           ("InputEdges", None), ("InputEdges", 0), ("InputEdges.Type", 0), ("InputEdges.Desc", 0),
           ("InputEdges.Desc.GraphInputIndex", 0), ("InputEdges.Desc.ToNodeInputIndex", 0),
           ("OutputEdges.Desc.FromNodeIndex", 0), ("OutputEdges.Desc.GraphOutputIndex", 0),
           ("IntermediateEdges", 1), ("IntermediateEdges.Desc.FromNodeOutputIndex", 1),
           ("IntermediateEdges.Desc.ToNodeIndex", 0), ("IntermediateEdgeCount", None)]


@settings(max_examples=scaled(40), deadline=None)
@given(st.sampled_from(_FIELDS), st.data())
def test_hostile_graph_descs_only_give_sentences(field, data):
    from operator_cases import garbage
    rig = _HOSTILE_RIG
    desc = graph_desc(rig.dml, chain())
    value = data.draw(garbage)
    path, index = field
    if path == "desc":
        desc = value
    else:
        parts = path.split(".")
        target = desc
        if index is not None:
            target = getattr(desc, parts[0])[index]
            parts = parts[1:]
        for part in parts[:-1]:
            target = getattr(target, part)
        if not parts:
            getattr(desc, path)[index] = value
        else:
            setattr(target, parts[-1], value)
    from operator_cases import ACCEPTED, REFUSED, outcome
    try:
        graph = rig.dml.CompileGraph(desc, DML_EXECUTION_FLAG_NONE)
    except HResultError as error:
        assert error.hresult == E_INVALIDARG and error.message.endswith(".") and len(error.message) > 20, error
        outcome(REFUSED)
    else:
        assert graph.GetBindingProperties().RequiredDescriptorCount > 0   # the garbage happened to be valid
        outcome(ACCEPTED)


_HOSTILE_RIG = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_NONE)


def test_descriptors_volatile_graphs_may_be_bound_after_recording_and_check_at_execution():
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=64, mute_debug_output=True)
    graph = rig.dml.CompileGraph(graph_desc(rig.dml, chain()), DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE, fuse=False)
    rig.initialize(graph)
    rig.execute()
    x = _random(X, 13)
    a, out, temporary = rig.buffer(256), rig.buffer(256), rig.buffer(512)
    rig.write(a, x)
    table = rig.table(graph)
    rig.recorder.RecordDispatch(rig.list, graph, table)       # nothing bound yet: checked at execution
    table.BindInputs([buffer_binding(a)])
    table.BindOutputs([buffer_binding(out)])
    table.BindTemporaryResource(buffer_binding(temporary))
    rig.execute()
    assert removal(rig.dml) == (S_OK, "")
    expected = golden.identity(golden.threshold(golden.clip(x.view(np.float32), -1.0, 2.0), 0.5), scale_bias=(3.0, 1.0))
    same_bits(rig.read(out).view(np.float32), expected)
    table = rig.table(graph)
    table.BindInputs([buffer_binding(a)])
    table.BindTemporaryResource(buffer_binding(temporary))
    rig.recorder.RecordDispatch(rig.list, graph, table)
    rig.execute()
    assert removal(rig.dml)[1] == ("ExecuteCommandLists: graph of 3 nodes has no binding for graph output 0; the "
                                   "dispatch is skipped.")


def test_the_debug_layer_refuses_a_graph_that_was_never_initialized():
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=64, mute_debug_output=True)
    graph = rig.dml.CompileGraph(graph_desc(rig.dml, chain()), DML_EXECUTION_FLAG_NONE)
    table = rig.table(graph)
    table.BindInputs([buffer_binding(rig.buffer(256))])
    table.BindOutputs([buffer_binding(rig.buffer(256))])
    table.BindPersistentResource(buffer_binding(rig.buffer(max(256, graph.GetBindingProperties().PersistentResourceSize))))
    rig.recorder.RecordDispatch(rig.list, graph, table)
    assert removal(rig.dml)[1] == ("IDMLCommandRecorder.RecordDispatch: the compiled operator graph of 3 nodes was "
                                   "never initialized; record an IDMLOperatorInitializer dispatch for it (and execute "
                                   "it) first.")


_JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 1 << 33) | st.floats(allow_nan=False) |
                     st.text(max_size=4), lambda children: st.lists(children, max_size=3) |
                     st.dictionaries(st.text(max_size=6), children, max_size=3), max_leaves=6)


@settings(max_examples=scaled(25), deadline=None)
@given(st.sampled_from(["dtype", "sizes", "inputs", "nodes", "outputs", "node.op", "node.inputs", "node.scale",
                        "node.attrs", "node.name"]), _JSON)
def test_dmlemu_graph_turns_a_hostile_json_graph_into_one_error_line(tmp_path_factory, key, value):
    import json
    from dmlemu.tools.cli import main
    from dmlemu.tools.graph_view import EXAMPLE
    spec = json.loads(json.dumps(EXAMPLE))
    spec["sizes"] = [4, 4]
    if key.startswith("node."):
        spec["nodes"][0][key[5:]] = value
    else:
        spec[key] = value
    path = tmp_path_factory.mktemp("g") / "g.json"
    path.write_text(json.dumps(spec))
    import contextlib
    import io
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(["graph", str(path)])
    assert status in (0, 2)
    from operator_cases import ACCEPTED, REFUSED, outcome
    if status == 2:
        assert err.getvalue().startswith("dmlemu: error: ") and err.getvalue().count("\n") == 1, err.getvalue()
    outcome(REFUSED if status == 2 else ACCEPTED)


_TYPES = {"INT8": DML_TENSOR_DATA_TYPE_INT8, "UINT8": U8, "INT16": DML_TENSOR_DATA_TYPE_INT16,
          "UINT16": DML_TENSOR_DATA_TYPE_UINT16, "INT32": DML_TENSOR_DATA_TYPE_INT32, "UINT32": U32,
          "INT64": DML_TENSOR_DATA_TYPE_INT64, "UINT64": DML_TENSOR_DATA_TYPE_UINT64, "FLOAT16": F16}


@pytest.mark.parametrize("type_name", ["INT8", "UINT8", "INT16", "UINT16", "INT64"])   # each copy kind once
def test_fused_integer_and_64_bit_edges_keep_the_bits_a_store_and_load_would(type_name):
    """Edges of every width and signedness inside one fused kernel (the copies that stand for a store and
    a load: v_mov_b32, v_bfe_u32 / v_bfe_i32 of 8 or 16 bits, register pairs)."""
    if not all(has_kernel(n) for n in ("ELEMENT_WISE_ADD", "ELEMENT_WISE_MULTIPLY", "ELEMENT_WISE_MAX")):
        pytest.skip("no binary kernels")
    t = tensor([3, 7], _TYPES[type_name])
    add = op("ELEMENT_WISE_ADD", ATensor=t, BTensor=t, OutputTensor=t)
    mul = op("ELEMENT_WISE_MULTIPLY", ATensor=t, BTensor=t, OutputTensor=t)
    big = op("ELEMENT_WISE_MAX", ATensor=t, BTensor=t, OutputTensor=t)
    spec = GraphSpec(nodes=[(add, "add"), (mul, "mul"), (big, "max")], input_count=2, output_count=2,
                     inputs=[(0, 0, 0), (1, 0, 1), (1, 1, 1), (0, 2, 1)],
                     intermediates=[(0, 0, 1, 0), (1, 0, 2, 0)], outputs=[(2, 0, 0), (0, 0, 1)])
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=64)
    graph = rig.dml.CompileGraph(graph_desc(rig.dml, spec), DML_EXECUTION_FLAG_NONE)
    assert [d.nodes for d in inspect(graph).dispatches] == [(0, 1, 2)]
    rng = np.random.default_rng(len(type_name))
    inputs = [np.frombuffer(rng.integers(0, 256, t.Desc.TotalTensorSizeInBytes, dtype=np.uint8).tobytes(), np.uint8)
              for _ in range(2)]
    assert_graph_matches(spec, inputs, rig=rig)


def test_a_comparison_feeds_if_through_a_byte_kept_in_a_register():
    if not has_kernel("ELEMENT_WISE_LOGICAL_GREATER_THAN"):
        pytest.skip("no comparison kernel")
    c = tensor([4, 16], U8)
    greater = op("ELEMENT_WISE_LOGICAL_GREATER_THAN", ATensor=X, BTensor=X, OutputTensor=c)
    spec = GraphSpec(nodes=[(greater, "greater"), (if_(c, X, X), "select"), (clip(X, -1.0, 1.0), "clip")],
                     input_count=2, output_count=1, inputs=[(0, 0, 0), (1, 0, 1), (0, 1, 1), (1, 1, 2)],
                     intermediates=[(0, 0, 1, 0), (1, 0, 2, 0)], outputs=[(2, 0, 0)])
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=64)
    graph = rig.dml.CompileGraph(graph_desc(rig.dml, spec), DML_EXECUTION_FLAG_NONE)
    assert [d.nodes for d in inspect(graph).dispatches] == [(0, 1, 2)]
    a, b = _random(X, 50), _random(X, 51)
    (out,) = assert_graph_matches(spec, [a, b], rig=rig)
    fa, fb = a.view(np.float32), b.view(np.float32)
    with np.errstate(invalid="ignore"):
        same_bits(out.view(np.float32), golden.clip(np.where(fa > fb, fa, fb), -1.0, 1.0))


def test_a_graph_input_no_edge_uses_may_be_bound_as_none():
    spec = dataclasses.replace(chain(), input_count=2, inputs=[(1, 0, 0)])   # graph input 0 feeds nothing
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=64)
    graph = rig.dml.CompileGraph(graph_desc(rig.dml, spec), DML_EXECUTION_FLAG_NONE)
    rig.initialize(graph)
    rig.execute()
    x = _random(X, 60)
    a, out = rig.buffer(256), rig.buffer(256)
    rig.write(a, x)
    table = rig.table(graph)
    table.BindInputs([DML_BINDING_DESC(Type=DML_BINDING_TYPE_NONE), buffer_binding(a)])
    table.BindOutputs([buffer_binding(out)])
    rig.recorder.RecordDispatch(rig.list, graph, table)
    rig.execute()
    assert removal(rig.dml) == (S_OK, "")
    expected = golden.identity(golden.threshold(golden.clip(x.view(np.float32), -1.0, 2.0), 0.5), scale_bias=(3.0, 1.0))
    same_bits(rig.read(out).view(np.float32), expected)


_CHAINABLE = {}


def _chainable(dml, data_type):
    """The operators (short names, tools/operators) whose output keeps `data_type` and whose desc CreateOperator
    takes with that type: links of a chain."""
    from dmlemu.tools.operators import OPERATORS as SHORT, OperatorRun, operator_desc
    if data_type not in _CHAINABLE:
        found = []
        for short in sorted(SHORT):
            try:
                run = OperatorRun(short, data_type=data_type, sizes=(2, 5))
                if run.element_wise and run.tensor_types()[-1] == data_type:   # (GEMM, REDUCE, ... run there too)
                    dml.CreateOperator(operator_desc(run))
                    found.append(short)
            except (HResultError, ValueError):
                continue
        _CHAINABLE[data_type] = found
    return _CHAINABLE[data_type]


@settings(max_examples=scaled(6), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["FLOAT32", "FLOAT16"]), st.data())
def test_random_chains_of_any_element_wise_operators_fuse_bit_exactly(data_type, data):
    """Three operators drawn from every element-wise operator with a kernel (transcendentals, integer-style
    bit operators on float bits, activations with attributes, ...), each reading the previous one's output
    in its first input of the chain's type; their other inputs are graph inputs."""
    from dmlemu.tools.operators import OperatorRun, operator_desc
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=96)
    names = data.draw(st.lists(st.sampled_from(_chainable(rig.dml, data_type)), min_size=3, max_size=3))
    nodes, inputs, intermediates, graph_inputs = [], [], [], []
    for k, short in enumerate(names):
        desc = operator_desc(OperatorRun(short, data_type=data_type, sizes=(2, 5)))
        nodes.append((desc, short.lower()))
        ins = _tensors(desc)[0]
        chained = next(j for j, t in enumerate(ins) if t.DataType == _tensors(desc)[1][0].DataType)   # IF: A
        for j, t in enumerate(ins):
            if j == chained and k > 0:
                intermediates.append((k - 1, 0, k, j))
            else:
                inputs.append((len(graph_inputs), k, j))
                graph_inputs.append(t)
    spec = GraphSpec(nodes=nodes, input_count=len(graph_inputs), output_count=1, inputs=inputs,
                     intermediates=intermediates, outputs=[(len(nodes) - 1, 0, 0)])
    seed = data.draw(st.integers(0, 1000))
    assert_graph_matches(spec, [_random(t, seed + g) for g, t in enumerate(graph_inputs)], rig=rig)


# ---- the partition's limits: nine vector tensors, uniform inputs, live ranges, values needed outside ----------------
def test_a_diamond_whose_first_value_is_also_a_graph_output_is_one_dispatch():
    """examples/directmlx_graph.py's diamond with h = x + bias also a graph output: relu's value is read by
    gate only, so it never counts as a memory output while sigmoid joins (x, bias, h, y: 4 tensors)."""
    for name in ("ELEMENT_WISE_ADD", "ELEMENT_WISE_MULTIPLY", "ACTIVATION_RELU", "ACTIVATION_SIGMOID"):
        if not has_kernel(name):
            pytest.skip(f"no {name} kernel")
    bias = tensor([4, 16], strides=[0, 1])
    spec = GraphSpec(nodes=[(op("ELEMENT_WISE_ADD", ATensor=X, BTensor=bias, OutputTensor=X), "add_bias"),
                            (op("ACTIVATION_RELU", InputTensor=X, OutputTensor=X), "relu"),
                            (op("ACTIVATION_SIGMOID", InputTensor=X, OutputTensor=X), "sigmoid"),
                            (op("ELEMENT_WISE_MULTIPLY", ATensor=X, BTensor=X, OutputTensor=X), "gate")],
                     input_count=2, output_count=2, inputs=[(0, 0, 0), (1, 0, 1)],
                     intermediates=[(0, 0, 1, 0), (0, 0, 2, 0), (1, 0, 3, 0), (2, 0, 3, 1)],
                     outputs=[(0, 0, 0), (3, 0, 1)])
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=64)
    graph = rig.dml.CompileGraph(graph_desc(rig.dml, spec), DML_EXECUTION_FLAG_NONE)
    assert [d.nodes for d in inspect(graph).dispatches] == [(0, 1, 2, 3)]
    assert [len(u.infos) for u in inspect(graph).units] == [4]
    assert_graph_matches(spec, [_random(X, 80), _random(bias, 81)], rig=rig)


@pytest.mark.parametrize("data_type", [F32, F16, DML_TENSOR_DATA_TYPE_INT8, DML_TENSOR_DATA_TYPE_INT64])
def test_uniform_inputs_are_scalar_loads_beside_the_nine_vector_tensors(data_type):
    """Ten ADD / SUBTRACT nodes, each reading one more one-element input broadcast by stride 0 (graph inputs and
    constant nodes): each is loaded once per wave by a scalar load, takes no addressing, and the kernel keeps
    the packed path; eight fit one kernel (FUSED_UNIFORM_LIMIT), the last two make the second dispatch."""
    if not (has_kernel("ELEMENT_WISE_ADD") and has_kernel("ELEMENT_WISE_SUBTRACT")):
        pytest.skip("no ELEMENT_WISE_ADD / SUBTRACT kernel")
    x, one = tensor([4, 16], data_type), tensor([4, 16], data_type, strides=[0, 0])
    nodes, inputs, intermediates, values = [], [(0, 0, 0)], [], [_random(x, 90)]
    size = _dtype(x).itemsize
    for i in range(10):
        name = "ELEMENT_WISE_ADD" if i % 2 == 0 else "ELEMENT_WISE_SUBTRACT"
        nodes.append((op(name, ATensor=x, BTensor=one, OutputTensor=x), f"n{i}"))
        if i > 0:
            intermediates.append((2 * i - 2 if i > 5 else i - 1, 0, len(nodes) - 1, 0))
    # nodes 0 .. 4 read graph inputs 1 .. 5; nodes 5 .. 9 read constant nodes (placed after each operator)
    spec_nodes, index = [], {}
    for i, node in enumerate(nodes):
        index[i] = len(spec_nodes)
        spec_nodes.append(node)
        if i >= 5:
            spec_nodes.append((_random(one, 100 + i)[:size].tobytes(), f"c{i}"))
    intermediates = []
    for i in range(10):
        if i > 0:
            intermediates.append((index[i - 1], 0, index[i], 0))
        if i < 5:
            inputs.append((1 + i, index[i], 1))
            values.append(_random(one, 100 + i))
        else:
            intermediates.append((index[i] + 1, 0, index[i], 1))
    spec = GraphSpec(nodes=spec_nodes, input_count=6, output_count=1, inputs=inputs, intermediates=intermediates,
                     outputs=[(index[9], 0, 0)])
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=64)
    graph = rig.dml.CompileGraph(graph_desc(rig.dml, spec), DML_EXECUTION_FLAG_NONE)
    assert [d.nodes for d in inspect(graph).dispatches] == [tuple(index[i] for i in range(8)), (index[8], index[9])]
    first = inspect(graph).units[0]
    assert len(first.infos) == 10                              # x, eight uniform inputs, the output
    source = first.source.splitlines()
    assert sum("buffer_load" in line for line in source) == 1, first.source      # x only
    scalar = "s_load_dwordx2 s[" if size == 8 else "s_load_dword s"
    assert sum(line.strip().startswith(scalar) for line in source) == 8, first.source
    from dmlemu.tools.graph_view import format_partition
    view = format_partition(graph).splitlines()
    assert [line.count("(scalar load)") for line in view if "dispatch " in line] == [8, 2]
    assert_graph_matches(spec, values, rig=rig)


def test_more_than_four_strided_tensors_take_the_general_addressing_path_of_tensors_4_to_8():
    """A chain of five ADDs reading transposed graph inputs: seven vector tensors, the general path
    (address.inc's tensors 4 .. 8 in v28 ..), bit for bit."""
    if not has_kernel("ELEMENT_WISE_ADD"):
        pytest.skip("no ELEMENT_WISE_ADD kernel")
    t = tensor([4, 16], strides=[1, 4])
    nodes = [(op("ELEMENT_WISE_ADD", ATensor=X if i else t, BTensor=t, OutputTensor=X), f"a{i}") for i in range(5)]
    spec = GraphSpec(nodes=nodes, input_count=6, output_count=1,
                     inputs=[(0, 0, 0)] + [(g, g - 1, 1) for g in range(1, 6)],
                     intermediates=[(i, 0, i + 1, 0) for i in range(4)], outputs=[(4, 0, 0)])
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=64)
    graph = rig.dml.CompileGraph(graph_desc(rig.dml, spec), DML_EXECUTION_FLAG_NONE)
    assert [d.nodes for d in inspect(graph).dispatches] == [(0, 1, 2, 3, 4)]
    assert len(inspect(graph).units[0].infos) == 7
    # tensors 4 .. 6 leave address.inc's v28 .. v30 for registers above every stage's own
    assert inspect(graph).units[0].source.count("tensor offset kept above the stages' registers") == 3
    assert_graph_matches(spec, [_random(t, 110 + g) for g in range(6)], rig=rig)


def test_a_long_chain_keeps_one_value_at_a_time_in_registers():
    """Twenty nodes (more than the old limit of 8) in one kernel; a value's register is free again at the node
    that reads it last, so the fused kernel uses hardly more VGPRs than its largest node."""
    nodes = [(clip(X, -1.0, 2.0) if i % 2 else identity(X, scale_bias=(1.5, -0.25)), f"n{i}") for i in range(20)]
    spec = GraphSpec(nodes=nodes, input_count=1, output_count=1, inputs=[(0, 0, 0)],
                     intermediates=[(i, 0, i + 1, 0) for i in range(19)], outputs=[(19, 0, 0)])
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=64)
    graph = rig.dml.CompileGraph(graph_desc(rig.dml, spec), DML_EXECUTION_FLAG_NONE)
    (unit,) = inspect(graph).units
    assert unit.nodes == tuple(range(20))
    largest = max(inspect(compiled).kernel.vgprs_used for compiled in inspect(graph).nodes.values())
    assert unit.kernel.vgprs_used <= max(32, largest + 2) + 2
    assert_graph_matches(spec, [_random(X, 120)], rig=rig)


def test_a_long_fused_name_is_whole_in_the_trace_and_its_files(tmp_path):
    """Twenty nodes' names with the fused kernel's name pass 64 characters: the trace's name column widens for
    that trace only (a trace whose names fit keeps U64 and its bytes), and the name survives .npz and the Chrome
    JSON whole."""
    from dmlemu.traces.chrome import to_chrome
    from dmlemu.traces.io import load_trace, save_trace
    nodes = [(clip(X, -1.0, 2.0) if i % 2 else identity(X, scale_bias=(1.5, -0.25)), f"node_{i:02d}")
             for i in range(20)]
    spec = GraphSpec(nodes=nodes, input_count=1, output_count=1, inputs=[(0, 0, 0)],
                     intermediates=[(i, 0, i + 1, 0) for i in range(19)], outputs=[(19, 0, 0)])
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=64)
    _, trace = run_graph(rig, spec, [_random(X, 130)], trace=True)
    name = "+".join(f"node_{i:02d}" for i in range(20)) + ": fused_" + "_".join(
        "clip" if i % 2 else "identity" for i in range(20))
    assert len(name) > 128 and [str(n) for n in trace.dispatches["name"]] == [name]
    assert trace.dispatches.dtype["name"].itemsize // 4 == -(-len(name) // 64) * 64
    save_trace(trace, tmp_path / "long.npz")
    assert [str(n) for n in load_trace(tmp_path / "long.npz").dispatches["name"]] == [name]
    assert any(e.get("name") == f"{name} #0" for e in to_chrome(trace)["traceEvents"])   # the kernel's slice
    _, short = run_graph(rig, chain(), [_random(X, 131)], trace=True)
    assert short.dispatches.dtype["name"].itemsize // 4 == 64


# ---- names are data ----------------------------------------------------------------------------------
HOSTILE_NAMES = {
    "newline and s_endpgm": "clip\n    s_endpgm\n",
    "label and s_endpgm": "x\ndone:\ns_endpgm",
    "directive": "\n.if 0\n",
    "include": '\n.include "/dev/zero"\n',
    "comment marker": "; s_endpgm // x",
    "substitution": "${ELEMENTS}${OFF_OUT}",
    "carriage return and line separator": "a\r\ns_endpgm\u2028s_endpgm\x85",
    "non-ASCII": "\u00e9t\u00e9 \u6f22\u5b57 \U0001f600",
    "20,000 characters": "n" * 20_000,
}


@pytest.mark.parametrize("name", HOSTILE_NAMES.values(), ids=HOSTILE_NAMES.keys())
def test_a_node_name_is_data_it_never_reaches_the_fused_source_and_results_stay_bit_exact(name):
    spec = chain()
    spec.nodes = [(node, name) for node, _ in spec.nodes]
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=64)
    graph = rig.dml.CompileGraph(graph_desc(rig.dml, spec), DML_EXECUTION_FLAG_NONE)
    (unit,) = inspect(graph).units
    assert name not in unit.source and "; ---- stage 2: node 1, ELEMENT_WISE_THRESHOLD" in unit.source
    x = _random(X, 13)
    (fused,), trace = run_graph(rig, spec, [x], trace=True)
    expected = golden.identity(golden.threshold(golden.clip(x.view(np.float32), -1.0, 2.0), 0.5), scale_bias=(3.0, 1.0))
    same_bits(fused.view(np.float32), expected)
    # The names are kept beside the kernel: the trace names the dispatch by them (its first MAX_NAME characters).
    assert [str(n) for n in trace.dispatches["name"]] == \
        [f"{name}+{name}+{name}: fused_clip_threshold_identity"[:MAX_NAME]]


def test_forty_fused_nodes_with_20000_character_names_compile_and_run_bit_exact():
    count = 40
    nodes = [(clip(X, -1.0 - k / 64, 2.0 + k / 64) if k % 2 else threshold(X, 0.5 - k / 64), chr(0x41 + k % 26) * 20_000)
             for k in range(count)]
    spec = GraphSpec(nodes=nodes, input_count=1, output_count=1, inputs=[(0, 0, 0)],
                     intermediates=[(k, 0, k + 1, 0) for k in range(count - 1)], outputs=[(count - 1, 0, 0)])
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=64)
    graph = rig.dml.CompileGraph(graph_desc(rig.dml, spec), DML_EXECUTION_FLAG_NONE)
    assert [unit.nodes for unit in inspect(graph).units] == [tuple(range(FUSED_NODE_LIMIT)),
                                                             tuple(range(FUSED_NODE_LIMIT, count))]
    x = _random(X, 14)
    (fused,) = run_graph(rig, spec, [x])
    expected = x.view(np.float32)
    for k in range(count):
        expected = (golden.clip(expected, -1.0 - k / 64, 2.0 + k / 64) if k % 2 else
                    golden.threshold(expected, 0.5 - k / 64))
    same_bits(fused.view(np.float32), expected)


def test_a_reduction_runs_in_a_graph_between_element_wise_nodes():
    """REDUCE is no element-wise node: it is a dispatch of its own (one workgroup per output, LDS), fed by a fused
    element-wise chain and feeding another."""
    out = tensor([4, 1])
    spec = GraphSpec(nodes=[(clip(X, -1.0, 2.0), "clip"), (threshold(X, 0.5), "threshold"),
                            (op("REDUCE", Function=DML_REDUCE_FUNCTION_SUM, InputTensor=X, OutputTensor=out,
                                Axes=[1]), "sum"),
                            (identity(out, scale_bias=(3.0, 1.0)), "scale")],
                     input_count=1, output_count=1, inputs=[(0, 0, 0)],
                     intermediates=[(0, 0, 1, 0), (1, 0, 2, 0), (2, 0, 3, 0)], outputs=[(3, 0, 0)])
    assert_graph_matches(spec, [_random(X, 3)])


def test_a_softmax_and_a_cumulative_sum_run_in_a_graph_between_element_wise_nodes():
    """SOFTMAX is no element-wise node: a dispatch of its own (one workgroup per row, LDS), fed by a fused
    element-wise chain and feeding a CUMULATIVE_SUMMATION (one thread per line), then another element-wise node."""
    spec = GraphSpec(nodes=[(clip(X, -1.0, 2.0), "clip"), (threshold(X, 0.5), "threshold"),
                            (op("ACTIVATION_SOFTMAX", InputTensor=X, OutputTensor=X), "softmax"),
                            (op("CUMULATIVE_SUMMATION", InputTensor=X, OutputTensor=X, Axis=1, AxisDirection=1,
                                HasExclusiveSum=0), "cumsum"),
                            (identity(X, scale_bias=(3.0, 1.0)), "scale")],
                     input_count=1, output_count=1, inputs=[(0, 0, 0)],
                     intermediates=[(0, 0, 1, 0), (1, 0, 2, 0), (2, 0, 3, 0), (3, 0, 4, 0)], outputs=[(4, 0, 0)])
    assert_graph_matches(spec, [_random(X, 3)])


def test_a_gemm_runs_in_a_graph_between_element_wise_nodes():
    """GEMM is no element-wise node: a dispatch of its own (a grid of 64 x 64 blocks, LDS tiles), fed by a fused
    element-wise chain, with a FusedActivation, and feeding another node."""
    w, out = tensor([16, 5]), tensor([4, 5])
    relu = DML_OPERATOR_DESC(Type=int(DML_OPERATOR_ACTIVATION_RELU), Desc=DML_ACTIVATION_RELU_OPERATOR_DESC())
    spec = GraphSpec(nodes=[(clip(X, -1.0, 2.0), "clip"), (threshold(X, 0.5), "threshold"),
                            (op("GEMM", ATensor=X, BTensor=w, CTensor=out, OutputTensor=out, TransA=0, TransB=0,
                                Alpha=0.5, Beta=-1.0, FusedActivation=relu), "gemm"),
                            (identity(out, scale_bias=(3.0, 1.0)), "scale")],
                     input_count=3, output_count=1, inputs=[(0, 0, 0), (1, 2, 1), (2, 2, 2)],
                     intermediates=[(0, 0, 1, 0), (1, 0, 2, 0), (2, 0, 3, 0)], outputs=[(3, 0, 0)])
    assert_graph_matches(spec, [_random(X, 3), _random(w, 4), _random(out, 5)])


def test_a_convolution_runs_in_a_graph_between_element_wise_nodes():
    """CONVOLUTION is a dispatch of its own (one thread per output element), fed by a fused element-wise chain,
    with a bias and a FusedActivation, and feeding another node."""
    x, w, bias, out = tensor([1, 4, 5, 6]), tensor([6, 2, 3, 3]), tensor([1, 6, 1, 1]), tensor([1, 6, 5, 3])
    relu = DML_OPERATOR_DESC(Type=int(DML_OPERATOR_ACTIVATION_RELU), Desc=DML_ACTIVATION_RELU_OPERATOR_DESC())
    conv = op("CONVOLUTION", InputTensor=x, FilterTensor=w, BiasTensor=bias, OutputTensor=out,
              Mode=DML_CONVOLUTION_MODE_CROSS_CORRELATION, Direction=DML_CONVOLUTION_DIRECTION_FORWARD,
              Strides=[1, 2], Dilations=[1, 1], StartPadding=[1, 1], EndPadding=[1, 0], OutputPadding=[0, 0],
              GroupCount=2, FusedActivation=relu)
    spec = GraphSpec(nodes=[(clip(x, -1.0, 2.0), "clip"), (threshold(x, 0.5), "threshold"), (conv, "conv"),
                            (identity(out, scale_bias=(3.0, 1.0)), "scale")],
                     input_count=3, output_count=1, inputs=[(0, 0, 0), (1, 2, 1), (2, 2, 2)],
                     intermediates=[(0, 0, 1, 0), (1, 0, 2, 0), (2, 0, 3, 0)], outputs=[(3, 0, 0)])
    assert_graph_matches(spec, [_random(x, 3), _random(w, 4), _random(bias, 5)])
