"""FLOAT16 convolution on matrix units (conv_gemm.s's WMMA variant, gemm.s's for the 1 x 1 GEMM path), bit for bit
against the golden model, and kernels/conv_gemm.s as its generator (tools/conv_gemm_s.py) writes it.

The driver sends a FLOAT16 convolution without padding to the matrix units on a wave32 preset that has them
(docs/NUMERICS.md, "Convolution", "On matrix units"): no tap is ever in the padding, so the WMMA's fmas are the taps'
fmas in the same order and the golden model is unchanged. Drawn unpadded descs (one and two spatial dimensions,
strides, dilations, groups, both modes, bias, packed, padded and permuted layouts, special values) run on the RX 7900
XTX (WMMA) and the RX 6800 XT (no matrix units: the VALU kernels) with the same golden bits; every block shape of the
WMMA variant; -0 sums through the k tail's padding; a padded desc, FLOAT32 and wave64 stay on the VALU."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dmlemu import golden
from dmlemu.kernels import conv_gemm_ops, gemm_ops
from dmlemu.presets import H200, RX_6800_XT, RX_7900_XTX
from tensor_layouts import same_bits
from test_convolution import CONV, CROSS, fused, geometry, run_case, values
from test_convolution_gemm import gemm_cases, program_name, run_kernel


def test_the_committed_kernel_is_what_its_generator_writes():
    from dmlemu.tools import conv_gemm_s
    with open(conv_gemm_s.TARGET, encoding="utf-8") as f:
        assert f.read() == conv_gemm_s.source()


# ---- which kernel ------------------------------------------------------------------------------------------------
def test_the_driver_sends_unpadded_float16_convolutions_to_the_matrix_units():
    h = dict(type_name="FLOAT16")
    assert program_name([1, 16, 6, 6], [32, 16, 3, 3], bias=True, **h) == (
        "convolution_implicit_gemm_float16_wmma_m16_unpadded")
    assert program_name([1, 8, 12], [16, 8, 9], **h) == "convolution_implicit_gemm_float16_wmma_m16_no_bias_unpadded"
    assert program_name([1, 16, 6, 6], [32, 16, 1, 1], bias=True, **h) == "convolution_gemm_float16_wmma"
    # a plain 1 x 1 that the implicit GEMM's rule takes (C >= 64): its WMMA variant rather than gemm.s's
    assert program_name([1, 64, 6, 6], [32, 64, 1, 1], **h) == "convolution_implicit_gemm_float16_wmma_m16_no_bias_unpadded"
    assert program_name([1, 64, 6, 6], [32, 64, 1, 1]) == "convolution_gemm_float32_no_bias"
    # strided or grouped 1 x 1: the implicit GEMM's WMMA variant
    assert program_name([1, 64, 6, 6], [32, 64, 1, 1], strides=[2, 2], **h).startswith(
        "convolution_implicit_gemm_float16_wmma_")
    # padding: the blocks whose windows miss it (BLOCK_M a multiple of 16: the split variant)
    pad = dict(start=[1, 1], end=[1, 1])
    assert program_name([1, 16, 6, 6], [32, 16, 3, 3], **pad, **h) == (
        "convolution_implicit_gemm_float16_wmma_interior_m16_no_bias")
    # FLOAT32, wave64, a preset without matrix units: the VALU kernels
    assert program_name([1, 16, 6, 6], [32, 16, 3, 3]) == "convolution_implicit_gemm_float32_m16_no_bias_unpadded"
    assert program_name([1, 16, 6, 6], [32, 16, 3, 3], width=64, **h) == (
        "convolution_implicit_gemm_float16_m16_no_bias_unpadded")
    assert program_name([1, 16, 6, 6], [32, 16, 1, 1], width=64, **h) == "convolution_gemm_float16_no_bias"
    x, w = np.zeros((1, 16, 6, 6), np.float16), np.zeros((32, 16, 3, 3), np.float16)
    attributes = dict(Mode=CROSS, Direction=0, GroupCount=1, **geometry(2))
    assert run_kernel(x, w, None, 32, attributes, RX_6800_XT)[1] == (
        "convolution_implicit_gemm_float16_m16_no_bias_unpadded")
    for preset in (RX_7900_XTX, RX_6800_XT, H200):
        matrix = gemm_ops.uses_matrix_units(preset, "FLOAT16")
        assert conv_gemm_ops.uses_matrix_units(preset, "FLOAT16", False) == ("all" if matrix else None)
        assert conv_gemm_ops.uses_matrix_units(preset, "FLOAT16", True, 32) == ("interior" if matrix else None)
        # a padded desc whose BLOCK_M is no multiple of 16 stays on the fmas (rounding it up costs more than WMMA gives)
        assert conv_gemm_ops.uses_matrix_units(preset, "FLOAT16", True, 20) is None
        assert conv_gemm_ops.uses_matrix_units(preset, "FLOAT32", False) is None


def test_the_wmma_variants_refuse_what_they_cannot_serve():
    for data_type, padded, wmma in (("FLOAT32", False, "all"), ("FLOAT16", True, "all"), ("FLOAT16", False, "interior")):
        with pytest.raises(ValueError, match="WMMA variants serve FLOAT16"):
            conv_gemm_ops.build_program(data_type, False, padded, wmma=wmma)
    with pytest.raises(ValueError, match="BLOCK_M 20"):
        conv_gemm_ops.build_program("FLOAT16", False, False, rows=20, wmma="all")


# ---- drawn descs through the mirror --------------------------------------------------------------------------------
def unpadded(case):
    return {**case, "type_name": "FLOAT16", "geo": {**case["geo"], "start": [0] * len(case["window"]),
                                                    "end": [0] * len(case["window"])},
            "in_sizes": [max(size, (w - 1) * d + 1) for size, w, d in
                         zip(case["in_sizes"], case["window"], case["geo"]["dilations"])]}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=gemm_cases().map(unpadded), preset=st.sampled_from([RX_7900_XTX, RX_6800_XT]))
def test_drawn_unpadded_float16_convolutions_are_bit_exact_with_and_without_matrix_units(monkeypatch_names, case, preset):
    run_case(case, preset)
    kernels = monkeypatch_names
    assert kernels and all(("_wmma" in name) == (preset is RX_7900_XTX) for name in kernels), kernels
    kernels.clear()


@pytest.fixture(scope="module")
def monkeypatch_names():
    """The names of the GEMM programs (implicit and 1 x 1) the driver builds while the drawn cases run."""
    names = []
    mp = pytest.MonkeyPatch()
    for module in (conv_gemm_ops, gemm_ops):
        def recording(*args, original=module.build_program, **kwargs):
            program = original(*args, **kwargs)
            names.append(program.name)
            return program
        mp.setattr(module, "build_program", recording)
    yield names
    mp.undo()


@pytest.mark.parametrize("rows", (16, 32, 48, 64))
def test_every_block_shape_of_the_wmma_variant_gives_the_same_bits(rows, monkeypatch):
    # BLOCK_M 16 .. 64: 2 .. 8 waves of two fragments each; Ng = 70: two column blocks, the second partial; Kg = 9 x 9 = 81:
    # a last tile of 17 k (15 k of padding); M = 2 x 7 x 6 = 84: a block that crosses M
    monkeypatch.setattr(conv_gemm_ops, "block_rows", lambda m, ng, groups, simds=None: rows)
    rng = np.random.default_rng(rows)
    x = values(rng, "FLOAT16", (2, 9, 9, 8), special=True)
    w = values(rng, "FLOAT16", (70, 9, 3, 3), special=True)
    bias = values(rng, "FLOAT16", (1, 70, 1, 1))
    attributes = dict(Mode=CONV, Direction=0, GroupCount=1, **geometry(2))
    got, name = run_kernel(x, w, bias, 32, attributes)
    assert name == f"convolution_implicit_gemm_float16_wmma_m{rows}_unpadded"
    same_bits(got, golden.run("CONVOLUTION", [x, w, bias], attributes))


def test_the_k_tail_adds_nothing_so_negative_zero_stays_negative_zero():
    # every product is -1 x +0 = -0 and Kg = 8 x 9 = 72 leaves 24 k of padding in the last tile (its second WMMA step
    # all padding): A = -0 and B = +0 there,
    # products -0, so every sum stays -0 (a +0 padding product would make it +0); an infinite weight in the last
    # filter row still meets only its own taps (inf x -1 = -inf)
    x = -np.ones((1, 8, 5, 6), np.float16)
    w = np.zeros((16, 8, 3, 3), np.float16)
    w[3, 7, 2, 2] = np.inf
    attributes = dict(Mode=CROSS, Direction=0, GroupCount=1, **geometry(2))
    got, name = run_kernel(x, w, None, 32, attributes)
    assert name == "convolution_implicit_gemm_float16_wmma_m16_no_bias_unpadded"
    same_bits(got, golden.run("CONVOLUTION", [x, w, None], attributes))
    bits = got.view(np.uint16)
    assert (bits[:, [c for c in range(16) if c != 3]] == 0x8000).all() and (got[0, 3] == -np.inf).all()


@pytest.mark.parametrize("name, fields", [("ACTIVATION_RELU", {}), ("ACTIVATION_LINEAR", {"Alpha": 1.5, "Beta": -0.25})])
def test_a_fused_activation_on_matrix_units(name, fields):
    case = dict(type_name="FLOAT16", n=2, groups=2, c_group=8, k_group=20, window=[3, 3], in_sizes=[6, 5],
                geo=dict(strides=[1, 2], dilations=[2, 1], start=[0, 0], end=[0, 0]), mode=CROSS, bias=True,
                layouts=["packed", "padded", "packed", "permuted"], special=True, seed=len(name))
    run_case(case, RX_7900_XTX, activation=fused(name, **fields),
             fused=(name, {k: np.float32(v) for k, v in fields.items()}))


# ---- padded descs: interior blocks on matrix units, the border on the fmas -----------------------------------------
@pytest.mark.parametrize("rows", (16, 32))
def test_interior_blocks_take_the_matrix_units_and_the_border_skips_padded_taps(rows, monkeypatch):
    # 1 x 8 x 40 x 44, padding 1: M = 1760 rows of blocks of 16 or 32 output positions, some inside (a whole block
    # of a row's interior columns), some touching the padding; every product is -1 x +0 = -0 but for the filter
    # row kh = 0 of channel 1, which is NaN: the first output row's windows meet it only in the padding (skipped,
    # so they stay -0 there), every other output of channel 1 is NaN
    monkeypatch.setattr(conv_gemm_ops, "block_rows", lambda m, ng, groups, simds=None: rows)
    x = -np.ones((1, 8, 40, 44), np.float16)
    w = np.zeros((16, 8, 3, 3), np.float16)
    w[1, :, 0, :] = np.nan
    attributes = dict(Mode=CROSS, Direction=0, GroupCount=1, **geometry(2, start=[1, 1], end=[1, 1]))
    got, name = run_kernel(x, w, None, 32, attributes)
    assert name == f"convolution_implicit_gemm_float16_wmma_interior_m{rows}_no_bias"
    same_bits(got, golden.run("CONVOLUTION", [x, w, None], attributes))
    bits = got.view(np.uint16)
    assert (bits[0, [0] + list(range(2, 16))] == 0x8000).all()
    assert (bits[0, 1, 0] == 0x8000).all() and np.isnan(got[0, 1, 1:]).all()


def test_drawn_values_on_a_padded_desc_with_interior_blocks():
    # both loops in one dispatch: values, a bias, CONVOLUTION mode, strides and dilations
    rng = np.random.default_rng(8)
    x = values(rng, "FLOAT16", (2, 20, 17, 36), special=True)
    w = values(rng, "FLOAT16", (36, 10, 3, 3), special=True)
    bias = values(rng, "FLOAT16", (1, 36, 1, 1), special=True)
    attributes = dict(Mode=CONV, Direction=0, GroupCount=2, **geometry(2, strides=[2, 1], dilations=[1, 2],
                                                                       start=[1, 2], end=[2, 0]))
    got, name = run_kernel(x, w, bias, 32, attributes)
    assert name.startswith("convolution_implicit_gemm_float16_wmma_interior_")
    same_bits(got, golden.run("CONVOLUTION", [x, w, bias], attributes))
