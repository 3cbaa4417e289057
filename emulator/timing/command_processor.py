"""The command processor: turns queue work into timed GPU activity (the timing model's top).

One per GPU. It charges `submit_cycles` per ExecuteCommandLists and `launch_cycles` per dispatch
(reading the packet, setting up the kernel), then simulates the dispatch: the workgroup
dispatcher feeds waves to every SIMD of every compute unit, the SIMDs run cohorts of waves
through the kernel's path and the memory system serves their requests. The dispatch ends when
the last wave has ended and its last store is acknowledged. The units (physics.py: compiled or
interpreted) live as long as the device; a driver runs their processes for one dispatch: the event
heap (events.py), or simpy (simpy_driver.py, the reference order) with DMLEMU_TIMING_ENGINE=simpy.

Pipelined: the command processor is free for the next command once the dispatch's last waves have
been handed to SIMDs, so a dispatch with no barrier before it launches while the previous one
drains; its waves take each SIMD as that SIMD frees up (`Simd.free_at`), and its memory requests queue
behind the previous dispatch's in the device's one memory system. A barrier (Gpu.barrier: any
ResourceBarrier, and the end of an ExecuteCommandLists) waits for idle and costs `flush_cycles`
(wait, invalidate the CUs' own caches, signal); a release (a transition out of UAV use, the end of
an ExecuteCommandLists) also writes the L2's dirty sectors back: `release_cycles`. Functional results
never depend on any of this.

The memory side's state. Where a preset has `dram_lone_latency_cycles` (the RX 6800 XT: AMD's
Infinity Fabric, between the L2 and the Infinity Cache and memory controllers, is clocked down while
few requests are outstanding), a dispatch of fewer waves than the DRAM has channels (a lone pointer
chase: at most one request per channel in flight) finds the memory side idle and its DRAM reads take
that latency; every other dispatch keeps it busy and they take dram_latency_cycles. The state is
chosen per dispatch (a clock changes state over microseconds, not per request); copies and releases
are bulk transfers (busy). Sources and the figures: presets.py's RX 6800 XT row.
"""
import os

from dmlemu.timing import physics
from dmlemu.timing import simd as simd_module
from dmlemu.timing.caches import CacheHierarchy
from dmlemu.timing.events import EventHeap
from typing import NamedTuple

from dmlemu.timing.kernel_path import PathCost, access_places, cooperative
from dmlemu.timing.simpy_driver import SimpyDriver


def engine():
    """The driver that runs dispatches: "heap" (events.EventHeap, compiled or not: the default) or
    "simpy" (simpy_driver.SimpyDriver, the reference order). Both run the same units and give the same
    cycles; DMLEMU_TIMING_ENGINE=simpy or =heap picks one."""
    return "simpy" if os.environ.get("DMLEMU_TIMING_ENGINE", "").lower() == "simpy" else "heap"


def occupancy(preset, vgprs_used):
    """Resident waves per SIMD: its wave slots, limited by the vector register file.

    Registers are allocated in granules of 8 per lane; a SIMD's file holds
    vgprs_per_simd_lane registers per lane in all.
    """
    allocated = max(8, -(-vgprs_used // 8) * 8)
    return max(1, min(preset.waves_per_simd, preset.vgprs_per_simd_lane // allocated))


class WorkgroupOccupancy(NamedTuple):
    """Where a kernel whose workgroups cooperate (LDS or s_barrier) runs: whole workgroups per SIMD."""
    per_cu: int              # resident workgroups per compute unit
    per_simd: tuple          # resident workgroups on each SIMD of a CU (per_cu spread over them)
    waves_per_group: int
    limiter: str             # "LDS", "workgroup size", "VGPRs" or "wave slots"


def workgroup_occupancy(preset, vgprs_used, lds_bytes, waves_per_group):
    """Resident workgroups of a kernel with LDS or barriers. A workgroup's waves stay together on one
    SIMD's slot group (simd.py: a cohort holds whole workgroups), so a SIMD holds as many whole
    workgroups as its wave slots (limited by the VGPRs) take; a CU as many as its LDS holds
    (lds_bytes_per_cu // lds_bytes), spread over its SIMDs (SIMD s gets one more while s < the
    remainder). The limiter is the bound that set the count: "LDS" when the LDS holds fewer than
    the slots would, "workgroup size" when whole workgroups leave slots empty (or one workgroup
    has more waves than a SIMD has slots: it is then given one SIMD anyway, a deviation:
    docs/DEVIATIONS.md), else "VGPRs" or "wave slots" as for occupancy()."""
    waves = occupancy(preset, vgprs_used)
    simds = preset.simds_per_cu
    fit = waves // waves_per_group
    by_slots = simds * max(1, fit)
    by_lds = preset.lds_bytes_per_cu // lds_bytes if lds_bytes else by_slots
    per_cu = max(1, min(by_slots, by_lds))
    if by_lds < by_slots:
        limiter = "LDS"
    elif fit == 0 or fit * waves_per_group < waves:
        limiter = "workgroup size"
    elif waves < preset.waves_per_simd:
        limiter = "VGPRs"
    else:
        limiter = "wave slots"
    per_simd = tuple(per_cu // simds + (1 if s < per_cu % simds else 0) for s in range(simds))
    return WorkgroupOccupancy(per_cu, per_simd, waves_per_group, limiter)


class CommandProcessor:
    """Charges command overheads and runs each dispatch's timing simulation."""

    def __init__(self, preset, wave_width):
        self.preset = preset
        self.wave_width = wave_width
        # The units live as long as the device, so every dispatch continues the state of the last.
        units = physics.modules(preset)
        self.physics = "compiled" if physics.compiled(units["simd"]) else "interpreted"
        self.units = units
        self.caches = CacheHierarchy(preset, units["cu_caches"].cu_side_hits)
        self.memory = units["memory_system"].MemorySystem(preset)   # L2, Infinity Cache, DRAM bandwidth
        self.compute_units = [units["compute_unit"].ComputeUnit(c, preset, self.memory)
                              for c in range(preset.compute_units)]
        self.simds = [units["simd"].Simd(cu, s) for cu in self.compute_units for s in range(preset.simds_per_cu)]

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

    def _memory_state(self, memory, waves):
        """Set the DRAM latency of the dispatch's reads from the memory side's state (see the banner): idle
        (dram_lone_latency_cycles) for a dispatch of fewer waves than the DRAM has channels, else busy
        (dram_latency_cycles); a row hit waits tRP + tRCD less in either."""
        p = self.preset
        latency = p.dram_latency_cycles
        if p.dram_lone_latency_cycles and waves < max(1, p.dram_channels):
            latency = p.dram_lone_latency_cycles
        memory.set_dram_latency(latency)

    def _check_64_bits(self, launched):
        """Refuse a dispatch whose byte-time would leave the compiled build's exact range (physics.py)."""
        if self.physics != "compiled":
            return
        memory = self.memory
        servers = [memory.l2, memory.dram] + ([memory.infinity_cache] if memory.infinity_cache is not None else [])
        if memory.host_link is not None:
            servers += [memory.host_link.to_device, memory.host_link.to_host]
        top = max([launched * max(s.units_per_cycle for s in servers)] + [s.free_units for s in servers]
                  + [memory.dram.stream_end or 0])
        if top >= physics.START_LIMIT:
            raise OverflowError(f"a dispatch starting at cycle {launched} reaches {top} byte-time units; the "
                                f"compiled timing units count below 2^60 exactly (emulator/timing/physics.py): "
                                f"run this device with DMLEMU_TIMING_PHYSICS=interpreted")

    def simulate_dispatch(self, launch, stats, start_cycle, recorder=None):
        """Simulate a dispatch whose packet the command processor reads at `start_cycle`; fills
        stats.timing. Returns (cycle at which its last waves had a SIMD: the command processor
        may go on, cycle at which its last wave ended and its last store was acknowledged)."""
        with physics.collector_paused():
            return self._simulate(launch, stats, start_cycle, recorder)

    def _simulate(self, launch, stats, start_cycle, recorder):
        """simulate_dispatch's work."""
        preset = self.preset
        launched = start_cycle + preset.launch_cycles
        if stats.waves:
            self._check_64_bits(launched)      # before anything changes
        if recorder is not None:
            recorder.begin_dispatch(launch, stats, start_cycle)
        record = stats.record
        units = self.units
        passes = max(1, -(-self.wave_width // preset.simd_lanes))
        rates = preset.rate_cycles()
        path_costs = {pid: PathCost(launch.program, path, passes, preset.smem_latency_percent, rates,
                                    preset.lds_latency_cycles, preset.barrier_cycles, preset.valu_dual_issue)
                      for path, pid in record.paths.items()}
        traffic = self.caches.account(record, preset.line_bytes, -(-launch.workgroup_size // self.wave_width),
                                      access_places(path_costs.values()))
        memory = self.memory
        memory.attach(recorder)
        self._memory_state(memory, record.total_waves)
        before = (memory.dram.bytes, memory.dram.busy_cycles, memory.dram.turnarounds, _host_link_bytes(memory))
        if stats.waves == 0:
            stats.timing = DispatchTiming(start_cycle, launched, 0, memory, before, [], traffic, preset)
            if recorder is not None:
                recorder.end_dispatch(stats, launched)
            return launched, launched
        per_group = -(-launch.workgroup_size // self.wave_width)
        dispatcher = units["workgroup_dispatcher"].WorkgroupDispatcher(
            record.total_waves, per_group, preset.workgroup_launch_cycles, launched, record.wave_path,
            preset.workgroup_launchers, preset.workgroup_slot_cycles)
        work = units["simd"].CohortWork(dispatcher, path_costs, traffic, preset.sector_bytes, recorder,
                                        record.lds, record.atomic_lanes, record.accesses,
                                        preset.l2_atomics_per_cycle)
        # The latencies of the CUs' caches, the TLBs and the far L2 partition (caches.py, simd.py).
        work.l0_latency = preset.l0_latency_cycles
        work.l1_latency = preset.l1_latency_cycles
        work.tlb_miss_cycles = preset.tlb_l1_miss_cycles
        work.walk_cycles = preset.tlb_walk_cycles
        work.far_cycles = max(0, preset.l2_far_latency_cycles - preset.l2_latency_cycles)
        groups = []
        if cooperative(launch.program, launch.lds_bytes):
            # Whole workgroups per slot group: a workgroup's waves share one cohort (simd.py).
            resident = workgroup_occupancy(preset, launch.vgprs_used, launch.lds_bytes, per_group)
            slots = max(resident.per_simd) * per_group
            limiter = resident.limiter
            for simd in self.simds:
                groups += simd.begin_dispatch(resident.per_simd[simd.index] * per_group, work,
                                              simd_module.ISSUE_GROUPS, per_group)
        else:
            slots = occupancy(preset, launch.vgprs_used)
            limiter = "VGPRs" if slots < preset.waves_per_simd else "wave slots"
            for simd in self.simds:
                groups += simd.begin_dispatch(slots, work, simd_module.ISSUE_GROUPS)
        # Group 0 of SIMD s of every CU asks first, then SIMD s+1, then the next group: work
        # spreads over all CUs.
        groups.sort(key=lambda g: (g.group, g.simd.index, g.cu.index))
        # A small grid spreads over the slot groups, whole workgroups where they cooperate
        # (workgroup_dispatcher.py).
        dispatcher.spread(len(groups), per_group if cooperative(launch.program, launch.lds_bytes) else 1)
        # The interpreted units come with their own copy of the heap (physics.interpreted).
        heap = units["events"].EventHeap if "events" in units else EventHeap
        driver = SimpyDriver() if engine() == "simpy" else heap(len(groups) + len(self.compute_units))
        for cu in self.compute_units:
            cu.scheduler = driver
        lds_before = sum(cu.lds_passes for cu in self.compute_units)
        atomics_before = memory.atomic_ops
        last_wave = driver.run(groups, launched)
        for cu in self.compute_units:
            cu.scheduler = None
        if recorder is not None:
            recorder.wave_groups(*work.wave_group_columns())
        end = max([s.last_store for s in self.simds] + [last_wave])
        barrier_cycles = sum(s.barrier_cycles for s in self.simds)
        for simd in self.simds:
            simd.end_dispatch()
        stats.timing = DispatchTiming(start_cycle, end, slots, memory, before, self.simds, traffic, preset)
        stats.timing.occupancy_limiter = limiter
        stats.timing.barrier_wait_cycles = barrier_cycles
        stats.timing.lds_passes = sum(cu.lds_passes for cu in self.compute_units) - lds_before
        stats.timing.atomic_operations = memory.atomic_ops - atomics_before
        if recorder is not None:
            recorder.end_dispatch(stats, end)
        return max(launched, dispatcher.handed_out), end


def _host_link_bytes(memory):
    """Bytes the memory system's host link has carried, both directions (0 without a link)."""
    link = memory.host_link
    return 0 if link is None else link.to_device.bytes + link.to_host.bytes


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
        self.host_bytes = _host_link_bytes(memory) - before[3]   # bytes over the host link, both directions
        self.simd_busy_cycles = sum(s.busy_cycles for s in simds)
        self.simds = len(simds)
        # Resident waves per SIMD were limited by: "wave slots", "VGPRs", and for a kernel with LDS or
        # barriers "LDS" or "workgroup size" (workgroup_occupancy); "" when no wave ran.
        self.occupancy_limiter = ""
        self.barrier_wait_cycles = 0      # wave-cycles spent at s_barrier (simd.py)
        self.lds_passes = 0               # LDS bank-conflict passes the CUs' LDS pipes served
        self.atomic_operations = 0        # L2 atomic operations (memory_system.py)
