"""The importer: an ONNX model -> a `Converted` DML graph, refused at once (ConversionError) where it
cannot be converted, before any GPU work.

The walk, as ONNX Runtime prepares a model for its DirectML provider:

1. onnx.shape_inference (strict): every value of the model must then have a static shape; a dynamic
   dimension is refused with a sentence naming the value;
2. constants: initializers and Constant nodes are NumPy arrays; a node whose inputs are all constant
   (Shape on a static shape too) is folded at import (onnx.reference), as ONNX Runtime's constant
   folding does; a constant a DML node reads becomes a graph input bound to its bytes (uploaded
   through an UPLOAD heap by host.py) with DML_TENSOR_FLAG_OWNED_BY_DML, so the initializer copies it
   into the persistent resource once, as ONNX Runtime lets DirectML own the weights; one a converter
   reads as a number (axes, shapes, Clip's bounds) stays on the host;
3. graph rewrites ONNX Runtime's optimiser makes at level 1: a BatchNormalization after a Conv whose
   only reader it is folds into the Conv's weights and bias (ConvBNFusion); a 2-D MatMul whose only
   reader is an Add of a bias becomes a Gemm with that bias as C (MatMulAddFusion); an activation that is
   the only reader of a Conv / ConvTranspose / Gemm / MatMul / BatchNormalization / LayerNormalization
   output becomes its FusedActivation (converters.ACCEPTS_FUSED_ACTIVATION);
4. each kept node (those a model output needs) through the conversion table (converters.py);
5. each model output: a packed DML node output; a view, a graph input or a node output that is already
   a model output becomes one more ELEMENT_WISE_IDENTITY node (a DirectML graph output comes from an
   operator node).
"""
import dataclasses

import numpy as np

from dmlemu.onnx.converters import ACCEPTS_FUSED_ACTIVATION, CONVERSIONS, FUSABLE, activation_fields
from dmlemu.onnx.dml_graph import DmlGraph, packed_strides
from dmlemu.onnx.errors import ConversionError

__all__ = ["Converted", "convert", "load_model", "ELEMENT_TYPES", "numpy_type"]

# ONNX TensorProto element types -> DML_TENSOR_DATA_TYPE names (BOOL is one byte, 0 or 1: UINT8).
ELEMENT_TYPES = {1: "FLOAT32", 10: "FLOAT16", 11: "FLOAT64", 2: "UINT8", 3: "INT8", 4: "UINT16", 5: "INT16",
                 6: "INT32", 7: "INT64", 9: "UINT8", 12: "UINT32", 13: "UINT64"}
BOOL = 9
_FOLD_LIMIT = 1 << 22        # elements: larger constant subgraphs stay on the device
MAX_MODEL_BYTES = (1 << 31) - 1   # a protobuf message (an ONNX model file) is smaller than 2 GiB


def numpy_type(element_type):
    """The NumPy dtype of an ONNX element type (BOOL: bool)."""
    from dmlemu import golden
    return np.dtype(bool) if element_type == BOOL else np.dtype(golden.DATA_TYPES[ELEMENT_TYPES[element_type]])


def load_model(model):
    """An onnx.ModelProto from a path or a ModelProto (ConversionError for a file onnx cannot read). The path must
    name a regular file of at most MAX_MODEL_BYTES (checked before reading: /dev/zero, a FIFO or a folder would
    be read until the host's memory ran out)."""
    import os

    import onnx
    if isinstance(model, onnx.ModelProto):
        return model
    if not isinstance(model, (str, os.PathLike)):     # os.stat would take an int as an open file descriptor
        raise ConversionError(f"model is {type(model).__name__}; it must be a path or an onnx.ModelProto")
    info = os.stat(model)
    import stat
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(21, "Is a directory", str(model))
    if not stat.S_ISREG(info.st_mode):
        raise ConversionError(f"{model} is not a regular file; an ONNX model is a .onnx file")
    if info.st_size > MAX_MODEL_BYTES:
        raise ConversionError(f"{model} is {info.st_size} bytes; an ONNX model file holds at most {MAX_MODEL_BYTES} "
                              f"bytes (protobuf's 2 GiB limit: larger models keep their weights as external data)")
    try:
        return onnx.load(str(model))
    except OSError:
        raise
    except Exception as error:   # onnx raises DecodeError and others for a file that is no model
        raise ConversionError(f"cannot read {model} as an ONNX model: {' '.join(str(error).split()) or type(error).__name__}") from None


@dataclasses.dataclass
class Converted:
    """A converted model: the DML graph, the Views of its outputs (one per model output, in order), the
    model's input and output names, each output's ONNX shape and element type, and the DML nodes'
    ONNX node names (DmlNode.onnx_nodes)."""
    graph: DmlGraph
    outputs: list
    input_names: list
    output_names: list
    output_shapes: list
    output_types: list
    model_inputs: dict           # {name: (shape, element type)}

    def graph_inputs(self, feeds):
        """The bytes bound to the DML graph inputs, in order (uint8 arrays): the model's inputs from `feeds`,
        then the constants' own bytes (BOOL as UINT8), each zero-padded to its tensor's TotalTensorSizeInBytes
        (DMLCalcBufferTensorSize rounds up to 4 bytes; a binding must cover it)."""
        arrays = []
        for name, view, array in self.graph.inputs:
            data = np.asarray(feeds[name] if array is None else array)
            data = np.ascontiguousarray(data.astype(np.uint8) if data.dtype == bool else data).view(np.uint8).reshape(-1)
            total = int(view.tensor.Desc.TotalTensorSizeInBytes)
            arrays.append(np.concatenate([data, np.zeros(total - data.size, np.uint8)]) if data.size < total else data)
        return arrays


def _node_name(node, i, taken):
    name = node.name or f"{node.op_type}_{i}"
    base, k = name, 1
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    taken.add(name)
    return name


class Context:
    """What a converter reads and writes (converters.py's banner lists the calls)."""

    def __init__(self, model, graph_values, opset, owned_constants=True):
        self.model = model
        self.opset = opset
        self.owned_constants = owned_constants
        self.graph = DmlGraph()
        self.shapes, self.types = {}, {}
        self.views, self.constants = {}, {}
        self.names = {}                 # id(node) -> its unique name
        self.fused = {}                 # id(node) -> the activation node it takes as FusedActivation
        self.extra = {}                 # id(node) -> [(name, op type)] of ONNX nodes folded into it
        self.original_ops = {}          # id(node) -> the op type of the node a rewrite replaced
        self.needed_values = set()
        self.model_inputs = {}
        for value in graph_values:
            self._declare_value(value)

    # ---- values -------------------------------------------------------------------------------------
    def _declare_value(self, value):
        t = value.type.tensor_type if value.type.HasField("tensor_type") else None
        if t is None or not t.elem_type:
            return
        if self.shapes.get(value.name) is not None:
            # Declared already (graph inputs come first): a graph output that is a graph input keeps the input's
            # shape and type, as ONNX Runtime reads the model (its output declaration is not the input's feed).
            return
        self.types[value.name] = t.elem_type
        if t.HasField("shape"):
            dims = t.shape.dim
            if all(d.HasField("dim_value") for d in dims):
                self.shapes[value.name] = [int(d.dim_value) for d in dims]
            else:
                self.shapes[value.name] = None

    def declare(self, name, shape, element_type):
        self.shapes[name], self.types[name] = list(shape), element_type

    def where(self, node):
        return f"node \"{self.names[id(node)]}\" ({node.op_type})"

    def refuse(self, node, reason):
        raise ConversionError(f"{self.where(node)} cannot be converted: {reason}")

    def shape(self, name):
        shape = self.shapes.get(name)
        if shape is None:
            dims = "no shape" if name not in self.shapes else "a dynamic shape"
            raise ConversionError(f"value \"{name}\" has {dims} after shape inference; the converter needs every "
                                  f"dimension as a number (give the model's inputs static shapes)")
        return shape

    def onnx_type(self, name):
        if name not in self.types:
            raise ConversionError(f"value \"{name}\" has no element type after shape inference")
        return self.types[name]

    def type_name(self, name):
        element_type = self.onnx_type(name)
        if element_type not in ELEMENT_TYPES:
            import onnx
            raise ConversionError(f"value \"{name}\" has element type {onnx.TensorProto.DataType.Name(element_type)}; "
                                  f"DirectML has no tensor type for it")
        return ELEMENT_TYPES[element_type]

    def needed(self, name):
        return name in self.needed_values

    def view(self, name):
        """The View of a value; a constant becomes a graph input bound to its bytes (once)."""
        if name in self.views:
            return self.views[name]
        if name in self.constants:
            array = self.constants[name]
            view = self.graph.input(name, list(array.shape), self.type_name(name),
                                    array.astype(np.uint8) if array.dtype == bool else array, owned=self.owned_constants)
            self.views[name] = view
            return view
        raise ConversionError(f"value \"{name}\" is read before any node, graph input or initializer gives it")

    def set(self, name, view):
        """A value that is a view of bytes that exist (no node)."""
        self.views[name] = view

    def constant(self, node, j, what):
        """Input `j` of `node`, which must be a constant (an initializer, a Constant node or folded)."""
        name = node.input[j] if j < len(node.input) else ""
        if not name:
            self.refuse(node, f"it has no {what} input")
        if name not in self.constants:
            self.refuse(node, f"its {what} comes from \"{name}\", which is computed; the converter needs it as a "
                              f"constant (an initializer or a Constant node)")
        return self.constants[name]

    def scalar(self, node, j, what, default):
        if j >= len(node.input) or not node.input[j]:
            return default
        value = np.asarray(self.constant(node, j, what))
        if value.size != 1:
            self.refuse(node, f"its {what} has {value.size} values; it must be one")
        return value.reshape(-1)[0].item()

    def attr(self, node, name, default):
        from onnx import helper
        for attribute in node.attribute:
            if attribute.name == name:
                return helper.get_attribute_value(attribute)
        return default

    def check_attributes(self, node, known):
        for attribute in node.attribute:
            if attribute.name not in known:
                self.refuse(node, f"it has the attribute \"{attribute.name}\", which the converter does not read "
                                  f"({node.op_type} reads {', '.join(sorted(known)) or 'none'} here)")

    # ---- views of views -----------------------------------------------------------------------------
    def broadcast(self, name, shape, reshape=None):
        """The value read with `shape` (numpy broadcasting: stride 0 where it has 1 or lacks the dimension);
        `reshape`: a shape of the same elements to read it as first."""
        x = self.view(name) if reshape is None else self.reshape(None, name, reshape)
        own = (self.shape(name) if reshape is None else list(reshape)) or [1]
        shape = list(shape) or [1]
        if own == shape and x.sizes == shape:
            return x
        if len(own) > len(shape):
            if all(s == 1 for s in own[:len(own) - len(shape)]):
                own = own[len(own) - len(shape):]
            else:
                raise ConversionError(f"value \"{name}\" of shape {own} cannot be read as {shape}")
        x = x if x.sizes == own else x.reinterpret(own, self._strides_for(x, own, name))
        pad = len(shape) - len(own)
        strides = [0] * pad + [0 if o == 1 and s != 1 else st for o, s, st in zip(own, shape[pad:], x.strides)]
        for o, s in zip(own, shape[pad:]):
            if o != s and o != 1:
                raise ConversionError(f"value \"{name}\" of shape {own} does not broadcast to {shape}")
        return x.reinterpret(shape, strides)

    def _strides_for(self, x, shape, name):
        strides = _nocopy_strides(x.sizes, x.strides, list(shape))
        if strides is None:
            raise ConversionError(f"value \"{name}\" cannot be read as {shape} without a copy")
        return strides

    def reshape(self, node, name, shape):
        """The value read with another shape of the same elements: new strides where they express it,
        else an ELEMENT_WISE_IDENTITY node (named after `node`) packs it first."""
        x = self.view(name)
        shape = [int(s) for s in shape] or [1]
        if x.sizes == shape:
            return x
        strides = _nocopy_strides(x.sizes, x.strides, shape)
        if strides is None:
            packed = self._pack(node, x, name)
            return packed.reinterpret(shape, packed_strides(shape))
        return x.reinterpret(shape, strides)

    def _pack(self, node, x, name):
        names = (self.names[id(node)],) if node is not None else (f"pack {name}",)
        ops = (node.op_type,) if node is not None else ("Identity",)
        [y] = self.graph.node("ELEMENT_WISE_IDENTITY", [("InputTensor", x)], [("OutputTensor", (x.sizes, x.type_name))],
                              {}, names, ops)
        return y

    # ---- nodes --------------------------------------------------------------------------------------
    def fused_activation(self, node):
        """The FusedActivation desc of `node` (None when no activation was fused into it)."""
        activation = self.fused.get(id(node))
        if activation is None:
            return None
        from dmlemu import directml
        operator, fields = activation_fields(self, activation)
        struct = getattr(directml, f"DML_{operator}_OPERATOR_DESC")
        return directml.DML_OPERATOR_DESC(Type=directml.DML_OPERATOR_TYPE[f"DML_OPERATOR_{operator}"],
                                          Desc=struct(InputTensor=None, OutputTensor=None, **fields))

    def fused_output(self, node):
        activation = self.fused.get(id(node))
        return node.output[0] if activation is None else activation.output[0]

    def emit(self, node, operator, inputs, outputs, fields, sizes=None, types=None):
        """An operator node for `node`: `inputs` [(field, View | [View] | None)], `outputs` [(field, value name |
        [value names] | None)], desc `fields`; `sizes`: the DML Sizes of a single output when they differ from
        its ONNX shape (the ONNX value is then a view of the same bytes), or {value name: DML Sizes} for any
        output; `types`: {value name: DML data type} where the DML tensor reads the value's bytes as another
        type (MaxPool's INT64 indices as UINT64)."""
        specs, names = [], []
        for field, out in outputs:
            group = out if isinstance(out, list) else [out]
            group_specs = []
            for value in group:
                if value is None:
                    group_specs.append(None)
                    continue
                shape = self.shape(value) or [1]
                dml_sizes = list(sizes) if sizes is not None and len(outputs) == 1 else shape
                if isinstance(sizes, dict):
                    dml_sizes = list(sizes.get(value, shape))
                group_specs.append((dml_sizes, (types or {}).get(value) or self.type_name(value)))
                names.append(value)
            specs.append((field, group_specs if isinstance(out, list) else group_specs[0]))
        extra = self.extra.get(id(node), [])
        onnx_nodes = [self.names[id(node)]] + [name for name, _ in extra]
        onnx_ops = [self.original_ops.get(id(node), node.op_type)] + [op for _, op in extra]
        activation = self.fused.get(id(node))
        if activation is not None:
            onnx_nodes.append(self.names[id(activation)])
            onnx_ops.append(activation.op_type)
        views = self.graph.node(operator, inputs, specs, fields, onnx_nodes, onnx_ops)
        for value, view in zip(names, views):
            shape = self.shape(value) or [1]
            self.views[value] = view if view.sizes == shape else view.reinterpret(shape, packed_strides(shape))


def _nocopy_strides(old_sizes, old_strides, new_sizes):
    """Strides that read the elements of (old_sizes, old_strides) in C order as new_sizes, or None when no
    strides do (NumPy's _attempt_nocopy_reshape)."""
    if int(np.prod(old_sizes)) != int(np.prod(new_sizes)):
        return None
    if 0 in new_sizes:
        return packed_strides(new_sizes)
    old = [(s, st) for s, st in zip(old_sizes, old_strides) if s != 1]
    od, ost = [s for s, _ in old], [st for _, st in old]
    new_strides = [1] * len(new_sizes)
    oi, oj, ni, nj = 0, 1, 0, 1
    while ni < len(new_sizes) and oi < len(od):
        np_, op = new_sizes[ni], od[oi]
        while np_ != op:
            if np_ < op:
                np_ *= new_sizes[nj]
                nj += 1
            else:
                op *= od[oj]
                oj += 1
        for ok in range(oi, oj - 1):
            if ost[ok] != od[ok + 1] * ost[ok + 1]:
                return None
        new_strides[nj - 1] = ost[oj - 1]
        for nk in range(nj - 1, ni, -1):
            new_strides[nk - 1] = new_strides[nk] * new_sizes[nk]
        ni, nj, oi, oj = nj, nj + 1, oj, oj + 1
    return new_strides


# ---- the walk ----------------------------------------------------------------------------------------------
def _opset(model):
    for entry in model.opset_import:
        if entry.domain in ("", "ai.onnx"):
            return entry.version
    return 1


def _unchecked_shapes(op_type, opset):
    """The op's version at `opset` (e.g. "Relu-1") when onnx.shape_inference has no rule for it (neither an
    inference function nor a function body: the opset-1 versions of Relu, Add, Concat, ...), else None. Such a
    node's output shapes are the model's declarations, never checked against its inputs."""
    import onnx.defs
    try:
        schema = onnx.defs.get_schema(op_type, opset)
    except onnx.defs.SchemaError:
        return None         # not an ai.onnx op at this opset: onnx.checker has named it already
    if schema.has_type_and_shape_inference_function or schema.has_function or schema.has_context_dependent_function:
        return None
    return f"{op_type}-{schema.since_version}"


def _needed(all_nodes, outputs):
    """The nodes a model output depends on, in model order, and the values they need."""
    producer = {out: node for node in all_nodes for out in node.output if out}
    needed, values, stack = set(), set(), list(outputs)
    while stack:
        name = stack.pop()
        if name in values:
            continue
        values.add(name)
        node = producer.get(name)
        if node is not None and id(node) not in needed:
            needed.add(id(node))
            stack.extend(n for n in node.input if n)
    return [node for node in all_nodes if id(node) in needed], values


def _fold(ctx, node):
    """Evaluate a node whose inputs are all constant (onnx.reference), as constant folding does."""
    from onnx import helper
    from onnx.reference import ReferenceEvaluator
    inputs = [n for n in node.input if n]
    graph = helper.make_graph([node], "fold", [helper.make_tensor_value_info(n, ctx.types.get(n, 1), None)
                                                for n in inputs],
                              [helper.make_tensor_value_info(o, 0, None) for o in node.output if o])
    model = helper.make_model(graph, opset_imports=list(ctx.model.opset_import))
    try:
        results = ReferenceEvaluator(model).run(None, {n: ctx.constants[n] for n in inputs})
    except Exception as error:
        ctx.refuse(node, f"its inputs are constants but folding it failed ({' '.join(str(error).split())[:200]})")
    for name, value in zip([o for o in node.output if o], results):
        ctx.constants[name] = np.asarray(value)
        ctx.types.setdefault(name, helper.np_dtype_to_tensor_dtype(np.asarray(value).dtype))
        ctx.shapes[name] = list(np.asarray(value).shape)


def _consumers(nodes):
    readers = {}
    for node in nodes:
        for name in node.input:
            if name:
                readers.setdefault(name, []).append(node)
    return readers


def _fold_batch_normalization(ctx, nodes, outputs):
    """ConvBNFusion: Conv (constant W, B) -> BatchNormalization (constant parameters), the Conv's output read
    by the BatchNormalization only: the Conv takes the scaled weights and bias and the BN's output."""
    from onnx import helper
    readers = _consumers(nodes)
    dropped = set()
    for i, node in enumerate(nodes):
        if node.op_type != "BatchNormalization" or id(node) in dropped:
            continue
        conv = next((n for n in nodes if node.input[0] in n.output), None)
        if conv is None or conv.op_type != "Conv" or len(readers.get(node.input[0], [])) != 1 \
                or node.input[0] in outputs or any(n not in ctx.constants for n in node.input[1:5]) \
                or conv.input[1] not in ctx.constants or (len(conv.input) > 2 and conv.input[2]
                                                            and conv.input[2] not in ctx.constants) \
                or any(o and ctx.needed(o) for o in node.output[1:]):
            continue
        scale, bias, mean, var = (ctx.constants[n].astype(np.float64) for n in node.input[1:5])
        epsilon = float(ctx.attr(node, "epsilon", 1e-5))
        w = ctx.constants[conv.input[1]]
        factor = scale / np.sqrt(var + epsilon)
        b = ctx.constants[conv.input[2]].astype(np.float64) if len(conv.input) > 2 and conv.input[2] else 0.0
        name = ctx.names[id(conv)]
        ctx.constants[f"{name}.W_bn"] = (w.astype(np.float64) * factor.reshape(-1, *[1] * (w.ndim - 1))).astype(w.dtype)
        ctx.constants[f"{name}.B_bn"] = ((b - mean) * factor + bias).astype(w.dtype)
        for suffix in ("W_bn", "B_bn"):
            ctx.types[f"{name}.{suffix}"] = ctx.types[conv.input[1]]
            ctx.shapes[f"{name}.{suffix}"] = list(ctx.constants[f"{name}.{suffix}"].shape)
        fused = helper.make_node("Conv", [conv.input[0], f"{name}.W_bn", f"{name}.B_bn"], [node.output[0]], name=name)
        fused.attribute.extend(conv.attribute)
        ctx.names[id(fused)] = name
        ctx.extra[id(fused)] = [(ctx.names[id(node)], "BatchNormalization")]
        nodes[nodes.index(conv)] = fused
        dropped.add(id(node))
    return [n for n in nodes if id(n) not in dropped]


def _fuse_matmul_add(ctx, nodes, outputs):
    """MatMulAddFusion: a 2-D MatMul whose output only an Add reads, the other addend of rank <= 2 that
    broadcasts to the product, becomes one Gemm with that addend as C (ONNX Runtime's level-1 rewrite)."""
    from onnx import helper
    readers = _consumers(nodes)
    dropped = set()
    for i, node in enumerate(nodes):
        if node.op_type != "MatMul" or node.output[0] in outputs:
            continue
        after = readers.get(node.output[0], [])
        if len(after) != 1 or after[0].op_type != "Add" or after[0].input[0] == after[0].input[1]:
            continue
        add = after[0]
        a, b = (ctx.shapes.get(n) for n in node.input)
        bias = add.input[1] if add.input[0] == node.output[0] else add.input[0]
        c = ctx.shapes.get(bias)
        out = ctx.shapes.get(add.output[0])
        if not a or not b or c is None or out is None or len(a) != 2 or len(b) != 2 or len(c) > 2 or \
                out != [a[0], b[1]] or ctx.types.get(bias) != ctx.types.get(node.output[0]):
            continue
        gemm = helper.make_node("Gemm", [node.input[0], node.input[1], bias], [add.output[0]], name=node.name)
        ctx.names[id(gemm)] = ctx.names[id(node)]
        ctx.extra[id(gemm)] = [(ctx.names[id(add)], "Add")]
        ctx.original_ops[id(gemm)] = "MatMul"
        nodes[i] = gemm
        dropped.add(id(add))
    return [n for n in nodes if id(n) not in dropped]


def _fuse_activations(ctx, nodes, outputs):
    readers = _consumers(nodes)
    skipped = set()
    for node in nodes:
        if node.op_type not in ACCEPTS_FUSED_ACTIVATION or not node.output or node.output[0] in outputs:
            continue
        after = readers.get(node.output[0], [])
        if len(after) != 1 or after[0].op_type not in FUSABLE or after[0].input[0] != node.output[0]:
            continue
        if ctx.types.get(node.output[0]) not in (1, 10):     # FLOAT32, FLOAT16: what a fused activation takes
            continue
        ctx.fused[id(node)] = after[0]
        skipped.add(id(after[0]))
    return skipped


def _with_shape_fields(model):
    """`model`, or a copy whose graph inputs and outputs of tensor type without a shape field have an empty one
    (onnx.checker requires the field; ONNX Runtime does not)."""
    import onnx

    def unshaped(graph):
        return [v for v in (*graph.input, *graph.output)
                if v.type.HasField("tensor_type") and not v.type.tensor_type.HasField("shape")]
    if not unshaped(model.graph):
        return model
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for v in unshaped(copy.graph):
        v.type.tensor_type.shape.SetInParent()
    return copy


def convert(model, owned_constants=True):
    """Convert an ONNX model (a path or an onnx.ModelProto) to a `Converted` DML graph; ConversionError
    (one sentence naming the node, the op and the reason) for anything it cannot convert. `owned_constants`:
    initializers and Constant nodes become DML_TENSOR_FLAG_OWNED_BY_DML graph inputs (bound once, at
    initialization, into the persistent resource), else plain graph inputs bound at every execution."""
    import onnx
    import onnx.defs
    model = load_model(model)
    # A format newer than this onnx package knows is refused, as ONNX Runtime refuses it ("Unsupported model IR
    # version"): its fields could mean what this reader cannot tell.
    if model.ir_version > onnx.IR_VERSION:
        raise ConversionError(f"the model's IR version is {model.ir_version}; this onnx package reads IR versions up "
                              f"to {onnx.IR_VERSION}, as ONNX Runtime refuses a newer one")
    newest = onnx.defs.onnx_opset_version()
    for entry in model.opset_import:
        if entry.domain in ("", "ai.onnx") and entry.version > newest:
            raise ConversionError(f"the model imports ONNX opset {entry.version}; this onnx package knows opsets up "
                                  f"to {newest}")
    try:
        # The structure first, as ONNX Runtime validates a graph before it runs it (an attribute without its type,
        # a node input that names nothing, ...). A graph input or output whose type has no shape passes ONNX
        # Runtime (shapes come from inference), so the checker reads a copy where such a type has an empty shape.
        onnx.checker.check_model(_with_shape_fields(model))
    except Exception as error:
        raise ConversionError(f"onnx.checker refused the model: {' '.join(str(error).split())[:300]}") from None
    # A graph input or output whose tensor type names no element type: ONNX Runtime refuses the model (shape
    # inference would fill one in, so the model as given is read).
    for kind, values in (("input", model.graph.input), ("output", model.graph.output)):
        for value in values:
            if value.type.HasField("tensor_type") and not value.type.tensor_type.elem_type:
                raise ConversionError(f"graph {kind} \"{value.name}\" declares element type 0 (UNDEFINED); ONNX "
                                      f"Runtime refuses a graph input or output without an element type")
    try:
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
    except Exception as error:
        raise ConversionError(f"onnx.shape_inference refused the model: {' '.join(str(error).split())[:300]}") from None
    graph = inferred.graph
    ctx = Context(inferred, list(graph.input) + list(graph.value_info) + list(graph.output), _opset(inferred),
                  owned_constants)
    from onnx import numpy_helper
    for tensor in graph.initializer:
        if tensor.data_type not in ELEMENT_TYPES:
            raise ConversionError(f"initializer \"{tensor.name}\" has element type {tensor.data_type}; the converter "
                                  f"reads {', '.join(str(t) for t in sorted(ELEMENT_TYPES))} (TensorProto's numbers)")
        try:
            ctx.constants[tensor.name] = numpy_helper.to_array(tensor)
        except (ValueError, TypeError) as error:   # its data does not fill its dims, or is of the wrong field
            raise ConversionError(f"initializer \"{tensor.name}\" cannot be read: {' '.join(str(error).split())[:200]}"
                                  ) from None
        ctx.types[tensor.name] = tensor.data_type
        ctx.shapes[tensor.name] = list(tensor.dims)
    if graph.sparse_initializer:
        raise ConversionError("the model has sparse initializers; the converter reads dense ones only")
    if not graph.output:
        raise ConversionError("the model has no graph outputs, so there is nothing to compute")
    taken = set()
    all_nodes = list(graph.node)      # one Python object per node: the walk keys its tables by id()
    for i, node in enumerate(all_nodes):
        ctx.names[id(node)] = _node_name(node, i, taken)
    outputs = [o.name for o in graph.output]
    nodes, ctx.needed_values = _needed(all_nodes, outputs)
    # Model inputs (an initializer listed as an input too, as old exporters do, is a constant).
    input_names = []
    for value in graph.input:
        if value.name in ctx.constants:
            continue
        shape = ctx.shape(value.name)
        ctx.type_name(value.name)
        ctx.model_inputs[value.name] = (shape, ctx.types[value.name])
        input_names.append(value.name)
        if value.name in ctx.needed_values:
            ctx.views[value.name] = ctx.graph.input(value.name, shape or [1], ctx.type_name(value.name))
    # Constants and folding, then every node left is checked against the table: an operator the converter has
    # no row for is refused here, before any node is converted.
    kept = []
    for node in nodes:
        if node.domain not in ("", "ai.onnx"):
            ctx.refuse(node, f"its domain is {node.domain!r}; the converter converts the ai.onnx domain")
        if node.op_type == "Constant":
            from onnx import helper
            if len(node.attribute) != 1:
                ctx.refuse(node, "it must have exactly one value attribute")
            value = np.asarray(helper.get_attribute_value(node.attribute[0]))
            if node.attribute[0].name == "value":
                value = numpy_helper.to_array(node.attribute[0].t)
            elif node.attribute[0].name in ("value_float", "value_floats"):     # ONNX's FLOAT, not Python's float
                value = value.astype(np.float32)
            ctx.constants[node.output[0]] = value
            ctx.types.setdefault(node.output[0], helper.np_dtype_to_tensor_dtype(value.dtype))
            ctx.shapes[node.output[0]] = list(value.shape)
        elif node.op_type in ("Shape", "Size"):
            shape = ctx.shape(node.input[0])
            if node.op_type == "Size":
                ctx.constants[node.output[0]] = np.asarray(int(np.prod(shape)), np.int64)
            else:
                start, end = ctx.attr(node, "start", 0), ctx.attr(node, "end", None)
                ctx.constants[node.output[0]] = np.asarray(shape[start:end], np.int64)
            ctx.shapes[node.output[0]] = list(ctx.constants[node.output[0]].shape)
        elif node.input and all((not n) or n in ctx.constants for n in node.input) and \
                sum(int(np.prod(ctx.shapes.get(o) or [1])) for o in node.output if o) <= _FOLD_LIMIT:
            _fold(ctx, node)
        elif node.op_type not in CONVERSIONS:
            ctx.refuse(node, f"the operator {node.op_type} has no converter (dmlemu.onnx.converters.CONVERSIONS "
                             f"lists the {len(CONVERSIONS)} it converts)")
        elif unchecked := _unchecked_shapes(node.op_type, ctx.opset):
            # A Relu-1 declared 4 x 4 after a Conv whose pads give 5 x 4 passes strict inference; fused into the Conv
            # it would shrink the Conv's end padding to fit. ONNX Runtime guarantees opset 7 and later.
            ctx.refuse(node, f"onnx.shape_inference has no rule for {unchecked} (the "
                             f"version opset {ctx.opset} selects), so its outputs' declared shapes could not be checked "
                             f"against its inputs; the converter converts the versions whose shapes onnx infers "
                             f"(ONNX Runtime supports opset 7 and later)")
        else:
            kept.append(node)
    kept = _fold_batch_normalization(ctx, kept, set(outputs))
    kept = _fuse_matmul_add(ctx, kept, set(outputs))
    skipped = _fuse_activations(ctx, kept, set(outputs))
    for node in kept:
        if id(node) in skipped:
            continue
        for name in node.output:
            if name and ctx.needed(name):
                ctx.shape(name)
                ctx.type_name(name)
        try:
            CONVERSIONS[node.op_type].convert(ctx, node)
        except ConversionError:
            raise
        except (ArithmeticError, LookupError, TypeError, ValueError) as error:
            # A node the converter's rules do not foresee (a malformed attribute, an input count the schema
            # allows but the converter does not read): a sentence, never a traceback.
            ctx.refuse(node, f"the converter does not handle it ({type(error).__name__}: "
                             f"{' '.join(str(error).split())[:200]})")
    # The model outputs: each a packed node output of its own.
    views, used, output_shapes, output_types = [], set(), [], []
    producers = {o: n for n in kept for o in n.output}
    for name in outputs:
        shape, element_type = ctx.shape(name), ctx.onnx_type(name)
        ctx.type_name(name)
        view = ctx.view(name)
        if view.source[0] != "node" or not view.packed or view.source in used:
            node = producers.get(name)
            label = (ctx.names[id(node)],) if node is not None else (f"output {name}",)
            op = (node.op_type,) if node is not None else ("Identity",)
            [view] = ctx.graph.node("ELEMENT_WISE_IDENTITY", [("InputTensor", view)],
                                    [("OutputTensor", (view.sizes, view.type_name))], {}, label, op)
        used.add(view.source)
        views.append(view)
        output_shapes.append(shape)
        output_types.append(element_type)
    if not ctx.graph.nodes:
        raise ConversionError("the model computes nothing on the device (every output is a constant)")
    return Converted(ctx.graph, views, input_names, outputs, output_shapes, output_types, ctx.model_inputs)
