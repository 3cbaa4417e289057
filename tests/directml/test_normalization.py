"""DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1 and MEAN_VARIANCE_NORMALIZATION through the mirror, bit for bit
against the golden model (docs/NUMERICS.md, "Normalization").

Drawn descs (FLOAT32 and FLOAT16, ranks 1 to 5, any axes, Scale and Bias broadcast or absent, NormalizeVariance,
Epsilon, packed, padded, permuted and broadcast layouts, special values) run on every adapter; the kernel alone
runs on wave widths 8 to 64 with and without the LDS cache of the input; the golden model is checked against a
literal per-group loop written from the text and against float64; the validation sentences of the pages' rules
are pinned."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dmlemu import golden, run_operator
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.direct_run import DirectRun
from dmlemu.errors import E_INVALIDARG, HResultError
from dmlemu.gpu import Gpu
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import DEFAULT_PRESET, PRESETS, RX_7900_XTX, WARP
from tensor_layouts import data_type, layout_strides, same_bits, tensor

DTYPES = {"FLOAT32": np.float32, "FLOAT16": np.float16}


def mvn1_desc(type_name, sizes, axes, scale_sizes=None, bias_sizes=None, normalize_variance=1, epsilon=1e-5,
              strides=(None, None, None, None), activation=None, out_sizes=None):
    return DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC(
        InputTensor=tensor(type_name, sizes, strides[0]),
        ScaleTensor=None if scale_sizes is None else tensor(type_name, scale_sizes, strides[1]),
        BiasTensor=None if bias_sizes is None else tensor(type_name, bias_sizes, strides[2]),
        OutputTensor=tensor(type_name, out_sizes or sizes, strides[3]), AxisCount=len(axes), Axes=list(axes),
        NormalizeVariance=normalize_variance, Epsilon=epsilon, FusedActivation=activation)


def values(rng, type_name, shape, special=False):
    x = (rng.standard_normal(shape) * rng.choice([1e-2, 1.0, 30.0]) + rng.choice([0.0, 5.0])).astype(DTYPES[type_name])
    if special and x.size:
        picks = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40 if type_name == "FLOAT32" else 1e-7], dtype=x.dtype)
        mask = rng.random(shape) < 0.05
        x[mask] = rng.choice(picks, size=int(mask.sum()))
    return x


def expected(x, scale, bias, axes, normalize_variance=1, epsilon=1e-5, activation=None):
    return golden.run("MEAN_VARIANCE_NORMALIZATION1", [x, scale, bias],
                      {"Axes": tuple(axes), "NormalizeVariance": normalize_variance, "Epsilon": np.float32(epsilon),
                       "FusedActivation": activation})


def broadcast_values(x, dims):
    for d in dims:       # every element along a stride-0 dimension is the one stored value
        x = np.repeat(np.take(x, [0], axis=d), x.shape[d], axis=d)
    return x


# ---- drawn descs through the mirror ------------------------------------------------------------------------------
@st.composite
def cases(draw):
    rank = draw(st.integers(1, 5))
    sizes = [draw(st.integers(1, 5)) for _ in range(rank)]
    if draw(st.booleans()):
        sizes[draw(st.integers(0, rank - 1))] = draw(st.integers(6, 150))
    axes = draw(st.lists(st.integers(0, rank - 1), unique=True, max_size=rank))
    affine = draw(st.sampled_from(["both", "none", "scale", "bias"]))
    side = lambda: [s if draw(st.booleans()) else 1 for s in sizes]
    return dict(type_name=draw(st.sampled_from(["FLOAT32", "FLOAT16"])), sizes=sizes, axes=axes,
                scale_sizes=side() if affine in ("both", "scale") else None,
                bias_sizes=side() if affine in ("both", "bias") else None,
                normalize_variance=draw(st.integers(0, 1)), epsilon=draw(st.sampled_from([1e-5, 0.0, 0.5, 1e-12])),
                layouts=[draw(st.sampled_from(["packed", "padded", "permuted", "broadcast"])) for _ in range(4)],
                special=draw(st.booleans()), seed=draw(st.integers(0, 2 ** 32 - 1)))


def run_case(case, preset=None):
    rng = np.random.default_rng(case["seed"])
    t, sizes = case["type_name"], case["sizes"]
    arrays, strides = [], []
    for shape, layout in zip((sizes, case["scale_sizes"], case["bias_sizes"]), case["layouts"][:3]):
        if shape is None:
            arrays.append(None)
            strides.append(None)
            continue
        s, dims = layout_strides(shape, layout, rng)
        arrays.append(broadcast_values(values(rng, t, shape, case["special"]), dims))
        strides.append(s)
    out_layout = case["layouts"][3] if case["layouts"][3] != "broadcast" else "padded"   # an output never aliases
    strides.append(layout_strides(sizes, out_layout, rng)[0])
    desc = mvn1_desc(t, sizes, case["axes"], case["scale_sizes"], case["bias_sizes"], case["normalize_variance"],
                     case["epsilon"], strides)
    (got,) = run_operator(desc, arrays, adapter=preset)
    same_bits(got, expected(*arrays, case["axes"], case["normalize_variance"], case["epsilon"]))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.sampled_from(PRESETS + (WARP,)))
def test_drawn_normalizations_are_bit_exact_on_every_adapter(case, preset):
    run_case(case, preset)


def test_a_layer_normalization_is_close_to_float64():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((6, 300)).astype(np.float32) * 3 + 1
    scale, bias = rng.standard_normal((1, 300)).astype(np.float32), rng.standard_normal((1, 300)).astype(np.float32)
    (got,) = run_operator(mvn1_desc("FLOAT32", x.shape, [1], scale.shape, bias.shape), [x, scale, bias])
    same_bits(got, expected(x, scale, bias, [1]))
    wide = x.astype(np.float64)
    mean = wide.mean(axis=1, keepdims=True)
    exact = (wide - mean) / np.sqrt(((wide - mean) ** 2).mean(axis=1, keepdims=True) + np.float32(1e-5)) * scale + bias
    np.testing.assert_allclose(got, exact, rtol=0, atol=2e-5)


# ---- the same kernel on every wave width, cached in LDS or not --------------------------------------------------------
def run_kernel(x, scale, bias, axes, width, preset=RX_7900_XTX, normalize_variance=1):
    gpu = Gpu(preset, wave_width=width, timing=False)
    t = "FLOAT32" if x.dtype == np.float32 else "FLOAT16"
    out = np.zeros(x.shape, x.dtype)
    spec = lambda a: None if a is None else TensorSpec(t, a.shape, None, a.nbytes)
    raw = lambda a: np.zeros(4, np.uint8) if a is None else a.view(np.uint8).reshape(-1)
    run = DirectRun(gpu, "MEAN_VARIANCE_NORMALIZATION1", [spec(x), spec(scale), spec(bias), spec(out)],
                    [raw(x), raw(scale), raw(bias), raw(out)],
                    attributes={"Axes": tuple(axes), "NormalizeVariance": normalize_variance,
                                "Epsilon": np.float32(1e-5)})
    stats = run.dispatch()
    return run.output_bytes(3)[:out.nbytes].view(out.dtype).reshape(out.shape), stats, run.kernel


@pytest.mark.parametrize("type_name, shape, axes", [("FLOAT32", (3, 5, 150), (0, 2)), ("FLOAT16", (4, 700), (1,)),
                                                    ("FLOAT32", (2, 5000), (1,))])
def test_every_wave_width_and_both_input_paths_give_the_same_bits(type_name, shape, axes):
    rng = np.random.default_rng(11)
    x = values(rng, type_name, shape, special=True)
    scale_shape = tuple(s if d in axes else 1 for d, s in enumerate(shape))
    scale, bias = values(rng, type_name, scale_shape), values(rng, type_name, scale_shape)
    want = expected(x, scale, bias, axes)
    small_lds = next(p for p in PRESETS if p.lds_max_bytes_per_workgroup == 16384)
    for width, preset in ((8, RX_7900_XTX), (16, RX_7900_XTX), (32, small_lds), (64, RX_7900_XTX)):
        got, stats, kernel = run_kernel(x, scale, bias, axes, width, preset)
        count = int(np.prod([shape[d] for d in axes]))
        assert ("_cached" in kernel.program.name) == (4 * kernel.workgroup_size + 4 * count
                                                        <= preset.lds_max_bytes_per_workgroup)
        assert stats.workgroups == x.size // count
        same_bits(got, want)


# ---- the golden model's order, from the text -----------------------------------------------------------------------
def threads_then_tree(row):
    lanes = 64
    while lanes < 1024 and len(row) > 64 * lanes:
        lanes *= 2
    acc = [np.float32(-0.0)] * lanes
    for k, value in enumerate(row):
        acc[k % lanes] = np.float32(acc[k % lanes] + np.float32(value))
    s = lanes // 2
    while s:
        acc = [np.float32(acc[t] + acc[t + s]) for t in range(s)]
        s //= 2
    return acc[0]


def literal(row, scale, bias, epsilon):
    """One group, literally: S1 by the threads and the tree, mean = S1 / N, S2 the same over (x - mean)^2, then
    each element (x - mean) / sqrt(S2 / N + eps) * scale + bias, every step rounded to FLOAT32."""
    n = np.float32(len(row))
    with np.errstate(all="ignore"):
        mean = np.float32(threads_then_tree(row) / n)
        d = [np.float32(np.float32(x) - mean) for x in row]
        var = np.float32(threads_then_tree([np.float32(v * v) for v in d]) / n)
        den = np.float32(np.sqrt(np.float32(var + np.float32(epsilon))))
        return np.array([np.float32(np.float32(np.float32(v / den) * s) + b) for v, s, b in zip(d, scale, bias)],
                        np.float32)


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 300), st.integers(0, 2 ** 32 - 1))
def test_the_golden_normalization_is_the_literal_loop(count, seed):
    rng = np.random.default_rng(seed)
    x = values(rng, "FLOAT32", (2, count), special=True)
    scale, bias = values(rng, "FLOAT32", (1, count)), values(rng, "FLOAT32", (1, count))
    want = np.stack([literal(row, scale[0], bias[0], 1e-5) for row in x])
    want[np.isnan(want)] = np.float32(np.nan)      # canonical NaN
    same_bits(expected(x, scale, bias, [1]), want)


# ---- special values, FLOAT16, NormalizeVariance ---------------------------------------------------------------------
def test_special_values_follow_ieee():
    x = np.array([[1.0, 2.0, 3.0, 4.0], [5.0, 5.0, 5.0, 5.0], [1.0, np.nan, 0.0, 0.0], [np.inf, 0.0, 0.0, 0.0]],
                 np.float32)
    (got,) = run_operator(mvn1_desc("FLOAT32", x.shape, [1], epsilon=0.0), [x, None, None])
    same_bits(got, expected(x, None, None, [1], epsilon=0.0))
    # a constant row with Epsilon 0: 0 / sqrt(0) = NaN; a NaN or an infinity makes its whole row NaN
    assert np.isnan(got[1:]).all() and (got[1:].view(np.uint32) == 0x7FC00000).all()
    np.testing.assert_allclose(got[0], (x[0] - 2.5) / np.sqrt(1.25), rtol=1e-6)


def test_without_normalize_variance_the_output_is_x_minus_the_mean():
    x = np.array([[1.0, 2.0, 4.0, 9.0]], np.float16)
    (got,) = run_operator(mvn1_desc("FLOAT16", x.shape, [1], normalize_variance=0), [x, None, None])
    assert got.tolist() == [[-3.0, -2.0, 0.0, 5.0]]


def test_float16_works_in_float32_and_rounds_once():
    # 2048 and seven ones: a FLOAT16 sum would lose every + 1 (the spacing at 2048 is 2: mean 256, 1 - mean = -255);
    # in FLOAT32 the mean is 2055 / 8 = 256.875, and 1 - 256.875 = -255.875 is a FLOAT16
    x = np.array([[2048] + [1] * 7], np.float16)
    (got,) = run_operator(mvn1_desc("FLOAT16", x.shape, [1], normalize_variance=0), [x, None, None])
    assert got.tolist() == [[1791.0] + [-255.875] * 7]


def test_the_cross_channel_operator_is_mvn1_over_its_axes():
    rng = np.random.default_rng(2)
    x = values(rng, "FLOAT32", (2, 3, 4, 5))
    scale, bias = values(rng, "FLOAT32", (1, 3, 1, 1)), values(rng, "FLOAT32", (1, 3, 1, 1))
    for cross, axes in ((0, (2, 3)), (1, (1, 2, 3))):
        desc = DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC(
            InputTensor=tensor("FLOAT32", x.shape), ScaleTensor=tensor("FLOAT32", scale.shape),
            BiasTensor=tensor("FLOAT32", bias.shape), OutputTensor=tensor("FLOAT32", x.shape), CrossChannel=cross,
            NormalizeVariance=1, Epsilon=1e-3, FusedActivation=None)
        (got,) = run_operator(desc, [x, scale, bias])
        same_bits(got, expected(x, scale, bias, axes, epsilon=1e-3))


# ---- FusedActivation -----------------------------------------------------------------------------------------------
def fused(name, **fields):
    from dmlemu.directml.operators import SCHEMAS_BY_NAME
    return DML_OPERATOR_DESC(Type=getattr(DML_OPERATOR_TYPE, "DML_OPERATOR_" + name),
                             Desc=SCHEMAS_BY_NAME[name].desc_type(**fields))


@pytest.mark.parametrize("name, fields", [("ACTIVATION_RELU", {}), ("ACTIVATION_GELU", {}),
                                          ("ACTIVATION_LEAKY_RELU", {"Alpha": 0.1}), ("ACTIVATION_SIGMOID", {}),
                                          ("ACTIVATION_LINEAR", {"Alpha": 1.5, "Beta": -0.25})])
@pytest.mark.parametrize("type_name", ["FLOAT32", "FLOAT16"])
def test_a_fused_activation_is_the_activation_of_the_result(name, fields, type_name):
    rng = np.random.default_rng(len(name))
    x = values(rng, type_name, (5, 70), special=True)
    scale, bias = values(rng, type_name, (1, 70)), values(rng, type_name, (1, 70))
    (got,) = run_operator(mvn1_desc(type_name, x.shape, [1], scale.shape, bias.shape, activation=fused(name, **fields)),
                          [x, scale, bias])
    activation = (name, {k: np.float32(v) for k, v in fields.items()})
    same_bits(got, expected(x, scale, bias, [1], activation=activation))
    if type_name == "FLOAT32":
        same_bits(got, golden.run(name, [expected(x, scale, bias, [1])], activation[1]))


# ---- validation ------------------------------------------------------------------------------------------------
def refusal(desc, level=None):
    kwargs = {} if level is None else {"max_feature_level": level}
    dml = DMLCreateDevice(D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0), DML_CREATE_DEVICE_FLAG_NONE, **kwargs)
    op_type = {"DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC": DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION}.get(
        type(desc).__name__, DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1)
    try:
        dml.CreateOperator(DML_OPERATOR_DESC(Type=op_type, Desc=desc))
    except HResultError as error:
        return error.hresult, error.message
    return "validated"


def test_the_pages_rules_are_checked():
    op = "DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1"
    assert refusal(mvn1_desc("FLOAT32", [2, 8], [1], [1, 8], [1, 8])) == "validated"
    assert refusal(mvn1_desc("FLOAT32", [2, 8], [1], [1, 8], None)) == "validated"          # from FL5_2
    assert refusal(mvn1_desc("FLOAT32", [2, 3, 4, 8], [3], [1, 3, 1, 8], None), DML_FEATURE_LEVEL_5_1) == (
        E_INVALIDARG, f"BiasTensor is None but ScaleTensor is given; {op} requires both or neither below "
                      "DML_FEATURE_LEVEL_5_2 (this device: DML_FEATURE_LEVEL_5_1).")
    assert refusal(mvn1_desc("FLOAT32", [2, 8], [1], [2, 4], [1, 8])) == (
        E_INVALIDARG, f"ScaleTensor.Sizes is {{2,4}} but InputTensor.Sizes is {{2,8}}; {op}: each dimension must be "
                      "the input's or 1 (broadcast).")
    assert refusal(mvn1_desc("FLOAT32", [2, 3, 4, 8], [3], [1, 1, 1, 8], [1, 1, 1, 8]), DML_FEATURE_LEVEL_3_1) == (
        E_INVALIDARG, f"ScaleTensor.Sizes is {{1,1,1,8}} but InputTensor.Sizes is {{2,3,4,8}}; {op}: the channel "
                      "size must be the input's below DML_FEATURE_LEVEL_4_0.")
    assert refusal(mvn1_desc("FLOAT32", [2, 8], [2])) == (
        E_INVALIDARG, f"Axes[0] is 2; InputTensor has 2 dimensions, so {op} takes axes 0 to 1.")
    assert refusal(mvn1_desc("FLOAT32", [2, 8], [1], out_sizes=[2, 1]))[0] == E_INVALIDARG
    assert refusal(mvn1_desc("INT32", [2, 8], [1]))[0] == E_INVALIDARG
    assert refusal(mvn1_desc("FLOAT32", [2, 8], [1]), DML_FEATURE_LEVEL_3_0)[0] == E_INVALIDARG     # 4 dimensions
    desc = mvn1_desc("FLOAT32", [2, 8], [1])
    desc.NormalizeVariance = "yes"
    assert refusal(desc) == (E_INVALIDARG, "NormalizeVariance is 'yes'; it must be a C BOOL (FALSE = 0, TRUE any "
                                           "other INT).")
    desc.NormalizeVariance = 7        # any non-zero BOOL is TRUE
    assert refusal(desc) == "validated"


# ---- in a graph --------------------------------------------------------------------------------------------------
def test_a_layer_normalization_runs_in_a_graph_between_element_wise_nodes():
    """MVN1 is no element-wise node: a dispatch of its own (a workgroup per group, LDS), fed by a fused element-wise
    chain and feeding another node; Scale and Bias are graph inputs broadcast along the rows."""
    from test_graph import GraphSpec, X, _random, assert_graph_matches, clip, identity, op, threshold
    from test_graph import tensor as graph_tensor
    w = graph_tensor([1] * (len(X.Desc.Sizes) - 1) + [X.Desc.Sizes[-1]])
    last = len(X.Desc.Sizes) - 1
    spec = GraphSpec(nodes=[(clip(X, -1.0, 2.0), "clip"), (threshold(X, 0.5), "threshold"),
                            (op("MEAN_VARIANCE_NORMALIZATION1", InputTensor=X, ScaleTensor=w, BiasTensor=w,
                                OutputTensor=X, AxisCount=1, Axes=[last], NormalizeVariance=1, Epsilon=1e-5),
                             "layer_norm"),
                            (identity(X, scale_bias=(3.0, 1.0)), "scale")],
                     input_count=3, output_count=1, inputs=[(0, 0, 0), (1, 2, 1), (2, 2, 2)],
                     intermediates=[(0, 0, 1, 0), (1, 0, 2, 0), (2, 0, 3, 0)], outputs=[(3, 0, 0)])
    assert_graph_matches(spec, [_random(X, 3), _random(w, 4, special=False), _random(w, 5, special=False)])


# ---- BATCH_NORMALIZATION: the element-wise kernel with four broadcast tensors -------------------------------------------
def bn_desc(type_name, sizes, side_sizes, spatial=1, epsilon=1e-5, strides=(None,) * 6, activation=None):
    return DML_BATCH_NORMALIZATION_OPERATOR_DESC(
        InputTensor=tensor(type_name, sizes, strides[0]),
        **{f"{name}Tensor": tensor(type_name, shape, stride)
           for name, shape, stride in zip(("Mean", "Variance", "Scale", "Bias"), side_sizes, strides[1:5])},
        OutputTensor=tensor(type_name, sizes, strides[5]), Spatial=spatial, Epsilon=epsilon, FusedActivation=activation)


def bn_expected(x, sides, epsilon, activation=None, half=False):
    return golden.run("BATCH_NORMALIZATION", [x, *sides], {"Epsilon": np.float32(epsilon),
                                                         "FusedActivation": activation}, half_precision=half)


@st.composite
def bn_cases(draw):
    rank = draw(st.integers(1, 5))
    sizes = [draw(st.integers(1, 6)) for _ in range(rank)]
    return dict(type_name=draw(st.sampled_from(["FLOAT32", "FLOAT16"])), sizes=sizes,
                sides=[[s if draw(st.booleans()) else 1 for s in sizes] for _ in range(4)],
                epsilon=draw(st.sampled_from([1e-5, 0.0, 1e-3])), half=draw(st.booleans()),
                layouts=[draw(st.sampled_from(["packed", "padded", "permuted", "broadcast"])) for _ in range(6)],
                special=draw(st.booleans()), seed=draw(st.integers(0, 2 ** 32 - 1)))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bn_cases(), st.sampled_from(PRESETS + (WARP,)))
def test_drawn_batch_normalizations_are_bit_exact_on_every_adapter(case, preset):
    rng = np.random.default_rng(case["seed"])
    t = case["type_name"]
    arrays, strides = [], []
    for k, (shape, layout) in enumerate(zip([case["sizes"]] + case["sides"], case["layouts"][:5])):
        s, dims = layout_strides(shape, layout, rng)
        a = values(rng, t, shape, case["special"])
        if k == 2:
            a = np.abs(a)            # a variance
        arrays.append(broadcast_values(a, dims))
        strides.append(s)
    out_layout = case["layouts"][5] if case["layouts"][5] != "broadcast" else "padded"
    strides.append(layout_strides(case["sizes"], out_layout, rng)[0])
    flags = DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION if case["half"] else 0
    (got,) = run_operator(bn_desc(t, case["sizes"], case["sides"], epsilon=case["epsilon"], strides=strides), arrays,
                          adapter=preset, flags=flags)
    half = case["half"] and t == "FLOAT16" and (preset or DEFAULT_PRESET).native_fp16
    same_bits(got, bn_expected(arrays[0], arrays[1:], case["epsilon"], half=half))


def test_batch_normalization_is_the_formula_with_a_fused_activation():
    rng = np.random.default_rng(4)
    x = values(rng, "FLOAT32", (2, 3, 4, 5))
    sides = [values(rng, "FLOAT32", (1, 3, 1, 1)) for _ in range(4)]
    sides[1] = np.abs(sides[1])
    (got,) = run_operator(bn_desc("FLOAT32", x.shape, [s.shape for s in sides], activation=fused("ACTIVATION_RELU")),
                          [x, *sides])
    same_bits(got, bn_expected(x, sides, 1e-5, ("ACTIVATION_RELU", {})))
    plain = (x - sides[0]) / np.sqrt(sides[1] + np.float32(1e-5)) * sides[2] + sides[3]
    np.testing.assert_allclose(got, np.maximum(plain, 0), rtol=1e-6, atol=1e-6)


def test_batch_normalization_rules_are_checked():
    op = "DML_OPERATOR_BATCH_NORMALIZATION"

    def refused(desc, level=None):
        kwargs = {} if level is None else {"max_feature_level": level}
        dml = DMLCreateDevice(D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0), DML_CREATE_DEVICE_FLAG_NONE, **kwargs)
        try:
            dml.CreateOperator(DML_OPERATOR_DESC(Type=DML_OPERATOR_BATCH_NORMALIZATION, Desc=desc))
        except HResultError as error:
            return error.hresult, error.message
        return "validated"
    channel = [[1, 3, 1, 1]] * 4
    assert refused(bn_desc("FLOAT32", [2, 3, 4, 5], channel)) == "validated"
    assert refused(bn_desc("FLOAT32", [2, 3, 4, 5], channel, spatial=0), DML_FEATURE_LEVEL_4_0) == "validated"
    assert refused(bn_desc("FLOAT32", [2, 3, 4, 5], channel, spatial=0), DML_FEATURE_LEVEL_3_1) == (
        E_INVALIDARG, f"MeanTensor.Sizes is {{1,3,1,1}} but InputTensor.Sizes is {{2,3,4,5}}; {op}: with Spatial "
                      "FALSE, Height and Width must be the input's below DML_FEATURE_LEVEL_4_0.")
    assert refused(bn_desc("FLOAT32", [2, 3, 4, 5], [[1, 3, 1, 1], [1, 2, 1, 1], [1, 3, 1, 1], [1, 3, 1, 1]])) == (
        E_INVALIDARG, f"VarianceTensor.Sizes is {{1,2,1,1}} but InputTensor.Sizes is {{2,3,4,5}}; {op}: each "
                      "dimension must be the input's or 1 (broadcast).")
    assert refused(bn_desc("FLOAT32", [2, 3, 5], [[1, 3, 1]] * 4), DML_FEATURE_LEVEL_3_0)[0] == E_INVALIDARG


# ---- LP_NORMALIZATION: pass 1 of the same kernel over |x| or x * x ------------------------------------------------
def lp_desc(type_name, sizes, axis, p, epsilon=1e-5, strides=(None, None)):
    return DML_LP_NORMALIZATION_OPERATOR_DESC(InputTensor=tensor(type_name, sizes, strides[0]),
                                              OutputTensor=tensor(type_name, sizes, strides[1]), Axis=axis,
                                              Epsilon=epsilon, P=p)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 5), st.data(), st.sampled_from(["FLOAT32", "FLOAT16"]), st.sampled_from([1, 2]),
       st.sampled_from(["packed", "padded", "permuted", "broadcast"]), st.booleans(),
       st.sampled_from(PRESETS + (WARP,)), st.integers(0, 2 ** 32 - 1))
def test_drawn_lp_normalizations_are_bit_exact_on_every_adapter(rank, data, type_name, p, layout, special, preset,
                                                                 seed):
    rng = np.random.default_rng(seed)
    sizes = [data.draw(st.integers(1, 7)) for _ in range(rank)]
    axis = data.draw(st.integers(0, rank - 1))
    sizes[axis] = data.draw(st.integers(1, 300))
    strides, dims = layout_strides(sizes, layout, rng)
    x = broadcast_values(values(rng, type_name, sizes, special), dims)
    out_strides = layout_strides(sizes, "padded" if layout == "broadcast" else layout, rng)[0]
    epsilon = data.draw(st.sampled_from([1e-5, 0.0, 10.0]))
    (got,) = run_operator(lp_desc(type_name, sizes, axis, p, epsilon, (strides, out_strides)), [x], adapter=preset)
    same_bits(got, golden.run("LP_NORMALIZATION", [x], {"Axis": axis, "Epsilon": np.float32(epsilon), "P": p}))


def test_lp_normalization_divides_by_the_norm_or_epsilon():
    x = np.array([[3.0, -4.0], [0.0, -0.0], [1e-7, 0.0], [np.nan, 1.0]], np.float32)
    (l2,) = run_operator(lp_desc("FLOAT32", x.shape, 1, 2, 1e-5), [x])
    (l1,) = run_operator(lp_desc("FLOAT32", x.shape, 1, 1, 1e-5), [x])
    assert l2[0].tolist() == [np.float32(0.6), np.float32(-0.8)] and l1[0].tolist() == [np.float32(3 / 7),
                                                                                        np.float32(-4 / 7)]
    assert l2[1].view(np.uint32).tolist() == [0, 0x80000000]             # 0 / Epsilon keeps the sign
    assert l2[2].tolist() == [np.float32(np.float32(1e-7) / np.float32(1e-5)), 0.0]   # a norm below Epsilon
    assert (l2[3].view(np.uint32) == 0x7FC00000).all()                   # a NaN norm stays NaN


def test_lp_normalization_rules_are_checked():
    def refused(desc):
        dml = DMLCreateDevice(D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0), DML_CREATE_DEVICE_FLAG_NONE)
        try:
            dml.CreateOperator(DML_OPERATOR_DESC(Type=DML_OPERATOR_LP_NORMALIZATION, Desc=desc))
        except HResultError as error:
            return error.hresult, error.message
        return "validated"
    assert refused(lp_desc("FLOAT32", [2, 3], 1, 2)) == "validated"
    assert refused(lp_desc("FLOAT32", [2, 3], 1, 3)) == (
        E_INVALIDARG, "P is 3; DML_OPERATOR_LP_NORMALIZATION takes P 1 or 2.")
    assert refused(lp_desc("FLOAT32", [2, 3], 2, 1)) == (
        E_INVALIDARG, "Axis is 2; InputTensor has 2 dimensions, so DML_OPERATOR_LP_NORMALIZATION takes Axis 0 to 1.")
    assert refused(lp_desc("FLOAT32", [2, 3], -1, 1))[0] == E_INVALIDARG


# ---- LOCAL_RESPONSE_NORMALIZATION: a window of squares per element ------------------------------------------------
def lrn_desc(type_name, sizes, cross, local_size, alpha=1e-4, beta=0.75, bias=1.0, strides=(None, None)):
    return DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC(
        InputTensor=tensor(type_name, sizes, strides[0]), OutputTensor=tensor(type_name, sizes, strides[1]),
        CrossChannel=cross, LocalSize=local_size, Alpha=alpha, Beta=beta, Bias=bias)


def lrn_expected(x, cross, local_size, alpha, beta, bias):
    return golden.run("LOCAL_RESPONSE_NORMALIZATION", [x], {
        "CrossChannel": cross, "LocalSize": local_size, "Alpha": np.float32(alpha), "Beta": np.float32(beta),
        "Bias": np.float32(bias)})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(1, 7), min_size=4, max_size=4), st.integers(0, 1), st.integers(1, 6),
       st.sampled_from([(1e-4, 0.75, 1.0), (0.5, 0.5, 2.0), (1.0, 1.0, 0.0), (2.0, -0.75, 1.0)]),
       st.sampled_from(["FLOAT32", "FLOAT16"]), st.sampled_from(["packed", "padded", "permuted", "broadcast"]),
       st.booleans(), st.sampled_from(PRESETS + (WARP,)), st.integers(0, 2 ** 32 - 1))
def test_drawn_local_response_normalizations_are_bit_exact_on_every_adapter(sizes, cross, local_size, constants,
                                                                            type_name, layout, special, preset, seed):
    rng = np.random.default_rng(seed)
    strides, dims = layout_strides(sizes, layout, rng)
    x = broadcast_values(values(rng, type_name, sizes, special), dims)
    out_strides = layout_strides(sizes, "padded" if layout == "broadcast" else layout, rng)[0]
    (got,) = run_operator(lrn_desc(type_name, sizes, cross, local_size, *constants, (strides, out_strides)), [x],
                          adapter=preset)
    same_bits(got, lrn_expected(x, cross, local_size, *constants))


@pytest.mark.parametrize("cross", [1, 0])
@pytest.mark.parametrize("local_size", [1, 2, 5])
def test_local_response_normalization_is_the_pages_formula(cross, local_size):
    x = (np.random.default_rng(local_size).standard_normal((2, 6, 4, 5)) * 3).astype(np.float32)
    (got,) = run_operator(lrn_desc("FLOAT32", x.shape, cross, local_size, 0.5, 0.75, 1.0), [x])
    same_bits(got, lrn_expected(x, cross, local_size, 0.5, 0.75, 1.0))
    wide, lo = x.astype(np.float64), (local_size - 1) // 2
    hi = local_size - 1 - lo
    total = np.zeros_like(wide)
    for c in range(6):
        for h in range(4):
            for w in range(5):
                if cross:
                    total[:, c, h, w] = (wide[:, max(0, c - lo):c + hi + 1, h, w] ** 2).sum(axis=1)
                else:
                    total[:, c, h, w] = (wide[:, c, max(0, h - lo):h + hi + 1, max(0, w - lo):w + hi + 1] ** 2).sum(
                        axis=(1, 2))
    np.testing.assert_allclose(got, wide / (1.0 + 0.5 / local_size * total) ** 0.75, rtol=3e-6, atol=1e-7)


def test_local_response_normalization_rules_are_checked():
    def refused(desc):
        dml = DMLCreateDevice(D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0), DML_CREATE_DEVICE_FLAG_NONE)
        try:
            dml.CreateOperator(DML_OPERATOR_DESC(Type=DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION, Desc=desc))
        except HResultError as error:
            return error.hresult, error.message
        return "validated"
    assert refused(lrn_desc("FLOAT32", [1, 3, 2, 2], 1, 3)) == "validated"
    assert refused(lrn_desc("FLOAT32", [1, 3, 2, 2], 1, 0)) == (
        E_INVALIDARG, "LocalSize is 0; DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION requires LocalSize >= 1.")
    assert refused(lrn_desc("FLOAT32", [3, 2, 2], 1, 3))[0] == E_INVALIDARG       # 4 dimensions
    assert refused(lrn_desc("INT32", [1, 3, 2, 2], 1, 3))[0] == E_INVALIDARG


# ---- BATCH_NORMALIZATION_TRAINING: MVN over Scale's size-1 dimensions, the statistics stored --------------------------
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 4), st.data(), st.sampled_from(["FLOAT32", "FLOAT16"]), st.booleans(),
       st.sampled_from(["packed", "padded", "permuted", "broadcast"]), st.booleans(),
       st.sampled_from(PRESETS + (WARP,)), st.integers(0, 2 ** 32 - 1))
def test_drawn_batch_normalization_trainings_are_bit_exact_on_every_adapter(rank, data, type_name, has_add, layout,
                                                                           special, preset, seed):
    rng = np.random.default_rng(seed)
    sizes = [data.draw(st.integers(1, 6)) for _ in range(rank)]
    if data.draw(st.booleans()):
        sizes[0] = data.draw(st.integers(7, 90))
    side = [s if data.draw(st.booleans()) else 1 for s in sizes]
    x_strides, dims = layout_strides(sizes, layout, rng)
    x = broadcast_values(values(rng, type_name, sizes, special), dims)
    scale, bias = values(rng, type_name, side), values(rng, type_name, side)
    add = values(rng, type_name, sizes) if has_add else None
    own = lambda shape: layout_strides(shape, "padded" if layout == "broadcast" else layout, rng)[0]
    out_strides, mean_strides = own(sizes), own(side)
    desc = DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC(
        InputTensor=tensor(type_name, sizes, x_strides), ScaleTensor=tensor(type_name, side),
        BiasTensor=tensor(type_name, side), FusedAddTensor=tensor(type_name, sizes) if has_add else None,
        OutputTensor=tensor(type_name, sizes, out_strides), OutputMeanTensor=tensor(type_name, side, mean_strides),
        OutputVarianceTensor=tensor(type_name, side), Epsilon=1e-5, FusedActivation=None)
    got = run_operator(desc, [x, scale, bias, add], adapter=preset)
    want = golden.run("BATCH_NORMALIZATION_TRAINING", [x, scale, bias, add], {"Epsilon": np.float32(1e-5)})
    for g, w in zip(got, want):
        same_bits(g, w)


def test_batch_normalization_training_stores_the_mean_and_the_biased_variance():
    rng = np.random.default_rng(8)
    x = values(rng, "FLOAT32", (4, 3, 5))
    scale, bias = np.ones((1, 3, 1), np.float32), np.zeros((1, 3, 1), np.float32)
    relu = fused("ACTIVATION_RELU")
    desc = DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC(
        InputTensor=tensor("FLOAT32", x.shape), ScaleTensor=tensor("FLOAT32", scale.shape),
        BiasTensor=tensor("FLOAT32", bias.shape), FusedAddTensor=tensor("FLOAT32", x.shape),
        OutputTensor=tensor("FLOAT32", x.shape), OutputMeanTensor=tensor("FLOAT32", scale.shape),
        OutputVarianceTensor=tensor("FLOAT32", scale.shape), Epsilon=1e-5, FusedActivation=relu)
    out, mean, variance = run_operator(desc, [x, scale, bias, x])
    wide = x.astype(np.float64)
    np.testing.assert_allclose(mean.ravel(), wide.mean(axis=(0, 2)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(variance.ravel(), wide.var(axis=(0, 2)), rtol=1e-5)
    normalized = (wide - wide.mean(axis=(0, 2), keepdims=True)) / np.sqrt(wide.var(axis=(0, 2), keepdims=True) + 1e-5)
    np.testing.assert_allclose(out, np.maximum(normalized + wide, 0), rtol=1e-5, atol=1e-5)
    same_bits(out, golden.run("BATCH_NORMALIZATION_TRAINING", [x, scale, bias, x],
                              {"Epsilon": np.float32(1e-5), "FusedActivation": ("ACTIVATION_RELU", {})})[0])


def test_a_batch_normalization_fuses_into_an_element_wise_chain():
    """BATCH_NORMALIZATION is an element-wise row: CompileGraph fuses it with its neighbours, its four statistics
    tensors broadcast along the rows."""
    from test_graph import GraphSpec, X, _random, assert_graph_matches, clip, identity, op
    from test_graph import tensor as graph_tensor
    w = graph_tensor([1] * (len(X.Desc.Sizes) - 1) + [X.Desc.Sizes[-1]])
    spec = GraphSpec(nodes=[(clip(X, -1.0, 2.0), "clip"),
                            (op("BATCH_NORMALIZATION", InputTensor=X, MeanTensor=w, VarianceTensor=w, ScaleTensor=w,
                                BiasTensor=w, OutputTensor=X, Spatial=1, Epsilon=1e-3), "batch_norm"),
                            (identity(X, scale_bias=(3.0, 1.0)), "scale")],
                     input_count=5, output_count=1,
                     inputs=[(0, 0, 0), (1, 1, 1), (2, 1, 2), (3, 1, 3), (4, 1, 4)],
                     intermediates=[(0, 0, 1, 0), (1, 0, 2, 0)], outputs=[(2, 0, 0)])
    variance = np.abs(_random(w, 5, special=False).view(np.float32)).view(np.uint8)
    assert_graph_matches(spec, [_random(X, 3), _random(w, 4, special=False), variance, _random(w, 6, special=False),
                                _random(w, 7, special=False)])


# ---- LRN, LP and BATCH_NORMALIZATION_TRAINING on every wave width ------------------------------------------------------
def run_on_width(operator, arrays, outputs, attributes, width):
    """The kernel alone (DirectRun) on RX_7900_XTX at `width`: `arrays` the inputs (None: absent), `outputs` arrays of
    the outputs' shapes and types; returns the outputs."""
    gpu = Gpu(RX_7900_XTX, wave_width=width, timing=False)
    t = lambda a: "FLOAT32" if a.dtype == np.float32 else "FLOAT16"
    spec = lambda a: None if a is None else TensorSpec(t(a), a.shape, None, a.nbytes)
    raw = lambda a: np.zeros(4, np.uint8) if a is None else a.view(np.uint8).reshape(-1)
    every = list(arrays) + list(outputs)
    run = DirectRun(gpu, operator, [spec(a) for a in every], [raw(a) for a in every], attributes=attributes)
    run.dispatch()
    first = len(arrays)
    return [run.output_bytes(first + i)[:o.nbytes].view(o.dtype).reshape(o.shape) for i, o in enumerate(outputs)]


@pytest.mark.parametrize("width", [8, 16, 32, 64])
def test_lrn_lp_and_training_give_the_same_bits_on_every_wave_width(width):
    rng = np.random.default_rng(21)
    x = values(rng, "FLOAT16", (2, 5, 3, 7), special=True)
    lrn = {"CrossChannel": 0, "LocalSize": 3, "Alpha": np.float32(0.5), "Beta": np.float32(0.75),
           "Bias": np.float32(1.0)}
    (got,) = run_on_width("LOCAL_RESPONSE_NORMALIZATION", [x], [np.zeros_like(x)], lrn, width)
    same_bits(got, golden.run("LOCAL_RESPONSE_NORMALIZATION", [x], lrn))
    lp = {"Axis": 3, "Epsilon": np.float32(1e-5), "P": 2}
    (got,) = run_on_width("LP_NORMALIZATION", [x], [np.zeros_like(x)], lp, width)
    same_bits(got, golden.run("LP_NORMALIZATION", [x], lp))
    scale, bias, add = values(rng, "FLOAT16", (1, 5, 1, 1)), values(rng, "FLOAT16", (1, 5, 1, 1)), values(
        rng, "FLOAT16", x.shape)
    stats = [np.zeros_like(x), np.zeros_like(scale), np.zeros_like(scale)]
    got = run_on_width("BATCH_NORMALIZATION_TRAINING", [x, scale, bias, add], stats, {"Epsilon": np.float32(1e-3)},
                       width)
    for g, w in zip(got, golden.run("BATCH_NORMALIZATION_TRAINING", [x, scale, bias, add],
                                    {"Epsilon": np.float32(1e-3)})):
        same_bits(g, w)


def test_a_window_wider_than_the_tensor_is_the_whole_tensor():
    x = values(np.random.default_rng(3), "FLOAT32", (1, 4, 2, 3)) * np.float32(3e4)    # squares near 2^32
    (huge,) = run_operator(lrn_desc("FLOAT32", x.shape, 1, 2 ** 32 - 1, 0.5, 0.75, 1.0), [x])
    (seven,) = run_operator(lrn_desc("FLOAT32", x.shape, 1, 7, 0.5 * 7 / (2 ** 32 - 1), 0.75, 1.0), [x])
    same_bits(huge, lrn_expected(x, 1, 2 ** 32 - 1, 0.5, 0.75, 1.0))
    np.testing.assert_allclose(huge, seven, rtol=1e-6)     # the same sum of all 4 channels, the same ratio
