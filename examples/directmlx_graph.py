"""A DirectMLX-style graph on the mirror: x * 2 + 1 -> Relu -> Clip, and a diamond with a broadcast bias.

    python examples/directmlx_graph.py          (from the repository root)

Microsoft's DirectMLX (DirectML/Libraries/DirectMLX.h) lets a C++ program write

    dml::Graph graph(dmlDevice.Get());
    auto x = dml::InputTensor(graph, 0, desc);
    auto y = dml::Clip(dml::ActivationRelu(x * 2.0f + 1.0f), 0.0f, 6.0f);
    auto op = graph.Compile(DML_EXECUTION_FLAG_NONE, {y});

and turns it into plain DirectML calls: every expression is one operator node (IDMLDevice::CreateOperator),
`x * 2.0f` and `+ 1.0f` are two ELEMENT_WISE_IDENTITY nodes with a DML_SCALE_BIAS of {2, 0} and {1, 1},
each output tensor is packed with its first input's Sizes and DataType, `dml::Reinterpret` only changes
the tensor desc a consumer reads (no node: a stride-0 Reinterpret is how DirectMLX broadcasts), and
Graph::Compile builds one DML_GRAPH_DESC (GraphBuilder::GetGraphDesc: input edges, intermediate edges,
output edges) for IDMLDevice1::CompileGraph. `Graph` and `Expression` below mimic that in a few lines.

The host side is HelloDirectML's flow for the compiled graph: an initializer dispatch that fills the
persistent resource, a binding table with the graph's inputs, outputs, temporary and persistent
resources, RecordDispatch, ExecuteCommandLists, a fence and a readback. Each graph runs fused (as
DirectML does) and unfused (`CompileGraph(..., fuse=False)`, dmlemu's switch), and both results are
checked bit for bit against the nodes run one by one through dmlemu.golden.run (docs/GRAPHS.md: fusion
never changes a bit). The trace line says how many dispatches the nodes became.
"""
import dataclasses

import numpy as np

from dmlemu import golden
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.traces import capture

F32 = DML_TENSOR_DATA_TYPE_FLOAT32


def data_type_of(dtype):
    """The DML_TENSOR_DATA_TYPE of a NumPy dtype (dmlemu.golden.DATA_TYPES names both)."""
    name = next(n for n, d in golden.DATA_TYPES.items() if d == np.dtype(dtype))
    return DML_TENSOR_DATA_TYPE[f"DML_TENSOR_DATA_TYPE_{name}"]


def tensor_desc(sizes, data_type=F32, strides=None, total=None):
    """A DML_TENSOR_DESC (packed unless `strides`; `total`: TotalTensorSizeInBytes when it is given)."""
    sizes = list(sizes)
    if total is None:
        total = DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides)
    return DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=data_type, Flags=DML_TENSOR_FLAG_NONE, Sizes=sizes, Strides=strides, TotalTensorSizeInBytes=total))


# ---- a DirectMLX in miniature ------------------------------------------------------------------------
class Expression:
    """dml::Expression: one node output (`source`: ("input", graph input), ("node", node index) or
    ("constant", constant index)) and the tensor desc its consumers read it with (a Reinterpret changes
    only that)."""

    def __init__(self, graph, source, tensor):
        self.graph, self.source, self.tensor = graph, source, tensor

    # DirectMLX.h: expression (op) float is an IDENTITY with a ScaleBias; expression (op) expression a binary node
    def __add__(self, b):
        return identity(self, (1.0, b)) if isinstance(b, float) else self.graph.node("ELEMENT_WISE_ADD", self, b)

    def __mul__(self, b):
        return identity(self, (b, 0.0)) if isinstance(b, float) else self.graph.node("ELEMENT_WISE_MULTIPLY", self, b)


@dataclasses.dataclass
class Node:
    """One operator node: DML_OPERATOR_<operator>, its inputs in the desc's tensor order, its other desc
    fields, its output tensor desc and its name (DML_OPERATOR_GRAPH_NODE_DESC.Name)."""
    operator: str
    inputs: tuple
    fields: dict
    output: DML_TENSOR_DESC
    name: str


class Graph:
    """dml::Graph: records operator and constant nodes; `compile` builds the DML_GRAPH_DESC the way
    DirectMLX's GraphBuilder::GetGraphDesc does and calls IDMLDevice1::CompileGraph."""

    def __init__(self, dml):
        self.dml = dml
        self.input_tensors = []   # graph input index -> the tensor desc it was declared with
        self.nodes = []           # Node, in creation order
        self.constants = []       # (bytes, name): DML_CONSTANT_DATA_GRAPH_NODE_DESC (DML_FEATURE_LEVEL_6_2)

    def input(self, sizes, data_type=F32):
        """dml::InputTensor(graph, index, desc): graph input `index` is the next one."""
        self.input_tensors.append(tensor_desc(sizes, data_type))
        return Expression(self, ("input", len(self.input_tensors) - 1), self.input_tensors[-1])

    def constant(self, array, name=None):
        """dml::ConstantData: bytes the graph holds (packed, with the array's shape and NumPy type)."""
        array = np.ascontiguousarray(array)
        self.constants.append((array.tobytes(), name))
        return Expression(self, ("constant", len(self.constants) - 1),
                          tensor_desc(array.shape or [1], data_type_of(array.dtype)))

    def node(self, operator, *inputs, output_type=None, name=None, **fields):
        """An operator node of DML_OPERATOR_<operator>: inputs in the desc's tensor order, the output packed
        with the first input's Sizes and (unless `output_type`) DataType, as DirectMLX's ElementWiseUnary /
        ElementWiseBinary make it."""
        first = inputs[0].tensor.Desc
        output = tensor_desc(first.Sizes, first.DataType if output_type is None else output_type)
        self.nodes.append(Node(operator, inputs, fields, output, name or f"{operator.lower()}_{len(self.nodes)}"))
        return Expression(self, ("node", len(self.nodes) - 1), output)

    def name(self, *names):
        """Name the operator nodes in creation order (what DirectMLX's NameScope / PushName are for)."""
        for node, name in zip(self.nodes, names):
            node.name = name

    def operator_desc(self, node):
        """A node's DML_OPERATOR_DESC: its input Expressions' tensor descs, its output, its other fields."""
        struct = globals()[f"DML_{node.operator}_OPERATOR_DESC"]
        tensor_fields = [f for f in struct._fields_ if f.endswith("Tensor") and f != "OutputTensor"]
        tensors = {f: x.tensor for f, x in zip(tensor_fields, node.inputs)}
        return DML_OPERATOR_DESC(Type=globals()[f"DML_OPERATOR_{node.operator}"],
                                 Desc=struct(**tensors, OutputTensor=node.output, **node.fields))

    def graph_desc(self, outputs):
        """GraphBuilder::GetGraphDesc: the operator nodes, then the constant nodes; an input or intermediate
        edge per node input, an output edge per requested output."""
        nodes, input_edges, intermediate_edges = [], [], []
        for k, node in enumerate(self.nodes):
            operator = self.dml.CreateOperator(self.operator_desc(node))
            nodes.append(DML_GRAPH_NODE_DESC(Type=DML_GRAPH_NODE_TYPE_OPERATOR,
                                             Desc=DML_OPERATOR_GRAPH_NODE_DESC(Operator=operator, Name=node.name)))
            for j, x in enumerate(node.inputs):
                kind, index = x.source
                if kind == "input":
                    input_edges.append(DML_GRAPH_EDGE_DESC(
                        Type=DML_GRAPH_EDGE_TYPE_INPUT,
                        Desc=DML_INPUT_GRAPH_EDGE_DESC(GraphInputIndex=index, ToNodeIndex=k, ToNodeInputIndex=j)))
                else:   # constant nodes come after the operator nodes in DML_GRAPH_DESC.Nodes
                    intermediate_edges.append(DML_GRAPH_EDGE_DESC(
                        Type=DML_GRAPH_EDGE_TYPE_INTERMEDIATE, Desc=DML_INTERMEDIATE_GRAPH_EDGE_DESC(
                            FromNodeIndex=index + (len(self.nodes) if kind == "constant" else 0), FromNodeOutputIndex=0,
                            ToNodeIndex=k, ToNodeInputIndex=j)))
        nodes += [DML_GRAPH_NODE_DESC(Type=DML_GRAPH_NODE_TYPE_CONSTANT,
                                      Desc=DML_CONSTANT_DATA_GRAPH_NODE_DESC(Data=data, DataSize=len(data), Name=name))
                  for data, name in self.constants]
        output_edges = [DML_GRAPH_EDGE_DESC(Type=DML_GRAPH_EDGE_TYPE_OUTPUT, Desc=DML_OUTPUT_GRAPH_EDGE_DESC(
            FromNodeIndex=y.source[1], FromNodeOutputIndex=0, GraphOutputIndex=h)) for h, y in enumerate(outputs)]
        return DML_GRAPH_DESC(InputCount=len(self.input_tensors), OutputCount=len(outputs), Nodes=nodes,
                              InputEdges=input_edges, OutputEdges=output_edges, IntermediateEdges=intermediate_edges)

    def compile(self, flags, outputs, fuse=True):
        """Graph::Compile: the DML_GRAPH_DESC through IDMLDevice1::CompileGraph (`fuse`: dmlemu's switch)."""
        device1 = self.dml.QueryInterface(IID_IDMLDevice1)
        return device1.CompileGraph(self.graph_desc(outputs), flags, fuse=fuse)


def identity(x, scale_bias=None):       # dml::Identity
    sb = None if scale_bias is None else DML_SCALE_BIAS(Scale=scale_bias[0], Bias=scale_bias[1])
    return x.graph.node("ELEMENT_WISE_IDENTITY", x, ScaleBias=sb)


def relu(x):                            # dml::ActivationRelu
    return x.graph.node("ACTIVATION_RELU", x)


def sigmoid(x):                         # dml::ActivationSigmoid
    return x.graph.node("ACTIVATION_SIGMOID", x)


def clip(x, low, high):                 # dml::Clip
    return x.graph.node("ELEMENT_WISE_CLIP", x, ScaleBias=None, Min=low, Max=high)


def reinterpret(x, sizes, strides):     # dml::Reinterpret: the same bytes read with other Sizes and Strides
    d = x.tensor.Desc
    return Expression(x.graph, x.source, tensor_desc(sizes, d.DataType, strides, d.TotalTensorSizeInBytes))


# ---- the host program: HelloDirectML's flow for a compiled graph -------------------------------------------
class Host:
    """A D3D12 device, a DirectML device, a queue, an allocator, a command list and a fence.
    `feature_level`: emulate a DirectML runtime that stops there (dmlemu's max_feature_level)."""

    def __init__(self, feature_level=None):
        self.device = D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0)
        self.dml = DMLCreateDevice(self.device, DML_CREATE_DEVICE_FLAG_NONE, max_feature_level=feature_level)
        self.queue = self.device.CreateCommandQueue(D3D12_COMMAND_QUEUE_DESC(Type=D3D12_COMMAND_LIST_TYPE_DIRECT))
        self.allocator = self.device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT)
        self.list = self.device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, self.allocator, None)
        self.recorder = self.dml.CreateCommandRecorder()
        self.fence = self.device.CreateFence(0, D3D12_FENCE_FLAG_NONE)
        self.fence_value = 0

    def buffer(self, size, heap_type=D3D12_HEAP_TYPE_DEFAULT, state=D3D12_RESOURCE_STATE_COMMON):
        flags = D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS if heap_type == D3D12_HEAP_TYPE_DEFAULT else \
            D3D12_RESOURCE_FLAG_NONE
        return self.device.CreateCommittedResource(CD3DX12_HEAP_PROPERTIES(heap_type), D3D12_HEAP_FLAG_NONE,
                                                   CD3DX12_RESOURCE_DESC.Buffer(max(256, size), flags), state, None)

    def close_execute_reset_wait(self):
        self.list.Close()
        self.queue.ExecuteCommandLists([self.list])
        self.fence_value += 1
        self.queue.Signal(self.fence, self.fence_value)
        self.fence.SetEventOnCompletion(self.fence_value, None)
        self.allocator.Reset()
        self.list.Reset(self.allocator, None)

    def run(self, compiled, inputs, output_tensors):
        """Initialize `compiled`, upload `inputs` (NumPy arrays, one per graph input), bind, dispatch and read
        back each graph output's bytes. Returns (the output bytes, the trace of the graph's dispatch)."""
        props = compiled.GetBindingProperties()
        initializer = self.dml.CreateOperatorInitializer([compiled])
        init_props = initializer.GetBindingProperties()
        heap = self.device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
            Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, Flags=D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE,
            NumDescriptors=init_props.RequiredDescriptorCount + props.RequiredDescriptorCount))
        self.list.SetDescriptorHeaps([heap])
        cpu, gpu = heap.GetCPUDescriptorHandleForHeapStart(), heap.GetGPUDescriptorHandleForHeapStart()
        step = self.device.GetDescriptorHandleIncrementSize(D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV)

        def binding(resource, size):
            return DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER,
                                    Desc=DML_BUFFER_BINDING(Buffer=resource, Offset=0, SizeInBytes=size))

        # 1. The initializer: DirectML copies each node's constants into the persistent resource.
        persistent = self.buffer(props.PersistentResourceSize)
        temporary_size = max(props.TemporaryResourceSize, init_props.TemporaryResourceSize)
        temporary = self.buffer(temporary_size) if temporary_size else None
        table = self.dml.CreateBindingTable(DML_BINDING_TABLE_DESC(
            Dispatchable=initializer, CPUDescriptorHandle=cpu, GPUDescriptorHandle=gpu,
            SizeInDescriptors=init_props.RequiredDescriptorCount))
        if props.PersistentResourceSize:
            table.BindOutputs([binding(persistent, props.PersistentResourceSize)])
        if init_props.TemporaryResourceSize:
            table.BindTemporaryResource(binding(temporary, init_props.TemporaryResourceSize))
        self.recorder.RecordDispatch(self.list, initializer, table)
        self.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.UAV(persistent)])

        # 2. The inputs: UPLOAD buffers copied into DEFAULT buffers the graph reads as UAVs.
        staging, input_bindings = [], []
        for array in inputs:
            data = np.ascontiguousarray(array).view(np.uint8).reshape(-1)
            upload = self.buffer(data.size, D3D12_HEAP_TYPE_UPLOAD, D3D12_RESOURCE_STATE_GENERIC_READ)
            upload.Map(0, None)[:data.size] = data
            upload.Unmap(0, None)
            target = self.buffer(data.size, state=D3D12_RESOURCE_STATE_COPY_DEST)
            self.list.CopyBufferRegion(target, 0, upload, 0, data.size)
            self.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
                target, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)])
            staging.append(upload)
            input_bindings.append(binding(target, data.size))
        self.close_execute_reset_wait()

        # 3. The graph: its binding table (the heap's next range), RecordDispatch, then a readback copy.
        self.list.SetDescriptorHeaps([heap])
        first = init_props.RequiredDescriptorCount
        table.Reset(DML_BINDING_TABLE_DESC(
            Dispatchable=compiled, CPUDescriptorHandle=D3D12_CPU_DESCRIPTOR_HANDLE(ptr=cpu.ptr + first * step),
            GPUDescriptorHandle=D3D12_GPU_DESCRIPTOR_HANDLE(ptr=gpu.ptr + first * step),
            SizeInDescriptors=props.RequiredDescriptorCount))
        sizes = [t.Desc.TotalTensorSizeInBytes for t in output_tensors]
        outputs = [self.buffer(size) for size in sizes]
        table.BindInputs(input_bindings)
        table.BindOutputs([binding(b, size) for b, size in zip(outputs, sizes)])
        if props.PersistentResourceSize:
            table.BindPersistentResource(binding(persistent, props.PersistentResourceSize))
        if props.TemporaryResourceSize:
            table.BindTemporaryResource(binding(temporary, props.TemporaryResourceSize))
        self.recorder.RecordDispatch(self.list, compiled, table)
        readback = self.buffer(256 * len(outputs) + sum(sizes), D3D12_HEAP_TYPE_READBACK,
                               D3D12_RESOURCE_STATE_COPY_DEST)
        offsets, at = [], 0
        for b, size in zip(outputs, sizes):
            self.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
                b, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE)])
            self.list.CopyBufferRegion(readback, at, b, 0, size)
            offsets.append(at)
            at += -(-size // 256) * 256
        with capture(self.device, detail="dispatch") as cap:   # what the emulated GPU did, per dispatch
            self.close_execute_reset_wait()
        mapped = readback.Map(0, None)
        results = [np.array(mapped[o:o + size]) for o, size in zip(offsets, sizes)]
        readback.Unmap(0, None)
        return results, cap.trace


# ---- the reference: the nodes one by one through dmlemu.golden -----------------------------------------------
def _dtype(tensor):
    return golden.DATA_TYPES[DML_TENSOR_DATA_TYPE(tensor.Desc.DataType).name[len("DML_TENSOR_DATA_TYPE_"):]]


def _read(data, tensor):
    """The tensor's elements in `data` (bytes), read with its Sizes and Strides (stride 0 broadcasts)."""
    d = tensor.Desc
    strides = tuple(d.Strides) if d.Strides is not None else golden.packed_strides(tuple(d.Sizes))
    return golden.gather(data, 0, _dtype(tensor), tuple(d.Sizes), strides)


def golden_values(graph, inputs):
    """Each node in order through golden.run on what its inputs read from the bytes their sources hold,
    its result stored as its packed output tensor's bytes. Returns {source: bytes} for every graph input,
    constant and node."""
    held = {("input", g): np.ascontiguousarray(a).view(np.uint8).reshape(-1) for g, a in enumerate(inputs)}
    held.update({("constant", c): np.frombuffer(data, np.uint8) for c, (data, _) in enumerate(graph.constants)})
    for k, node in enumerate(graph.nodes):
        arrays = [_read(held[x.source], x.tensor) for x in node.inputs]
        sb = node.fields.get("ScaleBias")
        attributes = {f: v for f, v in node.fields.items() if f != "ScaleBias"}
        output_type = _dtype(node.output)
        y = golden.run(node.operator, arrays, attributes, None if sb is None else (sb.Scale, sb.Bias),
                       output_type=output_type)
        held[("node", k)] = np.ascontiguousarray(y, output_type).view(np.uint8).reshape(-1)
    return held


def one_by_one(graph, inputs, outputs):
    """The bytes of each graph output when the nodes run one by one (golden_values)."""
    held = golden_values(graph, inputs)
    return [held[y.source] for y in outputs]


def as_array(data, tensor):
    """A graph output's bytes as a NumPy array of its tensor's Sizes and type."""
    return np.frombuffer(data.tobytes(), _dtype(tensor)).reshape(tensor.Desc.Sizes)


def run_and_check(host, graph, inputs, outputs, title, fuse=True):
    """Compile (fused or not) and run the graph; raise SystemExit unless every graph output is bit for bit
    what the golden nodes one by one give. Returns (the outputs as arrays, a one-line trace summary)."""
    expected = one_by_one(graph, inputs, outputs)
    compiled = graph.compile(DML_EXECUTION_FLAG_NONE, outputs, fuse=fuse)
    got, trace = host.run(compiled, inputs, [y.tensor for y in outputs])
    for h, (g, e) in enumerate(zip(got, expected)):
        if not np.array_equal(g, e):
            bad = np.flatnonzero(g != e)[0]
            raise SystemExit(f"{title} (fuse={fuse}): graph output {h} differs from the golden nodes one by one at "
                             f"byte {bad}: got {g[bad]}, expected {e[bad]}")
    rows = trace.summary()
    cycles = sum(r["cycles"] for r in rows)
    moved = sum(r["bytes_read"] + r["bytes_written"] for r in rows)
    kernels = " | ".join(r["kernel"].split(":")[0] for r in rows)   # a dispatch is named "<nodes>: <kernel>"
    line = (f"trace ({'fused' if fuse else 'unfused'}): {len(graph.nodes)} nodes ran as {len(rows)} "
            f"dispatch{'es' * (len(rows) != 1)} [{kernels}], {cycles} cycles, {moved} bytes read + written")
    return [as_array(g, y.tensor) for g, y in zip(got, outputs)], line


def check(host, graph, inputs, outputs, title):
    """run_and_check fused and unfused, printing each trace line."""
    print(f"{title}: {len(graph.nodes)} operator nodes: {', '.join(node.name for node in graph.nodes)}")
    for fuse in (True, False):
        results, line = run_and_check(host, graph, inputs, outputs, title, fuse)
        print("  " + line)
    return results


def main():
    host = Host()
    rng = np.random.default_rng(7)

    # 1. x * 2 + 1 -> Relu -> Clip(0, 6): four nodes (two IDENTITYs, RELU, CLIP), one fused dispatch.
    graph = Graph(host.dml)
    x = graph.input([8, 128])
    y = clip(relu(x * 2.0 + 1.0), 0.0, 6.0)
    graph.name("scale", "bias", "relu", "clip")
    xs = rng.uniform(-4, 4, (8, 128)).astype(np.float32)
    [ys] = check(host, graph, [xs], [y], "chain x * 2 + 1 -> Relu -> Clip")
    print(f"  x[0, :4] = {xs[0, :4]}  ->  y[0, :4] = {ys[0, :4]}")

    # 2. A diamond with a broadcast bias: h = x + bias (one bias row read by every row: Strides {0, 1}),
    #    then y = Relu(h) * Sigmoid(h): both branches read h, and h and both branches stay in registers.
    graph = Graph(host.dml)
    x = graph.input([8, 128])
    bias = graph.input([128])
    h = x + reinterpret(bias, [8, 128], [0, 1])
    y = relu(h) * sigmoid(h)
    bs = np.linspace(-1, 1, 128, dtype=np.float32)
    graph.name("add_bias", "relu", "sigmoid", "gate")
    [ys] = check(host, graph, [xs, bs], [y], "diamond (x + broadcast bias) -> Relu * Sigmoid")
    print(f"  x[1, :3] = {xs[1, :3]}, bias[:3] = {bs[:3]}  ->  y[1, :3] = {ys[1, :3]}")
    print("bit-exact against dmlemu.golden (every node one by one), fused and unfused.")


if __name__ == "__main__":
    main()
