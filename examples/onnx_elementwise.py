"""An ONNX model of element-wise operators, converted to a DirectML graph and checked against ONNX Runtime.

    python examples/onnx_elementwise.py          (from the repository root; needs pip install -e '.[onnx]')

The model (built with onnx.helper, opset 17) is a small gated activation on two [4, 64] FLOAT inputs x, y,
with broadcast initializers (a per-column scale of shape [64], a bias of shape [1, 64], scalars):

    h = x * scale + bias                   Mul, Add (broadcast initializers)
    a = Sigmoid(h) * Tanh(x - y)           Sigmoid, Sub, Tanh, Mul
    m = x > 0                              Greater (BOOL)
    e = Exp(-|y|)                          Abs, Neg, Exp
    w = Where(m, a, e)                     Where                     -> output "w"
    z = Clip(Relu(w / (Cast(m) + 2)), 0, 0.25)   Cast, Add, Div, Relu, Clip  -> output "z"

examples/onnx_to_dml.py converts it (initializers as DML_CONSTANT_DATA_GRAPH_NODE_DESC: the default
adapter's runtime has DML_FEATURE_LEVEL_6_4), CompileGraph fuses it, and it runs through the mirror.
The 16 nodes become 1 dispatch (`dmlemu graph` shows such partitions): a fused kernel reads and writes
up to 9 tensors in memory, plus up to 8 uniform inputs (the scalars: one scalar load per wave), see
docs/GRAPHS.md.
Three checks:

1. dmlemu's graph against the same DML operators run one by one through dmlemu.golden: bit for bit.
2. Each operator against ONNX Runtime's CPU provider on the same inputs (a one-node model per node, fed
   the values dmlemu's nodes computed): within TOLERANCE, in units in the last place of the output type
   (0 for the operators both sides compute exactly; the transcendental ones differ in the last bits, as
   their implementations differ: dmlemu's rules are in docs/ISA_PRECISION.md; Sigmoid also by an
   absolute bound, see TOLERANCE). -0 and +0 count
   as equal (ONNX Runtime's Where turns -0 into +0, docs/NUMERICS.md); the inputs hold no NaN,
   where ONNX Runtime and DirectML disagree on Min/Max/Clip.
3. The whole model against ONNX Runtime's whole model: within RTOL / ATOL (np.allclose), and the largest
   difference in ulps is printed.

Without the onnx and onnxruntime packages the example prints what to install and exits 0.
"""
import sys

import numpy as np

try:
    import onnx
    import onnxruntime
    from onnx import TensorProto, helper
except ImportError as error:
    print(f"examples/onnx_elementwise.py needs onnx and onnxruntime ({error.name} is missing): "
          f"pip install -e '.[onnx]'")
    sys.exit(0)

import directmlx_graph as dmlx
from onnx_to_dml import convert

# Per ONNX operator: (ulps, absolute): dmlemu's result may differ from ONNX Runtime's on the same inputs by at
# most that many units in the last place of the output type, or by at most `absolute`. 0: one IEEE operation,
# a selection or a comparison on both sides, the same bits. Exp and Tanh: dmlemu's ISA sequences against
# ONNX Runtime's; Sigmoid: ONNX Runtime's (MLAS's rational approximation) has an absolute error bound, not a
# relative one, so where sigmoid(x) is tiny the ulps are many (measured with onnxruntime 1.32.0 on 400,000
# uniform inputs in [-30, 30]: |difference| <= 1.8e-7 everywhere, but at x = -11.84 ONNX Runtime gives
# 7.3314e-06 where float64 gives 7.2251e-06 and dmlemu 7.225093e-06, 2.8 ulps from it; Tanh <= 5 ulps,
# Exp <= 1 ulp). The tolerances below leave a margin over those measurements.
TOLERANCE = {"Add": (0, 0.0), "Sub": (0, 0.0), "Mul": (0, 0.0), "Div": (0, 0.0), "Abs": (0, 0.0), "Neg": (0, 0.0),
             "Relu": (0, 0.0), "Clip": (0, 0.0), "Where": (0, 0.0), "Greater": (0, 0.0), "Cast": (0, 0.0),
             "Exp": (2, 0.0), "Tanh": (8, 0.0), "Sigmoid": (16, 2.5e-7)}
RTOL, ATOL = 1e-5, 1e-6     # the whole model: errors of several operators add up


def build_model():
    """The ONNX model of the module docstring (checked by onnx.checker)."""
    f32 = TensorProto.FLOAT
    scale = np.linspace(0.5, 1.5, 64, dtype=np.float32)
    bias = np.linspace(-1.0, 1.0, 64, dtype=np.float32).reshape(1, 64)
    initializers = [helper.make_tensor("scale", f32, [64], scale), helper.make_tensor("bias", f32, [1, 64], bias),
                    helper.make_tensor("zero", f32, [], [0.0]), helper.make_tensor("two", f32, [], [2.0]),
                    helper.make_tensor("lo", f32, [], [0.0]), helper.make_tensor("hi", f32, [], [0.25])]
    n = helper.make_node
    nodes = [
        n("Mul", ["x", "scale"], ["xs"], name="mul_scale"),
        n("Add", ["xs", "bias"], ["h"], name="add_bias"),
        n("Sigmoid", ["h"], ["g"], name="sigmoid"),
        n("Sub", ["x", "y"], ["d"], name="sub"),
        n("Tanh", ["d"], ["t"], name="tanh"),
        n("Mul", ["g", "t"], ["a"], name="gate"),
        n("Greater", ["x", "zero"], ["m"], name="positive"),
        n("Abs", ["y"], ["ay"], name="abs"),
        n("Neg", ["ay"], ["nay"], name="neg"),
        n("Exp", ["nay"], ["e"], name="exp"),
        n("Where", ["m", "a", "e"], ["w"], name="where"),
        n("Cast", ["m"], ["mf"], name="cast", to=f32),
        n("Add", ["mf", "two"], ["den"], name="add_two"),
        n("Div", ["w", "den"], ["q"], name="div"),
        n("Relu", ["q"], ["r"], name="relu"),
        n("Clip", ["r", "lo", "hi"], ["z"], name="clip"),
    ]
    inputs = [helper.make_tensor_value_info(v, f32, [4, 64]) for v in ("x", "y")]
    outputs = [helper.make_tensor_value_info(v, f32, [4, 64]) for v in ("w", "z")]
    model = helper.make_model(helper.make_graph(nodes, "gated_elementwise", inputs, outputs, initializers),
                              opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    return model


def ulps(a, b):
    """|a - b| in units in the last place of their float type, element by element (-0 == +0; NaN vs NaN: 0)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind != "f":
        return (a != b).astype(np.int64)
    ints = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    sign = np.int64(1) << (8 * a.dtype.itemsize - 1)

    def ordered(x):   # the float's position on the number line: consecutive floats are consecutive integers
        bits = x.view(ints).astype(np.int64)
        return np.where(bits < 0, -(bits & (sign - 1)), bits)

    distance = np.abs(ordered(a) - ordered(b))
    both_nan = np.isnan(a) & np.isnan(b)
    return np.where(both_nan, 0, np.where(np.isnan(a) | np.isnan(b), np.iinfo(np.int64).max, distance))


def session(model):
    return onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def one_node_model(model, converted, node, feeds):
    """A model of `node` alone: its data inputs as graph inputs of the fed arrays' types and shapes, its
    constant inputs (Clip's bounds) as the original initializers."""
    initializers = [t for t in model.graph.initializer if t.name in node.input and t.name not in feeds]
    inputs = [helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(feeds[name].dtype),
                                            list(feeds[name].shape)) for name in node.input if name in feeds]
    name = node.output[0]
    output = helper.make_tensor_value_info(name, converted.types[name], converted.shapes[name])
    return helper.make_model(helper.make_graph([node], node.name, inputs, [output], initializers),
                             opset_imports=model.opset_import)


def onnx_values(converted, held, feeds):
    """Every ONNX value dmlemu computed (graph inputs, initializers, node outputs) as arrays of its ONNX
    shape and type (BOOL as bool), read from the golden nodes' bytes."""
    values = {}
    for name, x in converted.values.items():
        array = dmlx.as_array(held[x.source], x.tensor).reshape(converted.shapes[name])
        values[name] = array.astype(bool) if converted.types[name] == TensorProto.BOOL else array
    values.update(feeds)
    return values


def main():
    model = build_model()
    rng = np.random.default_rng(16)
    feeds = {"x": rng.uniform(-4, 4, (4, 64)).astype(np.float32), "y": rng.uniform(-3, 3, (4, 64)).astype(np.float32)}
    host = dmlx.Host()
    converted = convert(model, host.dml)
    graph = converted.graph
    print(f"ONNX model: {len(model.graph.node)} nodes ({', '.join(sorted({n.op_type for n in model.graph.node}))}), "
          f"{len(model.graph.initializer)} initializers -> DML graph: {len(graph.nodes)} operator nodes, "
          f"{len(graph.constants)} constant nodes, {len(converted.input_names)} graph inputs")

    # 1. The DML graph, fused, against the DML operators one by one through the golden model.
    inputs = converted.inputs(feeds)
    results, line = dmlx.run_and_check(host, graph, inputs, converted.outputs, "onnx model")
    print(line)
    print("bit-exact against dmlemu.golden (every node one by one).")

    # 2. Each operator against ONNX Runtime on the same inputs.
    values = onnx_values(converted, dmlx.golden_values(graph, inputs), feeds)
    worst = {}
    for node, _ in converted.nodes:
        node_feeds = {name: values[name] for name in node.input if name in converted.values}
        [expected] = session(one_node_model(model, converted, node, node_feeds)).run(None, node_feeds)
        got, expected = values[node.output[0]], expected.astype(values[node.output[0]].dtype)
        distance = ulps(got, expected)
        apart = np.abs(got.astype(np.float64) - expected) if got.dtype.kind == "f" else distance
        limit_ulps, limit_absolute = TOLERANCE[node.op_type]
        outside = (distance > limit_ulps) & (apart > limit_absolute)
        if outside.any():
            i = np.flatnonzero(outside.reshape(-1))[0]
            raise SystemExit(f"node \"{node.name}\" ({node.op_type}) differs from ONNX Runtime at element {i}: "
                             f"{got.reshape(-1)[i]!r} against {expected.reshape(-1)[i]!r}, {distance.reshape(-1)[i]} "
                             f"ulps; the tolerance is {limit_ulps} ulps or {limit_absolute}")
        before = worst.get(node.op_type, (0, 0.0))
        worst[node.op_type] = (max(before[0], int(distance.max())), max(before[1], float(apart.max())))
    print("per operator against ONNX Runtime on the same inputs:")
    print("  the same bits (-0 and +0 aside): " + ", ".join(op for op in sorted(worst) if worst[op][0] == 0))
    differ = []
    for op in sorted(worst, key=lambda op: worst[op][0]):
        (ulps_seen, largest), (ulp_limit, absolute) = worst[op], TOLERANCE[op]
        if absolute:
            differ.append(f"{op} {ulps_seen} ulps, |difference| <= {largest:.3g} (tolerance {ulp_limit} ulps or "
                          f"{absolute:g})")
        elif ulps_seen:
            differ.append(f"{op} {ulps_seen} ulps (tolerance {ulp_limit})")
    print("  within tolerance: " + "; ".join(differ))

    # 3. The whole model against ONNX Runtime's whole model.
    expected = session(model).run(converted.output_names, feeds)
    for name, got, want in zip(converted.output_names, results, expected):
        if not np.allclose(got, want, rtol=RTOL, atol=ATOL):
            raise SystemExit(f"output \"{name}\" differs from ONNX Runtime beyond rtol {RTOL}, atol {ATOL}: "
                             f"largest difference {np.abs(got - want).max()}")
        print(f"output {name}: within rtol {RTOL} / atol {ATOL} of ONNX Runtime {onnxruntime.__version__} "
              f"(largest difference {int(ulps(got, want).max())} ulps); {name}[0, :4] = {got[0, :4]}")


if __name__ == "__main__":
    main()
