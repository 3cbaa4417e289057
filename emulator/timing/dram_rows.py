"""DRAM banks and their row buffers: which DRAM reads open a row (timing).

One per device, beside the caches (caches.py), whose misses it sees. DRAM is `dram_channels` channels
of `dram_banks_per_channel` banks; a bank keeps one row (page) of `dram_row_bytes` open in its row buffer
(open-page policy, as GPGPU-Sim's DRAM model keeps it). A read of a sector in the open row is a row
hit: the column access alone. Any other is a row miss: the bank precharges the open row (tRP) and
activates the new one (tRCD) first, and each activation takes a slot of the channel's and the bank's
activation budget (tRRD, tFAW, tRC: memory_system.py charges it). So a packed stream opens a row once
per dram_row_bytes of each channel and pays almost nothing, while scattered sectors (a transposed read)
open a row each.

The address mapping. A sector's byte address is cut into interleave units of `dram_interleave_bytes`
(GPGPU-Sim's `dramid@8`: consecutive 256-byte units go to different channels); the unit picks its channel
by a multiplicative hash modulo the channel count (GPGPU-Sim hashes the partition index too, IPOLY, so
power-of-two strides do not pile into one channel: `-gpgpu_memory_partition_indexing`). Within the
channel, the units it receives are numbered in address order (unit // channels) and laid out back to
back: the channel-local address. A row holds dram_row_bytes of it; consecutive rows go to consecutive
banks (row index mod banks) and the row number is the rest. That is GPGPU-Sim's
`...RRRR.RBBBCCCC.BCCSSSSS` mapping with the bank bits above the column bits: a stream crosses
into the next bank every row, so it never conflicts with itself.

Order. The banks see a dispatch's DRAM reads (the accesses the caches classified as reading DRAM) in the
caches' stream order, which is the order the GPU issues them (caches.py: generation by generation of the
waves in flight together, access slot by access slot within a generation, wave by wave within a slot). A
grid-stride loop then opens each row once per trip, as its waves sweep it together. The reads continue
from the rows the previous dispatch left open. Real memory controllers also reorder their queues
(FR-FCFS) to serve row hits first; this order keeps a stream's sectors together as that reordering
would (docs/DEVIATIONS.md). Write-backs of dirty
sectors are drained by the controllers in batches (memory_system.py) and are not looked up here: they
neither open rows nor close the rows reads keep open.

Speed: NumPy, one stable sort of the dispatch's DRAM reads (already in stream order) by bank (radix
passes: caches._stable_order).
"""
import numpy as np

_HASH = np.uint64(0x9E3779B97F4A7C15)   # Fibonacci hashing constant (2^64 / golden ratio), as caches.py


class DramRows:
    """The open row of every bank of a preset's DRAM (see the banner)."""

    def __init__(self, preset, stable_order):
        self.stable_order = stable_order     # caches._stable_order (the caches' radix sort, handed in)
        self.channels = preset.dram_channels
        self.banks = preset.dram_banks_per_channel
        self.row_bytes = preset.dram_row_bytes
        self.interleave = preset.dram_interleave_bytes
        self.sector_bytes = preset.sector_bytes
        self.open_rows = np.full(self.channels * self.banks, -1, dtype=np.int64)   # -1: closed
        self.activations = 0      # row misses so far, over the device's life

    def locate(self, sectors):
        """(bank number, row) of each sector: bank = channel x banks + the bank in the channel."""
        address = sectors.astype(np.int64) * self.sector_bytes
        unit = address // self.interleave
        channel = ((unit.view(np.uint64) * _HASH) >> np.uint64(20)) % np.uint64(self.channels)
        local = (unit // self.channels) * self.interleave + address % self.interleave
        page = local // self.row_bytes
        bank = channel.view(np.int64) * self.banks + page % self.banks
        return bank, page // self.banks

    def misses(self, sectors):
        """For DRAM reads of `sectors` in order: a bool per read, True where it opens a row (a row miss),
        and the banks keep the last row each read; every read is a miss on a preset without banks."""
        if sectors.size == 0:
            return np.zeros(0, dtype=bool)
        bank, row = self.locate(sectors)
        order = self.stable_order(bank, self.channels * self.banks)
        bank_sorted, row_sorted = bank[order], row[order]
        previous = np.empty_like(row_sorted)
        previous[1:] = row_sorted[:-1]
        first = np.empty(bank_sorted.size, dtype=bool)       # a bank's first read in this stream
        first[:1] = True
        np.not_equal(bank_sorted[1:], bank_sorted[:-1], out=first[1:])
        previous[first] = self.open_rows[bank_sorted[first]]
        miss_sorted = row_sorted != previous
        last = np.empty(bank_sorted.size, dtype=bool)
        last[-1:] = True
        last[:-1] = first[1:]
        self.open_rows[bank_sorted[last]] = row_sorted[last]
        miss = np.empty(sectors.size, dtype=bool)
        miss[order] = miss_sorted
        self.activations += int(np.count_nonzero(miss))
        return miss

    def account(self, dram_read, read_sectors):
        """Row misses of a dispatch (caches.CacheHierarchy.account): `dram_read` per access of the caches'
        stream whether it reads DRAM, `read_sectors` those reads' sectors in stream order (the caches keep
        them as they classify). Returns a bool per stream access (True: a DRAM read that opens a row), or
        None when nothing reads DRAM."""
        if dram_read.size == 0 or not dram_read.any():
            return None
        flags = np.zeros(dram_read.size, dtype=bool)
        flags[np.flatnonzero(dram_read)] = self.misses(read_sectors)
        return flags
