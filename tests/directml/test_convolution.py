"""DML_OPERATOR_CONVOLUTION through the mirror, bit for bit against the golden model (docs/NUMERICS.md,
"Convolution").

Drawn descs (FLOAT32 and FLOAT16, one to three spatial dimensions, batches, groups up to depthwise, windows,
strides, dilations, start and end padding, both modes, a bias or none, a FusedActivation, packed, padded and
permuted layouts, special values) run on every adapter; the kernel alone runs on wave widths 8 to 64; the golden
model is checked against a literal per-element loop written from the text and against float64; the rules for
padded taps (skipped: -0 stays -0, a NaN weight on a padded tap does nothing), the bias and the validation
sentences of the page's rules are pinned."""
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dmlemu import golden, run_operator
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.direct_run import DirectRun
from dmlemu.directml.validation import convolution_output_sizes
from dmlemu.errors import E_INVALIDARG, E_NOTIMPL, HResultError
from dmlemu.gpu import Gpu
from dmlemu.isa.numerics import fused_multiply_add
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import PRESETS, RX_7900_XTX, WARP
from tensor_layouts import data_type, layout_strides, same_bits, tensor

DTYPES = {"FLOAT32": np.float32, "FLOAT16": np.float16}
CROSS, CONV = 1, 0          # DML_CONVOLUTION_MODE_CROSS_CORRELATION, DML_CONVOLUTION_MODE_CONVOLUTION


def geometry(spatial, strides=None, dilations=None, start=None, end=None, output_padding=None):
    ones, zeros = [1] * spatial, [0] * spatial
    return dict(Strides=list(strides or ones), Dilations=list(dilations or ones), StartPadding=list(start or zeros),
                EndPadding=list(end or zeros), OutputPadding=list(output_padding or zeros))


def output_sizes(x_sizes, w_sizes, g):
    return [x_sizes[0], w_sizes[0]] + list(convolution_output_sizes(
        x_sizes[2:], w_sizes[2:], g["Strides"], g["Dilations"], g["StartPadding"], g["EndPadding"]))


def conv_desc(type_name, x_sizes, w_sizes, out_sizes=None, bias=False, mode=CROSS, groups=1, activation=None,
              tensor_strides=(None, None, None, None), direction=0, **geo):
    g = geometry(len(x_sizes) - 2, **geo)
    out_sizes = out_sizes or output_sizes(x_sizes, w_sizes, g)
    return DML_CONVOLUTION_OPERATOR_DESC(
        InputTensor=tensor(type_name, x_sizes, tensor_strides[0]),
        FilterTensor=tensor(type_name, w_sizes, tensor_strides[1]),
        BiasTensor=tensor(type_name, [1, out_sizes[1]] + [1] * (len(x_sizes) - 2), tensor_strides[2]) if bias else None,
        OutputTensor=tensor(type_name, out_sizes, tensor_strides[3]), Mode=mode, Direction=direction, GroupCount=groups,
        FusedActivation=activation, **g)


def attributes_of(desc):
    return {"Mode": desc.Mode, "Direction": desc.Direction, "Strides": desc.Strides, "Dilations": desc.Dilations,
            "StartPadding": desc.StartPadding, "EndPadding": desc.EndPadding, "OutputPadding": desc.OutputPadding,
            "GroupCount": desc.GroupCount}


def values(rng, type_name, shape, special=False):
    x = (rng.standard_normal(shape) * rng.choice([1e-2, 1.0, 30.0])).astype(DTYPES[type_name])
    if special and x.size:
        picks = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], dtype=x.dtype)
        mask = rng.random(shape) < 0.03
        x[mask] = rng.choice(picks, size=int(mask.sum()))
    return x


# ---- drawn descs through the mirror ------------------------------------------------------------------------------
@st.composite
def cases(draw):
    spatial = draw(st.integers(1, 3))
    groups = draw(st.sampled_from([1, 1, 2, 3]))
    depthwise = draw(st.booleans()) and groups > 1
    c_group = 1 if depthwise else draw(st.integers(1, 3))
    k_group = draw(st.sampled_from([1, 2, 4, 8]))      # 4 and 8: four output channels a thread (TILE_K)
    window = [draw(st.integers(1, 3)) for _ in range(spatial)]
    strides = [draw(st.integers(1, 2)) for _ in range(spatial)]
    dilations = [draw(st.integers(1, 2)) for _ in range(spatial)]
    start = [draw(st.integers(0, 2)) for _ in range(spatial)]
    end = [draw(st.integers(0, 2)) for _ in range(spatial)]
    extent = [(w - 1) * d + 1 for w, d in zip(window, dilations)]
    in_sizes = [max(draw(st.integers(1, 6 if spatial < 3 else 4)), e - s - t)
                for e, s, t in zip(extent, start, end)]
    return dict(type_name=draw(st.sampled_from(["FLOAT32", "FLOAT16"])), n=draw(st.integers(1, 2)), groups=groups,
                c_group=c_group, k_group=k_group, window=window, in_sizes=in_sizes,
                geo=dict(strides=strides, dilations=dilations, start=start, end=end), mode=draw(st.sampled_from([CROSS, CONV])),
                bias=draw(st.booleans()), layouts=[draw(st.sampled_from(["packed", "padded", "permuted"]))
                                                   for _ in range(4)],
                special=draw(st.booleans()), seed=draw(st.integers(0, 2 ** 32 - 1)))


def run_case(case, preset=None, activation=None, fused=None):
    rng = np.random.default_rng(case["seed"])
    t, groups = case["type_name"], case["groups"]
    c, k = groups * case["c_group"], groups * case["k_group"]
    x_sizes = [case["n"], c] + case["in_sizes"]
    w_sizes = [k, case["c_group"]] + case["window"]
    g = geometry(len(x_sizes) - 2, **case["geo"])
    out_sizes = output_sizes(x_sizes, w_sizes, g)
    b_sizes = [1, k] + [1] * (len(x_sizes) - 2)
    strides = [layout_strides(s, layout, rng)[0] for s, layout in zip((x_sizes, w_sizes, b_sizes, out_sizes),
                                                                      case["layouts"])]
    x, w = values(rng, t, x_sizes, case["special"]), values(rng, t, w_sizes, case["special"])
    bias = values(rng, t, b_sizes, case["special"]) if case["bias"] else None
    desc = conv_desc(t, x_sizes, w_sizes, out_sizes, case["bias"], case["mode"], groups, activation,
                     tensor_strides=strides, **case["geo"])
    (got,) = run_operator(desc, [x, w, bias], adapter=preset)
    attributes = attributes_of(desc)
    if fused is not None:
        attributes["FusedActivation"] = fused
    want = golden.run("CONVOLUTION", [x, w, bias], attributes)
    same_bits(got, want)
    return got, want


@settings(max_examples=45, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.sampled_from(PRESETS + (WARP,)))
def test_drawn_convolutions_are_bit_exact_on_every_adapter(case, preset):
    run_case(case, preset)


def test_a_depthwise_3x3_with_padding_and_bias():
    case = dict(type_name="FLOAT32", n=1, groups=8, c_group=1, k_group=1, window=[3, 3], in_sizes=[9, 7],
                geo=dict(strides=[1, 1], dilations=[1, 1], start=[1, 1], end=[1, 1]), mode=CROSS, bias=True,
                layouts=["packed"] * 4, special=False, seed=5)
    got, _ = run_case(case)
    assert got.shape == (1, 8, 9, 7)


# ---- the same kernel on every wave width ---------------------------------------------------------------------------
def run_kernel(x, w, bias, width, attributes):
    gpu = Gpu(RX_7900_XTX, wave_width=width, timing=False)
    t = "FLOAT32" if x.dtype == np.float32 else "FLOAT16"
    g = {k: attributes[k] for k in ("Strides", "Dilations", "StartPadding", "EndPadding")}
    out = np.zeros(output_sizes(x.shape, w.shape, g), x.dtype)
    spec = lambda a: TensorSpec(t, a.shape, None, a.nbytes)
    raw = lambda a: a.view(np.uint8).reshape(-1)
    run = DirectRun(gpu, "CONVOLUTION", [spec(x), spec(w), None if bias is None else spec(bias), spec(out)],
                    [raw(x), raw(w), np.zeros(4, np.uint8) if bias is None else raw(bias), raw(out)],
                    attributes=attributes)
    run.dispatch()
    return run.output_bytes(3)[:out.nbytes].view(out.dtype).reshape(out.shape)


@pytest.mark.parametrize("type_name, k", [("FLOAT32", 6), ("FLOAT16", 6), ("FLOAT32", 8), ("FLOAT16", 8)])
def test_every_wave_width_gives_the_same_bits(type_name, k):
    rng = np.random.default_rng(12)
    x = values(rng, type_name, (2, 4, 7, 6), special=True)
    w = values(rng, type_name, (k, 2, 3, 2), special=True)       # K / G = 4: the TILE_K variant
    bias = values(rng, type_name, (1, k, 1, 1))
    attributes = dict(Mode=CONV, Direction=0, GroupCount=2, **geometry(2, strides=[2, 1], dilations=[1, 2],
                                                                       start=[1, 0], end=[2, 1]))
    want = golden.run("CONVOLUTION", [x, w, bias], attributes)
    for width in (8, 16, 32, 64):
        same_bits(run_kernel(x, w, bias, width, attributes), want)


# ---- the golden model's order, from the text -----------------------------------------------------------------------
def literal(x, w, bias, mode, groups, strides, dilations, start, out_spatial):
    """Each element on its own: acc from -0, fma over channel then taps ascending, padded taps skipped, + bias."""
    n, c = x.shape[:2]
    k, c_group = w.shape[:2]
    window = w.shape[2:]
    out = np.zeros((n, k) + tuple(out_spatial), np.float32)
    for index in np.ndindex(out.shape):
        b, kk, o = index[0], index[1], index[2:]
        acc = np.float32(-0.0)
        for ci in range(c_group):
            for tap in itertools.product(*[range(s) for s in window]):
                i = [o[d] * strides[d] - start[d] + tap[d] * dilations[d] for d in range(len(o))]
                if not all(0 <= i[d] < x.shape[2 + d] for d in range(len(o))):
                    continue
                f = tuple(window[d] - 1 - tap[d] if mode == CONV else tap[d] for d in range(len(o)))
                xv = np.float32(x[(b, kk // (k // groups) * c_group + ci) + tuple(i)])
                acc = np.float32(fused_multiply_add(xv, np.float32(w[(kk, ci) + f]), acc))
        if bias is not None:
            acc = np.float32(acc + np.float32(bias[0, kk].ravel()[0]))
        out[index] = acc
    return out


@settings(max_examples=12, deadline=None)
@given(st.integers(1, 2), st.sampled_from([CROSS, CONV]), st.booleans(), st.integers(0, 2 ** 32 - 1))
def test_the_golden_convolution_is_the_literal_loop(spatial, mode, has_bias, seed):
    rng = np.random.default_rng(seed)
    groups = int(rng.integers(1, 3))
    x = values(rng, "FLOAT32", [2, 2 * groups] + [int(rng.integers(2, 6)) for _ in range(spatial)], True)
    w = values(rng, "FLOAT32", [2 * groups, 2] + [int(rng.integers(1, 4)) for _ in range(spatial)], True)
    bias = values(rng, "FLOAT32", [1, 2 * groups] + [1] * spatial, True) if has_bias else None
    g = geometry(spatial, strides=list(rng.integers(1, 3, spatial)), dilations=list(rng.integers(1, 3, spatial)),
                 start=list(rng.integers(0, 3, spatial)), end=list(rng.integers(0, 3, spatial)))
    out = output_sizes(x.shape, w.shape, g)
    if any(s < 1 for s in out[2:]) or any(
            (ws - 1) * d + 1 > i + s + e for ws, d, i, s, e in
            zip(w.shape[2:], g["Dilations"], x.shape[2:], g["StartPadding"], g["EndPadding"])):
        return
    want = literal(x, w, bias, mode, groups, g["Strides"], g["Dilations"], g["StartPadding"], out[2:])
    want[np.isnan(want)] = np.float32(np.nan)      # canonical NaN
    same_bits(golden.run("CONVOLUTION", [x, w, bias], dict(Mode=mode, GroupCount=groups, **g)), want)


def test_close_to_float64():
    rng = np.random.default_rng(9)
    x, w = rng.uniform(-1, 1, (1, 6, 8, 8)).astype(np.float32), rng.uniform(-1, 1, (4, 6, 3, 3)).astype(np.float32)
    (got,) = run_operator(conv_desc("FLOAT32", x.shape, w.shape), [x, w, None])
    windows = np.lib.stride_tricks.sliding_window_view(x.astype(np.float64), (3, 3), axis=(2, 3))
    exact = np.einsum("nchwij,kcij->nkhw", windows, w.astype(np.float64))
    np.testing.assert_allclose(got, exact, rtol=0, atol=1e-5)


# ---- padding, signed zero, NaN, bias -------------------------------------------------------------------------------
def test_padded_taps_are_skipped_so_negative_zero_stays_negative_zero():
    # every product is -1 x +0 = -0: from acc = -0 the sum stays -0, also at the borders where taps fall in the
    # padding (an fma(0, +0, -0) for them would give +0)
    x = -np.ones((1, 2, 4, 5), np.float32)
    w = np.zeros((3, 2, 3, 3), np.float32)
    (got,) = run_operator(conv_desc("FLOAT32", x.shape, w.shape, start=[1, 2], end=[2, 1]), [x, w, None])
    assert got.shape == (1, 3, 5, 6) and (got.view(np.uint32) == 0x80000000).all()
    # with a bias of +0, added once at the end: -0 + +0 = +0
    bias = np.zeros((1, 3, 1, 1), np.float32)
    (got,) = run_operator(conv_desc("FLOAT32", x.shape, w.shape, bias=True, start=[1, 2], end=[2, 1]),
                          [x, w, bias])
    assert (got.view(np.uint32) == 0).all()
    # a window entirely in the padding has no tap at all: -0, or the bias alone
    x, w, bias = np.full((1, 1, 1, 1), 7, np.float32), np.full((1, 1, 1, 1), 2, np.float32), np.full((1, 1, 1, 1), 0.5, np.float32)
    (got,) = run_operator(conv_desc("FLOAT32", x.shape, w.shape, start=[1, 1], end=[0, 0]), [x, w, None])
    assert got.view(np.uint32)[0, 0].tolist() == [[0x80000000, 0x80000000], [0x80000000, 0x41600000]]
    (got,) = run_operator(conv_desc("FLOAT32", x.shape, w.shape, bias=True, start=[1, 1], end=[0, 0]), [x, w, bias])
    assert got[0, 0].tolist() == [[0.5, 0.5], [0.5, 14.5]]


def test_a_nan_weight_on_a_padded_tap_does_nothing():
    x = np.ones((1, 1, 3, 3), np.float32)
    w = np.ones((1, 1, 3, 3), np.float32)
    w[0, 0, 0, :] = np.nan          # the top row of the window: in the padding for the first output row only
    (got,) = run_operator(conv_desc("FLOAT32", x.shape, w.shape, start=[1, 1], end=[1, 1]), [x, w, None])
    assert np.isnan(got[0, 0, 1:]).all()           # rows 1, 2 read the NaN row's taps inside the input
    # the first output row's window starts one row above the input: its NaN taps are skipped
    assert got[0, 0, 0].tolist() == [4.0, 6.0, 4.0]


def test_convolution_mode_flips_the_filter():
    x = np.arange(5, dtype=np.float32).reshape(1, 1, 5)
    w = np.array([1, 10, 100], np.float32).reshape(1, 1, 3)
    (cross,) = run_operator(conv_desc("FLOAT32", x.shape, w.shape), [x, w, None])
    (conv,) = run_operator(conv_desc("FLOAT32", x.shape, w.shape, mode=CONV), [x, w, None])
    assert cross.ravel().tolist() == [210.0, 321.0, 432.0]   # x[i] + 10 x[i + 1] + 100 x[i + 2]
    assert conv.ravel().tolist() == [12.0, 123.0, 234.0]     # 100 x[i] + 10 x[i + 1] + x[i + 2]


def test_float16_accumulates_in_float32_and_rounds_once():
    x = np.array([2048] + [1] * 8, np.float16).reshape(1, 9, 1, 1)
    w = np.ones((1, 9, 1, 1), np.float16)
    (got,) = run_operator(conv_desc("FLOAT16", x.shape, w.shape), [x, w, None])
    assert got.ravel().tolist() == [2056.0]


# ---- FusedActivation -----------------------------------------------------------------------------------------------
def fused(name, **fields):
    from dmlemu.directml.operators import SCHEMAS_BY_NAME
    return DML_OPERATOR_DESC(Type=getattr(DML_OPERATOR_TYPE, "DML_OPERATOR_" + name),
                             Desc=SCHEMAS_BY_NAME[name].desc_type(**fields))


@pytest.mark.parametrize("name, fields", [("ACTIVATION_RELU", {}), ("ACTIVATION_LEAKY_RELU", {"Alpha": 0.1}),
                                          ("ACTIVATION_SIGMOID", {}), ("ACTIVATION_LINEAR", {"Alpha": 1.5, "Beta": -0.25}),
                                          ("ACTIVATION_GELU", {})])
@pytest.mark.parametrize("type_name", ["FLOAT32", "FLOAT16"])
def test_a_fused_activation_is_the_activation_of_the_result(name, fields, type_name):
    case = dict(type_name=type_name, n=1, groups=2, c_group=2, k_group=4, window=[3, 2], in_sizes=[5, 4],
                geo=dict(strides=[1, 2], dilations=[1, 1], start=[1, 0], end=[1, 1]), mode=CROSS, bias=True,
                layouts=["packed", "padded", "packed", "permuted"], special=True, seed=len(name))
    fused_attrs = (name, {k: np.float32(v) for k, v in fields.items()})
    got, _ = run_case(case, activation=fused(name, **fields), fused=fused_attrs)
    if type_name == "FLOAT32":       # the activation of the FLOAT32 result, as the operator alone gives it
        plain, _ = run_case(case)
        same_bits(got, golden.run(name, [plain], fused_attrs[1]))


# ---- validation ------------------------------------------------------------------------------------------------
def refusal(desc, level=None):
    dml = DMLCreateDevice(D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0), DML_CREATE_DEVICE_FLAG_NONE,
                          **({} if level is None else {"max_feature_level": level}))
    try:
        dml.CreateOperator(DML_OPERATOR_DESC(Type=DML_OPERATOR_CONVOLUTION, Desc=desc))
    except HResultError as error:
        return error.hresult, error.message
    return "validated"


def test_shapes_are_checked():
    assert refusal(conv_desc("FLOAT32", [1, 4, 5, 5], [6, 2, 3, 3], groups=2)) == "validated"
    assert refusal(conv_desc("FLOAT32", [1, 4, 5, 5], [6, 4, 3, 3], groups=2)) == (
        E_INVALIDARG, "FilterTensor.Sizes is {6,4,3,3}; DML_OPERATOR_CONVOLUTION with InputTensor.Sizes {1,4,5,5}, "
                      "OutputTensor.Sizes {1,6,3,3} and GroupCount 2 needs { OutputChannelCount, InputChannelCount / "
                      "GroupCount, .. }, i.e. {6,2,..}.")
    assert refusal(conv_desc("FLOAT32", [1, 4, 5, 5], [6, 4, 3, 3], out_sizes=[1, 6, 4, 3])) == (
        E_INVALIDARG, "OutputTensor.Sizes is {1,6,4,3}; DML_OPERATOR_CONVOLUTION with InputTensor.Sizes {1,4,5,5}, "
                      "FilterTensor.Sizes {6,4,3,3}, Strides {1,1}, Dilations {1,1}, StartPadding {0,0} and "
                      "EndPadding {0,0} needs {1,6,3,3}.")
    assert refusal(conv_desc("FLOAT32", [1, 3, 5, 5], [6, 1, 3, 3], groups=2)) == (
        E_INVALIDARG, "GroupCount is 2 but InputTensor.Sizes[1] is 3; DML_OPERATOR_CONVOLUTION needs GroupCount to "
                      "divide the input and output channel counts.")
    assert refusal(conv_desc("FLOAT32", [1, 1, 2, 2], [1, 1, 3, 3], out_sizes=[1, 1, 1, 1])) == (
        E_INVALIDARG, "InputTensor.Sizes is {1,1,2,2} with StartPadding {0,0} and EndPadding {0,0}; "
                      "DML_OPERATOR_CONVOLUTION needs the padded input to hold the dilated filter {3,3}.")
    desc = conv_desc("FLOAT32", [1, 2, 5, 5], [3, 2, 3, 3], bias=True)
    desc.BiasTensor = tensor("FLOAT32", [1, 1, 1, 3])
    assert refusal(desc) == (E_INVALIDARG, "BiasTensor.Sizes is {1,1,1,3}; DML_OPERATOR_CONVOLUTION with "
                                           "OutputTensor.Sizes {1,3,3,3} needs {1,3,1,1}.")


def test_the_spatial_arrays_are_checked():
    desc = conv_desc("FLOAT32", [1, 2, 5, 5], [3, 2, 3, 3])
    desc.Strides = [1, 0]
    assert refusal(desc) == (E_INVALIDARG, "Strides[1] is 0; it must be an integer from 1 to 4294967295.")
    desc = conv_desc("FLOAT32", [1, 2, 5, 5], [3, 2, 3, 3])
    desc.Dilations = [1]
    assert refusal(desc) == (E_INVALIDARG, "Dilations has 1 elements but DimensionCount is 2; they must agree.")
    desc = conv_desc("FLOAT32", [1, 2, 5, 5], [3, 2, 3, 3])
    desc.DimensionCount = 3
    assert refusal(desc) == (E_INVALIDARG, "DimensionCount is 3; DML_OPERATOR_CONVOLUTION needs "
                                           "InputTensor.DimensionCount - 2 = 2 (the spatial dimensions).")
    desc = conv_desc("FLOAT32", [1, 2, 5, 5], [3, 2, 3, 3])
    desc.EndPadding = None
    assert refusal(desc) == (E_INVALIDARG, "EndPadding is None; DML_OPERATOR_CONVOLUTION reads 2 values from it "
                                           "(DimensionCount).")
    desc = conv_desc("FLOAT32", [1, 2, 5, 5], [3, 2, 3, 3], output_padding=[1, 0])
    assert refusal(desc) == (E_INVALIDARG, "OutputPadding is {1,0}; DML_OPERATOR_CONVOLUTION with "
                                           "DML_CONVOLUTION_DIRECTION_FORWARD needs zeros (OutputPadding pads a "
                                           "BACKWARD result).")
    desc = conv_desc("FLOAT32", [1, 2, 5, 5], [3, 2, 3, 3])
    desc.GroupCount = 0
    assert refusal(desc) == (E_INVALIDARG, "GroupCount is 0; it must be an integer from 1 to 4294967295.")


def test_dimension_counts_and_types_per_feature_level():
    one_d = conv_desc("FLOAT32", [1, 2, 5], [3, 2, 3])
    assert refusal(one_d) == "validated"
    hresult, message = refusal(one_d, DML_FEATURE_LEVEL_3_1)
    assert hresult == E_INVALIDARG and message.startswith("InputTensor.Sizes has 3 dimensions; "
                                                          "DML_FEATURE_LEVEL_3_1 allows 4 to 5")
    assert refusal(conv_desc("FLOAT32", [1, 2, 5, 5], [3, 2, 3, 3]), DML_FEATURE_LEVEL_1_0) == "validated"
    assert refusal(conv_desc("INT32", [1, 2, 5, 5], [3, 2, 3, 3]))[0] == E_INVALIDARG
    desc = conv_desc("FLOAT32", [1, 2, 5, 5], [3, 2, 3, 3])
    desc.FilterTensor = tensor("FLOAT16", [3, 2, 3, 3])
    assert refusal(desc)[0] == E_INVALIDARG


def test_backward_shapes_and_output_padding_are_checked():
    # transposed: x {1, 2, 3, 3}, filter {C = 2, K / G = 3, 3, 3}; output Strides (I - 1) + 3 + OutputPadding
    desc = conv_desc("FLOAT32", [1, 2, 3, 3], [2, 3, 3, 3], out_sizes=[1, 3, 8, 5], direction=1, strides=[2, 1],
                     output_padding=[1, 0])
    assert refusal(desc) == "validated"
    desc = conv_desc("FLOAT32", [1, 2, 3, 3], [2, 3, 3, 3], out_sizes=[1, 3, 8, 5], direction=1, strides=[2, 1],
                     output_padding=[2, 0])
    assert refusal(desc) == (E_INVALIDARG, "OutputPadding[0] is 2; DML_OPERATOR_CONVOLUTION needs it below Strides[0] "
                                           "(2) or Dilations[0] (1).")
    desc = conv_desc("FLOAT32", [1, 2, 3, 3], [3, 2, 3, 3], out_sizes=[1, 3, 5, 5], direction=1)
    assert refusal(desc)[0] == E_INVALIDARG and "(BACKWARD)" in refusal(desc)[1]


# ---- the GEMM path: a 1 x 1 convolution is a matrix product per batch on gemm.s ----------------------------------
def program_name(x_shape, w_shape, layout=(None, None, None, None), type_name="FLOAT32", **geo):
    from dmlemu.kernels.driver import compile_operator
    desc = conv_desc(type_name, x_shape, w_shape, tensor_strides=layout, **geo)
    sizes = [x_shape, w_shape, None, output_sizes(x_shape, w_shape, geometry(len(x_shape) - 2, **geo))]
    specs = [None if s is None else TensorSpec(type_name, tuple(s), None if st is None else tuple(st))
             for s, st in zip(sizes, layout)]
    return compile_operator("CONVOLUTION", specs, attributes=attributes_of(desc)).program.name


def test_the_driver_picks_the_gemm_path_for_plain_1x1_convolutions_only():
    assert program_name((1, 16, 4, 4), (8, 16, 1, 1)) == "convolution_gemm_float32_no_bias"
    assert program_name((1, 15, 4, 4), (8, 15, 1, 1)) == "convolution_direct_float32_k4_no_bias"   # few channels
    assert program_name((1, 15, 4, 4), (6, 15, 1, 1)) == "convolution_direct_float32_no_bias"      # K / G = 6
    assert program_name((1, 16, 4, 4), (8, 16, 3, 3), start=[1, 1], end=[1, 1]).startswith("convolution_direct")
    assert program_name((1, 16, 4, 4), (8, 16, 1, 1), strides=[2, 2]).startswith("convolution_direct")
    # NHWC strides merge H and W too; a padded row does not
    assert program_name((1, 16, 4, 5), (8, 16, 1, 1), layout=([320, 1, 80, 16], None, None, None)) == \
        "convolution_gemm_float32_no_bias"
    assert program_name((1, 16, 4, 5), (8, 16, 1, 1), layout=([384, 24, 6, 1], None, None, None)).startswith(
        "convolution_direct")


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["FLOAT32", "FLOAT16"]), st.integers(1, 2), st.integers(16, 40), st.integers(1, 70),
       st.lists(st.integers(1, 9), min_size=1, max_size=3), st.booleans(),
       st.sampled_from(["packed", "padded", "permuted"]), st.booleans(), st.integers(0, 2 ** 32 - 1),
       st.sampled_from(PRESETS + (WARP,)))
def test_drawn_1x1_convolutions_are_bit_exact_on_either_path(type_name, n, c, k, spatial_sizes, bias, layout,
                                                               special, seed, preset):
    case = dict(type_name=type_name, n=n, groups=1, c_group=c, k_group=k, window=[1] * len(spatial_sizes),
                in_sizes=spatial_sizes, geo=dict(), mode=CONV, bias=bias, layouts=[layout] * 4, special=special,
                seed=seed)
    run_case(case, preset)


def test_the_gemm_path_gives_the_direct_kernels_bits_on_every_wave_width():
    rng = np.random.default_rng(21)
    x, w = values(rng, "FLOAT16", (2, 24, 9, 10), special=True), values(rng, "FLOAT16", (70, 24, 1, 1), special=True)
    bias = values(rng, "FLOAT16", (1, 70, 1, 1), special=True)
    attributes = dict(Mode=CROSS, Direction=0, GroupCount=1, **geometry(2))
    want = golden.run("CONVOLUTION", [x, w, bias], attributes)
    for width in (8, 16, 32, 64):
        same_bits(run_kernel(x, w, bias, width, attributes), want)


# ---- BACKWARD (transposed convolution): the golden model, from the text --------------------------------------------
def literal_backward(x, w, mode, groups, strides, dilations, start, out_spatial):
    """ConvTranspose as a scatter written independently: every input element adds x * w[c, k', t] at
    o = i * Strides - StartPadding + t * Dilations; the gather order of the text (channels, then taps ascending)
    is kept by collecting each output element's terms in that order and summing them with fmas from -0."""
    n, c = x.shape[:2]
    c_w, k_group = w.shape[:2]
    window = w.shape[2:]
    k, c_group = k_group * groups, c // groups
    terms = {}
    for b, ci in itertools.product(range(n), range(c)):
        g = ci // c_group
        for i in np.ndindex(x.shape[2:]):
            for tap in itertools.product(*[range(s) for s in window]):
                o = tuple(i[d] * strides[d] - start[d] + tap[d] * dilations[d] for d in range(len(i)))
                if not all(0 <= o[d] < out_spatial[d] for d in range(len(o))):
                    continue
                f = tuple(window[d] - 1 - tap[d] if mode == CONV else tap[d] for d in range(len(o)))
                for kk in range(k_group):
                    terms.setdefault((b, g * k_group + kk) + o, []).append(
                        ((ci % c_group, tap), np.float32(x[(b, ci) + i]), np.float32(w[(ci, kk) + f])))
    out = np.full((n, k) + tuple(out_spatial), -0.0, np.float32)
    for index, items in terms.items():
        acc = np.float32(-0.0)
        for _, xv, wv in sorted(items, key=lambda item: item[0]):
            acc = np.float32(fused_multiply_add(xv, wv, acc))
        out[index] = acc
    return out


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 2), st.sampled_from([CROSS, CONV]), st.integers(0, 2 ** 32 - 1))
def test_the_golden_backward_convolution_is_conv_transpose(spatial, mode, seed):
    rng = np.random.default_rng(seed)
    groups = int(rng.integers(1, 3))
    x = values(rng, "FLOAT32", [1, 2 * groups] + [int(rng.integers(1, 4)) for _ in range(spatial)], True)
    w = values(rng, "FLOAT32", [2 * groups, 2] + [int(rng.integers(1, 4)) for _ in range(spatial)], True)
    strides, dilations = list(rng.integers(1, 3, spatial)), list(rng.integers(1, 3, spatial))
    start, end = list(rng.integers(0, 2, spatial)), list(rng.integers(0, 2, spatial))
    out_pad = [int(rng.integers(0, max(s, d))) for s, d in zip(strides, dilations)]
    out_spatial = [s * (i - 1) + (ws - 1) * d + 1 - a - b + p for s, i, ws, d, a, b, p in
                   zip(strides, x.shape[2:], w.shape[2:], dilations, start, end, out_pad)]
    if min(out_spatial) < 1:
        return
    want = literal_backward(x, w, mode, groups, strides, dilations, start, out_spatial)
    want[np.isnan(want)] = np.float32(np.nan)
    got = golden.run("CONVOLUTION", [x, w, None], dict(Mode=mode, Direction=1, GroupCount=groups, Strides=strides,
                                                       Dilations=dilations, StartPadding=start, EndPadding=end,
                                                       OutputPadding=out_pad))
    same_bits(got, want)


@st.composite
def backward_cases(draw):
    spatial = draw(st.integers(1, 3))
    groups = draw(st.sampled_from([1, 1, 2]))
    strides = [draw(st.integers(1, 3)) for _ in range(spatial)]
    dilations = [draw(st.integers(1, 2)) for _ in range(spatial)]
    window = [draw(st.integers(1, 3)) for _ in range(spatial)]
    start = [draw(st.integers(0, 2)) for _ in range(spatial)]
    end = [draw(st.integers(0, 2)) for _ in range(spatial)]
    out_pad = [draw(st.integers(0, max(s, d) - 1)) for s, d in zip(strides, dilations)]
    in_sizes = [draw(st.integers(1, 4 if spatial < 3 else 3)) for _ in range(spatial)]
    out_spatial = [s * (i - 1) + (ws - 1) * d + 1 - a - b + p for s, i, ws, d, a, b, p in
                   zip(strides, in_sizes, window, dilations, start, end, out_pad)]
    return dict(type_name=draw(st.sampled_from(["FLOAT32", "FLOAT16"])), n=draw(st.integers(1, 2)), groups=groups,
                c_group=draw(st.integers(1, 3)), k_group=draw(st.sampled_from([1, 2, 4])), window=window,
                in_sizes=in_sizes,
                out_spatial=out_spatial, geo=dict(strides=strides, dilations=dilations, start=start, end=end,
                                                  output_padding=out_pad),
                mode=draw(st.sampled_from([CROSS, CONV])), bias=draw(st.booleans()),
                layouts=[draw(st.sampled_from(["packed", "padded", "permuted"])) for _ in range(4)],
                special=draw(st.booleans()), seed=draw(st.integers(0, 2 ** 32 - 1)))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(backward_cases(), st.sampled_from(PRESETS + (WARP,)))
def test_drawn_backward_convolutions_are_bit_exact_on_every_adapter(case, preset):
    if min(case["out_spatial"]) < 1:
        return
    rng = np.random.default_rng(case["seed"])
    t, groups = case["type_name"], case["groups"]
    c, k = groups * case["c_group"], groups * case["k_group"]
    x_sizes = [case["n"], c] + case["in_sizes"]
    w_sizes = [c, case["k_group"]] + case["window"]
    out_sizes = [case["n"], k] + case["out_spatial"]
    b_sizes = [1, k] + [1] * len(case["in_sizes"])
    strides = [layout_strides(s, layout, rng)[0] for s, layout in zip((x_sizes, w_sizes, b_sizes, out_sizes),
                                                                      case["layouts"])]
    x, w = values(rng, t, x_sizes, case["special"]), values(rng, t, w_sizes, case["special"])
    bias = values(rng, t, b_sizes, case["special"]) if case["bias"] else None
    desc = conv_desc(t, x_sizes, w_sizes, out_sizes, case["bias"], case["mode"], groups, None, strides, direction=1,
                     **case["geo"])
    (got,) = run_operator(desc, [x, w, bias], adapter=preset)
    same_bits(got, golden.run("CONVOLUTION", [x, w, bias], attributes_of(desc)))


def test_backward_on_every_wave_width_and_its_program_name():
    rng = np.random.default_rng(8)
    x, w = values(rng, "FLOAT32", (1, 4, 3, 4), special=True), values(rng, "FLOAT32", (4, 3, 3, 2), special=True)
    attributes = dict(Mode=CONV, Direction=1, GroupCount=2, **geometry(2, strides=[2, 3], dilations=[1, 2],
                                                                       start=[1, 0], end=[0, 1], output_padding=[1, 2]))
    want = golden.run("CONVOLUTION", [x, w, None], attributes)
    assert want.shape == (1, 6, 7, 13)      # 2 (3 - 1) + 3 - 1 + 1 = 7; 3 (4 - 1) + (2 - 1) 2 + 1 - 1 + 2 = 13
    for width in (8, 16, 32, 64):
        gpu = Gpu(RX_7900_XTX, wave_width=width, timing=False)
        out = np.zeros(want.shape, np.float32)
        spec = lambda a: TensorSpec("FLOAT32", a.shape, None, a.nbytes)
        raw = lambda a: a.view(np.uint8).reshape(-1)
        direct = DirectRun(gpu, "CONVOLUTION", [spec(x), spec(w), None, spec(out)],
                           [raw(x), raw(w), np.zeros(4, np.uint8), raw(out)], attributes=attributes)
        assert direct.kernel.program.name == "convolution_backward_direct_float32_no_bias"
        direct.dispatch()
        same_bits(direct.output_bytes(3)[:out.nbytes].view(np.float32).reshape(out.shape), want)


def test_the_window_kernels_follow_a_rearranged_constant_buffer():
    """window.s reads its records and PARAMs at the layout's offsets only: move every field and the bits stay."""
    import dataclasses
    from dmlemu.kernels.constant_buffer import FIELDS, LAYOUT, RECORD_FIELDS, Layout
    header = {"RECORD_COUNT": 0, "MIN": 8, "MAX": 12, "SCALE": 16, "BIAS": 20, "RESERVED": 24, "ELEMENTS": 44,
              "WORKGROUP_SIZE": 60, **{f"PARAM{i}": 392 + 4 * i for i in range(8)}, "WIDE_RECORDS": 424}
    fields = tuple(dataclasses.replace(f, offset=header[f.name]) for f in FIELDS if f.type != "records")
    fields += (dataclasses.replace(LAYOUT.field("RECORDS"), offset=72, size=8 * 40),
               dataclasses.replace(LAYOUT.field("WIDE_RECORDS"), offset=424, size=8 * 40))
    other = Layout(fields=fields, record_fields=RECORD_FIELDS, record_bytes=40)
    rng = np.random.default_rng(30)
    x, w = values(rng, "FLOAT32", (1, 4, 6, 5), special=True), values(rng, "FLOAT32", (8, 2, 3, 3), special=True)
    bias = values(rng, "FLOAT32", (1, 8, 1, 1))
    for direction, w_now in ((0, w), (1, w.reshape(4, 4, 3, 3))):
        attributes = dict(Mode=CONV, Direction=direction, GroupCount=2,
                          FusedActivation=("ACTIVATION_LEAKY_RELU", {"Alpha": np.float32(0.25)}),
                          **geometry(2, strides=[2, 1], start=[1, 1], end=[1, 0]))
        want = golden.run("CONVOLUTION", [x, w_now, bias], attributes)
        out = np.zeros(want.shape, np.float32)
        spec = lambda a: TensorSpec("FLOAT32", a.shape, None, a.nbytes)
        raw = lambda a: a.view(np.uint8).reshape(-1)
        gpu = Gpu(RX_7900_XTX, wave_width=16, timing=False)
        direct = DirectRun(gpu, "CONVOLUTION", [spec(x), spec(w_now), spec(bias), spec(out)],
                           [raw(x), raw(w_now), raw(bias), raw(out)], attributes=attributes, layout=other)
        direct.dispatch()
        same_bits(direct.output_bytes(3)[:out.nbytes].view(np.float32).reshape(out.shape), want)
    fields = dict(Strides=[1, 2], WindowSize=[2, 2], StartPadding=[1, 0], EndPadding=[0, 1], IncludePadding=False)
    want = golden.run("AVERAGE_POOLING", [x], fields)
    out = np.zeros(want.shape, np.float32)
    gpu = Gpu(RX_7900_XTX, wave_width=16, timing=False)
    direct = DirectRun(gpu, "AVERAGE_POOLING", [TensorSpec("FLOAT32", x.shape, None, x.nbytes),
                                                TensorSpec("FLOAT32", out.shape, None, out.nbytes)],
                       [x.view(np.uint8).reshape(-1), out.view(np.uint8).reshape(-1)], attributes=fields, layout=other)
    direct.dispatch()
    same_bits(direct.output_bytes(1)[:out.nbytes].view(np.float32).reshape(out.shape), want)
