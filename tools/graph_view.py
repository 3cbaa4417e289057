"""`dmlemu graph`: how a DirectML graph is compiled into dispatches, as text and as a picture.

A graph is given as plain data (a dict, or a JSON file of the same shape): one data type and Sizes for
every tensor, the graph inputs by name, the nodes in order, each an operator with the names it reads
(graph inputs or earlier nodes, in the operator's input order) and its fields, and the names that are
graph outputs:

    {"dtype": "FLOAT32", "sizes": [1024],
     "inputs": ["x", "mask"],
     "nodes": [{"name": "scale", "op": "IDENTITY", "inputs": ["x"], "scale": 2, "bias": 1},
               {"name": "relu", "op": "relu", "inputs": ["scale"]},
               {"name": "clip", "op": "CLIP", "inputs": ["relu"], "attrs": {"Min": 0, "Max": 6}}],
     "outputs": ["clip"]}

Operators are named as `dmlemu run` names them (tools/operators.py: every operator with a kernel), and
each tensor takes the data type that operator gives it for "dtype" (IF's condition: UINT8). A node's
"attrs" are its desc's fields (Min, Max, Alpha, ...), "scale" / "bias" its ScaleBias. The graph is built
as a DML_GRAPH_DESC and compiled with IDMLDevice1.CompileGraph on the chosen adapter, through the
mirror as a program would; `format_partition` prints what the compiled graph runs (the partition of
emulator/directml/graph.py: dispatches level by level, UAV barriers, where each tensor lives, the
binding properties) and `plot_partition` draws it (matplotlib, PNG).
"""
import json

from dmlemu import data_types
from dmlemu.d3d12 import D3D12CreateDevice, D3D_FEATURE_LEVEL_11_0
from dmlemu.directml import (
    DML_CREATE_DEVICE_FLAG_NONE, DML_EXECUTION_FLAG_NONE, DML_GRAPH_DESC, DML_GRAPH_EDGE_DESC,
    DML_GRAPH_EDGE_TYPE_INPUT, DML_GRAPH_EDGE_TYPE_INTERMEDIATE, DML_GRAPH_EDGE_TYPE_OUTPUT, DML_GRAPH_NODE_DESC,
    DML_GRAPH_NODE_TYPE_OPERATOR, DML_INPUT_GRAPH_EDGE_DESC, DML_INTERMEDIATE_GRAPH_EDGE_DESC,
    DML_OPERATOR_GRAPH_NODE_DESC, DML_OUTPUT_GRAPH_EDGE_DESC, DMLCreateDevice,
)
from dmlemu.tools.operators import OperatorRun, UsageError, operator_desc, preset_for

__all__ = ["EXAMPLE", "load_graph", "graph_desc", "compile_graph", "format_partition", "plot_partition", "execute_graph"]

# A DirectMLX-style chain (x * 2 + 1 -> Relu -> Clip) with a masked branch: five dispatches in four levels.
EXAMPLE = {
    "dtype": "FLOAT32", "sizes": [256, 1024],
    "inputs": ["x", "mask"],
    "nodes": [
        {"name": "scale", "op": "IDENTITY", "inputs": ["x"], "scale": 2.0, "bias": 1.0},
        {"name": "floor", "op": "THRESHOLD", "inputs": ["x"], "attrs": {"Min": 0.0}},
        {"name": "relu", "op": "relu", "inputs": ["scale"]},
        {"name": "clip", "op": "CLIP", "inputs": ["relu"], "attrs": {"Min": 0.0, "Max": 6.0}},
        {"name": "select", "op": "IF", "inputs": ["mask", "clip", "floor"]},
    ],
    "outputs": ["select", "relu"],
}


MAX_GRAPH_FILE_BYTES = 64 << 20     # a graph file's size: far above any graph dmlemu can compile (its nodes' limits)


def load_graph(path):
    """A graph dict from a JSON file of at most MAX_GRAPH_FILE_BYTES of UTF-8 text (UsageError naming the file
    and what is wrong when it is not one: unreadable, too large or endless, not UTF-8, not JSON, nested deeper
    than the parser reads, a number past Python's digit limit)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_GRAPH_FILE_BYTES + 1)
    except OSError as error:
        raise UsageError(f"cannot read the graph file {path}: {error.strerror}") from None
    if len(data) > MAX_GRAPH_FILE_BYTES:
        raise UsageError(f"the graph file {path} holds more than {MAX_GRAPH_FILE_BYTES} bytes; a graph file holds "
                         "at most that") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UsageError(f"the graph file {path} is not UTF-8 text (byte 0x{data[error.start]:02x} at offset "
                         f"{error.start}); graph files are UTF-8 JSON") from None
    try:
        spec = json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"the graph file {path} is not JSON: {error.msg} at line {error.lineno}") from None
    except RecursionError:
        raise UsageError(f"the graph file {path} nests arrays or objects deeper than the JSON reader goes; a "
                         "graph is nested at most four deep") from None
    except ValueError as error:        # an integer past Python's digit limit
        raise UsageError(f"the graph file {path} holds a number the JSON reader refuses ({error}); sizes and "
                         "attributes are numbers of at most 32 or 64 bits") from None
    if not isinstance(spec, dict):
        raise UsageError(f"the graph file {path} holds a {type(spec).__name__}; it must hold one object")
    return spec


def _field(spec, key, kind, where):
    if key not in spec:
        raise UsageError(f"{where} has no \"{key}\"")
    if not isinstance(spec[key], kind):
        raise UsageError(f"{where}'s \"{key}\" is {spec[key]!r}; it must be a {kind.__name__}")
    return spec[key]


def _runs(spec):
    """(node names, {name: OperatorRun}, {name: input names}) of a graph dict, checked."""
    inputs = _field(spec, "inputs", list, "the graph")
    if not all(isinstance(name, str) for name in inputs) or len(set(inputs)) != len(inputs):
        raise UsageError(f"the graph's \"inputs\" is {inputs!r}; it must be a list of distinct names")
    sizes = _field(spec, "sizes", list, "the graph")
    if not sizes or not all(isinstance(n, int) and not isinstance(n, bool) and 0 < n < 1 << 32 for n in sizes):
        raise UsageError(f"the graph's \"sizes\" is {sizes!r}; it must be a list of positive integers")
    if not isinstance(spec.get("dtype", "FLOAT32"), str):
        raise UsageError(f"the graph's \"dtype\" is {spec['dtype']!r}; it must be a data type name")
    names, runs, reads = list(inputs), {}, {}
    for i, node in enumerate(_field(spec, "nodes", list, "the graph")):
        where = f"node {i}"
        if not isinstance(node, dict):
            raise UsageError(f"{where} is {node!r}; it must be an object")
        name = str(node.get("name", f"node {i}"))
        for key in ("scale", "bias"):
            if key in node and (isinstance(node[key], bool) or not isinstance(node[key], (int, float))):
                raise UsageError(f"{where}'s \"{key}\" is {node[key]!r}; it must be a number")
        if not isinstance(node.get("attrs", {}), dict):
            raise UsageError(f"{where}'s \"attrs\" is {node['attrs']!r}; it must be an object")
        if name in names:
            raise UsageError(f"{where} is named \"{name}\", which names an earlier input or node; names are unique")
        run = OperatorRun(_field(node, "op", str, where), data_type=spec.get("dtype"), sizes=tuple(sizes),
                          scale=node.get("scale"), bias=node.get("bias"), attributes=node.get("attrs"))
        wanted = len(run.schema.inputs)
        read = _field(node, "inputs", list, where)
        if len(read) != wanted:
            raise UsageError(f"{where} (\"{name}\", {run.name}) reads {len(read)} names; it has {wanted} inputs")
        for source in read:
            if source not in names:
                raise UsageError(f"{where} (\"{name}\") reads \"{source}\", which is no graph input and no earlier node")
        names.append(name)
        runs[name], reads[name] = run, read
    outputs = _field(spec, "outputs", list, "the graph")
    if not outputs:
        raise UsageError("the graph's \"outputs\" is empty; name at least one node")
    for name in outputs:
        if not isinstance(name, str) or name not in runs:
            raise UsageError(f"the graph's output \"{name}\" is no node")
    return list(inputs), runs, reads, outputs


def _edge(kind, struct, **fields):
    return DML_GRAPH_EDGE_DESC(Type=kind, Desc=struct(**fields))


def graph_desc(spec, dml):
    """The DML_GRAPH_DESC of a graph dict, its operators created on `dml` (an IDMLDevice)."""
    inputs, runs, reads, outputs = _runs(spec)
    order = list(runs)
    nodes, input_edges, intermediate_edges = [], [], []
    for k, name in enumerate(order):
        operator = dml.CreateOperator(operator_desc(runs[name]))
        nodes.append(DML_GRAPH_NODE_DESC(Type=DML_GRAPH_NODE_TYPE_OPERATOR,
                                         Desc=DML_OPERATOR_GRAPH_NODE_DESC(Operator=operator, Name=name)))
        for j, source in enumerate(reads[name]):
            if source in runs:
                intermediate_edges.append(_edge(DML_GRAPH_EDGE_TYPE_INTERMEDIATE, DML_INTERMEDIATE_GRAPH_EDGE_DESC,
                                                FromNodeIndex=order.index(source), FromNodeOutputIndex=0,
                                                ToNodeIndex=k, ToNodeInputIndex=j))
            else:
                input_edges.append(_edge(DML_GRAPH_EDGE_TYPE_INPUT, DML_INPUT_GRAPH_EDGE_DESC,
                                         GraphInputIndex=inputs.index(source), ToNodeIndex=k, ToNodeInputIndex=j))
    output_edges = [_edge(DML_GRAPH_EDGE_TYPE_OUTPUT, DML_OUTPUT_GRAPH_EDGE_DESC, FromNodeIndex=order.index(name),
                          FromNodeOutputIndex=0, GraphOutputIndex=h) for h, name in enumerate(outputs)]
    return DML_GRAPH_DESC(InputCount=len(inputs), OutputCount=len(outputs), Nodes=nodes, InputEdges=input_edges,
                          OutputEdges=output_edges, IntermediateEdges=intermediate_edges)


def compile_graph(spec, adapter=None, flags=DML_EXECUTION_FLAG_NONE, fuse=True):
    """The compiled graph (an IDMLCompiledOperator from IDMLDevice1.CompileGraph) of a graph dict on a
    fresh device of `adapter` (a preset key; None: the default adapter), fused or not."""
    device = D3D12CreateDevice(preset_for(adapter), D3D_FEATURE_LEVEL_11_0)
    dml = DMLCreateDevice(device, DML_CREATE_DEVICE_FLAG_NONE)
    return dml.CompileGraph(graph_desc(spec, dml), flags, fuse=fuse)


def _source_text(graph, source):
    plan = graph._plan
    if source is None:
        return "nothing"
    if source[0] == "input":
        return f"graph input {source[1]}"
    if source[0] == "constant":
        return f"constant {plan.nodes[source[1]].name}"
    return plan.nodes[source[1]].name


def _destination_text(graph, k, o):
    h = graph._plan.graph_output_of(k, o)
    if h is not None:
        return f"graph output {h}"
    return f"temporary +{graph._temporary_offset[(k, o)]}"


def format_partition(graph, spec=None):
    """What a compiled graph runs, as text: one line per dispatch, level by level, with the barriers. A
    fused dispatch lists its nodes in order ("a > b > c"), its uniform inputs ("(scalar load)") and the
    values it keeps in registers."""
    from dmlemu.kernels.fusion import is_uniform
    plan = graph._plan
    props = graph.GetBindingProperties()
    operators = sum(not n.is_constant for n in plan.nodes)
    fused = sum(unit.fused for unit in graph._units)
    head = (f"graph: {len(plan.nodes)} nodes ({operators} operators), {plan.input_count} inputs, "
            f"{plan.output_count} outputs")
    if spec is not None:
        head += f"; {spec.get('dtype', 'FLOAT32')} {list(spec.get('sizes', []))}"
    how = f"{fused} fused" if fused else "no fusion: one per operator node"
    lines = [head, f"dispatches: {len(plan.dispatches)} ({how}), UAV barriers: {plan.barrier_count}"]
    names = [unit.name.replace("+", " > ") for unit in graph._units]
    kinds = [" > ".join(plan.nodes[k].kind for k in unit.nodes) for unit in graph._units]
    width, kind_width = max(map(len, names)), max(map(len, kinds))
    level = None
    for unit, dispatch, name, kind in zip(graph._units, plan.dispatches, names, kinds):
        if dispatch.barrier_before:
            lines.append("  -- UAV barrier --")
        if dispatch.level != level:
            level = dispatch.level
            lines.append(f"level {level}")
        reads = ", ".join(_source_text(graph, plan.sources.get(ks[0])) +
                          (" (scalar load)" if unit.fused and is_uniform(tensor) else "")
                          for ks, tensor in zip(unit.inputs, unit.infos))
        writes = ", ".join(_destination_text(graph, k, o) for k, o in unit.outputs)
        line = f"  dispatch {unit.index + 1}  {name:<{width}}  {kind:<{kind_width}}  reads {reads}; writes {writes}"
        kept = [plan.nodes[k].name for k in unit.nodes if (k, 0) not in unit.outputs]
        if unit.fused:
            line += f"; in registers: {', '.join(kept) if kept else 'nothing'}"
        lines.append(line)
    lines.append(f"binding: {props.RequiredDescriptorCount} descriptors, temporary resource "
                 f"{props.TemporaryResourceSize} bytes, persistent resource {props.PersistentResourceSize} bytes")
    return "\n".join(lines)


def _crossings(start, end, rad, boxes):
    """How many sample points of matplotlib's arc3 curve from `start` to `end` lie inside a node box."""
    (x1, y1), (x2, y2) = start, end
    cx, cy = (x1 + x2) / 2 + rad * (y2 - y1), (y1 + y2) / 2 - rad * (x2 - x1)
    count = 0
    for i in range(1, 40):
        t = i / 40
        x = (1 - t) ** 2 * x1 + 2 * (1 - t) * t * cx + t ** 2 * x2
        y = (1 - t) ** 2 * y1 + 2 * (1 - t) * t * cy + t ** 2 * y2
        count += any(abs(x - bx) < 0.42 and abs(y - by) < 0.32 for bx, by in boxes)
    return count


def plot_partition(graph, path, title=None):
    """Draw the partition into a PNG: graph inputs on the left, one column per dependency level (a box per
    dispatch, its operator under its name), graph outputs on the right, an arrow per edge, dashed lines
    where the UAV barriers are."""
    from matplotlib.figure import Figure
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.patches import FancyBboxPatch

    plan = graph._plan
    units = graph._units
    levels = max((d.level for d in plan.dispatches), default=0) + 1
    columns = {}
    for dispatch, unit in zip(plan.dispatches, units):
        columns.setdefault(dispatch.level, []).append(unit)
    tallest = max([len(v) for v in columns.values()] + [plan.input_count, plan.output_count])
    fig = Figure(figsize=(2.6 * (levels + 2), 1.2 * tallest + 2.0))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    ax.set_xlim(-0.7, levels + 1.7)
    ax.set_ylim(-tallest - 0.2, 1.0)
    ax.axis("off")

    def ys(count):
        return [-(tallest - 1) / 2 - (count - 1) / 2 + i for i in range(count)][::-1]

    where = {}
    for g, y in zip(range(plan.input_count), ys(plan.input_count)):
        where[("input", g)] = (0, y)
        ax.text(0, y, f"graph input {g}", ha="center", va="center", fontsize=9,
                bbox=dict(boxstyle="round", facecolor="#e8eef7", edgecolor="#5577aa"))
    for level, members in columns.items():
        for unit, y in zip(members, ys(len(members))):
            x = level + 1
            for k in unit.nodes:
                where[("node", k)] = (x, y)
            short = [plan.nodes[k].kind.replace("ELEMENT_WISE_", "").replace("ACTIVATION_", "") for k in unit.nodes]
            if unit.fused:   # one line per node, in execution order
                rows = [f"{plan.nodes[k].name}: {kind}" for k, kind in zip(unit.nodes, short)]
                half = 0.16 + 0.065 * len(rows)
                ax.add_patch(FancyBboxPatch((x - 0.42, y - half), 0.84, 2 * half, boxstyle="round,pad=0.02",
                                            facecolor="#fde2c8", edgecolor="#b07d1a"))
                ax.text(x, y + half - 0.1, f"{unit.index + 1}. fused ({len(rows)} nodes)", ha="center", va="center",
                        fontsize=8, weight="bold")
                for i, row in enumerate(rows):
                    ax.text(x, y + half - 0.25 - 0.13 * i, row, ha="center", va="center", fontsize=7)
            else:
                ax.add_patch(FancyBboxPatch((x - 0.42, y - 0.3), 0.84, 0.6, boxstyle="round,pad=0.02",
                                            facecolor="#fdf1d8", edgecolor="#b07d1a"))
                ax.text(x, y + 0.1, f"{unit.index + 1}. {unit.name}", ha="center", va="center", fontsize=9,
                        weight="bold")
                ax.text(x, y - 0.14, short[0], ha="center", va="center", fontsize=7)
    for h, y in zip(range(plan.output_count), ys(plan.output_count)):
        where[("output", h)] = (levels + 1, y)
        ax.text(levels + 1, y, f"graph output {h}", ha="center", va="center", fontsize=9,
                bbox=dict(boxstyle="round", facecolor="#e6f2e6", edgecolor="#4a8a4a"))

    def arrow(a, b, color, j=0, inputs=1):
        """An edge into input j of `inputs` (its own point on the box's left side), bent around boxes."""
        (x0, y0), (x1, y1) = a, b
        y1 = y1 + 0.18 * ((inputs - 1) / 2 - j)
        rad = min((0.0, -0.25, 0.25), key=lambda r: (_crossings((x0 + 0.42, y0), (x1 - 0.42, y1), r, boxes),
                                                     abs(r)))
        ax.annotate("", xy=(x1 - 0.42, y1), xytext=(x0 + 0.42, y0),
                    arrowprops=dict(arrowstyle="->", color=color, lw=1.2, shrinkA=0, shrinkB=0,
                                    connectionstyle=f"arc3,rad={rad}"))

    boxes = sorted({xy for key, xy in where.items() if key[0] == "node"})
    for unit in units:
        for j, readers in enumerate(unit.inputs):
            source = plan.sources.get(readers[0])
            if source is None:
                continue
            if source[0] == "input":
                arrow(where[("input", source[1])], where[("node", unit.nodes[0])], "#5577aa", j, len(unit.inputs))
            elif source[0] == "node":
                temporary = plan.graph_output_of(source[1], source[2]) is None
                arrow(where[("node", source[1])], where[("node", unit.nodes[0])],
                      "#b07d1a" if temporary else "#4a8a4a", j, len(unit.inputs))
    for h, (k, o) in enumerate(plan.graph_outputs):
        arrow(where[("node", k)], where[("output", h)], "#4a8a4a")
    fig.text(0.01, 0.01, "boxes: dispatches (darker: a fused kernel, its nodes' values kept in registers)\nedges: "
                         "blue from a graph input, orange through the temporary resource, green into a graph output",
             fontsize=7, color="#555555")
    for dispatch in plan.dispatches:
        if dispatch.barrier_before:
            x = dispatch.level + 0.5
            ax.plot([x, x], [-tallest + 0.45, 0.75], linestyle="--", color="#aa3333", lw=1)
            ax.text(x, 0.82, "UAV barrier", ha="center", fontsize=7, color="#aa3333")
    props = graph.GetBindingProperties()
    count = len(plan.dispatches)
    ax.set_title(title or f"{count} dispatch{'es' if count != 1 else ''}, {plan.barrier_count} UAV barriers; temporary "
                          f"{props.TemporaryResourceSize} B, persistent {props.PersistentResourceSize} B",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def execute_graph(spec, inputs=None, *, adapter=None, fuse=True, seed=0, trace=None):
    """Run a graph dict through the mirror as a DirectML program does (CompileGraph, the initializer's
    dispatch, a binding table, RecordDispatch, ExecuteCommandLists) on `inputs` (one uint8 array of
    TotalTensorSizeInBytes per graph input; None: seeded random values) on a fresh device of `adapter`.
    Returns (the graph, each graph output's bytes, the trace of the graph's dispatch with `trace` a
    detail level, else None)."""
    import numpy as np
    from dmlemu import d3d12 as d
    from dmlemu import directml as dml_api
    from dmlemu.convenience import Session
    session = Session(adapter)
    device, dml, queue, cl, allocator = session.device, session.dml, session.queue, session.command_list, \
        session.allocator
    graph = dml.CompileGraph(graph_desc(spec, dml), DML_EXECUTION_FLAG_NONE, fuse=fuse)
    props = graph.GetBindingProperties()
    initializer = dml.CreateOperatorInitializer([graph])
    init_count = initializer.GetBindingProperties().RequiredDescriptorCount
    heap = device.CreateDescriptorHeap(d.D3D12_DESCRIPTOR_HEAP_DESC(
        Type=d.D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=props.RequiredDescriptorCount + init_count,
        Flags=d.D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE))
    increment = device.GetDescriptorHandleIncrementSize(d.D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV)

    def buffer(size, heap_type=d.D3D12_HEAP_TYPE_DEFAULT, state=d.D3D12_RESOURCE_STATE_COMMON):
        flags = d.D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS if heap_type == d.D3D12_HEAP_TYPE_DEFAULT \
            else d.D3D12_RESOURCE_FLAG_NONE
        return device.CreateCommittedResource(d.CD3DX12_HEAP_PROPERTIES(heap_type), d.D3D12_HEAP_FLAG_NONE,
                                              d.CD3DX12_RESOURCE_DESC.Buffer(max(256, size), flags), state, None)

    def binding(resource, size):
        return dml_api.DML_BINDING_DESC(Type=dml_api.DML_BINDING_TYPE_BUFFER, Desc=dml_api.DML_BUFFER_BINDING(
            Buffer=resource, Offset=0, SizeInBytes=max(256, size)))

    def table(dispatchable, first, count):
        cpu, gpu = heap.GetCPUDescriptorHandleForHeapStart(), heap.GetGPUDescriptorHandleForHeapStart()
        return dml.CreateBindingTable(dml_api.DML_BINDING_TABLE_DESC(
            Dispatchable=dispatchable, CPUDescriptorHandle=d.D3D12_CPU_DESCRIPTOR_HANDLE(ptr=cpu.ptr + first * increment),
            GPUDescriptorHandle=d.D3D12_GPU_DESCRIPTOR_HANDLE(ptr=gpu.ptr + first * increment), SizeInDescriptors=count))

    def submit():
        cl.Close()
        queue.ExecuteCommandLists([cl])
        session.fence_value += 1
        queue.Signal(session.fence, session.fence_value)
        session.fence.SetEventOnCompletion(session.fence_value, None)
        allocator.Reset()
        cl.Reset(allocator, None)
        cl.SetDescriptorHeaps([heap])

    rng = np.random.default_rng(seed)
    in_tensors, out_tensors = graph._info.inputs, graph._info.outputs
    if inputs is None:
        inputs = []
        for t in in_tensors:
            row = data_types.BY_NAME[t.type_name]     # floats: values; integers: bytes of 0 and 1
            dtype = row.dtype if row.is_float else np.dtype(np.uint8)
            values = rng.uniform(-4, 4, t.total_bytes // dtype.itemsize) if dtype.kind == "f" else \
                rng.integers(0, 2, t.total_bytes // dtype.itemsize)
            inputs.append(np.frombuffer(values.astype(dtype).tobytes(), np.uint8))
    cl.SetDescriptorHeaps([heap])
    staging, in_buffers = [], []
    for data, t in zip(inputs, in_tensors):
        upload = buffer(data.size, d.D3D12_HEAP_TYPE_UPLOAD, d.D3D12_RESOURCE_STATE_GENERIC_READ)
        upload.Map(0, None)[:data.size] = data
        target = buffer(data.size, state=d.D3D12_RESOURCE_STATE_COPY_DEST)
        cl.CopyBufferRegion(target, 0, upload, 0, data.size)
        cl.ResourceBarrier([d.CD3DX12_RESOURCE_BARRIER.Transition(target, d.D3D12_RESOURCE_STATE_COPY_DEST,
                                                                  d.D3D12_RESOURCE_STATE_UNORDERED_ACCESS)])
        staging.append(upload)
        in_buffers.append(target)
    persistent = buffer(props.PersistentResourceSize)
    init_table = table(initializer, props.RequiredDescriptorCount, init_count)
    init_table.BindOutputs([binding(persistent, props.PersistentResourceSize)])
    session.recorder.RecordDispatch(cl, initializer, init_table)
    cl.ResourceBarrier([d.CD3DX12_RESOURCE_BARRIER.UAV(persistent)])
    submit()
    outputs = [buffer(t.total_bytes) for t in out_tensors]
    exec_table = table(graph, 0, props.RequiredDescriptorCount)
    exec_table.BindInputs([binding(b, t.total_bytes) for b, t in zip(in_buffers, in_tensors)])
    exec_table.BindOutputs([binding(b, t.total_bytes) for b, t in zip(outputs, out_tensors)])
    exec_table.BindPersistentResource(binding(persistent, props.PersistentResourceSize))
    if props.TemporaryResourceSize:
        temporary = buffer(props.TemporaryResourceSize)
        exec_table.BindTemporaryResource(binding(temporary, props.TemporaryResourceSize))
    session.recorder.RecordDispatch(cl, graph, exec_table)
    captured = None
    if trace is not None:
        from dmlemu.traces.capture import capture
        with capture(device, detail=trace) as cap:
            submit()
        captured = cap.trace
    else:
        submit()
    readback = buffer(sum(-(-t.total_bytes // 256) * 256 for t in out_tensors), d.D3D12_HEAP_TYPE_READBACK,
                      d.D3D12_RESOURCE_STATE_COPY_DEST)
    offsets, at = [], 0
    for b, t in zip(outputs, out_tensors):
        cl.ResourceBarrier([d.CD3DX12_RESOURCE_BARRIER.Transition(b, d.D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                                                  d.D3D12_RESOURCE_STATE_COPY_SOURCE)])
        cl.CopyBufferRegion(readback, at, b, 0, t.total_bytes)
        offsets.append(at)
        at += -(-t.total_bytes // 256) * 256
    submit()
    data = readback.Map(0, None)
    results = [np.array(data[o:o + t.total_bytes]) for o, t in zip(offsets, out_tensors)]
    readback.Unmap(0, None)
    return graph, results, captured
