"""The command processor: turns queue work into timed GPU activity (the timing model's top).

One per GPU. It charges `submit_cycles` per ExecuteCommandLists and `launch_cycles` per dispatch
(reading the packet, setting up the kernel), then simulates the dispatch with simpy: the workgroup
dispatcher feeds waves to every SIMD of every compute unit, the SIMDs run cohorts of waves
through the kernel's path and the memory system serves their requests. The dispatch ends when
the last wave has ended and its last store is acknowledged.

Pipelined: the command processor is free for the next command once the dispatch's last waves have
been handed to SIMDs, so a dispatch with no barrier before it launches while the previous one
drains; its waves take each SIMD as that SIMD frees up (`simd_free`), and its memory requests queue
behind the previous dispatch's in the device's one memory system. A barrier (Gpu.barrier: any
ResourceBarrier, and the end of an ExecuteCommandLists) waits for idle and costs `flush_cycles`
(wait, invalidate the CUs' own caches, signal); a release (a transition out of UAV use, the end of
an ExecuteCommandLists) also writes the L2's dirty sectors back: `release_cycles`. Functional results
never depend on any of this.
"""
import os

import numpy as np
import simpy

from dmlemu.timing.caches import CacheHierarchy
from dmlemu.timing.compute_unit import ComputeUnit
from dmlemu.timing.kernel_path import PathCost
from dmlemu.timing.memory_system import MemorySystem
from dmlemu.timing.simd import Simd
from dmlemu.timing.workgroup_dispatcher import WorkgroupDispatcher

try:       # the compiled twin of the simpy model (cohort_engine.pyx), built by setup.py where a compiler is
    from dmlemu.timing import cohort_engine
except ImportError:
    cohort_engine = None


def engine():
    """The engine that runs dispatches: "compiled" (cohort_engine.pyx) when it was built, else "simpy"
    (the Python model, the reference; same cycles). DMLEMU_TIMING_ENGINE=simpy picks the reference."""
    if cohort_engine is None or os.environ.get("DMLEMU_TIMING_ENGINE", "").lower() == "simpy":
        return "simpy"
    return "compiled"


def occupancy(preset, vgprs_used):
    """Resident waves per SIMD: its wave slots, limited by the vector register file.

    Registers are allocated in granules of 8 per lane; a SIMD's file holds
    vgprs_per_simd_lane registers per lane in all.
    """
    allocated = max(8, -(-vgprs_used // 8) * 8)
    return max(1, min(preset.waves_per_simd, preset.vgprs_per_simd_lane // allocated))


class DispatchSimulation:
    """The state one dispatch's simulation shares between the SIMD processes."""

    def __init__(self, preset, launch, record, traffic, wave_width, start_cycle, recorder):
        self.preset = preset
        self.recorder = recorder
        self.passes = max(1, -(-wave_width // preset.simd_lanes))
        self.sector_bytes = preset.sector_bytes
        self.traffic = traffic
        per_group = -(-launch.workgroup_size // wave_width)
        rates = preset.rate_cycles()
        self.path_costs = {pid: PathCost(launch.program, path, self.passes, preset.smem_latency_percent, rates)
                           for path, pid in record.paths.items()}
        self.dispatcher = WorkgroupDispatcher(record.total_waves, per_group, preset.workgroup_launch_cycles,
                                              start_cycle, record.wave_path, preset.workgroup_launchers)


class CommandProcessor:
    """Charges command overheads and runs each dispatch's timing simulation."""

    def __init__(self, preset, wave_width):
        self.preset = preset
        self.wave_width = wave_width
        self.caches = CacheHierarchy(preset)   # lives as long as the device: state carries over
        self.memory = MemorySystem(preset)      # so do the bandwidth queues of L2, Infinity Cache, DRAM
        self.compute_units = [ComputeUnit(c, preset, self.memory) for c in range(preset.compute_units)]
        self.simd_free = [0] * (preset.compute_units * preset.simds_per_cu)   # cycle each SIMD frees up

    def release_cycles(self):
        """Write the L2's dirty sectors back (CacheHierarchy.write_back_l2); returns the cycles the
        command processor waits for it: the bytes at the bandwidth of the level they go to (the
        slower level bounds it), plus that level's latency for the last write to be acknowledged.
        0 when nothing was dirty."""
        p = self.preset
        ic_sectors, dram_sectors = self.caches.write_back_l2()
        cycles = 0
        if ic_sectors:
            ic_bytes = ic_sectors * p.sector_bytes
            cycles = -(-ic_bytes * p.clock_hz // p.infinity_cache_bytes_per_second) + p.infinity_cache_latency_cycles
        if dram_sectors:
            dram_bytes = dram_sectors * p.sector_bytes
            cycles = max(cycles, -(-dram_bytes * p.clock_hz // p.dram_bytes_per_second) + p.dram_latency_cycles)
        return cycles

    def simulate_dispatch(self, launch, stats, start_cycle, recorder=None):
        """Simulate a dispatch whose packet the command processor reads at `start_cycle`; fills
        stats.timing. Returns (cycle at which its last waves had a SIMD: the command processor
        may go on, cycle at which its last wave ended and its last store was acknowledged)."""
        preset = self.preset
        launched = start_cycle + preset.launch_cycles
        if recorder is not None:
            recorder.begin_dispatch(launch, stats, start_cycle)
        record = stats.record
        traffic = self.caches.account(record, preset.line_bytes)
        memory = self.memory
        memory.attach(recorder)
        before = (memory.dram.bytes, memory.dram.busy_cycles, memory.dram.turnarounds)
        if stats.waves == 0:
            stats.timing = DispatchTiming(start_cycle, launched, 0, memory, before, [], traffic, preset)
            if recorder is not None:
                recorder.end_dispatch(stats, launched)
            return launched, launched
        sim = DispatchSimulation(preset, launch, record, traffic, self.wave_width, launched, recorder)
        slots = occupancy(preset, launch.vgprs_used)
        simds = []
        for cu in self.compute_units:
            for s in range(preset.simds_per_cu):
                simds.append(Simd(cu, s, slots, sim, free_at=self.simd_free[len(simds)]))
        # Group 0 of SIMD s of every CU asks first, then SIMD s+1, then the next group: work
        # spreads over all CUs.
        order = [(g, simd) for g, _, _, simd in sorted(((g, simd.index, simd.cu.index, simd) for simd in simds
                                                         for g in range(len(simd.group_slots))),
                                                        key=lambda k: k[:3])]
        last_wave = None
        if engine() == "compiled":
            last_wave = cohort_engine.run(sim, simds, order, self.compute_units, memory, launched)
        if last_wave is None:       # the simpy model (the reference)
            env = simpy.Environment(initial_time=launched)
            for g, simd in order:
                env.process(simd.run(env, g))
            env.run()
            last_wave = int(env.now)
        end = max([s.last_store for s in simds] + [last_wave])
        self.simd_free = [s.free_at for s in simds]
        stats.timing = DispatchTiming(start_cycle, end, slots, memory, before, simds, traffic, preset)
        if recorder is not None:
            recorder.end_dispatch(stats, end)
        return max(launched, sim.dispatcher.handed_out), end


class DispatchTiming:
    """What the timing model measured for one dispatch."""

    def __init__(self, start, end, slots, memory, before, simds, traffic, preset):
        self.start_cycle = start
        self.end_cycle = end
        self.waves_per_simd = slots
        self.dram_bytes = memory.dram.bytes - before[0]     # this dispatch's share of the device's DRAM
        self.traffic = traffic                 # caches.DispatchTraffic: per level and instruction
        self.sector_bytes = preset.sector_bytes
        self.dram_busy_cycles = memory.dram.busy_cycles - before[1]
        self.dram_turnarounds = memory.dram.turnarounds - before[2]   # read/write bus turnarounds (memory_system.py)
        self.simd_busy_cycles = sum(s.busy_cycles for s in simds)
        self.simds = len(simds)
