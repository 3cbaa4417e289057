"""ONNX TopK through dmlemu.onnx: a classifier head (MatMul, Softmax, TopK, a Gather of the picked rows) bit for bit
against the DML nodes one by one through dmlemu.golden and against ONNX Runtime's CPU provider (the same indices,
values within 1e-6), the TOP_K1 node's desc, and the refusals' sentences."""
import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
onnxruntime = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper  # noqa: E402

from dmlemu.onnx import ConversionError, convert, execute  # noqa: E402


def _head(k=3, largest=1, k_source="initializer"):
    """x [4, 10] -> MatMul W [10, 16] -> Softmax -> TopK (k, axis -1) -> values, indices; Gather(table [16, 5],
    indices) -> rows [4, k, 5]."""
    rng = np.random.default_rng(4)
    f = TensorProto.FLOAT
    nodes = [helper.make_node("MatMul", ["x", "w"], ["logits"], name="logits"),
             helper.make_node("Softmax", ["logits"], ["p"], name="softmax", axis=-1),
             helper.make_node("TopK", ["p", "k"], ["values", "indices"], name="top_k", axis=-1, largest=largest),
             helper.make_node("Gather", ["table", "indices"], ["rows"], name="rows", axis=0)]
    inits = [helper.make_tensor("w", f, [10, 16], rng.standard_normal((10, 16)).astype(np.float32).ravel()),
             helper.make_tensor("table", f, [16, 5], rng.standard_normal((16, 5)).astype(np.float32).ravel())]
    inputs = [helper.make_tensor_value_info("x", f, [4, 10])]
    if k_source == "initializer":
        inits.append(helper.make_tensor("k", TensorProto.INT64, [1], [k]))
    else:
        inputs.append(helper.make_tensor_value_info("k", TensorProto.INT64, [1]))
    outputs = [helper.make_tensor_value_info("values", f, [4, k]),
               helper.make_tensor_value_info("indices", TensorProto.INT64, [4, k]),
               helper.make_tensor_value_info("rows", f, [4, k, 5])]
    graph = helper.make_graph(nodes, "head", inputs, outputs, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("largest", [1, 0])
def test_a_classifier_head_with_top_k_matches_golden_and_onnxruntime(largest):
    model = _head(largest=largest)
    feeds = {"x": np.random.default_rng(8).standard_normal((4, 10)).astype(np.float32)}
    result = execute(model, feeds, timing=False, check_golden=True)
    assert result.differing == []
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = dict(zip(["values", "indices", "rows"], session.run(None, feeds)))
    assert result.outputs["indices"].dtype == np.int64
    assert np.array_equal(result.outputs["indices"], expected["indices"])
    np.testing.assert_allclose(result.outputs["values"], expected["values"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(result.outputs["rows"], expected["rows"], rtol=0, atol=0)


def test_top_k_is_one_top_k1_node_with_uint64_indices():
    converted = convert(_head(k=2, largest=0))
    (node,) = [n for n in converted.graph.nodes if n.operator == "TOP_K1"]
    assert node.fields["Axis"] == 1 and node.fields["K"] == 2 and int(node.fields["AxisDirection"]) == 0
    assert [spec[1] for _, spec in node.output_specs()] == ["FLOAT32", "UINT64"]


def test_a_computed_or_out_of_range_k_is_refused_with_a_sentence():
    with pytest.raises(ConversionError, match=r'node "top_k" \(TopK\) cannot be converted: its K comes from "k", '
                                              r'which is computed'):
        convert(_head(k_source="input"))
    with pytest.raises(ConversionError, match=r'node "top_k" \(TopK\) cannot be converted: K is 0; TOP_K1 selects '
                                              r'1 to 16 elements along axis 1 \(DirectML sizes are not 0\)'):
        convert(_head(k=0))     # (a K past the axis is onnx.shape_inference's refusal, before the converter's)
