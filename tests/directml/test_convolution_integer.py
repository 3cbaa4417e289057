"""CONVOLUTION_INTEGER and QUANTIZED_LINEAR_CONVOLUTION through the mirror, bit for bit against the golden model
(docs/NUMERICS.md, "Integer and quantized matrix multiplication (and convolution)": the same exact integer sums over
a convolution's taps).

Drawn descs (INT8 / UINT8 input and filter apart, 1 to 4 output channels per group and multiples of 4 (the K-tiled
kernel), groups, strides, dilations, start and end padding, zero points left out, per tensor or per output channel)
run on every adapter and are compared with a literal loop over the taps; QUANTIZED_LINEAR_CONVOLUTION adds an INT32
bias and requantizes (scales per tensor or per output channel), checked against the golden model and, per element,
against the text of its order; the shape sentences are pinned."""
import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from dmlemu import golden, run_operator
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.errors import E_INVALIDARG, HResultError
from dmlemu.presets import PRESETS, WARP
from tensor_layouts import same_bits, tensor

INTS = {"INT8": np.int8, "UINT8": np.uint8}


def ints(rng, type_name, shape):
    info = np.iinfo(INTS[type_name])
    return rng.integers(info.min, info.max + 1, shape).astype(INTS[type_name])


def literal(x, xz, w, wz, strides, dilations, start, end, groups):
    """Each output element on its own: the sum over the group's channels and the window's taps inside the input of
    (x - XZP)(w - WZP[k]), Python integers."""
    xd = x.astype(np.int64) - (0 if xz is None else int(xz.ravel()[0]))
    wd = w.astype(np.int64) - (0 if wz is None else wz.astype(np.int64).reshape(-1, 1, 1, 1))
    n, c, height, width = x.shape
    k, cg, kh, kw = w.shape
    oh = (height + start[0] + end[0] - ((kh - 1) * dilations[0] + 1)) // strides[0] + 1
    ow = (width + start[1] + end[1] - ((kw - 1) * dilations[1] + 1)) // strides[1] + 1
    out = np.zeros((n, k, oh, ow), np.int64)
    for b in range(n):
        for kk in range(k):
            g = kk // (k // groups)
            for i in range(oh):
                for j in range(ow):
                    total = 0
                    for cc in range(cg):
                        for a in range(kh):
                            for t in range(kw):
                                ih = i * strides[0] - start[0] + a * dilations[0]
                                iw = j * strides[1] - start[1] + t * dilations[1]
                                if 0 <= ih < height and 0 <= iw < width:
                                    total += int(xd[b, g * cg + cc, ih, iw]) * int(wd[kk, cc, a, t])
                    out[b, kk, i, j] = total
    return out


def desc(x_type, w_type, x, xz, w, wz, out_sizes, attributes):
    return DML_CONVOLUTION_INTEGER_OPERATOR_DESC(
        InputTensor=tensor(x_type, x.shape), InputZeroPointTensor=None if xz is None else tensor(x_type, xz.shape),
        FilterTensor=tensor(w_type, w.shape), FilterZeroPointTensor=None if wz is None else tensor(w_type, wz.shape),
        OutputTensor=tensor("INT32", out_sizes), DimensionCount=2, **attributes)


@st.composite
def cases(draw):
    groups = draw(st.integers(1, 2))
    k_group = draw(st.sampled_from([1, 2, 3, 4, 8]))
    return dict(x_type=draw(st.sampled_from(["INT8", "UINT8"])), w_type=draw(st.sampled_from(["INT8", "UINT8"])),
                n=draw(st.integers(1, 2)), c_group=draw(st.integers(1, 3)), k_group=k_group, groups=groups,
                size=(draw(st.integers(1, 7)), draw(st.integers(1, 7))),
                window=(draw(st.integers(1, 3)), draw(st.integers(1, 3))),
                strides=(draw(st.integers(1, 2)), draw(st.integers(1, 2))),
                dilations=(draw(st.integers(1, 2)), draw(st.integers(1, 2))),
                start=(draw(st.integers(0, 2)), draw(st.integers(0, 2))),
                end=(draw(st.integers(0, 2)), draw(st.integers(0, 2))),
                x_zero=draw(st.booleans()), w_zero=draw(st.sampled_from([None, "tensor", "channel"])),
                seed=draw(st.integers(0, 2 ** 32 - 1)))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(cases(), st.sampled_from(PRESETS + (WARP,)))
def test_drawn_integer_convolutions_are_bit_exact_on_every_adapter(case, preset):
    rng = np.random.default_rng(case["seed"])
    groups, k = case["groups"], case["k_group"] * case["groups"]
    c = case["c_group"] * groups
    extent = [(w - 1) * d + 1 for w, d in zip(case["window"], case["dilations"])]
    size = [max(s, e - p - q) for s, e, p, q in zip(case["size"], extent, case["start"], case["end"])]
    x = ints(rng, case["x_type"], (case["n"], c, *size))
    w = ints(rng, case["w_type"], (k, case["c_group"], *case["window"]))
    xz = ints(rng, case["x_type"], (1, 1, 1, 1)) if case["x_zero"] else None
    wz = None if case["w_zero"] is None else ints(rng, case["w_type"], (1, k if case["w_zero"] == "channel" else 1, 1, 1))
    want = literal(x, xz, w, wz, case["strides"], case["dilations"], case["start"], case["end"], groups)
    attributes = dict(Strides=case["strides"], Dilations=case["dilations"], StartPadding=case["start"],
                      EndPadding=case["end"], GroupCount=groups)
    (got,) = run_operator(desc(case["x_type"], case["w_type"], x, xz, w, wz, want.shape, attributes), [x, xz, w, wz],
                          adapter=preset)
    assert got.dtype == np.int32 and (got == want).all()
    same_bits(golden.run("CONVOLUTION_INTEGER", [x, xz, w, wz], attributes), got)


def quantized_desc(types, arrays, out_sizes, attributes):
    x_type, w_type, out_type = types
    x, xs, xz, w, ws, wz, b, os_, oz = arrays
    t = lambda type_name, a: None if a is None else tensor(type_name, a.shape)
    return DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC(
        InputTensor=t(x_type, x), InputScaleTensor=t("FLOAT32", xs), InputZeroPointTensor=t(x_type, xz),
        FilterTensor=t(w_type, w), FilterScaleTensor=t("FLOAT32", ws), FilterZeroPointTensor=t(w_type, wz),
        BiasTensor=t("INT32", b), OutputScaleTensor=t("FLOAT32", os_), OutputZeroPointTensor=t(out_type, oz),
        OutputTensor=tensor(out_type, out_sizes), DimensionCount=2, **attributes)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.sampled_from(["INT8", "UINT8"]), st.booleans(), st.booleans(), st.sampled_from(PRESETS + (WARP,)))
def test_drawn_quantized_convolutions_are_bit_exact_on_every_adapter(case, out_type, per_channel, has_bias, preset):
    rng = np.random.default_rng(case["seed"])
    groups, k = case["groups"], case["k_group"] * case["groups"]
    c = case["c_group"] * groups
    extent = [(w - 1) * d + 1 for w, d in zip(case["window"], case["dilations"])]
    size = [max(s, e - p - q) for s, e, p, q in zip(case["size"], extent, case["start"], case["end"])]
    x = ints(rng, case["x_type"], (case["n"], c, *size))
    w = ints(rng, case["w_type"], (k, case["c_group"], *case["window"]))
    xz = ints(rng, case["x_type"], (1, 1, 1, 1)) if case["x_zero"] else None
    wz = None if case["w_zero"] is None else ints(rng, case["w_type"], (1, k if case["w_zero"] == "channel" else 1, 1, 1))
    xs = rng.uniform(1e-3, 0.05, (1, 1, 1, 1)).astype(np.float32)
    ws = rng.uniform(1e-3, 0.05, (1, k if per_channel else 1, 1, 1)).astype(np.float32)
    b = rng.integers(-3000, 3000, (1, k, 1, 1)).astype(np.int32) if has_bias else None
    os_ = rng.uniform(5e-3, 0.2, (1, 1, 1, 1)).astype(np.float32)
    oz = ints(rng, out_type, (1, 1, 1, 1)) if case["x_zero"] else None
    attributes = dict(Strides=case["strides"], Dilations=case["dilations"], StartPadding=case["start"],
                      EndPadding=case["end"], GroupCount=groups)
    arrays = [x, xs, xz, w, ws, wz, b, os_, oz]
    want = golden.OPERATORS["QUANTIZED_LINEAR_CONVOLUTION"](arrays, attributes, None, False, out_type)
    (got,) = run_operator(quantized_desc((case["x_type"], case["w_type"], out_type), arrays, want.shape, attributes),
                          arrays, adapter=preset)
    assert got.dtype == INTS[out_type]
    same_bits(got, want)
    # the golden model, element by element from the text: exact sum + bias, float32 steps, ties to even, saturate
    sums = literal(x, xz, w, wz, case["strides"], case["dilations"], case["start"], case["end"], groups)
    lo, hi = (-128, 127) if out_type == "INT8" else (0, 255)
    for index in np.ndindex(*sums.shape):
        kk = index[1]
        v = np.float32(int(sums[index]) + (0 if b is None else int(b[0, kk, 0, 0])))
        v = np.float32(v * np.float32(xs[0, 0, 0, 0] * ws[0, kk if per_channel else 0, 0, 0]))
        v = np.float32(v / os_[0, 0, 0, 0])
        q = float(np.rint(v)) + (0 if oz is None else int(oz.ravel()[0]))
        assert want[index] == min(max(q, lo), hi)


def refusal(d):
    dml = DMLCreateDevice(D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0), DML_CREATE_DEVICE_FLAG_NONE)
    try:
        dml.CreateOperator(DML_OPERATOR_DESC(Type=DML_OPERATOR_CONVOLUTION_INTEGER, Desc=d))
    except HResultError as error:
        return error.hresult, error.message
    return "validated"


def test_zero_point_shapes_and_types_are_checked():
    x, w = np.zeros((1, 2, 4, 4), np.uint8), np.zeros((3, 2, 2, 2), np.int8)
    attributes = dict(Strides=(1, 1), Dilations=(1, 1), StartPadding=(0, 0), EndPadding=(0, 0), GroupCount=1)
    make = lambda xz, wz, out=(1, 3, 3, 3): desc("UINT8", "INT8", x, xz, w, wz, out, attributes)
    assert refusal(make(np.zeros((1, 1, 1, 1), np.uint8), np.zeros((1, 3, 1, 1), np.int8))) == "validated"
    assert refusal(make(np.zeros((1, 2, 1, 1), np.uint8), None)) == (
        E_INVALIDARG, "InputZeroPointTensor.Sizes is {1,2,1,1}; DML_OPERATOR_CONVOLUTION_INTEGER needs {1,1,1,1} "
                      "(one value).")
    assert refusal(make(None, np.zeros((1, 2, 1, 1), np.int8))) == (
        E_INVALIDARG, "FilterZeroPointTensor.Sizes is {1,2,1,1}; DML_OPERATOR_CONVOLUTION_INTEGER needs {1,1,1,1} or "
                      "{1,3,1,1} (one value, or one per output channel).")
    assert refusal(make(None, None, out=(1, 3, 2, 2)))[0] == E_INVALIDARG          # the output's spatial sizes
    wrong = make(np.zeros((1, 1, 1, 1), np.uint8), None)
    wrong.InputZeroPointTensor = tensor("INT8", (1, 1, 1, 1))                       # not the input's DataType
    assert refusal(wrong)[0] == E_INVALIDARG


def test_quantized_scale_shapes_are_checked():
    dml = DMLCreateDevice(D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0), DML_CREATE_DEVICE_FLAG_NONE)
    x, w = np.zeros((1, 2, 4, 4), np.uint8), np.zeros((3, 2, 2, 2), np.int8)
    one = np.ones((1, 1, 1, 1), np.float32)
    attributes = dict(Strides=(1, 1), Dilations=(1, 1), StartPadding=(0, 0), EndPadding=(0, 0), GroupCount=1)
    arrays = [x, one, None, w, np.ones((1, 3, 1, 1), np.float32), None, np.zeros((1, 3, 1, 1), np.int32), one, None]
    create = lambda a: dml.CreateOperator(DML_OPERATOR_DESC(Type=DML_OPERATOR_QUANTIZED_LINEAR_CONVOLUTION,
                                                            Desc=quantized_desc(("UINT8", "INT8", "UINT8"), a,
                                                                                (1, 3, 3, 3), attributes)))
    create(arrays)
    arrays[7] = np.ones((1, 3, 1, 1), np.float32)
    try:
        create(arrays)
    except HResultError as error:
        assert (error.hresult, error.message) == (
            E_INVALIDARG, "OutputScaleTensor.Sizes is {1,3,1,1}; DML_OPERATOR_QUANTIZED_LINEAR_CONVOLUTION needs "
                          "{1,1,1,1} (one value).")
    else:
        raise AssertionError("a per-channel OutputScaleTensor validated")
