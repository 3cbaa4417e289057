"""SIMDs: where waves issue instructions and wait for memory (timing).

`preset.simds_per_cu` per compute unit. A SIMD holds up to `occupancy` resident waves (wave slots,
limited by the kernel's vector registers) and issues one instruction per cycle from any of them; a
wave wider than the SIMD takes several passes (wave64 on a 32-lane SIMD: 2).

Its slots are split into ISSUE_GROUPS slot groups, each one process over *cohorts*: a group
takes as many waves as it has free slots from the workgroup dispatcher, runs them through the
kernel's path together (kernel_path.py gives the steps, from the ISA table), and takes the next
cohort when they end. The groups share the SIMD's issue port (IssuePort, a calendar of booked
cycles), so while one group's cohort waits for memory, the other's issues: the overlap of
computation with memory latency that a real SIMD gets from switching between its resident waves,
at the granularity of two groups (docs/DEVIATIONS.md).

    ALU step    the step's cycles are booked on the issue port, at the first gap from the cohort's clock
    SMEM step   the scalar data returns the step's latency later
    WAIT step   s_waitcnt n: the clock moves to when at most n of the cohort's loads are outstanding
    VMEM step   one issue pass per wave, booked on the port; then the CU's cache front end looks
                up the lines the cohort's waves touched; the sectors its CU's L0 holds return the
                L0's latency later, and the rest go, after any TLB miss's extra cycles, through
                the CU's miss queue to the memory system, charged as the caches classified them
                (caches.py); a far L2 partition's hit holds its miss-queue room the crossing's
                extra cycles longer;
                an atomic also passes the L2's atomic units (memory_system.py): one operation per
                sector and one more per extra lane on one dword (DispatchRecord.atomic_lanes)
    LDS step    one issue pass per wave, booked on the port; then the CU's LDS pipe serves the
                cohort's bank-conflict passes (the sum over its waves: DispatchRecord.lds; one per
                wave for a permute) after the LDS work queued before them (compute_unit.py), and the
                data returns the LDS latency later: a read or an atomic with return is an
                outstanding load until then (s_waitcnt waits for it, as GCN's lgkmcnt)
    BARRIER     s_barrier: a cohort holds whole workgroups (a kernel with LDS or barriers is handed
                out a workgroup at a time: command_processor.workgroup_occupancy), and its waves walk
                the path in lock step, so the last wave of each of its workgroups arrives with the
                cohort: the clock moves by the preset's barrier_cycles, counted as barrier-wait
                cycles (x waves) in the dispatch's timing; the trace shows the barrier's pc as a segment
    s_endpgm    the cohort ends; stores may still be in flight

This is the representation that avoids one Python process per wave: a 16M-element dispatch is a
few thousand cohorts per SIMD, each a handful of events. A slot group is a process (events.py): a
state machine that the event heap or simpy resumes. A SIMD lives as long as the device (so does its
compute unit); each dispatch gives it fresh slot groups and a fresh issue port. Compiled by Cython
where a C compiler is (simd.pxd; setup.py).
"""

from bisect import bisect_right

import numpy as np

from dmlemu.timing.caches import TRAFFIC_FIELDS, DispatchTraffic
from dmlemu.timing.events import DONE, WAIT, Process
from dmlemu.timing.kernel_path import ALU, ATOMIC, ATOMIC_RETURN, BARRIER, LDS, PERMUTE_SLOT, SMEM, STORE, VMEM
from dmlemu.timing.kernel_path import WAIT as WAIT_STEP
from dmlemu.timing.physics import compiled_file, zeros

COMPILED = compiled_file(__file__)    # which containers (physics.zeros)


ISSUE_GROUPS = 2   # slot groups per SIMD whose cohorts issue independently (1: all slots in lock step)
BLOCK = DispatchTraffic.BLOCK     # cohorts whose costs caches.py sums together
MISSING = object()
FIELDS = len(TRAFFIC_FIELDS)      # costs per cohort
STEP_FIELDS = 10                  # a flat schedule's ints per record (CohortWork.schedule)
NOTHING = -1                      # a record's `then` when nothing follows its run
LATENCY = -2                      # ... an SMEM whose data the next record's s_waitcnt 0 waits for (_packed)
CU_SIDE_FIELDS = ("l0_hits", "far_hits", "tlb_misses", "tlb_walks", "l1_hits")   # costs send() adds before the L2
assert TRAFFIC_FIELDS[:2] == ("sectors", "lines") and TRAFFIC_FIELDS[3:] == ("ic_hits", "dram_reads", "dram_writes",
                                                                           "ic_writes", "host", "dram_activations",
                                                                           "l0_hits", "far_hits", "tlb_misses", "tlb_walks", "l1_hits")


class IssuePort:
    """A SIMD's instruction issue, shared by its slot groups: a calendar of booked intervals.

    A cohort books its ALU runs and memory issue as it computes them, which may be ahead of
    simulated time; a booking takes the first gap at or after its start that fits it, so work that
    another group books later but for an earlier time still goes first when there is room.

    Speed: the calendar is the first `size` entries of one flat 64-bit array (a list interpreted:
    physics.zeros) of bounds [start0, end0, start1, end1, ...] of disjoint intervals, adjacent ones
    fused, so a binary search finds where a booking starts and the parity of the index says whether
    that cycle is booked; compiled, every step is on C integers. Where a booking lands depends only
    on which cycles are booked, not on how they are cut into intervals, so fusing changes nothing;
    nor does dropping intervals that ended before the simulated time (every booking starts at or
    after it). The common booking (nothing booked from its start on) is an append, fused if adjacent."""

    def __init__(self):
        self.bounds = zeros(64, COMPILED)
        self.size = 0        # bounds in use: sorted, disjoint, not adjacent
        self.start = 0       # the first cycle of the last booking (book() returns the cycle after its last)

    @property
    def booked(self):
        """The booked intervals not yet over, as (start, end) pairs."""
        b = self.bounds
        return [(b[i], b[i + 1]) for i in range(0, self.size, 2)]

    def book(self, now, t, cycles, stall=0):
        """Reserve `cycles` (> 0) of issue from cycle t >= now on (now: the simulated time): the first
        `cycles` free cycles from t on, in as many pieces as earlier bookings cut them into (the port
        issues from whichever group has work each cycle, so a run of instructions fills the cycles
        the other group left free; a booking never waits for a gap long enough to hold it whole,
        which would leave the port idle while work is ready). `stall`: the run's dependency stall
        cycles past its issue; an append (nothing booked from t on) leaves them to the other group, a
        booking among the other group's reserves them too, `cycles + stall` (docs/DEVIATIONS.md).
        Returns the cycle after its last; its first is then `start`."""
        # Speed: the bounds in a local (interpreted, an attribute read saved per use; compiled, the copy
        # of the typed memoryview costs two atomic reference counts per call, fewer than the reads).
        bounds = self.bounds
        n = self.size
        if n == 0 or bounds[n - 1] <= t:      # nothing booked from t on: an append (the commonest booking)
            self.start = t
            if n and bounds[n - 1] == t:      # fused with the last interval
                bounds[n - 1] = t + cycles
                return t + cycles
            if n + 2 > len(bounds):
                n = self.make_room(now)
                bounds = self.bounds
            bounds[n] = t
            bounds[n + 1] = t + cycles
            self.size = n + 2
            return t + cycles
        cycles += stall
        end = t + cycles
        if n >= 2 and end <= bounds[n - 2] and (n == 2 or bounds[n - 3] <= t) and n + 2 <= len(bounds):
            # Speed: the commonest booking that is not an append (the other slot group's cohort has
            # booked ahead of this one): it fits whole in the gap before the last booked interval, so it
            # is [t, end), inserted there or fused with the interval on either side (what is over stays
            # until a booking takes the general path below, which drops it).
            self.start = t
            if n > 2 and bounds[n - 3] == t:
                if end == bounds[n - 2]:       # it fills the gap: three intervals become one
                    bounds[n - 3] = bounds[n - 1]
                    self.size = n - 2
                else:
                    bounds[n - 3] = end
            elif end == bounds[n - 2]:
                bounds[n - 2] = t
            else:
                bounds[n] = bounds[n - 2]
                bounds[n + 1] = bounds[n - 1]
                bounds[n - 2] = t
                bounds[n - 1] = end
                self.size = n + 2
            return end
        n = self.drop(now)
        if COMPILED:                               # bisect_right(bounds, t, 0, n), on C integers
            lo = 0
            hi = n
            while lo < hi:
                mid = (lo + hi) >> 1
                if t < bounds[mid]:
                    hi = mid
                else:
                    lo = mid + 1
        else:                                      # Speed: interpreted, the standard library's (C code)
            lo = bisect_right(bounds, t, 0, n)
        i = lo
        if i & 1:                                  # t is inside the booked interval that ends at bounds[i]
            t = bounds[i]
            i += 1
        self.start = t
        # Fill the gaps from t on: the booking ends where its last cycle falls; every interval it
        # passes over becomes part of one booked interval [first, end).
        left = cycles
        j = i
        while j < n and t + left > bounds[j]:
            left -= bounds[j] - t
            t = bounds[j + 1]
            j += 2
        end = t + left
        first = self.start
        lo = i
        if i and bounds[i - 1] == first:      # fused with the interval that ends where it starts
            lo = i - 2
            first = bounds[lo]
        last = end
        if j < n and bounds[j] == end:        # ... and the one that starts where it ends
            last = bounds[j + 1]
            j += 2
        # bounds[lo:j] (whole intervals) become [first, last).
        if j - lo >= 2:
            bounds[lo] = first
            bounds[lo + 1] = last
            removed = j - lo - 2
            if removed:
                if COMPILED:
                    for k in range(lo + 2, n - removed):
                        bounds[k] = bounds[k + removed]
                else:                              # Speed: interpreted, one slice copy (C code)
                    bounds[lo + 2:n - removed] = bounds[lo + 2 + removed:n]
                self.size = n - removed
        else:                                      # a new interval at lo (= i = j)
            if n + 2 > len(bounds):           # (what is over was dropped: lo stays)
                n = self.make_room(now)
                bounds = self.bounds
            if COMPILED:
                k = n - 1
                while k >= lo:
                    bounds[k + 2] = bounds[k]
                    k -= 1
            else:                                  # Speed: interpreted, one slice copy (C code)
                bounds[lo + 2:n + 2] = bounds[lo:n]
            bounds[lo] = first
            bounds[lo + 1] = last
            self.size = n + 2
        return end

    def drop(self, now):
        """Drop the intervals over by `now` (every booking starts at or after it); returns the size."""
        bounds = self.bounds
        n = self.size
        if n and bounds[1] <= now:            # drop what is over (the first i bounds)
            i = 2
            while i < n and bounds[i + 1] <= now:
                i += 2
            if COMPILED:
                for j in range(n - i):
                    bounds[j] = bounds[j + i]
            else:                                  # Speed: interpreted, one slice copy (C code)
                bounds[:n - i] = bounds[i:n]
            n -= i
            self.size = n
        return n

    def make_room(self, now):
        """Room for one more interval: what is over by `now` dropped, and the array twice as long if
        that is not enough; returns the size."""
        n = self.drop(now)
        old = self.bounds
        if n + 2 > len(old):
            grown = zeros(2 * len(old), COMPILED)
            for j in range(n):
                grown[j] = old[j]
            self.bounds = grown
        return n


class Simd:
    """One SIMD of a compute unit: its issue port and, per dispatch, its slot groups."""

    def __init__(self, cu, index):
        self.cu = cu
        self.index = index
        self.free_at = 0              # the last dispatch's waves have left this SIMD then
        self.busy_cycles = 0          # issue cycles of the running dispatch's cohorts
        self.last_store = 0           # the running dispatch's last store acknowledgement
        self.barrier_cycles = 0       # wave-cycles the running dispatch's waves spent at s_barrier
        self.group_slots = []
        self.groups = []
        self.port = None

    def begin_dispatch(self, slots, work, groups=None, unit=1):
        """Take a dispatch whose waves get `slots` wave slots here: split them into slot groups (at
        most ISSUE_GROUPS, or `groups`) that share a fresh issue port; returns the groups. `unit`:
        the slots come in whole workgroups of this many waves and each group gets whole ones (a
        kernel with LDS or barriers; `slots` a multiple of it). No slots: no groups."""
        self.busy_cycles = 0
        self.last_store = 0
        self.barrier_cycles = 0
        if slots <= 0:
            self.group_slots = []
            self.port = None
            self.groups = []
            return self.groups
        units = slots // unit
        n = max(1, min(ISSUE_GROUPS if groups is None else groups, units))
        self.group_slots = [unit * (units // n + (1 if g < units % n else 0)) for g in range(n)]
        self.port = IssuePort() if n > 1 else None   # shared by the groups
        self.groups = [SlotGroup(self, g, self.group_slots[g], work) for g in range(n)]
        return self.groups

    def end_dispatch(self):
        """The dispatch has ended: let its slot groups (and what they share: its costs, its trace
        recorder) go; what carries over is free_at."""
        self.groups = []
        self.port = None


class CohortWork:
    """What the slot groups of one dispatch share: the workgroup dispatcher, the kernel's paths and
    their schedules, the cache classification of every memory instruction, the trace recorder."""

    def __init__(self, dispatcher, path_costs, traffic, sector_bytes, recorder, lds=None, atomic_lanes=None,
                 accesses=None, atomic_units=1):
        self.dispatcher = dispatcher
        self.path_costs = path_costs          # path id -> kernel_path.PathCost
        self.schedules = {}                   # path id << 32 | waves -> (flat steps, busy cycles)
        self.traffic = traffic                # caches.DispatchTraffic
        self.blocks = {}                      # slot << 27 | cohort size << 20 | block -> its costs
        self.costs_at = 0                     # where costs() put the cohort's costs in the list it returned
        self.sector_bytes = sector_bytes
        # Latencies the caches' classification adds (presets.py; set by the command processor): an L0
        # hit's, an L1 TLB miss's, a page walk's, the far L2 partition's extra hop.
        self.l0_latency = self.tlb_miss_cycles = self.walk_cycles = self.far_cycles = 0
        self.l1_latency = 0                   # a shader array L1 hit's (cu_caches.py)
        # Whether any request of the dispatch has CU-side cache hits, a TLB miss or a far L2 hit (send()
        # skips those costs where none has).
        self.cu_side = traffic is not None and any(traffic.totals[field] for field in CU_SIDE_FIELDS)
        self.recorder = recorder
        # Per LDS access slot, running sums over the waves (index w: waves 0 .. w - 1) of the bank
        # passes (DispatchRecord.lds): a cohort's total is two lookups. (Memory: an int64 array per
        # slot, not a list of Python ints, since a loop of LDS reads over many waves has many slots.)
        self.lds_sums = {slot: _running_sum(rows.passes) for slot, rows in (lds or {}).items()}
        # Per buffer-atomic access slot: its SectorRows and the lanes past the first on one dword
        # (DispatchRecord.atomic_lanes), for atomic_operations.
        self.atomic_rows = {slot: ((accesses or {})[slot], np.maximum(lanes.astype(np.int64) - 1, 0))
                            for slot, lanes in (atomic_lanes or {}).items()}
        self.atomic_units = atomic_units
        self.segments = recorder is not None and recorder.keeps_segments
        self.memory_rows = recorder is not None and recorder.keeps_memory
        # Wave-group rows, 8 ints each (see wave_group): the first `nrows` of a 64-bit array (compiled,
        # made room in ahead; interpreted, extended row by row).
        self.rows_buffer = zeros(8 * 1024 if recorder is not None and COMPILED else 0, True)
        self.rows = self.rows_buffer
        self.nrows = 0

    def schedule(self, path_id, waves):
        """The steps of a cohort of `waves` waves on path `path_id` as one flat 64-bit array of records
        and the issue cycles it charges its SIMD (kernel_path.PathCost.schedule's).

        A record is what the walk does in one turn of its loop, STEP_FIELDS ints: an s_waitcnt (its
        count; -1: none), then a run on the issue port (its issue cycles, its stall: the cycles of its
        length past them, and the first and last pc of an ALU run, -1 for a VMEM or LDS instruction's
        issue pass), then what follows the run (`then`: SMEM, LATENCY, VMEM, LDS, BARRIER or NOTHING; its
        cycles: an SMEM's or VMEM's latency, an LDS's latency to the data, a barrier's cycles; its pc; a
        VMEM or LDS step's access (is_write) and access slot). The kernel path's steps are packed into
        records in their order: a wait opens a record, an ALU run or a memory instruction's issue follows
        it in the same record, and an SMEM or barrier step follows the run. Without segments in the trace,
        an ALU run with no stall joins the one before it when that one has none either: booking the two
        lengths at once takes the same cycles of the port (the first `a + b` free cycles from the start)
        and ends where the second booking would. Then _packed drops the scalar loads no wait needs alone
        and joins what they separated.

        Speed: flattened once per path and cohort size, so a cohort reads its records by index, as C
        integers when compiled (interpreted, from a list: physics.zeros), with no NamedTuple attribute
        reads; a CLIP cohort walks 5 records instead of 18 steps, books 5 runs and keeps 1 load."""
        key = path_id << 32 | waves
        cached = self.schedules.get(key)
        if cached is None:
            steps, busy = self.path_costs[path_id].schedule(waves)
            records = []
            record = None
            for step in steps:
                kind = step.kind
                # Whether the record being built holds at most its wait: no ALU run (first pc -1) and
                # nothing after a run (a VMEM or LDS issue pass comes with its `then`).
                bare = record is not None and record[3] < 0 and record[5] == NOTHING
                if kind == WAIT_STEP:
                    if record is None or not bare or record[0] >= 0:
                        record = [-1, 0, 0, -1, -1, NOTHING, 0, 0, 0, 0]
                        records.append(record)
                    record[0] = step.cycles
                elif kind == ALU:
                    if (not self.segments and record is not None and record[3] >= 0 and record[5] == NOTHING
                            and record[2] == 0 and step.issue == step.cycles):
                        record[1] += step.issue
                        record[4] = step.last_pc
                        continue
                    if not bare:
                        record = [-1, 0, 0, -1, -1, NOTHING, 0, 0, 0, 0]
                        records.append(record)
                    record[1:5] = [step.issue, step.cycles - step.issue, step.first_pc, step.last_pc]
                elif kind == VMEM or kind == LDS:
                    if not bare:
                        record = [-1, 0, 0, -1, -1, NOTHING, 0, 0, 0, 0]
                        records.append(record)
                    record[1:3] = [step.cycles, 0]
                    record[5:10] = [kind, step.latency, step.first_pc, int(step.is_write), step.slot]
                else:                              # SMEM or BARRIER: after the record's run
                    if record is None or record[5] != NOTHING:
                        record = [-1, 0, 0, -1, -1, NOTHING, 0, 0, 0, 0]
                        records.append(record)
                    record[5:8] = [kind, step.cycles, step.first_pc]
            flat = zeros(0, COMPILED)
            for record in _packed(records, self.segments, self.memory_rows):
                flat.extend(record)
            cached = self.schedules[key] = (flat, busy)
        return cached

    def lds_passes(self, slot, first, count):
        """The bank-conflict passes of waves first .. first + count - 1 in LDS access slot `slot`; a
        permute (PERMUTE_SLOT) or a slot no wave ran: one pass per wave."""
        sums = self.lds_sums.get(slot)
        if sums is None:
            return count
        return int(sums[first + count] - sums[first])

    def atomic_operations(self, slot, first, count):
        """The L2 atomic operations of waves first .. first + count - 1 in buffer-atomic access slot
        `slot`, per atomic unit (memory_system.py): one per sector at unit sector mod units, and the
        serialised same-dword lanes past the first at the unit of each wave's first sector. A list,
        one count per unit."""
        units = self.atomic_units
        entry = self.atomic_rows.get(slot)
        if entry is None:
            return [0] * units
        rows, extra = entry
        offsets = rows.offsets[first:first + count + 1].astype(np.int64)
        sectors = rows.sectors[offsets[0]:offsets[-1]]
        ops = np.bincount(sectors % units, minlength=units)
        touched = offsets[1:] > offsets[:-1]
        heads = rows.sectors[offsets[:-1][touched]] % units
        ops += np.bincount(heads, weights=extra[first:first + count][touched], minlength=units).astype(np.int64)
        return ops.tolist()

    def costs(self, slot, first, count):
        """The costs (caches.TRAFFIC_FIELDS) of waves first .. first + count - 1 in access slot `slot`: a list
        that holds them from index `costs_at` on.

        Speed: this runs once per memory request. Most cohorts are aligned runs of `count` waves, whose
        costs caches.DispatchTraffic.block_rows sums BLOCK cohorts at a time; a block is kept here,
        read in place (no slice, no call into caches.py), until one two blocks later is started
        (slot groups run at different speeds, so cohorts of neighbouring blocks interleave). Any
        other range is DispatchTraffic.cohort's sum; both give the same numbers."""
        if first % count == 0:
            k = first // count
            block = k // BLOCK
            key = slot << 27 | count << 20 | block   # (a cohort has at most 64 waves; blocks < 2^20)
            rows = self.blocks.get(key, MISSING)
            if rows is MISSING:
                rows = self.blocks[key] = self.traffic.block_rows(slot, count, block)
                if block >= 2:
                    self.blocks.pop(key - 2, None)  # two blocks back: its cohorts have all run
            at = (k - block * BLOCK) * FIELDS
            if rows is not None and at < len(rows):
                self.costs_at = at
                return rows
        self.costs_at = 0
        return list(self.traffic.cohort(slot, first, count))

    def wave_group(self, cu, simd, group, first_wave, waves, start, end, alu_cycles):
        """Keep a cohort's trace row (TraceRecorder.wave_group's arguments) for wave_group_columns.

        Speed: rows go into a 64-bit array (compiled, C integers, no tuple per row; interpreted, one
        extend, C code), which NumPy reads as a buffer at the dispatch's end (a list of Python ints
        would be converted one by one)."""
        if not COMPILED:
            self.rows_buffer.extend((cu, simd, group, first_wave, waves, start, end, alu_cycles))
            self.nrows += 1
            return
        at = 8 * self.nrows
        if at + 8 > len(self.rows):        # the array twice as long
            grown = zeros(2 * len(self.rows), True)
            grown[:at] = self.rows_buffer[:at]
            self.rows_buffer = grown
            self.rows = grown
        self.rows[at] = cu
        self.rows[at + 1] = simd
        self.rows[at + 2] = group
        self.rows[at + 3] = first_wave
        self.rows[at + 4] = waves
        self.rows[at + 5] = start
        self.rows[at + 6] = end
        self.rows[at + 7] = alu_cycles
        self.nrows += 1

    def wave_group_columns(self):
        """The dispatch's wave-group rows as 8 int64 arrays, one per column (cu, simd, group, first wave,
        waves, start, end, ALU cycles), for TraceRecorder.wave_groups: the same rows as one wave_group call
        per cohort, handed over at once."""
        rows = np.asarray(self.rows_buffer[:8 * self.nrows], dtype=np.int64).reshape(self.nrows, 8)
        return list(rows.T)


# Slot-group states: where resume() goes on.
START, TAKE, SPLIT, NEXT_COHORT, WALK, SEND, ROOM, SENT, COHORT_END, ENDED = range(10)


class SlotGroup(Process):
    """A slot group of a SIMD: the process that runs cohorts of its waves (see the module banner)."""

    def __init__(self, simd, group, slots, work):
        self.simd = simd
        self.cu = simd.cu
        self.port = simd.port
        self.work = work
        self.dispatcher = work.dispatcher
        self.group = group
        self.slots = slots
        self.state = START
        self.first = self.count = 0               # the waves taken from the dispatcher
        self.pieces = None                        # split_by_path of them
        self.piece = 0                            # the next piece's index
        self.path_id = self.first_wave = self.waves = 0   # the cohort running
        self.begin = self.busy = 0
        self.steps = None
        self.at = self.end = 0                    # the position in the flat records, and their end
        self.schedule_key = -1                    # path id << 32 | waves of `steps`
        self.t = 0                                # the cohort's clock (may run ahead of simulated time)
        # Completion cycles of the cohort's outstanding loads, sorted: the first `nloads` of a 64-bit
        # array (compiled: C integers, no list of Python ints; interpreted, a list: physics.zeros).
        self.loads = zeros(8, COMPILED)
        self.nloads = 0
        self.issued = 0                           # the memory instruction being sent (the record at `at`): its issue's start
        self.costs = None                         # a VMEM request's costs: caches.TRAFFIC_FIELDS from
        self.cost_at = 0                          # costs[cost_at] on (CohortWork.costs)
        self.done = 0
        self.request = None                       # compute_unit.WaitingRequest while in the wait queue

    def resume(self, now):
        """Run the slot group from its state at cycle `now` until it must wait: take cohorts from the
        workgroup dispatcher until none is left and time each through its path (the steps of
        kernel_path.py).

        Speed trick: a cohort keeps its own clock `t` and meets the rest of the GPU (returns to its
        driver) only when it must do so at the right time: right before each memory request (the CU
        pipeline and the memory system are shared) and when it ends. ALU runs, scalar-load latency
        and s_waitcnt only move `t`, so a cohort costs about one event per memory instruction
        however many instructions the kernel has. The states most resumptions find (SEND, then
        ROOM) are tested first."""
        state = self.state
        if state == SEND:                         # a memory instruction's issue has ended
            state = self.send(now)
            if state == ROOM:
                self.state = ROOM
                return WAIT
        elif state == ROOM:                       # the wait queue sent the request's last piece now
            self.done = self.request.done
            self.request = None
            state = SENT
        elif state == START:
            state = TAKE
            if self.simd.free_at > now:           # the previous dispatch's waves leave this SIMD then
                self.state = TAKE
                return self.simd.free_at
        while True:
            if state == SENT:
                self.sent(now)
                state = WALK
            elif state == TAKE:
                work = self.dispatcher.take(now, self.slots)
                if work is None:
                    if now > self.simd.free_at:
                        self.simd.free_at = now
                    self.state = ENDED
                    return DONE
                start_at, self.first, self.count = work
                state = SPLIT
                if start_at > now:
                    self.state = SPLIT
                    return start_at
            if state == SPLIT:
                self.pieces = self.dispatcher.split_by_path(self.first, self.count)
                self.piece = 0
                state = NEXT_COHORT
            if state == NEXT_COHORT:
                if self.piece == len(self.pieces):
                    state = TAKE
                    continue
                self.path_id, self.first_wave, self.waves = self.pieces[self.piece]
                self.piece += 1
                self.begin = now
                key = self.path_id << 32 | self.waves
                if key != self.schedule_key:      # most cohorts of a dispatch share one schedule
                    self.steps, self.busy = self.work.schedule(self.path_id, self.waves)
                    self.schedule_key = key
                    self.end = len(self.steps)
                self.simd.busy_cycles += self.busy
                self.t = now
                self.nloads = 0
                self.at = 0
                state = WALK
            if state == WALK:
                resume_at = self.walk(now)
                if resume_at >= 0:                # a memory instruction's issue ends then
                    self.state = SEND
                    return resume_at
                if self.t > now:                  # the cohort's last step ends then
                    self.state = COHORT_END
                    return self.t
                state = COHORT_END
            if state == COHORT_END:
                if self.work.recorder is not None:
                    # The cohort's own issue cycles (cached schedule), not the SIMD's count, which the
                    # other slot group also raises while this cohort waits for memory.
                    self.work.wave_group(self.cu.index, self.simd.index, self.group, self.first_wave, self.waves,
                                         self.begin, now, self.busy)
                state = NEXT_COHORT

    def walk(self, now):
        """Run the cohort's records (CohortWork.schedule) from `at` on, moving its clock, until a memory
        instruction has issued (returns the cycle its issue ends: the request leaves then) or the path
        ends (-1).

        Speed: the walk keeps its clock and its position in the flat records in locals until it
        returns (compiled: C integers; interpreted, each attribute read saved is a bytecode per
        record); the outstanding loads are the group's (add_load)."""
        t = self.t
        at = self.at
        end = self.end
        port = self.port
        steps = self.steps
        segments = self.work.segments
        while at < end:
            count = steps[at]
            if count >= 0 and self.nloads:         # s_waitcnt: at most `count` loads may remain
                loads = self.loads
                n = self.nloads
                if count == 0:                     # Speed: the common s_waitcnt 0: the last load (sorted)
                    if loads[n - 1] > t:
                        t = loads[n - 1]
                    self.nloads = 0
                else:
                    k = 0                          # the loads done by t
                    while k < n and loads[k] <= t:
                        k += 1
                    if n - k > count:              # wait for the oldest of those too many
                        k = n - count
                        t = loads[k - 1]
                    if k:
                        n -= k
                        for j in range(n):
                            loads[j] = loads[j + k]
                        self.nloads = n
            # The run: an ALU run holds the port for its issue cycles only; its dependency stalls are
            # the other group's to fill (kernel_path.py, IssuePort.book): the clock then moves to the
            # later of the issue's end and the run's length (issue + stall). A VMEM or LDS
            # instruction's run is its issue passes.
            start = t
            issue = steps[at + 1]
            stall = steps[at + 2]
            if issue:
                if port is not None:
                    t = port.book(now, t, issue, stall)
                    start = port.start
                else:
                    t += issue
            if stall and t < start + issue + stall:
                t = start + issue + stall
            if segments and steps[at + 3] >= 0:   # an ALU run
                self.work.recorder.segment(self.cu.index, self.simd.index, self.group, self.first_wave,
                                           self.waves, steps[at + 3], steps[at + 4], start, t)
            then = steps[at + 5]
            if then == LATENCY:                    # an SMEM the next record's s_waitcnt 0 waits for (_packed)
                t += steps[at + 6]
            elif then == SMEM:
                self.add_load(t + steps[at + 6])
            elif then == VMEM or then == LDS:     # the request leaves when the issue ends
                self.issued = start
                self.t = t
                self.at = at
                if then == VMEM:
                    # Its costs (caches.TRAFFIC_FIELDS, by access slot), read where they are (send(), sent()).
                    work = self.work
                    self.costs = work.costs(steps[at + 9], self.first_wave, self.waves)
                    self.cost_at = work.costs_at
                return t
            elif then == BARRIER:
                # The cohort holds whole workgroups in lock step: their last waves arrive now.
                if segments:
                    self.work.recorder.segment(self.cu.index, self.simd.index, self.group, self.first_wave,
                                               self.waves, steps[at + 7], steps[at + 7], t, t + steps[at + 6])
                t += steps[at + 6]
                self.simd.barrier_cycles += steps[at + 6] * self.waves
            at += STEP_FIELDS
        self.t = t
        self.at = at
        return -1

    def send(self, now):
        """The memory instruction's issue has ended (`now`): its addresses reach the CU's cache front
        end after the pipeline latency; the request leaves for the L2 once its lines are looked up.
        The cohort goes on meanwhile, unless the CU's miss queue is full: then the request waits in
        the CU's wait queue (returns ROOM), else SENT. The instruction is the record at `at`
        (CohortWork.schedule)."""
        cu = self.cu
        steps = self.steps
        at = self.at
        latency = steps[at + 6]
        if steps[at + 5] == LDS:                 # the CU's LDS pipe, then the latency to the data
            passes = self.work.lds_passes(steps[at + 9], self.first_wave, self.waves)
            self.done = cu.lds_serve(now, passes) + latency
            return SENT
        work = self.work
        costs = self.costs                        # the request's caches.TRAFFIC_FIELDS, from cost_at on
        k = self.cost_at
        lines = costs[k + 1]
        arrive = cu.look_up(now + latency, lines) if lines else now
        self.done = arrive
        sectors = costs[k]
        hop = 0
        if work.cu_side:                          # (no such costs in the dispatch: nothing to add)
            hits = costs[k + 9] + costs[k + 13]   # the CU-side caches' (L0, L1) hits need no L2 trip
            sectors -= hits
            if hits:                              # their data returns through the L0's data path
                ready = cu.hit_data(arrive, hits * work.sector_bytes)
                self.done = ready + (work.l1_latency if costs[k + 13] else work.l0_latency)
            # The request's extra latency before it reaches the caches: address translation (an L1 TLB
            # miss, and a page walk).
            if costs[k + 11]:
                arrive += work.tlb_miss_cycles
            if costs[k + 12]:
                arrive += work.walk_cycles
            if costs[k + 10] and not costs[k + 4]:
                # A far L2 hit: the crossing to GH100's other partition and back, counted after the L2 has
                # served it and held in the miss queue until the data is back. (A request that also reads
                # DRAM waits for that instead: DRAM's latency, a pointer chase's, includes the crossing and
                # exceeds a far hit's, and the sectors travel in parallel.)
                hop = work.far_cycles
        if sectors:
            # A LevelBytes' fields as plain ints, worked out once (one request per call: no tuple is built).
            is_write = steps[at + 8] != 0
            sector_bytes = work.sector_bytes
            ic_reads = costs[k + 3] * sector_bytes
            dram_reads = costs[k + 4] * sector_bytes
            ic_bytes = ic_reads + costs[k + 6] * sector_bytes
            dram_bytes = dram_reads + costs[k + 5] * sector_bytes
            host = costs[k + 7] * sector_bytes
            activations = costs[k + 8]
            done = cu.try_issue(arrive, sectors, is_write, sectors * sector_bytes, ic_bytes, dram_bytes,
                                ic_reads, dram_reads, host, activations, hop)
            if done < 0:                          # the miss queue is full: wait in the CU's queue
                self.request = cu.wait_for_room(now, arrive, sectors, sectors * sector_bytes, ic_bytes, dram_bytes,
                                                ic_reads, dram_reads, host, is_write, self, activations, hop)
                return ROOM
            if done > self.done:
                self.done = done
        return SENT

    def sent(self, now):
        """The request has left (at `now`): trace it, and the cohort's clock goes on from now; a load's
        completion joins the outstanding loads, a store's the SIMD's last store."""
        work = self.work
        steps = self.steps
        at = self.at
        access = steps[at + 8]                    # kernel_path's LOAD, STORE, ATOMIC or ATOMIC_RETURN
        is_lds = steps[at + 5] == LDS
        is_write = access == STORE or access == ATOMIC if is_lds else access != 0
        if access >= ATOMIC and not is_lds:       # the L2's atomic units too, from when it left
            done = self.cu.memory.atomic(now, work.atomic_operations(steps[at + 9], self.first_wave, self.waves))
            if done > self.done:
                self.done = done
        if work.memory_rows and not is_lds and self.costs[self.cost_at]:
            k = self.cost_at
            work.recorder.memory(self.cu.index, self.simd.index, self.group, steps[at + 7], self.issued, self.done,
                                 self.costs[k] * work.sector_bytes,
                                 (self.costs[k + 4] + self.costs[k + 5]) * work.sector_bytes, is_write)
        if work.segments:
            work.recorder.segment(self.cu.index, self.simd.index, self.group, self.first_wave, self.waves,
                                  steps[at + 7], steps[at + 7], self.issued, self.t)
        self.t = now
        self.at = at + STEP_FIELDS
        if is_lds:
            if not is_write:                      # data (or an atomic's old value) returns: an outstanding load
                self.add_load(self.done)
        elif access == ATOMIC_RETURN:             # the old values return: an outstanding load
            self.add_load(self.done)
        elif is_write:
            if self.done > self.simd.last_store:
                self.simd.last_store = self.done
        else:
            self.add_load(self.done)

    def add_load(self, done):
        """An outstanding load of the cohort that completes at cycle `done` (after any that complete
        then too: bisect.insort's order)."""
        loads = self.loads
        n = self.nloads
        if n == len(loads):                # more loads than ever before: the array twice as long
            grown = zeros(2 * n, COMPILED)
            for j in range(n):
                grown[j] = loads[j]
            self.loads = loads = grown
        i = n
        while i > 0 and loads[i - 1] > done:
            loads[i] = loads[i - 1]
            i -= 1
        loads[i] = done
        self.nloads = n + 1


def _packed(records, segments, memory_rows):
    """A schedule's records (CohortWork.schedule) with the same timing in fewer records and steps: an
    SMEM load that nothing can wait for alone is dropped, one that the next record's s_waitcnt 0 waits for
    moves the clock, then runs that nothing separates are booked as one.

    A scalar load is dropped when no s_waitcnt follows it (the cohort ends with it outstanding) or when
    the next one is s_waitcnt 0 and a later scalar load of at least its latency comes before that wait:
    the cohort's clock never goes back, so that load completes no earlier, and s_waitcnt 0 waits for the
    last load to complete (the count of loads, which another s_waitcnt reads, is then kept). A scalar
    load right before an s_waitcnt 0 (the next record's wait) is its latency added to the clock
    (`then` LATENCY): the wait then ends at the later of that and the other loads, as it would. A record
    with no wait joins the one before it when that one has nothing after its run and neither run stalls:
    booking the two issue lengths at once takes the same cycles of the issue port (the first a + b free
    cycles from the start) and ends where the second booking would. The trace's rows need what is
    joined: an ALU run is a segment of its own (kept apart with segments), a memory instruction's issue
    starts its segment and its memory row (kept apart with either)."""
    records = [list(record) for record in records]
    for i, record in enumerate(records):
        if record[5] != SMEM:
            continue
        outlasted = False
        wait = -1                              # the next s_waitcnt's count (-1: none follows)
        for later in records[i + 1:]:
            if later[0] >= 0:
                wait = later[0]
                break
            if later[5] == SMEM and later[6] >= record[6]:
                outlasted = True
        if wait < 0 or wait == 0 and outlasted:
            record[5:8] = [NOTHING, 0, 0]
        elif wait == 0 and records[i + 1][0] == 0:
            record[5] = LATENCY
    out = []
    for record in records:
        before = out[-1] if out else None
        if (before is not None and record[0] < 0 and before[5] == NOTHING and before[2] == 0 and record[2] == 0
                and not segments and (record[5] != VMEM or not memory_rows)):
            before[1] += record[1]
            if before[3] < 0:
                before[3] = record[3]
            if record[4] >= 0:
                before[4] = record[4]
            before[5:10] = record[5:10]
            continue
        out.append(record)
    return out


def _running_sum(values):
    """[0, v0, v0 + v1, ...] of an integer array, as int64."""
    out = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum(values, out=out[1:])
    return out
