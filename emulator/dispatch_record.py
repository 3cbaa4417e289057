"""What a functional run of one dispatch hands to the timing model: the contract between the two.

One DispatchRecord per dispatch run with the timing model on. The functional model (the executor)
fills it; the timing model reads it and nothing else of the functional model's. Everything in it
is per *wave*, never per functional batch, so the timing of a dispatch cannot depend on how the
executor groups waves into NumPy batches (`Dispatcher.batch_lanes` is a performance knob only):

    paths        the distinct control-flow paths (tuples of instruction indices) and, for every
                 wave, which path it took
    accesses     for every *access slot* and every wave that executed it, the distinct *sectors*
                 (address // sector_bytes) its active lanes touched: what the wave's coalescer hands
                 to the caches. An access slot is one execution of a vector memory instruction: the
                 k-th time (visit k, from 0) a wave runs the instruction at pc is slot
                 pc + k x program_length (`access_slot`), so a loop of R trips is R slots, each
                 charged its own sectors, as the same loads unrolled would be; straight-line code
                 has one slot per memory instruction, numbered as the instruction
    useful bytes the bytes the lanes asked for, per instruction (coalescing efficiency = useful
                 bytes / sectors x sector_bytes)
    lds          for every access slot of an LDS instruction (ds_read / ds_write / LDS atomics), the
                 bank-conflict passes of every wave that executed it: the most distinct dwords any
                 one of the `lds_banks` banks serves (dword d is in bank d mod lds_banks; lanes
                 reading one dword share it, a broadcast) (LdsRows)
    atomics      buffer atomics are access slots like loads and stores (their SectorRows say
                 is_atomic), and for each wave the most active lanes on one dword (same-address
                 lanes serialise at the L2: `atomic_lanes`)

Sectors of one wave instruction are stored sorted, as compressed rows (CSR) over the wave index:
`offsets[w] .. offsets[w + 1]` index `sectors` for wave w.

Bounded host memory (docs/RELIABILITY.md, "Timing records"): the record grows with the work (an access
slot per loop trip, a row per wave), not with the GPU's memory: a convolution loop over 4,608 weights
records 9,216 slots for each wave. So a lane access is reduced to its wave's distinct sorted sectors
as it is added (a coalesced FLOAT32 load of 32 lanes keeps 4 sectors, a broadcast 1, not 32 lane
addresses), and `held_bytes` counts what the record holds. Past `budget_bytes` (record_budget_bytes():
DMLEMU_TIMING_RECORD_BYTES, else RECORD_DEFAULT_BYTES, 512 MiB) the record drops what it holds, records
nothing more and says why in `overflow` (a sentence naming the dispatch, the size and the option); the
GPU then times that dispatch as with the timing model off (an estimate; gpu.py) instead of the host
running out of memory.
"""
import os

import numpy as np

__all__ = ["DispatchRecord", "SectorRows", "LdsRows", "access_slot", "record_budget_bytes"]

# The default budget of one dispatch's timing record, the same on every host so that a program's modelled time does
# not depend on the machine (the timing model's own arrays built from the record take about 5 times as much again
# while it runs: docs/RELIABILITY.md, "Timing records").
RECORD_DEFAULT_BYTES = 512 << 20
RECORD_ENVIRONMENT = "DMLEMU_TIMING_RECORD_BYTES"
_PART_BYTES = 200           # Python objects of one stored part (tuple, array headers), counted with its arrays


def record_budget_bytes():
    """Bytes one dispatch's timing record may hold: DMLEMU_TIMING_RECORD_BYTES when it is a positive integer
    (decimal or 0x hexadecimal), else RECORD_DEFAULT_BYTES."""
    text = os.environ.get(RECORD_ENVIRONMENT, "").strip()
    try:
        value = int(text, 0) if text else 0
    except ValueError:
        value = 0
    return value if value > 0 else RECORD_DEFAULT_BYTES


def access_slot(pc, visit, program_length):
    """The access slot of the `visit`-th execution (from 0) of the memory instruction at `pc`: what the
    executor records a wave's sectors under and the timing model charges each step of a path with."""
    return pc + visit * program_length


class SectorRows:
    """The sectors every wave touched in one access slot of a memory instruction (CSR over the wave
    index)."""

    __slots__ = ("pc", "slot", "is_write", "offsets", "sectors", "is_atomic")

    def __init__(self, pc, slot, is_write, offsets, sectors):
        self.is_atomic = False      # a buffer atomic (served at the L2; DispatchRecord.atomic_lanes)
        self.pc = pc                # the instruction
        self.slot = slot            # its execution: access_slot(pc, visit, program_length)
        self.is_write = is_write
        self.offsets = offsets      # total_waves + 1; int32 while the sectors number < 2^31, else int64
        self.sectors = sectors      # int64, sorted within each wave's row

    def counts(self):
        """Distinct sectors per wave (0 for a wave that did not execute the instruction)."""
        return np.diff(self.offsets)


class LdsRows:
    """One access slot of an LDS instruction: the bank-conflict passes of every wave (0: a wave that
    did not execute it) and the bytes one lane accesses."""

    __slots__ = ("pc", "slot", "is_write", "access_bytes", "passes")

    def __init__(self, pc, slot, is_write, access_bytes, passes):
        self.pc = pc
        self.slot = slot
        self.is_write = is_write          # stores and atomics
        self.access_bytes = access_bytes  # per lane: 1, 2, 4, 8 or 16
        self.passes = passes              # int16, total_waves


def bank_passes(dwords, banks):
    """Bank-conflict passes of each row of `dwords` (k, L) int64 LDS dword addresses (-1: no access):
    the most distinct dwords any bank serves (a dword several lanes read is one access)."""
    k, lanes = dwords.shape
    if k == 0:
        return np.zeros(0, dtype=np.int16)
    live = dwords >= 0
    if lanes > 1 and live.all() and bool((np.diff(dwords, axis=1) == 1).all()):
        return np.full(k, -(-lanes // banks), dtype=np.int16)   # consecutive dwords: every bank equally
    sentinel = np.int64(1) << 62
    key = np.where(live, (dwords % banks) << 40 | dwords, sentinel)
    key.sort(axis=1)
    distinct = key != sentinel
    distinct[:, 1:] &= key[:, 1:] != key[:, :-1]
    rows = np.broadcast_to(np.arange(k, dtype=np.int64).reshape(-1, 1), key.shape)
    counts = np.bincount((rows * banks + (key >> 40))[distinct], minlength=k * banks).reshape(k, banks)
    return counts.max(axis=1).astype(np.int16)


class DispatchRecord:
    """Filled by the executor while a dispatch runs, read by the timing model afterwards."""

    def __init__(self, total_waves, wave_width, sector_bytes, program_length, lds_banks=32, budget_bytes=None,
                 name="kernel"):
        self.total_waves = total_waves
        self.lds_banks = lds_banks
        self.lds = {}                   # slot -> LdsRows
        self.atomic_lanes = {}          # slot -> int32 per wave: the most lanes on one dword
        self.program_length = program_length
        self.wave_width = wave_width
        self.sector_bytes = sector_bytes
        self.paths = {}                 # path (tuple of instruction indices) -> path id
        self.wave_path = np.zeros(total_waves, dtype=np.int32)
        self.useful_bytes = np.zeros(program_length, dtype=np.int64)
        self._ranges = {}               # slot -> [(first wave, waves, first byte, bytes per wave)]
        self._lanes = {}                # slot -> [(wave indices, distinct sectors per wave, those sectors)]
        self._writes = {}               # slot -> is_write
        self.accesses = None            # slot -> SectorRows, after finish()
        self.name = name
        self.budget_bytes = budget_bytes    # None: unbounded
        self.held_bytes = self.wave_path.nbytes + self.useful_bytes.nbytes
        self.overflow = None            # the sentence, once the record passed its budget (it then holds nothing)

    def _hold(self, nbytes):
        """Count `nbytes` more held; False (and the record emptied, with its sentence) past the budget."""
        self.held_bytes += nbytes
        if self.budget_bytes is None or self.held_bytes <= self.budget_bytes:
            return True
        self.overflow = (f"{self.name}: the timing record of its {self.total_waves} waves passed "
                         f"{self.budget_bytes} bytes (the per-wave sectors of every execution of its memory "
                         f"instructions); the dispatch ran and its time is an estimate, as with the timing model "
                         f"off. Raise {RECORD_ENVIRONMENT} (bytes) to time it, or lower the work per dispatch")
        self._ranges, self._lanes, self._writes = {}, {}, {}
        self.lds, self.atomic_lanes = {}, {}
        self.held_bytes = self.wave_path.nbytes + self.useful_bytes.nbytes
        return False

    # ---- filled by the functional model --------------------------------------------------------
    def add_path(self, path, wave_indices):
        path_id = self.paths.setdefault(tuple(path), len(self.paths))
        self.wave_path[wave_indices] = path_id

    def add_contiguous(self, slot, is_write, first_wave, waves, first_byte, bytes_per_wave):
        """In access slot `slot`, waves first_wave .. first_wave + waves - 1 touched consecutive bytes,
        bytes_per_wave each, wave after wave from `first_byte` (a packed tensor: what a coalescer
        merges best)."""
        if self.overflow is not None or not self._hold(_PART_BYTES):
            return
        self._writes[slot] = is_write
        self._ranges.setdefault(slot, []).append((first_wave, waves, first_byte, bytes_per_wave))

    def add_lanes(self, slot, is_write, wave_indices, byte_addresses, active):
        """Any pattern, in access slot `slot`: the byte address of every lane (waves, width) and which
        lanes accessed (None: all of them)."""
        if self.overflow is not None:
            return
        sb = self.sector_bytes
        # A power-of-two sector: the floor division is a shift (the same value, negatives too).
        sectors = byte_addresses >> (sb.bit_length() - 1) if sb & (sb - 1) == 0 else byte_addresses // sb
        if active is not None:
            sectors = np.where(active, sectors, -1)
        sectors = sectors.astype(np.int64, copy=False)
        # Distinct sectors per wave, kept at once (not the lanes' addresses): sort each row, drop repeats (and
        # the -1 of idle lanes). Speed: a row already in order (a gather whose lanes' addresses rise with the
        # lane) skips the sort, which would leave it as it is.
        s = sectors if _rows_ascending(sectors) else np.sort(sectors, axis=1)
        keep = s >= 0
        keep[:, 1:] &= s[:, 1:] != s[:, :-1]
        part = (np.asarray(wave_indices, dtype=np.int64).reshape(-1), row_sums(keep), s[keep])
        if not self._hold(_PART_BYTES + sum(a.nbytes for a in part)):
            return
        self._writes[slot] = is_write
        self._lanes.setdefault(slot, []).append(part)

    def add_lds(self, slot, is_write, wave_indices, byte_addresses, active, access_bytes):
        """An LDS instruction in access slot `slot`: each lane's byte address (waves, width), which
        lanes accessed (in range and active), the bytes per lane."""
        if self.overflow is not None:
            return
        self.add_lds_passes(slot, is_write, wave_indices, self.lds_passes(byte_addresses, active, access_bytes),
                            access_bytes)

    def lds_passes(self, byte_addresses, active, access_bytes):
        """The bank-conflict passes (int16) of each wave, a row of `byte_addresses` (waves, width), of an LDS
        instruction whose lanes `active` (waves, width) access `access_bytes` each (bank_passes on their
        dwords)."""
        first = (np.asarray(byte_addresses, dtype=np.int64) & ~np.int64(access_bytes - 1)) >> 2
        per_lane = max(1, access_bytes // 4)
        dwords = first[:, :, None] + np.arange(per_lane, dtype=np.int64) if per_lane > 1 else first[:, :, None]
        dwords = np.where(np.asarray(active)[:, :, None], dwords, -1).reshape(first.shape[0], -1)
        return bank_passes(dwords, self.lds_banks)

    def add_lds_passes(self, slot, is_write, wave_indices, passes, access_bytes):
        """add_lds with the waves' passes found already (lds_passes): the executor reuses one address register's
        passes at every offset of whole dwords it reads that register at (executor._record_lds)."""
        if self.overflow is not None:
            return
        rows = self.lds.get(slot)
        if rows is None:
            if not self._hold(_PART_BYTES + 2 * self.total_waves):
                return
            rows = self.lds[slot] = LdsRows(slot % self.program_length, slot, is_write, access_bytes,
                                            np.zeros(self.total_waves, dtype=np.int16))
        rows.passes[np.asarray(wave_indices, dtype=np.int64)] = passes

    def add_atomic(self, slot, wave_indices, byte_addresses, active):
        """A buffer atomic in access slot `slot` (its sectors as a store's, and same-address lanes)."""
        self.add_lanes(slot, True, wave_indices, byte_addresses, active)
        if self.overflow is not None:
            return
        lanes = self.atomic_lanes.get(slot)
        if lanes is None:
            if not self._hold(_PART_BYTES + 4 * self.total_waves):
                return
            lanes = self.atomic_lanes[slot] = np.zeros(self.total_waves, dtype=np.int32)
        key = np.where(active, np.asarray(byte_addresses, dtype=np.int64) >> 2, -1)
        key = np.sort(key, axis=1)
        # The longest run of equal dwords in each wave's sorted row (idle lanes, -1, not counted): a run
        # starts where the dword changes; its length at a lane is the lane minus that start, plus one.
        columns = np.arange(key.shape[1], dtype=np.int64)
        starts = np.ones(key.shape, dtype=bool)
        starts[:, 1:] = key[:, 1:] != key[:, :-1]
        run = columns - np.maximum.accumulate(np.where(starts, columns, 0), axis=1) + 1
        longest = np.where(key >= 0, run, 0).max(axis=1)
        waves = np.asarray(wave_indices, dtype=np.int64)
        lanes[waves] = np.maximum(lanes[waves], longest)

    # ---- read by the timing model ---------------------------------------------------------------
    def finish(self):
        """Build each access slot's SectorRows; returns {slot: SectorRows} in slot order (instruction
        order within a visit, visit after visit: the order a loop's trips run in)."""
        if self.accesses is None:
            # Slot by slot, each slot's parts dropped once its rows are built (memory: the record once, not twice).
            self.accesses = {}
            for slot in sorted(self._writes):
                self.accesses[slot] = self._rows(slot)
                self._ranges.pop(slot, None)
                self._lanes.pop(slot, None)
            self._ranges = self._lanes = None
        return self.accesses

    def _rows(self, slot):
        # Each part (one add_contiguous or add_lanes call) gives its waves, how many distinct sectors
        # each has and those sectors, wave after wave, ascending within a wave: a range's sectors
        # count up from its first, and add_lanes sorted a lane row and dropped its repeats and idle lanes.
        total, sb = self.total_waves, self.sector_bytes
        counts = np.zeros(total, dtype=np.int64)
        parts = []   # (wave ids (k,), distinct sectors per wave (k,), those sectors in wave order)
        for first_wave, waves, first_byte, per_wave in self._ranges.get(slot, ()):
            starts = first_byte + per_wave * np.arange(waves, dtype=np.int64)
            lo, hi = starts // sb, (starts + per_wave - 1) // sb
            width = int((hi - lo).max()) + 1
            grid = lo[:, None] + np.arange(width, dtype=np.int64)
            wave_ids = np.arange(first_wave, first_wave + waves, dtype=np.int64)
            count = hi - lo + 1
            if waves and int(lo.min()) >= 0 and bool((count == width).all()):
                # Every wave the same whole number of sectors (aligned): the grid is the rows.
                parts.append((wave_ids, count, grid.ravel()))
                continue
            keep = (grid <= hi[:, None]) & (grid >= 0)
            parts.append((wave_ids, row_sums(keep), grid[keep]))
        parts.extend(self._lanes.get(slot, ()))     # add_lanes kept each wave's distinct sectors, sorted
        for waves, per_wave, _ in parts:
            counts[waves] += per_wave
        offsets = np.zeros(total + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        order = np.concatenate([waves for waves, _, _ in parts]) if parts else np.empty(0, dtype=np.int64)
        if order.size <= 1 or bool((order[1:] > order[:-1]).all()):
            # Every wave in at most one part and the parts in wave order: the sectors, part after
            # part, are already laid out wave after wave (what the placement below would give).
            sectors = (np.concatenate([flat for _, _, flat in parts]).astype(np.int64, copy=False) if parts
                       else np.empty(0, dtype=np.int64))
        else:
            sectors = np.empty(int(offsets[-1]), dtype=np.int64)
            cursor = offsets[:-1].copy()    # where each wave's next sectors go (a wave in several parts of a slot)
            for waves, per_wave, flat in parts:
                dest = np.repeat(cursor[waves], per_wave) + (np.arange(int(per_wave.sum())) -
                                                             np.repeat(np.cumsum(per_wave) - per_wave, per_wave))
                cursor[waves] += per_wave
                sectors[dest] = flat
        if offsets[-1] < 2 ** 31:
            offsets = offsets.astype(np.int32)    # memory: half of a table as long as the waves
        rows = SectorRows(slot % self.program_length, slot, self._writes[slot], offsets, sectors)
        rows.is_atomic = slot in self.atomic_lanes
        return rows


def row_sums(rows):
    """rows.sum(axis=1) as int64 for a 2-D array; column by column when the rows are short (a
    reduction over a short axis costs a call per row, the column adds a pass each)."""
    if rows.shape[1] > 64 or rows.shape[1] == 0:
        return rows.sum(axis=1, dtype=np.int64)
    total = rows[:, 0].astype(np.int64)
    for j in range(1, rows.shape[1]):
        total += rows[:, j]
    return total


def _rows_ascending(rows):
    """Whether every row of a 2-D array is already in ascending order (then sorting it is a no-op)."""
    return rows.shape[1] < 2 or not bool((rows[:, 1:] < rows[:, :-1]).any())
