"""The converters for operators main does not run yet (convolution, pooling, softmax, normalization, data
movement) build the desc DirectML.h defines: every field, by its name, with the values ONNX Runtime's
DirectML provider would put there. Conversion only (no GPU work). Where the mirror defines the struct by
the time this runs, its own field list is the reference; until then DIRECTML_H below is (the field lists
of DirectML.h's DML_*_OPERATOR_DESC, in C order)."""
import numpy as np
import pytest

pytest.importorskip("onnx")

from onnx import TensorProto, helper  # noqa: E402

from dmlemu.onnx import convert, models  # noqa: E402
from dmlemu.onnx.dml_graph import PendingDesc, desc_struct  # noqa: E402

DIRECTML_H = {
    "CONVOLUTION": ("InputTensor", "FilterTensor", "BiasTensor", "OutputTensor", "Mode", "Direction", "DimensionCount",
                    "Strides", "Dilations", "StartPadding", "EndPadding", "OutputPadding", "GroupCount",
                    "FusedActivation"),
    "MAX_POOLING": ("InputTensor", "OutputTensor", "DimensionCount", "Strides", "WindowSize", "StartPadding",
                    "EndPadding"),
    "MAX_POOLING2": ("InputTensor", "OutputTensor", "OutputIndicesTensor", "DimensionCount", "Strides", "WindowSize",
                     "StartPadding", "EndPadding", "Dilations"),
    "AVERAGE_POOLING": ("InputTensor", "OutputTensor", "DimensionCount", "Strides", "WindowSize", "StartPadding",
                        "EndPadding", "IncludePadding"),
    "AVERAGE_POOLING1": ("InputTensor", "OutputTensor", "DimensionCount", "Strides", "WindowSize", "StartPadding",
                         "EndPadding", "Dilations", "IncludePadding"),
    "ACTIVATION_SOFTMAX1": ("InputTensor", "OutputTensor", "AxisCount", "Axes"),
    "ACTIVATION_LOG_SOFTMAX1": ("InputTensor", "OutputTensor", "AxisCount", "Axes"),
    "MEAN_VARIANCE_NORMALIZATION1": ("InputTensor", "ScaleTensor", "BiasTensor", "OutputTensor", "AxisCount", "Axes",
                                     "NormalizeVariance", "Epsilon", "FusedActivation"),
    "BATCH_NORMALIZATION": ("InputTensor", "MeanTensor", "VarianceTensor", "ScaleTensor", "BiasTensor", "OutputTensor",
                            "Spatial", "Epsilon", "FusedActivation"),
    "LOCAL_RESPONSE_NORMALIZATION": ("InputTensor", "OutputTensor", "CrossChannel", "LocalSize", "Alpha", "Beta",
                                     "Bias"),
    "LP_NORMALIZATION": ("InputTensor", "OutputTensor", "Axis", "Epsilon", "P"),
    "JOIN": ("InputCount", "InputTensors", "OutputTensor", "Axis"),
    "SPLIT": ("InputTensor", "OutputCount", "OutputTensors", "Axis"),
    "SLICE1": ("InputTensor", "OutputTensor", "DimensionCount", "InputWindowOffsets", "InputWindowSizes",
               "InputWindowStrides"),
    "PADDING1": ("InputTensor", "OutputTensor", "PaddingMode", "PaddingValueDataType", "PaddingValue",
                 "DimensionCount", "StartPadding", "EndPadding"),
    "GATHER": ("InputTensor", "IndicesTensor", "OutputTensor", "Axis", "IndexDimensions"),
    "RESAMPLE1": ("InputTensor", "OutputTensor", "InterpolationMode", "DimensionCount", "Scales", "InputPixelOffsets",
                  "OutputPixelOffsets"),
    "TILE": ("InputTensor", "OutputTensor", "RepeatsCount", "Repeats"),
    "CUMULATIVE_SUMMATION": ("InputTensor", "OutputTensor", "Axis", "AxisDirection", "HasExclusiveSum"),
    "GATHER_ELEMENTS": ("InputTensor", "IndicesTensor", "OutputTensor", "Axis"),
    "GATHER_ND1": ("InputTensor", "IndicesTensor", "OutputTensor", "InputDimensionCount", "IndicesDimensionCount",
                   "BatchDimensionCount"),
    "SPACE_TO_DEPTH1": ("InputTensor", "OutputTensor", "BlockSize", "Order"),
    "DEPTH_TO_SPACE1": ("InputTensor", "OutputTensor", "BlockSize", "Order"),
    "ACTIVATION_HARDMAX1": ("InputTensor", "OutputTensor", "AxisCount", "Axes"),
}

F = TensorProto.FLOAT


def _model(nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(nodes, "pending", [helper.make_tensor_value_info(*i) for i in inputs],
                              [helper.make_tensor_value_info(*o) for o in outputs], list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _i64(name, values):
    return helper.make_tensor(name, TensorProto.INT64, [len(values)], values)


def _fields(node):
    desc = node.operator_desc().Desc
    if isinstance(desc, PendingDesc):
        return {k: v for k, v in vars(desc).items() if k != "struct_name"}
    return {f: getattr(desc, f) for f in type(desc)._fields_}


def _check_fields(node):
    struct = desc_struct(node.operator)
    expected = struct._fields_ if struct is not None else DIRECTML_H[node.operator]
    assert set(_fields(node)) == set(expected), node.operator


def _sizes(tensor):
    return list(tensor.Desc.Sizes)


def test_the_mnist_cnn_becomes_convolutions_with_folded_batch_normalization_and_fused_relus():
    nodes = convert(models.mnist_cnn()).graph.nodes
    assert [(n.name, n.operator) for n in nodes] == [
        ("conv1+relu1", "CONVOLUTION"), ("pool1", "MAX_POOLING"), ("conv2+bn2+relu2", "CONVOLUTION"),
        ("pool2", "AVERAGE_POOLING"), ("gap", "AVERAGE_POOLING"), ("fc", "GEMM"), ("softmax", "ACTIVATION_SOFTMAX1")]
    for node in nodes:
        _check_fields(node)
    conv1 = _fields(nodes[0])
    assert conv1["StartPadding"] == [2, 2] and conv1["EndPadding"] == [2, 2] and conv1["GroupCount"] == 1
    assert conv1["FusedActivation"].Desc.__class__.__name__ == "DML_ACTIVATION_RELU_OPERATOR_DESC"
    assert _sizes(conv1["BiasTensor"]) == [1, 8, 1, 1]
    gap = _fields(nodes[4])
    assert gap["WindowSize"] == [5, 5] and _sizes(gap["OutputTensor"]) == [1, 16, 1, 1]
    assert _fields(nodes[6])["Axes"] == [1]


def test_conv_batch_normalization_folding_scales_the_weights_as_onnxruntime_does():
    model = models.mnist_cnn()
    weights = {t.name: t for t in model.graph.initializer}
    from onnx import numpy_helper
    w = numpy_helper.to_array(weights["conv2.weight"]).astype(np.float64)
    scale, bias, mean, var = (numpy_helper.to_array(weights[f"bn2.{n}"]).astype(np.float64)
                              for n in ("scale", "bias", "mean", "var"))
    converted = convert(model)
    folded = {name: array for name, _, array in converted.graph.inputs if array is not None}
    factor = scale / np.sqrt(var + 1e-5)
    assert np.array_equal(folded["conv2.W_bn"], (w * factor.reshape(-1, 1, 1, 1)).astype(np.float32))
    assert np.array_equal(folded["conv2.B_bn"], ((0.0 - mean) * factor + bias).astype(np.float32))


@pytest.mark.parametrize("name", ["bert_block", "gpt_block"])
def test_the_transformer_blocks_convert_to_gemm_softmax_and_mean_variance_normalization(name):
    nodes = convert(models.MODELS[name][0]()).graph.nodes
    operators = {n.operator for n in nodes}
    assert {"GEMM", "ACTIVATION_SOFTMAX1", "MEAN_VARIANCE_NORMALIZATION1"} <= operators
    for node in nodes:
        _check_fields(node)
    [layer_norm] = [n for n in nodes if n.name == "ln1"]
    ln = _fields(layer_norm)
    assert ln["Axes"] == [2] and ln["NormalizeVariance"] is True and _sizes(ln["ScaleTensor"]) == [1, 16, 64]
    assert list(ln["ScaleTensor"].Desc.Strides) == [0, 0, 1]          # the [64] scale broadcast by strides


CASES = {
    "ConvTranspose": (_model([helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="n", strides=[2, 2],
                                               pads=[1, 1, 1, 1], output_padding=[1, 1])],
                             [("x", F, [1, 4, 5, 5])], [("y", F, [1, 2, 10, 10])],
                             [helper.make_tensor("w", F, [4, 2, 3, 3], np.zeros(72, np.float32))]),
                      {"Direction": 1, "Strides": [2, 2], "StartPadding": [1, 1], "EndPadding": [1, 1],
                       "OutputPadding": [1, 1]}),
    "MaxPool": (_model([helper.make_node("MaxPool", ["x"], ["y", "i"], name="n", kernel_shape=[3, 3], strides=[2, 2],
                                         ceil_mode=1)],
                       [("x", F, [1, 2, 6, 6])], [("y", F, [1, 2, 3, 3]), ("i", TensorProto.INT64, [1, 2, 3, 3])]),
                {"Strides": [2, 2], "WindowSize": [3, 3], "StartPadding": [0, 0], "EndPadding": [1, 1]}),
    "Concat": (_model([helper.make_node("Concat", ["a", "b"], ["y"], name="n", axis=-1)],
                      [("a", F, [2, 3]), ("b", F, [2, 4])], [("y", F, [2, 7])]), {"Axis": 1, "InputCount": 2}),
    "Split": (_model([helper.make_node("Split", ["x", "s"], ["a", "b"], name="n", axis=1)],
                     [("x", F, [2, 7])], [("a", F, [2, 3]), ("b", F, [2, 4])], [_i64("s", [3, 4])]),
              {"Axis": 1, "OutputCount": 2}),
    "Slice": (_model([helper.make_node("Slice", ["x", "st", "en", "ax", "sp"], ["y"], name="n")],
                     [("x", F, [4, 10])], [("y", F, [4, 3])],
                     [_i64("st", [-1]), _i64("en", [-8]), _i64("ax", [1]), _i64("sp", [-3])]),
              # elements 9, 6, 3: the window {3 .. 9} read from its far end every 3
              {"InputWindowOffsets": [0, 3], "InputWindowStrides": [1, -3], "InputWindowSizes": [4, 7]}),
    "Pad": (_model([helper.make_node("Pad", ["x", "p"], ["y"], name="n", mode="reflect")],
                   [("x", F, [2, 3])], [("y", F, [4, 6])], [_i64("p", [1, 2, 1, 1])]),
            {"PaddingMode": 2, "StartPadding": [1, 2], "EndPadding": [1, 1], "DimensionCount": 2}),
    "Gather": (_model([helper.make_node("Gather", ["x", "i"], ["y"], name="n", axis=0)],
                      [("x", F, [10, 4]), ("i", TensorProto.INT64, [2, 3])], [("y", F, [2, 3, 4])]),
               {"Axis": 1, "IndexDimensions": 2}),
    "Resize": (_model([helper.make_node("Resize", ["x", "", "s"], ["y"], name="n", mode="linear")],
                      [("x", F, [1, 1, 2, 3])], [("y", F, [1, 1, 4, 6])],
                      [helper.make_tensor("s", F, [4], [1, 1, 2, 2])]),
               {"InterpolationMode": 1, "Scales": [1.0, 1.0, 2.0, 2.0], "InputPixelOffsets": [0.5] * 4,
                "OutputPixelOffsets": [-0.5] * 4}),
    "Tile": (_model([helper.make_node("Tile", ["x", "r"], ["y"], name="n")], [("x", F, [2, 3])], [("y", F, [4, 9])],
                    [_i64("r", [2, 3])]), {"Repeats": [2, 3], "RepeatsCount": 2}),
    "CumSum": (_model([helper.make_node("CumSum", ["x", "a"], ["y"], name="n", reverse=1, exclusive=1)],
                      [("x", F, [2, 3])], [("y", F, [2, 3])], [_i64("a", [-1])]),
               {"Axis": 1, "AxisDirection": 1, "HasExclusiveSum": True}),
    "LRN": (_model([helper.make_node("LRN", ["x"], ["y"], name="n", size=5, alpha=2e-4)],
                   [("x", F, [1, 8, 4, 4])], [("y", F, [1, 8, 4, 4])]),
            {"CrossChannel": True, "LocalSize": 5, "Alpha": 2e-4, "Beta": 0.75, "Bias": 1.0}),
    "InstanceNormalization": (_model([helper.make_node("InstanceNormalization", ["x", "s", "b"], ["y"], name="n")],
                                     [("x", F, [2, 3, 4, 4]), ("s", F, [3]), ("b", F, [3])], [("y", F, [2, 3, 4, 4])]),
                              {"Axes": [2, 3], "NormalizeVariance": True, "Epsilon": 1e-5}),
    "GatherND": (_model([helper.make_node("GatherND", ["x", "i"], ["y"], name="n")],
                        [("x", F, [2, 3, 4]), ("i", TensorProto.INT64, [5, 2])], [("y", F, [5, 4])]),
                 {"InputDimensionCount": 3, "IndicesDimensionCount": 2, "BatchDimensionCount": 0}),
    "GatherElements": (_model([helper.make_node("GatherElements", ["x", "i"], ["y"], name="n", axis=-1)],
                              [("x", F, [2, 3]), ("i", TensorProto.INT64, [2, 2])], [("y", F, [2, 2])]), {"Axis": 1}),
    "DepthToSpace": (_model([helper.make_node("DepthToSpace", ["x"], ["y"], name="n", blocksize=2, mode="CRD")],
                            [("x", F, [1, 8, 2, 2])], [("y", F, [1, 2, 4, 4])]), {"BlockSize": 2, "Order": 1}),
    "SpaceToDepth": (_model([helper.make_node("SpaceToDepth", ["x"], ["y"], name="n", blocksize=2)],
                            [("x", F, [1, 2, 4, 4])], [("y", F, [1, 8, 2, 2])]), {"BlockSize": 2, "Order": 0}),
    "Hardmax": (_model([helper.make_node("Hardmax", ["x"], ["y"], name="n")],
                       [("x", F, [2, 3])], [("y", F, [2, 3])]), {"Axes": [1], "AxisCount": 1}),
    "LogSoftmax": (_model([helper.make_node("LogSoftmax", ["x"], ["y"], name="n", axis=1)],
                          [("x", F, [2, 3, 4])], [("y", F, [2, 3, 4])]), {"Axes": [1], "AxisCount": 1}),
}


@pytest.mark.parametrize("op", sorted(CASES))
def test_a_pending_converter_fills_every_field_of_its_desc(op):
    model, expected = CASES[op]
    [node] = convert(model).graph.nodes
    _check_fields(node)
    fields = _fields(node)
    for field, value in expected.items():
        got = fields[field]
        if isinstance(value, float) or (isinstance(value, list) and value and isinstance(value[0], float)):
            got, value = np.float32(got).tolist(), np.float32(value).tolist()     # FLOAT fields hold float32
        assert got == value, (op, field, got)
