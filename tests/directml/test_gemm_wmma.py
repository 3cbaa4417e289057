"""The matrix instruction (v_wmma_f32_16x16x16_f16, isa/matrix.py) and the FLOAT16 GEMM that uses it (gemm.s's WMMA
variant, chosen by kernels/gemm_ops.py on a wave32 preset with matrix units): the vectorised semantics against a
per-element loop, the reference executor against the fast one, the kernel against the golden model bit for bit
(shapes, transposes, Alpha, Beta, a broadcast C, special values), which kernel each preset gets, and the rate the
timing model charges."""
import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dmlemu import run_operator
from dmlemu.isa import matrix, opcodes as op
from dmlemu.isa.assembler import assemble
from dmlemu.isa.program import Program
from dmlemu.kernels.driver import TensorSpec, compile_operator
from dmlemu.kernels.gemm_ops import uses_matrix_units
from dmlemu.presets import PRESETS, RX_6800_XT, RX_7900_XTX
from dmlemu.timing.kernel_path import issue_cycles_per_wave
from test_gemm import broadcast_values, expected, gemm_desc, run_case, values
from tensor_layouts import same_bits

WMMA = op.BY_MNEMONIC["v_wmma_f32_16x16x16_f16"]
SPECIALS = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 6e-8, -6e-8, 65504.0], dtype=np.float16)


def fragments(rng, waves, width, special):
    """Random A, B (FLOAT16 pairs) and C (FLOAT32) fragments as the executor holds them: 8 (W, width) dwords each."""
    def halves():
        x = (rng.standard_normal((waves, width, 16)) * 4).astype(np.float16)
        if special:
            mask = rng.random(x.shape) < 0.1
            x[mask] = rng.choice(SPECIALS, size=int(mask.sum()))
        bits = x.view(np.uint16).astype(np.uint32)
        return [bits[:, :, 2 * i] | (bits[:, :, 2 * i + 1] << np.uint32(16)) for i in range(8)]
    c = (rng.standard_normal((waves, width, 8)) * 8).astype(np.float32)
    if special:
        c[rng.random(c.shape) < 0.1] = -0.0
    return halves(), halves(), [c[:, :, i].view(np.uint32) for i in range(8)]


def as_matrices(a, b, c, wave, base, width):
    """The 16 x 16 matrices one product of lanes base .. base + 31 sees (isa/matrix.py's layout)."""
    lane = lambda l: l if l < width else None
    def half(frag, l, k):
        return 0 if lane(base + l) is None else (int(frag[k // 2][wave, base + l]) >> (16 * (k % 2))) & 0xFFFF
    am = np.array([[half(a, m, k) for k in range(16)] for m in range(16)], np.uint16).view(np.float16)
    bm = np.array([[half(b, n, k) for n in range(16)] for k in range(16)], np.uint16).view(np.float16)
    cm = np.array([[0 if base + 16 * (m % 2) + n >= width else int(c[m // 2][wave, base + 16 * (m % 2) + n])
                    for n in range(16)] for m in range(16)], np.uint32).view(np.float32)
    return am, bm, cm


@pytest.mark.parametrize("width", [8, 32, 64])
@pytest.mark.parametrize("special", [False, True])
def test_the_semantics_are_the_per_element_loop(width, special):
    rng = np.random.default_rng(width + special)
    a, b, c = fragments(rng, 2, width, special)
    d = WMMA.semantics(np.ones((2, width), bool), None, a, b, c)
    for wave in range(2):
        for base in range(0, width, 32):
            want = matrix.wmma_reference(*as_matrices(a, b, c, wave, base, width)).view(np.uint32)
            for m in range(16):
                for n in range(16):
                    lane = base + 16 * (m % 2) + n
                    if lane < width:
                        assert int(d[m // 2][wave, lane]) == int(want[m, n]), (wave, m, n)


def test_the_order_is_k_ascending_from_c_with_one_rounding_per_step():
    # 1 + 2^-24 + 2^-24 in ascending order rounds to 1 at each step (ties to even); C = -0 with -0 products stays -0
    a = np.zeros((16, 16), np.float16)
    b = np.zeros((16, 16), np.float16)
    a[0, :2] = np.float16(2.0 ** -12)
    b[:2, 0] = np.float16(2.0 ** -12)
    c = np.zeros((16, 16), np.float32)
    c[0, 0] = 1.0
    c[1, 1] = -0.0
    a[1, :] = np.float16(-0.0)
    d = matrix.wmma_reference(a, b, c)
    assert d[0, 0] == np.float32(1.0)
    assert np.signbit(d[1, 1])


def test_the_reference_executor_agrees_with_the_semantics():
    from oracles.reference_executor import RefWave, _matrix   # the per-lane oracle: element by element
    rng = np.random.default_rng(5)
    a, b, c = fragments(rng, 1, 32, True)
    program = Program(assemble("    v_wmma_f32_16x16x16_f16 v[24:31], v[0:7], v[8:15], v[16:23]\n    s_endpgm\n"),
                      "wmma")
    wave = RefWave(32)
    for r in range(8):
        for lane in range(32):
            wave.vset(r, lane, int(a[r][0, lane]))
            wave.vset(8 + r, lane, int(b[r][0, lane]))
            wave.vset(16 + r, lane, int(c[r][0, lane]))
    _matrix(wave, program.records[0].operands)
    fast = WMMA.semantics(np.ones((1, 32), bool), None, a, b, c)
    for r in range(8):
        assert [wave.vget(24 + r, lane) for lane in range(32)] == [int(x) for x in fast[r][0]]


# ---- which kernel, and its rate ---------------------------------------------------------------------------------
def kernel_name(preset, type_name="FLOAT16"):
    spec = TensorSpec(type_name, (8, 8), None, 256)
    return compile_operator("GEMM", [spec, spec, None, spec], attributes={"TransA": 0, "TransB": 0, "Alpha": 1.0,
                                                                            "Beta": 0.0}, preset=preset).program.name


def test_the_driver_picks_the_matrix_kernel_only_where_it_runs():
    assert kernel_name(RX_7900_XTX) == "gemm_float16_wmma_no_c"
    assert kernel_name(RX_7900_XTX, "FLOAT32") == "gemm_float32_no_c"
    assert kernel_name(dataclasses.replace(RX_7900_XTX, wave_width=64)) == "gemm_float16_no_c"   # wave64: VALU
    assert kernel_name(RX_6800_XT) == "gemm_float16_no_c"                                    # RDNA2: no WMMA
    for preset in PRESETS:
        assert uses_matrix_units(preset, "FLOAT16") == (preset.matrix_fp16_flops_per_cycle_per_cu > 0
                                                        and preset.wave_width == 32)


def test_the_matrix_rate_comes_from_the_preset():
    # AMD: 512 FP16 FLOP per clock per CU with WMMA on the RX 7900 XTX, 2 SIMD32: 8192 FLOP in 32 cycles
    assert RX_7900_XTX.rate_cycles()["matrix"] == 32
    assert issue_cycles_per_wave(WMMA, 1, RX_7900_XTX.rate_cycles()) == 32
    assert "matrix" not in RX_6800_XT.rate_cycles()
    doubled = dataclasses.replace(RX_7900_XTX, matrix_fp16_flops_per_cycle_per_cu=1024)
    assert issue_cycles_per_wave(WMMA, 1, doubled.rate_cycles()) == 16


# ---- the FLOAT16 GEMM on matrix units, bit for bit ---------------------------------------------------------------
@st.composite
def cases(draw):
    rank = draw(st.integers(2, 4))
    big = draw(st.booleans())
    m, k, n = (draw(st.integers(1, 70 if big else 20)) for _ in range(3))
    return dict(type_name="FLOAT16", batch=[draw(st.integers(1, 2)) for _ in range(rank - 2)], m=m, k=k, n=n,
                trans_a=draw(st.integers(0, 1)), trans_b=draw(st.integers(0, 1)), has_c=draw(st.booleans()),
                alpha=draw(st.sampled_from([1.0, 0.5, -2.0, 0.0])), beta=draw(st.sampled_from([1.0, 0.0, -0.75])),
                layouts=[draw(st.sampled_from(["packed", "padded", "permuted", "broadcast"])) for _ in range(4)],
                special=draw(st.booleans()), seed=draw(st.integers(0, 2 ** 32 - 1)))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_drawn_float16_gemms_on_matrix_units_are_bit_exact(case):
    run_case(case, RX_7900_XTX)


@pytest.mark.parametrize("m, k, n", [(16, 16, 16), (17, 33, 15), (64, 48, 64), (5, 100, 70)])
def test_a_negative_zero_sum_and_a_broadcast_bias_row(m, k, n):
    rng = np.random.default_rng(m + k + n)
    a = np.full((m, k), -1.0, np.float16)
    b = np.zeros((k, n), np.float16)             # every product -0: the sum stays -0 (a k past K adds -0 x +0)
    b[:, ::3] = values(rng, "FLOAT16", (k, n))[:, ::3]
    c = broadcast_values(values(rng, "FLOAT16", (m, n), special=True), (0,))
    desc = gemm_desc("FLOAT16", (m, k), (k, n), (m, n), (m, n), alpha=1.0, beta=0.5, strides=(None, None, [0, 1], None))
    (got,), trace = run_operator(desc, [a, b, c], adapter=RX_7900_XTX, trace="dispatch")
    same_bits(got, expected(a, b, c, alpha=1.0, beta=0.5))
    desc = gemm_desc("FLOAT16", (m, k), (k, n), (m, n))
    (got,) = run_operator(desc, [a, b, None], adapter=RX_7900_XTX)
    same_bits(got, expected(a, b, None))
    assert np.signbit(got[:, 1]).all()
    assert "gemm_float16_wmma" in trace.format_summary()          # the summary names the kernel


# ---- gemm_wmma.inc's blocks (128 x 64), K tiles (32), A in pairs, parts through step 4 ----------------------------------
@pytest.mark.parametrize("m, k, n, trans_a, offset", [
    (300, 100, 200, 0, 0),      # blocks crossing M and N, a last tile of 4 k; A in pairs
    (256, 96, 128, 0, 0),       # whole blocks and tiles: every A tile in pairs
    (129, 64, 65, 0, 2),        # A's base 2 bytes past a dword: one element a load (the kernel's check)
    (130, 33, 70, 1, 0),        # A transposed (k stride M): one element a load
    (64, 65, 64, 0, 4)])        # A's row stride odd: one element a load
def test_blocks_tiles_and_a_copied_in_pairs_are_bit_exact(m, k, n, trans_a, offset):
    from dmlemu.direct_run import DirectRun
    from dmlemu.gpu import Gpu
    from dmlemu.kernels.driver import packed_strides
    from dmlemu.kernels.gemm_ops import WMMA_BLOCK_M, BLOCK, a_pairs
    rng = np.random.default_rng(m + k + n + offset)
    a = values(rng, "FLOAT16", (k, m) if trans_a else (m, k), special=True)
    b = values(rng, "FLOAT16", (k, n), special=True)
    c = values(rng, "FLOAT16", (m, n))
    spec = lambda x, extra=0: TensorSpec("FLOAT16", x.shape, None, x.nbytes + extra)
    raw = lambda x, pad=0: np.concatenate([np.full(pad, 0x7F, np.uint8), x.view(np.uint8).reshape(-1)])
    assert a_pairs(spec(a), trans_a, packed_strides) == (not trans_a and k % 2 == 0)
    gpu = Gpu(RX_7900_XTX, timing=False)
    run = DirectRun(gpu, "GEMM", [spec(a, offset), spec(b), spec(c), spec(c)],
                    [raw(a, offset), raw(b), raw(c), np.zeros(c.nbytes, np.uint8)], offsets=[offset, 0, 0, 0],
                    attributes={"TransA": trans_a, "TransB": 0, "Alpha": 0.5, "Beta": -1.0})
    stats = run.dispatch()
    assert run.kernel.program.name == "gemm_float16_wmma"
    assert stats.workgroups == -(-m // WMMA_BLOCK_M) * -(-n // BLOCK)
    got = run.output_bytes(3)[:c.nbytes].view(np.float16).reshape(m, n)
    same_bits(got, expected(a, b, c, trans_a, 0, 0.5, -1.0))


def test_the_roofline_draws_the_matrix_roof_and_counts_a_matrix_instruction_as_its_multiply_adds(monkeypatch):
    import matplotlib
    matplotlib.use("Agg")
    from dmlemu.traces import plots
    rng = np.random.default_rng(5)
    a, b = values(rng, "FLOAT16", (128, 64)), values(rng, "FLOAT16", (64, 64))
    (_,), trace = run_operator(gemm_desc("FLOAT16", a.shape, b.shape, (128, 64)), [a, b, None], adapter=RX_7900_XTX,
                               trace="dispatch")
    made = []
    monkeypatch.setattr(plots, "_save", lambda fig, path: made.append(fig) or path)
    plots.plot_roofline(trace, "x.png")
    labels = [t.get_text() for legend in made[-1].legends for t in legend.get_texts()]
    assert "matrix roof (FLOAT16 on the matrix units) 61.4 T multiply-adds/s" in " ".join(" ".join(labels).split())
    (s,) = [s for s in trace.summary() if s["kernel"].startswith("gemm_float16_wmma")]
    ax = made[-1].axes[0]
    (y,) = {float(line.get_ydata()[0]) for line in ax.lines if line.get_marker() in ("o", "s")}   # the dispatch
    assert 128 * 64 * 64 <= y * s["seconds"] < 2 * 128 * 64 * 64    # every multiply-add, not 32 lane-ops per WMMA


def test_the_committed_loop_is_what_its_generator_writes():
    from dmlemu.tools import gemm_wmma_inc
    with open(gemm_wmma_inc.TARGET, encoding="utf-8") as f:
        assert f.read() == gemm_wmma_inc.source()
