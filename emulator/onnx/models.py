"""Models built offline with onnx.helper, weights from a seeded generator (no downloads): what the tests,
the bench (bench/bench_onnx.py) and `dmlemu onnx` on a file share.

    mlp()            MNIST-style MLP: Flatten, MatMul + Add + Relu twice, MatMul + Add, ReduceMax and ArgMax
                     (runs on what main has: GEMM, element-wise, REDUCE, ARGMAX)
    gemm_mlp()       the same layers as Gemm nodes (transB, bias C) with fused Relu; Sigmoid head
    mnist_cnn()      Conv + Relu, MaxPool, Conv + BatchNormalization + Relu, GlobalAveragePool, Flatten, Gemm,
                     Softmax (needs CONVOLUTION, pooling, BATCH_NORMALIZATION, SOFTMAX)
    bert_block()     one encoder layer: Q/K/V MatMuls, Reshape/Transpose heads, scaled scores, Softmax, the
                     context, LayerNormalization, a GELU-free Erf feed-forward (needs SOFTMAX, MVN)
    gpt_block()      one decoder layer: LayerNormalization first, causal mask through Where, Softmax,
                     residuals, a Tanh-GELU feed-forward (needs SOFTMAX, MVN)

`light_models()` lists the onnx wheel's model-zoo graphs (onnx/backend/test/data/light/: AlexNet, DenseNet-121,
Inception v1 / v2, ResNet-50, ShuffleNet, SqueezeNet, VGG-19, ZFNet-512) and `reseeded(path, seed)` loads one with
its weights drawn from a seeded generator (the wheel stores each as a ConstantOfShape of one value).

`MODELS` names each builder and the DML operators it needs besides GEMM and the element-wise ones (`needs`).
`inputs(model, seed)` draws seeded inputs for any model with static input shapes.
"""
import numpy as np

__all__ = ["mlp", "gemm_mlp", "mnist_cnn", "bert_block", "gpt_block", "MODELS", "inputs", "light_models",
           "reseeded"]

OPSET = 17


def _helpers():
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    return onnx, TensorProto, helper, numpy_helper


class _Builder:
    """Nodes, initializers with seeded weights, names made unique."""

    def __init__(self, seed):
        self.onnx, self.T, self.h, self.nh = _helpers()
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.count = [], [], {}

    def weight(self, name, shape, scale=None):
        fan_in = shape[0] if len(shape) == 2 else int(np.prod(shape[1:]))
        scale = scale if scale is not None else 1.0 / np.sqrt(max(1, fan_in))
        array = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        return self.const(name, array)

    def const(self, name, array):
        self.inits.append(self.nh.from_array(np.asarray(array), name))
        return name

    def node(self, op, inputs, name, outputs=1, **attributes):
        outs = [f"{name}_out{i}" if outputs > 1 else f"{name}_out" for i in range(outputs)]
        self.nodes.append(self.h.make_node(op, inputs, outs, name=name, **attributes))
        return outs if outputs > 1 else outs[0]

    def model(self, name, inputs, outputs):
        graph = self.h.make_graph(self.nodes, name, inputs, outputs, self.inits)
        model = self.h.make_model(graph, opset_imports=[self.h.make_opsetid("", OPSET)], producer_name="dmlemu")
        self.onnx.checker.check_model(model)
        return model

    def rename_output(self, value, name):
        for node in self.nodes:
            node.output[:] = [name if o == value else o for o in node.output]
        return name


def mlp(batch=4, features=(784, 128, 64, 10), seed=0):
    """MNIST-style MLP on a [batch, 1, 28, 28] image: logits [batch, 10], their max and the class."""
    b = _Builder(seed)
    T, h = b.T, b.h
    x = b.node("Flatten", ["image"], "flatten", axis=1)
    for i, (fan_in, fan_out) in enumerate(zip(features[:-1], features[1:])):
        x = b.node("MatMul", [x, b.weight(f"fc{i}.weight", [fan_in, fan_out])], f"fc{i}")
        x = b.node("Add", [x, b.weight(f"fc{i}.bias", [fan_out], 0.1)], f"fc{i}.bias_add")
        if i < len(features) - 2:
            x = b.node("Relu", [x], f"relu{i}")
    logits = b.rename_output(x, "logits")
    b.nodes.append(h.make_node("ReduceMax", [logits], ["max_logit"], name="max_logit", axes=[1], keepdims=0))
    b.nodes.append(h.make_node("ArgMax", [logits], ["label"], name="label", axis=1, keepdims=0))
    side = int(round(np.sqrt(features[0])))
    return b.model("mlp", [h.make_tensor_value_info("image", T.FLOAT, [batch, 1, side, side])],
                   [h.make_tensor_value_info("logits", T.FLOAT, [batch, features[-1]]),
                    h.make_tensor_value_info("max_logit", T.FLOAT, [batch]),
                    h.make_tensor_value_info("label", T.INT64, [batch])])


def gemm_mlp(batch=8, features=(64, 96, 32), seed=1):
    """Gemm layers (transB, bias), Relu fused into the Gemm, a Sigmoid head and a ReduceMean."""
    b = _Builder(seed)
    T, h = b.T, b.h
    x = "x"
    for i, (fan_in, fan_out) in enumerate(zip(features[:-1], features[1:])):
        x = b.node("Gemm", [x, b.weight(f"gemm{i}.weight", [fan_out, fan_in]),
                            b.weight(f"gemm{i}.bias", [fan_out], 0.1)], f"gemm{i}", transB=1)
        x = b.node("Relu" if i < len(features) - 2 else "Sigmoid", [x], f"act{i}")
    y = b.rename_output(x, "y")
    b.nodes.append(h.make_node("ReduceMean", [y], ["mean"], name="mean", axes=[-1], keepdims=1))
    return b.model("gemm_mlp", [h.make_tensor_value_info("x", T.FLOAT, [batch, features[0]])],
                   [h.make_tensor_value_info("y", T.FLOAT, [batch, features[-1]]),
                    h.make_tensor_value_info("mean", T.FLOAT, [batch, 1])])


def mnist_cnn(batch=1, seed=2):
    """A LeNet-style MNIST CNN: [batch, 1, 28, 28] -> probabilities [batch, 10]."""
    b = _Builder(seed)
    T, h = b.T, b.h
    x = b.node("Conv", ["image", b.weight("conv1.weight", [8, 1, 5, 5]), b.weight("conv1.bias", [8], 0.1)],
               "conv1", pads=[2, 2, 2, 2])
    x = b.node("Relu", [x], "relu1")
    x = b.node("MaxPool", [x], "pool1", kernel_shape=[2, 2], strides=[2, 2])
    x = b.node("Conv", [x, b.weight("conv2.weight", [16, 8, 5, 5])], "conv2")
    gamma = b.const("bn2.scale", b.rng.uniform(0.5, 1.5, 16).astype(np.float32))
    beta = b.const("bn2.bias", b.rng.uniform(-0.2, 0.2, 16).astype(np.float32))
    mean = b.const("bn2.mean", b.rng.uniform(-0.2, 0.2, 16).astype(np.float32))
    var = b.const("bn2.var", b.rng.uniform(0.5, 2.0, 16).astype(np.float32))
    x = b.node("BatchNormalization", [x, gamma, beta, mean, var], "bn2")
    x = b.node("Relu", [x], "relu2")
    x = b.node("AveragePool", [x], "pool2", kernel_shape=[2, 2], strides=[2, 2])
    x = b.node("GlobalAveragePool", [x], "gap")
    x = b.node("Flatten", [x], "flatten")
    x = b.node("Gemm", [x, b.weight("fc.weight", [10, 16]), b.weight("fc.bias", [10], 0.1)], "fc", transB=1)
    b.node("Softmax", [x], "softmax", axis=-1)
    b.rename_output("softmax_out", "probabilities")
    return b.model("mnist_cnn", [h.make_tensor_value_info("image", T.FLOAT, [batch, 1, 28, 28])],
                   [h.make_tensor_value_info("probabilities", T.FLOAT, [batch, 10])])


def _attention(b, x, prefix, tokens, hidden, heads, mask=None):
    """Multi-head self-attention of [1, tokens, hidden]: the nodes, returns the projected context."""
    head = hidden // heads
    split = b.const(f"{prefix}.heads_shape", np.array([1, tokens, heads, head], np.int64))
    merged = b.const(f"{prefix}.merged_shape", np.array([1, tokens, hidden], np.int64))
    qkv = []
    for part in ("q", "k", "v"):
        y = b.node("MatMul", [x, b.weight(f"{prefix}.{part}.weight", [hidden, hidden])], f"{prefix}.{part}")
        y = b.node("Add", [y, b.weight(f"{prefix}.{part}.bias", [hidden], 0.02)], f"{prefix}.{part}.bias_add")
        y = b.node("Reshape", [y, split], f"{prefix}.{part}.split_heads")
        perm = [0, 2, 3, 1] if part == "k" else [0, 2, 1, 3]
        qkv.append(b.node("Transpose", [y], f"{prefix}.{part}.transpose", perm=perm))
    scores = b.node("MatMul", [qkv[0], qkv[1]], f"{prefix}.scores")
    scores = b.node("Mul", [scores, b.const(f"{prefix}.scale", np.array(1 / np.sqrt(head), np.float32))],
                    f"{prefix}.scale_scores")
    if mask is not None:
        scores = b.node("Where", [mask, scores, b.const(f"{prefix}.masked", np.array(-1e4, np.float32))],
                        f"{prefix}.causal_mask")
    probs = b.node("Softmax", [scores], f"{prefix}.softmax", axis=-1)
    context = b.node("MatMul", [probs, qkv[2]], f"{prefix}.context")
    context = b.node("Transpose", [context], f"{prefix}.context.transpose", perm=[0, 2, 1, 3])
    context = b.node("Reshape", [context, merged], f"{prefix}.merge_heads")
    y = b.node("MatMul", [context, b.weight(f"{prefix}.out.weight", [hidden, hidden])], f"{prefix}.out")
    return b.node("Add", [y, b.weight(f"{prefix}.out.bias", [hidden], 0.02)], f"{prefix}.out.bias_add")


def _layer_norm(b, x, name, hidden):
    return b.node("LayerNormalization", [x, b.const(f"{name}.scale", np.ones(hidden, np.float32)),
                                         b.const(f"{name}.bias", np.zeros(hidden, np.float32))], name, axis=-1,
                  epsilon=1e-5)


def bert_block(tokens=16, hidden=64, heads=4, seed=3):
    """One BERT encoder layer on [1, tokens, hidden]: attention, Add & LayerNorm, Erf-GELU feed-forward,
    Add & LayerNorm."""
    b = _Builder(seed)
    T, h = b.T, b.h
    attention = _attention(b, "x", "attn", tokens, hidden, heads)
    x = _layer_norm(b, b.node("Add", ["x", attention], "attn.residual"), "ln1", hidden)
    y = b.node("MatMul", [x, b.weight("ffn.up.weight", [hidden, 4 * hidden])], "ffn.up")
    y = b.node("Add", [y, b.weight("ffn.up.bias", [4 * hidden], 0.02)], "ffn.up.bias_add")
    erf = b.node("Erf", [b.node("Mul", [y, b.const("ffn.inv_sqrt2", np.array(1 / np.sqrt(2), np.float32))],
                                "ffn.gelu.scale")], "ffn.gelu.erf")
    erf = b.node("Add", [erf, b.const("ffn.one", np.array(1.0, np.float32))], "ffn.gelu.add_one")
    y = b.node("Mul", [b.node("Mul", [y, erf], "ffn.gelu.mul"), b.const("ffn.half", np.array(0.5, np.float32))],
               "ffn.gelu.half")
    y = b.node("MatMul", [y, b.weight("ffn.down.weight", [4 * hidden, hidden])], "ffn.down")
    y = b.node("Add", [y, b.weight("ffn.down.bias", [hidden], 0.02)], "ffn.down.bias_add")
    _layer_norm(b, b.node("Add", [x, y], "ffn.residual"), "ln2", hidden)
    b.rename_output("ln2_out", "y")
    return b.model("bert_block", [h.make_tensor_value_info("x", T.FLOAT, [1, tokens, hidden])],
                   [h.make_tensor_value_info("y", T.FLOAT, [1, tokens, hidden])])


def gpt_block(tokens=16, hidden=64, heads=4, seed=4):
    """One GPT decoder layer on [1, tokens, hidden]: LayerNorm, causal attention (Where on a constant
    mask), residual, LayerNorm, Tanh-GELU feed-forward, residual."""
    b = _Builder(seed)
    T, h = b.T, b.h
    mask = b.const("causal", np.tril(np.ones((tokens, tokens), bool)))
    x = _layer_norm(b, "x", "ln1", hidden)
    x = b.node("Add", ["x", _attention(b, x, "attn", tokens, hidden, heads, mask)], "attn.residual")
    y = _layer_norm(b, x, "ln2", hidden)
    y = b.node("MatMul", [y, b.weight("mlp.up.weight", [hidden, 4 * hidden])], "mlp.up")
    cube = b.node("Mul", [b.node("Mul", [y, y], "mlp.gelu.square"), y], "mlp.gelu.cube")
    inner = b.node("Add", [y, b.node("Mul", [cube, b.const("mlp.c", np.array(0.044715, np.float32))],
                                     "mlp.gelu.scale_cube")], "mlp.gelu.inner")
    t = b.node("Tanh", [b.node("Mul", [inner, b.const("mlp.k", np.array(np.sqrt(2 / np.pi), np.float32))],
                               "mlp.gelu.scale")], "mlp.gelu.tanh")
    t = b.node("Add", [t, b.const("mlp.one", np.array(1.0, np.float32))], "mlp.gelu.add_one")
    y = b.node("Mul", [b.node("Mul", [y, t], "mlp.gelu.mul"), b.const("mlp.half", np.array(0.5, np.float32))],
               "mlp.gelu.half")
    y = b.node("MatMul", [y, b.weight("mlp.down.weight", [4 * hidden, hidden])], "mlp.down")
    b.node("Add", [x, y], "mlp.residual")
    b.rename_output("mlp.residual_out", "y")
    return b.model("gpt_block", [h.make_tensor_value_info("x", T.FLOAT, [1, tokens, hidden])],
                   [h.make_tensor_value_info("y", T.FLOAT, [1, tokens, hidden])])


# name -> (builder, DML operators it needs besides GEMM and the element-wise ones)
MODELS = {
    "mlp": (mlp, ()),
    "gemm_mlp": (gemm_mlp, ()),
    "mnist_cnn": (mnist_cnn, ("CONVOLUTION", "MAX_POOLING", "AVERAGE_POOLING", "ACTIVATION_SOFTMAX1")),
    "bert_block": (bert_block, ("ACTIVATION_SOFTMAX1", "MEAN_VARIANCE_NORMALIZATION1")),
    "gpt_block": (gpt_block, ("ACTIVATION_SOFTMAX1", "MEAN_VARIANCE_NORMALIZATION1")),
}


def inputs(model, seed=0):
    """Seeded inputs for every input of `model` (static shapes): floats standard normal, integers 0..9,
    booleans fair coins."""
    from dmlemu.onnx.importer import numpy_type
    rng = np.random.default_rng(seed)
    initializers = {t.name for t in model.graph.initializer}
    feeds = {}
    for value in model.graph.input:
        if value.name in initializers:
            continue
        t = value.type.tensor_type
        shape = [d.dim_value for d in t.shape.dim]
        dtype = numpy_type(t.elem_type)
        if dtype == bool:
            feeds[value.name] = rng.random(shape) < 0.5
        elif dtype.kind == "f":
            feeds[value.name] = rng.standard_normal(shape).astype(dtype)
        else:
            feeds[value.name] = rng.integers(0, 10, shape).astype(dtype)
    return feeds


def light_models():
    """The onnx wheel's model-zoo graphs (light/*.onnx) by name: their paths (empty without the folder)."""
    import os

    import onnx
    folder = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light")
    if not os.path.isdir(folder):
        return {}
    return {name[len("light_"):-len(".onnx")]: os.path.join(folder, name)
            for name in sorted(os.listdir(folder)) if name.endswith(".onnx")}


def reseeded(path, seed=0):
    """A light model with its weights drawn from a seeded generator: the wheel stores each weight as a
    ConstantOfShape of its shape (one value everywhere), which becomes an initializer of normal values scaled by
    the fan-in (1-D ones, biases and batch-normalization parameters, uniform in [0.5, 1.5], so variances stay
    positive); float initializers are redrawn the same way."""
    import onnx
    from onnx import numpy_helper
    model = onnx.load(path)
    rng = np.random.default_rng(seed)

    def draw(shape, dtype=np.float32):
        if len(shape) <= 1:
            return rng.uniform(0.5, 1.5, shape).astype(dtype)
        fan_in = int(np.prod(shape[1:]))
        return (rng.standard_normal(shape) / np.sqrt(max(1, fan_in))).astype(dtype)
    initializers = {t.name: t for t in model.graph.initializer}
    kept = []
    for node in model.graph.node:
        if node.op_type == "ConstantOfShape" and node.input and node.input[0] in initializers:
            shape = [int(d) for d in numpy_helper.to_array(initializers[node.input[0]])]
            model.graph.initializer.append(numpy_helper.from_array(draw(shape), node.output[0]))
            if model.ir_version < 4:     # before IR 4 an initializer is typed by a graph input of its name
                model.graph.input.append(onnx.helper.make_tensor_value_info(node.output[0], onnx.TensorProto.FLOAT,
                                                                            shape))
        else:
            kept.append(node)
    del model.graph.node[:]
    model.graph.node.extend(kept)
    for tensor in model.graph.initializer:
        array = numpy_helper.to_array(tensor)
        if array.dtype.kind == "f" and array.size > 1:
            tensor.CopyFrom(numpy_helper.from_array(draw(array.shape, array.dtype), tensor.name))
    return model
