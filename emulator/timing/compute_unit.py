"""Compute units: the vector memory pipeline their SIMDs share (timing).

`preset.compute_units` per GPU, each with `preset.simds_per_cu` SIMDs (simd.py). A CU's vector
memory path has two parts that every wave memory instruction passes:

    cache front end   one tag lookup per distinct cache line the instruction touches
                      (`lookups_per_cycle_per_cu`): a coalesced wave32 FLOAT32 access is one
                      line, a transposed one 32, so uncoalesced access costs here even when
                      every line hits
    miss queue        at most `max_lines_in_flight_per_cu` sectors outstanding to the L2 and
                      beyond; a request that does not fit waits for earlier ones to retire, a
                      chunk of a quarter of the queue at a time (docs/DEVIATIONS.md)

Behind them the memory system (memory_system.py) serves the request's bytes at each level.
"""
import heapq
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

    def look_up(self, now, lines):
        """Queue `lines` tag lookups arriving at `now`; the cycle at which the last is done."""
        start = max(now, self.front_end_free)
        self.front_end_free = start + -(-lines // self.lookups_per_cycle)
        return self.front_end_free

    def retire(self, now):
        heap = self.in_flight
        while heap and heap[0][0] <= now:
            self.sectors_in_flight -= heapq.heappop(heap)[1]

    def try_issue(self, now, sectors, is_write, l2, infinity_cache, dram, ic_reads, dram_reads):
        """Send a request of `sectors` at once if the miss queue has room: its completion cycle,
        else None. The bytes at each level are LevelBytes' fields, passed as plain ints (this runs
        once per memory request: no tuple is built for it)."""
        self.retire(now)
        if self.sectors_in_flight + sectors > self.capacity:
            return None
        return self.send(now, sectors, is_write, l2, infinity_cache, dram, ic_reads, dram_reads)

    def send(self, now, sectors, is_write, l2, infinity_cache, dram, ic_reads, dram_reads):
        """Put `sectors` of a request in flight now (bytes per level as in LevelBytes); returns
        their completion cycle."""
        done = self.memory.request(now, l2, infinity_cache, dram, is_write, ic_reads, dram_reads)
        heapq.heappush(self.in_flight, (done, sectors))   # (completion cycle, sectors): a heap orders by the first
        self.sectors_in_flight += sectors
        return done

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
