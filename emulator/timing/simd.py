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

This module, compute_unit.py and memory_system.py are the timing model's reference, run by simpy.
cohort_engine.pyx runs the same simulation compiled (where it was built), cycle for cycle: a change
here must be made there too; tests/test_cohort_engine.py compares the two.
"""
from bisect import bisect_right, insort

from dmlemu.timing.kernel_path import ALU, SMEM, VMEM, WAIT


ISSUE_GROUPS = 2   # slot groups per SIMD whose cohorts issue independently (1: all slots in lock step)


class IssuePort:
    """A SIMD's instruction issue, shared by its slot groups: a calendar of booked intervals.

    A cohort books its ALU runs and memory issue as it computes them, which may be ahead of
    simulated time; a booking takes the first gap at or after its start that fits it, so work that
    another group books later but for an earlier time still goes first when there is room.

    Speed: the calendar is one flat sorted list of bounds [start0, end0, start1, end1, ...] of
    disjoint intervals, adjacent ones fused, so `bisect` (C) finds where a booking starts and the
    parity of the index says whether that cycle is booked. Where a booking lands depends only on
    which cycles are booked, not on how they are cut into intervals, so fusing changes nothing;
    nor does dropping intervals that ended before the simulated time (every booking starts at or
    after it)."""

    __slots__ = ("bounds",)

    def __init__(self):
        self.bounds = []     # start0, end0, start1, end1, ...: sorted, disjoint, not adjacent

    @property
    def booked(self):
        """The booked intervals not yet over, as (start, end) pairs."""
        b = self.bounds
        return list(zip(b[::2], b[1::2]))

    def book(self, now, t, cycles):
        """Reserve `cycles` (> 0) of issue from cycle t >= now on (now: the simulated time); returns
        the start."""
        b = self.bounds
        if b and b[1] <= now:                      # drop what is over
            i = 2
            while i < len(b) and b[i + 1] <= now:
                i += 2
            del b[:i]
        i = bisect_right(b, t)
        if i & 1:                                  # t is inside booked interval [b[i-1], b[i])
            t = b[i]
            i += 1
        n = len(b)
        while i < n and t + cycles > b[i]:         # the gap before the interval at i is too short
            t = b[i + 1]
            i += 2
        end = t + cycles
        # [t, end) goes in the gap between b[i - 1] (an end) and b[i] (a start): fuse with either.
        if i and b[i - 1] == t:
            if i < n and b[i] == end:
                del b[i - 1:i + 1]
            else:
                b[i - 1] = end
        elif i < n and b[i] == end:
            b[i] = t
        else:
            b[i:i] = (t, end)
        return t


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
        """The slot group's process: take cohorts from the workgroup dispatcher until none is left
        and time each through its path (the steps of kernel_path.py).

        Speed trick: a cohort keeps its own clock `t` and yields to simpy only when it must meet
        the rest of the GPU at the right time: right before each memory request (the CU pipeline
        and the memory system are shared) and when it ends. ALU runs, scalar-load latency and
        s_waitcnt only move `t`, so a cohort costs about one simpy event per memory instruction
        however many instructions the kernel has.

        Speed: the cohort's steps run inline here, not in a generator of their own (each `yield
        from` level costs every resume a frame switch). The simulated time is kept in the local
        `now` instead of reading `env.now` (a property): a timeout of `t - now` resumes this
        process at exactly `t`, so after each yield `now` is what it waited for. Steps are unpacked
        in the `for` statement (no attribute reads) and the hooks, port and traffic table are bound
        to locals once per process.
        """
        d = self.dispatch
        recorder = d.recorder
        segments = recorder is not None and recorder.keeps_segments
        memory = recorder is not None and recorder.keeps_memory
        slots = self.group_slots[group]
        take, split, costs = d.dispatcher.take, d.dispatcher.split_by_path, d.path_costs
        cu = self.cu
        cu_index, simd_index = cu.index, self.index
        book = self.port.book if self.port is not None else None
        # Speed: the port's calendar, read here so that the common booking (nothing booked from t
        # on) is an append without a call; book() keeps the list short (it drops what is over).
        bounds = self.port.bounds if self.port is not None else None
        traffic = d.traffic.cohort
        timeout = env.timeout
        sector_bytes = d.sector_bytes
        look_up, try_issue, wait_for_room = cu.look_up, cu.try_issue, cu.wait_for_room
        now = env.now
        if self.free_at > now:
            yield timeout(self.free_at - now)
            now = self.free_at
        while True:
            work = take(now, slots)
            if work is None:
                if now > self.free_at:
                    self.free_at = int(now)
                return
            start_at, first, count = work
            if start_at > now:
                yield timeout(start_at - now)
                now = start_at
            for path_id, first_wave, waves in split(first, count):
                begin = now
                steps, busy = costs[path_id].schedule(waves)
                self.busy_cycles += busy
                # ---- one cohort of `waves` waves (first_wave ..) through the path, from `now` ----
                t = now
                loads = []          # completion cycles of the cohort's outstanding loads, sorted
                for kind, cycles, pc, last_pc, is_write, latency in steps:
                    if kind == ALU:
                        if bounds is not None:             # the issue cycles, on the shared port
                            if bounds and bounds[-1] > t or len(bounds) > 16:
                                t = book(now, t, cycles)
                            elif bounds and bounds[-1] == t:    # IssuePort.book when nothing is booked
                                bounds[-1] = t + cycles         # from t on: append, fused if adjacent
                            else:
                                bounds += (t, t + cycles)
                        if segments:
                            recorder.segment(cu_index, simd_index, group, first_wave, waves, pc, last_pc, t,
                                             t + cycles)
                        t += cycles
                    elif kind == SMEM:
                        insort(loads, t + cycles)
                    elif kind == WAIT:
                        # At most `cycles` (the count) loads may remain: wait for the others.
                        while loads and loads[0] <= t:
                            loads.pop(0)
                        if len(loads) > cycles:
                            t = loads[len(loads) - cycles - 1]
                            del loads[:len(loads) - cycles]
                    else:
                        if bounds is not None:             # as for ALU steps
                            if bounds and bounds[-1] > t or len(bounds) > 16:
                                t = book(now, t, cycles)
                            elif bounds and bounds[-1] == t:
                                bounds[-1] = t + cycles
                            else:
                                bounds += (t, t + cycles)
                        issued = t
                        t += cycles
                        sectors, lines, l2_hits, ic_hits, dram_reads, dram_writes, ic_writes = traffic(
                            pc, first_wave, waves)
                        yield timeout(t - now)
                        now = t
                        # The addresses reach the cache front end after the pipeline latency; the
                        # request leaves for the L2 once its lines are looked up. The SIMD goes on
                        # meanwhile, unless the CU's miss queue is full.
                        arrive = look_up(t + latency, lines) if lines else t
                        done = arrive
                        if sectors:
                            # A LevelBytes' fields as a plain tuple (one per request: no NamedTuple).
                            level_bytes = (sectors * sector_bytes, (ic_hits + ic_writes) * sector_bytes,
                                           (dram_reads + dram_writes) * sector_bytes, ic_hits * sector_bytes,
                                           dram_reads * sector_bytes)
                            done = try_issue(arrive, sectors, is_write, *level_bytes)
                            if done is None:     # the miss queue is full: wait in the CU's queue
                                done, now = yield from wait_for_room(env, arrive, sectors, level_bytes, is_write)
                            if memory:
                                recorder.memory(cu_index, simd_index, group, pc, issued, done, level_bytes[0],
                                                level_bytes[2], is_write)
                        if segments:
                            recorder.segment(cu_index, simd_index, group, first_wave, waves, pc, pc, issued, t)
                        t = now
                        if is_write:
                            if done > self.last_store:
                                self.last_store = done
                        else:
                            insort(loads, done)
                if t > now:
                    yield timeout(t - now)
                    now = t
                if recorder is not None:
                    # The cohort's own issue cycles (cached schedule), not the SIMD's count, which the
                    # other slot group also raises while this cohort waits for memory.
                    recorder.wave_group(cu_index, simd_index, group, first_wave, waves, begin, now, busy)
