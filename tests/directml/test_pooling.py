"""AVERAGE_POOLING, AVERAGE_POOLING1 and MAX_POOLING through the mirror, bit for bit against the golden model
(docs/NUMERICS.md, "Pooling").

Drawn descs (FLOAT32 and FLOAT16, two and three spatial dimensions, windows, strides, dilations, start and end
padding, IncludePadding, packed, padded and permuted layouts, special values) run on every adapter; the kernel alone
runs on wave widths 8 to 64; the golden model is checked against a literal per-element loop written from the text;
the rules for padding (skipped; counted or not), NaN and signed zero, global pooling and the validation sentences
are pinned."""
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
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import PRESETS, RX_7900_XTX, WARP
from tensor_layouts import data_type, layout_strides, same_bits, tensor

DTYPES = {"FLOAT32": np.float32, "FLOAT16": np.float16}
NAN32 = 0x7FC00000


def attributes_for(operator, spatial, window, strides=None, start=None, end=None, dilations=None,
                   include_padding=False, p=2):
    ones, zeros = [1] * spatial, [0] * spatial
    fields = dict(Strides=list(strides or ones), WindowSize=list(window), StartPadding=list(start or zeros),
                  EndPadding=list(end or zeros))
    if operator in ("AVERAGE_POOLING1", "LP_POOLING1"):
        fields["Dilations"] = list(dilations or ones)
    if operator.startswith("AVERAGE"):
        fields["IncludePadding"] = bool(include_padding)
    if operator.startswith("LP"):
        fields["P"] = int(p)
    return fields


def out_sizes(x_sizes, fields):
    return list(x_sizes[:2]) + list(convolution_output_sizes(
        x_sizes[2:], fields["WindowSize"], fields["Strides"], fields.get("Dilations", [1] * (len(x_sizes) - 2)),
        fields["StartPadding"], fields["EndPadding"]))


def pool_desc(operator, type_name, x_sizes, fields, out=None, tensor_strides=(None, None)):
    desc_type = globals()[f"DML_{operator}_OPERATOR_DESC"]
    return desc_type(InputTensor=tensor(type_name, x_sizes, tensor_strides[0]),
                     OutputTensor=tensor(type_name, out or out_sizes(x_sizes, fields), tensor_strides[1]), **fields)


def run(operator, x, fields, out=None, adapter=None, tensor_strides=(None, None)):
    t = "FLOAT32" if x.dtype == np.float32 else "FLOAT16"
    (got,) = run_operator(pool_desc(operator, t, x.shape, fields, out, tensor_strides), [x], adapter=adapter)
    return got


def values(rng, type_name, shape, special=False):
    x = (rng.standard_normal(shape) * rng.choice([1e-2, 1.0, 30.0])).astype(DTYPES[type_name])
    if special and x.size:
        picks = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], dtype=x.dtype)
        mask = rng.random(shape) < 0.05
        x[mask] = rng.choice(picks, size=int(mask.sum()))
    return x


# ---- drawn descs through the mirror ------------------------------------------------------------------------------
@st.composite
def cases(draw):
    operator = draw(st.sampled_from(["AVERAGE_POOLING", "AVERAGE_POOLING1", "MAX_POOLING", "LP_POOLING",
                                     "LP_POOLING1"]))
    spatial = draw(st.integers(2, 3))
    window = [draw(st.integers(1, 3)) for _ in range(spatial)]
    dilations = [draw(st.integers(1, 2)) for _ in range(spatial)] if operator.endswith("1") else None
    start = [draw(st.integers(0, 2)) for _ in range(spatial)]
    end = [draw(st.integers(0, 2)) for _ in range(spatial)]
    extent = [(w - 1) * (dilations[d] if dilations else 1) + 1 for d, w in enumerate(window)]
    in_sizes = [max(draw(st.integers(1, 6 if spatial == 2 else 4)), e - s - t) for e, s, t in zip(extent, start, end)]
    fields = attributes_for(operator, spatial, window, [draw(st.integers(1, 2)) for _ in range(spatial)], start, end,
                            dilations, draw(st.booleans()), draw(st.integers(1, 2)))
    return dict(operator=operator, type_name=draw(st.sampled_from(["FLOAT32", "FLOAT16"])),
                x_sizes=[draw(st.integers(1, 2)), draw(st.integers(1, 3))] + in_sizes, fields=fields,
                layouts=[draw(st.sampled_from(["packed", "padded", "permuted"])) for _ in range(2)],
                special=draw(st.booleans()), seed=draw(st.integers(0, 2 ** 32 - 1)))


@settings(max_examples=45, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.sampled_from(PRESETS + (WARP,)))
def test_drawn_poolings_are_bit_exact_on_every_adapter(case, preset):
    rng = np.random.default_rng(case["seed"])
    x = values(rng, case["type_name"], case["x_sizes"], case["special"])
    out = out_sizes(case["x_sizes"], case["fields"])
    strides = [layout_strides(s, layout, rng)[0] for s, layout in zip((case["x_sizes"], out), case["layouts"])]
    got = run(case["operator"], x, case["fields"], out, preset, strides)
    same_bits(got, golden.run(case["operator"], [x], case["fields"]))


# ---- the same kernel on every wave width ---------------------------------------------------------------------------
@pytest.mark.parametrize("operator", ["AVERAGE_POOLING", "MAX_POOLING"])
def test_every_wave_width_gives_the_same_bits(operator):
    rng = np.random.default_rng(4)
    x = values(rng, "FLOAT16", (2, 3, 7, 6), special=True)
    fields = attributes_for(operator, 2, [3, 2], [2, 1], [1, 0], [2, 1], include_padding=False)
    out = np.zeros(out_sizes(x.shape, fields), x.dtype)
    want = golden.run(operator, [x], fields)
    for width in (8, 16, 32, 64):
        gpu = Gpu(RX_7900_XTX, wave_width=width, timing=False)
        spec = lambda a: TensorSpec("FLOAT16", a.shape, None, a.nbytes)
        raw = lambda a: a.view(np.uint8).reshape(-1)
        direct = DirectRun(gpu, operator, [spec(x), spec(out)], [raw(x), raw(out)], attributes=fields)
        direct.dispatch()
        same_bits(direct.output_bytes(1)[:out.nbytes].view(out.dtype).reshape(out.shape), want)


# ---- the golden model's order, from the text -----------------------------------------------------------------------
def literal(operator, x, fields):
    """Each element on its own: taps ascending, padded ones skipped; + then one divide, or maxNum."""
    spatial = x.ndim - 2
    dil = fields.get("Dilations", [1] * spatial)
    out = np.zeros(out_sizes(x.shape, fields), np.float32)
    for index in np.ndindex(out.shape):
        o = index[2:]
        acc, count = (np.float32(-0.0) if operator != "MAX_POOLING" else None), 0
        for tap in itertools.product(*[range(s) for s in fields["WindowSize"]]):
            i = [o[d] * fields["Strides"][d] - fields["StartPadding"][d] + tap[d] * dil[d] for d in range(spatial)]
            if not all(0 <= i[d] < x.shape[2 + d] for d in range(spatial)):
                continue
            v = np.float32(x[index[:2] + tuple(i)])
            count += 1
            if operator == "MAX_POOLING":       # the greater; of -0 and +0, +0
                if acc is None or v > acc or (v == acc and np.signbit(acc) and not np.signbit(v)):
                    acc = v
            elif operator.startswith("LP"):
                acc = np.float32(acc + (abs(v) if fields["P"] == 1 else np.float32(v * v)))
            else:
                acc = np.float32(acc + v)
        if operator == "MAX_POOLING":
            out[index] = np.float32(np.nan) if acc is None else acc
        elif operator.startswith("LP"):
            out[index] = acc if fields["P"] == 1 else np.float32(np.sqrt(acc))
        else:
            divisor = np.float32(np.prod(fields["WindowSize"])) if fields["IncludePadding"] else np.float32(count)
            with np.errstate(all="ignore"):
                out[index] = np.float32(acc / divisor)
    out[np.isnan(out)] = np.float32(np.nan)
    return out


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["AVERAGE_POOLING", "AVERAGE_POOLING1", "MAX_POOLING", "LP_POOLING", "LP_POOLING1"]),
       st.booleans(), st.integers(0, 2 ** 32 - 1))
def test_the_golden_pooling_is_the_literal_loop(operator, include_padding, seed):
    rng = np.random.default_rng(seed)
    x = values(rng, "FLOAT32", (1, 2, int(rng.integers(3, 7)), int(rng.integers(3, 7))), special=True)
    x[np.isnan(x)] = 1.5          # the literal max above compares; NaN handling is pinned by its own test
    fields = attributes_for(operator, 2, list(rng.integers(1, 4, 2)), list(rng.integers(1, 3, 2)),
                            list(rng.integers(0, 2, 2)), list(rng.integers(0, 2, 2)), [1, 1], include_padding,
                            int(rng.integers(1, 3)))
    same_bits(golden.run(operator, [x], fields), literal(operator, x, fields))


# ---- padding, NaN, signed zero, global pooling ---------------------------------------------------------------------
def test_include_padding_counts_the_padding_in_the_divisor_only():
    x = np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3)
    fields = attributes_for("AVERAGE_POOLING", 2, [2, 2], start=[1, 1], end=[0, 0])
    got = run("AVERAGE_POOLING", x, fields)
    assert got[0, 0].tolist() == [[1.0, 1.5, 2.5], [2.5, 3.0, 4.0], [5.5, 6.0, 7.0]]
    fields["IncludePadding"] = True
    got = run("AVERAGE_POOLING", x, fields)
    assert got[0, 0].tolist() == [[0.25, 0.75, 1.25], [1.25, 3.0, 4.0], [2.75, 6.0, 7.0]]


def test_a_window_entirely_in_the_padding():
    x = np.full((1, 1, 1, 1), 8, np.float32)
    fields = attributes_for("AVERAGE_POOLING", 2, [1, 1], start=[1, 0], end=[0, 0])
    assert run("AVERAGE_POOLING", x, fields).view(np.uint32).ravel().tolist() == [NAN32, 0x41000000]   # 0/0, 8
    fields["IncludePadding"] = True
    assert run("AVERAGE_POOLING", x, fields).view(np.uint32).ravel().tolist() == [0x80000000, 0x41000000]  # -0/1
    fields = attributes_for("MAX_POOLING", 2, [1, 1], start=[1, 0], end=[0, 0])
    assert run("MAX_POOLING", x, fields).view(np.uint32).ravel().tolist() == [NAN32, 0x41000000]


def test_max_skips_nan_and_prefers_positive_zero():
    x = np.array([np.nan, -3.0, np.nan, np.nan, -0.0, 0.0, 0.0, -0.0], np.float32).reshape(1, 1, 4, 2)
    got = run("MAX_POOLING", x, attributes_for("MAX_POOLING", 2, [1, 2], strides=[1, 1]))
    assert got.view(np.uint32).ravel().tolist() == [0xC0400000, NAN32, 0, 0]    # -3, all NaN, +0, +0
    (sum_nan,) = run("AVERAGE_POOLING", x[:, :, :1], attributes_for("AVERAGE_POOLING", 2, [1, 2])).ravel()
    assert np.isnan(sum_nan)


def test_a_sum_of_negative_zeros_stays_negative_zero_and_float16_rounds_once():
    x = np.full((1, 1, 3, 3), -0.0, np.float32)
    got = run("AVERAGE_POOLING", x, attributes_for("AVERAGE_POOLING", 2, [2, 2], start=[1, 1], end=[1, 1]))
    assert (got.view(np.uint32) == 0x80000000).all()
    # 2048 + 1 + 1 + 1 = 2051 in FLOAT32, / 4 = 512.75, one rounding to FLOAT16 (ties to even): 513; FLOAT16 steps
    # (spacing 2 at 2048) would lose every 1 and give 512
    x = np.array([2048, 1, 1, 1], np.float16).reshape(1, 1, 2, 2)
    assert run("AVERAGE_POOLING", x, attributes_for("AVERAGE_POOLING", 2, [2, 2])).ravel().tolist() == [513.0]


def test_global_pooling_is_the_window_of_the_whole_extent():
    rng = np.random.default_rng(3)
    x = values(rng, "FLOAT32", (2, 3, 5, 4))
    for operator, reduce in (("AVERAGE_POOLING", np.mean), ("MAX_POOLING", np.max)):
        got = run(operator, x, attributes_for(operator, 2, [5, 4]))
        assert got.shape == (2, 3, 1, 1)
        np.testing.assert_allclose(got[..., 0, 0], reduce(x.astype(np.float64), axis=(2, 3)), rtol=1e-6)


def test_dilations_spread_the_window():
    x = np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5)
    fields = attributes_for("AVERAGE_POOLING1", 2, [2, 2], dilations=[2, 2])
    got = run("AVERAGE_POOLING1", x, fields)
    assert got.shape == (1, 1, 3, 3) and got[0, 0, 0, 0] == (0 + 2 + 10 + 12) / 4


# ---- validation ------------------------------------------------------------------------------------------------
def refusal(operator, desc, level=None):
    dml = DMLCreateDevice(D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0), DML_CREATE_DEVICE_FLAG_NONE,
                          **({} if level is None else {"max_feature_level": level}))
    try:
        dml.CreateOperator(DML_OPERATOR_DESC(Type=getattr(DML_OPERATOR_TYPE, "DML_OPERATOR_" + operator), Desc=desc))
    except HResultError as error:
        return error.hresult, error.message
    return "validated"


def test_shapes_and_arrays_are_checked():
    fields = attributes_for("MAX_POOLING", 2, [3, 3], strides=[2, 2])
    assert refusal("MAX_POOLING", pool_desc("MAX_POOLING", "FLOAT32", [1, 2, 7, 7], fields)) == "validated"
    assert refusal("MAX_POOLING", pool_desc("MAX_POOLING", "FLOAT32", [1, 2, 7, 7], fields, out=[1, 2, 3, 4])) == (
        E_INVALIDARG, "OutputTensor.Sizes is {1,2,3,4}; DML_OPERATOR_MAX_POOLING with InputTensor.Sizes {1,2,7,7}, "
                      "WindowSize {3,3}, Strides {2,2}, StartPadding {0,0} and EndPadding {0,0} needs {1,2,3,3}.")
    fields = attributes_for("AVERAGE_POOLING", 2, [3, 0])
    assert refusal("AVERAGE_POOLING", pool_desc("AVERAGE_POOLING", "FLOAT32", [1, 2, 7, 7], fields,
                                                out=[1, 2, 5, 7])) == (
        E_INVALIDARG, "WindowSize[1] is 0; it must be an integer from 1 to 4294967295.")
    fields = attributes_for("AVERAGE_POOLING", 2, [3, 3])
    assert refusal("AVERAGE_POOLING", pool_desc("AVERAGE_POOLING", "FLOAT32", [1, 2, 2, 7], fields,
                                                out=[1, 2, 1, 5])) == (
        E_INVALIDARG, "InputTensor.Sizes is {1,2,2,7} with StartPadding {0,0} and EndPadding {0,0}; "
                      "DML_OPERATOR_AVERAGE_POOLING needs the padded input to hold the window {3,3}.")
    desc = pool_desc("AVERAGE_POOLING", "FLOAT32", [1, 2, 7, 7], fields)
    desc.IncludePadding = "yes"
    assert refusal("AVERAGE_POOLING", desc) == (E_INVALIDARG, "IncludePadding is 'yes'; it must be a C BOOL (FALSE = 0, "
                                                              "TRUE any other INT).")
    desc = pool_desc("AVERAGE_POOLING", "FLOAT32", [1, 2, 7, 7], fields)
    desc.WindowSize = [3, 3, 3]
    assert refusal("AVERAGE_POOLING", desc) == (E_INVALIDARG, "WindowSize has 3 elements but DimensionCount is 2; "
                                                              "they must agree.")


def test_feature_levels_and_types():
    fields = attributes_for("AVERAGE_POOLING1", 2, [2, 2])
    desc = pool_desc("AVERAGE_POOLING1", "FLOAT32", [1, 1, 4, 4], fields)
    assert refusal("AVERAGE_POOLING1", desc) == "validated"
    assert refusal("AVERAGE_POOLING1", desc, DML_FEATURE_LEVEL_6_1)[0] == E_INVALIDARG
    fields = attributes_for("MAX_POOLING", 2, [2, 2])
    int8 = pool_desc("MAX_POOLING", "INT8", [1, 1, 4, 4], fields)
    assert refusal("MAX_POOLING", int8, DML_FEATURE_LEVEL_2_1)[0] == E_INVALIDARG
    assert refusal("MAX_POOLING", int8, DML_FEATURE_LEVEL_3_0) == "validated"
    three_d = pool_desc("MAX_POOLING", "FLOAT32", [1, 4, 4], attributes_for("MAX_POOLING", 1, [2]))
    assert refusal("MAX_POOLING", three_d)[0] == E_INVALIDARG


@pytest.mark.parametrize("type_name, dtype", [("INT8", np.int8), ("UINT8", np.uint8)])
def test_integer_max_pooling_from_feature_level_3_0(type_name, dtype):
    rng = np.random.default_rng(6)
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max + 1, (2, 3, 5, 6)).astype(dtype)
    fields = attributes_for("MAX_POOLING", 2, [2, 3], strides=[2, 1], start=[2, 1], end=[0, 1])
    desc = pool_desc("MAX_POOLING", type_name, x.shape, fields)
    (got,) = run_operator(desc, [x])
    want = golden.run("MAX_POOLING", [x], fields)
    assert got.dtype == dtype and np.array_equal(got, want)
    assert (got[:, :, 0] == info.min).all()      # the first output row's window lies in the padding: the least value


def test_lp_pooling_takes_the_absolute_value_and_serves_p_1_and_2():
    x = np.array([3.0, -4.0, -0.0, 0.0], np.float32).reshape(1, 1, 2, 2)
    assert run("LP_POOLING", x, attributes_for("LP_POOLING", 2, [2, 2], p=1)).ravel().tolist() == [7.0]
    assert run("LP_POOLING", x, attributes_for("LP_POOLING", 2, [2, 2], p=2)).ravel().tolist() == [5.0]
    # a window entirely in the padding: -0, and sqrt(-0) = -0
    got = run("LP_POOLING", x, attributes_for("LP_POOLING", 2, [1, 1], start=[1, 0], end=[0, 0], p=2))
    assert got.view(np.uint32).ravel().tolist()[:2] == [0x80000000, 0x80000000]
    desc = pool_desc("LP_POOLING", "FLOAT32", x.shape, attributes_for("LP_POOLING", 2, [2, 2], p=3))
    assert refusal("LP_POOLING", desc) == "validated"
    dml = DMLCreateDevice(D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0), DML_CREATE_DEVICE_FLAG_NONE)
    op = dml.CreateOperator(DML_OPERATOR_DESC(Type=DML_OPERATOR_LP_POOLING, Desc=desc))
    with pytest.raises(HResultError) as error:
        dml.CompileOperator(op, DML_EXECUTION_FLAG_NONE)
    assert error.value.hresult == E_NOTIMPL and "P 1 and 2, not 3" in error.value.message
    desc.P = 0
    assert refusal("LP_POOLING", desc) == (E_INVALIDARG, "P is 0; it must be an integer from 1 to 4294967295.")
