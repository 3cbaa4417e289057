# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The compiled cohort engine: one dispatch's timing simulation, cycle for cycle the simpy model's (timing).

The timing model is written once, in Python, as simpy processes: simd.py (slot groups running cohorts
of waves through the kernel's path, the issue port), compute_unit.py (cache front end, miss queue and
its wait queue), memory_system.py (the L2, Infinity Cache and DRAM servers). That model is the
reference. This module runs the same simulation as compiled code: the slot groups' and the wait
queues' processes become state machines driven by one event heap that orders events as simpy does
(time, then urgent before normal, then the order they were scheduled), and the servers' integer
arithmetic runs on C integers. Nothing is approximated: every cycle, counter and trace row comes out
as the simpy model's (tests/test_cohort_engine.py runs both on the same dispatches; bench/
timing_identity.py pins them).

Why it exists: a 16M-element dispatch is about 65,000 cohorts with two memory requests each; in
Python each costs ~20 us of interpreter and simpy overhead, which made the timing model 16x the golden
NumPy model (issue 10 asks for <= 8x). Here a cohort costs about a microsecond.

Also in C: the workgroup dispatcher's hand-out (its state read from and written back to the
WorkgroupDispatcher) and a cohort's traffic, summed straight from caches.DispatchTraffic.per_wave.
What stays in Python: splitting a range of waves with several paths (split_by_path), the kernel path
schedules (kernel_path.py, looked up once per cohort size), the miss queue's heap of completions (a
Python list kept by heapq, so its state between dispatches is the reference's) and the trace
recorder's hooks. The servers' state is read from the MemorySystem at the start and written back at
the end, so dispatches run by either engine continue each other exactly.

Used by CommandProcessor.simulate_dispatch when this extension was built (setup.py builds it with
Cython when a C compiler is there) and DMLEMU_TIMING_ENGINE is not `simpy`; run() returns None (and
the simpy model runs instead) when 64-bit byte-time arithmetic could overflow: a rate above LIMIT
units per cycle, or a dispatch that starts past 2^60 units.
"""
import heapq

import numpy as np

from libc.stdlib cimport malloc, realloc, free

from dmlemu.timing import caches, kernel_path

cdef enum:
    ALU, SMEM, WAIT, VMEM          # kernel_path's step kinds (checked below)
    URGENT = 0, NORMAL = 1         # simpy's event priorities
    # Slot-group states: where a group resumes when its event comes up.
    G_START, G_TAKE, G_SPLIT, G_WALK, G_VMEM, G_ROOM, G_COHORT_END, G_DONE

assert (kernel_path.ALU, kernel_path.SMEM, kernel_path.WAIT, kernel_path.VMEM) == (ALU, SMEM, WAIT, VMEM)
# cohort_traffic reads the per-wave rows in this order
assert caches.TRAFFIC_FIELDS == ("sectors", "lines", "l2_hits", "ic_hits", "dram_reads", "dram_writes", "ic_writes")
LIMIT = 1 << 24      # largest byte-time rate handled in 64 bits (cycles < 2^38 then fit)


cdef struct Event:
    long long time
    long long priority
    long long eid
    long long target


cdef inline bint _before(Event a, Event b):
    if a.time != b.time:
        return a.time < b.time
    if a.priority != b.priority:
        return a.priority < b.priority
    return a.eid < b.eid


cdef inline long long _ceil(long long a, long long b):
    return (a + b - 1) // b if a >= 0 else -((-a) // b)


cdef struct Server:          # memory_system.FifoServer / DramServer, in C integers
    long long upb, upc, free_units, refresh_interval, refresh_cycles, busy_cycles, num_bytes
    long long write_batch, turnaround, pending_write, read_since_drain, turnarounds
    long long stream_open, stream_start, stream_end, shared_cycles


cdef struct Group:           # one slot group of a SIMD: simd.Simd.run's locals
    long long simd, group, slots, state
    long long now, t, begin, first, count
    long long path_id, first_wave, waves, busy
    long long step, nsteps
    long long issued, pc, is_write, latency
    long long sectors, lines, ic_hits, ic_writes, dram_reads, dram_writes
    long long done, resume_done, resume_now
    long long nloads, cap_loads
    long long *loads
    long long *steps        # nsteps x 6: kind, cycles, first_pc, last_pc, is_write, latency


cdef struct Port:            # simd.IssuePort: sorted disjoint bounds start0, end0, ...
    long long n, cap
    long long *b


cdef class _Engine:
    cdef Event *heap
    cdef long long nheap, cap_heap, eid
    cdef Group *groups
    cdef long long ngroups
    cdef Port *ports
    cdef long long nsimds
    cdef Server l2, ic, dram
    cdef bint has_ic
    cdef long long l2_latency, ic_latency, dram_latency, sector_bytes
    cdef long long last_time
    # per CU (Python objects, few calls each)
    cdef list cus, waiting, admit_running, cu_front, cu_in_flight, cu_sectors
    cdef long long[:] cu_capacity, cu_chunk, cu_lookups
    # per SIMD write-back state
    cdef list simd_cu
    cdef long long[:] simd_free, simd_busy, simd_last_store, simd_has_port, simd_index, simd_cu_index
    cdef object split, costs, traffic, recorder, dram_log, schedules
    cdef bint segments, memory_rows, sum_traffic
    cdef list pieces, piece_index
    # the workgroup dispatcher (workgroup_dispatcher.py), in C integers
    cdef long long total, per_group, launch_cycles, launchers, launch_carry, next_wave, next_launch, handed_out
    cdef long long path0, first_exception, last_exception    # exceptions: -1 when every wave has path0
    # the last schedule looked up (most cohorts of a dispatch share one)
    cdef long long last_path, last_waves, last_nsteps, last_busy
    cdef long long *last_steps
    # per-wave traffic (caches.DispatchTraffic.per_wave): per pc, the (fields, waves) array's memory
    cdef long long npcs
    cdef char **pc_data
    cdef long long *pc_item
    cdef long long *pc_row
    cdef long long *pc_col
    cdef long long *pc_waves
    cdef list keep           # the arrays pc_data points into
    # the trace's wave-group rows (cu, simd, group, first wave, waves, start, end, ALU cycles), handed to
    # the recorder at the end (TraceRecorder.wave_groups: as one wave_group call per cohort)
    cdef long long *rows
    cdef long long nrows, cap_rows

    def __cinit__(self):
        self.heap = NULL
        self.groups = NULL
        self.ports = NULL
        self.pc_data = NULL
        self.pc_item = self.pc_row = self.pc_col = self.pc_waves = NULL
        self.rows = NULL
        self.nrows = self.cap_rows = 0

    def __dealloc__(self):
        cdef long long i
        if self.groups != NULL:
            for i in range(self.ngroups):
                free(self.groups[i].loads)
            free(self.groups)
        if self.ports != NULL:
            for i in range(self.nsimds):
                free(self.ports[i].b)
            free(self.ports)
        free(self.heap)
        free(self.pc_data)
        free(self.pc_item)
        free(self.pc_row)
        free(self.pc_col)
        free(self.pc_waves)
        free(self.rows)

    cdef void wave_group(self, Group *g, long long s):
        """One cohort's trace row (see `rows`)."""
        cdef long long *r
        if self.nrows == self.cap_rows:
            self.cap_rows = self.cap_rows * 2 + 1024
            self.rows = <long long *> realloc(self.rows, self.cap_rows * 8 * sizeof(long long))
        r = self.rows + 8 * self.nrows
        r[0], r[1], r[2], r[3] = self.simd_cu_index[s], self.simd_index[s], g.group, g.first_wave
        r[4], r[5], r[6], r[7] = g.waves, g.begin, g.now, g.busy
        self.nrows += 1

    cdef object row_columns(self):
        """The wave-group rows as 8 lists of ints, one per column."""
        if self.nrows == 0:
            return [[] for _ in range(8)]
        cdef long long[:, ::1] rows = <long long[:self.nrows, :8]> self.rows
        return np.asarray(rows).T.tolist()

    # ---- a cohort's traffic (caches.DispatchTraffic.cohort, summed here) ---------------------------
    cdef int load_traffic(self, traffic) except -1:
        """Point at every memory instruction's per-wave costs (no copy: any unsigned width)."""
        cdef long long pc, n = 0
        for pc in traffic.per_wave:
            if pc + 1 > n:
                n = pc + 1
        self.npcs = n
        self.pc_data = <char **> malloc(max(1, n) * sizeof(char *))
        self.pc_item = <long long *> malloc(max(1, n) * sizeof(long long))
        self.pc_row = <long long *> malloc(max(1, n) * sizeof(long long))
        self.pc_col = <long long *> malloc(max(1, n) * sizeof(long long))
        self.pc_waves = <long long *> malloc(max(1, n) * sizeof(long long))
        self.keep = []
        for pc in range(n):
            self.pc_data[pc] = NULL
        for pc, array in traffic.per_wave.items():
            if not (array.dtype.kind == "u" and array.dtype.itemsize in (1, 2, 4, 8)
                    or array.dtype.kind == "i" and array.dtype.itemsize == 8) or array.ndim != 2 or array.shape[0] != 7:
                return 1                       # not a layout summed here: ask DispatchTraffic
            self.keep.append(array)
            self.pc_data[pc] = <char *> <size_t> array.ctypes.data
            self.pc_item[pc] = array.dtype.itemsize
            self.pc_row[pc], self.pc_col[pc] = array.strides
            self.pc_waves[pc] = array.shape[1]
        return 0

    cdef void cohort_traffic(self, Group *g):
        """The cohort's sectors, lines, ... at its instruction (TRAFFIC_FIELDS summed over its waves)."""
        cdef long long f, j, total, item, row, col, waves = 0
        cdef long long out[7]
        cdef char *base
        cdef char *at
        if g.pc < self.npcs and self.pc_data[g.pc] != NULL:      # the waves of the range that exist
            waves = min(g.waves, self.pc_waves[g.pc] - g.first_wave)
        if waves <= 0:
            for f in range(7):
                out[f] = 0
        else:
            base, item, row, col = self.pc_data[g.pc], self.pc_item[g.pc], self.pc_row[g.pc], self.pc_col[g.pc]
            for f in range(7):
                total = 0
                at = base + f * row + g.first_wave * col
                for j in range(waves):
                    if item == 1:
                        total += (<unsigned char *> at)[0]
                    elif item == 2:
                        total += (<unsigned short *> at)[0]
                    elif item == 4:
                        total += (<unsigned int *> at)[0]
                    else:
                        total += (<long long *> at)[0]
                    at += col
                out[f] = total
        g.sectors, g.lines = out[0], out[1]
        g.ic_hits, g.dram_reads, g.dram_writes, g.ic_writes = out[3], out[4], out[5], out[6]

    # ---- the event heap (simpy's order: time, priority, insertion) --------------------------------
    cdef void schedule(self, long long time, long long priority, long long target):
        cdef long long i, parent
        cdef Event e
        if self.nheap == self.cap_heap:
            self.cap_heap = self.cap_heap * 2 + 16
            self.heap = <Event *> realloc(self.heap, self.cap_heap * sizeof(Event))
        e.time, e.priority, e.eid, e.target = time, priority, self.eid, target
        self.eid += 1
        i = self.nheap
        self.nheap += 1
        while i > 0:
            parent = (i - 1) >> 1
            if _before(e, self.heap[parent]):
                self.heap[i] = self.heap[parent]
                i = parent
            else:
                break
        self.heap[i] = e

    cdef Event pop(self):
        cdef Event top = self.heap[0]
        cdef Event last
        cdef long long i, child, n
        self.nheap -= 1
        n = self.nheap
        if n > 0:
            last = self.heap[n]
            i = 0
            while True:
                child = 2 * i + 1
                if child >= n:
                    break
                if child + 1 < n and _before(self.heap[child + 1], self.heap[child]):
                    child += 1
                if _before(self.heap[child], last):
                    self.heap[i] = self.heap[child]
                    i = child
                else:
                    break
            self.heap[i] = last
        return top

    # ---- the memory servers (memory_system.py) ----------------------------------------------------
    cdef void book(self, Server *s, long long start_units, long long end_units, long long num_bytes,
                   long long *start, long long *end):
        cdef long long bps = s.upc, windows
        start[0] = _ceil(start_units, bps)
        end[0] = _ceil(end_units, bps)
        if s.refresh_interval:
            windows = end[0] // s.refresh_interval - start[0] // s.refresh_interval
            if windows:
                end[0] += windows * s.refresh_cycles
                end_units += windows * s.refresh_cycles * bps
        s.free_units = end_units
        s.busy_cycles += end[0] - start[0]
        s.num_bytes += num_bytes

    cdef void serve(self, Server *s, long long now, long long num_bytes, long long *start, long long *end):
        cdef long long start_units = now * s.upc
        if start_units < s.free_units:
            start_units = s.free_units
        self.book(s, start_units, start_units + num_bytes * s.upb, num_bytes, start, end)

    cdef void serve_mixed(self, long long now, long long num_bytes, long long write_bytes,
                          long long *start, long long *end):
        cdef Server *s = &self.dram
        cdef long long bps, start_units, work, end_units, s0, e0, x, rest, remain, pending
        if not s.stream_open:
            self.serve(s, now, num_bytes, start, end)
        else:                                       # DramServer._serve_shared
            bps = s.upc
            start_units = now * bps
            if start_units < s.free_units:
                start_units = s.free_units
            work = num_bytes * s.upb
            end_units = start_units + work
            s0, e0 = s.stream_start, s.stream_end
            if end_units > s0 and start_units < e0:
                x = s0 if start_units < s0 else start_units
                rest = work - (x - start_units)
                remain = e0 - x
                if rest <= remain:
                    end_units = x + 2 * rest
                    s.stream_end = e0 + rest
                else:
                    end_units = x + 2 * remain + (rest - remain)
                    s.stream_end = x + 2 * remain
                s.shared_cycles += _ceil(end_units - x, bps)
            self.book(s, start_units, end_units, num_bytes, start, end)
        if s.turnaround:
            if num_bytes > write_bytes:
                s.read_since_drain = 1
            pending = s.pending_write + write_bytes
            if pending >= s.write_batch:
                pending %= s.write_batch
                if s.read_since_drain:
                    s.free_units += s.turnaround * s.upc
                    s.turnarounds += 1
                    s.read_since_drain = 0
            s.pending_write = pending

    cdef long long request(self, long long now, long long l2_bytes, long long ic_bytes, long long dram_bytes,
                           bint is_write, long long ic_read_bytes, long long dram_read_bytes) except? -1:
        """MemorySystem.request."""
        cdef long long start, end, done
        self.serve(&self.l2, now, l2_bytes, &start, &end)
        done = end + self.l2_latency
        if ic_bytes:
            self.serve(&self.ic, now, ic_bytes, &start, &end)
            end += self.ic_latency
            if ic_read_bytes and end > done:
                done = end
        if dram_bytes:
            self.serve_mixed(now, dram_bytes, dram_bytes - dram_read_bytes, &start, &end)
            if dram_read_bytes and end + self.dram_latency > done:
                done = end + self.dram_latency
            if self.dram_log is not None:
                self.dram_log.append((start, end, dram_bytes, is_write))
        return done

    # ---- the compute units' miss queues (compute_unit.py) ------------------------------------------
    cdef long long retire(self, long long c, long long now) except? -1:
        cdef list heap = self.cu_in_flight[c]
        cdef long long freed = 0
        while heap and <long long> heap[0][0] <= now:
            freed += <long long> heapq.heappop(heap)[1]
        if freed:
            self.cu_sectors[c] = <long long> self.cu_sectors[c] - freed
        return <long long> self.cu_sectors[c]

    cdef long long try_issue(self, long long c, long long now, long long sectors, bint is_write, long long l2,
                             long long ic, long long dram, long long ic_reads, long long dram_reads) except? -2:
        """ComputeUnit.try_issue: the completion cycle, or -1 when the miss queue has no room."""
        cdef long long in_flight = self.retire(c, now), done
        if in_flight + sectors > self.cu_capacity[c]:
            return -1
        done = self.request(now, l2, ic, dram, is_write, ic_reads, dram_reads)
        heapq.heappush(self.cu_in_flight[c], (done, sectors))
        self.cu_sectors[c] = in_flight + sectors
        return done

    cdef int admit(self, long long c, long long now) except -1:
        """ComputeUnit._admit from cycle `now` until it must wait (then its event is scheduled) or the
        queue is empty (then it ends)."""
        cdef object waiting = self.waiting[c]
        cdef list request
        cdef long long sectors, sent, done, left, free_, want, wake, end, piece, in_flight, g, i
        cdef long long capacity = self.cu_capacity[c], chunk = self.cu_chunk[c]
        cdef long long shares[5]
        cdef bint is_write
        cdef Group *group
        while waiting:
            request = waiting[0]
            sectors, sent, is_write, g, done = request[0], request[1], request[3], request[4], request[5]
            if done > now and not sent:
                self.schedule(done, NORMAL, self.ngroups + c)
                return 0
            in_flight = self.retire(c, now)
            left = sectors - sent
            free_ = capacity - in_flight
            want = left if left < chunk else chunk
            if free_ < want:
                wake = self.cus[c].time_until_free(want - free_)
                self.schedule(wake, NORMAL, self.ngroups + c)
                return 0
            end = sent + (free_ if free_ < left else left)
            level = request[2]
            for i in range(5):
                if end - sent == sectors:
                    shares[i] = level[i]
                else:
                    shares[i] = (<long long> level[i]) * end // sectors - (<long long> level[i]) * sent // sectors
            piece = self.request(now, shares[0], shares[1], shares[2], is_write, shares[3], shares[4])
            heapq.heappush(self.cu_in_flight[c], (piece, end - sent))
            self.cu_sectors[c] = in_flight + end - sent
            if piece > done:
                done = piece
            if end == sectors:
                waiting.popleft()
                group = &self.groups[g]         # event.succeed((done, now)): the cohort resumes
                group.resume_done, group.resume_now = done, now
                self.schedule(now, NORMAL, g)
            else:
                request[1], request[5] = end, done
        self.admit_running[c] = False
        return 0

    # ---- the issue port (simd.IssuePort.book and Simd.run's inline appends) ------------------------
    cdef long long port_book(self, long long simd, long long now, long long t, long long cycles):
        cdef Port *p = &self.ports[simd]
        cdef long long *b = p.b
        cdef long long n = p.n, i, lo, hi, end
        if n and b[n - 1] <= t and n <= 16:          # nothing booked from t on: append (fused if adjacent)
            if b[n - 1] == t:
                b[n - 1] = t + cycles
                return t
            self._port_room(p, 2)
            p.b[n], p.b[n + 1] = t, t + cycles
            p.n = n + 2
            return t
        if n == 0:
            self._port_room(p, 2)
            p.b[0], p.b[1] = t, t + cycles
            p.n = 2
            return t
        # IssuePort.book: drop what is over, find the first gap at or after t that fits.
        if b[1] <= now:
            i = 2
            while i < n and b[i + 1] <= now:
                i += 2
            for lo in range(n - i):
                b[lo] = b[lo + i]
            n -= i
            p.n = n
        lo, hi = 0, n                               # bisect_right(b, t)
        while lo < hi:
            i = (lo + hi) >> 1
            if t < b[i]:
                hi = i
            else:
                lo = i + 1
        i = lo
        if i & 1:
            t = b[i]
            i += 1
        while i < n and t + cycles > b[i]:
            t = b[i + 1]
            i += 2
        end = t + cycles
        if i and b[i - 1] == t:
            if i < n and b[i] == end:
                for lo in range(i - 1, n - 2):
                    b[lo] = b[lo + 2]
                p.n = n - 2
            else:
                b[i - 1] = end
        elif i < n and b[i] == end:
            b[i] = t
        else:
            self._port_room(p, 2)
            b = p.b
            lo = n - 1
            while lo >= i:
                b[lo + 2] = b[lo]
                lo -= 1
            b[i], b[i + 1] = t, end
            p.n = n + 2
        return t

    cdef void _port_room(self, Port *p, long long more):
        if p.n + more > p.cap:
            p.cap = (p.n + more) * 2
            p.b = <long long *> realloc(p.b, p.cap * sizeof(long long))

    # ---- the workgroup dispatcher (WorkgroupDispatcher.take and split_by_path) ---------------------
    cdef bint take(self, long long now, long long slots, long long *start, long long *first, long long *count):
        cdef long long groups, spent
        if self.next_wave >= self.total:
            return False
        first[0] = self.next_wave
        count[0] = slots if slots < self.total - first[0] else self.total - first[0]
        self.next_wave = first[0] + count[0]
        groups = _ceil(first[0] + count[0], self.per_group) - _ceil(first[0], self.per_group)
        start[0] = now if now > self.next_launch else self.next_launch
        if self.launchers == 1:
            self.next_launch = start[0] + groups * self.launch_cycles
        else:
            spent = groups * self.launch_cycles + self.launch_carry
            self.next_launch = start[0] + spent // self.launchers
            self.launch_carry = spent % self.launchers
        if self.next_wave >= self.total:
            self.handed_out = start[0]
        return True

    # ---- a slot group (simd.Simd.run as a state machine) -------------------------------------------
    cdef void insort(self, Group *g, long long value):
        cdef long long i
        if g.nloads == g.cap_loads:
            g.cap_loads = g.cap_loads * 2 + 8
            g.loads = <long long *> realloc(g.loads, g.cap_loads * sizeof(long long))
        i = g.nloads
        while i > 0 and g.loads[i - 1] > value:     # bisect.insort: after equal values
            g.loads[i] = g.loads[i - 1]
            i -= 1
        g.loads[i] = value
        g.nloads += 1

    cdef void drop_loads(self, Group *g, long long k):
        cdef long long i
        for i in range(g.nloads - k):
            g.loads[i] = g.loads[i + k]
        g.nloads -= k

    cdef int load_steps(self, Group *g) except -1:
        cdef long long i, n
        if g.path_id == self.last_path and g.waves == self.last_waves:
            g.steps, g.nsteps, g.busy = self.last_steps, self.last_nsteps, self.last_busy
            return 0
        cdef object key = (g.path_id, g.waves)
        cdef object entry = self.schedules.get(key)
        if entry is None:
            steps, busy = self.costs[g.path_id].schedule(g.waves)
            n = len(steps)
            buf = bytearray(max(1, n) * 6 * sizeof(long long))
            view = memoryview(buf).cast("q")
            for i, step in enumerate(steps):
                view[6 * i], view[6 * i + 1], view[6 * i + 2] = step.kind, step.cycles, step.first_pc
                view[6 * i + 3], view[6 * i + 4], view[6 * i + 5] = step.last_pc, bool(step.is_write), step.latency
            entry = (buf, n, busy)
            self.schedules[key] = entry
        cdef char *raw = entry[0]
        g.steps = <long long *> raw
        g.nsteps = entry[1]
        g.busy = entry[2]
        self.last_path, self.last_waves = g.path_id, g.waves
        self.last_steps, self.last_nsteps, self.last_busy = g.steps, g.nsteps, g.busy
        return 0

    cdef int run_group(self, long long gi, long long now) except -1:
        cdef Group *g = &self.groups[gi]
        cdef long long s = g.simd, cycles, kind, k, c, arrive, done, sector_bytes = self.sector_bytes
        cdef long long *st
        cdef bint has_port = self.simd_has_port[s]
        cdef long long start_at, first, count
        g.now = now
        if g.state == G_START:
            if self.simd_free[s] > now:
                g.state = G_TAKE
                self.schedule(self.simd_free[s], NORMAL, gi)
                return 0
            g.state = G_TAKE
        while True:
            if g.state == G_TAKE:
                if not self.take(g.now, g.slots, &start_at, &first, &count):
                    if g.now > self.simd_free[s]:
                        self.simd_free[s] = g.now
                    g.state = G_DONE
                    return 0
                g.first, g.count = first, count
                g.state = G_SPLIT
                if start_at > g.now:
                    self.schedule(start_at, NORMAL, gi)
                    return 0
            if g.state == G_SPLIT:
                if self.first_exception < 0 or self.last_exception < g.first or \
                        self.first_exception >= g.first + g.count:
                    self.pieces[gi] = None         # one piece: (path0, first, count)
                else:
                    self.pieces[gi] = self.split(g.first, g.count)
                self.piece_index[gi] = 0
                g.state = G_COHORT_END
                g.t = g.now
                g.begin = -1                        # no cohort ended yet
            if g.state == G_COHORT_END:
                if g.begin >= 0:                    # the cohort that just ended
                    if self.recorder is not None:
                        self.wave_group(g, s)
                    self.piece_index[gi] += 1
                pieces = self.pieces[gi]
                if pieces is None:
                    if self.piece_index[gi] == 1:
                        g.state = G_TAKE
                        continue
                    g.path_id, g.first_wave, g.waves = self.path0, g.first, g.count
                else:
                    if self.piece_index[gi] == len(pieces):
                        g.state = G_TAKE
                        continue
                    g.path_id, g.first_wave, g.waves = pieces[self.piece_index[gi]]
                g.begin = g.now
                self.load_steps(g)
                self.simd_busy[s] += g.busy
                g.t = g.now
                g.nloads = 0
                g.step = 0
                g.state = G_WALK
            elif g.state == G_VMEM or g.state == G_ROOM:
                if g.state == G_VMEM:
                    # The request reaches the cache front end, then the miss queue (Simd.run).
                    c = self.simd_cu[s]
                    g.now = g.t
                    if g.lines:
                        arrive = g.t + g.latency
                        k = <long long> self.cu_front[c]
                        if arrive < k:
                            arrive = k
                        arrive += (g.lines + self.cu_lookups[c] - 1) // self.cu_lookups[c]
                        self.cu_front[c] = arrive
                    else:
                        arrive = g.t
                    g.done = arrive
                    if g.sectors:
                        done = self.try_issue(c, arrive, g.sectors, g.is_write, g.sectors * sector_bytes,
                                              (g.ic_hits + g.ic_writes) * sector_bytes,
                                              (g.dram_reads + g.dram_writes) * sector_bytes, g.ic_hits * sector_bytes,
                                              g.dram_reads * sector_bytes)
                        if done < 0:              # the miss queue is full: wait in the CU's queue
                            self.waiting[c].append([g.sectors, 0,
                                                    (g.sectors * sector_bytes, (g.ic_hits + g.ic_writes) * sector_bytes,
                                                     (g.dram_reads + g.dram_writes) * sector_bytes,
                                                     g.ic_hits * sector_bytes, g.dram_reads * sector_bytes),
                                                    g.is_write, gi, arrive])
                            if not self.admit_running[c]:
                                self.admit_running[c] = True
                                self.schedule(g.now, URGENT, self.ngroups + c)
                            g.state = G_ROOM
                            return 0
                        g.done = done
                else:
                    g.done, g.now = g.resume_done, g.resume_now
                if g.sectors:
                    if self.memory_rows:
                        self.recorder.memory(self.simd_cu_index[s], self.simd_index[s], g.group, g.pc, g.issued,
                                             g.done, g.sectors * sector_bytes,
                                             (g.dram_reads + g.dram_writes) * sector_bytes, bool(g.is_write))
                if self.segments:
                    self.recorder.segment(self.simd_cu_index[s], self.simd_index[s], g.group, g.first_wave, g.waves,
                                          g.pc, g.pc, g.issued, g.t)
                g.t = g.now
                if g.is_write:
                    if g.done > self.simd_last_store[s]:
                        self.simd_last_store[s] = g.done
                else:
                    self.insort(g, g.done)
                g.step += 1
                g.state = G_WALK
            # ---- G_WALK: the cohort's steps from g.step on ----
            while g.step < g.nsteps:
                st = g.steps + 6 * g.step
                kind, cycles = st[0], st[1]
                if kind == ALU:
                    if has_port:
                        g.t = self.port_book(s, g.now, g.t, cycles)
                    if self.segments:
                        self.recorder.segment(self.simd_cu_index[s], self.simd_index[s], g.group, g.first_wave,
                                              g.waves, st[2], st[3], g.t, g.t + cycles)
                    g.t += cycles
                elif kind == SMEM:
                    self.insort(g, g.t + cycles)
                elif kind == WAIT:
                    k = 0
                    while k < g.nloads and g.loads[k] <= g.t:
                        k += 1
                    if k:
                        self.drop_loads(g, k)
                    if g.nloads > cycles:
                        g.t = g.loads[g.nloads - cycles - 1]
                        self.drop_loads(g, g.nloads - cycles)
                else:
                    if has_port:
                        g.t = self.port_book(s, g.now, g.t, cycles)
                    g.issued = g.t
                    g.t += cycles
                    g.pc, g.is_write, g.latency = st[2], st[4], st[5]
                    if self.sum_traffic:
                        self.cohort_traffic(g)
                    else:
                        traffic = self.traffic(g.pc, g.first_wave, g.waves)
                        g.sectors, g.lines = traffic[0], traffic[1]
                        g.ic_hits, g.dram_reads, g.dram_writes = traffic[3], traffic[4], traffic[5]
                        g.ic_writes = traffic[6]
                    g.state = G_VMEM
                    self.schedule(g.t, NORMAL, gi)
                    return 0
                g.step += 1
            # the cohort's last step: it ends at its clock
            g.state = G_COHORT_END
            if g.t > g.now:
                self.schedule(g.t, NORMAL, gi)
                return 0


def run(sim, simds, order, compute_units, memory, launched):
    """Run one dispatch's simulation as CommandProcessor.simulate_dispatch's simpy environment would
    (`order`: the (group, simd) pairs in the order their processes start). Returns the cycle of the
    last event (env.now after env.run()), having written every SIMD's, CU's and server's state back;
    None, with nothing changed, when the rates do not fit 64-bit arithmetic."""
    servers = [memory.l2, memory.dram] + ([memory.infinity_cache] if memory.infinity_cache is not None else [])
    for server in servers:
        if server.units_per_cycle >= LIMIT or server.units_per_byte >= LIMIT or server.free_units >= 1 << 60:
            return None
    if memory.dram.stream_end is not None and memory.dram.stream_end >= 1 << 60:
        return None
    # Cycles reach byte-time units as cycle x units_per_cycle: keep the dispatch's start below 2^60
    # units, which leaves it 2^62 - 2^60 units (over 2^37 cycles at the largest rate taken) to run.
    if launched * max(server.units_per_cycle for server in servers) >= 1 << 60:
        return None
    cdef _Engine e = _Engine()
    cdef long long i, n = len(simds)
    cdef Event ev
    e.cap_heap, e.nheap, e.eid = 0, 0, 0
    d = sim.dispatcher
    e.split, e.costs = d.split_by_path, sim.path_costs
    e.total, e.per_group, e.launch_cycles, e.launchers = d.total, d.per_group, d.launch_cycles, d.launchers
    e.launch_carry, e.next_wave, e.next_launch, e.handed_out = d.launch_carry, d.next_wave, d.next_launch, d.handed_out
    e.path0 = d._path0
    e.first_exception = -1 if d._first_exception is None else d._first_exception
    e.last_exception = -1 if d._last_exception is None else d._last_exception
    e.last_path, e.last_waves = -1, -1
    e.traffic = sim.traffic.cohort
    e.sum_traffic = e.load_traffic(sim.traffic) == 0
    e.recorder = sim.recorder
    e.segments = sim.recorder is not None and sim.recorder.keeps_segments
    e.memory_rows = sim.recorder is not None and sim.recorder.keeps_memory
    e.sector_bytes = sim.sector_bytes
    e.schedules = {}
    e.dram_log = memory.dram_log
    e.l2_latency, e.ic_latency, e.dram_latency = memory.l2_latency, memory.ic_latency, memory.dram_latency
    _load_server(&e.l2, memory.l2, False)
    _load_server(&e.dram, memory.dram, True)
    e.has_ic = memory.infinity_cache is not None
    if e.has_ic:
        _load_server(&e.ic, memory.infinity_cache, False)
    # compute units
    index = {id(cu): k for k, cu in enumerate(compute_units)}
    e.cus = list(compute_units)
    e.waiting = [cu.waiting for cu in compute_units]
    e.admit_running = [False] * len(compute_units)
    e.cu_front = [cu.front_end_free for cu in compute_units]
    e.cu_in_flight = [cu.in_flight for cu in compute_units]
    e.cu_sectors = [cu.sectors_in_flight for cu in compute_units]
    e.cu_capacity = np.array([cu.capacity for cu in compute_units], dtype=np.int64)
    e.cu_chunk = np.array([cu.chunk for cu in compute_units], dtype=np.int64)
    e.cu_lookups = np.array([cu.lookups_per_cycle for cu in compute_units], dtype=np.int64)
    # SIMDs and their ports
    simd_number = {id(s): k for k, s in enumerate(simds)}
    e.simd_cu = [index[id(s.cu)] for s in simds]
    e.simd_free = np.array([s.free_at for s in simds], dtype=np.int64)
    e.simd_busy = np.array([s.busy_cycles for s in simds], dtype=np.int64)
    e.simd_last_store = np.array([s.last_store for s in simds], dtype=np.int64)
    e.simd_has_port = np.array([s.port is not None for s in simds], dtype=np.int64)
    e.simd_index = np.array([s.index for s in simds], dtype=np.int64)
    e.simd_cu_index = np.array([s.cu.index for s in simds], dtype=np.int64)
    e.nsimds = n
    e.ports = <Port *> malloc(max(1, n) * sizeof(Port))
    for i in range(n):
        e.ports[i].n, e.ports[i].cap, e.ports[i].b = 0, 0, NULL
    # slot groups, started in `order` (urgent Initialize events at `launched`)
    e.ngroups = len(order)
    e.groups = <Group *> malloc(max(1, e.ngroups) * sizeof(Group))
    e.pieces = [None] * e.ngroups
    e.piece_index = [0] * e.ngroups
    for i, (g, simd) in enumerate(order):
        k = simd_number[id(simd)]
        e.groups[i].simd, e.groups[i].group, e.groups[i].slots = k, g, simd.group_slots[g]
        e.groups[i].state, e.groups[i].nloads, e.groups[i].cap_loads, e.groups[i].loads = G_START, 0, 0, NULL
        e.groups[i].begin = -1
        e.schedule(launched, URGENT, i)
    e.last_time = launched
    while e.nheap:
        ev = e.pop()
        e.last_time = ev.time
        if ev.target < e.ngroups:
            e.run_group(ev.target, ev.time)
        else:
            e.admit(ev.target - e.ngroups, ev.time)
    if e.recorder is not None:
        e.recorder.wave_groups(*e.row_columns())
    # write the state back
    d.launch_carry, d.next_wave, d.next_launch, d.handed_out = e.launch_carry, e.next_wave, e.next_launch, e.handed_out
    for i in range(n):
        s = simds[i]
        s.free_at, s.busy_cycles, s.last_store = int(e.simd_free[i]), int(e.simd_busy[i]), int(e.simd_last_store[i])
    for i, cu in enumerate(compute_units):
        cu.front_end_free, cu.sectors_in_flight = e.cu_front[i], e.cu_sectors[i]
    _store_server(&e.l2, memory.l2, False)
    _store_server(&e.dram, memory.dram, True)
    if e.has_ic:
        _store_server(&e.ic, memory.infinity_cache, False)
    return e.last_time


cdef void _load_server(Server *s, server, bint dram):
    s.upb, s.upc, s.free_units = server.units_per_byte, server.units_per_cycle, server.free_units
    s.refresh_interval, s.refresh_cycles = server.refresh_interval, server.refresh_cycles
    s.busy_cycles, s.num_bytes = server.busy_cycles, server.bytes
    s.turnaround = 0
    s.stream_open = 0
    if dram:
        s.write_batch, s.turnaround, s.pending_write = server.write_batch_bytes, server.turnaround_cycles, \
            server.pending_write_bytes
        s.read_since_drain, s.turnarounds, s.shared_cycles = server.read_since_drain, server.turnarounds, \
            server.shared_cycles
        s.stream_open = server.stream_end is not None
        if s.stream_open:
            s.stream_start, s.stream_end = server.stream_start, server.stream_end


cdef void _store_server(Server *s, server, bint dram):
    server.free_units, server.busy_cycles, server.bytes = s.free_units, s.busy_cycles, s.num_bytes
    if dram:
        server.pending_write_bytes, server.read_since_drain = s.pending_write, bool(s.read_since_drain)
        server.turnarounds, server.shared_cycles = s.turnarounds, s.shared_cycles
        if s.stream_open:
            server.stream_start, server.stream_end = s.stream_start, s.stream_end
