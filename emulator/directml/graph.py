"""The operator graph of IDMLDevice1::CompileGraph: a DML_GRAPH_DESC checked, ordered and partitioned.

`validate_graph_desc` reads a DML_GRAPH_DESC the way DirectML's rules describe it (DML_GRAPH_DESC's
remarks, the node and edge structs) and returns a `GraphPlan`, plain frozen data that the compiled
graph (compiled_graph.py), the `dmlemu graph` view (tools/graph_view.py) and the tests read:

- nodes: DML_OPERATOR_GRAPH_NODE_DESC (an IDMLOperator of this device) and, from
  DML_FEATURE_LEVEL_6_2 (DirectML.h guards DML_GRAPH_NODE_TYPE_CONSTANT and its desc with
  DML_TARGET_VERSION >= 0x6200), DML_CONSTANT_DATA_GRAPH_NODE_DESC (bytes with one output, 0);
- edges: graph input -> node input (InputEdges), node output -> graph output (OutputEdges), node
  output -> node input (IntermediateEdges);
- where every node input comes from (`sources`), which node output each graph output is
  (`graph_outputs`), the graph inputs' own tensor descs (`input_tensors`), and
- the partition (`partition`): the dispatches in order (`dispatches`), each with the operator nodes it
  runs and whether a UAV barrier comes before it. The operator nodes are taken in dependency-level
  order (a node's level is one more than the highest level of the operator nodes it reads from; node
  index order inside a level). Without fusion each is one dispatch; with fusion (the default of
  CompileGraph) an element-wise node joins the dispatch being built when it has that dispatch's Sizes,
  every edge it reads from inside the dispatch keeps DataType and layout, and the dispatch stays within
  the fused kernel's limits (FUSED_*_LIMIT, `fused_counts`; fusion.py and kernels/fusion.py compile it).
  A dispatch gets a UAV barrier before it when it reads a tensor that a dispatch since the last barrier
  wrote: the barriers DirectML needs between dependent dispatches (dml-barriers: "adjacent dispatches
  may run concurrently").

The rules and where each comes from:
- the graph is a directed acyclic graph; every input and output of every node is connected, except
  an operator's optional tensors (DML_GRAPH_DESC remarks);
- connected tensors may differ in DimensionCount, Sizes and DataType (the bytes are reinterpreted),
  but their TotalTensorSizeInBytes must be identical (DML_GRAPH_DESC remarks);
- an input with DML_TENSOR_FLAG_OWNED_BY_DML is fed by a graph input, and all inputs fed by one graph
  input agree on that flag (DML_GRAPH_DESC remarks);
- indices are inside their counts; every graph output is written by exactly one output edge; a node
  input takes one edge (what the structs mean; a second edge into one input has no meaning);
- dmlemu's own choices, said in the sentences: the node inputs fed by one graph input have one
  TotalTensorSizeInBytes (that is the graph input's size); a node output is at most one graph output;
  a constant node feeds node inputs only, with DataSize at most each such input's
  TotalTensorSizeInBytes (the rest reads as zeros), and not DML_TENSOR_FLAG_OWNED_BY_DML inputs.

Every failure is E_INVALIDARG with one sentence naming the struct, index, field, value and rule.
"""
import dataclasses
import functools
from dataclasses import dataclass

from dmlemu.com import check_enum, check_sequence, check_uint, invalid
from dmlemu.errors import describe
from dmlemu.directml.enums import (
    DML_FEATURE_LEVEL_2_1, DML_FEATURE_LEVEL_6_2, DML_GRAPH_EDGE_TYPE, DML_GRAPH_EDGE_TYPE_INPUT,
    DML_GRAPH_EDGE_TYPE_INTERMEDIATE, DML_GRAPH_EDGE_TYPE_OUTPUT, DML_GRAPH_NODE_TYPE, DML_GRAPH_NODE_TYPE_CONSTANT,
    DML_GRAPH_NODE_TYPE_INVALID, DML_GRAPH_NODE_TYPE_OPERATOR,
)
from dmlemu.directml.structs import (
    DML_CONSTANT_DATA_GRAPH_NODE_DESC, DML_GRAPH_DESC, DML_GRAPH_EDGE_DESC, DML_GRAPH_NODE_DESC,
    DML_INPUT_GRAPH_EDGE_DESC, DML_INTERMEDIATE_GRAPH_EDGE_DESC, DML_OPERATOR_GRAPH_NODE_DESC, DML_OUTPUT_GRAPH_EDGE_DESC,
)
from dmlemu.directml.validation import c_level_name

MAX_GRAPH_INPUTS = 1_000_000     # dmlemu's bound on InputCount: D3D12_MAX_SHADER_VISIBLE_DESCRIPTOR_HEAP_SIZE_TIER_1
GRAPH_FEATURE_LEVEL = DML_FEATURE_LEVEL_2_1       # IDMLDevice1 and CompileGraph (DirectML 1.2.0)
CONSTANT_NODE_FEATURE_LEVEL = DML_FEATURE_LEVEL_6_2


@dataclass(frozen=True)
class GraphNode:
    """One node: an operator (its IDMLOperator and validated OperatorInfo) or constant bytes."""
    index: int
    name: str                       # the desc's Name, or "node <index>"
    operator: object = None         # IDMLOperator (operator nodes)
    data: bytes = None              # constant nodes

    @property
    def is_constant(self):
        return self.operator is None

    @property
    def info(self):
        return None if self.operator is None else self.operator._info

    @property
    def kind(self):
        """What the node is, for views: the operator's name without DML_OPERATOR_, or "CONSTANT"."""
        return "CONSTANT" if self.operator is None else self.info.schema.name

    @property
    def label(self):
        """How sentences name the node: node 2 ("relu")."""
        return f'node {self.index} ("{self.name}")'


@dataclass(frozen=True)
class Dispatch:
    """One kernel dispatch of the partition: the operator nodes it runs (one, until fusion) and whether
    DirectML records a UAV barrier before it."""
    nodes: tuple
    level: int
    barrier_before: bool


@dataclass(frozen=True)
class GraphPlan:
    """A validated DML_GRAPH_DESC (see the module docstring)."""
    input_count: int
    output_count: int
    nodes: tuple                    # GraphNode
    sources: dict                   # (node, input index) -> ("input", g) | ("node", m, output index) | ("constant", c)
    graph_outputs: tuple            # graph output h -> (node, output index)
    input_consumers: tuple          # graph input g -> ((node, input index), ...)
    consumers: dict                 # (node, output index) -> ((node, input index), ...) through intermediate edges
    levels: dict                    # operator node -> dependency level (0: reads graph inputs and constants only)
    dispatches: tuple               # Dispatch, in execution order

    @property
    def order(self):
        """The operator nodes in execution order."""
        return tuple(k for d in self.dispatches for k in d.nodes)

    @property
    def barrier_count(self):
        return sum(d.barrier_before for d in self.dispatches)

    def input_tensor(self, g):
        """The TensorInfo of a node input graph input g feeds (the first), or None when it feeds none."""
        consumers = self.input_consumers[g]
        if not consumers:
            return None
        k, j = consumers[0]
        return self.nodes[k].info.inputs[j]

    def output_tensor(self, h):
        k, o = self.graph_outputs[h]
        return self.nodes[k].info.outputs[o]

    @functools.cached_property
    def _graph_output_index(self):
        index = {}
        for h, key in enumerate(self.graph_outputs):
            index.setdefault(key, h)
        return index

    def graph_output_of(self, k, o):
        """The (first) graph output node k's output o is, or None (an intermediate tensor)."""
        return self._graph_output_index.get((k, o))


def _tensor_name(node, j, is_output=False):
    """How sentences name a node's tensor: input 1 (ATensor) of node 2 ("add")."""
    roles = node.info.output_roles if is_output else node.info.input_roles
    field = roles[j].field if j < len(roles) else "?"
    return f"{'output' if is_output else 'input'} {j} ({field}) of {node.label}"


def _counted(desc, field, count_field):
    """A (count, pointer) pair of DML_GRAPH_DESC as a tuple (None: empty); the count must agree."""
    value = getattr(desc, field)
    items = () if value is None else tuple(check_sequence(value, f"DML_GRAPH_DESC.{field}",
                                                          "a sequence of structs", max_length=0))
    count = desc.explicit_count(count_field)
    if count is not None and check_uint(count, f"DML_GRAPH_DESC.{count_field}") != len(items):
        raise invalid(f"DML_GRAPH_DESC.{count_field} is {count} but DML_GRAPH_DESC.{field} has {len(items)} "
                      f"elements; they must agree.")
    return items


def _name(value, where, default):
    if value is None:
        return default
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if not isinstance(value, str):
        raise invalid(f"{where} is {describe(value)}; it must be a string or None.")
    return value


def _node(device, i, node_desc):
    where = f"DML_GRAPH_DESC.Nodes[{i}]"
    if not isinstance(node_desc, DML_GRAPH_NODE_DESC):
        raise invalid(f"{where} is {describe(node_desc)}; it must be a DML_GRAPH_NODE_DESC.")
    node_type = check_enum(node_desc.Type, DML_GRAPH_NODE_TYPE, f"{where}.Type")
    if node_type == DML_GRAPH_NODE_TYPE_INVALID:
        raise invalid(f"{where}.Type is DML_GRAPH_NODE_TYPE_INVALID; it must be DML_GRAPH_NODE_TYPE_OPERATOR or "
                      f"DML_GRAPH_NODE_TYPE_CONSTANT.")
    desc = node_desc.Desc
    if node_type == DML_GRAPH_NODE_TYPE_OPERATOR:
        from dmlemu.directml.operators import IDMLOperator
        if not isinstance(desc, DML_OPERATOR_GRAPH_NODE_DESC):
            raise invalid(f"{where}.Desc is {describe(desc)}; DML_GRAPH_NODE_TYPE_OPERATOR needs a "
                          f"DML_OPERATOR_GRAPH_NODE_DESC.")
        operator = device._check_child(desc.Operator, IDMLOperator, f"{where}.Desc.Operator")
        return GraphNode(i, _name(desc.Name, f"{where}.Desc.Name", f"node {i}"), operator=operator)
    assert node_type == DML_GRAPH_NODE_TYPE_CONSTANT
    if device._feature_level < CONSTANT_NODE_FEATURE_LEVEL:
        raise invalid(f"{where}.Type is DML_GRAPH_NODE_TYPE_CONSTANT, introduced in "
                      f"{c_level_name(CONSTANT_NODE_FEATURE_LEVEL)}; this device supports up to "
                      f"{c_level_name(device._feature_level)}.")
    if not isinstance(desc, DML_CONSTANT_DATA_GRAPH_NODE_DESC):
        raise invalid(f"{where}.Desc is {describe(desc)}; DML_GRAPH_NODE_TYPE_CONSTANT needs a "
                      f"DML_CONSTANT_DATA_GRAPH_NODE_DESC.")
    try:
        data = bytes(memoryview(desc.Data).cast("B")) if desc.Data is not None else b""
    except TypeError:
        raise invalid(f"{where}.Desc.Data is {describe(desc.Data)}; it must be bytes-like.") from None
    size = desc.explicit_count("DataSize")
    if size is not None and check_uint(size, f"{where}.Desc.DataSize", max_value=(1 << 64) - 1) != len(data):
        raise invalid(f"{where}.Desc.DataSize is {size} but {where}.Desc.Data has {len(data)} bytes; they must agree.")
    if not data:
        raise invalid(f"{where}.Desc.DataSize is 0; a constant node holds at least one byte.")
    return GraphNode(i, _name(desc.Name, f"{where}.Desc.Name", f"node {i}"), data=data)


def _edge(edges, i, field, edge_type, struct):
    where = f"DML_GRAPH_DESC.{field}[{i}]"
    edge = edges[i]
    if not isinstance(edge, DML_GRAPH_EDGE_DESC):
        raise invalid(f"{where} is {describe(edge)}; it must be a DML_GRAPH_EDGE_DESC.")
    kind = check_enum(edge.Type, DML_GRAPH_EDGE_TYPE, f"{where}.Type")
    if kind != edge_type:
        raise invalid(f"{where}.Type is {kind.name}; every element of {field} must be {edge_type.name}.")
    if not isinstance(edge.Desc, struct):
        raise invalid(f"{where}.Desc is {describe(edge.Desc)}; {edge_type.name} needs a {struct.__name__}.")
    return where, edge.Desc


def _index(value, where, count, what):
    index = check_uint(value, where)
    if index >= count:
        raise invalid(f"{where} is {index}; {what}.")
    return index


def _operator_node(nodes, k, where, role):
    """Node k must be an operator node for an edge that uses its `role` ("inputs" / "outputs")."""
    node = nodes[k]
    if node.is_constant and role == "inputs":
        raise invalid(f"{where} is {k}, {node.label}, a constant node; a constant node has no inputs.")
    if node.is_constant:
        raise invalid(f"{where} is {k}, {node.label}, a constant node; its data feeds node inputs through "
                      f"IntermediateEdges only and cannot be a graph output (dmlemu).")
    return node


def validate_graph_desc(desc, device, fuse=False):
    """Check a DML_GRAPH_DESC for `device` (an IDMLDevice1); returns its GraphPlan, partitioned with
    fusion (`fuse`) or one dispatch per operator node."""
    if device._feature_level < GRAPH_FEATURE_LEVEL:
        raise invalid(f"IDMLDevice1.CompileGraph was introduced in {c_level_name(GRAPH_FEATURE_LEVEL)} (DirectML "
                      f"1.2.0); this device supports up to {c_level_name(device._feature_level)}.")
    if not isinstance(desc, DML_GRAPH_DESC):
        raise invalid(f"desc is {describe(desc)}; CompileGraph needs a DML_GRAPH_DESC.")
    input_count = check_uint(desc.InputCount, "DML_GRAPH_DESC.InputCount")
    output_count = check_uint(desc.OutputCount, "DML_GRAPH_DESC.OutputCount")
    node_descs = _counted(desc, "Nodes", "NodeCount")
    input_edges = _counted(desc, "InputEdges", "InputEdgeCount")
    output_edges = _counted(desc, "OutputEdges", "OutputEdgeCount")
    intermediate_edges = _counted(desc, "IntermediateEdges", "IntermediateEdgeCount")
    if not node_descs:
        raise invalid("DML_GRAPH_DESC.NodeCount is 0; a graph has at least one node.")
    if output_count == 0:
        raise invalid("DML_GRAPH_DESC.OutputCount is 0; a graph has at least one output.")
    # Counts are checked before anything is sized by them (graph outputs: by their edges, below).
    if input_count > MAX_GRAPH_INPUTS:
        raise invalid(f"DML_GRAPH_DESC.InputCount is {input_count}; a graph has at most {MAX_GRAPH_INPUTS} inputs "
                      f"(dmlemu: each is a binding, and a shader-visible descriptor heap holds at most "
                      f"{MAX_GRAPH_INPUTS} descriptors).")
    nodes = tuple(_node(device, i, d) for i, d in enumerate(node_descs))
    n = len(nodes)

    sources, fed_by = {}, {}     # (k, j) -> source; (k, j) -> the edge that feeds it, for sentences

    def feed(k, j, source, where):
        if (k, j) in sources:
            raise invalid(f"{where} feeds {_tensor_name(nodes[k], j)}, which {fed_by[(k, j)]} already feeds; a node "
                          f"input takes exactly one edge.")
        sources[(k, j)], fed_by[(k, j)] = source, where

    def check_input(k, j, where):
        tensor = nodes[k].info.inputs[j]
        if tensor is None:
            raise invalid(f"{where} is {j}, {_tensor_name(nodes[k], j)}, which its operator desc leaves out "
                          f"(None); no edge may feed it.")
        return tensor

    input_consumers = [[] for _ in range(input_count)]
    for i in range(len(input_edges)):
        where, edge = _edge(input_edges, i, "InputEdges", DML_GRAPH_EDGE_TYPE_INPUT, DML_INPUT_GRAPH_EDGE_DESC)
        g = _index(edge.GraphInputIndex, f"{where}.GraphInputIndex", input_count,
                   f"the graph has {input_count} inputs (DML_GRAPH_DESC.InputCount)")
        k = _index(edge.ToNodeIndex, f"{where}.ToNodeIndex", n, f"the graph has {n} nodes")
        node = _operator_node(nodes, k, f"{where}.ToNodeIndex", "inputs")
        j = _index(edge.ToNodeInputIndex, f"{where}.ToNodeInputIndex", len(node.info.inputs),
                   f"{node.label} ({node.info.schema.c_name}) has {len(node.info.inputs)} inputs")
        check_input(k, j, f"{where}.ToNodeInputIndex")
        feed(k, j, ("input", g), f"InputEdges[{i}]")
        input_consumers[g].append((k, j))

    graph_outputs, output_edge_of = {}, {}      # graph output -> (node, output): as many as the edges, not the count
    for i in range(len(output_edges)):
        where, edge = _edge(output_edges, i, "OutputEdges", DML_GRAPH_EDGE_TYPE_OUTPUT, DML_OUTPUT_GRAPH_EDGE_DESC)
        k = _index(edge.FromNodeIndex, f"{where}.FromNodeIndex", n, f"the graph has {n} nodes")
        node = _operator_node(nodes, k, f"{where}.FromNodeIndex", "outputs")
        o = _index(edge.FromNodeOutputIndex, f"{where}.FromNodeOutputIndex", len(node.info.outputs),
                   f"{node.label} ({node.info.schema.c_name}) has {len(node.info.outputs)} outputs")
        h = _index(edge.GraphOutputIndex, f"{where}.GraphOutputIndex", output_count,
                   f"the graph has {output_count} outputs (DML_GRAPH_DESC.OutputCount)")
        if h in graph_outputs:
            raise invalid(f"{where}.GraphOutputIndex is {h}, which OutputEdges[{output_edge_of[h]}] already writes; "
                          f"every graph output is written by exactly one output edge.")
        if (k, o) in output_edge_of:
            raise invalid(f"{where} makes {_tensor_name(node, o, True)} graph output {h}, but "
                          f"OutputEdges[{output_edge_of[(k, o)]}] already makes it a graph output; a node output is "
                          f"at most one graph output (dmlemu).")
        graph_outputs[h], output_edge_of[h], output_edge_of[(k, o)] = (k, o), i, i
    missing = next((h for h in range(output_count) if h not in graph_outputs), None)   # <= len(edges) + 1 steps
    if missing is not None:
        raise invalid(f"graph output {missing} is written by no element of DML_GRAPH_DESC.OutputEdges; every graph "
                      f"output (DML_GRAPH_DESC.OutputCount is {output_count}) is written by exactly one output edge.")

    consumers, predecessors = {}, {k: set() for k in range(n)}
    for i in range(len(intermediate_edges)):
        where, edge = _edge(intermediate_edges, i, "IntermediateEdges", DML_GRAPH_EDGE_TYPE_INTERMEDIATE,
                            DML_INTERMEDIATE_GRAPH_EDGE_DESC)
        m = _index(edge.FromNodeIndex, f"{where}.FromNodeIndex", n, f"the graph has {n} nodes")
        source = nodes[m]
        outputs = 1 if source.is_constant else len(source.info.outputs)
        o = _index(edge.FromNodeOutputIndex, f"{where}.FromNodeOutputIndex", outputs,
                   f"{source.label} " + ("is a constant node, whose only output is 0" if source.is_constant else
                                         f"({source.info.schema.c_name}) has {outputs} outputs"))
        k = _index(edge.ToNodeIndex, f"{where}.ToNodeIndex", n, f"the graph has {n} nodes")
        node = _operator_node(nodes, k, f"{where}.ToNodeIndex", "inputs")
        j = _index(edge.ToNodeInputIndex, f"{where}.ToNodeInputIndex", len(node.info.inputs),
                   f"{node.label} ({node.info.schema.c_name}) has {len(node.info.inputs)} inputs")
        tensor = check_input(k, j, f"{where}.ToNodeInputIndex")
        if tensor.owned_by_dml:
            raise invalid(f"{where} feeds {_tensor_name(node, j)} from {source.label}, but that input is "
                          f"DML_TENSOR_FLAG_OWNED_BY_DML; such inputs must be connected to graph inputs.")
        if source.is_constant:
            if len(source.data) > tensor.total_bytes:
                raise invalid(f"{where} feeds {_tensor_name(node, j)} (TotalTensorSizeInBytes {tensor.total_bytes}) "
                              f"from {source.label}, whose DataSize is {len(source.data)}; a constant node's data "
                              f"must fit the inputs it feeds (dmlemu).")
            feed(k, j, ("constant", m), f"IntermediateEdges[{i}]")
        else:
            produced = source.info.outputs[o]
            if produced is None:
                raise invalid(f"{where}.FromNodeOutputIndex is {o}, {_tensor_name(source, o, True)}, which its "
                              f"operator desc leaves out (None); no edge may start there.")
            if produced.total_bytes != tensor.total_bytes:
                raise invalid(f"{where} connects {_tensor_name(source, o, True)} (TotalTensorSizeInBytes "
                              f"{produced.total_bytes}) to {_tensor_name(node, j)} (TotalTensorSizeInBytes "
                              f"{tensor.total_bytes}); connected tensors must have identical TotalTensorSizeInBytes "
                              f"(their DataType and Sizes may differ).")
            feed(k, j, ("node", m, o), f"IntermediateEdges[{i}]")
            predecessors[k].add(m)
        consumers.setdefault((m, o), []).append((k, j))

    # Every tensor of every node is connected, optional ones excepted; graph inputs agree on flags and size.
    for node in nodes:
        if node.is_constant:
            if not consumers.get((node.index, 0)):
                raise invalid(f"{node.label} is a constant node that feeds no node input; every node output must be "
                              f"connected (DML_GRAPH_DESC).")
            continue
        roles_in = node.info.input_roles
        for j, (tensor, role) in enumerate(zip(node.info.inputs, roles_in)):
            if tensor is not None and (node.index, j) not in sources and not role.optional:
                raise invalid(f"{_tensor_name(node, j)} is fed by no edge; every node input must be connected "
                              f"(DML_GRAPH_DESC), except inputs optional for the operator.")
        roles_out = node.info.output_roles
        for o, (tensor, role) in enumerate(zip(node.info.outputs, roles_out)):
            used = (node.index, o) in output_edge_of or consumers.get((node.index, o))
            if tensor is not None and not used and not role.optional:
                raise invalid(f"{_tensor_name(node, o, True)} goes to no graph output and no node input; every node "
                              f"output must be connected (DML_GRAPH_DESC), except outputs optional for the operator.")
    for g, fed in enumerate(input_consumers):
        for k, j in fed[1:]:
            first_k, first_j = fed[0]
            first, tensor = nodes[first_k].info.inputs[first_j], nodes[k].info.inputs[j]
            if first.owned_by_dml != tensor.owned_by_dml:
                raise invalid(f"graph input {g} feeds {_tensor_name(nodes[first_k], first_j)} "
                              f"{'with' if first.owned_by_dml else 'without'} DML_TENSOR_FLAG_OWNED_BY_DML and "
                              f"{_tensor_name(nodes[k], j)} {'with' if tensor.owned_by_dml else 'without'} it; all "
                              f"inputs connected to one graph input must use or omit the flag equivalently.")
            if first.total_bytes != tensor.total_bytes:
                raise invalid(f"graph input {g} feeds {_tensor_name(nodes[first_k], first_j)} (TotalTensorSizeInBytes "
                              f"{first.total_bytes}) and {_tensor_name(nodes[k], j)} (TotalTensorSizeInBytes "
                              f"{tensor.total_bytes}); the inputs one graph input feeds must have identical "
                              f"TotalTensorSizeInBytes (dmlemu).")

    levels = _levels(nodes, predecessors)
    plan = GraphPlan(input_count=input_count, output_count=output_count, nodes=nodes, sources=sources,
                     graph_outputs=tuple(graph_outputs[h] for h in range(output_count)), input_consumers=tuple(tuple(c) for c in input_consumers),
                     consumers={key: tuple(value) for key, value in consumers.items()}, levels=levels,
                     dispatches=())
    return dataclasses.replace(plan, dispatches=partition(plan, fuse))


# ---- the partition --------------------------------------------------------------------------------------
# What one fused kernel may hold (kernels/fusion.py builds it; tests/directml/test_graph.py pins the first two to
# the kernels' own constants):
FUSED_TENSOR_LIMIT = 9      # vector memory tensors: kernels/address.inc addresses tensors 0 .. 8 (MAX_TENSORS)
FUSED_UNIFORM_LIMIT = 8     # uniform inputs (one element, or stride 0 everywhere): scalar loads into s88 .. s103
FUSED_LIVE_LIMIT = 16       # values kept in registers at once between nodes (dmlemu's choice: <= 32 VGPRs above
                            # the nodes' own, so a fused kernel's occupancy stays that of its largest node's)
FUSED_NODE_LIMIT = 32       # nodes in one fused kernel (dmlemu's choice: bounds the program's length)


def fusable_edge(produced, read):
    """Whether a node may read its producer's output in registers: the unfused consumer reads element c
    where the producer wrote element c (same DataType, Sizes and strides in force), so a register copy
    with the store's and the load's width is the same bits."""
    return (produced.data_type == read.data_type and tuple(produced.sizes) == tuple(read.sizes)
            and tuple(produced.effective_strides) == tuple(read.effective_strides))


def _fusable_operator(node):
    """An element-wise operator of the kernels' table whose desc leaves no optional tensor out."""
    from dmlemu.kernels.element_wise_ops import OPERATORS   # lazily, as the mirror reaches the kernels
    return (not node.is_constant and node.info.schema.name in OPERATORS
            and all(t is not None for t in node.info.tensors) and len(node.info.outputs) == 1)


def group_tensors(plan, group, undecided=frozenset()):
    """The tensors a dispatch of `group` (operator nodes, in order) reads and writes in memory, each once:
    (inputs, outputs). An input is ((node, input index), ...) for the node inputs that read one source with
    one tensor desc; an output is (node, output index): a graph output, or read by a node outside the
    group. Node inputs fed inside the group and outputs read only inside it stay in registers. While the
    partition is built, readers in `undecided` (not placed yet, and they may still join) do not count."""
    members = set(group)
    inputs, keys = [], {}
    for k in group:
        for j, tensor in enumerate(plan.nodes[k].info.inputs):
            source = plan.sources.get((k, j))
            if tensor is None or source is None or (source[0] == "node" and source[1] in members):
                continue
            key = (source, tensor.data_type, tuple(tensor.sizes), tuple(tensor.effective_strides), tensor.flags)
            if key in keys:
                inputs[keys[key]] += ((k, j),)
            else:
                keys[key] = len(inputs)
                inputs.append(((k, j),))
    outputs = []
    for k in group:
        for o, tensor in enumerate(plan.nodes[k].info.outputs):
            if tensor is None:
                continue
            readers = plan.consumers.get((k, o), ())
            if plan.graph_output_of(k, o) is not None or any(c not in members and c not in undecided
                                                             for c, _ in readers):
                outputs.append((k, o))
    return inputs, outputs


def fused_counts(plan, group, undecided=frozenset()):
    """(vector memory tensors, uniform inputs, values live in registers at once) of a fused group: what
    FUSED_TENSOR_LIMIT, FUSED_UNIFORM_LIMIT and FUSED_LIVE_LIMIT bound. A value lives from the node that
    makes it (or, for a memory input several nodes read, the first of them) to the last node reading it;
    its register is free again at that node."""
    from dmlemu.kernels.fusion import is_uniform
    inputs, outputs = group_tensors(plan, group, undecided)
    tensors = [plan.nodes[ks[0][0]].info.inputs[ks[0][1]] for ks in inputs]
    uniform = sum(map(is_uniform, tensors))
    position = {k: p for p, k in enumerate(group)}
    intervals = []
    for k in group:
        readers = [position[c] for c, _ in plan.consumers.get((k, 0), ()) if c in position]
        if readers:
            intervals.append((position[k], max(readers)))
    for ks, tensor in zip(inputs, tensors):
        readers = {position[k] for k, _ in ks}
        if len(readers) > 1 and not is_uniform(tensor):
            intervals.append((min(readers), max(readers)))
    live = max((sum(first <= p < last for first, last in intervals) for p in range(len(group))), default=0)
    return len(inputs) - uniform + len(outputs), uniform, live


def _within_limits(counts, nodes):
    vector, uniform, live = counts
    return (vector <= FUSED_TENSOR_LIMIT and uniform <= FUSED_UNIFORM_LIMIT and live <= FUSED_LIVE_LIMIT
            and nodes <= FUSED_NODE_LIMIT)


def _may_read_in_registers(plan, members, k, sizes):
    """Whether node k could join a group of `members` (of output Sizes `sizes`): a fusable operator of
    those Sizes whose edges from the members keep their layout."""
    node = plan.nodes[k]
    if not _fusable_operator(node) or tuple(node.info.outputs[0].sizes) != sizes:
        return False
    for j, tensor in enumerate(node.info.inputs):
        source = plan.sources.get((k, j))
        if source is not None and source[0] == "node" and source[1] in members:
            if not fusable_edge(plan.nodes[source[1]].info.outputs[source[2]], tensor):
                return False
    return True


def _joins(plan, group, k, placed):
    """Whether operator node k may join the fused group (whose nodes all precede k in execution order).
    A member's output counts as a memory tensor when a graph output or a node that cannot join (placed
    elsewhere, or unable to read it in registers) needs it; nodes not placed yet that may still join do
    not count (the partition checks the groups once every node is placed)."""
    sizes = tuple(plan.nodes[group[0]].info.outputs[0].sizes)
    members = set(group) | {k}
    if not _may_read_in_registers(plan, set(group), k, sizes):
        return False
    undecided = {c for m in members for c, _ in plan.consumers.get((m, 0), ())
                 if c not in members and c not in placed and _may_read_in_registers(plan, members, c, sizes)}
    return _within_limits(fused_counts(plan, tuple(group) + (k,), frozenset(undecided)), len(group) + 1)


def partition(plan, fuse):
    """The dispatches of a plan, in execution order. Operator nodes are taken in dependency-level order
    (node index inside a level); without fusion each is one dispatch, with it a node joins the latest
    dispatch that `_joins` allows and that runs no earlier than every node it reads, else starts the
    next one. Joining counts optimistically (a value a later node may still read in registers is not a
    memory tensor yet); once every node is placed, a group over a limit gives up its last node (that node
    may not join that group) and the partition is built again. A dispatch gets a UAV barrier before it
    when it reads a tensor a dispatch since the last barrier wrote; `level` counts the barriers."""
    order = [k for _, k in sorted((plan.levels[k], k) for k in plan.levels)]
    refused = set()                       # (first node of a group, node that may not join it)
    while True:
        groups = _groups(plan, order, fuse, refused)
        over = [g for g in groups if len(g) > 1 and not _within_limits(fused_counts(plan, tuple(g)), len(g))]
        if not over:
            break
        refused.update((g[0], g[-1]) for g in over)
    dispatches, written, level = [], set(), 0
    for group in groups:
        inputs, outputs = group_tensors(plan, tuple(group))
        reads = {plan.sources[ks[0]][1:] for ks in inputs if plan.sources[ks[0]][0] == "node"}
        barrier = bool(reads & written)
        if barrier:
            written, level = set(), level + 1
        written.update(outputs)
        dispatches.append(Dispatch(nodes=tuple(group), level=level, barrier_before=barrier))
    return tuple(dispatches)


def _groups(plan, order, fuse, refused):
    """The greedy pass of `partition`: each node joins the latest group it may, else starts one."""
    groups, group_of = [], {}
    for k in order:
        # The latest group it may join: every node it reads is in that group or in an earlier one (the
        # group runs where it stands), and _joins allows it. Else it starts a new group.
        sources = [s[1] for j in range(len(plan.nodes[k].info.inputs))
                   for s in [plan.sources.get((k, j))] if s is not None and s[0] == "node"]
        earliest = max((group_of[m] for m in sources), default=0)
        target = None
        if fuse:
            for g in range(len(groups) - 1, earliest - 1, -1):
                if ((groups[g][0], k) not in refused and _fusable_operator(plan.nodes[groups[g][0]])
                        and _joins(plan, groups[g], k, group_of)):
                    target = g
                    break
        if target is None:
            groups.append([k])
            target = len(groups) - 1
        else:
            groups[target].append(k)
        group_of[k] = target
    return groups


def _levels(nodes, predecessors):
    """Each operator node's dependency level (Kahn's algorithm over the operator nodes); a cycle is an
    error naming the nodes around it."""
    remaining = {k: {m for m in predecessors[k] if not nodes[m].is_constant}
                 for k in range(len(nodes)) if not nodes[k].is_constant}
    levels = {}
    level = 0
    while remaining:
        ready = sorted(k for k, preds in remaining.items() if not preds)
        if not ready:
            raise invalid(f"DML_GRAPH_DESC.IntermediateEdges form a cycle: {_cycle_text(nodes, remaining)}; the graph "
                          f"must be a directed acyclic graph.")
        for k in ready:
            levels[k] = level
            del remaining[k]
        for preds in remaining.values():
            preds.difference_update(ready)
        level += 1
    return levels


def _cycle_text(nodes, remaining):
    """One cycle among the nodes left when no node is ready: follow predecessors until a node repeats."""
    k = min(remaining)
    path = [k]
    while True:
        k = min(remaining[k])
        if k in path:
            cycle = path[path.index(k):] + [k]
            break
        path.append(k)
    cycle.reverse()   # producer -> consumer order
    return " -> ".join(nodes[k].label for k in cycle)


__all__ = ["GraphNode", "Dispatch", "GraphPlan", "validate_graph_desc", "partition", "group_tensors",
           "fusable_edge", "fused_counts", "GRAPH_FEATURE_LEVEL", "CONSTANT_NODE_FEATURE_LEVEL",
           "FUSED_TENSOR_LIMIT", "FUSED_UNIFORM_LIMIT", "FUSED_LIVE_LIMIT", "FUSED_NODE_LIMIT"]
