"""DML_OPERATOR_CONVOLUTION on the depthwise kernels (kernels/conv_depthwise_row.s for 3 x 3 filters, the LDS tile
kernel kernels/conv_depthwise.s for the others), bit for bit against the golden model.

Drawn depthwise descs (GroupCount = C = K, one filter per channel: FLOAT32 and FLOAT16, one and two spatial
dimensions, batches, strides, dilations, start and end padding, both modes, a bias or none, packed, padded and
permuted layouts, special values) run through the mirror on every adapter; the kernel alone runs on wave widths 8, 32
and 64; the driver's choice (the program's name) is pinned per desc, other channel multipliers staying on the direct
kernel; the column kernel's drawn 3 x 3 descs (Strides H 1 and 2, any Strides W, padding, both modes, FLOAT16,
bias, padded rows, a permuted filter) on every adapter and its wave widths 8, 32 and 64, and its interior block
against a tap-by-tap check; padded taps are skipped (-0 stays -0, a NaN weight on a padded tap does nothing) and a
NaN input is not mistaken for a padded tap; a FusedActivation is the activation of the result; the committed
conv_depthwise_row.s and conv_depthwise_row_stores.inc are what their generator (tools/conv_depthwise_row_s.py) writes."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dmlemu import golden
from dmlemu.kernels import conv_depthwise_ops
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import H200, PRESETS, RX_7900_XTX, WARP
from tensor_layouts import same_bits
from test_convolution import CONV, CROSS, fused, geometry, run_case, values
from test_convolution_gemm import program_name, run_kernel


def test_the_committed_column_kernel_is_what_its_generator_writes():
    from dmlemu.tools import conv_depthwise_row_s
    for target, text in ((conv_depthwise_row_s.TARGET, conv_depthwise_row_s.source()),
                         (conv_depthwise_row_s.STORES_TARGET, conv_depthwise_row_s.stores_source())):
        with open(target, encoding="utf-8") as f:
            assert f.read() == text, f"{target} differs from tools/conv_depthwise_row_s.py's output: rerun it"


@st.composite
def depthwise_cases(draw):
    """Depthwise descs: small planes (several tiles where they are wide), windows of 1 to 5 taps a dimension."""
    spatial = draw(st.integers(1, 2))
    window = [draw(st.integers(1, 4)) for _ in range(spatial)]
    strides = [draw(st.integers(1, 3)) for _ in range(spatial)]
    dilations = [draw(st.integers(1, 2)) for _ in range(spatial)]
    start = [draw(st.integers(0, 2)) for _ in range(spatial)]
    end = [draw(st.integers(0, 2)) for _ in range(spatial)]
    extent = [(w - 1) * d + 1 for w, d in zip(window, dilations)]
    in_sizes = [max(draw(st.sampled_from([1, 3, 6, 17, 20])), e - s - t) for e, s, t in zip(extent, start, end)]
    return dict(type_name=draw(st.sampled_from(["FLOAT32", "FLOAT16"])), n=draw(st.integers(1, 2)),
                groups=draw(st.integers(1, 5)), c_group=1, k_group=1, window=window, in_sizes=in_sizes,
                geo=dict(strides=strides, dilations=dilations, start=start, end=end),
                mode=draw(st.sampled_from([CROSS, CONV])), bias=draw(st.booleans()),
                layouts=[draw(st.sampled_from(["packed", "padded", "permuted"])) for _ in range(4)],
                special=draw(st.booleans()), seed=draw(st.integers(0, 2 ** 32 - 1)))


# ---- which kernel ------------------------------------------------------------------------------------------------
def test_the_driver_picks_the_depthwise_kernel_per_desc():
    pad = dict(start=[1, 1], end=[1, 1])
    # 3 x 3, Strides H 1 or 2, dilations 1, packed along W: the column kernel (conv_depthwise_row.s)
    assert program_name([1, 32, 6, 6], [32, 1, 3, 3], groups=32, **pad) == "convolution_depthwise_row_float32_no_bias"
    assert program_name([1, 3, 20, 20], [3, 1, 3, 3], groups=3, strides=[2, 3], type_name="FLOAT16", bias=True) == (
        "convolution_depthwise_row_float16_sh2")
    # other windows, dilations, one spatial dimension, Strides H 3: the LDS tile kernel (conv_depthwise.s)
    assert program_name([1, 32, 6, 6], [32, 1, 3, 3], groups=32, dilations=[1, 2], **pad) == (
        "convolution_depthwise_float32_no_bias")
    assert program_name([1, 4, 9], [4, 1, 5], groups=4, type_name="FLOAT16", bias=True) == (
        "convolution_depthwise_float16")
    assert program_name([1, 3, 20, 20], [3, 1, 5, 5], groups=3, strides=[2, 1]) == (
        "convolution_depthwise_float32_sh2_no_bias")
    assert program_name([1, 3, 20, 20], [3, 1, 3, 3], groups=3, strides=[3, 1]) == (
        "convolution_depthwise_float32_sh3_no_bias")
    # a channel multiplier of 2, grouped channels, 3-D, BACKWARD, a tile too wide or too tall: the direct kernel
    assert program_name([1, 4, 6, 6], [8, 1, 3, 3], groups=4).startswith("convolution_direct_")
    assert program_name([1, 8, 6, 6], [4, 2, 3, 3], groups=4).startswith("convolution_direct_")
    assert program_name([1, 2, 4, 4, 4], [2, 1, 3, 3, 3], groups=2).startswith("convolution_direct_")
    assert program_name([1, 4, 4, 4], [4, 1, 3, 3], groups=4, direction=1).startswith("convolution_backward_direct_")
    assert program_name([1, 2, 4, 80], [2, 1, 1, 3], groups=2, strides=[1, 5]).startswith("convolution_direct_")
    assert program_name([1, 2, 80, 4], [2, 1, 3, 1], groups=2, strides=[5, 1]).startswith("convolution_direct_")
    big = lambda sizes: TensorSpec("FLOAT32", sizes, None, 4 * int(np.prod(sizes)))
    assert conv_depthwise_ops.uses_depthwise((big((1, 65535, 8, 8)), big((65535, 1, 3, 3)), None,
                                              big((1, 65535, 6, 6))), {"GroupCount": 65535})
    assert not conv_depthwise_ops.uses_depthwise((big((2, 40000, 8, 8)), big((40000, 1, 3, 3)), None,
                                                  big((2, 40000, 6, 6))), {"GroupCount": 40000})   # N C > 65,535
    permuted = TensorSpec("FLOAT32", (1, 4, 8, 8), (256, 64, 1, 8), 1024)    # W not packed: the tile kernel
    assert conv_depthwise_ops.uses_row((big((1, 4, 8, 8)), big((4, 1, 3, 3)), None, big((1, 4, 6, 6))),
                                       {"GroupCount": 4})
    assert not conv_depthwise_ops.uses_row((permuted, big((4, 1, 3, 3)), None, big((1, 4, 6, 6))), {"GroupCount": 4})
    assert conv_depthwise_ops.uses_depthwise((permuted, big((4, 1, 3, 3)), None, big((1, 4, 6, 6))),
                                             {"GroupCount": 4})
    assert conv_depthwise_ops.tile_shape((3, 1, 3, 3), {}, 2) == (18, 18)
    assert conv_depthwise_ops.tile_shape((3, 1, 5), {"Strides": (2,), "Dilations": (3,)}, 1) == (1, 43)


# ---- drawn descs through the mirror --------------------------------------------------------------------------------
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(depthwise_cases(), st.sampled_from(PRESETS + (WARP,)))
def test_drawn_depthwise_convolutions_are_bit_exact_on_every_adapter(case, preset):
    run_case(case, preset)


@pytest.mark.parametrize("type_name", ["FLOAT32", "FLOAT16"])
def test_every_wave_width_gives_the_same_bits(type_name):
    rng = np.random.default_rng(26)
    x = values(rng, type_name, (2, 5, 21, 19), special=True)
    w = values(rng, type_name, (5, 1, 3, 2), special=True)
    bias = values(rng, type_name, (1, 5, 1, 1), special=True)
    attributes = dict(Mode=CONV, Direction=0, GroupCount=5, **geometry(2, strides=[1, 2], dilations=[2, 1],
                                                                       start=[2, 0], end=[1, 1]))
    want = golden.run("CONVOLUTION", [x, w, bias], attributes)
    for width in (8, 32, 64):
        got, name = run_kernel(x, w, bias, width, attributes, H200 if width == 32 else RX_7900_XTX)
        assert name == f"convolution_depthwise_{type_name.lower()}"
        same_bits(got, want)


# ---- the column kernel (conv_depthwise_row.s): 3 x 3, its interior block and its border -----------------------------
@st.composite
def column_cases(draw):
    """3 x 3 depthwise descs that conv_depthwise_row.s serves (x and the output packed or with padded rows), planes
    from 1 pixel to several strips and wave widths, so that waves take the interior block's path, the masked path,
    or both."""
    strides = [draw(st.integers(1, 2)), draw(st.integers(1, 3))]
    start = [draw(st.integers(0, 2)) for _ in range(2)]
    end = [draw(st.integers(0, 2)) for _ in range(2)]
    in_sizes = [max(draw(st.integers(1, 40)), 3 - s - t) for s, t in zip(start, end)]
    return dict(type_name=draw(st.sampled_from(["FLOAT32", "FLOAT16"])), n=draw(st.integers(1, 2)),
                groups=draw(st.integers(1, 4)), c_group=1, k_group=1, window=[3, 3], in_sizes=in_sizes,
                geo=dict(strides=strides, dilations=[1, 1], start=start, end=end),
                mode=draw(st.sampled_from([CROSS, CONV])), bias=draw(st.booleans()),
                layouts=[draw(st.sampled_from(["packed", "padded"])), draw(st.sampled_from(["packed", "permuted"])),
                         draw(st.sampled_from(["packed", "padded"])), draw(st.sampled_from(["packed", "padded"]))],
                special=draw(st.booleans()), seed=draw(st.integers(0, 2 ** 32 - 1)))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(column_cases(), st.sampled_from(PRESETS + (WARP,)))
def test_drawn_3x3_depthwise_convolutions_on_the_column_kernel_are_bit_exact(case, preset):
    run_case(case, preset)


@pytest.mark.parametrize("type_name", ["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("mode, stride_h", [(CROSS, 1), (CONV, 1), (CROSS, 2), (CONV, 2)])
def test_the_column_kernel_gives_the_same_bits_on_every_wave_width(type_name, mode, stride_h):
    rng = np.random.default_rng(stride_h)
    x = values(rng, type_name, (2, 3, 37, 29), special=True)
    w = values(rng, type_name, (3, 1, 3, 3), special=True)
    bias = values(rng, type_name, (1, 3, 1, 1), special=True)
    attributes = dict(Mode=mode, Direction=0, GroupCount=3, **geometry(2, strides=[stride_h, 1], start=[1, 1],
                                                                       end=[1, 2]))
    want = golden.run("CONVOLUTION", [x, w, bias], attributes)
    for width in (8, 32, 64):
        got, name = run_kernel(x, w, bias, width, attributes, H200 if width == 32 else RX_7900_XTX)
        assert name == f"convolution_depthwise_row_{type_name.lower()}" + ("_sh2" if stride_h == 2 else "")
        same_bits(got, want)


def test_the_interior_block_is_every_pixel_whose_taps_are_all_inside():
    # MobileNet's 56 x 56, padding 1: strips 1 .. 5 of eight rows (strip 0 reads row -1, strip 6 row 56) by columns
    # 1 .. 54; Strides H 2 takes strips of four rows (strip 6 reads rows 47 .. 55); a plane smaller than a strip has
    # no interior block
    g = dict(OH=56, OW=56, IH=56, IW=56, Sh=1, Sw=1, Ph=1, Pw=1)
    assert conv_depthwise_ops.row_block(g) == (1, 5, 1, 54)
    assert conv_depthwise_ops.row_block(dict(g, OH=28, OW=28, Sh=2, Sw=2)) == (1, 6, 1, 27)
    assert conv_depthwise_ops.row_block(dict(g, OH=4, IH=4)) == (0, 0, 1, 54)
    for sh, sw, ph, pw, size in ((1, 1, 1, 1, 56), (2, 2, 1, 0, 29), (1, 3, 2, 2, 17)):
        geo = dict(IH=size, IW=size, Sh=sh, Sw=sw, Ph=ph, Pw=pw)
        geo.update(OH=(size + 2 * ph - 3) // sh + 1, OW=(size + 2 * pw - 3) // sw + 1)
        r_lo, rows, s_lo, columns = conv_depthwise_ops.row_block(geo)
        p = conv_depthwise_ops.ROW_PIXELS[sh]
        for strip in range(-(-geo["OH"] // p)):
            for ow in range(geo["OW"]):
                inside = all(0 <= (strip * p + j) * sh - ph + kh < size and 0 <= ow * sw - pw + kw < size
                             and strip * p + j < geo["OH"] for j in range(p) for kh in range(3) for kw in range(3))
                assert inside == (r_lo <= strip < r_lo + rows and s_lo <= ow < s_lo + columns)


# ---- padded taps, NaN inputs -----------------------------------------------------------------------------------------
def test_padded_taps_are_skipped_so_negative_zero_stays_negative_zero():
    # every product is -1 x +0 = -0; a tap in the padding taken as fma(0, w, acc) would give +0 at the borders,
    # and a NaN weight on a padded tap must not reach the first output row
    x = -np.ones((1, 3, 4, 5), np.float32)
    w = np.zeros((3, 1, 3, 3), np.float32)
    w[1, :, 0, :] = np.nan
    attributes = dict(Mode=CROSS, Direction=0, GroupCount=3, **geometry(2, start=[1, 2], end=[2, 1]))
    got, name = run_kernel(x, w, None, 32, attributes)
    same_bits(got, golden.run("CONVOLUTION", [x, w, None], attributes))
    assert name == "convolution_depthwise_row_float32_no_bias"     # its masked path: every lane on the border
    bits = got.view(np.uint32)
    assert got.shape == (1, 3, 5, 6) and (bits[:, [0, 2]] == 0x80000000).all()
    assert (bits[0, 1, 0] == 0x80000000).all() and np.isnan(got[0, 1, 1:4]).all()


def test_a_nan_input_is_not_a_padded_tap():
    # the padded tap's marker in LDS is a NaN: every NaN the input holds, whatever its payload, is the canonical NaN
    # before it is written, so it is never skipped
    for type_name in ("FLOAT32", "FLOAT16"):
        t = np.float32 if type_name == "FLOAT32" else np.float16
        x = np.ones((1, 2, 3, 3), t)
        if type_name == "FLOAT32":
            x.view(np.uint32)[0, 0, 1, 1] = conv_depthwise_ops.SKIP
            x.view(np.uint32)[0, 1, 0, 0] = 0xFFC00001
        else:
            x.view(np.uint16)[0, 0, 1, 1] = 0x7D01
            x.view(np.uint16)[0, 1, 0, 0] = 0xFE01
        w = np.ones((2, 1, 3, 3), t)
        attributes = dict(Mode=CROSS, Direction=0, GroupCount=2, **geometry(2, start=[1, 1], end=[1, 1]))
        got, name = run_kernel(x, w, None, 32, attributes)
        assert name.startswith("convolution_depthwise_") and np.isnan(got[0, 0, :, :]).all()
        assert np.isnan(got[0, 1, :2, :2]).all() and not np.isnan(got[0, 1, 2, 2])
        same_bits(got, golden.run("CONVOLUTION", [x, w, None], attributes))


# ---- FusedActivation ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, fields", [("ACTIVATION_RELU", {}), ("ACTIVATION_LEAKY_RELU", {"Alpha": 0.1}),
                                          ("ACTIVATION_LINEAR", {"Alpha": 1.5, "Beta": -0.25})])
@pytest.mark.parametrize("type_name", ["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("out_layout", ["permuted", "packed"])   # the LDS tile kernel; the column kernel
def test_a_fused_activation_is_the_activation_of_the_result(name, fields, type_name, out_layout):
    case = dict(type_name=type_name, n=1, groups=6, c_group=1, k_group=1, window=[3, 3], in_sizes=[18, 5],
                geo=dict(strides=[1, 2], dilations=[1, 1], start=[1, 0], end=[1, 1]), mode=CROSS, bias=True,
                layouts=["packed", "padded", "packed", out_layout], special=True, seed=len(name))
    fused_attrs = (name, {k: np.float32(v) for k, v in fields.items()})
    got, _ = run_case(case, activation=fused(name, **fields), fused=fused_attrs)
    if type_name == "FLOAT32":       # the activation of the FLOAT32 result, as the operator alone gives it
        plain, _ = run_case(case)
        same_bits(got, golden.run(name, [plain], fused_attrs[1]))
