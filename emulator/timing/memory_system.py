"""The memory system's bandwidth: the L2, the Infinity Cache and DRAM that every compute unit shares.

One per device, like the caches (caches.py) whose classification it charges. A
vector memory request arrives from a compute unit's memory pipeline already classified by the
caches: how many bytes pass the L2, how many the Infinity Cache serves and how many DRAM moves
(misses of the last level and write-backs only). DRAM is a FIFO server at the preset's bandwidth:
a request waits for the requests ahead of it, transfers at the peak rate, and stalls while the DRAM
refreshes (every refresh_interval_cycles, for refresh_cycles). Its data (or its write
acknowledgement) arrives dram_latency_cycles after the transfer. Reads and writes share the data
bus: the memory controllers hold writes in their write queues and drain them in batches of
dram_write_batch_bytes; a drain that follows reads turns the bus around (read-to-write, then back
write-to-read) and leaves it idle for dram_turnaround_cycles, which delays every later transfer.
A stream of only reads or only writes never turns the bus around. The L2 and the Infinity Cache are
FIFO servers at their own bandwidth with their own latency.

DRAM banks. Where the preset has them (dram_channels), the caches also say how many of a request's
DRAM reads open a row (dram_rows.py: the bank's open row is another one). Opening rows has a budget:
the activation server, a FIFO server of activations for all channels together at the preset's
dram_activations_per_second (min of channels / tRRD, 4 x channels / tFAW, channels x banks / tRC),
takes the request's activations from its arrival on, and the reads' data comes no earlier than the
last one's slot ends (then dram_latency_cycles after, the latency of a row miss: what a pointer chase
measures). A request whose DRAM reads all hit open rows waits tRP + tRCD less (row_hit_latency). So a
packed stream (one activation per row of each channel) runs at the data bus's rate, while scattered
sectors (a transposed read) are bound by activations: 32-byte sectors at 24.8 G activations per second
move 0.8 TB/s on the h200 preset. Write-backs take no activation (the controllers drain them in
batches, row by row). With no banks (dram_channels 0) every read waits dram_latency_cycles.

Write back-pressure. The write-backs of dirty sectors that the L2 evicts go to DRAM through the memory
controllers' write queues, which hold `dram_write_queue_bytes` (all channels together; GPGPU-Sim's
separate DRAM write queue: presets.py). A write-back enters the queue at once while its bytes fit; the
bytes leave it when DRAM has transferred them (the end of their transfer on the DRAM server). When the
queue is full, the request that caused the eviction (a store that allocates, or a read miss whose fill
needs the way) waits until enough earlier write-backs have left for its own to fit, and the L2 answers
it only then (its latency after): so a store stream larger than the caches runs at DRAM speed, not at
L2 speed, and its cohorts stall on their CU's miss queue as the acknowledgements come late. Write-backs
of one request larger than the whole queue enter when their own transfer ends. A preset with
dram_write_queue_bytes 0 has no bound (nothing waits for write-backs).

The L2's atomic units serve buffer atomics (simd.py): `l2_atomics_per_cycle` units (one per L2
slice), each a FIFO server of one read-modify-write operation per cycle; sector s belongs to unit
s mod l2_atomics_per_cycle. A wave's atomic costs one operation per sector it touches, at that
sector's unit, and one more per extra lane on one dword (same-address lanes serialise:
DispatchRecord.atomic_lanes), at the unit of the wave's first sector (exact when the wave touches
one sector, as all-lanes-one-address does). Waves hitting one address all queue at one unit: one
operation per cycle for the whole GPU. An atomic completes when its bytes and its operations are
through.

The copy engine shares DRAM with the compute units (timing/copy_engine.py). A copy on a COPY queue
is an open *stream* on the DRAM server until its completion is observed (a timestamp, a fence
signal, the next copy: gpu.py). While a stream and a compute request both have bytes to move, the
memory controllers serve the two requesters in turn, half the bandwidth each: the request takes
twice as long as alone and pushes the stream's end back by its own transfer time (the bus time it
took from the copy). So both slow down, and the bytes the two move together take as long as they
would one after the other. A stream whose completion was observed is fixed: later requests queue
behind its bytes (first come, first served).

The host link (PCIe) is where a discrete GPU reaches host memory: UPLOAD and READBACK heaps (and
CUSTOM heaps in the L0 pool) live there (gpu.py keeps their address ranges; caches.py sends their
sectors here instead of through the caches). `HostLink` is two FIFO servers, one per direction (PCIe
is full duplex), at the preset's measured rate (raw rate x efficiency), with the round trip of a read
of host memory as latency: a kernel's reads of host memory come back over the to-device direction,
its writes go over the to-host direction, and a request waits for its host bytes' transfer plus the
link's latency. Copies to and from host memory stream over it too (gpu.py, copy_engine.py). A UMA
preset has no link (host_link_bytes_per_second 0): its host heaps are its own memory.

Time is integer cycles. Bandwidth arithmetic is exact: a server's clock is kept in "byte-time"
units (one cycle = bytes_per_second units, one byte = clock_hz units), so no rounding
accumulates however many requests are served. Speed: both are divided by their greatest common
divisor first (every quantity is a sum of multiples of the two, so all of them scale alike and every
cycle comes out the same), which keeps the numbers small: an L2 of 2,048 bytes per cycle counts
2,048 units a cycle instead of 5 x 10^12 at 2.5 GHz, and Python's arithmetic on small integers is
faster.

Compiled by Cython where a C compiler is (memory_system.pxd types it; setup.py): the byte-time
quantities are then C 64-bit integers. A device whose rates could overflow them runs interpreted units
instead, whose Python integers are unbounded (physics.py: the 64-bit guard).
"""
import math
from bisect import bisect_left

from dmlemu.timing.physics import compacted, compiled_file, zeros

COMPILED = compiled_file(__file__)    # which containers (physics.zeros)


class FifoServer:
    """A first-come first-served server with a fixed byte rate (exact integer arithmetic)."""

    def __init__(self, clock_hz, bytes_per_second, refresh_interval=0, refresh_cycles=0):
        common = math.gcd(clock_hz, bytes_per_second)
        self.units_per_byte = clock_hz // common            # clock_hz, reduced
        self.units_per_cycle = bytes_per_second // common   # bytes_per_second, reduced
        self.free_units = 0
        # The refresh period and window (refresh_interval and refresh_cycles cycles; 0: no refresh) in
        # byte-time units, the units finish() works in.
        self.refresh_period_units = refresh_interval * self.units_per_cycle
        self.refresh_window_units = refresh_cycles * self.units_per_cycle
        self.busy_cycles = 0
        self.bytes = 0
        self.start = 0       # the first cycle of the last transfer (finish() returns its end)
        self.stream_open = False     # a copy stream shares the server (DramServer.open_stream)

    def serve(self, now, num_bytes):
        """(start cycle, end cycle) of a transfer of num_bytes arriving at cycle `now`."""
        end = self.finish(now, num_bytes)
        return self.start, end

    def finish(self, now, num_bytes):
        """The end cycle of a transfer of num_bytes arriving at cycle `now`, behind what is queued (serve()
        without its tuple; the transfer's first cycle is then `start`); the server is busy until its end.

        With refresh, the DRAM transfers nothing during the refresh windows [k x interval, k x interval
        + refresh_cycles) (k >= 1): a transfer that would start inside one starts at its end, and one
        that reaches the next window pauses for it, as often as it reaches one (the work is served in
        the time between windows; exact in byte-time units). So a transfer never ends later because it
        started earlier or moved fewer bytes. While a copy stream is open on the server (DRAM's:
        DramServer.shared_end), the part of the transfer that overlaps it moves at half rate."""
        bps = self.units_per_cycle
        start_units = now * bps
        if start_units < self.free_units:     # (a comparison, not max(): this runs per request)
            start_units = self.free_units
        end_units = start_units + num_bytes * self.units_per_byte
        if self.stream_open:
            end_units = self.shared_end(start_units, end_units)
        if self.refresh_period_units:
            period = self.refresh_period_units
            window = self.refresh_window_units
            work = end_units - start_units
            k = start_units // period
            if k >= 1 and start_units - k * period < window:     # inside a window: from its end
                start_units = k * period + window
            base = (k + 1) * period                 # the next window's start
            if start_units + work <= base:
                end_units = start_units + work
            else:
                work -= base - start_units          # the work left at that window
                free = period - window              # work served between two windows
                j = (work - 1) // free              # the whole free stretches it fills first
                end_units = base + j * period + window + (work - j * free)
        start = -(-start_units // bps)
        end = -(-end_units // bps)
        self.free_units = end_units
        self.busy_cycles += end - start
        self.bytes += num_bytes
        self.start = start
        return end

    def shared_end(self, start_units, end_units):
        """Where a transfer from start_units to end_units ends while a copy stream shares the server
        (DramServer's; a plain server opens no stream)."""
        return end_units


class DramServer(FifoServer):
    """DRAM: a FifoServer whose data bus turns around between read and write batches and which
    shares its bandwidth with an open copy stream (see the banner)."""

    def __init__(self, preset):
        super().__init__(preset.clock_hz, preset.dram_bytes_per_second,
                         preset.refresh_interval_cycles, preset.refresh_cycles)
        self.write_batch_bytes = preset.dram_write_batch_bytes
        self.turnaround_cycles = preset.dram_turnaround_cycles
        self.pending_write_bytes = 0     # writes queued since the last drain
        self.read_since_drain = False    # the bus carried reads since the last drain
        self.turnarounds = 0
        # An open copy stream (stream_open) holds [stream_units_start, stream_units_end).
        self.stream_units_start = 0      # in byte-time units
        self.stream_units_end = 0
        self.shared_cycles = 0           # cycles compute requests spent sharing the bus with a stream
        # The write queues (see the banner): the write-backs in them, in the order DRAM serves them, are
        # entries queue_head .. queue_tail - 1 of two 64-bit arrays (lists interpreted: physics.zeros): the
        # cycle each one's transfer ends, and the bytes that entered the queue up to and including it (a
        # running total, from `left_bytes`: the bytes of the entries that have left). Speed: the write-backs
        # that must leave before a new one fits are then found by a binary search on the totals, not by a
        # walk over the entries (a store stream larger than the caches keeps thousands queued).
        self.write_queue_bytes = preset.dram_write_queue_bytes
        self.queue_leaves = zeros(64, COMPILED)
        self.queue_totals = zeros(64, COMPILED)
        self.queue_head = self.queue_tail = 0
        self.left_bytes = 0
        self.queued_write_bytes = 0      # their bytes together
        self.write_waits = 0             # write-backs that waited for room in the write queue

    @property
    def stream_start(self):
        """The open copy stream's start in byte-time units, or None."""
        return self.stream_units_start if self.stream_open else None

    @property
    def stream_end(self):
        """The open copy stream's end in byte-time units (pushed back by requests sharing it), or None."""
        return self.stream_units_end if self.stream_open else None

    def open_stream(self, now, num_bytes, cycles):
        """A copy engine's transfer of num_bytes (read and written bytes together) that holds the bus
        for `cycles` alone, from cycle `now` on, behind the requests already queued; it stays open,
        sharing the bus with later requests, until close_stream. Returns its (start, end) cycles as
        if nothing shared it."""
        assert not self.stream_open, "one copy stream at a time: close the last one first"
        start_units = max(now * self.units_per_cycle, self.free_units)
        self.stream_open = True
        self.stream_units_start = start_units
        self.stream_units_end = start_units + cycles * self.units_per_cycle
        self.bytes += num_bytes
        return -(-start_units // self.units_per_cycle), -(-self.stream_units_end // self.units_per_cycle)

    def close_stream(self):
        """Fix the open stream where the requests that shared it have pushed its end; later requests
        queue behind it. Returns its end cycle (None when no stream is open)."""
        if not self.stream_open:
            return None
        start, end = self.stream_units_start, self.stream_units_end
        self.stream_open = False
        if end > self.free_units:
            self.free_units = end
        first, last = -(-start // self.units_per_cycle), -(-end // self.units_per_cycle)
        self.busy_cycles += last - first
        return last

    def shared_end(self, start_units, end_units):
        """Where a transfer from start_units to end_units ends while the copy stream is open: the part
        that overlaps the stream moves at half rate and pushes the stream's end back by its own length
        (see the banner)."""
        s0, e0 = self.stream_units_start, self.stream_units_end
        if end_units > s0 and start_units < e0:
            work = end_units - start_units
            x = s0 if start_units < s0 else start_units      # where the sharing starts
            rest = work - (x - start_units)                   # work left then
            remain = e0 - x                                   # the stream's work left then
            if rest <= remain:
                end_units = x + 2 * rest
                self.stream_units_end = e0 + rest
            else:
                end_units = x + 2 * remain + (rest - remain)
                self.stream_units_end = x + 2 * remain
            self.shared_cycles += -(-(end_units - x) // self.units_per_cycle)
        return end_units

    def serve_mixed(self, now, num_bytes, write_bytes):
        """(start, end) of a transfer of num_bytes of which write_bytes are writes (see the banner)."""
        end = self.finish(now, num_bytes)
        if self.turnaround_cycles:
            if num_bytes > write_bytes:
                self.read_since_drain = True
            pending = self.pending_write_bytes + write_bytes
            if pending >= self.write_batch_bytes:
                pending %= self.write_batch_bytes
                if self.read_since_drain:
                    # The drain's bubble: the bus idles, every later transfer starts later.
                    self.free_units += self.turnaround_cycles * self.units_per_cycle
                    self.turnarounds += 1
                    self.read_since_drain = False
            self.pending_write_bytes = pending
        return self.start, end


    def write_room(self, now, write_bytes, end):
        """The cycle at which write-backs of write_bytes, arriving at cycle `now`, whose transfer ends at
        cycle `end`, enter the write queue (now when they fit; see the banner); they are then in it
        until `end`."""
        # Speed: the arrays in locals (as compute_unit.py's miss queue).
        leaves, totals = self.queue_leaves, self.queue_totals
        head, tail = self.queue_head, self.queue_tail
        while head < tail and leaves[head] <= now:   # what DRAM has written by now has left
            head += 1
        if head > self.queue_head:
            self.left_bytes = totals[head - 1]
            self.queued_write_bytes = totals[tail - 1] - self.left_bytes
            self.queue_head = head
        enter = now
        excess = self.queued_write_bytes + write_bytes - self.write_queue_bytes
        if excess > 0:
            self.write_waits += 1
            if write_bytes > self.write_queue_bytes:      # more than the whole queue: its own transfer
                enter = end
            else:
                # The earliest write-backs leave first: the first entry by which `excess` bytes have left
                # (the last one if they never do), by bisection on the running totals.
                target = self.left_bytes + excess
                if COMPILED:
                    lo = head
                    hi = tail
                    while lo < hi:
                        mid = (lo + hi) >> 1
                        if totals[mid] < target:
                            lo = mid + 1
                        else:
                            hi = mid
                else:                                      # Speed: interpreted, the standard library's (C code)
                    lo = bisect_left(totals, target, head, tail)
                enter = leaves[lo if lo < tail else tail - 1]
        if tail == len(leaves):
            tail = self.make_queue_room()
            leaves, totals = self.queue_leaves, self.queue_totals
        leaves[tail] = end
        totals[tail] = (totals[tail - 1] if tail > self.queue_head else self.left_bytes) + write_bytes
        self.queue_tail = tail + 1
        self.queued_write_bytes += write_bytes
        return enter

    def make_queue_room(self):
        """Room for one more write-back at the write queue's tail: its entries moved to the front, and
        the arrays twice as long when they were more than a quarter full; returns the new tail."""
        n = self.queue_tail - self.queue_head
        self.queue_leaves, self.queue_totals = compacted(self.queue_leaves, self.queue_totals, self.queue_head,
                                                         self.queue_tail, COMPILED)
        self.queue_head, self.queue_tail = 0, n
        return n


class HostLink:
    """The host link: a FIFO server per direction at the preset's measured rate, and the latency of a
    round trip to host memory (see the banner). Built only for a preset with a link."""

    def __init__(self, preset):
        rate = preset.host_link_effective_bytes_per_second()
        self.to_device = FifoServer(preset.clock_hz, rate)    # host memory read by the GPU
        self.to_host = FifoServer(preset.clock_hz, rate)      # host memory written by the GPU
        self.latency = preset.host_link_latency_cycles

    def transfer(self, now, num_bytes, to_host):
        """(start, end) cycles of num_bytes crossing the link in one direction from cycle `now` on,
        behind what that direction has queued; the end includes the link's latency."""
        start, end = (self.to_host if to_host else self.to_device).serve(now, num_bytes)
        return start, end + self.latency


class MemorySystem:
    """L2, Infinity Cache and DRAM bandwidth of one GPU (see the module banner). It lives as long as
    the device, so overlapping dispatches queue behind each other's transfers."""

    def __init__(self, preset, recorder=None):
        self.dram = DramServer(preset)
        self.l2 = FifoServer(preset.clock_hz, preset.l2_bytes_per_cycle * preset.clock_hz)
        self.infinity_cache = (FifoServer(preset.clock_hz, preset.infinity_cache_bytes_per_second)
                               if preset.infinity_cache_bytes else None)
        self.row_miss_cycles = preset.dram_row_miss_cycles()
        self.set_dram_latency(preset.dram_latency_cycles)
        # DRAM's banks (see the banner): the activation server. None: no banks modelled.
        rate = preset.dram_activations_per_second()
        self.activation = FifoServer(preset.clock_hz, rate) if rate else None
        self.l2_latency = preset.l2_latency_cycles
        self.ic_latency = preset.infinity_cache_latency_cycles
        self.dram_log = None
        self.host_log = None
        self.host_link = HostLink(preset) if preset.host_link_effective_bytes_per_second() and not preset.uma else None
        # The L2's atomic units, one per slice: the cycle each is free from (a list: this is not a
        # hot path; atomics are rare).
        self.atomic_units = preset.l2_atomics_per_cycle
        self.atomic_free = [0] * preset.l2_atomics_per_cycle
        self.atomic_ops = 0          # operations served, over the device's life
        self.attach(recorder)

    def set_dram_latency(self, cycles):
        """DRAM reads take `cycles` (a row miss's latency), and a read whose sectors all hit open rows (no
        precharge, no activate) tRP + tRCD less: row_hit_latency."""
        self.dram_latency = cycles
        self.row_hit_latency = cycles - self.row_miss_cycles

    def atomic(self, now, operations):
        """Serve L2 atomic operations arriving at cycle `now`: `operations` holds each unit's count
        (a list, l2_atomics_per_cycle long); each unit serves its share behind what it queued before,
        one per cycle. Returns the cycle the last ends (now when there are none)."""
        done = now
        for unit in range(self.atomic_units):
            n = operations[unit]
            if n:
                start = self.atomic_free[unit]
                if start < now:
                    start = now
                end = start + n
                self.atomic_free[unit] = end
                self.atomic_ops += n
                if end > done:
                    done = end
        return done

    def attach(self, recorder):
        """Trace the next dispatch's DRAM transfers into `recorder` (None: nothing recorded, which
        costs nothing). While tracing they are appended straight to the recorder's list (one tuple
        append per request, no method call: this runs once per memory request)."""
        self.dram_log = recorder.dram_log() if recorder is not None else None
        self.host_log = recorder.host_log() if recorder is not None and self.host_link is not None else None

    def request(self, now, l2_bytes, ic_bytes, dram_bytes, is_write, ic_read_bytes=0, dram_read_bytes=0,
                host_bytes=0, activations=0):
        """Cycle at which a request issued at `now` completes (data back or write acknowledged).

        Every sector passes the L2 (`l2_bytes`: hits and fills alike). `ic_bytes` move through the
        Infinity Cache and `dram_bytes` through DRAM: the reads that the level serves plus the
        write-backs of dirty sectors evicted into it. Reads make the request wait for a level
        (`ic_read_bytes`, `dram_read_bytes`); a write-back to DRAM drains behind the request and
        costs bandwidth, and latency only when the write queue has no room for it (the L2 answers
        the request its latency after the write-back entered the queue: see the banner). `host_bytes` are sectors of host memory (they bypass the caches):
        they cross the host link, towards the host for a write, and the request waits for them and
        the link's latency either way (a store is acknowledged once it reached host memory).
        `activations`: how many of the DRAM reads open a row (dram_rows.py); they take the activation
        server's slots from `now` on, and the reads' data comes no earlier than the last activation; a
        request whose DRAM reads all hit open rows waits the row-hit latency (see the banner).
        """
        done = self.l2.finish(now, l2_bytes) + self.l2_latency
        if ic_bytes:
            end = self.infinity_cache.finish(now, ic_bytes) + self.ic_latency
            if ic_read_bytes and end > done:
                done = end
        if dram_bytes:
            write_bytes = dram_bytes - dram_read_bytes
            start, end = self.dram.serve_mixed(now, dram_bytes, write_bytes)
            if dram_read_bytes:
                if activations and self.activation is not None:
                    ready = self.activation.finish(now, activations)
                    if ready < end:
                        ready = end
                    ready += self.dram_latency
                else:
                    ready = end + self.row_hit_latency
                if ready > done:
                    done = ready
            if write_bytes > 0 and self.dram.write_queue_bytes:
                room = self.dram.write_room(now, write_bytes, end) + self.l2_latency
                if room > done:
                    done = room
            if self.dram_log is not None:
                self.dram_log.extend((start, end, dram_bytes, is_write))   # (recorder.dram_log)
        if host_bytes:
            start, end = self.host_link.transfer(now, host_bytes, is_write)
            if end > done:
                done = end
            if self.host_log is not None:
                self.host_log.append((start, end, host_bytes, is_write))
        return done
