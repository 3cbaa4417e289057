"""Compute units: the vector memory pipeline their SIMDs share (timing).

`preset.compute_units` per GPU, each with `preset.simds_per_cu` SIMDs (simd.py). A CU's vector
memory path has two parts that every wave memory instruction passes:

    cache front end   one tag lookup per distinct cache line the instruction touches
                      (`lookups_per_cycle_per_cu`): a coalesced wave32 FLOAT32 access is one
                      line, a transposed one 32, so uncoalesced access costs here even when
                      every line hits
    miss queue        at most `max_lines_in_flight_per_cu` sectors outstanding to the L2 and
                      beyond; a request that fits goes at once while none waits. One that does
                      not (or arrives while others wait) waits in the CU's wait queue, which sends
                      its requests in arrival order (a request never overtakes a waiting one), each in pieces of
                      at least a quarter of the miss queue as earlier sectors retire
                      (docs/DEVIATIONS.md). The wait queue is a process (events.py) while it holds
                      requests, so a waiting request costs an event per piece, not per try.

Beside it, the CU's LDS pipe (one per CU; on RDNA the CU's half of its WGP's LDS): a FIFO server
of bank-conflict passes. A pass serves `lds_banks` dwords, one per bank; the banks move
`lds_bytes_per_cycle`, so a pass takes lds_banks x 4 / lds_bytes_per_cycle cycles, counted exactly
in integer units (one cycle = lds_bytes_per_cycle units, one pass = lds_banks x 4). An LDS
instruction of a cohort queues its waves' passes behind the LDS work already queued (lds_serve).

Behind them the memory system (memory_system.py) serves the request's bytes at each level. A compute
unit lives as long as the device: its front end, miss queue and wait queue carry over from dispatch
to dispatch. Compiled by Cython where a C compiler is (compute_unit.pxd; setup.py).
"""
from collections import deque
from typing import NamedTuple

from dmlemu.timing.events import DONE, Process
from dmlemu.timing.physics import compacted, compiled_file, zeros

COMPILED = compiled_file(__file__)    # which containers (physics.zeros)


class LevelBytes(NamedTuple):
    """The bytes one memory request moves at each level of the hierarchy (caches.py classifies them)."""
    l2: int            # every sector passes the L2: hits and fills alike
    infinity_cache: int   # reads the Infinity Cache serves plus write-backs into it
    dram: int          # reads from DRAM plus write-backs to it
    ic_reads: int      # of infinity_cache: the reads (the request waits for these)
    dram_reads: int    # of dram: the reads (the request waits for these)
    host: int          # sectors of host memory: over the host link, past the caches (memory_system.py)
    activations: int = 0   # of the DRAM reads: those that open a DRAM row (dram_rows.py)


class WaitingRequest:
    """A request in a CU's wait queue: its sectors and bytes at each level, the process that waits for
    it, and what it tells that process when its last piece is sent."""

    def __init__(self, sectors, l2, infinity_cache, dram, ic_reads, dram_reads, host, is_write, process, arrive,
                 activations=0, hop=0):
        self.sectors = sectors
        self.sent = 0               # sectors sent so far
        self.l2 = l2                # LevelBytes' fields
        self.infinity_cache = infinity_cache
        self.dram = dram
        self.ic_reads = ic_reads
        self.dram_reads = dram_reads
        self.host = host
        self.activations = activations
        self.hop = hop              # cycles its data takes back after the L2 (GH100's far partition)
        self.is_write = is_write
        self.process = process
        self.done = arrive          # the arrival until a piece is sent, then the latest piece's completion
        self.sent_at = 0            # the cycle its last piece was sent


class ComputeUnit(Process):
    """One compute unit's memory pipeline, shared by its SIMDs; as a process, its wait queue."""

    def __init__(self, index, preset, memory_system):
        self.index = index
        self.memory = memory_system
        self.capacity = preset.max_lines_in_flight_per_cu
        # A blocked request waits for a quarter of the pipeline to retire (docs/DEVIATIONS.md).
        self.chunk = min(self.capacity, max(2, self.capacity // 4))   # never more than fits
        self.lookups_per_cycle = preset.lookups_per_cycle_per_cu
        self.front_end_free = 0    # cycle at which the tag lookups queued so far are done
        # The miss queue: the pieces in flight sorted by completion cycle (those that complete together
        # in the order they were sent), entries head .. tail - 1 of two 64-bit arrays (completion cycle,
        # sectors; interpreted, lists: physics.zeros). Speed: pieces mostly complete in the order they
        # are sent, so a piece is inserted at or near the tail and retiring is a walk from the head
        # (a binary heap would sift on every piece).
        self.done_cycles = zeros(64, COMPILED)
        self.done_sectors = zeros(64, COMPILED)
        self.head = self.tail = 0
        self.sectors_in_flight = 0
        self.lds_units_per_cycle = preset.lds_bytes_per_cycle
        self.lds_units_per_pass = 4 * preset.lds_banks
        self.lds_free_units = 0     # the LDS pipe is free from this unit on (cycle x units per cycle)
        self.lds_passes = 0         # passes served, over the device's life
        self.waiting = deque()     # WaitingRequests in arrival order; the process runs while not empty
        # The CU-side caches' data path (cu_caches.py; 0: no bound): bytes per cycle, free from this byte on.
        self.hit_bytes_per_cycle = preset.l0_bytes_per_cycle
        self.hit_free_bytes = 0
        self.scheduler = None      # the driver of the running dispatch (events.Scheduler)

    @property
    def in_flight(self):
        """The miss queue's pieces in flight: (completion cycle, sectors), sorted."""
        return sorted([(self.done_cycles[i], self.done_sectors[i]) for i in range(self.head, self.tail)])

    def retire(self, now):
        """Retire the pieces completed by cycle `now` (from the head while they are)."""
        # Speed: the arrays in locals (interpreted, an attribute read saved per use; compiled, a copy of a
        # typed memoryview costs two atomic reference counts per call, fewer than the reads); here and in
        # send().
        cycles = self.done_cycles
        sectors = self.done_sectors
        head, tail = self.head, self.tail
        while head < tail and cycles[head] <= now:
            self.sectors_in_flight -= sectors[head]
            head += 1
        self.head = head

    def send(self, now, sectors, is_write, l2, infinity_cache, dram, ic_reads, dram_reads, host, activations=0,
             hop=0):
        """Send a piece of `sectors` to the memory system at `now` and put it in the miss queue until its
        data is back: `hop` cycles after the memory system's answer (the far L2 partition's crossing);
        returns its completion cycle."""
        done = self.memory.request(now, l2, infinity_cache, dram, is_write, ic_reads, dram_reads, host,
                                   activations) + hop
        i = self.tail
        if i == len(self.done_cycles):     # no room at the tail: the entries moved to the front
            i = self.make_room()
        cycles = self.done_cycles
        counts = self.done_sectors
        self.tail = i + 1
        while i > self.head and cycles[i - 1] > done:    # after the pieces that complete no later
            cycles[i] = cycles[i - 1]
            counts[i] = counts[i - 1]
            i -= 1
        cycles[i] = done
        counts[i] = sectors
        self.sectors_in_flight += sectors
        return done

    def make_room(self):
        """Room for one more piece at the miss queue's tail: its entries moved to the front, and the
        arrays twice as long when they were more than a quarter full; returns the new tail."""
        n = self.tail - self.head
        self.done_cycles, self.done_sectors = compacted(self.done_cycles, self.done_sectors, self.head, self.tail,
                                                        COMPILED)
        self.head, self.tail = 0, n
        return n

    def lds_serve(self, now, passes):
        """Serve `passes` bank-conflict passes arriving at cycle `now` after the LDS work queued
        before them; returns the cycle the last ends."""
        start = now * self.lds_units_per_cycle
        if start < self.lds_free_units:
            start = self.lds_free_units
        self.lds_free_units = start + passes * self.lds_units_per_pass
        self.lds_passes += passes
        return -(-self.lds_free_units // self.lds_units_per_cycle)

    def hit_data(self, now, num_bytes):
        """The cycle at which the L0 has returned `num_bytes` of CU-side cache hits (its own or the
        shader array L1's, which return through it) arriving at cycle `now`, behind the hits it
        returns before them, at l0_bytes_per_cycle (exact in bytes; now when unbounded). Only hits pay
        it: the data of L2 trips is bound by the L2's bandwidth, far below the L0s' together."""
        if not self.hit_bytes_per_cycle:
            return now
        start = now * self.hit_bytes_per_cycle
        if start < self.hit_free_bytes:
            start = self.hit_free_bytes
        self.hit_free_bytes = start + num_bytes
        return -(-self.hit_free_bytes // self.hit_bytes_per_cycle)

    def look_up(self, now, lines):
        """Queue `lines` tag lookups arriving at `now`; the cycle at which the last is done."""
        start = self.front_end_free
        if start < now:
            start = now
        self.front_end_free = start + -(-lines // self.lookups_per_cycle)
        return self.front_end_free

    def try_issue(self, now, sectors, is_write, l2, infinity_cache, dram, ic_reads, dram_reads, host, activations=0,
                  hop=0):
        """Send a request of `sectors` at once if the miss queue has room: its completion cycle,
        else -1. The bytes at each level are LevelBytes' fields, passed as plain ints (this runs
        once per memory request: no tuple is built for it). While requests wait, a new one queues
        behind them even if it would fit: the CU sends its requests in order (a request that overtook
        the waiting ones would make a faster L2 or DRAM, which frees room sooner, reorder them)."""
        if self.head < self.tail and self.done_cycles[self.head] <= now:      # retire what has completed
            self.retire(now)
        if self.waiting or self.sectors_in_flight + sectors > self.capacity:
            return -1
        return self.send(now, sectors, is_write, l2, infinity_cache, dram, ic_reads, dram_reads, host, activations,
                         hop)

    def wait_for_room(self, now, arrive, sectors, l2, infinity_cache, dram, ic_reads, dram_reads, host, is_write,
                      process, activations=0, hop=0):
        """Queue a request that try_issue refused, arriving at cycle `arrive` (>= now: a CU's requests
        arrive in the order its front end looks them up, so the queue stays in arrival order). The
        wait queue wakes `process` when the request's last piece is sent; the returned
        WaitingRequest then holds the last piece's completion (`done`) and when it was sent."""
        request = WaitingRequest(sectors, l2, infinity_cache, dram, ic_reads, dram_reads, host, is_write, process,
                                 arrive, activations, hop)
        self.waiting.append(request)
        if len(self.waiting) == 1:      # the wait queue's process is not running: start it
            self.scheduler.start(self, now)
        return request

    def resume(self, now):
        """The wait queue's process: send the first waiting request, from its arrival on, in pieces
        as sectors retire (each piece gets its exact share of every level's bytes: b x end //
        sectors - b x first // sectors), wake its process when the last is sent, go on with the
        next; end when the queue is empty.

        Speed: one event per piece that must wait, however many requests wait (requests polling the
        miss queue for room would each cost an event per try)."""
        waiting, capacity, chunk = self.waiting, self.capacity, self.chunk
        while waiting:
            request = waiting[0]
            sectors, sent, done = request.sectors, request.sent, request.done   # done: the arrival until sent
            if done > now and not sent:
                return done
            if self.head < self.tail and self.done_cycles[self.head] <= now:      # retire what has completed
                self.retire(now)
            left = sectors - sent
            free = capacity - self.sectors_in_flight
            want = left if left < chunk else chunk      # (comparisons, not min(): here and below)
            if free < want:
                return self.time_until_free(want - free)
            end = sent + (free if free < left else left)
            # Send the piece (the whole request at once needs no shares).
            if end - sent == sectors:
                piece = self.send(now, sectors, request.is_write, request.l2, request.infinity_cache, request.dram,
                                  request.ic_reads, request.dram_reads, request.host, request.activations,
                                  request.hop)
            else:
                piece = self.send(now, end - sent, request.is_write,
                                  request.l2 * end // sectors - request.l2 * sent // sectors,
                                  request.infinity_cache * end // sectors - request.infinity_cache * sent // sectors,
                                  request.dram * end // sectors - request.dram * sent // sectors,
                                  request.ic_reads * end // sectors - request.ic_reads * sent // sectors,
                                  request.dram_reads * end // sectors - request.dram_reads * sent // sectors,
                                  request.host * end // sectors - request.host * sent // sectors,
                                  request.activations * end // sectors - request.activations * sent // sectors,
                                  request.hop)
            if piece > done:
                done = piece
            request.done = done
            if end == sectors:
                waiting.popleft()
                request.sent_at = now
                self.scheduler.wake(request.process, now)
            else:
                request.sent = end
        return DONE

    def time_until_free(self, needed):
        """Cycle at which at least `needed` (<= sectors in flight) more sectors will have retired."""
        freed = 0
        done = 0
        for i in range(self.head, self.tail):
            done = self.done_cycles[i]
            freed += self.done_sectors[i]
            if freed >= needed:
                return done
        return done
