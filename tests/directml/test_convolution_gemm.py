"""DML_OPERATOR_CONVOLUTION on the implicit-GEMM kernel (kernels/conv_gemm.s), bit for bit against the golden model.

Drawn descs that the driver sends to the implicit GEMM (C/G KH KW >= 64 and K/G >= 16: FLOAT32 and FLOAT16, one and
two spatial dimensions, batches, groups, strides, dilations, start and end padding, both modes, a bias or none,
packed, padded and permuted layouts, special values) run on every adapter; the kernel alone runs on wave widths 8 to
64; the driver's choice of kernel (the program's name) is pinned per desc; padded taps are skipped (-0 stays -0, a NaN
weight on a padded tap does nothing) and a NaN input is not mistaken for a padded tap; a FusedActivation is the
activation of the result."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dmlemu import golden, run_operator
from dmlemu.direct_run import DirectRun
from dmlemu.gpu import Gpu
from dmlemu.kernels import conv_gemm_ops
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import H200, PRESETS, RX_7900_XTX, WARP
from tensor_layouts import same_bits
from test_convolution import CONV, CROSS, attributes_of, conv_desc, fused, geometry, output_sizes, run_case, values


@st.composite
def gemm_cases(draw):
    """Descs on the implicit-GEMM path: enough channels per group for the rule, small spatial sizes."""
    spatial = draw(st.integers(1, 2))
    window = [draw(st.integers(1, 3)) for _ in range(spatial)]
    if spatial == 1:
        window = [draw(st.integers(3, 5))]
    taps = int(np.prod(window))
    c_group = max(-(-conv_gemm_ops.MIN_REDUCTION // taps), draw(st.integers(1, 12)))
    strides = [draw(st.integers(1, 2)) for _ in range(spatial)]
    dilations = [draw(st.integers(1, 2)) for _ in range(spatial)]
    start = [draw(st.integers(0, 2)) for _ in range(spatial)]
    end = [draw(st.integers(0, 2)) for _ in range(spatial)]
    extent = [(w - 1) * d + 1 for w, d in zip(window, dilations)]
    in_sizes = [max(draw(st.integers(1, 7)), e - s - t) for e, s, t in zip(extent, start, end)]
    return dict(type_name=draw(st.sampled_from(["FLOAT32", "FLOAT16"])), n=draw(st.integers(1, 2)),
                groups=draw(st.sampled_from([1, 1, 2])), c_group=c_group,
                k_group=draw(st.sampled_from([16, 20, 33, 64, 70])), window=window, in_sizes=in_sizes,
                geo=dict(strides=strides, dilations=dilations, start=start, end=end),
                mode=draw(st.sampled_from([CROSS, CONV])), bias=draw(st.booleans()),
                layouts=[draw(st.sampled_from(["packed", "padded", "permuted"])) for _ in range(4)],
                special=draw(st.booleans()), seed=draw(st.integers(0, 2 ** 32 - 1)))


def program_name(x_sizes, w_sizes, groups=1, width=32, type_name="FLOAT32", bias=False, direction=0, **geo):
    """The program the driver picks for a desc (kernels/window_ops.compile_window), run once on zeros."""
    t = np.float32 if type_name == "FLOAT32" else np.float16
    x, w = np.zeros(x_sizes, t), np.zeros(w_sizes, t)
    b = np.zeros((1, w_sizes[0]) + (1,) * (len(x_sizes) - 2), t) if bias else None
    return run_kernel(x, w, b, width, dict(Mode=CROSS, Direction=direction, GroupCount=groups,
                                           **geometry(len(x_sizes) - 2, **geo)))[1]


def run_kernel(x, w, bias, width, attributes, preset=RX_7900_XTX):
    """(output, program name) of one dispatch on `preset` at wave width `width`."""
    gpu = Gpu(preset, wave_width=width, timing=False)
    t = "FLOAT32" if x.dtype == np.float32 else "FLOAT16"
    g = {k: attributes[k] for k in ("Strides", "Dilations", "StartPadding", "EndPadding")}
    out = np.zeros(output_sizes(x.shape, w.shape, g), x.dtype)
    spec = lambda a: TensorSpec(t, a.shape, None, a.nbytes)
    raw = lambda a: a.view(np.uint8).reshape(-1)
    run = DirectRun(gpu, "CONVOLUTION", [spec(x), spec(w), None if bias is None else spec(bias), spec(out)],
                    [raw(x), raw(w), np.zeros(4, np.uint8) if bias is None else raw(bias), raw(out)],
                    attributes=attributes)
    run.dispatch()
    name = run.kernel.program.name
    got = run.output_bytes(3)[:out.nbytes].view(out.dtype).reshape(out.shape).copy()
    run.free()
    return got, name


# ---- which kernel ------------------------------------------------------------------------------------------------
def test_the_driver_picks_the_kernel_per_desc():
    pad = dict(start=[1, 1], end=[1, 1])
    assert program_name([1, 16, 6, 6], [32, 16, 3, 3], **pad) == "convolution_implicit_gemm_float32_m16_no_bias"
    assert program_name([1, 16, 6, 6], [32, 16, 3, 3], bias=True) == "convolution_implicit_gemm_float32_m16_unpadded"
    assert program_name([1, 8, 12], [16, 8, 9], type_name="FLOAT16", width=64) == (
        "convolution_implicit_gemm_float16_m16_no_bias_unpadded")     # wave32: on matrix units (test_convolution_wmma)
    # depthwise (C/G KH KW = 9: conv_depthwise.s), few output channels, 1 x 1 (gemm.s itself), BACKWARD and 3-D: not this kernel
    assert program_name([1, 32, 6, 6], [32, 1, 3, 3], groups=32, **pad).startswith("convolution_depthwise_")
    assert program_name([1, 16, 6, 6], [8, 16, 3, 3], **pad).startswith("convolution_direct_")
    assert program_name([1, 16, 6, 6], [32, 16, 1, 1]).startswith("convolution_gemm_")
    assert program_name([1, 16, 4, 4, 4], [32, 16, 3, 3, 3]).startswith("convolution_direct_")
    assert program_name([1, 32, 4, 4], [32, 16, 3, 3], direction=1).startswith("convolution_backward_direct_")


# ---- drawn descs through the mirror --------------------------------------------------------------------------------
@settings(max_examples=14, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gemm_cases(), st.sampled_from(PRESETS + (WARP,)))
def test_drawn_implicit_gemm_convolutions_are_bit_exact_on_every_adapter(case, preset):
    run_case(case, preset)


@pytest.mark.parametrize("type_name", ["FLOAT32", "FLOAT16"])
def test_every_wave_width_gives_the_same_bits(type_name):
    rng = np.random.default_rng(21)
    x = values(rng, type_name, (2, 20, 7, 6), special=True)
    w = values(rng, type_name, (36, 10, 3, 3), special=True)          # G = 2: Kg = 90, Ng = 18
    bias = values(rng, type_name, (1, 36, 1, 1), special=True)
    attributes = dict(Mode=CONV, Direction=0, GroupCount=2, **geometry(2, strides=[2, 1], dilations=[1, 2],
                                                                       start=[1, 0], end=[2, 1]))
    want = golden.run("CONVOLUTION", [x, w, bias], attributes)
    for width in (8, 16, 32, 64):
        got, name = run_kernel(x, w, bias, width, attributes, H200 if width == 32 else RX_7900_XTX)
        assert name.startswith("convolution_implicit_gemm_")
        same_bits(got, want)


@pytest.mark.parametrize("rows", conv_gemm_ops.BLOCK_ROWS + (20, 28))
def test_every_block_shape_gives_the_same_bits(rows, monkeypatch):
    # BLOCK_M 64 .. 16 (block_rows picks one by the grid's size): 256 .. 64 threads (20, 28: a partial last wave and
    # B loads whose last columns pass the block's 64, masked), the same order
    assert conv_gemm_ops.block_rows(8 * 2048 * 64, 64, 1) == 64 and conv_gemm_ops.block_rows(3136, 64, 1) == 16
    assert conv_gemm_ops.block_rows(3136, 64, 1, simds=192) == 20      # 157 workgroups: one a SIMD at most
    assert conv_gemm_ops.block_rows(4 * 3136, 64, 1, simds=192) == 16
    monkeypatch.setattr(conv_gemm_ops, "block_rows", lambda m, ng, groups, simds=None: rows)
    rng = np.random.default_rng(rows)
    x = values(rng, "FLOAT32", (2, 9, 9, 8), special=True)
    w = values(rng, "FLOAT32", (70, 9, 3, 3), special=True)           # Ng = 70: two column blocks, the second partial
    bias = values(rng, "FLOAT32", (1, 70, 1, 1))
    attributes = dict(Mode=CROSS, Direction=0, GroupCount=1, **geometry(2, start=[1, 1], end=[0, 1]))
    got, name = run_kernel(x, w, bias, 32, attributes)
    assert name == f"convolution_implicit_gemm_float32_m{rows}"
    same_bits(got, golden.run("CONVOLUTION", [x, w, bias], attributes))


# ---- padded taps, NaN inputs -----------------------------------------------------------------------------------------
def test_padded_taps_are_skipped_so_negative_zero_stays_negative_zero():
    # every product is -1 x +0 = -0; a tap in the padding taken as fma(0, w, acc) would give +0 at the borders,
    # and a NaN weight on a padded tap must not reach the first output row
    x = -np.ones((1, 8, 4, 5), np.float32)
    w = np.zeros((16, 8, 3, 3), np.float32)
    w[1, :, 0, :] = np.nan
    attributes = dict(Mode=CROSS, Direction=0, GroupCount=1, **geometry(2, start=[1, 2], end=[2, 1]))
    got, name = run_kernel(x, w, None, 32, attributes)
    same_bits(got, golden.run("CONVOLUTION", [x, w, None], attributes))
    assert name == "convolution_implicit_gemm_float32_m16_no_bias"
    bits = got.view(np.uint32)
    assert got.shape == (1, 16, 5, 6) and (bits[:, [0] + list(range(2, 16))] == 0x80000000).all()
    assert (bits[0, 1, 0] == 0x80000000).all() and np.isnan(got[0, 1, 1:4]).all()


def test_a_nan_input_is_not_a_padded_tap():
    # the padded tap's marker in LDS is a NaN: every NaN the input holds, whatever its payload, is the canonical NaN
    # before it is written, so it is never skipped
    x = np.ones((1, 8, 3, 3), np.float32)
    x.view(np.uint32)[0, 0, 1, 1] = conv_gemm_ops.SKIP
    x.view(np.uint32)[0, 1, 0, 0] = 0xFFC00001
    w = np.ones((16, 8, 3, 3), np.float32)
    attributes = dict(Mode=CROSS, Direction=0, GroupCount=1, **geometry(2, start=[1, 1], end=[1, 1]))
    got, name = run_kernel(x, w, None, 32, attributes)
    assert name.startswith("convolution_implicit_gemm_") and np.isnan(got).all()
    same_bits(got, golden.run("CONVOLUTION", [x, w, None], attributes))


# ---- FusedActivation ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, fields", [("ACTIVATION_RELU", {}), ("ACTIVATION_LEAKY_RELU", {"Alpha": 0.1}),
                                          ("ACTIVATION_LINEAR", {"Alpha": 1.5, "Beta": -0.25})])
@pytest.mark.parametrize("type_name", ["FLOAT32", "FLOAT16"])
def test_a_fused_activation_is_the_activation_of_the_result(name, fields, type_name):
    case = dict(type_name=type_name, n=1, groups=1, c_group=8, k_group=20, window=[3, 3], in_sizes=[5, 4],
                geo=dict(strides=[1, 2], dilations=[1, 1], start=[1, 0], end=[1, 1]), mode=CROSS, bias=True,
                layouts=["packed", "padded", "packed", "permuted"], special=True, seed=len(name))
    fused_attrs = (name, {k: np.float32(v) for k, v in fields.items()})
    got, _ = run_case(case, activation=fused(name, **fields), fused=fused_attrs)
    if type_name == "FLOAT32":       # the activation of the FLOAT32 result, as the operator alone gives it
        plain, _ = run_case(case)
        same_bits(got, golden.run(name, [plain], fused_attrs[1]))


def test_the_mirror_runs_a_resnet_like_layer():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 16, 10, 10)).astype(np.float32)
    w = rng.standard_normal((32, 16, 3, 3)).astype(np.float32)
    desc = conv_desc("FLOAT32", x.shape, w.shape, start=[1, 1], end=[1, 1])
    (got,) = run_operator(desc, [x, w, None])
    same_bits(got, golden.run("CONVOLUTION", [x, w, None], attributes_of(desc)))
