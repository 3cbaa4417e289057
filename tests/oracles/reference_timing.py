"""A slow per-wave reference for the timing model's cohorts (emulator/timing/simd.py).

The timing model runs a SIMD's resident waves as two slot groups of cohorts that issue together.
This reference runs every wave as its own simpy process: a wave takes a free slot of a SIMD when the
workgroup dispatcher hands it out, each of its ALU runs holds the SIMD's issue port (one wave at a
time, first come first served, in simulated time) for the run's issue cycles and then waits out the
rest of its latency, and each memory instruction sends that wave's own sectors through the same
compute unit front end, miss queue and memory system classes the model uses, charged from the same
cache classification. Everything else (the ISA table's costs, the preset, the dispatch record) is
shared, so the difference between the two is the cohort approximation alone.

Use it on small dispatches: it costs a few simpy events per wave and instruction run.
"""
import bisect

import simpy

from dmlemu.timing.caches import CacheHierarchy
from dmlemu.timing.command_processor import occupancy
from dmlemu.timing.compute_unit import ComputeUnit, LevelBytes
from dmlemu.timing.events import Process
from dmlemu.timing.kernel_path import ALU, SMEM, VMEM, WAIT, PathCost, Step, access_places
from dmlemu.timing.memory_system import MemorySystem
from dmlemu.timing.simd import Simd
from dmlemu.timing.simpy_driver import SimpyDriver


class _Waiter(Process):
    """Stands for a wave in its CU's wait queue: the queue wakes it (simpy_driver.SimpyDriver.wake
    succeeds the event the wave waits for)."""


def reference_cycles(preset, wave_width, launch, stats):
    """Cycles from the dispatch's start (launch included) to its last wave's end and last store,
    simulated wave by wave. `stats` is the functional run's ExecutionStats (its dispatch record)."""
    record = stats.record
    passes = max(1, -(-wave_width // preset.simd_lanes))
    costs = {pid: PathCost(launch.program, path, passes, preset.smem_latency_percent, preset.rate_cycles(),
                           dual=preset.valu_dual_issue)
             for path, pid in record.paths.items()}
    traffic = CacheHierarchy(preset).account(record, preset.line_bytes, -(-launch.workgroup_size // wave_width),
                                             access_places(costs.values()))
    runs = {pid: _runs(cost) for pid, cost in costs.items()}
    launched = preset.launch_cycles
    env = simpy.Environment(initial_time=launched)
    driver = SimpyDriver()            # runs the CUs' wait queues in this environment
    driver.env = env
    memory = MemorySystem(preset)
    slots = occupancy(preset, launch.vgprs_used)
    simds = []
    for c in range(preset.compute_units):
        cu = ComputeUnit(c, preset, memory)
        cu.scheduler = driver
        simds += [Simd(cu, s) for s in range(preset.simds_per_cu)]
    ports = [simpy.Resource(env, capacity=1) for _ in simds]
    free = simpy.Store(env)
    for _ in range(slots):            # the first round: SIMD s of every CU, then SIMD s + 1
        for i in sorted(range(len(simds)), key=lambda i: (simds[i].index, simds[i].cu.index)):
            free.put(i)
    last = {"end": launched, "store": launched}
    per_group = -(-launch.workgroup_size // wave_width)
    sector_bytes = preset.sector_bytes

    def wave(w, i):
        simd, port = simds[i], ports[i]
        loads = []
        if preset.workgroup_slot_cycles:  # the workgroup's start on its CU holds the slot (workgroup_dispatcher.py)
            yield env.timeout(preset.workgroup_slot_cycles)
        for kind, issue, wave_cycles, step in runs[int(record.wave_path[w])]:
            if kind == ALU:
                with port.request() as req:
                    yield req
                    yield env.timeout(issue)
                if wave_cycles > issue:
                    yield env.timeout(wave_cycles - issue)
            elif kind == SMEM:
                bisect.insort(loads, env.now + step.cycles)
            elif kind == WAIT:
                while loads and loads[0] <= env.now:
                    loads.pop(0)
                if len(loads) > step.cycles:
                    yield env.timeout(loads[len(loads) - step.cycles - 1] - env.now)
                    del loads[:len(loads) - step.cycles]
            else:
                with port.request() as req:
                    yield req
                    yield env.timeout(step.cycles)
                (sectors, lines, _, ic_hits, dram_reads, dram_writes, ic_writes, host, activations, l0_hits, far_hits,
                 tlb_misses, tlb_walks, l1_hits) = traffic.cohort(step.slot, w, 1)
                arrive = simd.cu.look_up(env.now + step.latency, lines) if lines else env.now
                done = arrive
                if l0_hits or l1_hits:     # the CU-side caches' hits: no L2 trip; data through the L0's path
                    done = (simd.cu.hit_data(arrive, (l0_hits + l1_hits) * sector_bytes)
                            + (preset.l1_latency_cycles if l1_hits else preset.l0_latency_cycles))
                arrive += (preset.tlb_l1_miss_cycles if tlb_misses else 0) + (preset.tlb_walk_cycles if tlb_walks else 0)
                # A far L2 hit's crossing: after the L2, in the miss queue (a DRAM read's latency covers it).
                hop = (max(0, preset.l2_far_latency_cycles - preset.l2_latency_cycles)
                       if far_hits and not dram_reads else 0)
                sectors -= l0_hits + l1_hits
                if sectors:
                    level_bytes = LevelBytes(sectors * sector_bytes, (ic_hits + ic_writes) * sector_bytes,
                                             (dram_reads + dram_writes) * sector_bytes, ic_hits * sector_bytes,
                                             dram_reads * sector_bytes, host * sector_bytes, activations)
                    sent = simd.cu.try_issue(arrive, sectors, step.is_write, *level_bytes, hop)
                    if sent < 0:
                        waiter = _Waiter()
                        request = simd.cu.wait_for_room(env.now, arrive, sectors, *level_bytes[:6], step.is_write, waiter,
                                                        activations, hop)
                        yield driver.waiting.setdefault(waiter, env.event())
                        sent = request.done
                    done = max(done, sent)
                if step.is_write:
                    last["store"] = max(last["store"], done)
                else:
                    bisect.insort(loads, done)
        last["end"] = max(last["end"], env.now)
        free.put(i)

    def dispatcher():
        next_launch, carry = launched, 0
        for w in range(record.total_waves):
            i = yield free.get()
            if w % per_group == 0:            # a workgroup starts: the dispatcher's launch cost, shared by
                if next_launch > env.now:     # its parallel launchers (carried in integers)
                    yield env.timeout(next_launch - env.now)
                spent = preset.workgroup_launch_cycles + carry
                next_launch = env.now + spent // preset.workgroup_launchers
                carry = spent % preset.workgroup_launchers
            env.process(wave(w, i))

    env.process(dispatcher())
    env.run()
    return max(last["end"], last["store"])


def _runs(cost):
    """(kind, port cycles, wave cycles, step) for one wave: an ALU run holds the port for its issue
    cycles and the wave for max(issue, latency) per instruction."""
    runs = []
    for segment in cost.segments:
        if isinstance(segment, Step):
            runs.append((segment.kind, segment.cycles, segment.cycles, segment))
        else:
            _, pairs, first, last = segment
            issue = sum(i for i, _ in pairs)
            runs.append((ALU, issue, sum(max(i, lat) for i, lat in pairs), None))
    return runs
