"""The fast executor against the slow per-lane reference executor, bit for bit."""
import zlib

import numpy as np
import pytest

from dmlemu.functional.buffer_descriptor import write_buffer_descriptor
from dmlemu.functional.wave_dispatcher import KernelLaunch
from dmlemu.functional.executor import KernelFault, Program
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
