"""DML_OPERATOR_GEMM through the mirror, bit for bit against the golden model (docs/NUMERICS.md, "GEMM").

Drawn descs (FLOAT32 and FLOAT16, ranks 2 to 4, M, K, N from 1 to past a block, transposes, C or none, Alpha and
Beta, packed, padded, transposed-in-memory and broadcast (stride 0) layouts, special values) run on every adapter;
the kernel alone runs on wave widths 8 to 64; the golden model is checked against a literal per-element loop
written from the text and against float64; the signed-zero and NaN rules and the validation sentences of the
page's rules are pinned."""
import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dmlemu import golden, run_operator
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.direct_run import DirectRun
from dmlemu.errors import E_INVALIDARG, E_NOTIMPL, HResultError
from dmlemu.gpu import Gpu
from dmlemu.isa.numerics import fused_multiply_add
from dmlemu.kernels.driver import TensorSpec
from dmlemu.kernels.gemm_ops import BLOCK, WIDE_BLOCK_M
from dmlemu.presets import PRESETS, RX_7900_XTX, WARP
from tensor_layouts import data_type, layout_strides, same_bits, tensor

DTYPES = {"FLOAT32": np.float32, "FLOAT16": np.float16}


def gemm_desc(type_name, a_sizes, b_sizes, out_sizes, c_sizes=None, trans_a=0, trans_b=0, alpha=1.0, beta=1.0,
              strides=(None, None, None, None), activation=None):
    return DML_GEMM_OPERATOR_DESC(
        ATensor=tensor(type_name, a_sizes, strides[0]), BTensor=tensor(type_name, b_sizes, strides[1]),
        CTensor=None if c_sizes is None else tensor(type_name, c_sizes, strides[2]),
        OutputTensor=tensor(type_name, out_sizes, strides[3]),
        TransA=trans_a, TransB=trans_b, Alpha=alpha, Beta=beta, FusedActivation=activation)


def values(rng, type_name, shape, special=False):
    x = (rng.standard_normal(shape) * rng.choice([1e-2, 1.0, 30.0])).astype(DTYPES[type_name])
    if special and x.size:
        picks = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], dtype=x.dtype)
        mask = rng.random(shape) < 0.05
        x[mask] = rng.choice(picks, size=int(mask.sum()))
    return x


def expected(a, b, c, trans_a=0, trans_b=0, alpha=1.0, beta=1.0):
    return golden.run("GEMM", [a, b, c], {"TransA": trans_a, "TransB": trans_b, "Alpha": np.float32(alpha),
                                          "Beta": np.float32(beta)})


def broadcast_values(x, dims):
    for d in dims:       # every element along a stride-0 dimension is the one stored value
        x = np.repeat(np.take(x, [0], axis=d), x.shape[d], axis=d)
    return x


# ---- drawn descs through the mirror ------------------------------------------------------------------------------
@st.composite
def cases(draw):
    type_name = draw(st.sampled_from(["FLOAT32", "FLOAT16"]))
    rank = draw(st.integers(2, 4))
    batch = [draw(st.integers(1, 3)) for _ in range(rank - 2)]
    big = draw(st.booleans())
    m, k, n = (draw(st.integers(1, 80 if big else 9)) for _ in range(3))
    return dict(type_name=type_name, batch=batch, m=m, k=k, n=n, trans_a=draw(st.integers(0, 1)),
                trans_b=draw(st.integers(0, 1)), has_c=draw(st.booleans()),
                alpha=draw(st.sampled_from([1.0, 0.5, -2.0, 0.0, 1e-3])), beta=draw(st.sampled_from([1.0, 0.0, -0.75, 3.0])),
                layouts=[draw(st.sampled_from(["packed", "padded", "permuted", "broadcast"])) for _ in range(4)],
                special=draw(st.booleans()), seed=draw(st.integers(0, 2 ** 32 - 1)))


def run_case(case, preset=None):
    rng = np.random.default_rng(case["seed"])
    t, batch, m, k, n = case["type_name"], case["batch"], case["m"], case["k"], case["n"]
    a_sizes = batch + ([k, m] if case["trans_a"] else [m, k])
    b_sizes = batch + ([n, k] if case["trans_b"] else [k, n])
    out_sizes = batch + [m, n]
    arrays, strides = [], []
    for sizes, layout in zip((a_sizes, b_sizes, out_sizes), case["layouts"][:3]):
        s, dims = layout_strides(sizes, layout, rng)
        arrays.append(broadcast_values(values(rng, t, sizes, case["special"]), dims))
        strides.append(s)
    a, b, c = arrays
    if not case["has_c"]:
        c, strides[2] = None, None
    out_layout = case["layouts"][3] if case["layouts"][3] != "broadcast" else "padded"   # an output never aliases
    strides.append(layout_strides(out_sizes, out_layout, rng)[0])
    desc = gemm_desc(t, a_sizes, b_sizes, out_sizes, out_sizes if case["has_c"] else None, case["trans_a"],
                     case["trans_b"], case["alpha"], case["beta"], strides)
    (got,) = run_operator(desc, [a, b, c], adapter=preset)
    same_bits(got, expected(a, b, c, case["trans_a"], case["trans_b"], case["alpha"], case["beta"]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.sampled_from(PRESETS + (WARP,)))
def test_drawn_gemms_are_bit_exact_on_every_adapter(case, preset):
    run_case(case, preset)


@pytest.mark.parametrize("m, k, n", [(1, 1, 1), (1, 7, 1), (64, 16, 64), (65, 17, 63), (3, 130, 5), (70, 1, 129),
                                     (128, 32, 64), (129, 48, 65), (200, 33, 3)])   # WIDE: 128-row blocks, K tiles
@pytest.mark.parametrize("type_name", ["FLOAT32", "FLOAT16"])
def test_block_and_tile_edges(m, k, n, type_name):
    run_case(dict(type_name=type_name, batch=[], m=m, k=k, n=n, trans_a=0, trans_b=1, has_c=True, alpha=0.5,
                  beta=-1.0, layouts=["packed"] * 4, special=False, seed=m * 1000 + k * 10 + n))


def test_four_dimensions_with_a_broadcast_batch_and_c():
    rng = np.random.default_rng(3)
    a = values(rng, "FLOAT32", (2, 3, 5, 4))
    b = broadcast_values(values(rng, "FLOAT32", (2, 3, 4, 6)), (0, 1))     # one B for every batch
    c = np.broadcast_to(values(rng, "FLOAT32", (1, 1, 1, 6)), (2, 3, 5, 6)).copy()   # a bias row
    desc = gemm_desc("FLOAT32", a.shape, b.shape, (2, 3, 5, 6), (2, 3, 5, 6), alpha=1.0, beta=1.0,
                     strides=(None, [0, 0, 6, 1], [0, 0, 0, 1], None))
    (got,) = run_operator(desc, [a, b, c])
    same_bits(got, expected(a, b, c))
    np.testing.assert_allclose(got, a.astype(np.float64) @ b + c, rtol=1e-5, atol=1e-5)


# ---- the same kernel on every wave width ---------------------------------------------------------------------------
def run_kernel(a, b, c, width, trans_a=0, trans_b=0, alpha=1.0, beta=1.0, preset=RX_7900_XTX):
    gpu = Gpu(preset, wave_width=width, timing=False)
    t = "FLOAT32" if a.dtype == np.float32 else "FLOAT16"
    m = a.shape[-1] if trans_a else a.shape[-2]
    n = b.shape[-2] if trans_b else b.shape[-1]
    out = np.zeros(a.shape[:-2] + (m, n), a.dtype)
    spec = lambda x: TensorSpec(t, x.shape, None, x.nbytes)
    raw = lambda x: x.view(np.uint8).reshape(-1)
    run = DirectRun(gpu, "GEMM", [spec(a), spec(b), None if c is None else spec(c), spec(out)],
                    [raw(a), raw(b), np.zeros(4, np.uint8) if c is None else raw(c), raw(out)],
                    attributes={"TransA": trans_a, "TransB": trans_b, "Alpha": alpha, "Beta": beta})
    stats = run.dispatch()
    return run.output_bytes(3)[:out.nbytes].view(out.dtype).reshape(out.shape), stats


@pytest.mark.parametrize("type_name", ["FLOAT32", "FLOAT16"])
def test_every_wave_width_gives_the_same_bits(type_name):
    rng = np.random.default_rng(12)
    a = values(rng, type_name, (2, 70, 37), special=True)
    b = values(rng, type_name, (2, 37, 66), special=True)
    c = values(rng, type_name, (2, 70, 66), special=True)
    want = expected(a, b, c, alpha=0.75, beta=-1.5)
    for width in (8, 16, 32, 64):
        got, stats = run_kernel(a, b, c, width, alpha=0.75, beta=-1.5)
        wmma = type_name == "FLOAT16" and width == 32      # matrix units: the WMMA variant's 128-row blocks
        assert stats.workgroups == 2 * (1 if wmma else 2) * 2   # ceil(66 / 64) x ceil(70 / 64 or 128) x 2 batches
        same_bits(got, want)


# ---- the golden model's order, from the text -----------------------------------------------------------------------
def literal(a, b, c, alpha, beta):
    """Each element on its own: acc from -0, fma over k ascending, Alpha, then fma(Beta, C, .)."""
    out = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            acc = np.float32(-0.0)
            for k in range(a.shape[1]):
                acc = np.float32(fused_multiply_add(np.float32(a[i, k]), np.float32(b[k, j]), acc))
            acc = np.float32(acc * np.float32(alpha))
            if c is not None:
                acc = np.float32(fused_multiply_add(np.float32(beta), np.float32(c[i, j]), acc))
            out[i, j] = acc
    return out


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 6), st.integers(1, 9), st.integers(1, 6), st.booleans(), st.integers(0, 2 ** 32 - 1))
def test_the_golden_gemm_is_the_literal_loop(m, k, n, has_c, seed):
    rng = np.random.default_rng(seed)
    a, b = values(rng, "FLOAT32", (m, k), True), values(rng, "FLOAT32", (k, n), True)
    c = values(rng, "FLOAT32", (m, n), True) if has_c else None
    want = literal(a, b, c, 1.5, -0.5)
    want[np.isnan(want)] = np.float32(np.nan)      # canonical NaN
    same_bits(expected(a, b, c, alpha=1.5, beta=-0.5), want)


def test_close_to_float64():
    rng = np.random.default_rng(9)
    a, b = rng.uniform(-1, 1, (50, 200)).astype(np.float32), rng.uniform(-1, 1, (200, 40)).astype(np.float32)
    (got,) = run_operator(gemm_desc("FLOAT32", a.shape, b.shape, (50, 40)), [a, b, None])
    np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=0, atol=2e-5)


# ---- signed zero, NaN, infinity ------------------------------------------------------------------------------------
def test_a_sum_of_negative_zero_products_stays_negative_zero_at_every_edge():
    # -1 x +0 = -0 for every k: acc from -0 stays -0 (from +0 it would be +0); K = 17: a whole tile and one more k
    a = -np.ones((65, 17), np.float32)
    b = np.zeros((17, 3), np.float32)
    (got,) = run_operator(gemm_desc("FLOAT32", a.shape, b.shape, (65, 3)), [a, b, None])
    assert (got.view(np.uint32) == 0x80000000).all()
    # with C = +0 and Beta = 1: fma(1, +0, -0) = +0
    c = np.zeros((65, 3), np.float32)
    (got,) = run_operator(gemm_desc("FLOAT32", a.shape, b.shape, (65, 3), (65, 3)), [a, b, c])
    assert (got.view(np.uint32) == 0).all()


def test_nan_and_infinity_follow_ieee_and_nan_is_canonical():
    a = np.array([[np.inf, 1.0], [np.nan, 1.0], [np.inf, -np.inf]], np.float32)
    b = np.array([[0.0, 1.0], [1.0, 1.0]], np.float32)
    c = np.array([[1, np.inf], [0, 0], [0, 0]], np.float32)
    (got,) = run_operator(gemm_desc("FLOAT32", a.shape, b.shape, (3, 2), (3, 2), beta=0.0), [a, b, c])
    # inf * 0 = NaN; NaN propagates; inf + -inf = NaN; Beta = 0 times C = inf is NaN (an fma, as IEEE says)
    assert got.view(np.uint32).tolist() == [[0x7FC00000, 0x7FC00000], [0x7FC00000, 0x7FC00000],
                                            [0x7FC00000, 0x7FC00000]]


def test_float16_accumulates_in_float32_and_rounds_once():
    # 2048 + 1 + 1 + ... : in FLOAT16 every + 1 would be lost (the spacing at 2048 is 2); in FLOAT32 they add up
    a = np.ones((1, 9), np.float16)
    b = np.array([[2048]] + [[1]] * 8, np.float16)
    (got,) = run_operator(gemm_desc("FLOAT16", a.shape, b.shape, (1, 1)), [a, b, None])
    assert got.tolist() == [[2056.0]]


# ---- validation ------------------------------------------------------------------------------------------------
def refusal(desc):
    dml = DMLCreateDevice(D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0), DML_CREATE_DEVICE_FLAG_NONE)
    try:
        dml.CreateOperator(DML_OPERATOR_DESC(Type=DML_OPERATOR_GEMM, Desc=desc))
    except HResultError as error:
        return error.hresult, error.message
    return "validated"


def test_shapes_are_checked():
    assert refusal(gemm_desc("FLOAT32", [2, 3], [4, 5], [2, 5])) == (
        E_INVALIDARG, "BTensor.Sizes is {4,5} but ATensor.Sizes is {2,3}; DML_OPERATOR_GEMM needs B's K (4) to equal "
                      "A's K (3) after TransA and TransB.")
    assert refusal(gemm_desc("FLOAT32", [3, 2], [3, 5], [2, 5], trans_a=1)) == "validated"
    assert refusal(gemm_desc("FLOAT32", [2, 3], [3, 5], [2, 4])) == (
        E_INVALIDARG, "OutputTensor.Sizes is {2,4}; DML_OPERATOR_GEMM with ATensor.Sizes {2,3} and BTensor.Sizes "
                      "{3,5} needs {.., 2, 5}.")
    assert refusal(gemm_desc("FLOAT32", [2, 3], [3, 5], [2, 5], [1, 5])) == (
        E_INVALIDARG, "CTensor.Sizes is {1,5} but OutputTensor.Sizes is {2,5}; DML_OPERATOR_GEMM requires the same "
                      "Sizes (C broadcasts through stride 0).")
    assert refusal(gemm_desc("FLOAT32", [1, 1, 2, 3], [1, 2, 3, 5], [1, 2, 2, 5])) == (
        E_INVALIDARG, "ATensor.Sizes is {1,1,2,3} but OutputTensor.Sizes is {1,2,2,5}; DML_OPERATOR_GEMM needs the "
                      "same leading (batch) sizes (broadcast through stride 0).")
    assert refusal(gemm_desc("FLOAT32", [2, 3], [1, 3, 5], [1, 2, 5]))[0] == E_INVALIDARG   # DimensionCount


def test_dimension_counts_and_types_per_feature_level():
    desc = gemm_desc("FLOAT32", [2, 3], [3, 5], [2, 5])
    dml = DMLCreateDevice(D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0), DML_CREATE_DEVICE_FLAG_NONE,
                          max_feature_level=DML_FEATURE_LEVEL_3_1)
    with pytest.raises(HResultError) as error:
        dml.CreateOperator(DML_OPERATOR_DESC(Type=DML_OPERATOR_GEMM, Desc=desc))
    assert error.value.hresult == E_INVALIDARG and "ATensor" in error.value.message
    assert refusal(gemm_desc("FLOAT32", [1, 1, 2, 3], [1, 1, 3, 5], [1, 1, 2, 5])) == "validated"
    assert refusal(gemm_desc("INT32", [2, 3], [3, 5], [2, 5]))[0] == E_INVALIDARG


def test_block_size_is_what_the_launch_says():
    a, b = np.ones((1, 130, 3), np.float32), np.ones((1, 3, 65), np.float32)
    _, stats = run_kernel(a, b, None, 32)          # 4 WIDE workgroups would leave most of 96 CUs idle: 64 x 64
    assert stats.workgroups == -(-130 // BLOCK) * -(-65 // BLOCK)
    few = dataclasses.replace(RX_7900_XTX, compute_units=4)
    got, stats = run_kernel(a, b, None, 32, preset=few)      # a WIDE grid that gives every CU a workgroup: WIDE
    assert stats.workgroups == -(-130 // WIDE_BLOCK_M) * -(-65 // BLOCK)
    same_bits(got, expected(a, b, None, beta=0.0))



def test_every_fma_of_the_wide_tile_issues_as_a_vopd_pair():
    """The WIDE variant's whole K tile: its 512 v_fma_f32 run in consecutive pairs that VOPD's rule (the timing
    model's kernel_path.dual_issue) issues together, so an RDNA3 SIMD spends one cycle on two of them."""
    from dmlemu.kernels.gemm_ops import build_program
    from dmlemu.timing.kernel_path import dual_issue
    records = build_program("FLOAT32", False).records
    fmas = [i for i, r in enumerate(records) if r.entry.mnemonic == "v_fma_f32"]
    runs, run = [], [fmas[0]]
    for i in fmas[1:]:
        if i == run[-1] + 1:
            run.append(i)
        else:
            runs.append(run)
            run = [i]
    runs.append(run)
    tile = [run for run in runs if len(run) == 32][:16]          # 16 k of the unrolled tile: 32 fmas each
    assert len(tile) == 16
    for run in tile:
        assert all(dual_issue(records[a], records[b]) for a, b in zip(run[::2], run[1::2]))

# ---- FusedActivation -----------------------------------------------------------------------------------------------
FUSABLE_ATTRIBUTES = {   # (desc struct field values) for each fusable activation's attributes
    "ACTIVATION_CELU": {"Alpha": 0.7}, "ACTIVATION_ELU": {"Alpha": 0.7}, "ACTIVATION_HARD_SIGMOID": {"Alpha": 0.2, "Beta": 0.5},
    "ACTIVATION_LEAKY_RELU": {"Alpha": 0.1}, "ACTIVATION_LINEAR": {"Alpha": 1.5, "Beta": -0.25},
    "ACTIVATION_PARAMETRIC_SOFTPLUS": {"Alpha": 0.8, "Beta": 1.2}, "ACTIVATION_SCALED_ELU": {"Alpha": 1.6, "Gamma": 1.05},
    "ACTIVATION_SCALED_TANH": {"Alpha": 1.7, "Beta": 0.66}, "ACTIVATION_SHRINK": {"Bias": 0.1, "Threshold": 0.5},
    "ACTIVATION_SOFTPLUS": {"Steepness": 2.0}, "ACTIVATION_THRESHOLDED_RELU": {"Alpha": 0.3},
}


def fused(name):
    from dmlemu.directml.operators import FUSABLE_ACTIVATIONS, SCHEMAS_BY_NAME
    assert name in FUSABLE_ACTIVATIONS
    desc_type = SCHEMAS_BY_NAME[name].desc_type
    desc = desc_type(**FUSABLE_ATTRIBUTES.get(name, {}))
    return DML_OPERATOR_DESC(Type=getattr(DML_OPERATOR_TYPE, "DML_OPERATOR_" + name), Desc=desc)


@pytest.mark.parametrize("name", ["ACTIVATION_RELU", "ACTIVATION_SIGMOID", "ACTIVATION_TANH", "ACTIVATION_GELU",
                                  "ACTIVATION_LEAKY_RELU", "ACTIVATION_LINEAR", "ACTIVATION_SCALED_ELU",
                                  "ACTIVATION_SHRINK", "ACTIVATION_SOFTPLUS", "ACTIVATION_HARD_SIGMOID",
                                  "ACTIVATION_THRESHOLDED_RELU", "ACTIVATION_IDENTITY", "ACTIVATION_CELU",
                                  "ACTIVATION_ELU", "ACTIVATION_PARAMETRIC_SOFTPLUS", "ACTIVATION_SCALED_TANH",
                                  "ACTIVATION_SOFTSIGN"])
@pytest.mark.parametrize("type_name", ["FLOAT32", "FLOAT16"])
def test_a_fused_activation_is_the_activation_of_the_result(name, type_name):
    rng = np.random.default_rng(len(name))
    a, b = values(rng, type_name, (67, 9), special=True), values(rng, type_name, (9, 5), special=True)
    c = values(rng, type_name, (67, 5))
    (got,) = run_operator(gemm_desc(type_name, a.shape, b.shape, (67, 5), (67, 5), alpha=0.5, beta=2.0,
                                    activation=fused(name)), [a, b, c])
    attributes = {"TransA": 0, "TransB": 0, "Alpha": np.float32(0.5), "Beta": np.float32(2.0),
                  "FusedActivation": (name, {k: np.float32(v) for k, v in FUSABLE_ATTRIBUTES.get(name, {}).items()})}
    same_bits(got, golden.run("GEMM", [a, b, c], attributes))
    if type_name == "FLOAT32":     # the activation of GEMM's FLOAT32 result, as the operator alone gives it
        plain = expected(a, b, c, alpha=0.5, beta=2.0)
        same_bits(got, golden.run(name, [plain], attributes["FusedActivation"][1]))
