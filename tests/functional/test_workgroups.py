"""Workgroups that cooperate, functionally: LDS, barriers, atomics and cross-lane moves.

The fast executor against the per-lane reference executor (tests/oracles/reference_executor.py) bit
for bit, on kernels that exercise each instruction family; results that do not depend on the
executor's batch size; the hostile cases (divergent barrier, LDS out of range, unwritten LDS)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dmlemu.functional.buffer_descriptor import write_buffer_descriptor
from dmlemu.functional.wave_dispatcher import KernelLaunch
from dmlemu.gpu import Gpu
from dmlemu.isa import opcodes as op
from dmlemu.isa.assembler import assemble
from dmlemu.isa.program import KernelFault, Program
from dmlemu.presets import TEACHING
from reference_executor import run_launch

# s[8:11] input descriptor, s[12:15] output descriptor, s20 workgroup id, v1 = global thread id,
# v2 = its byte offset, v3 = input[v1], v5 = local thread id * 4.
PROLOGUE = """
    s_load_dwordx4 s[8:11], s[0:1], 0
    s_load_dwordx4 s[12:15], s[0:1], 32
    s_waitcnt 0
    s_get_workgroup_id s20
    s_mul_i32 s21, s20, {group}
    v_add_u32 v1, s21, v0
    v_lshl_b32 v2, v1, 2
    buffer_load_dword v3, v2, s[8:11], 0
    s_waitcnt 0
    v_lshl_b32 v5, v0, 2
"""


def _setup(gpu, source, groups, group, lds_bytes, data, out_dwords):
    src = gpu.memory.allocate(max(4, data.nbytes), "src")
    dst = gpu.memory.allocate(out_dwords * 4, "dst")
    table = gpu.memory.allocate(64, "table")
    write_buffer_descriptor(table.data, 0, src.gpu_va, src.size)
    write_buffer_descriptor(table.data, 32, dst.gpu_va, dst.size)
    src.data[:data.nbytes] = data.view(np.uint8)
    program = Program(assemble(PROLOGUE.format(group=group) + source), "wg_test")
    launch = KernelLaunch(program, groups, group, (table.gpu_va & 0xFFFFFFFF, table.gpu_va >> 32), lds_bytes=lds_bytes)
    return launch, dst


def run_fast(source, data, groups=3, group=96, lds_bytes=1024, out_dwords=None, width=32, batch_lanes=None):
    out_dwords = out_dwords or groups * group * 4
    gpu = Gpu(TEACHING, wave_width=width, timing=False)
    if batch_lanes:
        gpu.dispatcher.batch_lanes = batch_lanes
    launch, dst = _setup(gpu, source, groups, group, lds_bytes, data, out_dwords)
    stats = gpu.dispatch(launch)
    return dst.data.view(np.uint32).copy(), stats


def run_reference(source, data, groups=3, group=96, lds_bytes=1024, out_dwords=None, width=32):
    out_dwords = out_dwords or groups * group * 4
    gpu = Gpu(TEACHING, wave_width=width, timing=False)
    launch, dst = _setup(gpu, source, groups, group, lds_bytes, data, out_dwords)
    stats = run_launch(launch, gpu.memory, width)
    return dst.data.view(np.uint32).copy(), stats


def check_both(source, data, **kwargs):
    fast, stats = run_fast(source, data, **kwargs)
    ref, ref_stats = run_reference(source, data, **kwargs)
    assert np.array_equal(fast, ref), f"fast and reference disagree at dwords {np.flatnonzero(fast != ref)[:10]}"
    assert stats.lds_oob_reads == sum(l.oob_reads for l in ref_stats.lds)
    assert stats.lds_oob_writes == sum(l.oob_writes for l in ref_stats.lds)
    assert stats.lds_unwritten_reads == sum(l.unwritten for l in ref_stats.lds)
    return fast, stats


def _data(n, seed=1):
    return np.random.default_rng(seed).integers(0, 1 << 32, size=n, dtype=np.uint64).astype(np.uint32)


# ---- LDS loads and stores ------------------------------------------------------------------------
REVERSE = """
    ds_write_b32 v5, v3, 0
    s_barrier
    v_sub_u32 v6, {last}, v0
    v_lshl_b32 v6, v6, 2
    ds_read_b32 v7, v6, 0
    buffer_store_dword v7, v2, s[12:15], 0
    s_endpgm
"""


def test_a_workgroup_reverses_its_threads_values_through_lds_across_waves():
    groups, group = 4, 96
    data = _data(groups * group)
    out, stats = check_both(REVERSE.format(last=group - 1), data, groups=groups, group=group, lds_bytes=group * 4)
    expected = data.reshape(groups, group)[:, ::-1].reshape(-1)
    assert np.array_equal(out[:groups * group], expected)
    assert stats.barriers == groups and stats.lds_unwritten_reads == 0
    assert stats.lds_bytes_written == stats.lds_bytes_read == groups * group * 4


@pytest.mark.parametrize("write, read", [("ds_write_b8", "ds_read_u8"), ("ds_write_b8", "ds_read_i8"),
                                         ("ds_write_b16", "ds_read_u16"), ("ds_write_b16", "ds_read_i16"),
                                         ("ds_write_b32", "ds_read_b32"), ("ds_write_b64", "ds_read_b64"),
                                         ("ds_write_b128", "ds_read_b128"), ("ds_write_b32", "ds_read_u8"),
                                         ("ds_write_b8", "ds_read_b32")])
def test_every_lds_access_width_agrees_with_the_reference(write, read):
    size = {"b8": 1, "b16": 2, "b32": 4, "b64": 8, "b128": 16}[write.rsplit("_", 1)[1]]
    shift = size.bit_length() - 1
    source = f"""
    v_lshl_b32 v9, v0, {shift}
    v_mov_b32 v4, v3
    v_xor_b32 v10, v3, 0x5a5a5a5a
    v_mov_b32 v11, v1
    v_mov_b32 v12, v0
    {write} v9, v{3 if size < 8 else (3 if size == 8 else 9)}, 3
    s_barrier
    v_sub_u32 v13, 95, v0
    v_mul_lo_u32 v13, v13, 3
    {read} v[20:23], v13, 1
    v_lshl_b32 v14, v2, 2
    buffer_store_dword v20, v14, s[12:15], 0
    buffer_store_dword v21, v14, s[12:15], 4
    buffer_store_dword v22, v14, s[12:15], 8
    buffer_store_dword v23, v14, s[12:15], 12
    s_endpgm
"""
    if "v[20:23]" in source and not read.endswith("b128"):
        source = source.replace("v[20:23]", "v[20:21]" if read.endswith("b64") else "v20")
    if size == 16:
        source = source.replace(f"{write} v9, v9, 3", f"{write} v9, v[3:6], 3")
    elif size == 8:
        source = source.replace(f"{write} v9, v3, 3", f"{write} v9, v[3:4], 3")
    check_both(source, _data(3 * 96), lds_bytes=96 * 16)


def test_lds_past_the_allocation_reads_zero_and_drops_writes_counted():
    source = """
    v_add_u32 v6, v5, 200
    ds_write_b32 v6, v3, 0
    ds_read_b32 v7, v6, 0
    buffer_store_dword v7, v2, s[12:15], 0
    s_endpgm
"""
    out, stats = check_both(source, _data(3 * 96), lds_bytes=256)
    # lanes whose address + 4 <= 256 are in range: local thread t < 14
    assert stats.lds_oob_writes == stats.lds_oob_reads == 3 * (96 - 14)
    assert (out.reshape(3, -1)[:, 14:96] == 0).all()


def test_a_read_of_lds_never_written_is_counted_with_its_instruction():
    source = """
    ds_read_b32 v7, v5, 4
    buffer_store_dword v7, v2, s[12:15], 0
    s_endpgm
"""
    out, stats = check_both(source, _data(3 * 96), lds_bytes=1024)
    assert stats.lds_unwritten_reads == 3 * 96 and (out == 0).all()
    assert stats.lds_unwritten_first_pc == 10


def test_a_kernel_without_lds_reads_zero_from_it():
    out, stats = check_both("    ds_read_b32 v7, v5, 0\n    buffer_store_dword v7, v2, s[12:15], 0\n    s_endpgm\n",
                            _data(3 * 96), lds_bytes=0)
    assert stats.lds_oob_reads == 3 * 96 and (out == 0).all()


# ---- barriers ----------------------------------------------------------------------------------------
def test_waves_that_ended_do_not_hold_a_barrier():
    source = """
    s_get_wave_id s22
    s_cmp_eq_u32 s22, 1
    s_cbranch_scc1 finish
    ds_write_b32 v5, v3, 0
    s_barrier
    ds_read_b32 v7, v5, 0
    buffer_store_dword v7, v2, s[12:15], 0
finish:
    s_endpgm
"""
    out, stats = check_both(source, _data(3 * 96))
    data = _data(3 * 96).reshape(3, 96)
    got = out[:3 * 96].reshape(3, 96)
    assert np.array_equal(got[:, :32], data[:, :32]) and (got[:, 32:64] == 0).all()


def test_a_divergent_barrier_is_a_hang_naming_the_kernel_the_instructions_and_the_waves():
    source = """
    s_get_wave_id s22
    s_cmp_eq_u32 s22, 1
    s_cbranch_scc1 other
    s_barrier
    s_endpgm
other:
    s_barrier
    s_endpgm
"""
    with pytest.raises(KernelFault, match=r"wg_test: divergent barrier: in workgroup 0, waves 0, 2 wait at the "
                                          r"s_barrier at instruction 13 while wave 1 waits at the s_barrier at "
                                          r"instruction 15"):
        run_fast(source, _data(3 * 96))


def test_a_wave_looping_forever_while_others_wait_at_a_barrier_is_a_hang_that_says_so(monkeypatch):
    from dmlemu.functional import executor
    monkeypatch.setattr(executor, "MAX_INSTRUCTIONS_PER_WAVE", 2000)
    source = """
    s_get_wave_id s22
    s_cmp_eq_u32 s22, 0
    s_cbranch_scc1 spin
    s_barrier
    s_endpgm
spin:
    s_branch spin
"""
    with pytest.raises(KernelFault, match=r"wg_test: in workgroup 0, wave 0 executed more than 2000 instructions without ending, "
                                          r"while waves 1, 2 wait at the s_barrier at instruction 13 for them"):
        run_fast(source, _data(3 * 96), groups=1)


# ---- atomics -----------------------------------------------------------------------------------------
LDS_ATOMICS = [e for e in op.TABLE if e.kind == "lds_atomic"]


def _lds_atomic_source(entry):
    """Every thread applies `entry` to dword (tid mod 5) of LDS, seeded by one wave; the old values and the
    final LDS go out."""
    operands = ["v5" if False else "v6"]
    if entry.name_of_operation == "cmpst_b32":
        data = "v8, v3"           # compare with v8 (the seeded value's low bits, sometimes equal), data v3
    else:
        data = "v3"
    destination = "v7, " if entry.returns else ""
    return f"""
    v_cmp_gt_u32 vcc, 5, v0
    s_and_b64 s[30:31], exec, exec
    s_and_b64 exec, exec, vcc
    v_mul_lo_u32 v9, v0, 0x9e3779b9
    ds_write_b32 v5, v9, 0
    s_mov_b64 exec, s[30:31]
    s_barrier
    v_and_b32 v8, v0, 3
    v_mul_lo_u32 v8, v8, 0x9e3779b9
    v_mov_b32 v7, 0
    s_get_wave_id s22
    v_mov_b32 v6, v0
    v_bfe_u32 v6, v6, 0, 31
    v_mul_hi_u32 v6, v6, 0x33333334
    v_mul_lo_u32 v6, v6, 5
    v_sub_u32 v6, v0, v6
    v_lshl_b32 v6, v6, 2
    {entry.mnemonic} {destination}v6, {data}, 0
    s_barrier
    buffer_store_dword v7, v2, s[12:15], 0
    v_cmp_gt_u32 vcc, 5, v0
    s_and_b64 exec, exec, vcc
    ds_read_b32 v10, v5, 0
    s_mul_i32 s23, s20, 20
    v_add_u32 v11, s23, v5
    buffer_store_dword v10, v11, s[12:15], 0x800
    s_endpgm
"""


@pytest.mark.parametrize("entry", LDS_ATOMICS, ids=lambda e: e.mnemonic)
def test_lds_atomics_apply_in_wave_then_lane_order_as_the_reference_does(entry):
    data = _data(3 * 96, seed=7)
    if entry.name_of_operation in ("add_f32", "min_f32", "max_f32"):
        data = np.random.default_rng(7).normal(0, 1000, 3 * 96).astype(np.float32).view(np.uint32)
    check_both(_lds_atomic_source(entry), data, out_dwords=4096)


BUFFER_ATOMICS = [e for e in op.TABLE if e.kind == "atomic"]


@pytest.mark.parametrize("entry", BUFFER_ATOMICS, ids=lambda e: e.mnemonic)
def test_buffer_atomics_agree_with_the_reference_and_return_the_old_values(entry):
    # Every thread applies the operation to one of 7 dwords at output offset 0x1000; the old values go
    # to the output's first dwords.
    data_register = "v[3:4]" if entry.types[1 if entry.returns else 0] == "b64" else "v3"
    destination = "v7, " if entry.returns else ""
    source = f"""
    v_and_b32 v4, v3, 7
    v_and_b32 v6, v1, 7
    v_cmp_eq_u32 vcc, 7, v6
    v_cndmask_b32 v6, v6, 0, vcc
    v_lshl_b32 v6, v6, 2
    v_mov_b32 v7, 0
    {entry.mnemonic} {destination}{data_register}, v6, s[12:15], 0x1000
    buffer_store_dword v7, v2, s[12:15], 0
    s_endpgm
"""
    data = _data(3 * 96, seed=11)
    if entry.name_of_operation == "add_f32":
        data = np.random.default_rng(3).normal(0, 100, 3 * 96).astype(np.float32).view(np.uint32)
    fast, _ = run_fast(source, data, out_dwords=2048)
    ref, _ = run_reference(source, data, out_dwords=2048)
    assert np.array_equal(fast, ref)


def test_a_histogram_with_lds_and_buffer_atomics_matches_bincount():
    source = """
    v_and_b32 v6, v3, 15
    v_lshl_b32 v6, v6, 2
    v_mov_b32 v9, 1
    v_cmp_gt_u32 vcc, 16, v0
    s_and_b64 s[30:31], exec, exec
    s_and_b64 exec, exec, vcc
    v_mov_b32 v10, 0
    ds_write_b32 v5, v10, 0
    s_mov_b64 exec, s[30:31]
    s_barrier
    ds_add_u32 v6, v9, 0
    s_barrier
    s_and_b64 exec, exec, vcc
    ds_read_b32 v11, v5, 0
    buffer_atomic_add v11, v5, s[12:15], 0
    s_endpgm
"""
    data = _data(5 * 96, seed=5)
    out, stats = check_both(source, data, groups=5, out_dwords=16)
    assert np.array_equal(out, np.bincount(data & 15, minlength=16).astype(np.uint32))
    assert stats.lds_unwritten_reads == 0


# ---- cross-lane ------------------------------------------------------------------------------------
@pytest.mark.parametrize("instruction", [
    "v_readlane_b32 s40, v3, 5\n    v_mov_b32 v7, s40",
    "v_readlane_b32 s40, v3, s22\n    v_mov_b32 v7, s40",
    "v_readfirstlane_b32 s40, v3\n    v_mov_b32 v7, s40",
    "v_mov_b32 v7, v0\n    v_writelane_b32 v7, s20, 9",
    "v_mov_b32 v7, v0\n    v_mov_b32_row_shr v7, v3, 3",
    "v_mov_b32 v7, v0\n    v_mov_b32_row_mirror v7, v3",
    "v_mov_b32 v7, v0\n    v_mov_b32_xor v7, v3, 1",
    "v_mov_b32 v7, v0\n    v_mov_b32_xor v7, v3, 16",
    "v_mov_b32 v7, v0\n    v_mov_b32_bcast v7, v3, 31",
    "v_mov_b32 v7, v0\n    ds_swizzle_b32 v7, v3, 0x041f",
    "v_mov_b32 v7, v0\n    ds_swizzle_b32 v7, v3, 0x801b",
    "v_mov_b32 v7, v0\n    v_mul_lo_u32 v8, v3, 4\n    ds_bpermute_b32 v7, v8, v1",
    "v_mov_b32 v7, v0\n    v_mul_lo_u32 v8, v3, 4\n    ds_permute_b32 v7, v8, v1",
])
@pytest.mark.parametrize("partial", [False, True])
def test_cross_lane_moves_agree_with_the_reference(instruction, partial):
    mask = """
    v_and_b32 v12, v3, 3
    v_cmp_ne_u32 vcc, 0, v12
    s_and_b64 exec, exec, vcc
""" if partial else ""
    source = f"""
    s_get_wave_id s22
    s_add_u32 s22, s22, 2
{mask}    {instruction}
    s_mov_b64 exec, -1
    buffer_store_dword v7, v2, s[12:15], 0
    s_endpgm
"""
    check_both(source, _data(3 * 96, seed=13))


def test_a_wave_sum_by_butterflies_reaches_every_lane():
    source = """
    v_and_b32 v3, v3, 0xffff
""" + "".join(f"""    v_mov_b32_xor v8, v3, {k}
    v_add_u32 v3, v3, v8
""" for k in (1, 2, 4, 8, 16)) + """    buffer_store_dword v3, v2, s[12:15], 0
    s_endpgm
"""
    data = _data(3 * 96, seed=17)
    out, _ = check_both(source, data)
    sums = (data & 0xFFFF).reshape(-1, 32).sum(axis=1)
    assert np.array_equal(out[:3 * 96].reshape(-1, 32), np.repeat(sums[:, None], 32, axis=1).astype(np.uint32))


# ---- batch size --------------------------------------------------------------------------------------
ORDERED = """
    v_and_b32 v6, v3, 7
    s_get_wave_id s22
    s_cmp_eq_u32 s22, 1
    s_cbranch_scc1 skip
    v_lshl_b32 v6, v6, 2
    ds_add_rtn_f32 v7, v6, v3, 0
    buffer_atomic_add_f32_rtn v8, v3, v6, s[12:15], 0x1000
    buffer_store_dword v8, v2, s[12:15], 0x2000
skip:
    s_barrier
    v_and_b32 v9, v0, 7
    v_lshl_b32 v9, v9, 2
    ds_cmpst_rtn_b32 v10, v9, v3, v1, 0
    buffer_atomic_swap_rtn v11, v10, v9, s[12:15], 0x1020
    buffer_store_dword v7, v2, s[12:15], 0
    buffer_store_dword v11, v2, s[12:15], 0x3000
    s_endpgm
"""


@settings(max_examples=8, deadline=None)
@given(batch_lanes=st.sampled_from([32, 96, 192, 500, 1 << 20]), width=st.sampled_from([16, 32]))
def test_results_do_not_depend_on_the_batch_size(batch_lanes, width):
    data = np.random.default_rng(23).normal(0, 10, 6 * 96).astype(np.float32).view(np.uint32)
    base, _ = run_fast(ORDERED, data, groups=6, width=width, out_dwords=8192)
    other, _ = run_fast(ORDERED, data, groups=6, width=width, out_dwords=8192, batch_lanes=batch_lanes)
    assert np.array_equal(base, other)


def test_the_ordered_atomics_kernel_agrees_with_the_reference():
    data = np.random.default_rng(23).normal(0, 10, 6 * 96).astype(np.float32).view(np.uint32)
    check_both(ORDERED, data, groups=6, out_dwords=8192)


@pytest.mark.parametrize("lds_bytes", [-1, (1 << 20) + 1, 1 << 40, 2.5])
def test_a_launch_declaring_impossible_lds_is_refused_with_a_sentence(lds_bytes):
    # The device refuses more than its preset allows; the dispatcher anything that is not 0 .. 1 MiB.
    with pytest.raises(ValueError, match=r"(KernelLaunch.lds_bytes is .*; adapter preset teaching allows at most "
                                         r"16384 bytes of LDS per workgroup)|(wg_test: lds_bytes is .*; a "
                                         r"workgroup's LDS is an integer from 0 to 1048576 bytes)"):
        run_fast("    s_endpgm\n", _data(96), groups=1, lds_bytes=lds_bytes)
    from dmlemu.functional.wave_dispatcher import Dispatcher
    with pytest.raises(ValueError, match=r"wg_test: lds_bytes is .*; a workgroup's LDS is an integer from 0 to "
                                         r"1048576 bytes"):
        gpu = Gpu(TEACHING, timing=False)
        launch, _ = _setup(gpu, "    s_endpgm\n", 1, 96, lds_bytes, _data(96), 96)
        Dispatcher(gpu.memory, 32).run(launch)


def test_the_largest_lds_runs_in_bounded_memory():
    from dmlemu.functional.local_data_share import MAX_WORKGROUP_LDS_BYTES
    from dmlemu.functional.wave_dispatcher import Dispatcher
    gpu = Gpu(TEACHING, timing=False)
    launch, dst = _setup(gpu, PROLOGUE.format(group=96)[0:0] + REVERSE.format(last=95), 200, 96,
                         MAX_WORKGROUP_LDS_BYTES, _data(200 * 96), 200 * 96)
    stats = Dispatcher(gpu.memory, 32).run(launch)      # 64 groups a batch: 64 MiB of LDS at most
    assert stats.barriers == 200
    assert np.array_equal(dst.data.view(np.uint32), _data(200 * 96).reshape(200, 96)[:, ::-1].reshape(-1))


# ---- the executor's Ramp paths (LDS through a thread-id address, strided loads and stores) ----------------
RAMP_PATHS = """
    ds_write_b32 v5, v3, 0               ; every lane, consecutive (a slice when the LDS is packed)
    s_mov_b64 s[40:41], exec
    s_barrier
    v_cmp_gt_u32 vcc, {half}, v0         ; whole waves or part of one, as the width falls
    s_and_b64 exec, exec, vcc
    ds_read_b32 v6, v5, {offset}
    v_add_u32 v6, v6, v3
    ds_write_b32 v5, v6, 0
    s_mov_b64 exec, s[40:41]
    s_barrier
    v_cmp_gt_u32 vcc, 5, v0              ; five lanes of the first wave
    s_and_b64 exec, exec, vcc
    ds_read_b32 v7, v5, 8
    ds_write_b32 v5, v7, 4
    s_mov_b64 exec, s[40:41]
    v_cmp_gt_u32 vcc, 8, v0              ; eight lanes, the last two past the workgroup's LDS
    s_and_b64 exec, exec, vcc
    ds_read_b32 v11, v5, {edge}
    s_mov_b64 exec, s[40:41]
    s_barrier
    ds_read_b32 v8, v5, 0
    s_mul_i32 s22, s20, {stride}         ; each workgroup's runs {stride} elements apart
    v_add_u32 v10, s22, v0
    v_lshl_b32 v10, v10, 2
    buffer_store_dword v8, v10, s[12:15], 0
    buffer_store_dword v11, v10, s[12:15], {second}
    buffer_load_dword v12, v10, s[12:15], 0
    s_waitcnt 0
    v_xor_b32 v12, v12, v1
    buffer_store_dword v12, v10, s[12:15], {third}
    s_endpgm
"""


@pytest.mark.parametrize("width", [16, 32])
@pytest.mark.parametrize("half", [32, 48])
@pytest.mark.parametrize("lds_bytes", [128 * 4, 640])
def test_ramp_addressed_lds_and_strided_buffer_runs_agree_with_the_reference(width, half, lds_bytes):
    """LDS accesses through v0 * 4 (every lane; whole waves; some lanes of a wave; some lanes past the LDS)
    and buffer stores and loads whose waves' runs are evenly spaced: the executor's Ramp paths, bit for bit
    and counter for counter against the per-lane reference."""
    group = 128
    source = RAMP_PATHS.format(half=half, offset=4 * half, edge=lds_bytes - 24, stride=3 * group,
                               second=4 * group, third=8 * group)
    out, stats = check_both(source, _data(3 * group), groups=3, group=group, lds_bytes=lds_bytes,
                            out_dwords=9 * group, width=width)
    assert stats.lds_oob_reads == 3 * 2      # two lanes past the LDS in each workgroup
    assert out[:group].any() and out[2 * group:3 * group].any()


# ---- a divergent branch one side of which goes straight to s_endpgm -------------------------------------------------
ENDING = """
    s_mov_b64 s[40:41], exec
    v_cmp_gt_u32 vcc, {first}, v1        ; waves of the first threads go on (taken side ends below)
    s_and_b64 exec, exec, vcc
    s_cbranch_execz quit
    v_add_u32 v6, v3, 7
    buffer_store_dword v6, v2, s[12:15], 0
    s_mov_b64 exec, s[40:41]
    v_cmp_gt_u32 vcc, {second}, v1       ; then only the waves of fewer threads (the fall-through side ends)
    s_and_b64 exec, exec, vcc
    s_cbranch_execnz more
    s_endpgm
more:
    ds_write_b32 v5, v3, 0
    s_mov_b64 exec, s[40:41]
    s_barrier
    ds_read_b32 v7, v5, 0
    buffer_store_dword v7, v2, s[12:15], {far}
quit:
    s_endpgm
"""


@pytest.mark.parametrize("width", [8, 32])
@pytest.mark.parametrize("timing", [False, True])
def test_waves_that_branch_straight_to_the_end_agree_with_the_reference(width, timing):
    """Each side of a divergent branch that is s_endpgm itself ends without being split off (executor._run):
    memory as the reference's, every wave counted once at an s_endpgm, and with the timing model on their
    paths recorded (the dispatch is timed)."""
    group = 96
    source = ENDING.format(first=2 * group + 40, second=group + 8, far=4 * 3 * group)
    kwargs = dict(groups=3, group=group, lds_bytes=4 * group, out_dwords=2 * 3 * group, width=width)
    if timing:
        gpu = Gpu(TEACHING, wave_width=width, timing=True)
        launch, dst = _setup(gpu, source, 3, group, 4 * group, _data(3 * group), 2 * 3 * group)
        stats = gpu.dispatch(launch)
        fast = dst.data.view(np.uint32).copy()
        assert stats.cycles > 0
    else:
        fast, stats = run_fast(source, _data(3 * group), **kwargs)
    ref, _ = run_reference(source, _data(3 * group), **kwargs)
    assert np.array_equal(fast, ref)
    ends = [r.pc for r in Program(assemble(PROLOGUE.format(group=group) + source), "x").records
            if r.entry.kind == "end"]
    assert sum(int(stats.instruction_waves[pc]) for pc in ends) == stats.waves


# ---- EXEC as a block of lanes (executor._Region): an LDS tree's levels, thread 0's store and atomic ------------------
REGIONS = """
    ds_write_b32 v5, v3, 0
    s_mov_b64 s[40:41], exec
    s_barrier
    v_cmp_gt_u32 vcc, {first}, v0        ; the first threads of every workgroup ({first}: whole waves or not)
    s_and_b64 exec, exec, vcc
    ds_read_b32 v6, v5, {offset}
    v_add_u32 v6, v6, v3                 ; lane-wise under the block: registers, a Ramp, a never written one
    v_xor_b32 v9, v6, v0
    v_add_u32 v16, v0, 1
    ds_write_b32 v5, v6, 0
    s_mov_b64 exec, s[40:41]
    s_barrier
    v_cmp_gt_u32 vcc, 5, v0              ; five lanes of the first wave of every workgroup
    s_and_b64 exec, exec, vcc
    ds_read_b32 v7, v5, 4
    v_mul_lo_u32 v7, v7, v0
    v_add_u32 v7, v7, s20                ; a per-wave scalar
    v_cndmask_b32 v16, v16, v7, vcc
    ds_write_b32 v5, v7, 0
    v_cmp_eq_u32 vcc, 0, v0              ; thread 0 of every workgroup: a store and an atomic
    s_and_b64 exec, exec, vcc
    v_mov_b32 v12, s20
    v_lshl_b32 v12, v12, 2
    buffer_store_dword v7, v12, s[12:15], {partials}
    buffer_store_dword v7, v12, s[12:15], {edge}   ; workgroups 2 .. past the buffer's end: dropped, counted
    v_and_b32 v15, v12, 4                ; two workgroups on one counter dword
    v_mov_b32 v13, 3
    {atomic} {destination}v13, v15, s[12:15], {counter}
    s_mov_b64 exec, s[40:41]
    s_barrier
    ds_read_b32 v8, v5, 0
    buffer_store_dword v8, v2, s[12:15], 0
    buffer_store_dword v9, v2, s[12:15], {second}
    buffer_store_dword v16, v2, s[12:15], {third}
    buffer_store_dword v14, v2, s[12:15], {fourth}
    s_endpgm
"""


@pytest.mark.parametrize("width", [8, 16, 32])
@pytest.mark.parametrize("first", ["two waves", 40])
@pytest.mark.parametrize("atomic", ["buffer_atomic_add", "buffer_atomic_add_rtn"])
@pytest.mark.parametrize("batch_lanes", [None, 256])
def test_exec_blocks_of_lanes_agree_with_the_reference(width, first, atomic, batch_lanes):
    """EXEC as the first threads of every workgroup (whole waves: the first j of every k, or a prefix of
    lanes: every k-th wave's first n) and as thread 0 of every workgroup: the executor's region paths (LDS
    reads and writes, lane-wise instructions on the region's lanes alone, a store and a returning or plain
    atomic of those lanes) bit for bit and counter for counter against the per-lane reference; with
    batches of whole workgroups and with a batch cut small (256 lanes)."""
    group, groups = 128, 5
    first = 2 * width if first == "two waves" else first
    rtn = atomic.endswith("_rtn")
    out_dwords = 4 * group * groups + groups + 4
    source = REGIONS.format(first=first, offset=4 * first, partials=4 * 4 * group * groups,
                            edge=4 * (out_dwords - 2),
                            counter=4 * (4 * group * groups + groups), atomic=atomic,
                            destination="v14, " if rtn else "", second=4 * group * groups,
                            third=8 * group * groups, fourth=12 * group * groups)
    kwargs = dict(groups=groups, group=group, lds_bytes=4 * group, out_dwords=out_dwords, width=width)
    if batch_lanes is None:
        out, stats = check_both(source, _data(groups * group, seed=5), **kwargs)
    else:
        out, stats = run_fast(source, _data(groups * group, seed=5), batch_lanes=batch_lanes, **kwargs)
        assert np.array_equal(out, run_reference(source, _data(groups * group, seed=5), **kwargs)[0])
    assert stats.oob_writes == groups - 2
    counters = out[4 * group * groups + groups:][:2]
    assert counters.tolist() == [3 * 3, 3 * 2]          # workgroups 0, 2, 4 on the first dword, 1, 3 on the second
    if rtn:
        assert sorted(out[3 * group * groups::group][:groups].tolist()) == [0, 0, 3, 3, 6]
