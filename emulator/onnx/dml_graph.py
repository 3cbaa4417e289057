"""The DML graph an ONNX model becomes: operator nodes, the tensor views their inputs read, and the
DML_GRAPH_DESC for ONE IDMLDevice1::CompileGraph call.

This is DirectMLX's graph builder (DirectML/Libraries/DirectMLX.h) grown to what a model needs, the
way ONNX Runtime's DirectML provider builds its graph (DmlGraphFusionHelper.cpp: one operator node
per kernel, graph inputs for the model's inputs and its initializers, intermediate edges between
nodes, output edges for the model's outputs):

- a `View` is one tensor a consumer reads: where its bytes come from (a graph input, or output `o` of
  operator node `k`) and the DML_TENSOR_DESC it is read with. Reshape, Transpose, broadcasting and
  Expand only make new views of the same bytes (other Sizes and Strides, the same
  TotalTensorSizeInBytes), as DirectMLX's Reinterpret does; no node is made;
- a `DmlNode` is one operator node: DML_OPERATOR_<operator>, its desc's tensor fields in desc order
  (a field may hold a list: JOIN's InputTensors, SPLIT's OutputTensors; None for an optional tensor
  left out), its other desc fields, and the ONNX node(s) it carries (its Name joins their names with
  "+": that is what the trace calls its dispatch);
- `graph_desc` makes each node's IDMLOperator (IDMLDevice::CreateOperator) and the edges: a node's
  input index counts the desc's input tensors in order, each element of a list field one index.

A desc struct the mirror does not define yet (an operator whose schema has not landed) is built as a
`PendingDesc` with the field names DirectML.h gives it; CreateOperator answers E_NOTIMPL for its
type before it reads the desc.
"""
import dataclasses

from dmlemu import directml as _dml
from dmlemu.directml import (
    DML_BUFFER_TENSOR_DESC, DML_GRAPH_DESC, DML_GRAPH_EDGE_DESC,
    DML_GRAPH_EDGE_TYPE_INPUT, DML_GRAPH_EDGE_TYPE_INTERMEDIATE, DML_GRAPH_EDGE_TYPE_OUTPUT, DML_GRAPH_NODE_DESC,
    DML_GRAPH_NODE_TYPE_OPERATOR, DML_INPUT_GRAPH_EDGE_DESC,
    DML_INTERMEDIATE_GRAPH_EDGE_DESC, DML_OPERATOR_DESC, DML_OPERATOR_GRAPH_NODE_DESC, DML_OPERATOR_TYPE,
    DML_OUTPUT_GRAPH_EDGE_DESC, DML_TENSOR_DATA_TYPE, DML_TENSOR_DESC, DML_TENSOR_FLAG_NONE,
    DML_TENSOR_FLAG_OWNED_BY_DML, DML_TENSOR_TYPE_BUFFER,
    DMLCalcBufferTensorSize,
)

__all__ = ["View", "DmlNode", "DmlGraph", "PendingDesc", "tensor_desc", "packed_strides", "desc_struct"]


def packed_strides(sizes):
    """The packed strides (in elements) of `sizes`, innermost last."""
    strides, step = [], 1
    for size in reversed(list(sizes)):
        strides.append(step)
        step *= max(1, int(size))
    return strides[::-1]


def tensor_desc(sizes, type_name, strides=None, total=None, flags=DML_TENSOR_FLAG_NONE):
    """A DML_TENSOR_DESC of DML_TENSOR_DATA_TYPE_<type_name> (packed unless `strides`; `total`:
    TotalTensorSizeInBytes, else what DMLCalcBufferTensorSize gives; `flags`: DML_TENSOR_FLAGS)."""
    sizes = [int(s) for s in sizes] or [1]
    data_type = DML_TENSOR_DATA_TYPE[f"DML_TENSOR_DATA_TYPE_{type_name}"]
    strides = None if strides is None else [int(s) for s in strides]
    if total is None:
        total = DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides)
    return DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=data_type, Flags=flags, Sizes=sizes, Strides=strides, TotalTensorSizeInBytes=total))


class PendingDesc:
    """A DML_<OPERATOR>_OPERATOR_DESC the mirror does not define yet: the fields DirectML.h gives it, by
    keyword. CreateOperator refuses its operator type (E_NOTIMPL) before it reads them."""

    def __init__(self, struct_name, **fields):
        self.struct_name = struct_name
        self.__dict__.update(fields)

    def __repr__(self):
        return f"<{self.struct_name} (not defined by this dmlemu)>"


def desc_struct(operator):
    """The desc struct class of DML_OPERATOR_<operator>, or None while the mirror has none."""
    return getattr(_dml, f"DML_{operator}_OPERATOR_DESC", None)


@dataclasses.dataclass(frozen=True)
class View:
    """The bytes of `source` (("input", graph input index) or ("node", node index, output index)) read
    with `tensor` (a DML_TENSOR_DESC); `type_name` its DML data type without DML_TENSOR_DATA_TYPE_."""
    source: tuple
    tensor: object
    type_name: str

    @property
    def sizes(self):
        return list(self.tensor.Desc.Sizes)

    @property
    def strides(self):
        d = self.tensor.Desc
        return list(d.Strides) if d.Strides is not None else packed_strides(d.Sizes)

    @property
    def packed(self):
        return self.strides == packed_strides(self.sizes) and \
            self.tensor.Desc.TotalTensorSizeInBytes == tensor_desc(self.sizes, self.type_name).Desc.TotalTensorSizeInBytes

    def reinterpret(self, sizes, strides):
        """The same bytes read with other Sizes and Strides (DirectMLX's Reinterpret)."""
        d = self.tensor.Desc
        return View(self.source, tensor_desc(sizes, self.type_name, strides, d.TotalTensorSizeInBytes, d.Flags),
                    self.type_name)


@dataclasses.dataclass
class DmlNode:
    """One operator node: DML_OPERATOR_<operator>; `inputs` [(desc field, View | [View] | None)] and
    `outputs` [(desc field, (sizes, type_name) | [(sizes, type_name)])] in desc order; `fields` the other
    desc fields; `onnx_nodes` the ONNX node names it carries (its Name is them joined by '+'); `onnx_ops`
    their op types."""
    operator: str
    inputs: list
    outputs: list
    fields: dict
    onnx_nodes: tuple
    onnx_ops: tuple

    @property
    def name(self):
        return "+".join(self.onnx_nodes)

    def input_views(self):
        """(input index, View) for each connected input, indices counting every desc input tensor."""
        j = 0
        for _, x in self.inputs:
            for v in (x if isinstance(x, list) else [x]):
                if v is not None:
                    yield j, v
                j += 1

    def output_specs(self):
        """(output index, (sizes, type_name) or None) for each output tensor, in desc order (None: an optional
        output the desc leaves out)."""
        o = 0
        for _, spec in self.outputs:
            for s in (spec if isinstance(spec, list) else [spec]):
                yield o, s
                o += 1

    def operator_desc(self):
        """The node's DML_OPERATOR_DESC."""
        fields = {}
        for field, x in self.inputs:
            fields[field] = [v.tensor for v in x] if isinstance(x, list) else (None if x is None else x.tensor)
        for field, spec in self.outputs:
            fields[field] = [None if s is None else tensor_desc(*s) for s in spec] if isinstance(spec, list) else \
                (None if spec is None else tensor_desc(*spec))
        fields.update(self.fields)
        struct = desc_struct(self.operator)
        desc = PendingDesc(f"DML_{self.operator}_OPERATOR_DESC", **fields) if struct is None else struct(**fields)
        return DML_OPERATOR_DESC(Type=DML_OPERATOR_TYPE[f"DML_OPERATOR_{self.operator}"], Desc=desc)


class DmlGraph:
    """Graph inputs (each with the NumPy array bound to it, or None for a model input) and operator nodes;
    `graph_desc(outputs)` builds the DML_GRAPH_DESC. Constants are graph inputs bound to their bytes, as ONNX
    Runtime binds initializers (no DML_CONSTANT_DATA_GRAPH_NODE_DESC): DML_TENSOR_FLAG_OWNED_BY_DML ones,
    bound once at initialization, as ONNX Runtime binds the weights it lets DirectML own."""

    def __init__(self):
        self.inputs = []          # [(name, View, array or None)] in graph input order
        self.nodes = []           # DmlNode in creation order

    def input(self, name, sizes, type_name, array=None, owned=False):
        """Graph input `len(self.inputs)`: a packed tensor; `array` the bytes bound to it (an initializer);
        `owned`: DML_TENSOR_FLAG_OWNED_BY_DML (bound at initialization, copied into the persistent resource)."""
        flags = DML_TENSOR_FLAG_OWNED_BY_DML if owned else DML_TENSOR_FLAG_NONE
        view = View(("input", len(self.inputs)), tensor_desc(sizes, type_name, flags=flags), type_name)
        self.inputs.append((name, view, array))
        return view

    def node(self, operator, inputs, outputs, fields, onnx_nodes, onnx_ops):
        """Add an operator node; returns the Views of its outputs (packed), in desc order (flattened; none for
        an output left out)."""
        node = DmlNode(operator, list(inputs), list(outputs), dict(fields), tuple(onnx_nodes), tuple(onnx_ops))
        k = len(self.nodes)
        self.nodes.append(node)
        return [View(("node", k, o), tensor_desc(*spec), spec[1]) for o, spec in node.output_specs() if spec is not None]

    def graph_desc(self, outputs, create_operator):
        """DML_GRAPH_DESC with `outputs` (Views of node outputs, packed) as graph outputs in order.
        `create_operator(node)` returns the node's IDMLOperator (the caller turns a refusal into its
        sentence)."""
        nodes, input_edges, intermediate_edges = [], [], []
        for k, node in enumerate(self.nodes):
            nodes.append(DML_GRAPH_NODE_DESC(Type=DML_GRAPH_NODE_TYPE_OPERATOR, Desc=DML_OPERATOR_GRAPH_NODE_DESC(
                Operator=create_operator(node), Name=node.name)))
            for j, view in node.input_views():
                if view.source[0] == "input":
                    input_edges.append(DML_GRAPH_EDGE_DESC(Type=DML_GRAPH_EDGE_TYPE_INPUT, Desc=DML_INPUT_GRAPH_EDGE_DESC(
                        GraphInputIndex=view.source[1], ToNodeIndex=k, ToNodeInputIndex=j)))
                else:
                    intermediate_edges.append(DML_GRAPH_EDGE_DESC(
                        Type=DML_GRAPH_EDGE_TYPE_INTERMEDIATE, Desc=DML_INTERMEDIATE_GRAPH_EDGE_DESC(
                            FromNodeIndex=view.source[1], FromNodeOutputIndex=view.source[2], ToNodeIndex=k,
                            ToNodeInputIndex=j)))
        output_edges = [DML_GRAPH_EDGE_DESC(Type=DML_GRAPH_EDGE_TYPE_OUTPUT, Desc=DML_OUTPUT_GRAPH_EDGE_DESC(
            FromNodeIndex=y.source[1], FromNodeOutputIndex=y.source[2], GraphOutputIndex=h))
            for h, y in enumerate(outputs)]
        return DML_GRAPH_DESC(InputCount=len(self.inputs), OutputCount=len(outputs), Nodes=nodes,
                              InputEdges=input_edges, OutputEdges=output_edges, IntermediateEdges=intermediate_edges)


