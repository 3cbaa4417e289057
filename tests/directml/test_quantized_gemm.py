"""MATRIX_MULTIPLY_INTEGER, QUANTIZED_LINEAR_MATRIX_MULTIPLY and MATRIX_MULTIPLY_INTEGER_TO_FLOAT through the
mirror, bit for bit against the golden model (docs/NUMERICS.md, "Integer and quantized matrix multiplication").

Drawn descs (INT8 / UINT8 A and B apart, ranks 2 to 4, M, K, N from 1 to past a block, zero points and scales left
out, per tensor or per row / column, packed, padded, permuted and broadcast layouts) run on every adapter; the
kernel runs on wave widths 8 to 64; the golden model is checked against exact integer arithmetic and a literal
per-element requantization; saturation and the pages' shape rules (sentences) are pinned."""
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
from dmlemu.presets import PRESETS, RX_7900_XTX, WARP
from tensor_layouts import layout_strides, same_bits, tensor

INTS = {"INT8": np.int8, "UINT8": np.uint8}


def ints(rng, type_name, shape):
    info = np.iinfo(INTS[type_name])
    return rng.integers(info.min, info.max + 1, shape).astype(INTS[type_name])


def broadcast_values(x, dims):
    for d in dims:       # every element along a stride-0 dimension is the one stored value
        x = np.repeat(np.take(x, [0], axis=d), x.shape[d], axis=d)
    return x


def line_shape(rank, size, axis, per):
    """A scale's or zero point's Sizes: all 1 (per tensor) or `size` at `axis` (-2: per row, -1: per column)."""
    shape = [1] * rank
    if per:
        shape[axis] = size
    return tuple(shape)


def mmi_desc(a_type, b_type, a, azp, b, bzp, out_sizes, strides=(None, None)):
    return DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC(
        ATensor=tensor(a_type, a.shape, strides[0]),
        AZeroPointTensor=None if azp is None else tensor(a_type, azp.shape),
        BTensor=tensor(b_type, b.shape, strides[1]),
        BZeroPointTensor=None if bzp is None else tensor(b_type, bzp.shape),
        OutputTensor=tensor("INT32", out_sizes))


def qlmm_desc(types, arrays, out_sizes, strides=(None, None)):
    a_type, b_type, out_type = types
    a, a_s, a_z, b, b_s, b_z, o_s, o_z = arrays
    opt = lambda t, x: None if x is None else tensor(t, x.shape)
    return DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC(
        ATensor=tensor(a_type, a.shape, strides[0]), AScaleTensor=tensor("FLOAT32", a_s.shape),
        AZeroPointTensor=opt(a_type, a_z), BTensor=tensor(b_type, b.shape, strides[1]),
        BScaleTensor=tensor("FLOAT32", b_s.shape), BZeroPointTensor=opt(b_type, b_z),
        OutputScaleTensor=tensor("FLOAT32", o_s.shape), OutputZeroPointTensor=opt(out_type, o_z),
        OutputTensor=tensor(out_type, out_sizes))


def exact_sums(a, azp, b, bzp):
    """Python integers: sum over k of (A - AZP)(B - BZP), every product and sum exact."""
    ad = a.astype(object) - (0 if azp is None else azp.astype(object))
    bd = b.astype(object) - (0 if bzp is None else bzp.astype(object))
    return np.matmul(ad, bd)


# ---- drawn descs through the mirror ------------------------------------------------------------------------------
@st.composite
def cases(draw):
    rank = draw(st.integers(2, 4))
    big = draw(st.booleans())
    return dict(a_type=draw(st.sampled_from(["INT8", "UINT8"])), b_type=draw(st.sampled_from(["INT8", "UINT8"])),
                out_type=draw(st.sampled_from(["INT8", "UINT8"])), batch=[draw(st.integers(1, 3)) for _ in range(rank - 2)],
                m=draw(st.integers(1, 80 if big else 9)), k=draw(st.integers(1, 40 if big else 20)),
                n=draw(st.integers(1, 80 if big else 9)),
                zero_points=[draw(st.sampled_from([None, "tensor", "line"])) for _ in range(3)],
                scales=[draw(st.booleans()) for _ in range(3)],
                layouts=[draw(st.sampled_from(["packed", "padded", "permuted", "broadcast"])) for _ in range(2)],
                seed=draw(st.integers(0, 2 ** 32 - 1)))


def operands(case, rng):
    batch, m, k, n = case["batch"], case["m"], case["k"], case["n"]
    rank = len(batch) + 2
    arrays, strides = [], []
    for sizes, t, layout in ((batch + [m, k], case["a_type"], case["layouts"][0]),
                             (batch + [k, n], case["b_type"], case["layouts"][1])):
        s, dims = layout_strides(sizes, layout, rng)
        arrays.append(broadcast_values(ints(rng, t, sizes), dims))
        strides.append(s)
    zero_points = []
    for kind, t, size, axis in zip(case["zero_points"], (case["a_type"], case["b_type"], case["out_type"]),
                                   (m, n, m), (-2, -1, -2)):
        zero_points.append(None if kind is None else ints(rng, t, line_shape(rank, size, axis, kind == "line")))
    return arrays, strides, zero_points


def run_mmi(case, preset=None):
    rng = np.random.default_rng(case["seed"])
    (a, b), strides, (azp, bzp, _) = operands(case, rng)
    out_sizes = case["batch"] + [case["m"], case["n"]]
    (got,) = run_operator(mmi_desc(case["a_type"], case["b_type"], a, azp, b, bzp, out_sizes, strides),
                          [a, azp, b, bzp], adapter=preset)
    want = golden.run("MATRIX_MULTIPLY_INTEGER", [a, azp, b, bzp], {})
    assert got.dtype == np.int32
    same_bits(got, want)
    assert (want == exact_sums(a, azp, b, bzp)).all()       # far from 2^31: no wrap


def scales(rng, case, rank):
    m, n = case["m"], case["n"]
    a_s = rng.uniform(1e-3, 0.05, line_shape(rank, m, -2, case["scales"][0])).astype(np.float32)
    b_s = rng.uniform(1e-3, 0.05, line_shape(rank, n, -1, case["scales"][1])).astype(np.float32)
    o_s = rng.uniform(5e-3, 0.3, line_shape(rank, m, -2, case["scales"][2])).astype(np.float32)
    return a_s, b_s, o_s


def run_qlmm(case, preset=None):
    rng = np.random.default_rng(case["seed"])
    (a, b), strides, (azp, bzp, ozp) = operands(case, rng)
    a_s, b_s, o_s = scales(rng, case, len(case["batch"]) + 2)
    arrays = [a, a_s, azp, b, b_s, bzp, o_s, ozp]
    out_sizes = case["batch"] + [case["m"], case["n"]]
    types = (case["a_type"], case["b_type"], case["out_type"])
    (got,) = run_operator(qlmm_desc(types, arrays, out_sizes, strides), arrays, adapter=preset)
    want = golden.OPERATORS["QUANTIZED_LINEAR_MATRIX_MULTIPLY"](arrays, {}, None, False, case["out_type"])
    assert got.dtype == INTS[case["out_type"]]
    same_bits(got, want)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.sampled_from(PRESETS + (WARP,)))
def test_drawn_integer_products_are_bit_exact_on_every_adapter(case, preset):
    run_mmi(case, preset)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.sampled_from(PRESETS + (WARP,)))
def test_drawn_quantized_products_are_bit_exact_on_every_adapter(case, preset):
    run_qlmm(case, preset)


def run_to_float(case, out_type, has_bias, preset=None):
    rng = np.random.default_rng(case["seed"])
    (a, b), strides, (azp, bzp, _) = operands(case, rng)
    rank, m, n = len(case["batch"]) + 2, case["m"], case["n"]
    dt = np.float32 if out_type == "FLOAT32" else np.float16
    a_s = rng.uniform(1e-3, 0.05, line_shape(rank, m, -2, case["scales"][0])).astype(dt)
    b_s = rng.uniform(1e-3, 0.05, line_shape(rank, n, -1, case["scales"][1])).astype(dt)
    bias = rng.uniform(-4, 4, line_shape(rank, n, -1, case["scales"][2])).astype(dt) if has_bias else None
    arrays = [a, a_s, azp, b, b_s, bzp, bias]
    opt = lambda t, x: None if x is None else tensor(t, x.shape)
    d = DML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC(
        ATensor=tensor(case["a_type"], a.shape, strides[0]), AScaleTensor=tensor(out_type, a_s.shape),
        AZeroPointTensor=opt(case["a_type"], azp), BTensor=tensor(case["b_type"], b.shape, strides[1]),
        BScaleTensor=tensor(out_type, b_s.shape), BZeroPointTensor=opt(case["b_type"], bzp),
        BiasTensor=opt(out_type, bias), OutputTensor=tensor(out_type, case["batch"] + [m, n]))
    (got,) = run_operator(d, arrays, adapter=preset)
    want = golden.OPERATORS["MATRIX_MULTIPLY_INTEGER_TO_FLOAT"](arrays, {}, None, False, out_type)
    assert got.dtype == dt
    same_bits(got, want)
    # the golden model from the text: float32(exact sum) * (AScale * BScale), + Bias, each rounded once
    sums = exact_sums(a, azp, b, bzp).astype(np.float64).astype(np.float32)      # |sums| < 2^24: exact
    scale = (np.broadcast_to(a_s, sums.shape).astype(np.float32) * np.broadcast_to(b_s, sums.shape).astype(np.float32))
    value = (sums * scale).astype(np.float32)
    if bias is not None:
        value = (value + np.broadcast_to(bias, sums.shape).astype(np.float32)).astype(np.float32)
    same_bits(want, value.astype(dt))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.sampled_from(["FLOAT32", "FLOAT16"]), st.booleans(), st.sampled_from(PRESETS + (WARP,)))
def test_drawn_integer_to_float_products_are_bit_exact_on_every_adapter(case, out_type, has_bias, preset):
    run_to_float(case, out_type, has_bias, preset)

@pytest.mark.parametrize("m, k, n", [(1, 1, 1), (64, 16, 64), (65, 17, 63), (3, 33, 70)])
def test_block_and_tile_edges(m, k, n):
    case = dict(a_type="UINT8", b_type="INT8", out_type="UINT8", batch=[], m=m, k=k, n=n,
                zero_points=["line", "line", "line"], scales=[True, True, True], layouts=["packed", "packed"],
                seed=m * 1000 + k * 10 + n)
    run_mmi(case)
    run_qlmm(case)
    run_to_float(case, "FLOAT16", True)


# ---- the same kernel on every wave width ---------------------------------------------------------------------------
def test_every_wave_width_gives_the_same_bits():
    rng = np.random.default_rng(5)
    a, b = ints(rng, "INT8", (2, 70, 37)), ints(rng, "UINT8", (2, 37, 66))
    azp, bzp = ints(rng, "INT8", (1, 70, 1)), ints(rng, "UINT8", (1, 1, 66))
    want = golden.run("MATRIX_MULTIPLY_INTEGER", [a, azp, b, bzp], {})
    out = np.zeros((2, 70, 66), np.int32)
    raw = lambda x: x.view(np.uint8).reshape(-1)
    for width in (8, 16, 32, 64):
        gpu = Gpu(RX_7900_XTX, wave_width=width, timing=False)
        specs = [TensorSpec(t, x.shape, None, x.nbytes) for t, x in
                 (("INT8", a), ("INT8", azp), ("UINT8", b), ("UINT8", bzp), ("INT32", out))]
        run = DirectRun(gpu, "MATRIX_MULTIPLY_INTEGER", specs, [raw(a), raw(azp), raw(b), raw(bzp), raw(out)])
        stats = run.dispatch()
        assert stats.workgroups == 2 * 2 * 2       # ceil(66 / 64) x ceil(70 / 64) x 2 batches
        got = run.output_bytes(4)[:out.nbytes].view(np.int32).reshape(out.shape)
        same_bits(got, want)


# ---- the golden model's order, from the text -----------------------------------------------------------------------
@settings(max_examples=20, deadline=None)
@given(st.integers(1, 5), st.integers(1, 9), st.integers(1, 5), st.sampled_from(["INT8", "UINT8"]),
       st.integers(0, 2 ** 32 - 1))
def test_the_golden_requantization_is_the_literal_per_element_text(m, k, n, out_type, seed):
    rng = np.random.default_rng(seed)
    a, b = ints(rng, "UINT8", (m, k)), ints(rng, "INT8", (k, n))
    azp, bzp, ozp = ints(rng, "UINT8", (m, 1)), ints(rng, "INT8", (1, n)), ints(rng, out_type, (m, 1))
    a_s, b_s = rng.uniform(1e-3, 0.1, (m, 1)).astype(np.float32), rng.uniform(1e-3, 0.1, (1, n)).astype(np.float32)
    o_s = rng.uniform(1e-3, 0.5, (m, 1)).astype(np.float32)
    got = golden.OPERATORS["QUANTIZED_LINEAR_MATRIX_MULTIPLY"]([a, a_s, azp, b, b_s, bzp, o_s, ozp], {}, None, False,
                                                               out_type)
    sums = exact_sums(a, azp, b, bzp)
    lo, hi = (-128, 127) if out_type == "INT8" else (0, 255)
    for i in range(m):
        for j in range(n):
            v = np.float32(int(sums[i, j]))                                   # rounded once
            v = np.float32(v * np.float32(a_s[i, 0] * b_s[0, j]))             # times the rounded scale product
            v = np.float32(v / o_s[i, 0])                                     # the IEEE quotient
            q = float(np.rint(v)) + int(ozp[i, 0])                            # ties to even, then the zero point
            assert got[i, j] == min(max(q, lo), hi)


def test_requantization_saturates_and_rounds_half_to_even():
    # sums 1 .. 6 with scales 1 x 1 / 2: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, 3 -> 3; + zero point 126 saturates at 127
    a = np.array([[1], [3], [5], [6]], np.uint8)
    b = np.array([[1]], np.uint8)
    one = np.ones((1, 1), np.float32)
    arrays = [a, one, None, b, one, None, np.full((1, 1), 2, np.float32), np.array([[126]], np.int8)]
    (got,) = run_operator(qlmm_desc(("UINT8", "UINT8", "INT8"), arrays, (4, 1)), arrays)
    assert got.ravel().tolist() == [126, 127, 127, 127]
    arrays[7] = np.array([[0]], np.int8)
    (got,) = run_operator(qlmm_desc(("UINT8", "UINT8", "INT8"), arrays, (4, 1)), arrays)
    assert got.ravel().tolist() == [0, 2, 2, 3]
    arrays[2] = np.array([[200]], np.uint8)               # (a - 200) < 0: UINT8 output saturates at 0
    arrays[7] = None
    (got,) = run_operator(qlmm_desc(("UINT8", "UINT8", "UINT8"), arrays, (4, 1)), arrays)
    assert got.ravel().tolist() == [0, 0, 0, 0]


def test_int32_sums_are_exact_at_the_extremes():
    k = 300
    a = np.full((2, k), -128, np.int8)
    b = np.full((k, 2), -128, np.int8)
    (got,) = run_operator(mmi_desc("INT8", "INT8", a, None, b, None, (2, 2)), [a, None, b, None])
    assert (got == 128 * 128 * k).all()
    a = np.full((1, k), 255, np.uint8)
    azp = np.zeros((1, 1), np.uint8)
    b = np.full((k, 1), 0, np.uint8)
    bzp = np.full((1, 1), 255, np.uint8)
    (got,) = run_operator(mmi_desc("UINT8", "UINT8", a, azp, b, bzp, (1, 1)), [a, azp, b, bzp])
    assert got.tolist() == [[-255 * 255 * k]]


# ---- validation ------------------------------------------------------------------------------------------------
def refusal(operator_type, desc):
    dml = DMLCreateDevice(D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0), DML_CREATE_DEVICE_FLAG_NONE)
    try:
        dml.CreateOperator(DML_OPERATOR_DESC(Type=operator_type, Desc=desc))
    except HResultError as error:
        return error.hresult, error.message
    return "validated"


def test_shapes_and_types_are_checked():
    a, b = np.zeros((2, 3), np.int8), np.zeros((3, 5), np.uint8)
    mmi = lambda azp, bzp, out=(2, 5), a=a, b=b: refusal(DML_OPERATOR_MATRIX_MULTIPLY_INTEGER,
                                                         mmi_desc("INT8", "UINT8", a, azp, b, bzp, out))
    assert mmi(np.zeros((2, 1), np.int8), np.zeros((1, 5), np.uint8)) == "validated"
    assert mmi(np.zeros((1, 1), np.int8), np.zeros((1, 1), np.uint8)) == "validated"
    assert mmi(np.zeros((1, 3), np.int8), None) == (
        E_INVALIDARG, "AZeroPointTensor.Sizes is {1,3}; DML_OPERATOR_MATRIX_MULTIPLY_INTEGER needs {1,1} (per tensor) "
                      "or {2,1} (per row, M = 2).")
    assert mmi(None, np.zeros((5, 1), np.uint8)) == (
        E_INVALIDARG, "BZeroPointTensor.Sizes is {5,1}; DML_OPERATOR_MATRIX_MULTIPLY_INTEGER needs {1,1} (per tensor) "
                      "or {1,5} (per column, N = 5).")
    assert mmi(None, None, out=(2, 4)) == (
        E_INVALIDARG, "OutputTensor.Sizes is {2,4}; DML_OPERATOR_MATRIX_MULTIPLY_INTEGER with ATensor.Sizes {2,3} and "
                      "BTensor.Sizes {3,5} needs {.., 2, 5}.")
    assert mmi(None, None, b=np.zeros((4, 5), np.uint8))[0] == E_INVALIDARG          # K differs
    assert mmi(None, np.zeros((1, 1, 5), np.uint8))[0] == E_INVALIDARG               # DimensionCount differs
    wrong_type = mmi_desc("INT8", "UINT8", a, None, b, None, (2, 5))
    wrong_type.OutputTensor = tensor("FLOAT32", (2, 5))
    assert refusal(DML_OPERATOR_MATRIX_MULTIPLY_INTEGER, wrong_type)[0] == E_INVALIDARG
    zp_type = mmi_desc("INT8", "UINT8", a, np.zeros((1, 1), np.int8), b, None, (2, 5))
    zp_type.AZeroPointTensor = tensor("UINT8", (1, 1))                                  # not A's DataType
    assert refusal(DML_OPERATOR_MATRIX_MULTIPLY_INTEGER, zp_type)[0] == E_INVALIDARG


def test_quantized_scale_shapes_are_checked():
    a, b = np.zeros((2, 3), np.uint8), np.zeros((3, 5), np.uint8)
    s = lambda *shape: np.ones(shape, np.float32)
    arrays = [a, s(2, 1), None, b, s(1, 5), None, s(2, 1), None]
    op = DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY
    assert refusal(op, qlmm_desc(("UINT8", "UINT8", "UINT8"), arrays, (2, 5))) == "validated"
    arrays[6] = s(1, 5)
    assert refusal(op, qlmm_desc(("UINT8", "UINT8", "UINT8"), arrays, (2, 5))) == (
        E_INVALIDARG, "OutputScaleTensor.Sizes is {1,5}; DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY needs {1,1} "
                      "(per tensor) or {2,1} (per row, M = 2).")
