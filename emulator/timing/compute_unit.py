"""Compute units: the vector memory pipeline their SIMDs share (timing).

`preset.compute_units` per GPU, each with `preset.simds_per_cu` SIMDs (simd.py). A CU's vector
memory path has two parts that every wave memory instruction passes:

    cache front end   one tag lookup per distinct cache line the instruction touches
                      (`lookups_per_cycle_per_cu`): a coalesced wave32 FLOAT32 access is one
                      line, a transposed one 32, so uncoalesced access costs here even when
                      every line hits
    miss queue        at most `max_lines_in_flight_per_cu` sectors outstanding to the L2 and
                      beyond; a request that fits goes at once. One that does not waits in the
                      CU's wait queue, which sends its requests in arrival order, each in pieces of
                      at least a quarter of the miss queue as earlier sectors retire
                      (docs/DEVIATIONS.md). One simpy process serves the queue while it holds
                      requests, so a waiting request costs an event per piece, not per try.

Behind them the memory system (memory_system.py) serves the request's bytes at each level.

cohort_engine.pyx runs this model compiled, cycle for cycle (see simd.py's banner).
"""
import heapq
from collections import deque
from typing import NamedTuple


class LevelBytes(NamedTuple):
    """The bytes one memory request moves at each level of the hierarchy (caches.py classifies them)."""
    l2: int            # every sector passes the L2: hits and fills alike
    infinity_cache: int   # reads the Infinity Cache serves plus write-backs into it
    dram: int          # reads from DRAM plus write-backs to it
    ic_reads: int      # of infinity_cache: the reads (the request waits for these)
    dram_reads: int    # of dram: the reads (the request waits for these)


class ComputeUnit:
    """One compute unit's memory pipeline, shared by its SIMDs."""

    def __init__(self, index, preset, memory_system):
        self.index = index
        self.memory = memory_system
        self.capacity = preset.max_lines_in_flight_per_cu
        # A blocked request waits for a quarter of the pipeline to retire (docs/DEVIATIONS.md).
        self.chunk = min(self.capacity, max(2, self.capacity // 4))   # never more than fits
        self.lookups_per_cycle = preset.lookups_per_cycle_per_cu
        self.front_end_free = 0    # cycle at which the tag lookups queued so far are done
        self.in_flight = []        # heap of (completion cycle, sectors)
        self.sectors_in_flight = 0
        # Requests waiting for room, in arrival order: [sectors, sent, level bytes, is_write, event,
        # done so far]. One simpy process (_admit) serves it while it is not empty.
        self.waiting = deque()

    def look_up(self, now, lines):
        """Queue `lines` tag lookups arriving at `now`; the cycle at which the last is done."""
        start = max(now, self.front_end_free)
        self.front_end_free = start + -(-lines // self.lookups_per_cycle)
        return self.front_end_free

    def try_issue(self, now, sectors, is_write, l2, infinity_cache, dram, ic_reads, dram_reads):
        """Send a request of `sectors` at once if the miss queue has room: its completion cycle,
        else None. The bytes at each level are LevelBytes' fields, passed as plain ints (this runs
        once per memory request: no tuple is built for it). A request that fits goes even while
        others wait (they wait for room for a whole piece)."""
        # Retire what has completed, then send (this runs once per memory request: all inline).
        heap = self.in_flight
        while heap and heap[0][0] <= now:
            self.sectors_in_flight -= heapq.heappop(heap)[1]
        if self.sectors_in_flight + sectors > self.capacity:
            return None
        done = self.memory.request(now, l2, infinity_cache, dram, is_write, ic_reads, dram_reads)
        heapq.heappush(heap, (done, sectors))
        self.sectors_in_flight += sectors
        return done

    def wait_for_room(self, env, arrive, sectors, level_bytes, is_write):
        """A generator for a request that try_issue refused: it joins the wait queue as arriving at
        cycle `arrive` (>= env.now: a CU's requests arrive in the order its front end looks them
        up, so the queue stays in arrival order) and resumes when its last piece is sent. Returns
        (the last piece's completion cycle, the cycle at which the last piece was sent)."""
        event = env.event()
        self.waiting.append([sectors, 0, level_bytes, is_write, event, arrive])
        if len(self.waiting) == 1:      # no admission process is running: start one
            env.process(self._admit(env))
        return (yield event)

    def _admit(self, env):
        """The wait queue's process: send the first waiting request, from its arrival on, in pieces
        as sectors retire (each piece gets its exact share of every level's bytes: b x end //
        sectors - b x first // sectors), resume its cohort when the last is sent, go on with the
        next; end when the queue is empty.

        Speed: one simpy event per piece that must wait, however many requests wait (requests
        polling the miss queue for room each cost an event per try). The time is kept in a local
        (as Simd.run does)."""
        waiting, capacity, chunk = self.waiting, self.capacity, self.chunk
        timeout, request_bytes, heap = env.timeout, self.memory.request, self.in_flight
        now = env.now
        while waiting:
            request = waiting[0]
            sectors, sent, level_bytes, is_write, event, done = request   # done: the arrival until sent
            if done > now and not sent:
                yield timeout(done - now)
                now = done
            while heap and heap[0][0] <= now:            # retire what has completed
                self.sectors_in_flight -= heapq.heappop(heap)[1]
            left = sectors - sent
            free = capacity - self.sectors_in_flight
            want = left if left < chunk else chunk      # (comparisons, not min(): here and below)
            if free < want:
                wake = self.time_until_free(want - free)
                yield timeout(wake - now)
                now = wake
                continue
            end = sent + (free if free < left else left)
            # Send the piece (the whole request at once needs no shares).
            shares = level_bytes if end - sent == sectors else [b * end // sectors - b * sent // sectors
                                                                for b in level_bytes]
            piece = request_bytes(now, *shares[:3], is_write, *shares[3:])
            heapq.heappush(heap, (piece, end - sent))
            self.sectors_in_flight += end - sent
            if piece > done:
                done = piece
            if end == sectors:
                waiting.popleft()
                event.succeed((done, now))
            else:
                request[1], request[5] = end, done

    def time_until_free(self, needed):
        """Cycle at which at least `needed` more sectors will have retired."""
        first = self.in_flight[0]          # the heap's first is the sorted order's first:
        if first[1] >= needed:             # enough on its own (most calls) without sorting
            return first[0]
        freed = 0
        for done, n in sorted(self.in_flight):
            freed += n
            if freed >= needed:
                return done
        return self.in_flight[-1][0]
