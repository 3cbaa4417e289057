"""v_pk_fma_f16: two FLOAT16 fused multiply-adds per lane, one on each half of the registers.

The semantics (numerics.packed_fma_f16) against an exact oracle (Python fractions, rounded to the
nearest FLOAT16 with ties to even, IEEE special cases written out), on drawn halves with the specials
of docs/NUMERICS.md (NaN, inf, -0, subnormals, the largest finite values); the compiled and the NumPy
fused multiply-add give the same bits; the fast executor against the per-lane reference executor on a
kernel; the assembler's plain form and its refusals; the issue rate per preset.
"""
import dataclasses
import math
import os
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dmlemu.functional.buffer_descriptor import write_buffer_descriptor
from dmlemu.functional.wave_dispatcher import KernelLaunch
from dmlemu.gpu import Gpu
from dmlemu.isa import numerics as nm
from dmlemu.isa import opcodes as op
from dmlemu.isa.assembler import AssemblyError, assemble
from dmlemu.isa.disassembler import disassemble
from dmlemu.isa.program import Program
from dmlemu.presets import H200, RTX_3070, RX_6800_XT, RX_7900_XTX, TEACHING
from dmlemu.timing.kernel_path import PathCost
from dmlemu.tools.microbench import chain_program
from reference_executor import run_launch

CANONICAL_NAN = 0x7E00
# FLOAT16 bit patterns NUMERICS.md's rules single out: zeros, the smallest and largest subnormals and
# normals, one, the largest finite value, infinities, quiet and signalling NaNs with payloads.
SPECIAL_HALVES = (0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x83FF, 0x0400, 0x8400, 0x3C00, 0xBC00, 0x3555, 0x7BFF,
                  0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE37, 0x7FFF, 0x5BFF, 0x1400, 0x9400)


def _exact(bits):
    """The FLOAT16 with these bits as a Fraction (finite values only)."""
    return Fraction(float(np.array(bits, dtype=np.uint16).view(np.float16)))


def _round_to_f16(value):
    """The bits of the FLOAT16 nearest the nonzero Fraction `value`, ties to even; past the largest
    finite value by half an ulp or more: inf."""
    sign = 0x8000 if value < 0 else 0
    magnitude = abs(value)
    exponent = max(math.floor(math.log2(magnitude)) if magnitude else -24, -14)
    while Fraction(2) ** exponent > magnitude and exponent > -14:
        exponent -= 1
    while Fraction(2) ** (exponent + 1) <= magnitude:
        exponent += 1
    ulp = Fraction(2) ** (exponent - 10)
    steps = magnitude / ulp
    whole = math.floor(steps)
    rest = steps - whole
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and whole % 2):
        whole += 1
    rounded = whole * ulp
    if rounded >= Fraction(65520) - Fraction(16) and rounded > 65504:
        return sign | 0x7C00
    bits = int(np.array(float(rounded), dtype=np.float16).view(np.uint16))
    assert _exact(bits) == rounded
    return sign | bits


def oracle_fma_f16(a, b, c):
    """IEEE fusedMultiplyAdd of three FLOAT16 bit patterns, rounded once to FLOAT16; NaN canonical."""
    fa, fb, fc = (float(np.array(x, dtype=np.uint16).view(np.float16)) for x in (a, b, c))
    if math.isnan(fa) or math.isnan(fb) or math.isnan(fc):
        return CANONICAL_NAN
    if (math.isinf(fa) and fb == 0) or (math.isinf(fb) and fa == 0):
        return CANONICAL_NAN                                     # inf * 0
    if math.isinf(fa) or math.isinf(fb):
        product_sign = math.copysign(1.0, fa) * math.copysign(1.0, fb)
        if math.isinf(fc) and math.copysign(1.0, fc) != product_sign:
            return CANONICAL_NAN                                 # inf - inf
        return 0x7C00 if product_sign > 0 else 0xFC00
    if math.isinf(fc):
        return int(c)
    total = _exact(a) * _exact(b) + _exact(c)
    if total == 0:
        product_negative = (math.copysign(1.0, fa) * math.copysign(1.0, fb)) < 0
        both_negative = product_negative and math.copysign(1.0, fc) < 0
        return 0x8000 if both_negative else 0x0000              # an exact zero sum is +0 unless both are -0
    return _round_to_f16(total)


def pack(lo, hi):
    return (np.asarray(hi, dtype=np.uint32) << np.uint32(16)) | np.asarray(lo, dtype=np.uint32)


def expected(a, b, c):
    out = []
    for x, y, z in zip(a.ravel(), b.ravel(), c.ravel()):
        lo = oracle_fma_f16(int(x) & 0xFFFF, int(y) & 0xFFFF, int(z) & 0xFFFF)
        hi = oracle_fma_f16(int(x) >> 16, int(y) >> 16, int(z) >> 16)
        out.append(lo | (hi << 16))
    return np.array(out, dtype=np.uint32).reshape(a.shape)


def test_the_oracle_rounds_once_where_float32_then_float16_would_round_twice():
    # 3.584 * 2^-11 * 1.953 + 1: the float32 sum lands on a FLOAT16 tie and rounds up to 0x3C04; once: 0x3C03.
    assert oracle_fma_f16(0x432B, 0x13D0, 0x3C00) == 0x3C03
    assert np.float16(np.float32(np.float16(3.583984375)) * np.float32(np.array(0x13D0, np.uint16).view(np.float16))
                      + np.float32(1)).view(np.uint16) == 0x3C04
    assert oracle_fma_f16(0x7BFF, 0x3C00, 0x5000) == 0x7C00        # 65504 + 32: the tie above the top: inf
    assert oracle_fma_f16(0x7BFF, 0x3C00, 0x4B00) == 0x7BFF        # 65504 + 14: below it
    assert oracle_fma_f16(0x8000, 0x3C00, 0x8000) == 0x8000 and oracle_fma_f16(0x0000, 0x3C00, 0x8000) == 0x0000
    assert oracle_fma_f16(0x0001, 0x3800, 0x0000) == 0x0000        # half the smallest subnormal: a tie, to even


def test_every_pair_of_special_halves_matches_the_oracle():
    """All products of the special patterns with each addend, both halves at once (the high half swaps
    the operands' roles, so each half sees different triples)."""
    s = np.array(SPECIAL_HALVES, dtype=np.uint32)
    a, b, c = (x.ravel() for x in np.meshgrid(s, s, s, indexing="ij"))
    a_w, b_w, c_w = pack(a, c), pack(b, a), pack(c, b)
    got = nm.packed_fma_f16(a_w.reshape(1, -1), b_w.reshape(1, -1), c_w.reshape(1, -1))
    assert got.dtype == np.uint32 and got.shape == (1, a.size)
    assert np.array_equal(got.ravel(), expected(a_w, b_w, c_w))


_half = st.one_of(st.sampled_from(SPECIAL_HALVES), st.integers(0, 0xFFFF),
                  st.integers(0, 0x03FF) | st.integers(0x8000, 0x83FF))      # subnormals, often
_word = st.tuples(_half, _half).map(lambda p: p[0] | (p[1] << 16))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_word, _word, _word), min_size=1, max_size=24))
def test_drawn_lanes_match_the_oracle_half_by_half(lanes):
    a, b, c = (np.array([lane[k] for lane in lanes], dtype=np.uint32).reshape(1, -1) for k in range(3))
    assert np.array_equal(nm.packed_fma_f16(a, b, c), expected(a, b, c))


def test_uniform_operands_broadcast_like_registers():
    """A constant or scalar register is one value per wave or per dispatch: (1, 1), (W, 1) or a NumPy scalar."""
    rng = np.random.default_rng(5)
    lanes = rng.integers(0, 2 ** 32, size=(3, 8), dtype=np.uint32)
    column = rng.integers(0, 2 ** 32, size=(3, 1), dtype=np.uint32)
    one = np.uint32(0x3C003C00)
    got = nm.packed_fma_f16(lanes, column, one)
    want = nm.packed_fma_f16(lanes, np.broadcast_to(column, (3, 8)).copy(), np.full((3, 8), one))
    assert got.shape == (3, 8) and np.array_equal(got, want)


def test_the_compiled_and_numpy_fused_multiply_adds_agree(monkeypatch):
    rng = np.random.default_rng(11)
    words = [rng.integers(0, 2 ** 32, size=(4, 64), dtype=np.uint32) for _ in range(3)]
    fast = nm.packed_fma_f16(*words)
    monkeypatch.setitem(os.environ, "DMLEMU_NUMERICS", "reference")
    assert np.array_equal(nm.packed_fma_f16(*words), fast)


def test_each_half_is_v_fma_f16_on_that_half():
    rng = np.random.default_rng(3)
    words = [rng.integers(0, 2 ** 32, size=(2, 32), dtype=np.uint32) for _ in range(3)]
    got = nm.packed_fma_f16(*words)
    for shift in (0, 16):
        halves = [((w >> np.uint32(shift)) & np.uint32(0xFFFF)).astype(np.uint16).view(np.float16) for w in words]
        want = op.BY_MNEMONIC["v_fma_f16"].semantics(*halves).view(np.uint16)
        assert np.array_equal(((got >> np.uint32(shift)) & np.uint32(0xFFFF)).astype(np.uint16), want)


# ---- the executors ----------------------------------------------------------------------------------------
KERNEL = """
    s_load_dwordx4 s[20:23], s[0:1], 0        ; the inputs: three dwords per thread
    s_load_dwordx4 s[24:27], s[0:1], 16       ; the outputs: two dwords per thread
    s_waitcnt 0
    s_mul_i32 s28, s4, 16
    v_add_u32 v1, s28, v0                     ; the thread's index in the dispatch
    v_mul_lo_u32 v2, v1, 12
    buffer_load_dword v3, v2, s[20:23], 0
    buffer_load_dword v4, v2, s[20:23], 4
    buffer_load_dword v5, v2, s[20:23], 8
    s_waitcnt 0
    v_lshl_b32 v9, v1, 3
    v_pk_fma_f16 v6, v3, v4, v5
    v_pk_fma_f16 v7, v3, 0x3C00BC00, v5       ; a literal: 1.0 high, -1.0 low
    v_and_b32 v8, 1, v1
    v_cmp_eq_u32 vcc, 0, v8
    s_and_b64 exec, exec, vcc                 ; odd threads keep v7 as it was
    v_pk_fma_f16 v7, v7, v4, 0                ; an integer inline constant: 0 in both halves
    s_mov_b64 exec, s[30:31]
    buffer_store_dword v6, v9, s[24:27], 0
    buffer_store_dword v7, v9, s[24:27], 4
    s_endpgm
"""


@pytest.mark.parametrize("width", [8, 32, 64])
def test_the_fast_executor_matches_the_reference_executor(width):
    rng = np.random.default_rng(width)
    groups, group = 3, 16
    threads = groups * group
    specials = np.array(SPECIAL_HALVES, dtype=np.uint32)
    halves = np.where(rng.random(threads * 6) < 0.5, rng.choice(specials, threads * 6),
                      rng.integers(0, 2 ** 16, threads * 6, dtype=np.uint32)).astype(np.uint32)
    inputs = pack(halves[0::2], halves[1::2])
    program = Program(assemble("s_mov_b64 s[30:31], exec\n" + KERNEL), "pk_fma")
    outs = []
    for _ in range(2):
        gpu = Gpu(TEACHING, wave_width=width)
        gpu.dispatcher.batch_lanes = width * 2
        source = gpu.memory.allocate(inputs.nbytes, "in")
        source.data[:] = inputs.view(np.uint8)
        target = gpu.memory.allocate(threads * 8, "out")
        table = gpu.memory.allocate(32, "table")
        write_buffer_descriptor(table.data, 0, source.gpu_va, source.size)
        write_buffer_descriptor(table.data, 16, target.gpu_va, target.size)
        launch = KernelLaunch(program, groups, group, (table.gpu_va & 0xFFFFFFFF, table.gpu_va >> 32, 0, 0))
        outs.append((gpu, target, launch))
    (fast_gpu, fast_out, launch), (ref_gpu, ref_out, ref_launch) = outs
    fast_gpu.dispatch(launch)
    run_launch(ref_launch, ref_gpu.memory, width)
    assert np.array_equal(fast_out.data, ref_out.data)
    got = fast_out.data.view(np.uint32).reshape(threads, 2)
    a, b, c = (inputs[k::3] for k in range(3))
    assert np.array_equal(got[:, 0], expected(a, b, c))                # the oracle, through the whole kernel
    literal = np.full(threads, 0x3C00BC00, dtype=np.uint32)
    second = expected(a, literal, c)
    even = np.arange(threads) % 2 == 0
    second[even] = expected(second[even], b[even], np.zeros(even.sum(), dtype=np.uint32))
    assert np.array_equal(got[:, 1], second)


# ---- the assembler ----------------------------------------------------------------------------------------
def test_the_plain_form_assembles_and_disassembles_back():
    words = assemble("v_pk_fma_f16 v1, v2, s3, v4")
    assert assemble("v_pk_fma_f16 v1, v2, s3, v4 op_sel:[0,0,0] op_sel_hi:[1, 1, 1] neg_lo:[0,0,0] "
                    "neg_hi:[0,0,0]") == words
    assert "v_pk_fma_f16 v1, v2, s3, v4" in disassemble(words)
    entry = op.BY_MNEMONIC["v_pk_fma_f16"]
    assert (entry.fmt, entry.rate_class, entry.unit, entry.dual_issue) == ("VOP3P", "packed_f16", op.VALU, "")


PLAIN = ("dmlemu's packed instructions have the plain form only (each operation reads the same half of every "
         "source, nothing negated, no clamp: op_sel:[0,0,0] op_sel_hi:[1,1,1] neg_lo:[0,0,0] neg_hi:[0,0,0])")


@pytest.mark.parametrize("modifiers, named", [
    ("op_sel:[1,0,0]", "op_sel:[1,0,0]"), ("op_sel_hi:[0,1,1]", "op_sel_hi:[0,1,1]"),
    ("neg_lo:[0,1,0]", "neg_lo:[0,1,0]"), ("neg_hi:[1, 0, 0]", "neg_hi:[1,0,0]"), ("clamp", "clamp"),
    ("op_sel:[0,0,0] clamp", "clamp"), (", op_sel:[0,0,1]", "op_sel:[0,0,1]"),
])
def test_other_modifiers_are_refused_with_a_sentence(modifiers, named):
    with pytest.raises(AssemblyError) as caught:
        assemble(f"v_pk_fma_f16 v1, v2, v3, v4 {modifiers}", filename="k.s")
    assert str(caught.value) == f"k.s:1: v_pk_fma_f16: the modifier {named} is not supported; {PLAIN}"


def test_unknown_modifiers_and_float_constants_are_refused():
    with pytest.raises(AssemblyError, match=r"k.s:1: v_pk_fma_f16: abs:\[1,0,0\] is not a VOP3P modifier "
                                            r"\(op_sel, op_sel_hi, neg_lo, neg_hi, clamp\)$"):
        assemble("v_pk_fma_f16 v1, v2, v3, v4 abs:[1,0,0]", filename="k.s")
    with pytest.raises(AssemblyError, match="1.0 is a float but the operand is b32"):
        assemble("v_pk_fma_f16 v1, v2, v3, 1.0")


# ---- the issue rate ----------------------------------------------------------------------------------------
def _chain_cycles(preset, rate_class, waves=16, length=64):
    program = chain_program(rate_class, length)
    steps, busy = PathCost(program, range(len(program)), 1, 100, preset.rate_cycles()).schedule(waves)
    return busy


def test_rdna_and_hopper_issue_it_at_full_rate_and_ga10x_at_half():
    """RDNA2 / RDNA3 V_PK_FMA_F16 and Hopper HFMA2: one instruction (two FP16 FMAs per lane) per cycle per
    pass; GA10x: FP16 non-tensor FLOPS equal FP32's (NVIDIA GA102 whitepaper), so every second cycle."""
    for preset in (RX_6800_XT, RX_7900_XTX, H200):
        assert _chain_cycles(preset, "packed_f16") == _chain_cycles(preset, "full"), preset.key
    assert _chain_cycles(RTX_3070, "packed_f16") == 2 * _chain_cycles(RTX_3070, "full")


def test_vopd_does_not_pair_it_on_rdna3():
    """The RDNA3 guide's VOPD lists have no V_PK_FMA_F16: two independent ones on even and odd
    destinations take two issue cycles where two v_fma_f32 in the same pattern take one."""
    def cycles(text):
        program = Program(assemble(text + "\ns_endpgm"), "pair")
        return PathCost(program, range(len(program)), 1, 100, RX_7900_XTX.rate_cycles(),
                        dual=RX_7900_XTX.valu_dual_issue).schedule(16)[1]
    fma32 = "v_fma_f32 v8, v1, v2, v8\nv_fma_f32 v9, v3, v4, v9\n" * 8
    packed = fma32.replace("v_fma_f32", "v_pk_fma_f16")
    assert cycles(packed) == 2 * cycles(fma32)


def test_a_preset_may_name_the_class():
    slow = dataclasses.replace(RX_6800_XT, key="custom", valu_rate_cycles=RX_6800_XT.valu_rate_cycles
                               + (("packed_f16", 4),))
    assert _chain_cycles(slow, "packed_f16") == 4 * _chain_cycles(slow, "full")
