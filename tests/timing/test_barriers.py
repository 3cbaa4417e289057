"""s_barrier in the timing model: a kernel with barriers keeps each workgroup's waves in one cohort
(whole workgroups per slot group), each barrier costs the preset's barrier_cycles, and the dispatch
counts the wave-cycles spent at barriers (emulator/timing/simd.py, kernel_path.py)."""
import dataclasses

import pytest

from dmlemu.presets import RTX_3070, RX_7900_XTX, TEACHING
from dmlemu.timing.kernel_path import BARRIER, PathCost, cooperative
from dmlemu.tools import lds_microbench as mb


@pytest.mark.parametrize("preset", [RX_7900_XTX, RTX_3070, TEACHING])
def test_a_barrier_costs_the_presets_barrier_cycles(preset):
    # per barrier: barrier_cycles, plus the loop's 3 scalar instructions per UNROLL barriers, each issued
    # by every wave of the cohort (one workgroup)
    waves = min(256, preset.workgroup_size * 4) // preset.wave_width
    assert mb.barrier(preset) == pytest.approx(preset.barrier_cycles + 3 * waves / mb.UNROLL, abs=0.01)


def test_barrier_wait_cycles_are_counted_per_wave():
    preset = RX_7900_XTX
    trips, group, groups = 3, 256, 10
    stats = mb.run(preset, mb.barrier_source(trips), groups, group)
    waves = groups * group // preset.wave_width
    assert stats.timing.barrier_wait_cycles == waves * trips * mb.UNROLL * preset.barrier_cycles
    assert stats.barriers > 0


def test_dearer_barriers_make_the_dispatch_slower_by_their_cost():
    preset = RX_7900_XTX
    source = mb.barrier_source(4)
    cheap = mb.run(preset, source, 1, 256).cycles
    dear = mb.run(dataclasses.replace(preset, barrier_cycles=preset.barrier_cycles + 10), source, 1, 256).cycles
    assert dear - cheap == 4 * mb.UNROLL * 10


def test_kernels_without_lds_or_barriers_are_not_cooperative_and_cost_no_barrier_steps():
    barrier_kernel = mb.Program(mb.assemble(mb.barrier_source(1)), "b")
    plain = mb.Program(mb.assemble("    v_mov_b32 v1, 0\n    s_endpgm\n"), "p")
    assert cooperative(barrier_kernel) and not cooperative(plain) and cooperative(plain, lds_bytes=4)
    steps, _ = PathCost(barrier_kernel, range(len(barrier_kernel.records)), 1, 100, None, 30, 7).schedule(4)
    assert [s.cycles for s in steps if s.kind == BARRIER] == [7] * mb.UNROLL


def test_whole_workgroups_share_a_cohort():
    # 256-thread workgroups (8 waves) on 16-slot SIMDs in 2 slot groups: every cohort is one workgroup.
    from dmlemu.traces import capture
    preset = RX_7900_XTX
    gpu = mb.Gpu(preset)
    with capture(gpu, detail="wave") as cap:
        gpu.dispatch(mb.KernelLaunch(mb.Program(mb.assemble(mb.barrier_source(1)), "b"), 500, 256, (0, 0)))
    rows = cap.trace.tables["wave_groups"]
    assert set(rows["waves"].tolist()) == {8}
    assert set((rows["first_wave"] % 8).tolist()) == {0}
