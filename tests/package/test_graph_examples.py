"""The graph examples: examples/directmlx_graph.py and examples/onnx_elementwise.py run as programs (their
printed claims checked), and the converter of examples/onnx_to_dml.py on small ONNX models: broadcasting
strides, initializers as constant nodes or graph inputs, bits against the golden nodes one by one and
against ONNX Runtime, and the sentences it refuses with. The ONNX tests skip without the `onnx` extra
(pyproject.toml); the ONNX example itself then prints what to install and exits 0 (tested here too)."""
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from operator_cases import scaled

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")
sys.path.insert(0, EXAMPLES)   # the examples import each other as scripts do (directmlx_graph, onnx_to_dml)

import directmlx_graph as dmlx  # noqa: E402


def run_example(name, prelude=None):
    """Run examples/<name> from the repository root (after `prelude`, Python run first in the same process,
    when given); returns its stdout, asserting exit status 0."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    path = os.path.join("examples", name)
    command = [sys.executable, path] if prelude is None else \
        [sys.executable, "-c", f"{prelude}\nimport runpy, sys\nsys.path.insert(0, 'examples')\n"   # as `python path` does
                               f"runpy.run_path({path!r}, run_name='__main__')"]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"{path} exited {result.returncode}\n{result.stdout}\n{result.stderr}"
    return result.stdout


# ---- examples/directmlx_graph.py ---------------------------------------------------------------------------
def test_directmlx_graph_example_fuses_the_chain_and_the_diamond_into_one_dispatch_each():
    out = run_example("directmlx_graph.py")
    assert "trace (fused): 4 nodes ran as 1 dispatch [scale+bias+relu+clip]" in out
    assert "trace (unfused): 4 nodes ran as 4 dispatches [scale | bias | relu | clip]" in out
    assert "trace (fused): 4 nodes ran as 1 dispatch [add_bias+relu+sigmoid+gate]" in out
    assert "trace (unfused): 4 nodes ran as 4 dispatches [add_bias | relu | sigmoid | gate]" in out
    assert out.rstrip().endswith("bit-exact against dmlemu.golden (every node one by one), fused and unfused.")


def test_directmlx_expressions_become_the_nodes_directmlx_makes():
    """x * 2 + 1 is two IDENTITY nodes with ScaleBias {2, 0} and {1, 1} (DirectMLX.h's operator* and operator+
    with a float); a Reinterpret adds no node, only the consumer's strides."""
    host = dmlx.Host()
    graph = dmlx.Graph(host.dml)
    x = graph.input([2, 4])
    bias = graph.input([4])
    y = dmlx.relu(x * 2.0 + 1.0) + dmlx.reinterpret(bias, [2, 4], [0, 1])
    assert [n.operator for n in graph.nodes] == ["ELEMENT_WISE_IDENTITY", "ELEMENT_WISE_IDENTITY", "ACTIVATION_RELU",
                                                 "ELEMENT_WISE_ADD"]
    sb = [(n.fields["ScaleBias"].Scale, n.fields["ScaleBias"].Bias) for n in graph.nodes[:2]]
    assert sb == [(2.0, 0.0), (1.0, 1.0)]
    b = graph.operator_desc(graph.nodes[3]).Desc.BTensor.Desc
    assert list(b.Sizes) == [2, 4] and list(b.Strides) == [0, 1] and b.TotalTensorSizeInBytes == 16
    desc = graph.graph_desc([y])
    assert (desc.InputCount, desc.OutputCount, len(desc.Nodes), len(desc.InputEdges), len(desc.IntermediateEdges)) == \
        (2, 1, 4, 2, 3)
    xs = np.array([[-1, -0.5, 0, 1], [2, 3, -4, np.inf]], np.float32)
    bs = np.array([0.25, -0.25, 0.5, -0.5], np.float32)
    [ys], line = dmlx.run_and_check(host, graph, [xs, bs], [y], "test")
    np.testing.assert_array_equal(ys, np.maximum(xs * 2 + 1, 0) + bs)
    assert "4 nodes ran as 1 dispatch" in line


# ---- examples/onnx_elementwise.py --------------------------------------------------------------------------
def test_onnx_example_without_the_packages_says_what_to_install():
    hidden = "import sys; sys.modules['onnx'] = sys.modules['onnxruntime'] = None"   # as if not installed
    out = run_example("onnx_elementwise.py", prelude=hidden)
    assert out == "examples/onnx_elementwise.py needs onnx and onnxruntime (onnx is missing): pip install -e '.[onnx]'\n"
    out = run_example("onnx_to_dml.py", prelude=hidden)
    assert out == "examples/onnx_to_dml.py needs the onnx package: pip install -e '.[onnx]'\n"


@pytest.fixture(scope="module")
def onnx_modules():
    onnx = pytest.importorskip("onnx")
    onnxruntime = pytest.importorskip("onnxruntime")
    import onnx_to_dml
    return onnx, onnxruntime, onnx_to_dml


def test_onnx_example_is_bit_exact_and_within_tolerance_of_onnx_runtime(onnx_modules):
    out = run_example("onnx_elementwise.py")
    lines = out.splitlines()
    assert lines[0] == ("ONNX model: 16 nodes (Abs, Add, Cast, Clip, Div, Exp, Greater, Mul, Neg, Relu, Sigmoid, "
                        "Sub, Tanh, Where), 6 initializers -> DML graph: 16 operator nodes, 4 constant nodes, "
                        "2 graph inputs")
    assert "bit-exact against dmlemu.golden (every node one by one)." in lines
    per_op = lines[lines.index("per operator against ONNX Runtime on the same inputs:") + 1]
    assert per_op == "  the same bits (-0 and +0 aside): Abs, Add, Cast, Clip, Div, Greater, Mul, Neg, Relu, Sub, Where"
    assert sum(line.startswith(("output w: within", "output z: within")) for line in lines) == 2


# ---- examples/onnx_to_dml.py ----------------------------------------------------------------------------------
def test_broadcast_strides_follow_numpy_broadcasting():
    from onnx_to_dml import broadcast_strides
    assert broadcast_strides([64], [4, 64]) == [0, 1]
    assert broadcast_strides([1, 64], [4, 64]) == [0, 1]
    assert broadcast_strides([4, 1], [4, 64]) == [1, 0]
    assert broadcast_strides([], [4, 64]) == [0, 0]
    assert broadcast_strides([3, 1, 5], [2, 3, 4, 5]) == [0, 5, 0, 1]
    for shape, out in (([3, 1, 5], [2, 3, 4, 5]), ([4, 1], [3, 4, 6]), ([6], [2, 6])):
        a = np.arange(int(np.prod(shape))).reshape(shape)
        view = np.lib.stride_tricks.as_strided(a, out, [s * a.itemsize for s in broadcast_strides(shape, out)])
        np.testing.assert_array_equal(view, np.broadcast_to(a, out))


HOST = {}   # one Host (D3D12 + DML device) shared by the converter tests that need no particular feature level


def _model(onnx, nodes, inputs, outputs, initializers=(), opset=17):
    from onnx import helper
    return helper.make_model(helper.make_graph(nodes, "test", inputs, outputs, list(initializers)),
                             opset_imports=[helper.make_opsetid("", opset)])


def _run_onnx(onnxruntime, model, feeds):
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def test_initializers_are_constant_nodes_from_6_2_and_graph_inputs_below(onnx_modules):
    onnx, onnxruntime, onnx_to_dml = onnx_modules
    from onnx import TensorProto, helper
    from dmlemu.directml import DML_FEATURE_LEVEL_6_1
    scale = np.array([0.5, -2.0, 3.0], np.float32)
    model = _model(onnx, [helper.make_node("Mul", ["x", "scale"], ["m"], name="mul"),
                          helper.make_node("Greater", ["m", "x"], ["g"], name="greater"),
                          helper.make_node("Exp", ["unused"], ["dead"], name="dead"),   # no output needs it
                          helper.make_node("Where", ["g", "m", "x"], ["y"], name="where")],
                   [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
                   [helper.make_tensor("scale", TensorProto.FLOAT, [3], scale),
                    helper.make_tensor("unused", TensorProto.FLOAT, [2], [1.0, 2.0])])
    xs = np.array([[1.5, -1.0, 2.0], [-3.0, 0.25, -0.5]], np.float32)
    [want] = _run_onnx(onnxruntime, model, {"x": xs})
    results = []
    for level, constants, inputs in ((None, 1, ["x"]), (DML_FEATURE_LEVEL_6_1, 0, ["x", "scale"])):
        host = dmlx.Host(level)
        converted = onnx_to_dml.convert(model, host.dml)
        assert len(converted.graph.constants) == constants and converted.input_names == inputs
        assert [n.name for n in converted.graph.nodes] == ["mul", "greater", "where"]   # "dead" and "unused" pruned
        mul = converted.graph.operator_desc(converted.graph.nodes[0]).Desc
        assert list(mul.BTensor.Desc.Sizes) == [2, 3] and list(mul.BTensor.Desc.Strides) == [0, 1]
        assert mul.BTensor.Desc.TotalTensorSizeInBytes == 12
        for fuse in (True, False):   # run_and_check exits unless the bits are the golden nodes' one by one
            [y], _ = dmlx.run_and_check(host, converted.graph, converted.inputs({"x": xs}), converted.outputs,
                                        "test", fuse=fuse)
            results.append(y)
    for y in results:   # Mul, Greater and Where are exact on both sides: the same bits as ONNX Runtime
        assert y.tobytes() == want.tobytes()


@settings(max_examples=scaled(6), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_broadcasting_binary_operators_match_onnx_runtime_bit_for_bit(onnx_modules, data):
    """Add, Sub, Mul and Div of an input and an initializer whose shapes broadcast (numpy's rule, either side
    smaller, leading dimensions missing): exact IEEE operations, so dmlemu's graph, the golden nodes one by
    one and ONNX Runtime agree bit for bit."""
    onnx, onnxruntime, onnx_to_dml = onnx_modules
    from onnx import TensorProto, helper
    out = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=4), label="output shape")

    def operand_shape(label):
        keep = data.draw(st.integers(0, len(out)), label=f"{label} rank")
        tail = out[len(out) - keep:]
        return [d if data.draw(st.booleans(), label=f"{label} keeps {i}") else 1 for i, d in enumerate(tail)]

    a_shape, b_shape = operand_shape("input"), operand_shape("initializer")
    if list(np.broadcast_shapes(tuple(a_shape), tuple(b_shape))) != out:
        a_shape = out   # the output shape must come out: the input takes it whole
    op = data.draw(st.sampled_from(["Add", "Sub", "Mul", "Div"]), label="operator")
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 16), label="seed"))
    a = rng.uniform(-8, 8, a_shape).astype(np.float32)
    b = (rng.uniform(0.5, 4, b_shape) * rng.choice([-1, 1], b_shape)).astype(np.float32)
    order = ["a", "b"] if data.draw(st.booleans(), label="input first") else ["b", "a"]
    model = _model(onnx, [helper.make_node(op, order, ["y"], name="op")],
                   [helper.make_tensor_value_info("a", TensorProto.FLOAT, a_shape)],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, out)],
                   [helper.make_tensor("b", TensorProto.FLOAT, b_shape, b.reshape(-1))])
    host = HOST.get("host") or HOST.setdefault("host", dmlx.Host())
    converted = onnx_to_dml.convert(model, host.dml, constants=data.draw(st.booleans(), label="constant node"))
    [y], _ = dmlx.run_and_check(host, converted.graph, converted.inputs({"a": a}), converted.outputs, "property")
    [want] = _run_onnx(onnxruntime, model, {"a": a})
    assert y.reshape(want.shape).tobytes() == want.tobytes()


def _refusal(onnx_modules, nodes, inputs=None, outputs=None, initializers=()):
    onnx, _, onnx_to_dml = onnx_modules
    from onnx import TensorProto, helper
    inputs = inputs or [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])]
    outputs = outputs or [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])]
    model = _model(onnx, nodes, inputs, outputs, initializers)
    host = HOST.get("host") or HOST.setdefault("host", dmlx.Host())
    with pytest.raises(onnx_to_dml.ConversionError) as error:
        onnx_to_dml.convert(model, host.dml)
    return str(error.value)


def test_the_converter_refuses_with_a_sentence(onnx_modules):
    from onnx import TensorProto, helper
    from onnx_to_dml import OPERATORS
    message = _refusal(onnx_modules, [helper.make_node("MatMul", ["x", "x"], ["y"], name="mm")])
    assert message == (f"node \"mm\" (MatMul) is not an element-wise operator this converter converts; it converts "
                       f"{', '.join(sorted(OPERATORS))} (ai.onnx domain)")
    bounds = [helper.make_tensor("lo", TensorProto.FLOAT, [], [3.0]),
              helper.make_tensor("hi", TensorProto.FLOAT, [], [1.0])]
    assert _refusal(onnx_modules, [helper.make_node("Clip", ["x", "lo", "hi"], ["y"], name="c")],
                    initializers=bounds) == (
        "node \"c\" (Clip) has min 3.0 > max 1.0; ONNX Runtime returns max there and DirectML's CLIP returns Min "
        "(NUMERICS.md), so the converter refuses it")
    nan = [helper.make_tensor("lo", TensorProto.FLOAT, [], [float("nan")])]
    assert "has a NaN bound (min nan, max inf)" in _refusal(
        onnx_modules, [helper.make_node("Clip", ["x", "lo"], ["y"], name="c")], initializers=nan)
    two = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
           helper.make_tensor_value_info("m", TensorProto.FLOAT, [])]
    assert _refusal(onnx_modules, [helper.make_node("Clip", ["x", "m"], ["y"], name="c")], inputs=two) == (
        "node \"c\" (Clip) reads its min from \"m\", which is no initializer; DirectML's CLIP takes Min and Max as "
        "numbers, so they must be constants")
    assert _refusal(onnx_modules, [helper.make_node("LeakyRelu", ["x"], ["y"], name="lr", beta=2.0)]) == (
        "node \"lr\" (LeakyRelu) has the attribute \"beta\", which the converter does not read; LeakyRelu takes "
        "alpha here")
    cast = helper.make_node("Cast", ["x"], ["y"], name="c", to=TensorProto.FLOAT, saturate=0)
    assert _refusal(onnx_modules, [cast]) == "node \"c\" (Cast) has saturate = 0; the converter reads only the " \
                                             "default 1"
    dynamic = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3])]
    assert _refusal(onnx_modules, [helper.make_node("Relu", ["x"], ["y"])], inputs=dynamic) == (
        "graph input \"x\" has no static shape; the converter needs every dimension as a number")
    double = [helper.make_tensor_value_info("x", TensorProto.DOUBLE, [2, 3])]
    assert _refusal(onnx_modules, [helper.make_node("Relu", ["x"], ["y"])], inputs=double).startswith(
        "graph input \"x\" has element type DOUBLE; the converter maps only FLOAT, FLOAT16, UINT8")
    passthrough = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])]
    assert _refusal(onnx_modules, [helper.make_node("Relu", ["x"], ["r"])], outputs=passthrough) == (
        "graph output \"x\" is a graph input or an initializer; a DirectML graph output comes from an operator node "
        "(put an Identity node in front of it)")
