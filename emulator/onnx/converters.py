"""THE conversion table: each ONNX operator (ai.onnx domain) and the converter that turns one node of it
into DML operator nodes, views or constants, as ONNX Runtime's DirectML provider does
(onnxruntime/core/providers/dml/DmlExecutionProvider/src/Operators/DmlOperator*.cpp).

`CONVERSIONS[op_type]` is a `Conversion`: the DML operators it may make (what `implemented()` asks
the mirror about) and the function `convert(ctx, node)`. A converter reads its inputs through the
importer's context (importer.py): `ctx.view(name)` (the tensor as a View; a constant becomes a graph
input bound to its bytes), `ctx.constant(node, j, what)` (an input that must be a constant: shapes,
axes, Clip's bounds), `ctx.shape(name)` (static, after onnx.shape_inference), `ctx.attr(node, name,
default)`; it writes its outputs with `ctx.emit(...)` (a DML operator node) or `ctx.set(name, view)`
(a view of bytes that exist: Reshape, Transpose, Expand, Identity), and refuses with
`ctx.refuse(node, reason)` (a ConversionError naming the node and the op).

How each family maps (ONNX Runtime's choices):

    element-wise       one ELEMENT_WISE_* / ACTIVATION_* node; ONNX broadcasting through stride-0 views of
                       the inputs (DmlOperatorElementWise.cpp); variadic Sum / Min / Max a chain of nodes
    Cast, CastLike     CAST (a cast to the same type is a view)
    Mod                ELEMENT_WISE_MODULUS_TRUNCATE (fmod 1) / _FLOOR (fmod 0)
    Where              ELEMENT_WISE_IF (the BOOL condition is UINT8)
    Gemm               GEMM: TransA / TransB, Alpha, Beta, C broadcast to {M, N} through strides
    MatMul             GEMM on {batch.., M, K} x {batch.., K, N}, batch dimensions broadcast through
                       stride 0 (DmlOperatorMatMul.cpp); a 1-D operand gains a dimension of 1
    MatMulInteger, QLinearMatMul  MATRIX_MULTIPLY_INTEGER, QUANTIZED_LINEAR_MATRIX_MULTIPLY: MatMul's shapes;
                       zero points and scales one value or one per row of A / column of B (FLOAT16 scales CAST)
    activation fusion  a Conv / ConvTranspose / Gemm / MatMul / BatchNormalization / LayerNormalization
                       whose output only feeds one fusable activation (and is no graph output) takes
                       it as its FusedActivation (DmlGraphFusionHelper / FusionHelpers.cpp); the DML
                       node's Name joins both ONNX names
    ReduceX            REDUCE with the matching DML_REDUCE_FUNCTION; the output keeps the rank (a size of 1
                       on each reduced axis), keepdims=0 is a view
    ArgMax / ArgMin    ARGMAX / ARGMIN, INT64 output; select_last_index is AxisDirection DECREASING
    TopK               TOP_K1: K a constant, largest DECREASING / smallest INCREASING, INT64 indices as UINT64
    Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Identity, Dropout, Expand
                       views (Sizes and Strides of the same bytes); a reshape that no strides express
                       packs the input first with ELEMENT_WISE_IDENTITY
    Conv / ConvTranspose  CONVOLUTION (CROSS_CORRELATION, FORWARD / BACKWARD); 1-D as 2-D with H = 1
    ConvInteger, QLinearConv  CONVOLUTION_INTEGER, QUANTIZED_LINEAR_CONVOLUTION (2-D; 1-D as 2-D with H = 1):
                       Conv's pads, scales and zero points one value (the filter's also one per output channel)
    MaxPool, AveragePool, LpPool and their Global forms
                       MAX_POOLING(2) / AVERAGE_POOLING(1) / LP_POOLING(1); global pooling is a window of the
                       whole spatial extent; ceil_mode becomes EndPadding; 1-D as 2-D with H = 1
                       (DmlOperatorPooling.cpp); MaxPool's Indices: MAX_POOLING1 (UINT64 over the INT64
                       bytes) or MAX_POOLING2 + CAST, storage_order 1 as a view with the spatial dimensions reversed
    MaxUnpool          MAX_UNPOOLING (INT64 indices read as UINT64; 1-D as 2-D), a larger output_shape then
                       PADDING1 at the end
    Softmax, LogSoftmax, Hardmax  ACTIVATION_SOFTMAX1 / ACTIVATION_LOG_SOFTMAX1 / ACTIVATION_HARDMAX1 over the
                       axes (axis.. for opset < 13)
    LayerNormalization MEAN_VARIANCE_NORMALIZATION1 over axes axis.., Scale and Bias broadcast to the input;
    InstanceNormalization, MeanVarianceNormalization  MEAN_VARIANCE_NORMALIZATION1 too
    Attention          MULTIHEAD_ATTENTION1 (opset 23; 3-D Query, Key, Value, no mask, not causal, no past, no
                       softcap: q_num_heads query heads on kv_num_heads key / value heads, Scale the attribute or
                       1 / sqrt(head size)); the rest is refused with a sentence
    RMSNormalization   MEAN_VARIANCE_NORMALIZATION2 with UseMean FALSE over axes axis.., Scale broadcast (as ONNX
                       Runtime's DirectML provider runs SimplifiedLayerNormalization)
    LRN, LpNormalization  LOCAL_RESPONSE_NORMALIZATION (across channels), LP_NORMALIZATION
    BatchNormalization BATCH_NORMALIZATION (Spatial, {1, C, 1, 1} parameters); folded into the preceding
                       Conv at import where ONNX Runtime's optimiser would (importer.py)
    Concat, Split, Slice, Pad, Gather, Tile, CumSum, CumProd
                       JOIN, SPLIT, SLICE1, PADDING1, GATHER, TILE, CUMULATIVE_SUMMATION / _PRODUCT
    GatherElements, GatherND, SpaceToDepth, DepthToSpace
                       GATHER_ELEMENTS, GATHER_ND1 (ranks padded with leading 1s), SPACE_TO_DEPTH1, DEPTH_TO_SPACE1
    ScatterElements / Scatter, ScatterND, OneHot
                       SCATTER_ELEMENTS, SCATTER_ND (ranks padded with leading 1s; reduction 'none' only),
                       ONE_HOT (indices with a 1 at the axis, values {.., 2}; float indices CAST to INT64)
    Resize, Upsample   RESAMPLE1, or RESAMPLE2 (RoundingDirection DECREASING) for nearest_mode
                       round_prefer_floor and ceil; the scales given (else sizes / input), pixel offsets from
                       the coordinate_transformation_mode

Desc field names are DirectML.h's; for an operator whose desc the mirror does not define yet the node
is built all the same and CreateOperator answers E_NOTIMPL, which run() turns into a ConversionError
naming the node.
"""
import dataclasses
import functools

import numpy as np

__all__ = ["Conversion", "CONVERSIONS", "FUSABLE", "ACCEPTS_FUSED_ACTIVATION", "implemented"]


@dataclasses.dataclass(frozen=True)
class Conversion:
    """One row: `operators` the DML operators the converter may make (empty: views only); `convert(ctx, node)`."""
    operators: tuple
    convert: object


# ---- activations: standalone nodes and FusedActivation ---------------------------------------------------
# ONNX activation -> (DML activation, {ONNX attribute: (desc field, default)}, fixed desc fields). ONNX Runtime's
# fusable activations (FusionHelpers.cpp) are those with a DML ACTIVATION_* desc.
FUSABLE = {
    "Relu": ("ACTIVATION_RELU", {}, {}),
    "Sigmoid": ("ACTIVATION_SIGMOID", {}, {}),
    "Tanh": ("ACTIVATION_TANH", {}, {}),
    "LeakyRelu": ("ACTIVATION_LEAKY_RELU", {"alpha": ("Alpha", 0.01)}, {}),
    "Elu": ("ACTIVATION_ELU", {"alpha": ("Alpha", 1.0)}, {}),
    "Celu": ("ACTIVATION_CELU", {"alpha": ("Alpha", 1.0)}, {}),
    "Selu": ("ACTIVATION_SCALED_ELU", {"alpha": ("Alpha", 1.67326319217681884765625),
                                       "gamma": ("Gamma", 1.05070102214813232421875)}, {}),
    "HardSigmoid": ("ACTIVATION_HARD_SIGMOID", {"alpha": ("Alpha", 0.2), "beta": ("Beta", 0.5)}, {}),
    "ThresholdedRelu": ("ACTIVATION_THRESHOLDED_RELU", {"alpha": ("Alpha", 1.0)}, {}),
    "Softsign": ("ACTIVATION_SOFTSIGN", {}, {}),
    "Softplus": ("ACTIVATION_SOFTPLUS", {}, {"Steepness": 1.0}),
    "Shrink": ("ACTIVATION_SHRINK", {"bias": ("Bias", 0.0), "lambd": ("Threshold", 0.5)}, {}),
}
# The ONNX operators whose DML node takes a FusedActivation.
ACCEPTS_FUSED_ACTIVATION = ("Conv", "ConvTranspose", "Gemm", "MatMul", "BatchNormalization", "LayerNormalization",
                            "InstanceNormalization", "MeanVarianceNormalization")


def activation_fields(ctx, node):
    """The DML activation of an ONNX activation node and its desc fields."""
    operator, attributes, fixed = FUSABLE[node.op_type]
    fields = dict(fixed)
    for name, (field, default) in attributes.items():
        fields[field] = float(ctx.attr(node, name, default))
    ctx.check_attributes(node, set(attributes))
    return operator, fields


def _activation(ctx, node):
    operator, fields = activation_fields(ctx, node)
    x = ctx.view(node.input[0])
    ctx.emit(node, operator, [("InputTensor", x)], [("OutputTensor", node.output[0])], fields)


# ---- element-wise ------------------------------------------------------------------------------------------
def _elementwise(ctx, node, operator, fields_of=None, arity=None, fields=None):
    """One element-wise node: inputs broadcast to the output's shape (stride 0), packed output of the type shape
    inference gives the ONNX output (BOOL as UINT8). `fields_of(ctx, node)` adds desc fields."""
    names = [n for n in node.input if n]
    if arity is not None and len(names) != arity:
        ctx.refuse(node, f"it has {len(names)} inputs; the converter converts it with {arity}")
    shape = ctx.shape(node.output[0])
    views = [ctx.broadcast(n, shape) for n in names]
    tensor_fields = _TENSOR_FIELDS.get(operator) or {1: ("InputTensor",), 2: ("ATensor", "BTensor"),
                                                     3: ("ConditionTensor", "ATensor", "BTensor")}[len(views)]
    desc = dict(fields or {})
    if fields_of is not None:
        desc.update(fields_of(ctx, node))
    ctx.emit(node, operator, list(zip(tensor_fields, views)), [("OutputTensor", node.output[0])], desc)


# Element-wise descs whose input tensors are not InputTensor / ATensor, BTensor / ConditionTensor, ATensor, BTensor.
_TENSOR_FIELDS = {"ELEMENT_WISE_POW": ("InputTensor", "ExponentTensor"),
                  "ACTIVATION_PARAMETERIZED_RELU": ("InputTensor", "SlopeTensor")}


def _variadic(ctx, node, operator):
    """Sum / Min / Max of n inputs: a chain of n - 1 binary nodes (one input: an identity)."""
    names = [n for n in node.input if n]
    shape = ctx.shape(node.output[0])
    if len(names) == 1:
        ctx.emit(node, "ELEMENT_WISE_IDENTITY", [("InputTensor", ctx.broadcast(names[0], shape))],
                 [("OutputTensor", node.output[0])], {})
        return
    acc = ctx.broadcast(names[0], shape)
    for i, name in enumerate(names[1:]):
        last = i == len(names) - 2
        out = node.output[0] if last else f"{node.output[0]}#partial{i}"
        if not last:
            ctx.declare(out, shape, ctx.onnx_type(node.output[0]))
        ctx.emit(node, operator, [("ATensor", acc), ("BTensor", ctx.broadcast(name, shape))],
                 [("OutputTensor", out)], {})
        acc = ctx.view(out) if not last else None


def _clip_fields(ctx, node):
    if ctx.opset < 11:
        low, high = ctx.attr(node, "min", -np.inf), ctx.attr(node, "max", np.inf)
    else:
        low = ctx.scalar(node, 1, "min", -np.inf)
        high = ctx.scalar(node, 2, "max", np.inf)
    if np.isnan(low) or np.isnan(high) or low > high:
        ctx.refuse(node, f"its bounds are min {low}, max {high}; ONNX and DirectML define Clip differently for a "
                         f"NaN bound or min > max (docs/NUMERICS.md)")
    return {"ScaleBias": None, "Min": float(low), "Max": float(high)}


def _clip(ctx, node):
    """CLIP for floats; CLIP1 (DML_FEATURE_LEVEL_5_0: Min and Max in the tensor's own type) for integers, an
    absent bound the type's limit."""
    x = ctx.view(node.input[0])
    type_name = ctx.type_name(node.input[0])
    if type_name in ("FLOAT32", "FLOAT16", "FLOAT64"):
        ctx.emit(node, "ELEMENT_WISE_CLIP", [("InputTensor", x)], [("OutputTensor", node.output[0])],
                 _clip_fields(ctx, node))
        return
    from dmlemu import golden
    from dmlemu.directml import DML_SCALAR_UNION, DML_TENSOR_DATA_TYPE
    info = np.iinfo(golden.DATA_TYPES[type_name])
    low = ctx.scalar(node, 1, "min", info.min) if ctx.opset >= 11 else info.min
    high = ctx.scalar(node, 2, "max", info.max) if ctx.opset >= 11 else info.max
    if low > high:
        ctx.refuse(node, f"its bounds are min {low}, max {high}; ONNX and DirectML define Clip differently for "
                         f"min > max (docs/NUMERICS.md)")
    member = ("Int" if info.min < 0 else "UInt") + str(info.bits)
    ctx.emit(node, "ELEMENT_WISE_CLIP1", [("InputTensor", x)], [("OutputTensor", node.output[0])],
             {"ScaleBias": None, "MinMaxDataType": DML_TENSOR_DATA_TYPE[f"DML_TENSOR_DATA_TYPE_{type_name}"],
              "Min": DML_SCALAR_UNION(**{member: int(low)}), "Max": DML_SCALAR_UNION(**{member: int(high)})})


def _cast(ctx, node):
    """Cast and CastLike (the type of its second input): CAST, or a view for the same type."""
    ctx.check_attributes(node, {"to", "saturate"})
    if ctx.onnx_type(node.input[0]) == ctx.onnx_type(node.output[0]):
        ctx.set(node.output[0], ctx.view(node.input[0]))
        return
    ctx.emit(node, "CAST", [("InputTensor", ctx.view(node.input[0]))], [("OutputTensor", node.output[0])], {})


def _elementwise_row(operator, arity=None, attributes=None, fixed=None):
    def fields_of(ctx, node):
        ctx.check_attributes(node, set(attributes or {}))
        out = dict(fixed or {})
        for name, (field, default) in (attributes or {}).items():
            out[field] = float(ctx.attr(node, name, default))
        return out
    return Conversion((operator,), functools.partial(_elementwise, operator=operator, fields_of=fields_of,
                                                     arity=arity))


# ---- GEMM ----------------------------------------------------------------------------------------------------
def _gemm(ctx, node):
    ctx.check_attributes(node, {"alpha", "beta", "transA", "transB"})
    a, b = ctx.view(node.input[0]), ctx.view(node.input[1])
    out_shape = ctx.shape(node.output[0])
    inputs = [("ATensor", a), ("BTensor", b)]
    if len(node.input) > 2 and node.input[2]:
        inputs.append(("CTensor", ctx.broadcast(node.input[2], out_shape)))
    else:
        inputs.append(("CTensor", None))
    fields = {"TransA": int(ctx.attr(node, "transA", 0)), "TransB": int(ctx.attr(node, "transB", 0)),
              "Alpha": float(ctx.attr(node, "alpha", 1.0)), "Beta": float(ctx.attr(node, "beta", 1.0)),
              "FusedActivation": ctx.fused_activation(node)}
    ctx.emit(node, "GEMM", inputs, [("OutputTensor", ctx.fused_output(node))], fields)


def _matmul(ctx, node):
    a_shape, b_shape = ctx.shape(node.input[0]), ctx.shape(node.input[1])
    if not a_shape or not b_shape:
        ctx.refuse(node, "an operand is a scalar; MatMul takes tensors of at least one dimension")
    a2 = [1] + a_shape if len(a_shape) == 1 else a_shape
    b2 = b_shape + [1] if len(b_shape) == 1 else b_shape
    batch = list(np.broadcast_shapes(tuple(a2[:-2]), tuple(b2[:-2])))
    if len(batch) > 2:
        ctx.refuse(node, f"its product has {len(batch) + 2} dimensions ({batch + [a2[-2], b2[-1]]}); DirectML's GEMM "
                         f"takes 2 to 4")
    sizes_a, sizes_b = batch + a2[-2:], batch + b2[-2:]
    a = ctx.broadcast(node.input[0], sizes_a, reshape=a2)
    b = ctx.broadcast(node.input[1], sizes_b, reshape=b2)
    out_sizes = batch + [a2[-2], b2[-1]]
    fields = {"TransA": 0, "TransB": 0, "Alpha": 1.0, "Beta": 0.0, "FusedActivation": ctx.fused_activation(node)}
    ctx.emit(node, "GEMM", [("ATensor", a), ("BTensor", b), ("CTensor", None)],
             [("OutputTensor", ctx.fused_output(node))], fields, sizes=out_sizes)



# ---- integer and quantized matrix products -------------------------------------------------------------------
def _integer_operands(ctx, node, a_index, b_index):
    """MatMul's shapes for MatMulInteger / QLinearMatMul: (A view, B view, batch, M, N, output sizes)."""
    a_shape, b_shape = ctx.shape(node.input[a_index]), ctx.shape(node.input[b_index])
    if len(a_shape) < 2 or len(b_shape) < 2:
        ctx.refuse(node, "an operand has fewer than 2 dimensions; DirectML's integer matrix products take 2 to 4")
    batch = list(np.broadcast_shapes(tuple(a_shape[:-2]), tuple(b_shape[:-2])))
    if len(batch) > 2:
        ctx.refuse(node, f"its product has {len(batch) + 2} dimensions; DirectML's integer matrix products take 2 "
                         f"to 4")
    a = ctx.broadcast(node.input[a_index], batch + a_shape[-2:])
    b = ctx.broadcast(node.input[b_index], batch + b_shape[-2:])
    return a, b, batch, a_shape[-2], b_shape[-1]


def _per_line(ctx, node, j, rank, size, axis, what, float32=False):
    """Input `j` (a scale or zero point: one value, or one per row (axis -2, `size` = M) / column (axis -1)) as
    the DML Sizes {1,..,1}, {1,..,M,1} or {1,..,1,N}; None where the node leaves it out. A FLOAT16 scale
    (`float32`) is CAST to FLOAT32 first: DirectML's scales are FLOAT32."""
    name = node.input[j] if j < len(node.input) else ""
    if not name:
        return None
    shape = [int(d) for d in ctx.shape(name)]
    count = int(np.prod(shape)) if shape else 1
    lines = [d for d in shape if d != 1]
    if count != 1 and (lines != [size] or len(shape) > 1 and shape[axis] != size):
        ctx.refuse(node, f"its {what} has shape {shape}; DirectML takes one value or one per "
                         f"{'row' if axis == -2 else 'column'} ({size})")
    if float32 and ctx.type_name(name) != "FLOAT32":
        cast = f"{node.output[0]}#{what.replace(' ', '_')}"
        ctx.declare(cast, shape, 1)
        ctx.emit(node, "CAST", [("InputTensor", ctx.view(name))], [("OutputTensor", cast)], {})
        name = cast
    target = [1] * rank
    if count != 1:
        target[axis] = size
    return ctx.reshape(node, name, target)


def _matmul_integer(ctx, node):
    """MatMulInteger as MATRIX_MULTIPLY_INTEGER: MatMul's shapes (batch broadcast through stride 0), the zero
    points one value or one per row of A / column of B."""
    a, b, batch, m, n = _integer_operands(ctx, node, 0, 1)
    rank = len(batch) + 2
    azp = _per_line(ctx, node, 2, rank, m, -2, "a_zero_point")
    bzp = _per_line(ctx, node, 3, rank, n, -1, "b_zero_point")
    ctx.emit(node, "MATRIX_MULTIPLY_INTEGER", [("ATensor", a), ("AZeroPointTensor", azp), ("BTensor", b),
                                               ("BZeroPointTensor", bzp)],
             [("OutputTensor", node.output[0])], {}, sizes=batch + [m, n])


def _qlinear_matmul(ctx, node):
    """QLinearMatMul as QUANTIZED_LINEAR_MATRIX_MULTIPLY: inputs a, a_scale, a_zero_point, b, b_scale,
    b_zero_point, y_scale, y_zero_point; FLOAT16 scales CAST to FLOAT32."""
    a, b, batch, m, n = _integer_operands(ctx, node, 0, 3)
    rank = len(batch) + 2
    line = lambda j, size, axis, what, scale=False: _per_line(ctx, node, j, rank, size, axis, what, scale)
    inputs = [("ATensor", a), ("AScaleTensor", line(1, m, -2, "a scale", True)),
              ("AZeroPointTensor", line(2, m, -2, "a zero point")), ("BTensor", b),
              ("BScaleTensor", line(4, n, -1, "b scale", True)), ("BZeroPointTensor", line(5, n, -1, "b zero point")),
              ("OutputScaleTensor", line(6, m, -2, "y scale", True)),
              ("OutputZeroPointTensor", line(7, m, -2, "y zero point"))]
    ctx.emit(node, "QUANTIZED_LINEAR_MATRIX_MULTIPLY", inputs, [("OutputTensor", node.output[0])], {},
             sizes=batch + [m, n])


# ---- reductions ----------------------------------------------------------------------------------------------
_REDUCE_FUNCTIONS = {"ReduceSum": "SUM", "ReduceMean": "AVERAGE", "ReduceMax": "MAX", "ReduceMin": "MIN",
                     "ReduceProd": "MULTIPLY", "ReduceL1": "L1", "ReduceL2": "L2", "ReduceLogSum": "LOG_SUM",
                     "ReduceLogSumExp": "LOG_SUM_EXP", "ReduceSumSquare": "SUM_SQUARE"}
# The opset from which each reduction reads its axes from an input (ReduceSum from 13, the others from 18).
_AXES_INPUT_FROM = {op: (13 if op == "ReduceSum" else 18) for op in _REDUCE_FUNCTIONS}


def _axes(ctx, node, rank):
    """The reduced axes (sorted, non-negative) of a ReduceX node; None for a no-op."""
    ctx.check_attributes(node, {"axes", "keepdims", "noop_with_empty_axes"})
    if ctx.opset >= _AXES_INPUT_FROM[node.op_type]:
        axes = ctx.constant(node, 1, "axes") if len(node.input) > 1 and node.input[1] else None
    else:
        axes = ctx.attr(node, "axes", None)
    axes = [] if axes is None else [int(a) for a in np.asarray(axes).reshape(-1)]
    if not axes:
        if ctx.attr(node, "noop_with_empty_axes", 0):
            return None
        return list(range(rank))
    return sorted({a + rank if a < 0 else a for a in axes})


def _reduce(ctx, node):
    shape = ctx.shape(node.input[0])
    axes = _axes(ctx, node, len(shape))
    if axes is None:
        ctx.set(node.output[0], ctx.view(node.input[0]))
        return
    x = ctx.view(node.input[0])
    if not shape:
        axes = [0]
    kept = [1 if i in axes else s for i, s in enumerate(shape or [1])]
    from dmlemu.directml import DML_REDUCE_FUNCTION
    function = DML_REDUCE_FUNCTION[f"DML_REDUCE_FUNCTION_{_REDUCE_FUNCTIONS[node.op_type]}"]
    ctx.emit(node, "REDUCE", [("InputTensor", x)], [("OutputTensor", node.output[0])],
             {"Function": function, "Axes": axes}, sizes=kept)


def _arg(ctx, node, operator):
    ctx.check_attributes(node, {"axis", "keepdims", "select_last_index"})
    shape = ctx.shape(node.input[0]) or [1]
    axis = int(ctx.attr(node, "axis", 0))
    axis = axis + len(shape) if axis < 0 else axis
    kept = [1 if i == axis else s for i, s in enumerate(shape)]
    from dmlemu.directml import DML_AXIS_DIRECTION_DECREASING, DML_AXIS_DIRECTION_INCREASING
    direction = DML_AXIS_DIRECTION_DECREASING if ctx.attr(node, "select_last_index", 0) else DML_AXIS_DIRECTION_INCREASING
    ctx.emit(node, operator, [("InputTensor", ctx.view(node.input[0]))], [("OutputTensor", node.output[0])],
             {"Axes": [axis], "AxisDirection": direction}, sizes=kept)


def _top_k(ctx, node):
    """TopK as TOP_K1 (DmlOperatorTopK.cpp): K from the constant second input (opset 1: the attribute k), Axis, and
    AxisDirection DECREASING for largest (the default) else INCREASING; sorted=0 takes the sorted order (one of the
    orders it allows); the INT64 indices are written as UINT64 (TOP_K1's index types; the same bits)."""
    ctx.check_attributes(node, {"axis", "k", "largest", "sorted"})
    shape = ctx.shape(node.input[0])
    if not shape:
        ctx.refuse(node, "its input is a scalar; TopK selects along an axis of at least one dimension")
    axis = int(ctx.attr(node, "axis", -1))
    axis = axis + len(shape) if axis < 0 else axis
    if ctx.opset >= 10:
        k = int(np.asarray(ctx.constant(node, 1, "K")).reshape(-1)[0])
    else:
        k = int(ctx.attr(node, "k", 0))
    if not 1 <= k <= shape[axis]:
        ctx.refuse(node, f"K is {k}; TOP_K1 selects 1 to {shape[axis]} elements along axis {axis} (DirectML sizes "
                         f"are not 0)")
    from dmlemu.directml import DML_AXIS_DIRECTION_DECREASING, DML_AXIS_DIRECTION_INCREASING
    direction = DML_AXIS_DIRECTION_DECREASING if ctx.attr(node, "largest", 1) else DML_AXIS_DIRECTION_INCREASING
    indices = node.output[1] if len(node.output) > 1 and node.output[1] else None
    ctx.emit(node, "TOP_K1", [("InputTensor", ctx.view(node.input[0]))],
             [("OutputValueTensor", node.output[0] or None), ("OutputIndexTensor", indices)],
             {"Axis": axis, "K": k, "AxisDirection": direction}, types={indices: "UINT64"} if indices else None)


# ---- views ---------------------------------------------------------------------------------------------------
def _reshape_like(ctx, node):
    """Reshape, Flatten, Squeeze, Unsqueeze: the inferred output shape over the same bytes (Flatten's axis checked
    first: onnx.shape_inference infers a shape for any axis, where ONNX Runtime refuses one outside [-r, r])."""
    if node.op_type == "Flatten":
        rank, axis = len(ctx.shape(node.input[0])), ctx.attr(node, "axis", 1)
        if not -rank <= axis <= rank:
            ctx.refuse(node, f"its axis is {axis}; Flatten's axis is from {-rank} to {rank} for its rank-{rank} input")
    ctx.set(node.output[0], ctx.reshape(node, node.input[0], ctx.shape(node.output[0])))


def _transpose(ctx, node):
    ctx.check_attributes(node, {"perm"})
    x = ctx.view(node.input[0])
    rank = len(ctx.shape(node.input[0]))
    perm = ctx.attr(node, "perm", None)
    perm = list(range(rank))[::-1] if perm is None else [int(p) for p in perm]
    if sorted(perm) != list(range(rank)):
        ctx.refuse(node, f"its perm {perm} is not a permutation of the input's {rank} axes (0 to {rank - 1})")
    if rank == 0:
        ctx.set(node.output[0], x)
        return
    sizes, strides = x.sizes, x.strides
    ctx.set(node.output[0], x.reinterpret([sizes[p] for p in perm], [strides[p] for p in perm]))


def _identity(ctx, node):
    if node.op_type == "Dropout":
        if len(node.output) > 1 and node.output[1] and ctx.needed(node.output[1]):
            ctx.refuse(node, "its mask output is used; at inference Dropout is the identity and the converter makes "
                             "no mask")
        if len(node.input) > 2 and node.input[2] and bool(np.asarray(ctx.constant(node, 2, "training_mode")).any()):
            ctx.refuse(node, "its training_mode is true; the converter converts inference graphs (Dropout the "
                             "identity)")
    ctx.set(node.output[0], ctx.view(node.input[0]))


def _expand(ctx, node):
    ctx.set(node.output[0], ctx.broadcast(node.input[0], ctx.shape(node.output[0])))


# ---- window, normalization and data-movement operators ----------------------------------------------------------
def _spatial(ctx, node, name, count, default):
    value = ctx.attr(node, name, None)
    return [int(v) for v in value] if value is not None else [default] * count


def _pads(ctx, node, in_spatial, out_spatial, kernel, strides, dilations):
    """StartPadding and EndPadding of a window operator: `pads` or auto_pad, the end padding then made what
    the inferred output size needs (that is how ceil_mode and SAME_UPPER / SAME_LOWER come out)."""
    count = len(in_spatial)
    auto_pad = ctx.attr(node, "auto_pad", b"NOTSET")
    auto_pad = auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad
    pads = _spatial(ctx, node, "pads", 2 * count, 0)
    start = pads[:count]
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        total = [max(0, (o - 1) * s + (k - 1) * d + 1 - i)
                 for i, o, k, s, d in zip(in_spatial, out_spatial, kernel, strides, dilations)]
        start = [t // 2 if auto_pad == "SAME_UPPER" else t - t // 2 for t in total]
    elif auto_pad == "VALID":
        start = [0] * count
    end = [max(0, (o - 1) * s + (k - 1) * d + 1 - i - p)
           for i, o, k, s, d, p in zip(in_spatial, out_spatial, kernel, strides, dilations, start)]
    return start, end


def _conv(ctx, node):
    ctx.check_attributes(node, {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides",
                                "output_padding", "output_shape"})
    backward = node.op_type == "ConvTranspose"
    x_shape, w_shape, y_shape = ctx.shape(node.input[0]), ctx.shape(node.input[1]), ctx.shape(node.output[0])
    if len(x_shape) < 3 or len(x_shape) > 5:
        ctx.refuse(node, f"its input has {len(x_shape)} dimensions; DirectML's CONVOLUTION takes 1 to 3 spatial ones")
    one_d = len(x_shape) == 3         # 1-D as 2-D with a height of 1 (ONNX Runtime does the same)
    x_sizes = x_shape[:2] + [1] + x_shape[2:] if one_d else x_shape
    w_sizes = w_shape[:2] + [1] + w_shape[2:] if one_d else w_shape
    y_sizes = y_shape[:2] + [1] + y_shape[2:] if one_d else y_shape
    count = len(x_sizes) - 2
    strides = _spatial(ctx, node, "strides", len(x_shape) - 2, 1)
    dilations = _spatial(ctx, node, "dilations", len(x_shape) - 2, 1)
    if one_d:
        strides, dilations = [1] + strides, [1] + dilations
    kernel = w_sizes[2:]
    if backward:
        output_padding = _spatial(ctx, node, "output_padding", len(x_shape) - 2, 0)
        output_padding = ([0] + output_padding) if one_d else output_padding
        pads = _spatial(ctx, node, "pads", 2 * (len(x_shape) - 2), 0)
        start = ([0] + pads[:len(pads) // 2]) if one_d else pads[:count]
        if ctx.attr(node, "output_shape", None) is not None:     # ONNX: pads from the total, C division
            auto_pad = ctx.attr(node, "auto_pad", b"NOTSET")
            upper = (auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad) == "SAME_UPPER"
            totals = [(i - 1) * s + (k - 1) * d + 1 + op - o for i, o, k, s, d, op in
                      zip(x_sizes[2:], y_sizes[2:], kernel, strides, dilations, output_padding)]
            start = [max(0, int(t / 2) if upper else t - int(t / 2)) for t in totals]
        # out = (in - 1) * stride + (k - 1) * d + 1 + output_padding - start - end
        end = [(i - 1) * s + (k - 1) * d + 1 + op - st - o for i, o, k, s, d, op, st in
               zip(x_sizes[2:], y_sizes[2:], kernel, strides, dilations, output_padding, start)]
        # output_shape past the full output: the extra rows are OutputPadding (zeros after the last window)
        output_padding = [op - min(e, 0) for op, e in zip(output_padding, end)]
        end = [max(e, 0) for e in end]
    else:
        output_padding = [0] * count
        start, end = _pads(ctx, node, x_sizes[2:], y_sizes[2:], kernel, strides, dilations)
    inputs = [("InputTensor", ctx.reshape(node, node.input[0], x_sizes)),
              ("FilterTensor", ctx.reshape(node, node.input[1], w_sizes))]
    if len(node.input) > 2 and node.input[2]:
        channels = y_sizes[1]
        bias = ctx.reshape(node, node.input[2], [1, channels] + [1] * count)
        inputs.append(("BiasTensor", bias))
    else:
        inputs.append(("BiasTensor", None))
    from dmlemu.directml import (
        DML_CONVOLUTION_DIRECTION_BACKWARD, DML_CONVOLUTION_DIRECTION_FORWARD, DML_CONVOLUTION_MODE_CROSS_CORRELATION,
    )
    fields = {"Mode": DML_CONVOLUTION_MODE_CROSS_CORRELATION,
              "Direction": DML_CONVOLUTION_DIRECTION_BACKWARD if backward else DML_CONVOLUTION_DIRECTION_FORWARD,
              "DimensionCount": count, "Strides": strides, "Dilations": dilations, "StartPadding": start,
              "EndPadding": end, "OutputPadding": output_padding, "GroupCount": int(ctx.attr(node, "group", 1)),
              "FusedActivation": ctx.fused_activation(node)}
    ctx.emit(node, "CONVOLUTION", inputs, [("OutputTensor", ctx.fused_output(node))], fields, sizes=y_sizes)



def _conv_integer(ctx, node):
    """ConvInteger as CONVOLUTION_INTEGER (inputs x, w, x_zero_point, w_zero_point) and QLinearConv as
    QUANTIZED_LINEAR_CONVOLUTION (x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B):
    2-D (1-D as 2-D with a height of 1) FORWARD cross-correlation, Conv's pads; every scale and zero point one value
    but the filter's, which may hold one per output channel; FLOAT16 scales CAST to FLOAT32."""
    ctx.check_attributes(node, {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"})
    quantized = node.op_type == "QLinearConv"
    x_index, w_index = (0, 3) if quantized else (0, 1)
    x_shape, w_shape, y_shape = (ctx.shape(node.input[x_index]), ctx.shape(node.input[w_index]),
                                 ctx.shape(node.output[0]))
    if len(x_shape) not in (3, 4):
        ctx.refuse(node, f"its input has {len(x_shape)} dimensions; dmlemu's CONVOLUTION_INTEGER takes 1 or 2 "
                         f"spatial ones")
    one_d = len(x_shape) == 3
    x_sizes = x_shape[:2] + [1] + x_shape[2:] if one_d else x_shape
    w_sizes = w_shape[:2] + [1] + w_shape[2:] if one_d else w_shape
    y_sizes = y_shape[:2] + [1] + y_shape[2:] if one_d else y_shape
    strides = ([1] if one_d else []) + _spatial(ctx, node, "strides", len(x_shape) - 2, 1)
    dilations = ([1] if one_d else []) + _spatial(ctx, node, "dilations", len(x_shape) - 2, 1)
    start, end = _pads(ctx, node, x_sizes[2:], y_sizes[2:], w_sizes[2:], strides, dilations)

    def per_channel(j, what, channels=None, scale=False):
        """Input `j` as {1,1,1,1} or (`channels` given) {1,K,1,1}; None where the node leaves it out."""
        name = node.input[j] if j < len(node.input) else ""
        if not name:
            return None
        shape = ctx.shape(name) or [1]
        count = int(np.prod(shape))
        if count != 1 and count != channels:
            ctx.refuse(node, f"its {what} has {count} values; DirectML takes one"
                             f"{'' if channels is None else ' or one per output channel'}")
        if scale and ctx.type_name(name) != "FLOAT32":
            cast = f"{node.output[0]}#{what}"
            ctx.declare(cast, shape, 1)
            ctx.emit(node, "CAST", [("InputTensor", ctx.view(name))], [("OutputTensor", cast)], {})
            name = cast
        return ctx.reshape(node, name, [1, count, 1, 1])
    x = ctx.reshape(node, node.input[x_index], x_sizes)
    w = ctx.reshape(node, node.input[w_index], w_sizes)
    fields = {"DimensionCount": 2, "Strides": strides, "Dilations": dilations, "StartPadding": start,
              "EndPadding": end, "GroupCount": int(ctx.attr(node, "group", 1))}
    k = y_sizes[1]
    if not quantized:
        inputs = [("InputTensor", x), ("InputZeroPointTensor", per_channel(2, "x_zero_point")), ("FilterTensor", w),
                  ("FilterZeroPointTensor", per_channel(3, "w_zero_point", k))]
        ctx.emit(node, "CONVOLUTION_INTEGER", inputs, [("OutputTensor", node.output[0])], fields, sizes=y_sizes)
        return
    inputs = [("InputTensor", x), ("InputScaleTensor", per_channel(1, "x_scale", scale=True)),
              ("InputZeroPointTensor", per_channel(2, "x_zero_point")), ("FilterTensor", w),
              ("FilterScaleTensor", per_channel(4, "w_scale", k, scale=True)),
              ("FilterZeroPointTensor", per_channel(5, "w_zero_point", k)), ("BiasTensor", per_channel(8, "B", k)),
              ("OutputScaleTensor", per_channel(6, "y_scale", scale=True)),
              ("OutputZeroPointTensor", per_channel(7, "y_zero_point"))]
    ctx.emit(node, "QUANTIZED_LINEAR_CONVOLUTION", inputs, [("OutputTensor", node.output[0])], fields, sizes=y_sizes)

def _pool(ctx, node):
    """MaxPool, AveragePool, LpPool and their Global forms; 1-D as 2-D with a height of 1 (DmlOperatorPooling.cpp)."""
    ctx.check_attributes(node, {"auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape", "pads",
                                "storage_order", "strides", "p"})
    x_shape, y_shape = ctx.shape(node.input[0]), ctx.shape(node.output[0])
    count = len(x_shape) - 2
    if count < 1:
        ctx.refuse(node, f"its input has {len(x_shape)} dimensions; pooling needs at least one spatial one")
    is_global = node.op_type.startswith("Global")
    kernel = x_shape[2:] if is_global else [int(k) for k in ctx.attr(node, "kernel_shape", [])]
    strides = [1] * count if is_global else _spatial(ctx, node, "strides", count, 1)
    dilations = [1] * count if is_global else _spatial(ctx, node, "dilations", count, 1)
    start, end = ([0] * count, [0] * count) if is_global else \
        _pads(ctx, node, x_shape[2:], y_shape[2:], kernel, strides, dilations)
    if not is_global:
        # ONNX Runtime refuses a pad as large as the window ("Pad should be smaller than kernel"): such a window
        # could see padding only.
        if any(p >= k for p, k in zip(start + end, kernel + kernel)):
            ctx.refuse(node, f"its pads {start + end} are not all smaller than its kernel_shape {kernel}; ONNX Runtime "
                             f"refuses a pad as large as the window")
        reach = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
        if any(r > n + a + b for r, n, a, b in zip(reach, x_shape[2:], start, end)):
            ctx.refuse(node, f"its window (kernel_shape {kernel}, dilations {dilations}) is larger than the padded "
                             f"input {[n + a + b for n, a, b in zip(x_shape[2:], start, end)]}")
    x, sizes = ctx.view(node.input[0]), None
    if count == 1:
        x = ctx.reshape(node, node.input[0], x_shape[:2] + [1] + x_shape[2:])
        sizes = y_shape[:2] + [1] + y_shape[2:]
        kernel, strides, dilations, start, end = ([1] + kernel, [1] + strides, [1] + dilations, [0] + start,
                                                  [0] + end)
        count = 2
    is_max = node.op_type in ("MaxPool", "GlobalMaxPool")
    fields = {"DimensionCount": count, "Strides": strides, "WindowSize": kernel, "StartPadding": start,
              "EndPadding": end}
    outputs = [("OutputTensor", node.output[0])]
    if is_max:
        wants_indices = len(node.output) > 1 and node.output[1] and ctx.needed(node.output[1])
        if wants_indices:
            return _max_pool_with_indices(ctx, node, x, fields, dilations, sizes)
        if dilations != [1] * count or wants_indices:
            operator = "MAX_POOLING2"
            fields["Dilations"] = dilations
            outputs.append(("OutputIndicesTensor", node.output[1] if wants_indices else None))
        else:
            operator = "MAX_POOLING"
    elif node.op_type in ("LpPool", "GlobalLpPool"):
        operator = "LP_POOLING1" if dilations != [1] * count else "LP_POOLING"
        if operator == "LP_POOLING1":
            fields["Dilations"] = dilations
        fields["P"] = int(ctx.attr(node, "p", 2))
    else:
        include = bool(ctx.attr(node, "count_include_pad", 0))
        if include and int(ctx.attr(node, "ceil_mode", 0)) and end != _explicit_end(ctx, node, count, sizes):
            ctx.refuse(node, "it counts its padding (count_include_pad) and ceil_mode extends its last window past "
                             "the pads; ONNX leaves that extension out of the divisor, DirectML's IncludePadding "
                             "counts all of EndPadding")
        if dilations != [1] * count:
            operator = "AVERAGE_POOLING1"
            fields["Dilations"] = dilations
        else:
            operator = "AVERAGE_POOLING"
        fields["IncludePadding"] = include
    ctx.emit(node, operator, [("InputTensor", x)], outputs, fields, sizes=sizes)


def _retyped(view, type_name):
    """The same bytes, Sizes and Strides read as another data type of the same size (INT64 as UINT64)."""
    from dmlemu.onnx.dml_graph import View, tensor_desc
    d = view.tensor.Desc
    return View(view.source, tensor_desc(view.sizes, type_name, view.strides, d.TotalTensorSizeInBytes, d.Flags),
                type_name)


def _max_pool_with_indices(ctx, node, x, fields, dilations, sizes):
    """MaxPool with its Indices output (INT64 flat indices into the input, NCHW row-major; storage_order 1: the
    spatial dimensions column-major). Dilations 1: MAX_POOLING1 writes them as UINT64 into the INT64 value's bytes
    (an index is never negative); else MAX_POOLING2's UINT32 indices, then CAST to INT64 (DmlOperatorPooling.cpp
    picks MAX_POOLING2 as well). storage_order 1 reads the input, and writes both outputs, with the spatial
    dimensions reversed (strides only): DirectML's row-major flat index of that view is ONNX's column-major one."""
    values, indices = node.output[0], node.output[1]
    out = list(sizes) if sizes is not None else list(ctx.shape(values))
    order = list(range(len(out)))
    if int(ctx.attr(node, "storage_order", 0)) and sizes is None:     # (1-D: one order only)
        order = [0, 1] + order[:1:-1]
        x = x.reinterpret([x.sizes[d] for d in order], [x.strides[d] for d in order])
        fields = {k: (list(v)[::-1] if isinstance(v, list) else v) for k, v in fields.items()}
        dilations = dilations[::-1]
        out = [out[d] for d in order]
    fields = dict(fields)
    plain = dilations == [1] * len(dilations)
    target = indices
    if plain:
        operator, index_type = "MAX_POOLING1", "UINT64"
    else:
        operator, index_type = "MAX_POOLING2", "UINT32"
        fields["Dilations"] = dilations
        target = f"{indices}#uint32"
        ctx.declare(target, ctx.shape(indices), 12)                  # UINT32
    ctx.emit(node, operator, [("InputTensor", x)], [("OutputTensor", values), ("OutputIndicesTensor", target)],
             fields, sizes={values: out, target: out}, types={target: index_type})
    from dmlemu.onnx.dml_graph import packed_strides
    strides = [packed_strides(out)[d] for d in order]                  # the DML outputs read in ONNX order
    for name in (values, target):
        view = ctx.view(name)
        if order != list(range(len(out))):
            view = view.reinterpret(ctx.shape(name), strides)
        ctx.set(name, _retyped(view, "INT64") if name == indices else view)
    if not plain:
        ctx.emit(node, "CAST", [("InputTensor", ctx.view(target))], [("OutputTensor", indices)], {})


def _max_unpool(ctx, node):
    """MaxUnpool as MAX_UNPOOLING (4-D; 1-D as 2-D with a height of 1): the output of the shape the window gives,
    (in - 1) stride + kernel - pads, the INT64 indices read as UINT64; an output shape past it (output_shape, as
    shape inference or the model's value info gives it) zero-pads its end with PADDING1, as ONNX's reference places
    the unpooled tensor at the origin."""
    ctx.check_attributes(node, {"kernel_shape", "pads", "strides"})
    x_shape = ctx.shape(node.input[0])
    count = len(x_shape) - 2
    if count not in (1, 2):
        ctx.refuse(node, f"its input has {len(x_shape)} dimensions; DirectML's MAX_UNPOOLING takes 4 (1 or 2 spatial "
                         f"dimensions)")
    kernel = [int(k) for k in ctx.attr(node, "kernel_shape", [])]
    strides = _spatial(ctx, node, "strides", count, 1)
    pads = _spatial(ctx, node, "pads", 2 * count, 0)
    inferred = list(x_shape[:2]) + [(i - 1) * s - (pads[d] + pads[count + d]) + k
                                    for d, (i, s, k) in enumerate(zip(x_shape[2:], strides, kernel))]
    shape = list(ctx.shape(node.output[0]))          # output_shape's, where the node has one
    if len(shape) != len(inferred) or any(a < b for a, b in zip(shape, inferred)):
        ctx.refuse(node, f"its output shape {shape} is smaller than the unpooled {inferred}")
    four = (lambda sizes: list(sizes[:2]) + [1] + list(sizes[2:])) if count == 1 else list
    x = ctx.reshape(node, node.input[0], four(x_shape))
    indices = _retyped(ctx.reshape(node, node.input[1], four(x_shape)), "UINT64")
    target = node.output[0] if shape == inferred else f"{node.output[0]}#unpooled"
    if target != node.output[0]:
        ctx.declare(target, inferred, ctx.onnx_type(node.input[0]))
    ctx.emit(node, "MAX_UNPOOLING", [("InputTensor", x), ("IndicesTensor", indices)], [("OutputTensor", target)], {},
             sizes=four(inferred))
    if target != node.output[0]:
        from dmlemu.directml import DML_PADDING_MODE_CONSTANT, DML_SCALAR_UNION, DML_TENSOR_DATA_TYPE
        type_name = ctx.type_name(node.input[0])
        member = {"FLOAT32": "Float32", "FLOAT16": "Float32", "FLOAT64": "Float64"}.get(type_name, "Int64")
        ctx.emit(node, "PADDING1", [("InputTensor", ctx.view(target))], [("OutputTensor", node.output[0])],
                 {"PaddingMode": DML_PADDING_MODE_CONSTANT,
                  "PaddingValueDataType": DML_TENSOR_DATA_TYPE[f"DML_TENSOR_DATA_TYPE_{type_name}"],
                  "PaddingValue": DML_SCALAR_UNION(**{member: 0}), "DimensionCount": len(shape),
                  "StartPadding": [0] * len(shape), "EndPadding": [a - b for a, b in zip(shape, inferred)]})


def _explicit_end(ctx, node, count, sizes):
    """The end pads a pooling node states (`pads`; 1-D ones with the leading 0 of its height)."""
    pads = _spatial(ctx, node, "pads", 2 * (count - (sizes is not None)), 0)
    end = pads[len(pads) // 2:]
    return ([0] + end) if sizes is not None else end


def _softmax(ctx, node, operator):
    ctx.check_attributes(node, {"axis"})
    rank = len(ctx.shape(node.input[0]))
    axis = int(ctx.attr(node, "axis", -1 if ctx.opset >= 13 else 1))
    axis = axis + rank if axis < 0 else axis
    axes = [axis] if ctx.opset >= 13 else list(range(axis, rank))
    ctx.emit(node, operator, [("InputTensor", ctx.view(node.input[0]))], [("OutputTensor", node.output[0])],
             {"AxisCount": len(axes), "Axes": axes})


def _layer_normalization(ctx, node):
    ctx.check_attributes(node, {"axis", "epsilon", "stash_type"})
    if any(o and ctx.needed(o) for o in node.output[1:]):
        ctx.refuse(node, "its Mean or InvStdDev output is used; MEAN_VARIANCE_NORMALIZATION1 gives only Y")
    shape = ctx.shape(node.input[0])
    axis = int(ctx.attr(node, "axis", -1))
    axis = axis + len(shape) if axis < 0 else axis
    axes = list(range(axis, len(shape)))
    scale = ctx.broadcast(node.input[1], shape)
    bias = ctx.broadcast(node.input[2], shape) if len(node.input) > 2 and node.input[2] else None
    fields = {"AxisCount": len(axes), "Axes": axes, "NormalizeVariance": True,
              "Epsilon": float(ctx.attr(node, "epsilon", 1e-5)), "FusedActivation": ctx.fused_activation(node)}
    ctx.emit(node, "MEAN_VARIANCE_NORMALIZATION1",
             [("InputTensor", ctx.view(node.input[0])), ("ScaleTensor", scale), ("BiasTensor", bias)],
             [("OutputTensor", ctx.fused_output(node))], fields)


def _attention(ctx, node):
    ctx.check_attributes(node, {"is_causal", "kv_num_heads", "q_num_heads", "qk_matmul_output_mode", "scale",
                                "softcap", "softmax_precision"})
    shapes = [ctx.shape(name) for name in node.input[:3]]
    if any(len(shape) != 3 for shape in shapes):
        ctx.refuse(node, "its query, key and value are not 3-dimensional; MULTIHEAD_ATTENTION1 reads "
                         "[batch, sequence, heads x head size]")
    if any(name for name in node.input[3:]) or any(name and ctx.needed(name) for name in node.output[1:]):
        ctx.refuse(node, "it has an attn_mask, a past key / value or a present / qk output; the converter maps "
                         "the unmasked attention without a cache")
    if int(ctx.attr(node, "is_causal", 0)) or float(ctx.attr(node, "softcap", 0.0)):
        ctx.refuse(node, "it is causal or soft-capped; MULTIHEAD_ATTENTION1 has neither")
    heads, kv_heads = int(ctx.attr(node, "q_num_heads", 0)), int(ctx.attr(node, "kv_num_heads", 0))
    if heads <= 0 or kv_heads <= 0:
        ctx.refuse(node, "q_num_heads and kv_num_heads are needed for 3-dimensional inputs")
    scale = ctx.attr(node, "scale", None)
    scale = float(np.float32(1.0) / np.sqrt(np.float32(shapes[0][2] // heads))) if scale is None else float(scale)
    ctx.emit(node, "MULTIHEAD_ATTENTION1",
             [("QueryTensor", ctx.view(node.input[0])), ("KeyTensor", ctx.view(node.input[1])),
              ("ValueTensor", ctx.view(node.input[2]))], [("OutputTensor", node.output[0])],
             {"Scale": scale, "MaskFilterValue": -10000.0, "QueryHeadCount": heads, "KeyValueHeadCount": kv_heads,
              "MaskType": 0})


def _rms_normalization(ctx, node):
    ctx.check_attributes(node, {"axis", "epsilon", "stash_type"})
    shape = ctx.shape(node.input[0])
    axis = int(ctx.attr(node, "axis", -1))
    axis = axis + len(shape) if axis < 0 else axis
    axes = list(range(axis, len(shape)))
    fields = {"AxisCount": len(axes), "Axes": axes, "UseMean": False, "UseVariance": True,
              "Epsilon": float(ctx.attr(node, "epsilon", 1e-5)), "FusedActivation": None}
    ctx.emit(node, "MEAN_VARIANCE_NORMALIZATION2",
             [("InputTensor", ctx.view(node.input[0])), ("ScaleTensor", ctx.broadcast(node.input[1], shape)),
              ("BiasTensor", None)], [("OutputTensor", node.output[0])], fields)


def _batch_normalization(ctx, node):
    ctx.check_attributes(node, {"epsilon", "momentum", "spatial", "training_mode"})
    if int(ctx.attr(node, "training_mode", 0)):
        ctx.refuse(node, "it is in training_mode; the converter converts inference graphs")
    shape = ctx.shape(node.input[0])
    channel = [1, shape[1]] + [1] * (len(shape) - 2)
    scale, bias, mean, var = (ctx.reshape(node, node.input[j], channel) for j in (1, 2, 3, 4))
    fields = {"Spatial": True, "Epsilon": float(ctx.attr(node, "epsilon", 1e-5)),
              "FusedActivation": ctx.fused_activation(node)}
    ctx.emit(node, "BATCH_NORMALIZATION",
             [("InputTensor", ctx.view(node.input[0])), ("MeanTensor", mean), ("VarianceTensor", var),
              ("ScaleTensor", scale), ("BiasTensor", bias)], [("OutputTensor", ctx.fused_output(node))], fields)


def _mean_variance_normalization(ctx, node):
    """MeanVarianceNormalization (axes, default {0, 2, 3}) and InstanceNormalization (the spatial axes, a
    per-channel Scale and Bias) as MEAN_VARIANCE_NORMALIZATION1 (DmlOperatorMeanVarianceNormalization.cpp,
    DmlOperatorInstanceNormalization.cpp)."""
    ctx.check_attributes(node, {"axes", "epsilon"})
    shape = ctx.shape(node.input[0])
    rank = len(shape)
    if node.op_type == "InstanceNormalization":
        axes = list(range(2, rank))
        channel = [1, shape[1]] + [1] * (rank - 2)
        scale = ctx.broadcast(node.input[1], shape, reshape=channel)
        bias = ctx.broadcast(node.input[2], shape, reshape=channel)
        epsilon = float(ctx.attr(node, "epsilon", 1e-5))
    else:
        axes = [int(a) + rank if a < 0 else int(a) for a in ctx.attr(node, "axes", [0, 2, 3])]
        scale = bias = None
        epsilon = 1e-9
    fields = {"AxisCount": len(axes), "Axes": sorted(axes), "NormalizeVariance": True, "Epsilon": epsilon,
              "FusedActivation": ctx.fused_activation(node)}
    ctx.emit(node, "MEAN_VARIANCE_NORMALIZATION1",
             [("InputTensor", ctx.view(node.input[0])), ("ScaleTensor", scale), ("BiasTensor", bias)],
             [("OutputTensor", ctx.fused_output(node))], fields)


def _lrn(ctx, node):
    """LRN as LOCAL_RESPONSE_NORMALIZATION across channels (DmlOperatorLocalResponseNormalization.cpp)."""
    ctx.check_attributes(node, {"alpha", "beta", "bias", "size"})
    ctx.emit(node, "LOCAL_RESPONSE_NORMALIZATION", [("InputTensor", ctx.view(node.input[0]))],
             [("OutputTensor", node.output[0])],
             {"CrossChannel": True, "LocalSize": int(ctx.attr(node, "size", 1)),
              "Alpha": float(ctx.attr(node, "alpha", 1e-4)), "Beta": float(ctx.attr(node, "beta", 0.75)),
              "Bias": float(ctx.attr(node, "bias", 1.0))})


# ONNX's LpNormalization has no epsilon; ONNX Runtime's DirectML provider gives LP_NORMALIZATION 1e-5 (its
# DefaultEpsilon), which makes a zero vector's output 0 (x / max(norm, epsilon)) as ONNX's reference does.
_LP_EPSILON = 1e-5


def _lp_normalization(ctx, node):
    ctx.check_attributes(node, {"axis", "p"})
    rank = len(ctx.shape(node.input[0]))
    axis = int(ctx.attr(node, "axis", -1))
    p = int(ctx.attr(node, "p", 2))
    if p not in (1, 2):
        ctx.refuse(node, f"its p is {p}; DirectML's LP_NORMALIZATION takes 1 or 2")
    ctx.emit(node, "LP_NORMALIZATION", [("InputTensor", ctx.view(node.input[0]))], [("OutputTensor", node.output[0])],
             {"Axis": axis + rank if axis < 0 else axis, "Epsilon": _LP_EPSILON, "P": p})


def _concat(ctx, node):
    ctx.check_attributes(node, {"axis"})
    rank = len(ctx.shape(node.output[0]))
    axis = int(ctx.attr(node, "axis", 0))
    axis = axis + rank if axis < 0 else axis
    views = [ctx.view(n) for n in node.input if n and 0 not in ctx.shape(n)]
    ctx.emit(node, "JOIN", [("InputTensors", views)], [("OutputTensor", node.output[0])],
             {"InputCount": len(views), "Axis": axis})


def _split(ctx, node):
    ctx.check_attributes(node, {"axis", "split", "num_outputs"})
    rank = len(ctx.shape(node.input[0]))
    axis = int(ctx.attr(node, "axis", 0))
    axis = axis + rank if axis < 0 else axis
    outputs = [o for o in node.output]
    ctx.emit(node, "SPLIT", [("InputTensor", ctx.view(node.input[0]))], [("OutputTensors", outputs)],
             {"OutputCount": len(outputs), "Axis": axis})


def _slice(ctx, node):
    shape = ctx.shape(node.input[0])
    rank = len(shape)
    if ctx.opset < 10:
        starts, ends = ctx.attr(node, "starts", []), ctx.attr(node, "ends", [])
        axes, steps = ctx.attr(node, "axes", None), None
    else:
        starts, ends = ctx.constant(node, 1, "starts"), ctx.constant(node, 2, "ends")
        axes = ctx.constant(node, 3, "axes") if len(node.input) > 3 and node.input[3] else None
        steps = ctx.constant(node, 4, "steps") if len(node.input) > 4 and node.input[4] else None
    axes = list(range(len(starts))) if axes is None else [int(a) + rank if a < 0 else int(a) for a in axes]
    steps = [1] * len(starts) if steps is None else [int(s) for s in steps]
    # SLICE1's window [offset, offset + size) is read every |stride| elements, from its far end when the stride
    # is negative (DmlOperatorSlice.cpp): the window of `count` elements from `start` by `step`.
    offsets, sizes, strides = [0] * rank, list(shape), [1] * rank
    out_shape = ctx.shape(node.output[0])
    for a, start, step in zip(axes, starts, steps):
        n, count, start = shape[a], out_shape[a], int(start)
        start = start + n if start < 0 else start
        start = min(max(start, 0), n) if step > 0 else min(max(start, -1), n - 1)
        span = (count - 1) * abs(step) + 1 if count else 0
        offsets[a] = start if step > 0 else max(0, start - span + 1)
        sizes[a], strides[a] = span, step
    ctx.emit(node, "SLICE1", [("InputTensor", ctx.view(node.input[0]))], [("OutputTensor", node.output[0])],
             {"DimensionCount": rank, "InputWindowOffsets": offsets, "InputWindowSizes": sizes,
              "InputWindowStrides": strides})


def _pad(ctx, node):
    ctx.check_attributes(node, {"mode", "pads", "value"})
    shape = ctx.shape(node.input[0])
    rank = len(shape)
    pads = ctx.attr(node, "pads", None) if ctx.opset < 11 else ctx.constant(node, 1, "pads")
    pads = [int(p) for p in pads]
    if ctx.opset >= 18 and len(node.input) > 3 and node.input[3]:
        axes = [int(a) + rank if a < 0 else int(a) for a in ctx.constant(node, 3, "axes")]
        full = [0] * (2 * rank)
        for i, a in enumerate(axes):
            full[a], full[rank + a] = pads[i], pads[len(axes) + i]
        pads = full
    if any(p < 0 for p in pads):
        ctx.refuse(node, f"its pads {pads} include a negative one; PADDING adds elements only (use Slice to crop)")
    value = float(ctx.attr(node, "value", 0.0)) if ctx.opset < 11 else \
        (float(ctx.scalar(node, 2, "constant_value", 0.0)))
    mode = ctx.attr(node, "mode", b"constant")
    mode = mode.decode() if isinstance(mode, bytes) else mode
    from dmlemu.directml import DML_PADDING_MODE, DML_SCALAR_UNION, DML_TENSOR_DATA_TYPE
    modes = {"constant": "CONSTANT", "reflect": "REFLECTION", "edge": "EDGE", "wrap": "WRAP"}
    if mode not in modes:
        ctx.refuse(node, f"its mode is {mode!r}; DirectML's PADDING has {', '.join(modes)}")
    type_name = ctx.type_name(node.input[0])
    member = {"FLOAT32": "Float32", "FLOAT16": "Float32", "FLOAT64": "Float64"}.get(type_name, "Int64")
    scalar = DML_SCALAR_UNION(**{member: value if member.startswith("Float") else int(value)})
    ctx.emit(node, "PADDING1", [("InputTensor", ctx.view(node.input[0]))], [("OutputTensor", node.output[0])],
             {"PaddingMode": DML_PADDING_MODE[f"DML_PADDING_MODE_{modes[mode]}"],
              "PaddingValueDataType": DML_TENSOR_DATA_TYPE[f"DML_TENSOR_DATA_TYPE_{type_name}"],
              "PaddingValue": scalar, "DimensionCount": rank, "StartPadding": pads[:rank], "EndPadding": pads[rank:]})


def _gather(ctx, node):
    ctx.check_attributes(node, {"axis"})
    shape, index_shape = ctx.shape(node.input[0]), ctx.shape(node.input[1])
    out_rank = max(1, len(ctx.shape(node.output[0])))
    rank = max(out_rank, len(shape))
    axis = int(ctx.attr(node, "axis", 0))
    axis = axis + len(shape) if axis < 0 else axis
    known = ctx.constants.get(node.input[1])
    if known is not None and 0 <= axis < len(shape):
        # ONNX makes an index outside [-s, s - 1] an error; DirectML's GATHER would read 0 for it (docs/DEVIATIONS.md).
        # Indices known when the model is converted are checked here; indices computed at run time follow DirectML.
        size = shape[axis]
        bad = np.asarray(known).reshape(-1)
        bad = bad[(bad < -size) | (bad >= size)]
        if bad.size:
            ctx.refuse(node, f"its index {int(bad[0])} (input \"{node.input[1]}\") is outside axis {axis}'s range "
                             f"[{-size}, {size - 1}]; ONNX makes an out-of-range index an error")
    data = ctx.reshape(node, node.input[0], [1] * (rank - len(shape)) + shape)
    indices = ctx.reshape(node, node.input[1], [1] * (rank - len(index_shape)) + (index_shape or [1]))
    ctx.emit(node, "GATHER", [("InputTensor", data), ("IndicesTensor", indices)], [("OutputTensor", node.output[0])],
             {"Axis": axis + rank - len(shape), "IndexDimensions": len(index_shape)},
             sizes=[1] * (rank - len(ctx.shape(node.output[0]))) + (ctx.shape(node.output[0]) or [1]))


def _resize_scales(ctx, node, in_shape, out_shape):
    """Resize / Upsample's scale per dimension: the `scales` given (over `axes` where it names them), else
    from `sizes` (one scale for the axes under keep_aspect_ratio_policy not_larger / not_smaller)."""
    rank = len(in_shape)
    axes = ctx.attr(node, "axes", None)
    axes = list(range(rank)) if axes is None else [int(a) + rank if a < 0 else int(a) for a in axes]
    if node.op_type == "Upsample" or ctx.opset < 11:
        given = ctx.attr(node, "scales", None) if ctx.opset < 9 else ctx.constant(node, 1, "scales")
        return [float(v) for v in given]
    scales = ctx.constant(node, 2, "scales") if len(node.input) > 2 and node.input[2] else None
    if scales is not None and np.asarray(scales).size:
        full = [1.0] * rank
        for a, v in zip(axes, np.asarray(scales).reshape(-1)):
            full[a] = float(v)
        return full
    ratios = {a: out_shape[a] / in_shape[a] for a in axes}
    policy = ctx.attr(node, "keep_aspect_ratio_policy", b"stretch")
    policy = policy.decode() if isinstance(policy, bytes) else policy
    if policy in ("not_larger", "not_smaller"):
        one = (min if policy == "not_larger" else max)(ratios.values())
        ratios = {a: one for a in axes}
    return [ratios.get(d, 1.0) for d in range(rank)]


def _resize(ctx, node):
    """Resize and Upsample as RESAMPLE1 / RESAMPLE2 (DmlOperatorResize.cpp): x = (o - OutputPixelOffset) /
    Scale - InputPixelOffset; nearest_mode picks the rounding (RESAMPLE takes floor(x + 0.5), RESAMPLE2
    DECREASING ceil(x - 0.5)), floor and ceil shift the input offset by half a pixel."""
    ctx.check_attributes(node, {"mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a",
                                "exclude_outside", "extrapolation_value", "antialias", "axes",
                                "keep_aspect_ratio_policy", "scales"})

    def text(name, default):
        value = ctx.attr(node, name, default)
        return value.decode() if isinstance(value, bytes) else value
    mode = text("mode", b"nearest")
    upsample = node.op_type == "Upsample" or ctx.opset < 11
    transform = "asymmetric" if upsample else text("coordinate_transformation_mode", b"half_pixel")
    if mode not in ("nearest", "linear"):
        ctx.refuse(node, f"its mode is {mode!r}; DirectML's RESAMPLE interpolates nearest-neighbor or linear")
    if int(ctx.attr(node, "antialias", 0)):
        ctx.refuse(node, "it antialiases; DirectML's RESAMPLE interpolates between the two nearest pixels only")
    offsets = {"half_pixel": 0.5, "pytorch_half_pixel": 0.5, "asymmetric": 0.0, "align_corners": 0.0}
    if transform not in offsets:
        ctx.refuse(node, f"its coordinate_transformation_mode is {transform!r}; the converter maps "
                         f"{', '.join(offsets)} to RESAMPLE's pixel offsets")
    in_shape, out_shape = ctx.shape(node.input[0]), ctx.shape(node.output[0])
    scales = _resize_scales(ctx, node, in_shape, out_shape)
    if transform == "align_corners":      # x = o (in - 1) / (out - 1)
        scales = [(o - 1) / (i - 1) if o > 1 and i > 1 else s for i, o, s in zip(in_shape, out_shape, scales)]
    if transform == "pytorch_half_pixel" and any(o == 1 != i for i, o in zip(in_shape, out_shape)):
        ctx.refuse(node, "it is pytorch_half_pixel with an output dimension of 1 (ONNX reads x = 0 there); "
                         "RESAMPLE's offsets read the window's centre")
    input_offsets = [offsets[transform]] * len(in_shape)
    nearest = "round_prefer_ceil" if upsample else text("nearest_mode", b"round_prefer_floor")
    operator, fields = "RESAMPLE1", {}
    if mode == "nearest":
        # RESAMPLE rounds half up (floor(x + 0.5)), RESAMPLE2 DECREASING half down (ceil(x - 0.5))
        shift, decreasing = {"round_prefer_ceil": (0.0, False), "round_prefer_floor": (0.0, True),
                             "floor": (0.5, False), "ceil": (-0.5, True)}[nearest if not upsample else "floor"]
        input_offsets = [o + shift for o in input_offsets]
        if decreasing:
            from dmlemu.directml import DML_AXIS_DIRECTION_DECREASING
            operator, fields = "RESAMPLE2", {"RoundingDirection": DML_AXIS_DIRECTION_DECREASING}
    from dmlemu.directml import DML_INTERPOLATION_MODE_LINEAR, DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR
    ctx.emit(node, operator, [("InputTensor", ctx.view(node.input[0]))], [("OutputTensor", node.output[0])],
             {"InterpolationMode": DML_INTERPOLATION_MODE_LINEAR if mode == "linear"
              else DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR, **fields, "DimensionCount": len(in_shape),
              "Scales": scales, "InputPixelOffsets": input_offsets,
              "OutputPixelOffsets": [-offsets[transform]] * len(in_shape)})


def _gather_elements(ctx, node):
    ctx.check_attributes(node, {"axis"})
    rank = len(ctx.shape(node.input[0]))
    axis = int(ctx.attr(node, "axis", 0))
    ctx.emit(node, "GATHER_ELEMENTS", [("InputTensor", ctx.view(node.input[0])), ("IndicesTensor", ctx.view(node.input[1]))],
             [("OutputTensor", node.output[0])], {"Axis": axis + rank if axis < 0 else axis})


def _gather_nd(ctx, node):
    """GatherND as GATHER_ND1, every tensor padded with leading 1s to one rank (DmlOperatorGatherNd.cpp)."""
    ctx.check_attributes(node, {"batch_dims"})
    shape, index_shape, out_shape = ctx.shape(node.input[0]), ctx.shape(node.input[1]), ctx.shape(node.output[0])
    rank = max(len(shape), len(index_shape), len(out_shape), 1)

    def padded(s):
        return [1] * (rank - len(s)) + (s or [1])
    ctx.emit(node, "GATHER_ND1", [("InputTensor", ctx.reshape(node, node.input[0], padded(shape))),
                                  ("IndicesTensor", ctx.reshape(node, node.input[1], padded(index_shape)))],
             [("OutputTensor", node.output[0])],
             {"InputDimensionCount": len(shape), "IndicesDimensionCount": len(index_shape),
              "BatchDimensionCount": int(ctx.attr(node, "batch_dims", 0))}, sizes=padded(out_shape))


def _scatter_elements(ctx, node):
    """ScatterElements (and the older Scatter) as SCATTER_ELEMENTS; only reduction 'none' (DirectML's scatter
    writes, it does not accumulate)."""
    ctx.check_attributes(node, {"axis", "reduction"})
    reduction = ctx.attr(node, "reduction", b"none")
    reduction = reduction.decode() if isinstance(reduction, bytes) else reduction
    if reduction != "none":
        ctx.refuse(node, f"its reduction is {reduction!r}; DirectML's SCATTER_ELEMENTS replaces (reduction 'none')")
    rank = len(ctx.shape(node.input[0]))
    axis = int(ctx.attr(node, "axis", 0))
    ctx.emit(node, "SCATTER_ELEMENTS", [("InputTensor", ctx.view(node.input[0])),
                                        ("IndicesTensor", ctx.view(node.input[1])),
                                        ("UpdatesTensor", ctx.view(node.input[2]))],
             [("OutputTensor", node.output[0])], {"Axis": axis + rank if axis < 0 else axis})


def _scatter_nd(ctx, node):
    """ScatterND as SCATTER_ND, every tensor padded with leading 1s to one rank (DmlOperatorScatter.cpp)."""
    ctx.check_attributes(node, {"reduction"})
    reduction = ctx.attr(node, "reduction", b"none")
    reduction = reduction.decode() if isinstance(reduction, bytes) else reduction
    if reduction != "none":
        ctx.refuse(node, f"its reduction is {reduction!r}; DirectML's SCATTER_ND replaces (reduction 'none')")
    shapes = [ctx.shape(n) for n in node.input[:3]]
    rank = max(max(len(s) for s in shapes), 1)

    def padded(s):
        return [1] * (rank - len(s)) + (s or [1])
    ctx.emit(node, "SCATTER_ND", [(field, ctx.reshape(node, name, padded(shape))) for field, name, shape in
                                  zip(("InputTensor", "IndicesTensor", "UpdatesTensor"), node.input, shapes)],
             [("OutputTensor", node.output[0])],
             {"InputDimensionCount": len(shapes[0]), "IndicesDimensionCount": len(shapes[1])},
             sizes=padded(ctx.shape(node.output[0])))


def _one_hot(ctx, node):
    """OneHot as ONE_HOT: the indices read with a 1 at the output's axis, the values as {1, .., 1, 2}
    (DmlOperatorOneHot.cpp); the depth is the output's size there."""
    ctx.check_attributes(node, {"axis"})
    out_shape = ctx.shape(node.output[0])
    rank = len(out_shape)
    axis = int(ctx.attr(node, "axis", -1))
    axis = axis + rank if axis < 0 else axis
    name = node.input[0]
    if ctx.type_name(name).startswith("FLOAT"):       # float indices: a CAST to INT64 first (truncating, as ONNX)
        name = f"{node.output[0]}#indices"
        ctx.declare(name, ctx.shape(node.input[0]), 7)
        ctx.emit(node, "CAST", [("InputTensor", ctx.view(node.input[0]))], [("OutputTensor", name)], {})
    indices = ctx.reshape(node, name, [1 if d == axis else s for d, s in enumerate(out_shape)])
    values = ctx.reshape(node, node.input[2], [1] * (rank - 1) + [2])
    ctx.emit(node, "ONE_HOT", [("IndicesTensor", indices), ("ValuesTensor", values)],
             [("OutputTensor", node.output[0])], {"Axis": axis})


def _space_depth(ctx, node):
    """SpaceToDepth / DepthToSpace as SPACE_TO_DEPTH1 / DEPTH_TO_SPACE1 (DCR: DEPTH_COLUMN_ROW, CRD:
    COLUMN_ROW_DEPTH)."""
    ctx.check_attributes(node, {"blocksize", "mode"})
    mode = ctx.attr(node, "mode", b"DCR")
    mode = mode.decode() if isinstance(mode, bytes) else mode
    from dmlemu.directml import DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH, DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW
    operator = "SPACE_TO_DEPTH1" if node.op_type == "SpaceToDepth" else "DEPTH_TO_SPACE1"
    ctx.emit(node, operator, [("InputTensor", ctx.view(node.input[0]))], [("OutputTensor", node.output[0])],
             {"BlockSize": int(ctx.attr(node, "blocksize", 1)),
              "Order": DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH if mode == "CRD" else DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW})


def _tile(ctx, node):
    repeats = [int(r) for r in ctx.constant(node, 1, "repeats")]
    ctx.emit(node, "TILE", [("InputTensor", ctx.view(node.input[0]))], [("OutputTensor", node.output[0])],
             {"RepeatsCount": len(repeats), "Repeats": repeats})


def _cumsum(ctx, node):
    """CumSum / CumProd as CUMULATIVE_SUMMATION / CUMULATIVE_PRODUCT (reverse: DECREASING)."""
    ctx.check_attributes(node, {"exclusive", "reverse"})
    rank = len(ctx.shape(node.input[0]))
    axis = int(np.asarray(ctx.constant(node, 1, "axis")).reshape(-1)[0])
    operator, exclusive = (("CUMULATIVE_SUMMATION", "HasExclusiveSum") if node.op_type == "CumSum" else
                           ("CUMULATIVE_PRODUCT", "HasExclusiveProduct"))
    from dmlemu.directml import DML_AXIS_DIRECTION_DECREASING, DML_AXIS_DIRECTION_INCREASING
    ctx.emit(node, operator, [("InputTensor", ctx.view(node.input[0]))],
             [("OutputTensor", node.output[0])],
             {"Axis": axis + rank if axis < 0 else axis,
              "AxisDirection": DML_AXIS_DIRECTION_DECREASING if ctx.attr(node, "reverse", 0)
              else DML_AXIS_DIRECTION_INCREASING, exclusive: bool(ctx.attr(node, "exclusive", 0))})


def _mod(ctx, node):
    """Mod: fmod 1 ELEMENT_WISE_MODULUS_TRUNCATE (C's fmod), fmod 0 ELEMENT_WISE_MODULUS_FLOOR (Python's %)."""
    ctx.check_attributes(node, {"fmod"})
    operator = "ELEMENT_WISE_MODULUS_TRUNCATE" if int(ctx.attr(node, "fmod", 0)) else "ELEMENT_WISE_MODULUS_FLOOR"
    _elementwise(ctx, node, operator, arity=2)


# ---- the table -----------------------------------------------------------------------------------------------
_ELEMENT_WISE = {
    "Add": ("ELEMENT_WISE_ADD", 2), "Sub": ("ELEMENT_WISE_SUBTRACT", 2), "Mul": ("ELEMENT_WISE_MULTIPLY", 2),
    "Div": ("ELEMENT_WISE_DIVIDE", 2), "Pow": ("ELEMENT_WISE_POW", 2), "Abs": ("ELEMENT_WISE_ABS", 1),
    "Neg": ("ELEMENT_WISE_NEGATE", 1), "Sign": ("ELEMENT_WISE_SIGN", 1), "Floor": ("ELEMENT_WISE_FLOOR", 1),
    "Ceil": ("ELEMENT_WISE_CEIL", 1), "Reciprocal": ("ELEMENT_WISE_RECIP", 1), "Sqrt": ("ELEMENT_WISE_SQRT", 1),
    "Exp": ("ELEMENT_WISE_EXP", 1), "Log": ("ELEMENT_WISE_LOG", 1), "Erf": ("ELEMENT_WISE_ERF", 1),
    "Sin": ("ELEMENT_WISE_SIN", 1), "Cos": ("ELEMENT_WISE_COS", 1), "Tan": ("ELEMENT_WISE_TAN", 1),
    "Asin": ("ELEMENT_WISE_ASIN", 1), "Acos": ("ELEMENT_WISE_ACOS", 1), "Atan": ("ELEMENT_WISE_ATAN", 1),
    "Sinh": ("ELEMENT_WISE_SINH", 1), "Cosh": ("ELEMENT_WISE_COSH", 1), "Asinh": ("ELEMENT_WISE_ASINH", 1),
    "Acosh": ("ELEMENT_WISE_ACOSH", 1), "Atanh": ("ELEMENT_WISE_ATANH", 1), "IsNaN": ("ELEMENT_WISE_IS_NAN", 1),
    "Not": ("ELEMENT_WISE_LOGICAL_NOT", 1), "Equal": ("ELEMENT_WISE_LOGICAL_EQUALS", 2),
    "Greater": ("ELEMENT_WISE_LOGICAL_GREATER_THAN", 2), "Less": ("ELEMENT_WISE_LOGICAL_LESS_THAN", 2),
    "GreaterOrEqual": ("ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL", 2),
    "LessOrEqual": ("ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL", 2), "And": ("ELEMENT_WISE_LOGICAL_AND", 2),
    "Or": ("ELEMENT_WISE_LOGICAL_OR", 2), "Xor": ("ELEMENT_WISE_LOGICAL_XOR", 2), "Where": ("ELEMENT_WISE_IF", 3),
    "PRelu": ("ACTIVATION_PARAMETERIZED_RELU", 2),
}

CONVERSIONS = {
    **{op: _elementwise_row(operator, arity=arity) for op, (operator, arity) in _ELEMENT_WISE.items()},
    "Round": _elementwise_row("ELEMENT_WISE_ROUND", arity=1, fixed={"RoundingMode": 0}),
    "Gelu": _elementwise_row("ACTIVATION_GELU", arity=1),
    "HardSwish": _elementwise_row("ACTIVATION_HARD_SWISH", arity=1, fixed={"Alpha": 1 / 6, "Beta": 0.5}),
    **{op: Conversion((operator,), _activation) for op, (operator, _, _) in FUSABLE.items()},
    "Sum": Conversion(("ELEMENT_WISE_ADD", "ELEMENT_WISE_IDENTITY"), functools.partial(_variadic,
                                                                                      operator="ELEMENT_WISE_ADD")),
    "Min": Conversion(("ELEMENT_WISE_MIN", "ELEMENT_WISE_IDENTITY"), functools.partial(_variadic,
                                                                                      operator="ELEMENT_WISE_MIN")),
    "Max": Conversion(("ELEMENT_WISE_MAX", "ELEMENT_WISE_IDENTITY"), functools.partial(_variadic,
                                                                                      operator="ELEMENT_WISE_MAX")),
    "Clip": Conversion(("ELEMENT_WISE_CLIP", "ELEMENT_WISE_CLIP1"), _clip),
    "Cast": Conversion(("CAST",), _cast),
    "CastLike": Conversion(("CAST",), _cast),
    "Gemm": Conversion(("GEMM",), _gemm),
    "MatMul": Conversion(("GEMM",), _matmul),
    "MatMulInteger": Conversion(("MATRIX_MULTIPLY_INTEGER",), _matmul_integer),
    "QLinearMatMul": Conversion(("QUANTIZED_LINEAR_MATRIX_MULTIPLY", "CAST"), _qlinear_matmul),
    **{op: Conversion(("REDUCE",), _reduce) for op in _REDUCE_FUNCTIONS},
    "ArgMax": Conversion(("ARGMAX",), functools.partial(_arg, operator="ARGMAX")),
    "ArgMin": Conversion(("ARGMIN",), functools.partial(_arg, operator="ARGMIN")),
    **{op: Conversion((), _reshape_like) for op in ("Reshape", "Flatten", "Squeeze", "Unsqueeze")},
    "Transpose": Conversion((), _transpose),
    "Identity": Conversion((), _identity),
    "Dropout": Conversion((), _identity),
    "Expand": Conversion((), _expand),
    "Conv": Conversion(("CONVOLUTION",), _conv),
    "ConvTranspose": Conversion(("CONVOLUTION",), _conv),
    "ConvInteger": Conversion(("CONVOLUTION_INTEGER",), _conv_integer),
    "QLinearConv": Conversion(("QUANTIZED_LINEAR_CONVOLUTION", "CAST"), _conv_integer),
    **{op: Conversion(("MAX_POOLING", "MAX_POOLING2", "MAX_POOLING1", "CAST"), _pool)
       for op in ("MaxPool", "GlobalMaxPool")},
    "MaxUnpool": Conversion(("MAX_UNPOOLING", "PADDING1"), _max_unpool),
    **{op: Conversion(("AVERAGE_POOLING", "AVERAGE_POOLING1"), _pool) for op in ("AveragePool", "GlobalAveragePool")},
    **{op: Conversion(("LP_POOLING", "LP_POOLING1"), _pool) for op in ("LpPool", "GlobalLpPool")},
    "Softmax": Conversion(("ACTIVATION_SOFTMAX1",), functools.partial(_softmax, operator="ACTIVATION_SOFTMAX1")),
    "LogSoftmax": Conversion(("ACTIVATION_LOG_SOFTMAX1",),
                             functools.partial(_softmax, operator="ACTIVATION_LOG_SOFTMAX1")),
    "LayerNormalization": Conversion(("MEAN_VARIANCE_NORMALIZATION1",), _layer_normalization),
    "BatchNormalization": Conversion(("BATCH_NORMALIZATION",), _batch_normalization),
    "RMSNormalization": Conversion(("MEAN_VARIANCE_NORMALIZATION2",), _rms_normalization),
    "Attention": Conversion(("MULTIHEAD_ATTENTION1",), _attention),
    "InstanceNormalization": Conversion(("MEAN_VARIANCE_NORMALIZATION1",), _mean_variance_normalization),
    "MeanVarianceNormalization": Conversion(("MEAN_VARIANCE_NORMALIZATION1",), _mean_variance_normalization),
    "LRN": Conversion(("LOCAL_RESPONSE_NORMALIZATION",), _lrn),
    "LpNormalization": Conversion(("LP_NORMALIZATION",), _lp_normalization),
    "Concat": Conversion(("JOIN",), _concat),
    "Split": Conversion(("SPLIT",), _split),
    "Slice": Conversion(("SLICE1",), _slice),
    "Pad": Conversion(("PADDING1",), _pad),
    "Gather": Conversion(("GATHER",), _gather),
    "Resize": Conversion(("RESAMPLE1", "RESAMPLE2"), _resize),
    "Upsample": Conversion(("RESAMPLE1",), _resize),
    "Tile": Conversion(("TILE",), _tile),
    "GatherElements": Conversion(("GATHER_ELEMENTS",), _gather_elements),
    "GatherND": Conversion(("GATHER_ND1",), _gather_nd),
    "SpaceToDepth": Conversion(("SPACE_TO_DEPTH1",), _space_depth),
    "DepthToSpace": Conversion(("DEPTH_TO_SPACE1",), _space_depth),
    "Hardmax": Conversion(("ACTIVATION_HARDMAX1",), functools.partial(_softmax, operator="ACTIVATION_HARDMAX1")),
    "CumSum": Conversion(("CUMULATIVE_SUMMATION",), _cumsum),
    "CumProd": Conversion(("CUMULATIVE_PRODUCT",), _cumsum),
    "Mod": Conversion(("ELEMENT_WISE_MODULUS_TRUNCATE", "ELEMENT_WISE_MODULUS_FLOOR"), _mod),
    "ScatterElements": Conversion(("SCATTER_ELEMENTS",), _scatter_elements),
    "Scatter": Conversion(("SCATTER_ELEMENTS",), _scatter_elements),
    "ScatterND": Conversion(("SCATTER_ND",), _scatter_nd),
    "OneHot": Conversion(("ONE_HOT", "CAST"), _one_hot),
    "TopK": Conversion(("TOP_K1",), _top_k),
}


def implemented(op_type):
    """True when every DML operator the conversion of `op_type` may make has a desc in the mirror and a kernel."""
    from dmlemu.directml.operators import SCHEMAS_BY_NAME
    from dmlemu.kernels.driver import has_kernel
    conversion = CONVERSIONS[op_type]
    return all(name in SCHEMAS_BY_NAME and has_kernel(name) for name in conversion.operators)
