"""How far dmlemu's result of an ONNX node may be from an expected one: the WebNN conformance tolerances
(web-platform-tests webnn/resources/utils.js, "precision metrics": webmachinelearning/webnn issue 265),
written once, per ONNX operator.

A tolerance is ("ULP", n): at most n units in the last place of the output's float type (integer and
boolean outputs: exact), or ("ATOL", x): at most x apart. Where WebNN's figure depends on the work (a
dot product's length, a window, the reduced elements) the row is a function of the node's shapes and
attributes, with WebNN's formula:

    Gemm        2 K, +1 for an Alpha other than 1, +1 for a C, +1 for a Beta other than 1 with a C
    MatMul      2 K
    Conv        2 x filter height x filter width x input channels / groups
    AveragePool window elements + 2
    Softmax     3 x the axis' size + 3
    ReduceSum / ReduceL1 / ReduceProd  n;  ReduceL2 2n + 1;  ReduceMean n + 2;  ReduceLogSum n + 18;
    ReduceLogSumExp 2n + 18;  ReduceSumSquare 2n  (n: the reduced elements)
    Resize      linear 84 (FLOAT32), nearest 0

    InstanceNormalization, MeanVarianceNormalization  ATOL 1/1024 (WebNN's instanceNormalization)

Operators WebNN does not list take the figure of their closest sibling (the inverse trigonometric and
hyperbolic functions: Sin's ATOL; LpPool ReduceL2's 2n + 1 over the window; LpNormalization ReduceL2's over
the axis and a divide, 2n + 3; LRN a sum of squares over its size, Pow's 32 and a divide, 2 size + 34;
CumSum ReduceSum's n with n the longest dimension, CumProd ReduceProd's; Mod exact (integer remainders and
fmod are exact); MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv exact (integer
outputs); CastLike Cast's; the data movement ones, Hardmax, Shape, Size and MaxUnpool (a scatter) exact).
"""
import numpy as np

__all__ = ["TOLERANCES", "tolerance", "ulp_distance", "within"]

_ZERO = ("Abs", "Neg", "Relu", "Max", "Min", "Clip", "Ceil", "Floor", "Identity", "Sign", "Round", "Where",
         "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Expand", "Concat", "Split", "Slice", "Pad",
         "Gather", "Tile", "Dropout", "MaxPool", "GlobalMaxPool", "ReduceMax", "ReduceMin", "ArgMax", "ArgMin",
         "Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual", "And", "Or", "Xor", "Not", "IsNaN",
         "ThresholdedRelu", "Shrink", "GatherElements", "GatherND", "ScatterElements", "Scatter", "ScatterND",
         "OneHot", "DepthToSpace", "SpaceToDepth", "Hardmax", "Shape", "Size",
         "MaxUnpool")
_ATOL_TRIG = ("Sin", "Cos", "Tan", "Erf", "Log", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh")


def _gemm(shapes, attributes):
    k = shapes[0][0] if attributes.get("transA", 0) else shapes[0][-1]
    n = 2 * k + (attributes.get("alpha", 1.0) != 1.0)
    if len(shapes) > 2 and shapes[2] is not None:
        n += 1 + (attributes.get("beta", 1.0) != 1.0)
    return ("ULP", n)


def _reduced(shapes, attributes):
    shape = shapes[0]
    axes = attributes.get("axes")
    if axes is None and len(shapes) > 1 and shapes[1] is not None:
        axes = attributes.get("axes_input")
    axes = list(range(len(shape))) if not axes else [a + len(shape) if a < 0 else a for a in axes]
    return int(np.prod([shape[a] for a in axes])) if shape else 1


def _reduction(factor, extra):
    return lambda shapes, attributes: ("ULP", factor * _reduced(shapes, attributes) + extra)


def _conv(shapes, attributes):
    w = shapes[1]
    return ("ULP", 2 * int(np.prod(w[2:])) * w[1])


def _average_pool(shapes, attributes):
    window = attributes.get("kernel_shape") or shapes[0][2:]
    return ("ULP", int(np.prod(window)) + 2)


def _softmax(shapes, attributes):
    shape = shapes[0]
    axis = attributes.get("axis", -1)
    return ("ULP", 3 * shape[axis] + 3)


def _attention(shapes, attributes):
    # no WebNN op: matmul's 2K ULP for each product (K = the head size, then the keys) and softmax's 3 N + 3
    head, keys = shapes[0][-1] // max(1, int(attributes.get("q_num_heads", 1))), shapes[1][-2]
    return ("ULP", 2 * head + 3 * keys + 3 + 2 * keys)


def _window_l2(shapes, attributes):
    window = attributes.get("kernel_shape") or shapes[0][2:]
    return ("ULP", 2 * int(np.prod(window)) + 1)


def _lp_normalization(shapes, attributes):
    shape = shapes[0]
    return ("ULP", 2 * shape[attributes.get("axis", -1)] + 3)


def _lrn(shapes, attributes):
    return ("ULP", 2 * int(attributes.get("size", 1)) + 34)


def _cumsum(shapes, attributes):
    return ("ULP", max(shapes[0]) if shapes[0] else 1)


def _resize(shapes, attributes):
    mode = attributes.get("mode", b"nearest")
    return ("ULP", 84 if (mode.decode() if isinstance(mode, bytes) else mode) == "linear" else 0)


TOLERANCES = {
    **{op: ("ULP", 0) for op in _ZERO},
    **{op: ("ATOL", 1 / 1024) for op in _ATOL_TRIG},
    "Add": ("ULP", 1), "Sub": ("ULP", 1), "Mul": ("ULP", 1), "Sum": ("ULP", 1), "Div": ("ULP", 2),
    "Pow": ("ULP", 32), "Reciprocal": ("ULP", 2), "Sqrt": ("ULP", 1), "Exp": ("ULP", 32), "Cast": ("ULP", 1),
    "Sigmoid": ("ULP", 34), "Tanh": ("ULP", 16), "Elu": ("ULP", 18), "Celu": ("ULP", 18), "Selu": ("ULP", 18),
    "LeakyRelu": ("ULP", 1), "PRelu": ("ULP", 1), "HardSigmoid": ("ULP", 2), "HardSwish": ("ULP", 4),
    "Softplus": ("ULP", 18), "Softsign": ("ULP", 3), "Gelu": ("ULP", 18),
    "BatchNormalization": ("ULP", 6), "LayerNormalization": ("ATOL", 1 / 1024),
    "RMSNormalization": ("ATOL", 1 / 1024),     # as layerNormalization
    "Attention": _attention,
    "Gemm": _gemm, "MatMul": lambda shapes, attributes: ("ULP", 2 * shapes[0][-1]),
    "ReduceSum": _reduction(1, 0), "ReduceL1": _reduction(1, 0), "ReduceProd": _reduction(1, 0),
    "ReduceL2": _reduction(2, 1), "ReduceMean": _reduction(1, 2), "ReduceLogSum": _reduction(1, 18),
    "ReduceLogSumExp": _reduction(2, 18), "ReduceSumSquare": _reduction(2, 0),
    "Conv": _conv, "ConvTranspose": _conv, "AveragePool": _average_pool, "GlobalAveragePool": _average_pool,
    "Softmax": _softmax, "LogSoftmax": _softmax, "Resize": _resize, "Upsample": _resize,
    "InstanceNormalization": ("ATOL", 1 / 1024), "MeanVarianceNormalization": ("ATOL", 1 / 1024),
    "LpPool": _window_l2, "GlobalLpPool": _window_l2, "LpNormalization": _lp_normalization, "LRN": _lrn,
    "CumSum": _cumsum, "CumProd": _cumsum, "Mod": ("ULP", 0), "CastLike": ("ULP", 1),
    "TopK": ("ULP", 0),     # a selection: the values are input elements, the indices integers (exact)
    # the integer products: INT32 sums are exact; the requantized ones are integers, compared exactly
    "MatMulInteger": ("ULP", 0), "ConvInteger": ("ULP", 0), "QLinearMatMul": ("ULP", 0), "QLinearConv": ("ULP", 0),
}


def tolerance(op_type, shapes, attributes):
    """The tolerance of one node: `shapes` its input shapes (None for one left out), `attributes` by name."""
    row = TOLERANCES[op_type]
    return row(shapes, attributes) if callable(row) else row


def ulp_distance(a, b):
    """|a - b| in units in the last place of their float type, element by element (-0 == +0; NaN against
    NaN 0, NaN against a number the largest distance)."""
    a, b = np.asarray(a), np.asarray(b)
    ints = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    magnitude = np.int64((1 << (8 * a.dtype.itemsize - 1)) - 1)     # every bit but the sign

    def ordered(x):   # the float's position on the number line: consecutive floats are consecutive integers
        bits = x.view(ints).astype(np.int64)
        return np.where(bits < 0, -(bits & magnitude), bits)

    with np.errstate(over="ignore"):     # FLOAT64 values of opposite signs far apart: the distance saturates below
        distance = np.abs(ordered(a).astype(np.float64) - ordered(b).astype(np.float64))
    both_nan = np.isnan(a) & np.isnan(b)
    return np.where(both_nan, 0, np.where(np.isnan(a) | np.isnan(b), np.iinfo(np.int64).max, distance))


def within(got, expected, limit):
    """(True, '') when `got` is within `limit` of `expected`, else (False, a sentence about the worst element)."""
    got, expected = np.asarray(got), np.asarray(expected)
    if got.shape != expected.shape:
        return False, f"shape {list(got.shape)} against {list(expected.shape)}"
    if got.dtype.kind != "f":
        bad = np.flatnonzero(got.reshape(-1) != expected.astype(got.dtype).reshape(-1))
        return (not bad.size, "" if not bad.size else
                f"{bad.size} elements differ, first at {bad[0]}: {got.reshape(-1)[bad[0]]} against "
                f"{expected.reshape(-1)[bad[0]]}")
    expected = expected.astype(got.dtype)
    kind, value = limit
    if kind == "ULP":
        distance = ulp_distance(got, expected)
    else:
        distance = np.where(np.isnan(got) & np.isnan(expected), 0.0,
                            np.abs(got.astype(np.float64) - expected.astype(np.float64)))
        distance = np.where(np.isnan(distance), np.inf, distance)
    if not distance.size or distance.max() <= value:
        return True, ""
    i = int(np.argmax(distance.reshape(-1)))
    return False, (f"element {i}: {got.reshape(-1)[i]!r} against {expected.reshape(-1)[i]!r}, "
                   f"{distance.reshape(-1)[i]} {kind} (tolerance {value})")
