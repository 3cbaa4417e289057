"""The memory side's idle and busy states (timing/command_processor.py's banner; the RX 6800 XT preset):
a dispatch of fewer waves than the DRAM has channels finds it idle and its DRAM reads take
dram_lone_latency_cycles (a lone pointer chase: te42kyfo's 572 ns on the RX 6900 XT), every other
dispatch keeps it busy (dram_latency_cycles: Chips and Cheese's 226 ns); presets without the field
keep one latency. And gpu-stream's read kernel at 128-thread groups, the point the busy latency and the
workgroup slot time are checked on, not fitted to."""
import dataclasses
import os
import sys

import pytest

from dmlemu.functional.wave_dispatcher import KernelLaunch
from dmlemu.gpu import Gpu
from dmlemu.isa.assembler import assemble
from dmlemu.isa.program import Program
from dmlemu.presets import RTX_3070, RX_6800_XT, preset_problem

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "bench")
if BENCH not in sys.path:
    sys.path.insert(0, BENCH)

from microbench import benchmarks, published  # noqa: E402
from microbench.rig import BenchRig  # noqa: E402

ALU = Program(assemble("    v_mad_f32 v2, v4, v6, v8\n    s_endpgm\n"), "alu")


def _latencies_after(preset, waves):
    """(dram_latency, row_hit_latency) the memory system holds after a dispatch of `waves` one-wave groups."""
    gpu = Gpu(preset)
    gpu.dispatch(KernelLaunch(ALU, waves, preset.wave_width, (0, 0), vgprs_used=10, sgprs_used=4))
    memory = gpu.command_processor.memory
    return memory.dram_latency, memory.row_hit_latency


@pytest.mark.parametrize("waves", [1, RX_6800_XT.dram_channels - 1])
def test_a_dispatch_of_fewer_waves_than_channels_finds_the_memory_side_idle(waves):
    miss = RX_6800_XT.dram_row_miss_cycles()
    lone = RX_6800_XT.dram_lone_latency_cycles
    assert lone > RX_6800_XT.dram_latency_cycles > miss > 0
    assert _latencies_after(RX_6800_XT, waves) == (lone, lone - miss)


@pytest.mark.parametrize("waves", [RX_6800_XT.dram_channels, 4 * RX_6800_XT.dram_channels])
def test_a_dispatch_of_as_many_waves_as_channels_keeps_it_busy(waves):
    busy = RX_6800_XT.dram_latency_cycles
    assert _latencies_after(RX_6800_XT, waves) == (busy, busy - RX_6800_XT.dram_row_miss_cycles())


@pytest.mark.parametrize("waves", [1, 64])
def test_a_preset_without_an_idle_state_keeps_one_latency(waves):
    assert RTX_3070.dram_lone_latency_cycles == 0
    busy = RTX_3070.dram_latency_cycles
    assert _latencies_after(RTX_3070, waves) == (busy, busy - RTX_3070.dram_row_miss_cycles())


def test_an_idle_latency_below_a_row_miss_is_refused():
    bad = dataclasses.replace(RX_6800_XT, dram_lone_latency_cycles=RX_6800_XT.dram_row_miss_cycles() - 1)
    assert "dram_lone_latency_cycles" in preset_problem(bad)
    assert preset_problem(RX_6800_XT) is None


def test_rx6800xt_stream_at_128_thread_groups_meets_the_sibling_within_its_bar():
    """gpu-stream's read kernel, 2 groups of 128 threads per CU (4 waves per SIMD, as the RX 6900 XT's
    32 KiB LDS spoiler allows per CU): latency bound, so below DRAM peak, and within the suite's 30 % of
    the sibling's 398 GB/s (0.64x with the lone chase's latency for every read: docs/FIDELITY.md)."""
    assert benchmarks.stream_waves_per_simd(RX_6800_XT, 128) == 4
    rate = benchmarks.occupancy_gbs(BenchRig(RX_6800_XT.key), RX_6800_XT, 128)
    row = published.lookup("rx6800xt", "occupancy", "block 128")
    assert rate < 0.9 * RX_6800_XT.dram_bytes_per_second / 1e9
    assert abs(rate / row.value - 1) <= published.bar(row), rate
