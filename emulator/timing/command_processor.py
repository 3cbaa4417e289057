"""The command processor: turns queue work into timed GPU activity (the timing model's top).

One per GPU. It charges `submit_cycles` per ExecuteCommandLists and `launch_cycles` per dispatch
(reading the packet, setting up the kernel), then simulates the dispatch with simpy: the workgroup
dispatcher feeds waves to every SIMD of every compute unit, the SIMDs run cohorts of waves
through the kernel's path and the memory system serves their requests. The dispatch ends when
the last wave has ended and its last store is acknowledged, plus `flush_cycles` (wait for idle,
write back caches, signal completion). Dispatches run one after another, as if a UAV barrier
separated each pair (see docs/DEVIATIONS.md). Functional results never depend on any of this.
"""
import numpy as np
import simpy

from dmlemu.timing.compute_unit import ComputeUnit, PathCost, Simd
from dmlemu.timing.memory_system import MemorySystem
from dmlemu.timing.workgroup_dispatcher import WorkgroupDispatcher


def occupancy(preset, vgprs_used):
    """Resident waves per SIMD: its wave slots, limited by the vector register file.

    Registers are allocated in granules of 8 per lane; a SIMD's file holds
    vgprs_per_simd_lane registers per lane in all.
    """
    allocated = max(8, -(-vgprs_used // 8) * 8)
    return max(1, min(preset.waves_per_simd, preset.vgprs_per_simd_lane // allocated))


class DispatchSimulation:
    """The state one dispatch's simulation shares between the SIMD processes."""

    def __init__(self, preset, launch, stats, wave_width, start_cycle, recorder):
        self.preset = preset
        self.stats = stats
        self.recorder = recorder
        self.passes = max(1, -(-wave_width // preset.simd_lanes))
        self.scalar_latency = preset.scalar_latency_cycles
        per_group = -(-launch.workgroup_size // wave_width)
        wave_path = np.zeros(stats.waves, dtype=np.int32)
        for waves, path_id in stats.wave_path:
            wave_path[waves] = path_id
        self.path_costs = {pid: PathCost(launch.program, path, self.passes) for path, pid in stats.paths.items()}
        self.dispatcher = WorkgroupDispatcher(stats.waves, per_group, preset.workgroup_launch_cycles,
                                              start_cycle, wave_path)
        # Bytes per memory instruction, handed out to cohorts so that the totals are exact: a
        # cohort of k waves gets floor(total * (done + k) / waves) - floor(total * done / waves).
        self._bytes = {int(pc): (int(stats.memory_bytes[pc]), int(stats.dram_bytes[pc]),
                                 max(1, int(stats.instruction_waves[pc])))
                       for pc in np.flatnonzero(stats.memory_bytes)}
        self._waves_done = {pc: 0 for pc in self._bytes}

    def take_waves(self, now, slots):
        return self.dispatcher.take(now, slots)

    def split_by_path(self, first, count):
        return self.dispatcher.split_by_path(first, count)

    def cohort_bytes(self, pc, waves):
        """(bytes, DRAM bytes) a cohort of `waves` waves moves with the memory instruction at pc."""
        entry = self._bytes.get(pc)
        if entry is None:
            return 0, 0
        total, dram, executed = entry
        done = self._waves_done[pc]
        self._waves_done[pc] = done + waves
        return (total * (done + waves) // executed - total * done // executed,
                dram * (done + waves) // executed - dram * done // executed)


class CommandProcessor:
    """Charges command overheads and runs each dispatch's timing simulation."""

    def __init__(self, preset, wave_width):
        self.preset = preset
        self.wave_width = wave_width

    def submit_cycles(self):
        return self.preset.submit_cycles

    def simulate_dispatch(self, launch, stats, start_cycle, recorder=None):
        """Cycles the dispatch takes from `start_cycle`; fills stats.timing."""
        preset = self.preset
        launched = start_cycle + preset.launch_cycles
        if recorder is not None:
            recorder.begin_dispatch(launch, stats, start_cycle)
        if stats.waves == 0:
            end = launched + preset.flush_cycles
            stats.timing = DispatchTiming(start_cycle, end, 0, MemorySystem(preset), [])
            if recorder is not None:
                recorder.end_dispatch(stats, end)
            return end - start_cycle
        env = simpy.Environment(initial_time=launched)
        sim = DispatchSimulation(preset, launch, stats, self.wave_width, launched, recorder)
        memory = MemorySystem(preset, recorder)
        slots = occupancy(preset, launch.vgprs_used)
        simds = []
        for c in range(preset.compute_units):
            cu = ComputeUnit(c, preset, memory)
            for s in range(preset.simds_per_cu):
                simd = Simd(cu, s, slots, sim)
                simds.append(simd)
        # SIMD s of every CU asks first, then SIMD s+1: work spreads over all CUs.
        order = sorted(range(len(simds)), key=lambda i: (simds[i].index, simds[i].cu.index))
        for i in order:
            env.process(simds[i].run(env))
        env.run()
        last_wave = int(env.now)
        last_store = max([s.last_store for s in simds] + [last_wave])
        end = last_store + preset.flush_cycles
        stats.timing = DispatchTiming(start_cycle, end, slots, memory, simds)
        if recorder is not None:
            recorder.end_dispatch(stats, end)
        return end - start_cycle


class DispatchTiming:
    """What the timing model measured for one dispatch."""

    def __init__(self, start, end, slots, memory, simds):
        self.start_cycle = start
        self.end_cycle = end
        self.waves_per_simd = slots
        self.dram_bytes = memory.dram.bytes
        self.dram_busy_cycles = memory.dram.busy_cycles
        self.simd_busy_cycles = sum(s.busy_cycles for s in simds)
        self.simds = len(simds)
