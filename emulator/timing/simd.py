"""SIMDs: where waves issue instructions and wait for memory (timing).

`preset.simds_per_cu` per compute unit. A SIMD holds up to `occupancy` resident waves (wave slots,
limited by the kernel's vector registers) and issues one instruction per cycle from any of them; a
wave wider than the SIMD takes several passes (wave64 on a 32-lane SIMD: 2).

Its slots are split into ISSUE_GROUPS slot groups, each one simpy process over *cohorts*: a group
takes as many waves as it has free slots from the workgroup dispatcher, runs them through the
kernel's path together (kernel_path.py gives the steps, from the ISA table), and takes the next
cohort when they end. The groups share the SIMD's issue port (IssuePort, a calendar of booked
cycles), so while one group's cohort waits for memory, the other's issues: the overlap of
computation with memory latency that a real SIMD gets from switching between its resident waves,
at the granularity of two groups (docs/DEVIATIONS.md).

    AluStep     the step's cycles are booked on the issue port, at the first gap from the cohort's clock
    SmemStep    the scalar data returns the step's latency later
    WaitStep    s_waitcnt n: the clock moves to when at most n of the cohort's loads are outstanding
    VmemStep    one issue pass per wave, booked on the port; then the CU's cache front end looks
                up the lines the cohort's waves touched, and the request's sectors go through the
                CU's miss queue to the memory system, charged as the caches classified them (caches.py)
    s_endpgm    the cohort ends; stores may still be in flight

This is the representation that avoids one Python process per wave: a 16M-element dispatch is a
few thousand cohorts per SIMD, each a handful of simpy events.
"""
import bisect

from dmlemu.timing.compute_unit import LevelBytes
from dmlemu.timing.kernel_path import ALU, SMEM, VMEM, WAIT


ISSUE_GROUPS = 2   # slot groups per SIMD whose cohorts issue independently (1: all slots in lock step)


class IssuePort:
    """A SIMD's instruction issue, shared by its slot groups: a calendar of booked intervals.

    A cohort books its ALU runs and memory issue as it computes them, which may be ahead of
    simulated time; a booking takes the first gap at or after its start that fits it, so work that
    another group books later but for an earlier time still goes first when there is room."""

    __slots__ = ("booked", "end")

    def __init__(self):
        self.booked = []     # sorted, disjoint (start, end) intervals not yet over
        self.end = 0         # the end of the last one

    def book(self, now, t, cycles):
        """Reserve `cycles` of issue from cycle t on (now: the simulated time); returns the start."""
        booked = self.booked
        while booked and booked[0][1] <= now:
            del booked[0]
        if t >= self.end:                          # after everything booked
            if booked and t == self.end:
                booked[-1] = (booked[-1][0], t + cycles)
            else:
                booked.append((t, t + cycles))
            self.end = t + cycles
            return t
        start = t
        for i, (s, e) in enumerate(booked):
            if start + cycles <= s:
                booked.insert(i, (start, start + cycles))
                return start
            if e > start:
                start = e
        booked.append((start, start + cycles))
        self.end = start + cycles
        return start


class Simd:
    """One SIMD of a compute unit: a simpy process that runs cohorts of resident waves."""

    def __init__(self, cu, index, slots, dispatch, free_at=0, groups=None):
        self.cu = cu
        self.index = index
        self.dispatch = dispatch      # the DispatchSimulation this SIMD works for
        self.free_at = free_at        # the previous dispatch's waves leave this SIMD then
        groups = max(1, min(ISSUE_GROUPS if groups is None else groups, slots))
        self.group_slots = [slots // groups + (1 if g < slots % groups else 0) for g in range(groups)]
        self.port = IssuePort() if groups > 1 else None   # shared by the groups
        self.busy_cycles = 0
        self.last_store = 0

    def run(self, env, group=0):
        d = self.dispatch
        recorder = d.recorder
        slots = self.group_slots[group]
        if self.free_at > env.now:
            yield env.timeout(self.free_at - env.now)
        while True:
            work = d.take_waves(env.now, slots)
            if work is None:
                self.free_at = max(self.free_at, int(env.now))
                return
            start_at, first, count = work
            if start_at > env.now:
                yield env.timeout(start_at - env.now)
            for path_id, path_first, waves in d.split_by_path(first, count):
                begin, busy = env.now, self.busy_cycles
                yield from self._run_cohort(env, d, d.path_costs[path_id], waves, path_first, group)
                if recorder is not None:
                    recorder.wave_group(self.cu.index, self.index, group, path_first, waves, begin, env.now,
                                        self.busy_cycles - busy)

    def _run_cohort(self, env, d, cost, waves, first_wave, group):
        """Time one cohort of `waves` waves (first_wave ..) through one path.

        Speed trick: the cohort keeps its own clock `t` and yields to simpy only when it must
        meet the rest of the GPU at the right time: right before each memory request (the CU
        pipeline and the memory system are shared) and when it ends. ALU runs, scalar-load latency
        and s_waitcnt only move `t`, so a cohort costs about one simpy event per memory instruction
        however many instructions the kernel has.
        """
        steps, busy = cost.schedule(waves)
        self.busy_cycles += busy
        recorder = d.recorder
        segments = recorder is not None and recorder.keeps_segments
        memory = recorder is not None and recorder.keeps_memory
        cu = self.cu
        port = self.port
        sector_bytes = d.sector_bytes
        t = env.now
        loads = []          # completion cycles of the cohort's outstanding loads, sorted
        for step in steps:
            kind = step.kind
            if port is not None and (kind == ALU or kind == VMEM):
                t = port.book(env.now, t, step.cycles)     # the issue cycles, on the shared port
            if kind == ALU:
                if segments:
                    recorder.segment(cu.index, self.index, group, first_wave, waves, step.first_pc, step.last_pc,
                                     t, t + step.cycles)
                t += step.cycles
            elif kind == SMEM:
                bisect.insort(loads, t + step.cycles)
            elif kind == WAIT:
                # At most step.cycles (the count) loads may remain: wait for the others.
                while loads and loads[0] <= t:
                    loads.pop(0)
                if len(loads) > step.cycles:
                    t = loads[len(loads) - step.cycles - 1]
                    del loads[:len(loads) - step.cycles]
            else:
                pc, is_write = step.first_pc, step.is_write
                issued = t
                t += step.cycles
                sectors, lines, l2_hits, ic_hits, dram_reads, dram_writes, ic_writes = \
                    d.traffic.cohort(pc, first_wave, waves)
                yield env.timeout(t - env.now)
                # The addresses reach the cache front end after the pipeline latency; the request
                # leaves for the L2 once its lines are looked up. The SIMD goes on meanwhile,
                # unless the CU's miss queue is full.
                arrive = cu.look_up(t + step.latency, lines) if lines else t
                done = arrive
                if sectors:
                    level_bytes = LevelBytes(sectors * sector_bytes, (ic_hits + ic_writes) * sector_bytes,
                                             (dram_reads + dram_writes) * sector_bytes, ic_hits * sector_bytes,
                                             dram_reads * sector_bytes)
                    done = cu.try_issue(arrive, sectors, level_bytes, is_write)
                    if done is None:
                        yield env.timeout(arrive - env.now)
                        done = yield from self._issue_in_chunks(env, sectors, level_bytes, is_write)
                    if memory:
                        recorder.memory(cu.index, self.index, group, pc, issued, done, level_bytes.l2, level_bytes.dram,
                                        is_write)
                if segments:
                    recorder.segment(cu.index, self.index, group, first_wave, waves, pc, pc, issued, t)
                t = env.now
                if is_write:
                    if done > self.last_store:
                        self.last_store = done
                else:
                    bisect.insort(loads, done)
        if t > env.now:
            yield env.timeout(t - env.now)

    def _issue_in_chunks(self, env, sectors, level_bytes, is_write):
        """The CU's miss queue is full: send the request in pieces as sectors retire (each piece
        gets its exact share of every level's bytes). Returns the last piece's completion."""
        cu = self.cu
        sent, done = 0, env.now
        while sent < sectors:
            now = env.now
            cu.retire(now)
            free = cu.capacity - cu.sectors_in_flight
            want = min(sectors - sent, cu.chunk)
            if free < want:
                yield env.timeout(cu.time_until_free(want - free) - now)
                continue
            n = min(free, sectors - sent)
            done = max(done, cu.send(now, n, level_bytes.share(sent, n, sectors), is_write))
            sent += n
        return done
