"""The fast executor against the slow per-lane reference executor, bit for bit."""
import zlib

import numpy as np
import pytest

from dmlemu.functional.buffer_descriptor import write_buffer_descriptor
from dmlemu.functional.wave_dispatcher import KernelLaunch
from dmlemu.isa.program import KernelFault, Program
from dmlemu.gpu import Gpu
from dmlemu.direct_run import DirectRun
from dmlemu.presets import TEACHING
from dmlemu.isa.assembler import assemble
from dmlemu.kernels.driver import VARIANTS, TensorSpec, division_magic
from reference_executor import run_launch

OPERATORS = ("ELEMENT_WISE_IDENTITY", "ELEMENT_WISE_THRESHOLD", "ELEMENT_WISE_CLIP", "ELEMENT_WISE_IF")


def random_bytes(rng, n):
    return rng.integers(0, 256, size=n, dtype=np.uint8)


def make_case(rng, operator, data_type, strided):
    """TensorSpecs and raw buffers for a small random case."""
    ndim = int(rng.integers(1, 5))
    sizes = tuple(int(s) for s in rng.integers(1, 5, size=ndim))
    item = VARIANTS[data_type].size
    tensor_count = 4 if operator == "ELEMENT_WISE_IF" else 2
    specs, buffers = [], []
    for t in range(tensor_count):
        dt = "UINT8" if (operator == "ELEMENT_WISE_IF" and t == 0) else data_type
        size = 1 if dt == "UINT8" and data_type != "UINT8" and t == 0 else item
        if strided:
            strides = []
            for s in sizes:
                strides.append(0 if (t < tensor_count - 1 and rng.random() < 0.3) else int(rng.integers(1, 7)))
            if t == tensor_count - 1:  # outputs get distinct addresses: padded packed strides
                step, strides = 1, []
                for s in reversed(sizes):
                    strides.append(step)
                    step *= s + int(rng.integers(0, 2))
                strides = list(reversed(strides))
            last = sum((s - 1) * st for s, st in zip(sizes, strides))
            nbytes = (last + 1) * size
            specs.append(TensorSpec(dt, sizes, tuple(strides), nbytes))
        else:
            nbytes = int(np.prod(sizes)) * size
            specs.append(TensorSpec(dt, sizes, None, nbytes))
        buffers.append(random_bytes(rng, nbytes + 8))
    return specs, buffers


def run_both(operator, data_type, specs, buffers, width, **kernel_args):
    fast_gpu, ref_gpu = Gpu(TEACHING, wave_width=width), Gpu(TEACHING, wave_width=width)
    fast = DirectRun(fast_gpu, operator, specs, buffers, **kernel_args)
    ref = DirectRun(ref_gpu, operator, specs, buffers, **kernel_args)
    stats = fast.dispatch()
    ref_stats = run_launch(ref.launch(), ref_gpu.memory, width)
    for a, b in zip(fast.allocations, ref.allocations):
        assert np.array_equal(a.data, b.data), f"{operator} {data_type}: fast and reference disagree"
    assert (stats.oob_reads, stats.oob_writes) == (ref_stats.oob_reads, ref_stats.oob_writes)
    return stats


SUPPORTED = {  # data types per operator at the highest feature level (seed tables)
    "ELEMENT_WISE_IDENTITY": set(VARIANTS),
    "ELEMENT_WISE_THRESHOLD": set(VARIANTS) - {"FLOAT64", "INT64", "UINT64"},
    "ELEMENT_WISE_CLIP": set(VARIANTS) - {"FLOAT64"},
    "ELEMENT_WISE_IF": set(VARIANTS),
}
CASES = []
for _op in OPERATORS:
    for _dt in sorted(SUPPORTED[_op]):
        for _sb in ((False, True) if _dt in ("FLOAT16", "FLOAT32") and _op != "ELEMENT_WISE_IF" else (False,)):
            for _half in ((False, True) if _dt == "FLOAT16" and _op != "ELEMENT_WISE_IF" else (False,)):
                CASES.append((_op, _dt, _sb, _half))


@pytest.mark.parametrize("operator, data_type, scale_bias, half", CASES)
def test_every_kernel_variant_matches_reference(operator, data_type, scale_bias, half):
    rng = np.random.default_rng(zlib.crc32(f"{operator}{data_type}{scale_bias}{half}".encode()))
    for strided, width in ((False, 8), (True, 4), (True, 32)):
        specs, buffers = make_case(rng, operator, data_type, strided)
        args = {}
        if operator != "ELEMENT_WISE_IF":
            args = dict(min_value=float(rng.normal() * 50), max_value=float(rng.normal() * 50 + 20),
                        scale_bias=(1.5, -0.25) if scale_bias else None, half_precision=half)
            if operator == "ELEMENT_WISE_IDENTITY":
                args.pop("min_value"), args.pop("max_value")
        run_both(operator, data_type, specs, buffers, width, **args)


def test_division_magic_is_exact():
    rng = np.random.default_rng(1)
    divisors = [1, 2, 3, 5, 7, 641, 65535, 65536, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 1, 2 ** 32 - 1]
    divisors += [int(d) for d in rng.integers(1, 2 ** 32, size=50)]
    n = np.concatenate([rng.integers(0, 2 ** 32, size=2000, dtype=np.uint64),
                        np.array([0, 1, 2 ** 32 - 1, 2 ** 31], dtype=np.uint64)])
    for d in divisors:
        magic, s1, s2 = division_magic(d)
        t = (n * np.uint64(magic)) >> np.uint64(32)
        q = (t + ((n - t) >> np.uint64(s1))) >> np.uint64(s2)
        assert np.array_equal(q, n // np.uint64(d)), d


# ---- random instruction sequences ---------------------------------------------------------------
ALU_CHOICES = ["v_add_u32", "v_sub_u32", "v_mul_lo_u32", "v_mul_hi_u32", "v_mad_u32", "v_lshl_b32",
               "v_lshr_b32", "v_ashr_i32", "v_and_b32", "v_or_b32", "v_xor_b32", "v_add_f32", "v_mul_f32",
               "v_sub_f32", "v_mad_f32", "v_min_f32", "v_max_f32", "v_min_u32", "v_max_i32", "v_add_f16",
               "v_mul_f16", "v_min_f16", "v_max_f16", "v_cvt_f32_f16", "v_cvt_f16_f32", "v_cvt_i32_f32",
               "v_cvt_u8_f32", "v_cvt_i16_f32", "v_mov_b32", "v_min_i64", "v_max_u64", "v_mov_b64",
               "v_cvt_i64_f32", "v_cvt_u64_u32", "v_add_f64", "v_min_f64", "v_cndmask_b32", "v_cndmask_b64",
               "v_lane_id"]
SALU_CHOICES = ["s_add_u32", "s_sub_u32", "s_mul_i32", "s_lshl_b32", "s_and_b32", "s_mov_b32", "s_get_workgroup_id",
                "s_get_wave_id"]
CMP_CHOICES = ["v_cmp_lt_u32", "v_cmp_gt_f32", "v_cmp_ne_i32", "v_cmp_le_f16", "v_cmp_eq_u64"]


def random_program(rng, only=None, steps=None):
    """A random program; with `only`, every step is that one VALU instruction (or compare)."""
    from dmlemu.isa import opcodes as op
    alu_choices, cmp_choices = ALU_CHOICES, CMP_CHOICES
    if only is not None:
        alu_choices = cmp_choices = [only]
    lines = ["s_mov_b64 s[30:31], exec", "v_lane_id v1"]
    # Seed registers with lane- and wave-dependent values, including float specials.
    specials = ["0x7fc00000", "0x80000000", "0x7f800000", "0x00000001", "0x3f800000", "0xffffffff", "0x7e00"]
    for r in range(2, 12):
        lines.append(f"v_mov_b32 v{r}, {rng.choice(specials) if rng.random() < 0.3 else int(rng.integers(0, 2**31))}")
        lines.append(f"v_mul_lo_u32 v{r}, v{r}, v1" if rng.random() < 0.5 else f"v_xor_b32 v{r}, v{r}, v0")
    lines += ["s_get_workgroup_id s12", "s_mov_b32 s13, 0x40490fdb", "s_get_wave_id s14"]

    def vreg(width):
        if width == 2:
            r = int(rng.integers(2, 11))
            return f"v[{r}:{r + 1}]"
        return f"v{int(rng.integers(1, 12))}"

    def source(width, type_name):
        roll = rng.random()
        if roll < 0.7:
            return vreg(width)
        if roll < 0.85 and width == 1:
            return f"s{int(rng.integers(12, 15))}"
        return str(int(rng.integers(-16, 65)))

    for step in range(int(rng.integers(8, 30)) if steps is None else steps):
        roll = rng.random()
        if only is not None:
            roll = 0.05 if op.BY_MNEMONIC[only].kind == "vcmp" else 0.5
        if roll < 0.1:
            m = rng.choice(cmp_choices)
            e = op.BY_MNEMONIC[m]
            lines.append(f"{m} vcc, {source(e.widths[1], e.types[1])}, {source(e.widths[2], e.types[2])}")
            if rng.random() < 0.5:
                lines.append("s_and_b64 exec, exec, vcc" if rng.random() < 0.7 else "s_or_b64 exec, exec, vcc")
        elif roll < 0.2:
            m = rng.choice(SALU_CHOICES)
            e = op.BY_MNEMONIC[m]
            args = [f"s{int(rng.integers(15, 20))}"] + [f"s{int(rng.integers(12, 20))}" for _ in e.operands[1:]]
            lines.append(f"{m} {', '.join(args)}")
        elif roll < 0.25:
            # a branch that differs between waves: splits the batch
            label = f"skip{step}"
            lines += [f"s_cmp_lt_u32 s12, {int(rng.integers(0, 4))}", f"s_cbranch_scc1 {label}",
                      f"v_add_u32 v{int(rng.integers(1, 12))}, v1, 7", f"{label}:"]
        else:
            m = rng.choice(alu_choices)
            e = op.BY_MNEMONIC[m]
            args = [vreg(e.widths[0])]
            for kind, width, t in zip(e.operands[1:], e.widths[1:], e.types[1:]):
                args.append("vcc" if kind == op.VCCO else source(width, t))
            lines.append(f"{m} {', '.join(args)}")
    # Store every register so that the comparison sees all lanes' final values.
    # Restore the launch EXEC: lanes past the workgroup must not store (they would race).
    lines += ["s_mov_b64 exec, s[30:31]", "s_load_dwordx4 s[20:23], s[0:1], 0", "s_waitcnt 0",
              "s_mul_i32 s24, s4, 16", "v_add_u32 v13, s24, v0", "v_lshl_b32 v13, v13, 6"]
    for r in range(1, 13):
        lines.append(f"buffer_store_dword v{r}, v13, s[20:23], {4 * r}")
    lines.append("s_endpgm")
    return "\n".join(lines)


@pytest.mark.parametrize("seed", range(60))
def test_random_sequences_match_reference(seed):
    rng = np.random.default_rng(seed)
    run_random_program(rng, random_program(rng), f"random{seed}")


def _valu_entries(kinds):
    from dmlemu.isa import opcodes as op
    return [e.mnemonic for e in op.TABLE if e.unit == op.VALU and e.kind in kinds]


@pytest.mark.parametrize("mnemonic", _valu_entries(("alu", "vcmp")))
def test_every_valu_instruction_matches_reference(mnemonic):
    """Each VALU instruction of the table, in a short random program of its own (specials in the
    registers, constants and SGPR operands, EXEC changed by compares), fast against reference."""
    from dmlemu.isa import opcodes as op
    rng = np.random.default_rng(zlib.crc32(mnemonic.encode()))
    is_cmp = op.BY_MNEMONIC[mnemonic].kind == "vcmp"
    text = random_program(rng, only=mnemonic, steps=5)
    if is_cmp:   # make sure the compare runs and its VCC reaches memory
        text = text.replace("s_mov_b64 exec, s[30:31]", "v_cndmask_b32 v12, 0, 1, vcc\ns_mov_b64 exec, s[30:31]", 1)
    run_random_program(rng, text, mnemonic, width=8, groups=2)


def run_random_program(rng, text, name, width=None, groups=None):
    width = int(rng.choice([4, 8, 16, 32, 64])) if width is None else width
    groups, group_size = int(rng.integers(1, 6)) if groups is None else groups, 16
    program = Program(assemble(text), name)
    out = []
    for gpu in (Gpu(TEACHING, wave_width=width), Gpu(TEACHING, wave_width=width)):
        gpu.dispatcher.batch_lanes = width * 2  # several batches, several waves per batch
        buffer = gpu.memory.allocate(64 * groups * group_size, "out")
        table = gpu.memory.allocate(32, "table")
        write_buffer_descriptor(table.data, 0, buffer.gpu_va, buffer.size)
        launch = KernelLaunch(program, groups, group_size, (table.gpu_va & 0xFFFFFFFF, table.gpu_va >> 32, 0, 0))
        out.append((gpu, buffer, launch))
    (fast_gpu, fast_buffer, launch), (ref_gpu, ref_buffer, ref_launch) = out
    fast_gpu.dispatch(launch)
    run_launch(ref_launch, ref_gpu.memory, width)
    assert np.array_equal(fast_buffer.data, ref_buffer.data)


def test_out_of_range_access_reads_zero_and_drops_writes():
    gpu = Gpu(TEACHING, wave_width=8)
    src = gpu.memory.allocate(64, "src")
    src.data[:] = 0xAB
    dst = gpu.memory.allocate(64, "dst")
    table = gpu.memory.allocate(64, "table")
    write_buffer_descriptor(table.data, 0, src.gpu_va, 16)   # only 4 dwords visible
    write_buffer_descriptor(table.data, 32, dst.gpu_va, 12)  # only 3 dwords writable
    program = Program(assemble("""
        s_load_dwordx4 s[8:11], s[0:1], 0
        s_load_dwordx4 s[12:15], s[0:1], 32
        s_waitcnt 0
        v_lshl_b32 v1, v0, 2
        buffer_load_dword v2, v1, s[8:11], 0
        s_waitcnt 0
        buffer_store_dword v2, v1, s[12:15], 0
        s_endpgm"""))
    stats = gpu.dispatch(KernelLaunch(program, 1, 8, (table.gpu_va & 0xFFFFFFFF, table.gpu_va >> 32)))
    assert dst.data[:12].tolist() == [0xAB] * 12
    assert dst.data[12:].tolist() == [0] * 52
    assert (stats.oob_reads, stats.oob_writes) == (4, 5)


def test_endless_loop_is_a_kernel_fault():
    gpu = Gpu(TEACHING, wave_width=4)
    program = Program(assemble("top:\n s_branch top\n"))
    with pytest.raises(KernelFault, match="executed more than"):
        gpu.dispatch(KernelLaunch(program, 1, 4, ()))


def test_tail_lanes_are_masked():
    gpu = Gpu(TEACHING, wave_width=8)
    x = np.arange(13, dtype=np.float32)
    specs = [TensorSpec("FLOAT32", (13,), None, 52)] * 2
    out = np.full(64, 0xEE, dtype=np.uint8)
    run = DirectRun(gpu, "ELEMENT_WISE_IDENTITY", specs, [x.view(np.uint8), out])
    stats = run.dispatch()
    assert np.array_equal(run.output_bytes()[:52].view(np.float32), x)
    assert run.output_bytes()[52:].tolist() == [0xEE] * 12   # nothing written past the tensor
    assert stats.oob_writes == 0 and stats.waves == 2


# ---- the speed tricks of the fast executor, each against the plain computation --------------------
# (wave.Ramp: lanes kept as base + step * lane columns; numerics.select: v_cndmask's blend;
# numerics.divide's float32 route). Each must give the bits the plain NumPy computation gives.
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from dmlemu.functional.wave import Ramp  # noqa: E402
from dmlemu.isa import numerics as nm  # noqa: E402
from operator_cases import scaled  # noqa: E402

_EDGES = [0, 1, 2, 3, 4, 63, 64, 0x7FFFFFFF, 0x80000000, 0xFFFFFFC0, 0xFFFFFFFE, 0xFFFFFFFF]
_u32 = st.one_of(st.sampled_from(_EDGES), st.integers(0, 0xFFFFFFFF))


@st.composite
def ramps(draw, waves=None):
    """A Ramp of 1 to 4 waves, its bases either a wave-after-wave run or anything, steps uniform or not."""
    width = draw(st.sampled_from([4, 8, 64]))
    rows = draw(st.integers(1, 4)) if waves is None else waves
    step = draw(st.sampled_from([1, 2, 4, 8, 0, 3])) if draw(st.booleans()) else draw(_u32)
    b0 = draw(_u32)
    if draw(st.booleans()):
        base = [(b0 + w * width * step) & 0xFFFFFFFF for w in range(rows)]
    else:
        base = [draw(_u32) for _ in range(rows)]
    steps = [step] if draw(st.booleans()) else [draw(st.sampled_from([step, draw(_u32)])) for _ in range(rows)]
    column = lambda values: np.array(values, dtype=np.uint32).reshape(-1, 1)
    return Ramp(column(base), column(steps), width)


def uniforms(rows):
    """A uint32 value per wave, one for all as (1, 1), or a NumPy scalar (what operands read as)."""
    return st.one_of(st.builds(np.uint32, _u32),
                     st.builds(lambda v: np.array([[v]], dtype=np.uint32), _u32),
                     st.lists(_u32, min_size=rows, max_size=rows).map(
                         lambda v: np.array(v, dtype=np.uint32).reshape(-1, 1)))


_RAMP_UFUNCS = [np.add, np.subtract, np.multiply, np.left_shift, np.right_shift, np.greater, np.greater_equal,
                np.less, np.less_equal, np.equal, np.bitwise_and]


@settings(max_examples=scaled(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_ramp_arithmetic_gives_the_lanes_bits(data):
    """Every ufunc on a Ramp and a uniform value (either side), or on two Ramps, gives the bits and
    type of the same ufunc on the lanes, whether a column rule applied or not."""
    ramp = data.draw(ramps())
    rows = ramp.shape[0]
    ufunc = data.draw(st.sampled_from(_RAMP_UFUNCS))
    lanes = np.asarray(ramp).copy()
    assert np.array_equal(lanes, (ramp.base.astype(np.uint64) + ramp.step.astype(np.uint64)
                                  * np.arange(ramp.width, dtype=np.uint64)).astype(np.uint32))
    kind = data.draw(st.sampled_from(["right", "left", "ramp"]))
    if ufunc in (np.left_shift, np.right_shift) and kind != "ramp":
        other = data.draw(st.integers(0, 31).map(np.uint32))
    else:
        other = data.draw(ramps(waves=rows)) if kind == "ramp" else data.draw(uniforms(rows))
    if kind == "ramp" and other.width != ramp.width:
        other = Ramp(other.base, other.step, ramp.width)
    plain_other = np.asarray(other).copy() if isinstance(other, Ramp) else other
    with np.errstate(all="ignore"):
        got = ufunc(other, ramp) if kind == "left" else ufunc(ramp, other)
        want = ufunc(plain_other, lanes) if kind == "left" else ufunc(lanes, plain_other)
    got = np.asarray(got)
    assert got.dtype == want.dtype
    assert np.array_equal(np.broadcast_to(got, want.shape), want)


@settings(max_examples=scaled(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ramp=ramps(), offset=st.one_of(st.sampled_from([0, 4, 60, 0xFFFFFFFF]), st.integers(0, 0xFFFF)),
       shift=st.sampled_from([0, 1, 2, 3]))
def test_ramp_element_runs_are_exact(ramp, offset, shift):
    """Ramp.element_run (the loads' and stores' contiguity on columns) and Ramp.contiguous_start
    agree with the lanes' element indices, as the executor computes them."""
    rows = ramp.shape[0]
    lanes = np.asarray(ramp).astype(np.uint64)
    index = (((lanes + np.uint64(offset)) & np.uint64(0xFFFFFFFF)) >> np.uint64(shift)).reshape(-1).astype(np.int64)
    consecutive = bool((np.diff(index) == 1).all())
    first = ramp.element_run(offset, shift, rows)
    if first is not None:
        assert consecutive and first == int(index[0])
    elif consecutive and ramp.step.size == 1 and int((lanes + np.uint64(offset)).max()) <= 0xFFFFFFFF:
        # Runs are missed only where a lane's offset passes 2^32 (or steps are per wave): the slow path
        # then gives the same bits.
        pytest.fail("a run of consecutive elements was not found")
    plain = lanes.reshape(-1).astype(np.int64)
    start = ramp.contiguous_start(rows)
    if start is not None:
        assert (np.diff(plain) == 1).all() and start == plain[0]
    elif (np.diff(plain) == 1).all() and ramp.step.size == 1:
        pytest.fail("a run of consecutive lanes was not found")


def test_select_is_np_where_bit_for_bit():
    """numerics.select (v_cndmask's blend) against np.where over operand shapes and both widths."""
    rng = np.random.default_rng(7)
    shapes = [((5, 8), (1, 1), (1, 1)), ((5, 1), (5, 8), (1, 1)), ((5, 8), (5, 8), (5, 8)), ((1, 1), (5, 8), (5, 1)),
              ((1,), (1,), (1,)), ((5, 8), (1, 8), (5, 1))]
    for mask_shape, a_shape, b_shape in shapes:
        for dtype, top in ((np.uint32, 1 << 32), (np.uint64, 1 << 64)):
            for a_value, b_value in ((None, None), (0, 1), (1, 0), (0, 0), (top - 1, 1)):
                mask = rng.random(mask_shape) < 0.5
                a = rng.integers(0, top, a_shape, dtype=dtype) if a_value is None else np.full(a_shape, a_value, dtype)
                b = rng.integers(0, top, b_shape, dtype=dtype) if b_value is None else np.full(b_shape, b_value, dtype)
                got, want = nm.select(a, b, mask), np.where(mask, b, a)
                assert got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want)


def test_float32_divide_matches_the_float64_route():
    """numerics.divide computes float32 quotients in float32; the documented rule (the float64 quotient
    rounded once) must give the same bits: every pair of special and boundary values, random bit
    patterns, and pairs whose quotients land among the subnormals and near overflow."""
    def through_float64(a, b):
        with np.errstate(all="ignore"):
            q = a.astype(np.float64) / b.astype(np.float64)
            return nm.canonicalize(q.astype(np.float32))
    specials = np.array([0, 0x80000000, 1, 0x80000001, 0x007FFFFF, 0x00800000, 0x3F800000, 0xBF800000,
                         0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0x34000000,
                         0x4B000000, 0x3F7FFFFF, 0x3F800001], dtype=np.uint32)
    a, b = np.meshgrid(specials, specials)
    rng = np.random.default_rng(15)
    n = 1 << 18
    mantissa = lambda: rng.integers(0, 1 << 23, n, dtype=np.uint32)
    pairs = [(a.reshape(-1), b.reshape(-1)),
             (rng.integers(0, 1 << 32, n, dtype=np.uint32), rng.integers(0, 1 << 32, n, dtype=np.uint32)),
             (mantissa() | (rng.integers(0, 40, n, dtype=np.uint32) << 23),         # tiny / large: subnormal
              mantissa() | (rng.integers(100, 254, n, dtype=np.uint32) << 23)),
             (mantissa() | (rng.integers(200, 255, n, dtype=np.uint32) << 23),      # large / small: overflow
              mantissa() | (rng.integers(1, 80, n, dtype=np.uint32) << 23))]
    for bits_a, bits_b in pairs:
        x, y = bits_a.view(np.float32), bits_b.view(np.float32)
        assert np.array_equal(nm.divide(x, y).view(np.uint32), through_float64(x, y).view(np.uint32))


_ADDRESS_STEPS = ["v_add_u32 v1, v1, {c}", "v_add_u32 v1, s21, v1", "v_sub_u32 v1, v1, {c}", "v_sub_u32 v1, s21, v1",
                  "v_mul_lo_u32 v1, v1, {c}", "v_lshl_b32 v1, v1, {k}", "v_lshr_b32 v1, v1, {k}",
                  "v_and_b32 v1, v1, {c}", "v_mad_u32_u24 v1, v1, {c}, s21"]


@pytest.mark.parametrize("seed", range(12))
def test_address_arithmetic_on_thread_ids_matches_reference(seed):
    """Random address arithmetic on the thread ids (the Ramp rules, then arrays where none applies), a
    compare of the result against a bound into EXEC, loads and stores through the result with an
    offset, over workgroups that are not a whole number of waves and batches that split them: fast
    executor against the reference, memory and out-of-range counts."""
    rng = np.random.default_rng(seed)
    width = int(rng.choice([4, 8, 16, 64]))
    group_size, groups = int(rng.integers(1, 3 * width)), int(rng.integers(1, 6))
    lines = ["s_load_dwordx4 s[8:11], s[0:1], 0", "s_load_dwordx4 s[12:15], s[0:1], 32", "s_waitcnt 0",
             f"s_mul_i32 s20, s2, {group_size}", "v_add_u32 v1, s20, v0", "v_lshl_b32 v3, v1, 2",
             f"s_mov_b32 s21, {int(rng.integers(0, 2 ** 32))}"]
    for _ in range(int(rng.integers(0, 4))):
        step = str(rng.choice(_ADDRESS_STEPS))
        lines.append(step.format(c=int(rng.choice([1, 2, 4, 3, 64, 0xFFFFFFFC, int(rng.integers(0, 2 ** 32))])),
                                 k=int(rng.integers(0, 4))))
    if rng.random() < 0.5:
        lines += [f"v_cmp_{rng.choice(['gt', 'lt', 'ge', 'le', 'ne'])}_u32 vcc, {int(rng.integers(0, 4096))}, v1",
                  "s_and_b64 exec, exec, vcc"]
    offset = int(rng.choice([0, 4, 8, 60]))
    item = int(rng.choice([1, 2, 4]))
    load, store = {1: ("ubyte", "byte"), 2: ("ushort", "short"), 4: ("dword", "dword")}[item]
    lines += [f"buffer_load_{load} v2, v1, s[8:11], {offset}", "s_waitcnt 0",
              f"buffer_store_{store} v2, v1, s[12:15], {offset}", "buffer_store_dword v1, v3, s[12:15], 4096",
              "s_endpgm"]
    program = Program(assemble("\n".join(lines)), f"address{seed}")
    source, visible = random_bytes(rng, 4096), int(rng.choice([4096, 1000]))
    batch_lanes = width * int(rng.integers(1, 4))
    out = []
    for gpu in (Gpu(TEACHING, wave_width=width), Gpu(TEACHING, wave_width=width)):
        gpu.dispatcher.batch_lanes = batch_lanes
        src = gpu.memory.allocate(4096, "src")
        src.data[:] = source
        dst = gpu.memory.allocate(4096 + 4 * group_size * groups, "dst")
        table = gpu.memory.allocate(64, "table")
        write_buffer_descriptor(table.data, 0, src.gpu_va, visible)
        write_buffer_descriptor(table.data, 32, dst.gpu_va, dst.size)
        out.append((gpu, dst, KernelLaunch(program, groups, group_size, (table.gpu_va & 0xFFFFFFFF, table.gpu_va >> 32))))
    (fast_gpu, fast_dst, launch), (ref_gpu, ref_dst, ref_launch) = out
    stats = fast_gpu.dispatch(launch)
    ref_stats = run_launch(ref_launch, ref_gpu.memory, width)
    assert np.array_equal(fast_dst.data, ref_dst.data)
    assert (stats.oob_reads, stats.oob_writes) == (ref_stats.oob_reads, ref_stats.oob_writes)


@pytest.mark.parametrize("width, batch_waves, whole_waves", [(8, 1, False), (8, 3, True), (64, 2, True), (64, 3, False)])
def test_loaded_registers_keep_their_values_when_memory_changes(width, batch_waves, whole_waves):
    """Loads in `run` hand registers views of memory (copy on write): a store into the loaded range,
    in place, must leave every register that holds the old values (the load's, a move's copy) as
    they were, and a later load sees the new bytes. Fast executor against the reference and the
    expected values."""
    groups, group_size = 5, 2 * width if whole_waves else 3 * width // 2   # or a partial last wave per group
    n = groups * group_size
    text = f"""
        s_load_dwordx4 s[8:11], s[0:1], 0
        s_load_dwordx4 s[12:15], s[0:1], 32
        s_waitcnt 0
        s_mul_i32 s20, s2, {group_size}
        v_add_u32 v1, s20, v0
        v_lshl_b32 v1, v1, 2
        buffer_load_dword v2, v1, s[8:11], 0
        s_waitcnt 0
        v_mov_b32 v3, v2
        v_add_u32 v4, v2, 1
        buffer_store_dword v4, v1, s[8:11], 0
        buffer_load_dword v5, v1, s[8:11], 0
        s_waitcnt 0
        buffer_store_dword v2, v1, s[12:15], 0
        buffer_store_dword v3, v1, s[12:15], {4 * n}
        buffer_store_dword v5, v1, s[12:15], {8 * n}
        s_endpgm"""
    program = Program(assemble(text), "in_place")
    original = np.random.default_rng(width).integers(0, 1 << 32, n, dtype=np.uint32)
    results = []
    for fast in (True, False):
        gpu = Gpu(TEACHING, wave_width=width)
        gpu.dispatcher.batch_lanes = width * batch_waves
        a, b = gpu.memory.allocate(4 * n, "a"), gpu.memory.allocate(12 * n, "b")
        a.data[:n * 4] = original.view(np.uint8)
        table = gpu.memory.allocate(64, "table")
        write_buffer_descriptor(table.data, 0, a.gpu_va, n * 4)
        write_buffer_descriptor(table.data, 32, b.gpu_va, b.size)
        launch = KernelLaunch(program, groups, group_size, (table.gpu_va & 0xFFFFFFFF, table.gpu_va >> 32))
        gpu.dispatch(launch) if fast else run_launch(launch, gpu.memory, width)
        results.append((a.data.copy(), b.data.copy()))
    assert all(np.array_equal(f, r) for f, r in zip(*results))
    (a_bytes, b_bytes), _ = results
    words = b_bytes.view(np.uint32)
    assert np.array_equal(a_bytes[:n * 4].view(np.uint32), original + np.uint32(1))
    assert np.array_equal(words[:n], original) and np.array_equal(words[n:2 * n], original)
    assert np.array_equal(words[2 * n:], original + np.uint32(1))


def test_min_max_with_a_uniform_operand_match_the_general_rule():
    """numerics.min_num / max_num take a SIMD path when one operand is one value (CLIP's bounds,
    RELU's 0); the per-lane reference executor always passes one-element operands, so here the
    same value as a full array (the general path) is the oracle: every special value (signed
    zeros, infinities, quiet and signalling NaNs, subnormals) and random bits, both orders, all
    float widths."""
    rng = np.random.default_rng(21)
    for dtype, ints, specials in (
            (np.float32, np.uint32, [0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFC00001,
                                     1, 0x80000001, 0x3F800000, 0xBF800000]),
            (np.float16, np.uint16, [0, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 1, 0x8001, 0x3C00, 0xBC00]),
            (np.float64, np.uint64, [0, 1 << 63, 0x7FF0 << 48, 0xFFF0 << 48, 0x7FF8 << 48, (0x7FF0 << 48) | 1, 1,
                                     0x3FF0 << 48])):
        bits = np.concatenate([np.array(specials, dtype=ints),
                               rng.integers(0, np.iinfo(ints).max, 2000, dtype=ints, endpoint=True)])
        x = bits.view(dtype).reshape(1, -1)
        for u in np.array(specials, dtype=ints).view(dtype):
            uniform, full = np.full((1, 1), u, dtype), np.full(x.shape, u, dtype)
            for fn in (nm.min_num, nm.max_num):
                for got, want in ((fn(x, uniform), fn(x, full)), (fn(uniform, x), fn(full, x))):
                    assert np.array_equal(np.asarray(got).view(ints), np.asarray(want).view(ints)), (fn.__name__, u)


def test_float_class_table_covers_every_float16_and_random_wider_bits():
    """numerics.float_class (a table indexed by five bit tests) against the classes from NumPy's own
    predicates: every FLOAT16 bit pattern, and random FLOAT32 / FLOAT64 bits biased to the
    all-ones and zero exponents."""
    rng = np.random.default_rng(33)
    samples = [np.arange(1 << 16, dtype=np.uint16).view(np.float16)]
    for dtype, ints in ((np.float32, np.uint32), (np.float64, np.uint64)):
        info = np.finfo(dtype)
        exponent = ints(((1 << (info.bits - info.nmant - 1)) - 1) << info.nmant)
        raw = rng.integers(0, np.iinfo(ints).max, 30000, dtype=ints, endpoint=True)
        raw[::3] |= exponent
        raw[1::3] &= ~exponent
        samples.append(raw.view(dtype))
    for x in samples:
        info = np.finfo(x.dtype)
        ints = {2: np.uint16, 4: np.uint32, 8: np.uint64}[x.dtype.itemsize]
        quiet = (x.view(ints) >> ints(info.nmant - 1)) & ints(1) == 1
        negative = np.signbit(x)
        with np.errstate(invalid="ignore"):
            subnormal = (x != 0) & (np.abs(x) < info.smallest_normal)
        want = np.select([np.isnan(x) & ~quiet, np.isnan(x), np.isinf(x) & negative, np.isinf(x), x == 0,
                          subnormal], [0, 1, 2, 9, 6, 7], 8)
        want = np.where(negative & (want == 6), 5, np.where(negative & (want == 7), 4,
                                                             np.where(negative & (want == 8), 3, want)))
        assert np.array_equal(nm.float_class(x), want)
