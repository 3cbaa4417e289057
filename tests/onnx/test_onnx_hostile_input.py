"""Hostile ONNX models: dmlemu.onnx refuses with its documented error or runs as ONNX Runtime does (issue 30).

Two property tests, each noting how every input ended (bench/hostile_census.py, entry "dmlemu onnx"):
- files: random bytes, a valid model cut short or with bytes changed, special files; `convert` refuses with a
  ConversionError sentence (OSError for a missing path or a folder) or converts, and a converted model runs to
  what ONNX Runtime's CPU provider gives;
- nodes: one node of a common op with drawn shapes (empty dimensions included) and hostile attributes (negative,
  huge, wrong lengths); dmlemu refuses (ConversionError, a ValueError) or its outputs match ONNX Runtime's. A model
  ONNX Runtime refuses must not run here.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from dmlemu.onnx import ConversionError, convert, execute  # noqa: E402
from operator_cases import ACCEPTED, REFUSED, outcome, scaled  # noqa: E402

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck))


def _ort(model, feeds):
    """ONNX Runtime's outputs, or None where it refuses the model or its inputs. Where ONNX Runtime has no kernel
    for a valid node (NOT_IMPLEMENTED: Relu of opset 1), onnx's reference evaluator answers instead."""
    try:
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        return session.run(None, feeds)
    except Exception as error:      # ONNX Runtime's own error types (Fail, InvalidGraph, NotImplemented, ...)
        if "NOT_IMPLEMENTED" not in str(error):
            return None
    from onnx.reference import ReferenceEvaluator
    try:
        return ReferenceEvaluator(model).run(None, feeds)
    except Exception:
        return None


def _ours(model, feeds):
    """dmlemu's outputs, or None where it refuses with its documented error (ConversionError, or ValueError for
    inputs and shapes it names)."""
    try:
        return list(execute(model, feeds, adapter="teaching", timing=False).outputs.values())
    except (ConversionError, ValueError) as error:
        assert str(error) and "\n" not in str(error).strip(), error
        return None


def _agree(ours, theirs):
    assert theirs is not None, "dmlemu ran a model ONNX Runtime refuses"
    assert len(ours) == len(theirs)
    for got, want in zip(ours, theirs):
        want = np.asarray(want)
        assert got.shape == want.shape, (got.shape, want.shape)
        finite = np.abs(want[np.isfinite(want)]) if want.dtype.kind == "f" else np.abs(want)
        scale = max(1.0, float(finite.max())) if finite.size else 1.0
        # Where ONNX Runtime's CPU kernels give NaN (a NaN weight drawn by a byte change, say), DirectML's documented
        # NaN rules may give a number: RELU is maxNum (NaN -> 0), a convolution skips its padded taps (docs/NUMERICS.md).
        # Everywhere else the two agree, and a NaN of ours where ONNX Runtime has a number is a mismatch.
        keep = ~np.isnan(want) if want.dtype.kind == "f" else np.ones(want.shape, bool)
        assert np.allclose(got[keep], want[keep], rtol=1e-4, atol=1e-5 * scale, equal_nan=True), (got, want)


def _conv_model():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((2, 1, 3, 3)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]), helper.make_node("Relu", ["c"], ["y"])],
        "tiny", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 4, 4])], [numpy_helper.from_array(w, "w")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


VALID = _conv_model().SerializeToString()
X = np.linspace(-1, 1, 16, dtype=np.float32).reshape(1, 1, 4, 4)


@st.composite
def model_bytes(draw):
    kind = draw(st.sampled_from(["random", "cut", "changed", "changed", "empty"]))
    if kind == "random":
        return draw(st.binary(max_size=300))
    if kind == "cut":
        return VALID[:draw(st.integers(0, len(VALID) - 1))]
    if kind == "changed":
        data = bytearray(VALID)
        for _ in range(draw(st.integers(1, 4))):
            data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
        if draw(st.booleans()):     # and the opset (the model's last byte) another version: old ops' own rules
            data[-1] = draw(st.integers(1, 17))
        return bytes(data)
    return b""


@settings(max_examples=scaled(30), **SETTINGS)
@given(data=model_bytes())
def test_hostile_model_files_are_refused_with_a_sentence_or_run_as_onnxruntime_runs_them(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("m") / "model.onnx"
    path.write_bytes(data)
    try:
        converted = convert(path)
    except ConversionError as error:
        assert str(error).strip() and "\n" not in str(error).strip()
        outcome(REFUSED)
        return
    model = onnx.load(str(path))
    feeds = {name: (np.linspace(-1, 1, int(np.prod(shape)), dtype=np.float32).reshape(shape)
                    if list(shape) == [1, 1, 4, 4] else np.zeros(shape, np.float32))
             for name, (shape, _) in converted.model_inputs.items()}
    ours = _ours(model, feeds)
    if ours is None:
        outcome(REFUSED)
        return
    _agree(ours, _ort(model, feeds))
    outcome(ACCEPTED)


def test_special_files_and_folders_are_refused_before_reading(tmp_path):
    with pytest.raises(ConversionError, match="/dev/zero is not a regular file; an ONNX model is a .onnx file"):
        convert("/dev/zero")
    with pytest.raises(IsADirectoryError):
        convert(tmp_path)
    with pytest.raises(FileNotFoundError):
        convert(tmp_path / "missing.onnx")
    with pytest.raises(ConversionError, match="model is int; it must be a path or an onnx.ModelProto"):
        convert(7)


HOSTILE_INTS = st.one_of(st.integers(-3, 5), st.sampled_from([-(1 << 63), -(1 << 31), 1 << 31, (1 << 63) - 1]))


def _ints(draw, n):
    """A list of n drawn ints, sometimes of a wrong length (never empty: onnx.helper cannot type an empty list)."""
    length = draw(st.sampled_from([n, n, n, n + 1, max(1, n - 1)]))
    return [draw(HOSTILE_INTS) for _ in range(length)]


@st.composite
def one_node(draw):
    op = draw(st.sampled_from(["Conv", "MaxPool", "AveragePool", "Softmax", "Transpose", "Flatten", "ReduceSum",
                               "Gemm", "Concat", "Clip", "LeakyRelu", "Gather", "Slice"]))
    rank = 4 if op in ("Conv", "MaxPool", "AveragePool") else draw(st.integers(1 if op not in ("Gemm",) else 2,
                                                                                 4 if op != "Gemm" else 2))
    shape = [draw(st.integers(0 if draw(st.booleans()) and op not in ("Conv", "MaxPool", "AveragePool") else 1, 4))
             for _ in range(rank)]
    inputs, inits, attrs = ["x"], [], {}
    if op == "Conv":
        k = draw(st.integers(1, 3))
        out = draw(st.integers(1, 3))
        inits.append(numpy_helper.from_array(np.ones((out, shape[1], k, k), np.float32) * 0.5, "w"))
        inputs.append("w")
        attrs = dict(pads=_ints(draw, 4), strides=_ints(draw, 2), dilations=_ints(draw, 2))
        if draw(st.booleans()):
            attrs["group"] = draw(HOSTILE_INTS)
    elif op in ("MaxPool", "AveragePool"):
        attrs = dict(kernel_shape=_ints(draw, 2), pads=_ints(draw, 4), strides=_ints(draw, 2))
    elif op in ("Softmax", "Flatten", "Concat", "Gather"):
        attrs = dict(axis=draw(HOSTILE_INTS))
        if op == "Concat":
            inputs.append("x")
        if op == "Gather":
            inits.append(numpy_helper.from_array(np.array(_ints(draw, 2), np.int64), "i"))
            inputs.append("i")
    elif op == "Transpose":
        attrs = dict(perm=_ints(draw, rank))
    elif op == "ReduceSum":
        inits.append(numpy_helper.from_array(np.array(_ints(draw, 1), np.int64), "axes"))
        inputs.append("axes")
        attrs = dict(keepdims=draw(st.integers(-1, 2)))
    elif op == "Gemm":
        inits.append(numpy_helper.from_array(np.ones((shape[1], 3), np.float32), "b"))
        inputs.append("b")
        attrs = dict(transA=draw(st.integers(-1, 2)), alpha=draw(st.sampled_from([1.0, -0.5, float("inf")])))
    elif op == "Clip":
        for name, value in (("lo", draw(st.sampled_from([-1.0, 1.0, float("nan")]))), ("hi", 0.5)):
            inits.append(numpy_helper.from_array(np.array(value, np.float32), name))
            inputs.append(name)
    elif op == "LeakyRelu":
        attrs = dict(alpha=draw(st.sampled_from([0.1, -2.0, float("nan"), 1e39])))
    elif op == "Slice":
        for name in ("starts", "ends", "axes", "steps"):
            inits.append(numpy_helper.from_array(np.array(_ints(draw, 1), np.int64), name))
            inputs.append(name)
    node = helper.make_node(op, inputs, ["y"], **attrs)
    graph = helper.make_graph([node], "one", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    x = np.linspace(-2, 2, max(1, int(np.prod(shape))), dtype=np.float32)[:int(np.prod(shape))].reshape(shape)
    return model, {"x": x}


@settings(max_examples=scaled(20), **SETTINGS)
@given(case=one_node())
def test_hostile_node_attributes_are_refused_with_a_sentence_or_match_onnxruntime(case):
    model, feeds = case
    ours = _ours(model, feeds)
    if ours is None:
        outcome(REFUSED)
        return
    _agree(ours, _ort(model, feeds))
    outcome(ACCEPTED)


@pytest.mark.parametrize("indices, refused", [([0, 1], "its index 1"), ([-2, 0], "its index -2"), ([0, -1], None)])
def test_a_gather_by_constant_out_of_range_indices_is_refused(indices, refused):
    """ONNX makes an index outside [-s, s - 1] an error (ONNX Runtime fails at run time); DirectML's GATHER would read
    0. Indices the model holds as an initializer are checked when it is converted (found by the long census)."""
    graph = helper.make_graph([helper.make_node("Gather", ["x", "i"], ["y"], axis=0)], "one",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [numpy_helper.from_array(np.array(indices, np.int64), "i")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    feeds = {"x": np.array([[-2.0]], np.float32)}
    if refused is None:
        _agree(_ours(model, feeds), _ort(model, feeds))
        return
    with pytest.raises(ConversionError) as error:
        execute(model, feeds, adapter="teaching", timing=False)
    assert refused in str(error.value) and "outside axis 0's range [-1, 0]" in str(error.value), str(error.value)


def test_a_graph_output_without_an_element_type_is_refused():
    """A byte change can set a graph output's elem_type to 0 (UNDEFINED): ONNX Runtime refuses the model, and so does
    the converter, with a sentence (found by the long census)."""
    model = _conv_model()
    model.graph.output[0].type.tensor_type.elem_type = 0
    assert _ort(model, {"x": X}) is None
    with pytest.raises(ConversionError, match="graph output \"y\" declares element type 0 \\(UNDEFINED\\)"):
        convert(model)


def test_a_nan_weight_agrees_with_onnxruntime_where_it_gives_numbers():
    """A NaN weight (a byte change of the initializer, found by the long census): ONNX Runtime's CPU Conv + Relu
    give NaN where DirectML's maxNum RELU gives 0; every other element agrees."""
    model = _conv_model()
    w = numpy_helper.to_array(model.graph.initializer[0]).copy()
    w[0, 0, 1, 1] = np.nan
    model.graph.initializer[0].CopyFrom(numpy_helper.from_array(w, "w"))
    ours, theirs = _ours(model, {"x": X}), _ort(model, {"x": X})
    assert np.isnan(np.asarray(theirs[0])[0, 0]).all() and (ours[0][0, 0] == 0).all()   # maxNum(NaN, 0) = 0
    _agree(ours, theirs)


@pytest.mark.parametrize("perm", [[0], [0, 0], [1, 2], [0, 1, 2]])
def test_a_transpose_whose_perm_is_no_permutation_of_the_axes_is_refused(perm):
    """ONNX Runtime refuses a Transpose whose perm is not a permutation of the input's axes (a perm of [0] on a 1 x 1
    input, found by the long census); so does the converter, with a sentence."""
    graph = helper.make_graph([helper.make_node("Transpose", ["x"], ["y"], perm=perm)], "one",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    assert _ort(model, {"x": np.array([[-2.0]], np.float32)}) is None
    with pytest.raises(ConversionError) as error:   # onnx.shape_inference names the others; [0] passes it
        convert(model)
    assert perm != [0] or "its perm [0] is not a permutation of the input's 2 axes (0 to 1)" in str(error.value)


@pytest.mark.parametrize("attrs, refused", [
    (dict(kernel_shape=[1, 1], pads=[0, 0, 0, 1]), "are not all smaller than its kernel_shape [1, 1]"),
    (dict(kernel_shape=[1, 3], pads=[0, 0, 0, 0]), "is larger than the padded input [1, 1]")])
def test_a_pooling_window_that_sees_only_padding_or_overhangs_the_input_is_refused(attrs, refused):
    """MaxPool on a 1 x 1 image with a pad as large as its window (ONNX Runtime refuses it), or a window wider than the
    padded input (a negative output size): a sentence, not a NaN output or an HResultError (found by the long census)."""
    graph = helper.make_graph([helper.make_node("MaxPool", ["x"], ["y"], strides=[1, 1], **attrs)], "one",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 1, 1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(ConversionError) as error:
        convert(model)
    assert refused in str(error.value) or "shape_inference" in str(error.value), str(error.value)


def test_an_op_version_onnx_infers_no_shapes_for_is_refused_not_run_to_its_declared_shape():
    """The long census's byte-changed Conv model (opset 17 -> 1, the Conv's bottom pad 1 -> 2): onnx has no shape rule
    for Relu-1, so strict inference kept the output's declared 1 x 2 x 4 x 4, and the Relu fused into the Conv shrank
    the Conv's end padding to fit, where the model computes 1 x 2 x 5 x 4 (ONNX Runtime has no Relu-1 kernel; onnx's
    reference evaluator gives 5 x 4). The converter refuses a node whose version onnx infers no shapes for."""
    data = bytearray(VALID)
    assert data[213] == 17 and data[32:36] == bytes([0x40, 1, 0x40, 1])   # the opset's version, the pads' 2nd value
    data[213], data[35] = 1, 2              # opset 1; pads [1, 1, 2, 1]
    model = onnx.load_from_string(bytes(data))
    assert list(model.graph.node[0].attribute[0].ints) == [1, 1, 2, 1] and model.opset_import[0].version == 1
    with pytest.raises(Exception, match="NOT_IMPLEMENTED"):
        ort.InferenceSession(bytes(data), providers=["CPUExecutionProvider"])
    assert np.shape(_ort(model, {"x": X})[0]) == (1, 2, 5, 4)
    with pytest.raises(ConversionError) as error:
        convert(model)
    assert str(error.value) == (
        'node "Relu_1" (Relu) cannot be converted: onnx.shape_inference has no rule for Relu-1 (the version opset 1 '
        "selects), so its outputs' declared shapes could not be checked against its inputs; the converter converts "
        "the versions whose shapes onnx infers (ONNX Runtime supports opset 7 and later)")
    model.opset_import[0].version = 17      # the same pads at opset 17: inference finds the declared shape wrong
    with pytest.raises(ConversionError, match="onnx.shape_inference refused the model"):
        convert(model)


def test_a_graph_output_that_is_a_graph_input_keeps_the_inputs_shape():
    """A byte change renames the graph output "y" to "x", the graph input, with the output's declared 1 x 2 x 4 x 4:
    ONNX Runtime feeds and returns x as the input declares it (1 x 1 x 4 x 4); the converter took the output's
    declaration for the input's, so a 1 x 1 x 4 x 4 feed was refused (found searching the byte changes)."""
    data = bytearray(VALID)
    assert data[179:183] == bytes([0x62, 0x1B, 0x0A, 0x01]) and data[183] == ord("y")   # graph output 1, its name
    data[183] = ord("x")
    model = onnx.load_from_string(bytes(data))
    assert [o.name for o in model.graph.output] == ["x"]
    converted = convert(model)
    assert converted.model_inputs == {"x": ([1, 1, 4, 4], TensorProto.FLOAT)}
    ours, theirs = _ours(model, {"x": X}), _ort(model, {"x": X})
    _agree(ours, theirs)
    assert np.array_equal(ours[0], X)
