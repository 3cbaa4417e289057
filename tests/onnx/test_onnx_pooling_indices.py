"""ONNX MaxPool's Indices output and MaxUnpool through the converters (emulator/onnx/converters.py: MAX_POOLING1,
MAX_POOLING2 + CAST, MAX_UNPOOLING, PADDING1) beyond the wheel's node cases: 1-D and 3-D windows, storage_order 1,
dilations, a MaxPool feeding a MaxUnpool, bit for bit against ONNX's reference evaluator and the golden model; the
refusals are sentences."""
import numpy as np
import pytest

pytest.importorskip("onnx")

from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

from dmlemu.onnx import ConversionError, execute, run  # noqa: E402

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def _model(nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(nodes, "pool", [helper.make_tensor_value_info(*i) for i in inputs],
                              [helper.make_tensor_value_info(*o) for o in outputs], list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _check(model, feeds):
    """dmlemu's outputs equal the reference evaluator's exactly, and the DML nodes' golden model's bit for bit."""
    want = ReferenceEvaluator(model).run(None, feeds)
    result = execute(model, feeds, check_golden=True, timing=False)
    assert result.differing == []
    for (name, got), expected in zip(result.outputs.items(), want):
        assert got.dtype == expected.dtype and np.array_equal(got, expected), (name, got, expected)


@pytest.mark.parametrize("shape, kernel, extra", [
    ([1, 2, 9], [3], dict(strides=[2], pads=[1, 1])),
    ([2, 2, 5, 6], [2, 3], dict(storage_order=1, strides=[1, 2], pads=[1, 0, 0, 1])),
    ([1, 2, 6, 7], [2, 2], dict(dilations=[2, 1], storage_order=1)),
    ([1, 2, 4, 5, 3], [2, 2, 2], dict(storage_order=1, strides=[1, 2, 1])),
    ([1, 1, 5, 4, 4], [2, 1, 2], dict(dilations=[1, 2, 2])),
])
def test_maxpool_indices_match_the_reference(shape, kernel, extra):
    rng = np.random.default_rng(len(shape) + kernel[0])
    x = rng.permutation(int(np.prod(shape))).astype(np.float32).reshape(shape)     # no ties: one right index
    node = helper.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=kernel, **extra)
    model = _model([node], [("x", F, shape)], [("y", F, None), ("i", I64, None)])
    _check(model, {"x": x})


def test_maxpool_then_maxunpool_puts_the_maxima_back():
    x = np.random.default_rng(1).permutation(2 * 3 * 6 * 4).astype(np.float32).reshape(2, 3, 6, 4)
    nodes = [helper.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("MaxUnpool", ["y", "i"], ["z"], kernel_shape=[2, 2], strides=[2, 2])]
    model = _model(nodes, [("x", F, [2, 3, 6, 4])], [("z", F, None)])
    _check(model, {"x": x})


def test_a_1d_maxunpool_and_an_output_shape_past_the_unpooled_one():
    x = np.array([[[4.0, -0.0, 7.0]]], np.float32)
    indices = np.array([[[1, 2, 4]]], np.int64)
    shape = helper.make_tensor("shape", I64, [3], [1, 1, 9])
    node = helper.make_node("MaxUnpool", ["x", "i", "shape"], ["z"], kernel_shape=[2], strides=[2], pads=[0, 1])
    model = _model([node], [("x", F, [1, 1, 3]), ("i", I64, [1, 1, 3])], [("z", F, [1, 1, 9])], [shape])
    _check(model, {"x": x, "i": indices})
    (z,) = run(model, {"x": x, "i": indices}, timing=False).values()
    assert z.view(np.uint32).ravel().tolist() == [0, 0x40800000, 0x80000000, 0, 0x40E00000, 0, 0, 0, 0]


def test_a_3d_maxunpool_is_refused_with_a_sentence():
    node = helper.make_node("MaxUnpool", ["x", "i"], ["z"], kernel_shape=[2, 2, 2], strides=[2, 2, 2], name="up")
    model = _model([node], [("x", F, [1, 1, 2, 2, 2]), ("i", I64, [1, 1, 2, 2, 2])], [("z", F, None)])
    feeds = {"x": np.ones((1, 1, 2, 2, 2), np.float32), "i": np.zeros((1, 1, 2, 2, 2), np.int64)}
    with pytest.raises(ConversionError, match=r'^node "up" \(MaxUnpool\) cannot be converted: its input has 5 '
                                              r'dimensions; DirectML\'s MAX_UNPOOLING takes 4'):
        run(model, feeds, timing=False)
