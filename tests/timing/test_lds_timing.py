"""The LDS in the timing model: bank-conflict passes cost the CU's LDS pipe in proportion, LDS reads
count as outstanding loads for s_waitcnt, capacity limits how many workgroups a CU holds (and the
occupancy names it), and timing does not depend on the executor's batch size
(emulator/timing/compute_unit.py, simd.py, command_processor.workgroup_occupancy)."""
import dataclasses

import pytest
from hypothesis import given, settings, strategies as st

from dmlemu.presets import RTX_3070, RX_7900_XTX, TEACHING
from dmlemu.timing.command_processor import workgroup_occupancy
from dmlemu.tools import lds_microbench as mb


def stream_cycles(preset, source, groups, group, lds_bytes, **kwargs):
    return mb.run(preset, source, groups, group, lds_bytes=lds_bytes, **kwargs).cycles


def strided_stream(trips, stride, width=32):
    """Every wave streams UNROLL ds_read_b32 per trip, lane l of the wave at dword l x stride (0: all lanes
    dword 0): 4 x stride x width bytes of LDS."""
    body = "    ds_read_b32 v6, v5, 0\n"
    return (f"    v_and_b32 v5, {width - 1}, v0\n    v_mul_lo_u32 v5, v5, {4 * stride}\n    s_mov_b32 s22, {trips}\nloop:\n"
            + body * mb.UNROLL
            + "    s_waitcnt 0\n    s_sub_u32 s22, s22, 1\n    s_cmp_lg_u32 s22, 0\n    s_cbranch_scc1 loop\n"
            + "    s_endpgm\n")


@pytest.mark.parametrize("stride", [2, 4, 32])
def test_bank_conflicts_cost_the_lds_pipe_in_proportion_to_their_passes(stride):
    # Every CU full of waves: the LDS pipe (one pass per cycle at 32 banks x 4 bytes / 128 bytes per
    # cycle) is the bottleneck, so a stride-s read (s passes) takes s times a stride-1 read's time.
    preset = RX_7900_XTX
    group = preset.workgroup_size
    groups = mb.full_gpu_groups(preset, group)
    lds = 4 * 32 * preset.wave_width

    def per_trip(s):
        return mb.per_trip(preset, lambda t: strided_stream(t, s), 4, groups=groups, group=group, lds_bytes=lds)

    ratio = per_trip(stride) / per_trip(1)
    assert ratio == pytest.approx(stride, rel=0.03)


def test_a_broadcast_read_costs_one_pass():
    preset = RX_7900_XTX
    assert mb.expected_passes(preset, 0) == 1
    assert mb.conflict_passes(preset, 0) == pytest.approx(1.0)
    assert mb.conflict_passes(preset, 32) == pytest.approx(32.0)


def test_record_passes_reach_the_timing_result():
    preset = RX_7900_XTX
    stats = mb.run(preset, strided_stream(2, 4), 1, 32, lds_bytes=4 * 4 * 32)
    assert set(p.passes.max() for p in stats.record.lds.values()) == {4}
    # 2 trips x UNROLL reads x 4 passes, one wave
    assert stats.timing.lds_passes == 2 * mb.UNROLL * 4


def test_lds_latency_is_the_pointer_chase_per_read():
    # issue (1) + one pass (1) + the preset's latency, plus the loop's 3 scalar instructions per 8 reads
    for preset in (RX_7900_XTX, RTX_3070):
        assert mb.latency(preset) == pytest.approx(preset.lds_latency_cycles + 2 + 3 / mb.UNROLL, abs=0.01)


def test_s_waitcnt_waits_for_lds_reads_and_not_for_lds_writes():
    preset = RX_7900_XTX
    read = "    v_mov_b32 v2, 0\n" + mb.looped("    ds_read_b32 v3, v2, 0\n    s_waitcnt 0\n", 4) + "    s_endpgm\n"
    write = "    v_mov_b32 v2, 0\n" + mb.looped("    ds_write_b32 v2, v2, 0\n    s_waitcnt 0\n", 4) + "    s_endpgm\n"
    reads = stream_cycles(preset, read, 1, 32, 64)
    writes = stream_cycles(preset, write, 1, 32, 64)
    assert reads - writes >= 4 * mb.UNROLL * preset.lds_latency_cycles


def test_lds_capacity_limits_resident_workgroups_and_names_the_limiter():
    preset = RX_7900_XTX                      # 64 KiB per CU, 2 SIMDs of 16 slots, wave32
    small = workgroup_occupancy(preset, 8, 1024, 8)
    assert small.per_cu == 4 and small.limiter == "wave slots"
    big = workgroup_occupancy(preset, 8, 40 * 1024, 8)
    assert big.per_cu == 1 and big.per_simd == (1, 0) and big.limiter == "LDS"
    half = workgroup_occupancy(preset, 8, 32 * 1024, 8)
    assert half.per_cu == 2 and half.per_simd == (1, 1) and half.limiter == "LDS"
    quarter = workgroup_occupancy(preset, 8, 16 * 1024, 8)    # the LDS holds exactly what the slots do
    assert quarter.per_cu == 4 and quarter.limiter == "wave slots"
    odd = workgroup_occupancy(preset, 8, 0, 6)  # two 6-wave workgroups per 16-slot SIMD: 4 slots idle
    assert odd.per_cu == 4 and odd.limiter == "workgroup size"
    heavy = workgroup_occupancy(preset, 256, 0, 2)   # 1536 // 256 = 6 waves per SIMD
    assert heavy.limiter == "VGPRs" and heavy.per_cu == 6


def test_lds_bound_occupancy_slows_a_latency_bound_kernel_and_is_reported():
    preset = RX_7900_XTX
    group = 256
    groups = 4 * preset.compute_units
    source = mb.chase_source(8)
    small = mb.run(preset, source, groups, group, lds_bytes=1024)
    big = mb.run(preset, source, groups, group, lds_bytes=60 * 1024)
    assert small.timing.occupancy_limiter == "wave slots"
    assert big.timing.occupancy_limiter == "LDS"
    assert big.timing.waves_per_simd == 8           # one 8-wave workgroup on a CU's first SIMD
    assert big.cycles > 1.5 * small.cycles


def test_a_workgroup_with_more_lds_than_the_preset_allows_is_refused():
    with pytest.raises(ValueError, match="lds_bytes is 65540; adapter preset rx7900xtx allows at most 65536"):
        mb.run(RX_7900_XTX, mb.chase_source(1), 1, 32, lds_bytes=65540)


@pytest.mark.parametrize("preset", [TEACHING, RX_7900_XTX])
def test_timing_does_not_depend_on_the_executor_batch_size(preset):
    # An LDS + barrier kernel (the smoke kernel's shape: write, barrier, read reversed, LDS atomic).
    w = preset.wave_width
    group = 4 * w
    source = f"""
    v_lshl_b32 v5, v0, 2
    ds_write_b32 v5, v0, 0
    s_barrier
    v_sub_u32 v6, {group - 1}, v0
    v_lshl_b32 v6, v6, 2
    ds_read_b32 v7, v6, 0
    ds_add_rtn_u32 v8, v6, v7, 0
    s_waitcnt 0
    s_barrier
    ds_read_b32 v9, v5, 0
    s_waitcnt 0
    s_endpgm
"""
    runs = [mb.run(preset, source, 40, group, lds_bytes=4 * group, batch_lanes=lanes) for lanes in (group, 1 << 20)]
    assert runs[0].cycles == runs[1].cycles
    assert runs[0].timing.barrier_wait_cycles == runs[1].timing.barrier_wait_cycles > 0
    assert runs[0].timing.lds_passes == runs[1].timing.lds_passes


def test_trace_bytes_do_not_depend_on_the_executor_batch_size(tmp_path):
    from dmlemu.traces import capture
    from dmlemu.traces.io import save_trace
    preset = RX_7900_XTX
    source = "    v_lshl_b32 v5, v0, 2\n    ds_write_b32 v5, v0, 0\n    s_barrier\n    ds_read_b32 v7, v5, 0\n" \
             "    s_waitcnt 0\n    s_endpgm\n"
    blobs = []
    for lanes in (256, 1 << 20):
        gpu = mb.Gpu(preset)
        gpu.dispatcher.batch_lanes = lanes
        with capture(gpu, detail="instruction") as cap:
            launch = mb.KernelLaunch(mb.Program(mb.assemble(source), "t"), 64, 256, (0, 0), lds_bytes=1024)
            gpu.dispatch(launch)
        path = save_trace(cap.trace, str(tmp_path / f"t{lanes}.npz"))
        blobs.append(open(path, "rb").read())
    assert blobs[0] == blobs[1]


@settings(max_examples=12)
@given(cus=st.integers(1, 6), bytes_per_cycle=st.sampled_from([32, 64, 128, 256]), more=st.integers(1, 3))
def test_more_lds_bandwidth_clock_or_compute_units_never_makes_an_lds_kernel_slower(cus, bytes_per_cycle, more):
    base = dataclasses.replace(TEACHING, compute_units=cus, lds_bytes_per_cycle=bytes_per_cycle)
    source = strided_stream(2, 2, base.wave_width)
    group = 2 * base.wave_width
    groups = 12

    def cycles(preset):
        return stream_cycles(preset, source, groups, group, 4 * 2 * base.wave_width)

    t = cycles(base)
    assert cycles(dataclasses.replace(base, lds_bytes_per_cycle=bytes_per_cycle * (1 + more))) <= t
    faster = dataclasses.replace(base, clock_hz=base.clock_hz * (1 + more))
    assert cycles(faster) / faster.clock_hz <= t / base.clock_hz       # in seconds
    # More CUs: never slower by more than the workgroup launcher's stagger. The dispatcher hands
    # workgroups out in order, group 0 of every CU first, so with more CUs a CU's second workgroup may
    # start at another offset from its first and their LDS requests interleave otherwise in the CU's
    # FIFO pipe (a list-scheduling anomaly, as bench/bandwidth_monotonicity.py shows for the issue port).
    assert cycles(dataclasses.replace(base, compute_units=cus + more)) <= t + groups * base.workgroup_launch_cycles


def test_the_trace_verdict_names_lds_as_the_occupancy_limiter():
    from dmlemu.traces import capture
    from dmlemu.traces.verdict import format_verdict, verdict
    preset = RX_7900_XTX
    gpu = mb.Gpu(preset)
    with capture(gpu, detail="wave") as cap:
        launch = mb.KernelLaunch(mb.Program(mb.assemble(mb.chase_source(4)), "chase"), 4 * preset.compute_units, 256,
                                 (0, 0), lds_bytes=60 * 1024)
        stats = gpu.dispatch(launch)
    row = cap.trace.tables["dispatches"][0]
    assert int(row["lds_bytes"]) == 60 * 1024
    v = verdict(row, preset)
    assert v.occupancy_limiter == stats.timing.occupancy_limiter == "LDS"
    assert "limited by LDS (61,440 bytes of LDS per workgroup of 65,536 per CU)" in format_verdict(v, row, preset)


def _cooperative_facts():
    """Cycles and counters of an LDS + barrier + atomic dispatch pair on one device (the second continues
    the first's servers)."""
    preset = RX_7900_XTX
    gpu = mb.Gpu(preset)
    buf = gpu.memory.allocate(1 << 16, "buffer")
    table = gpu.memory.allocate(64, "table")
    mb.write_buffer_descriptor(table.data, 0, buf.gpu_va, buf.size)
    source = """
    s_load_dwordx4 s[8:11], s[0:1], 0
    s_waitcnt 0
    v_lshl_b32 v5, v0, 2
    ds_write_b32 v5, v0, 0
    s_barrier
    v_mul_lo_u32 v6, v0, 8
    ds_read_b32 v7, v6, 0
    ds_bpermute_b32 v8, v5, v7
    s_waitcnt 0
    v_and_b32 v9, 63, v0
    v_lshl_b32 v9, v9, 2
    buffer_atomic_add v7, v9, s[8:11], 0
    buffer_atomic_add_rtn v10, v7, v5, s[8:11], 0
    s_waitcnt 0
    s_barrier
    s_endpgm
"""
    facts = []
    for _ in range(2):
        launch = mb.KernelLaunch(mb.Program(mb.assemble(source), "coop"), 300, 256,
                                 (table.gpu_va & 0xFFFFFFFF, table.gpu_va >> 32), lds_bytes=8 * 256)
        t = gpu.dispatch(launch).timing
        facts.append((t.start_cycle, t.end_cycle, t.barrier_wait_cycles, t.lds_passes, t.atomic_operations,
                      t.simd_busy_cycles, t.dram_bytes, t.occupancy_limiter))
    return facts


def test_the_drivers_and_builds_agree_on_lds_barrier_and_atomic_dispatches(monkeypatch):
    monkeypatch.delenv("DMLEMU_TIMING_PHYSICS", raising=False)
    monkeypatch.setenv("DMLEMU_TIMING_ENGINE", "heap")
    heap = _cooperative_facts()
    monkeypatch.setenv("DMLEMU_TIMING_ENGINE", "simpy")
    simpy = _cooperative_facts()
    monkeypatch.setenv("DMLEMU_TIMING_ENGINE", "heap")
    monkeypatch.setenv("DMLEMU_TIMING_PHYSICS", "interpreted")
    interpreted = _cooperative_facts()
    assert heap == simpy == interpreted
    assert heap[0][3] > 0 and heap[0][4] > 0 and heap[0][2] > 0


def test_a_preset_whose_workgroup_lds_exceeds_the_cu_is_refused():
    from dmlemu.presets import preset_problem
    bad = dataclasses.replace(RX_7900_XTX, lds_max_bytes_per_workgroup=1 << 17)
    assert preset_problem(bad) == ("lds_max_bytes_per_workgroup is 131072; it must be at most lds_bytes_per_cu "
                                   "(65536): a workgroup's LDS is on one compute unit")
    assert preset_problem(dataclasses.replace(RX_7900_XTX, lds_banks=0)) == "lds_banks is 0; it must be a positive integer"
