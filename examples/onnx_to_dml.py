"""A small ONNX -> DirectML converter: an ONNX model of element-wise operators becomes a DML graph.

    python examples/onnx_to_dml.py          (from the repository root: converts a tiny model and checks it)

`convert(model, dml)` walks an ONNX ModelProto (opset 11 or later: Clip's bounds are inputs) and builds
the graph with the DirectMLX-style `Graph` of examples/directmlx_graph.py, which emits the
DML_GRAPH_DESC for IDMLDevice1::CompileGraph:

- each graph input becomes a DML graph input (its ONNX shape and element type; a scalar has Sizes {1});
- each ONNX node becomes one DML operator node (the table OPERATORS below), its output tensor packed;
- ONNX broadcasting (numpy's multidirectional rule) is done with strides, as DirectML does it: an input
  whose shape differs from the node's output shape is read with the output's Sizes and a stride of 0 on
  every dimension it broadcasts (and on the leading dimensions it lacks); TotalTensorSizeInBytes stays
  that of the bytes it really has (DirectMLX's Reinterpret; no copy is made);
- an initializer becomes a DML_CONSTANT_DATA_GRAPH_NODE_DESC when the device supports
  DML_FEATURE_LEVEL_6_2 (CheckFeatureSupport), else one more graph input after the model's inputs, which
  the caller binds with the initializer's bytes (`Converted.inputs(...)` orders them);
- Clip's min and max must be initializers (they become the desc's Min and Max); an absent one is -inf/+inf.

Data types are the ONNX model's; an operator given a type its DirectML desc does not take is refused by
IDMLDevice::CreateOperator when the graph compiles (an HResultError sentence). Cast into an integer type
follows DirectML's rules (NUMERICS.md: truncate, saturate, NaN -> 0), which ONNX leaves open for NaN and
out-of-range values.

Refused, each with one sentence naming the node: an operator outside the table (not element-wise, or
not written here), an attribute the converter does not read, an input or output shape that is not
static, an element type DirectML has no element-wise support for (DOUBLE, STRING, ...), a Clip bound
that is not an initializer, a model output that is a model input or an initializer (a DirectML graph
output comes from an operator node: put an Identity in front of it), and the two inputs whose results
ONNX and DirectML define differently (docs/NUMERICS.md): a Clip with min > max (ONNX Runtime
returns max, DirectML's CLIP Min) or a NaN bound (DirectML's CLIP ignores it). Nodes whose outputs no
model output needs, and initializers no kept node reads, are dropped (every DML node output must be
connected, and a constant node must feed something).
"""
import dataclasses

import numpy as np

import directmlx_graph as dmlx
from dmlemu.directml import *  # noqa: F401,F403

__all__ = ["ConversionError", "Converted", "OPERATORS", "convert", "dml_type", "broadcast_strides"]


class ConversionError(ValueError):
    """The model has something the converter does not convert; the message says what, and where."""


# ONNX TensorProto element types -> DML_TENSOR_DATA_TYPE names (BOOL is one byte, 0 or 1: UINT8).
ELEMENT_TYPES = {1: "FLOAT32", 10: "FLOAT16", 2: "UINT8", 3: "INT8", 4: "UINT16", 5: "INT16", 6: "INT32",
                 7: "INT64", 9: "UINT8", 12: "UINT32", 13: "UINT64"}
BOOL = 9


@dataclasses.dataclass(frozen=True)
class Rule:
    """How one ONNX operator becomes a DML operator: `operator` (DML_OPERATOR_<operator>), the ONNX
    attributes read and the desc fields they fill ({onnx name: (DML field, default)}), fixed desc fields,
    and the output's element type ("input": the first input's; "bool": UINT8; "to": Cast's attribute)."""
    operator: str
    attributes: dict = dataclasses.field(default_factory=dict)
    fields: dict = dataclasses.field(default_factory=dict)
    output: str = "input"
    inputs: int = 1


OPERATORS = {
    "Add": Rule("ELEMENT_WISE_ADD", inputs=2),
    "Sub": Rule("ELEMENT_WISE_SUBTRACT", inputs=2),
    "Mul": Rule("ELEMENT_WISE_MULTIPLY", inputs=2),
    "Div": Rule("ELEMENT_WISE_DIVIDE", inputs=2),
    "Pow": Rule("ELEMENT_WISE_POW", inputs=2),
    "Abs": Rule("ELEMENT_WISE_ABS"),
    "Neg": Rule("ELEMENT_WISE_NEGATE"),
    "Sign": Rule("ELEMENT_WISE_SIGN"),
    "Floor": Rule("ELEMENT_WISE_FLOOR"),
    "Ceil": Rule("ELEMENT_WISE_CEIL"),
    "Reciprocal": Rule("ELEMENT_WISE_RECIP"),
    "Sqrt": Rule("ELEMENT_WISE_SQRT"),
    "Exp": Rule("ELEMENT_WISE_EXP"),
    "Log": Rule("ELEMENT_WISE_LOG"),
    "Tanh": Rule("ELEMENT_WISE_TANH"),
    "Erf": Rule("ELEMENT_WISE_ERF"),
    "Sin": Rule("ELEMENT_WISE_SIN"),
    "Cos": Rule("ELEMENT_WISE_COS"),
    "Identity": Rule("ELEMENT_WISE_IDENTITY"),
    "Relu": Rule("ACTIVATION_RELU"),
    "Sigmoid": Rule("ACTIVATION_SIGMOID"),
    "Softsign": Rule("ACTIVATION_SOFTSIGN"),
    "Softplus": Rule("ACTIVATION_SOFTPLUS", fields={"Steepness": 1.0}),
    "LeakyRelu": Rule("ACTIVATION_LEAKY_RELU", {"alpha": ("Alpha", 0.01)}),
    "Elu": Rule("ACTIVATION_ELU", {"alpha": ("Alpha", 1.0)}),
    "Celu": Rule("ACTIVATION_CELU", {"alpha": ("Alpha", 1.0)}),
    "Selu": Rule("ACTIVATION_SCALED_ELU", {"alpha": ("Alpha", 1.67326319217681884765625),
                                           "gamma": ("Gamma", 1.05070102214813232421875)}),
    "HardSigmoid": Rule("ACTIVATION_HARD_SIGMOID", {"alpha": ("Alpha", 0.2), "beta": ("Beta", 0.5)}),
    "ThresholdedRelu": Rule("ACTIVATION_THRESHOLDED_RELU", {"alpha": ("Alpha", 1.0)}),
    "Min": Rule("ELEMENT_WISE_MIN", inputs=2),
    "Max": Rule("ELEMENT_WISE_MAX", inputs=2),
    "Clip": Rule("ELEMENT_WISE_CLIP", inputs=3),
    "Where": Rule("ELEMENT_WISE_IF", inputs=3),
    "Equal": Rule("ELEMENT_WISE_LOGICAL_EQUALS", output="bool", inputs=2),
    "Greater": Rule("ELEMENT_WISE_LOGICAL_GREATER_THAN", output="bool", inputs=2),
    "GreaterOrEqual": Rule("ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL", output="bool", inputs=2),
    "Less": Rule("ELEMENT_WISE_LOGICAL_LESS_THAN", output="bool", inputs=2),
    "LessOrEqual": Rule("ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL", output="bool", inputs=2),
    "And": Rule("ELEMENT_WISE_LOGICAL_AND", output="bool", inputs=2),
    "Or": Rule("ELEMENT_WISE_LOGICAL_OR", output="bool", inputs=2),
    "Xor": Rule("ELEMENT_WISE_LOGICAL_XOR", output="bool", inputs=2),
    "Not": Rule("ELEMENT_WISE_LOGICAL_NOT", output="bool"),
    "Cast": Rule("CAST", {"saturate": (None, 1)}, output="to"),   # saturate only concerns FLOAT8 targets
}


def dml_type(element_type, where):
    """The DML_TENSOR_DATA_TYPE of an ONNX element type (ConversionError naming `where` if there is none)."""
    name = ELEMENT_TYPES.get(element_type)
    if name is None:
        import onnx
        raise ConversionError(f"{where} has element type {onnx.TensorProto.DataType.Name(element_type)}; the "
                              f"converter maps only {', '.join(_onnx_type_names())} to DirectML tensor types")
    return DML_TENSOR_DATA_TYPE[f"DML_TENSOR_DATA_TYPE_{name}"]


def _onnx_type_names():
    import onnx
    return [onnx.TensorProto.DataType.Name(t) for t in ELEMENT_TYPES]


def broadcast_strides(shape, out_shape):
    """Strides (in elements) that read a packed tensor of `shape` as `out_shape` (numpy broadcasting):
    the packed stride where the sizes agree, 0 where `shape` has 1 (or lacks the leading dimension)."""
    shape, out_shape = list(shape) or [1], list(out_shape) or [1]
    padded = [1] * (len(out_shape) - len(shape)) + shape
    strides, step = [0] * len(out_shape), 1
    for i in range(len(out_shape) - 1, -1, -1):
        strides[i] = step if padded[i] == out_shape[i] and padded[i] != 1 else 0
        step *= padded[i]
    return strides


@dataclasses.dataclass
class Converted:
    """A converted model: the DirectMLX-style graph, its outputs (Expressions, in the model's output
    order), the names of the DML graph inputs in order (model inputs, then initializers fed as graph
    inputs), the initializers' arrays, every ONNX value's Expression, shape and ONNX element type (for
    the checks), and the model nodes kept, each with its DML node index."""
    graph: dmlx.Graph
    outputs: list
    output_names: list
    input_names: list
    initializers: dict
    values: dict
    shapes: dict
    types: dict
    nodes: list

    def inputs(self, feeds):
        """The arrays to bind to the DML graph inputs, in order, from the model's {input name: array}."""
        return [np.ascontiguousarray(feeds[n] if n in feeds else self.initializers[n]) for n in self.input_names]


def _static_shape(value_info, where):
    dims = value_info.type.tensor_type.shape.dim
    if not value_info.type.tensor_type.HasField("shape") or any(not d.HasField("dim_value") for d in dims):
        raise ConversionError(f"{where} has no static shape; the converter needs every dimension as a number")
    return [d.dim_value for d in dims]


def _needed_nodes(graph):
    """The nodes a model output depends on, in model order (others are dropped: DirectML needs every node
    output connected)."""
    producer = {out: node for node in graph.node for out in node.output}
    needed, stack = set(), [o.name for o in graph.output]
    while stack:
        node = producer.get(stack.pop())
        if node is not None and id(node) not in needed:
            needed.add(id(node))
            stack.extend(node.input)
    return [node for node in graph.node if id(node) in needed]


def _scalar_bound(node, j, initializers, default):
    """Clip's min (j = 1) or max (j = 2): an initializer's one value, or `default` when absent."""
    if len(node.input) <= j or node.input[j] == "":
        return default
    name = node.input[j]
    if name not in initializers:
        raise ConversionError(f"node \"{node.name}\" (Clip) reads its {('min', 'max')[j - 1]} from \"{name}\", which "
                              f"is no initializer; DirectML's CLIP takes Min and Max as numbers, so they must be "
                              f"constants")
    value = initializers[name]
    if value.size != 1:
        raise ConversionError(f"node \"{node.name}\" (Clip) has a {('min', 'max')[j - 1]} of {value.size} values; "
                              f"it must be one value")
    return float(value.reshape(-1)[0])


def convert(model, dml, constants=None):
    """Convert an ONNX ModelProto to a `Converted` graph on the IDMLDevice `dml`. `constants`: initializers
    as constant nodes (True), as graph inputs (False), or by the device's feature level (None: constant
    nodes from DML_FEATURE_LEVEL_6_2). Raises ConversionError with a sentence for anything it refuses."""
    from onnx import numpy_helper
    if constants is None:
        query = DML_FEATURE_QUERY_FEATURE_LEVELS(RequestedFeatureLevels=list(DML_FEATURE_LEVEL))
        level = dml.CheckFeatureSupport(DML_FEATURE_FEATURE_LEVELS, query).MaxSupportedFeatureLevel
        constants = level >= DML_FEATURE_LEVEL_6_2
    onnx_graph = model.graph
    initializers = {t.name: numpy_helper.to_array(t) for t in onnx_graph.initializer}
    initializer_types = {t.name: t.data_type for t in onnx_graph.initializer}
    graph = dmlx.Graph(dml)
    values, shapes, types, input_names = {}, {}, {}, []
    for value in onnx_graph.input:
        if value.name in initializers:   # an initializer listed as an input too (old exporters) is a constant
            continue
        where = f"graph input \"{value.name}\""
        shapes[value.name] = _static_shape(value, where)
        types[value.name] = value.type.tensor_type.elem_type
        values[value.name] = graph.input(shapes[value.name] or [1], dml_type(types[value.name], where))
        input_names.append(value.name)
    nodes = _needed_nodes(onnx_graph)
    # The initializers a kept node reads as a tensor (not those read only as Clip's min / max, nor unused
    # ones: a constant node must feed something).
    tensors_read = {name for n in nodes for name in (n.input[:1] if n.op_type == "Clip" else n.input)}
    for name, array in initializers.items():
        if name not in tensors_read:
            continue
        where = f"initializer \"{name}\""
        shapes[name], types[name] = list(array.shape), initializer_types[name]
        data_type = dml_type(types[name], where)
        if constants:   # the bytes DirectML holds: the array in the NumPy type of its DML type (BOOL: UINT8)
            values[name] = graph.constant(array.astype(dmlx.golden.DATA_TYPES[ELEMENT_TYPES[types[name]]]), name)
        else:
            values[name] = graph.input(shapes[name] or [1], data_type)
            input_names.append(name)
    kept = []
    for node in nodes:
        kept.append((node, len(graph.nodes)))
        _convert_node(graph, node, values, shapes, types, initializers)
    outputs, output_names = [], []
    for value in onnx_graph.output:
        name = value.name
        if name not in values or values[name].source[0] != "node":
            raise ConversionError(f"graph output \"{name}\" is a graph input or an initializer; a DirectML graph "
                                  f"output comes from an operator node (put an Identity node in front of it)")
        if name in output_names:
            raise ConversionError(f"graph output \"{name}\" is listed twice; dmlemu's CompileGraph lets a node output "
                                  f"be one graph output")
        outputs.append(values[name])
        output_names.append(name)
    return Converted(graph, outputs, output_names, input_names,
                     {n: a for n, a in initializers.items() if n in input_names}, values, shapes, types, kept)


def _convert_node(graph, node, values, shapes, types, initializers):
    from onnx import helper
    where = f"node \"{node.name}\" ({node.op_type})"
    rule = OPERATORS.get(node.op_type) if node.domain in ("", "ai.onnx") else None
    if rule is None:
        raise ConversionError(f"{where} is not an element-wise operator this converter converts; it converts "
                              f"{', '.join(sorted(OPERATORS))} (ai.onnx domain)")
    fields = dict(rule.fields)
    for attribute in node.attribute:
        if attribute.name == "to" and rule.output == "to":
            continue
        if attribute.name not in rule.attributes:
            raise ConversionError(f"{where} has the attribute \"{attribute.name}\", which the converter does not read; "
                                  f"{node.op_type} takes {', '.join(rule.attributes) or 'no attributes'} here")
        field, default = rule.attributes[attribute.name]
        value = helper.get_attribute_value(attribute)
        if field is None:
            if value != default:
                raise ConversionError(f"{where} has {attribute.name} = {value}; the converter reads only the default "
                                      f"{default}")
            continue
        fields[field] = float(value)
    for name, (field, default) in rule.attributes.items():
        if field is not None:
            fields.setdefault(field, default)
    data_inputs = list(node.input)
    if node.op_type == "Clip":
        low = _scalar_bound(node, 1, initializers, -np.inf)
        high = _scalar_bound(node, 2, initializers, np.inf)
        if np.isnan(low) or np.isnan(high):
            raise ConversionError(f"{where} has a NaN bound (min {low}, max {high}); DirectML's CLIP ignores a NaN "
                                  f"bound where ONNX Runtime's min / max do not (NUMERICS.md), so the converter "
                                  f"refuses it")
        if low > high:
            raise ConversionError(f"{where} has min {low} > max {high}; ONNX Runtime returns max there and DirectML's "
                                  f"CLIP returns Min (NUMERICS.md), so the converter refuses it")
        fields.update(Min=low, Max=high)
        data_inputs = data_inputs[:1]
        if len(node.input) > 3 or not data_inputs or data_inputs[0] == "":
            raise ConversionError(f"{where} has inputs {list(node.input)}; Clip reads one tensor, then min and max")
    elif len(data_inputs) != rule.inputs or "" in data_inputs:
        raise ConversionError(f"{where} has {len(data_inputs)} inputs; the converter converts it with {rule.inputs}")
    for name in data_inputs:
        if name not in values:
            raise ConversionError(f"{where} reads \"{name}\", which no graph input, initializer or earlier node gives")
    try:
        out_shape = list(np.broadcast_shapes(*[tuple(shapes[n]) for n in data_inputs]))
    except ValueError:
        raise ConversionError(f"{where} reads shapes {[shapes[n] for n in data_inputs]}, which do not broadcast "
                              f"together") from None
    sizes = out_shape or [1]
    inputs = []
    for name in data_inputs:
        x = values[name]
        if list(x.tensor.Desc.Sizes) != sizes:   # read the same bytes with the output's Sizes, stride 0 broadcasts
            x = dmlx.reinterpret(x, sizes, broadcast_strides(shapes[name], out_shape))
        inputs.append(x)
    if rule.output == "bool":
        out_type = BOOL
    elif rule.output == "to":
        out_type = next(a.i for a in node.attribute if a.name == "to")
    else:
        out_type = types[data_inputs[1] if node.op_type == "Where" else data_inputs[0]]
    output_type = dml_type(out_type, f"{where}'s output \"{node.output[0]}\"")
    if len(node.output) != 1:
        raise ConversionError(f"{where} has {len(node.output)} outputs; element-wise operators have one")
    y = graph.node(rule.operator, *inputs, output_type=output_type, name=node.name or node.output[0], **fields)
    values[node.output[0]], shapes[node.output[0]], types[node.output[0]] = y, out_shape, out_type


# ---- a self-check: a tiny model, converted, run and compared with the golden nodes one by one ---------------
def main():
    try:
        import onnx  # noqa: F401
        from onnx import TensorProto, helper
    except ImportError:
        print("examples/onnx_to_dml.py needs the onnx package: pip install -e '.[onnx]'")
        return
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8])
    bias = helper.make_tensor("bias", TensorProto.FLOAT, [8], np.linspace(-1, 1, 8).astype(np.float32))
    model = helper.make_model(helper.make_graph(
        [helper.make_node("Add", ["x", "bias"], ["h"], name="add_bias"),
         helper.make_node("Relu", ["h"], ["y"], name="relu")], "tiny", [x], [y], [bias]),
        opset_imports=[helper.make_opsetid("", 17)])
    host = dmlx.Host()
    converted = convert(model, host.dml)
    xs = np.arange(-8, 8, dtype=np.float32).reshape(2, 8) / 4
    [ys], line = dmlx.run_and_check(host, converted.graph, converted.inputs({"x": xs}), converted.outputs, "tiny")
    print("Add(x, bias[8] broadcast) -> Relu:", ys[1])
    print(line)
    print("bit-exact against dmlemu.golden (every node one by one).")


if __name__ == "__main__":
    main()
