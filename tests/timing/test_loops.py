"""Memory instructions inside loops: each trip is charged its own sectors (dispatch_record.access_slot).

The executor records the k-th execution of a memory instruction by a wave as its own access slot, and a
path's k-th run of that instruction (kernel_path.py) is charged that slot's sectors, so a loop of R trips
costs what the same loads unrolled cost: the caches see the same stream in the same order, and every
level moves the same bytes. (Charged per instruction, each of the R trips would move all R trips'
sectors: R^2 traffic.)
"""
import numpy as np
import pytest

from dmlemu.gpu import Gpu
from dmlemu.isa.opcodes import BY_MNEMONIC
from dmlemu.presets import RTX_3070, RX_7900_XTX, TEACHING
from loop_kernels import kernel, launch, looped

TRIP = """
    buffer_load_dword v2, v1, s[8:11], 0
    s_waitcnt 0
    v_add_u32 v3, v3, v2
    v_add_u32 v1, v1, s23
"""


def run(preset, trips, unrolled, groups=32, group=128):
    """Each thread sums `trips` dwords, one per trip, a grid's width apart (a coalesced wave load per trip)."""
    gpu = Gpu(preset)
    threads = groups * group
    source = kernel(TRIP * trips if unrolled else looped(TRIP, trips), group, threads * 4)
    launch_, src, dst = launch(gpu, source, "sum", groups, group, threads * 4 * trips)
    src.data[:] = np.random.default_rng(trips).integers(0, 256, src.size, dtype=np.uint8)
    stats = gpu.dispatch(launch_)
    expected = src.data.view(np.uint32).reshape(trips, threads).sum(axis=0, dtype=np.uint32)
    assert np.array_equal(dst.data.view(np.uint32), expected)
    return stats


@pytest.mark.parametrize("engine", ["heap", "simpy"])
@pytest.mark.parametrize("preset", [RX_7900_XTX, RTX_3070, TEACHING], ids=lambda p: p.key)
@pytest.mark.parametrize("trips", [4, 16])
def test_a_loop_costs_what_its_trips_unrolled_cost(monkeypatch, engine, preset, trips):
    monkeypatch.setenv("DMLEMU_TIMING_ENGINE", engine)
    looped, unrolled = run(preset, trips, False), run(preset, trips, True)
    # Every level moves the same sectors, per trip as unrolled.
    assert looped.timing.traffic.totals == unrolled.timing.traffic.totals
    assert looped.timing.traffic.totals["sectors"] == trips * looped.waves * (preset.wave_width * 4 //
                                                                              preset.sector_bytes) + \
        looped.waves * (preset.wave_width * 4 // preset.sector_bytes)     # the loads, then the store
    # The time: the loop adds its counter and branch per trip (three scalar instructions), nothing more:
    # within 5 % where memory bounds the kernel; on the teaching GPU (two 4-lane SIMDs) the kernel is
    # issue-bound, and the loop costs at most those instructions' issue on top.
    if preset is TEACHING:
        waves_per_simd = -(-looped.waves // (preset.compute_units * preset.simds_per_cu))
        overhead = sum(BY_MNEMONIC[m].issue_cycles for m in ("s_sub_u32", "s_cmp_lg_u32", "s_cbranch_scc1"))
        assert unrolled.cycles <= looped.cycles <= unrolled.cycles + trips * waves_per_simd * overhead
    else:
        assert abs(looped.cycles - unrolled.cycles) <= 0.05 * unrolled.cycles, (looped.cycles, unrolled.cycles)


def test_each_trip_is_its_own_access_slot():
    stats = run(TEACHING, 3, False)
    record = stats.record
    slots = sorted(record.finish())
    length = record.program_length
    loads = [slot for slot in slots if not record.accesses[slot].is_write]
    assert len(loads) == 3 and len({slot % length for slot in loads}) == 1
    assert [slot // length for slot in loads] == [0, 1, 2]
    # Per instruction, the trips are summed: the load's sectors are three trips' worth.
    load_pc = loads[0] % length
    per_load = stats.timing.traffic.per_instruction[load_pc]["sectors"]
    assert per_load == 3 * stats.waves * (TEACHING.wave_width * 4 // TEACHING.sector_bytes)
