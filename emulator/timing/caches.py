"""The caches of the memory hierarchy: the L2 and (on RDNA2/3) the Infinity Cache (timing).

One L2 per GPU, shared by every compute unit, and one memory-side Infinity Cache where the preset
has one (`infinity_cache_bytes`). Both live as long as the device: their contents carry over from
one dispatch and one submission to the next, so a dispatch that reads what the previous one wrote
hits while it fits.

What they see. The functional model hands over, for every wave memory instruction, the distinct
sectors its lanes touched (dispatch_record.py: that is the coalescer's output). The caches take
that stream in wave order, instruction order within a wave: the order the workgroup dispatcher
hands waves out. (The few thousand waves in flight at once interleave in time; the caches are far
larger than that window, so the order inside it is not applied to their state: docs/DEVIATIONS.md.)

How they work. Sets and ways over sectors (`sector_bytes`: each sector is tagged on its own, the
equivalent of a line with per-sector valid bits), a hashed set index (real GPUs hash addresses
over channels and sets, so power-of-two strides do not pile into one set), FIFO replacement within a
set. Writes allocate in the L2 without reading DRAM (the lanes write whole sectors or use byte
masks) and mark the sector dirty: the L2 is write-back. A dirty L2 sector costs bandwidth when it is
evicted, or when a release (`write_back_l2`) flushes the L2. It then goes into the Infinity Cache
and through it to DRAM: the Infinity Cache is written through, keeping the data (clean) for later
reads. That is what a measured RX 6900 XT shows: a 256 MiB copy, whose 128 MiB of output would fit
its 128 MB Infinity Cache, still runs at 88 % of DRAM peak (592 us; docs/DEVIATIONS.md).

Host memory. On a discrete GPU, UPLOAD and READBACK heaps are host memory behind the host link
(memory_system.HostLink); the device tells the caches their sector ranges (`set_host_ranges`). Their
sectors are not looked up or kept: they pass the caches uncached and cross the link (counted as
`host`), as accesses to write-combined (UPLOAD) and to snooped host memory are uncached at the GPU's
L2 (an estimate of what the drivers map: no vendor figure found says a GPU L2 keeps UPLOAD data).

Speed: the stream is processed in chunks of at most `sets` sectors, all NumPy. Within a chunk a
repeated sector is a hit after its first access; first accesses are looked up against the state at
the chunk's start and misses are inserted with their rank within their set, so consecutive misses
to one set fill consecutive ways as they would one by one. Chunks are cut by the stream, never by
the functional model's batches, so results do not depend on them.
"""
import numpy as np

from dmlemu.timing.dram_rows import DramRows

_HASH = np.uint64(0x9E3779B97F4A7C15)   # Fibonacci hashing constant (2^64 / golden ratio)


class SetAssociativeCache:
    """A cache of `capacity_bytes` in sectors of `sector_bytes`, `ways`-way set associative."""

    def __init__(self, name, capacity_bytes, sector_bytes, ways):
        self.name = name
        self.sector_bytes = sector_bytes
        self.ways = ways
        self.sets = capacity_bytes // (sector_bytes * ways)
        self.tags = np.full((self.sets, ways), -1, dtype=np.int64)
        self.dirty = np.zeros((self.sets, ways), dtype=bool)
        self.next_way = np.zeros(self.sets, dtype=np.int64)   # FIFO pointer per set

    def set_of(self, sectors):
        # An int64 array is reinterpreted as uint64 (the same bits astype gives, without a copy);
        # a set number is below `sets`, so its uint64 bits read as int64 are the same number.
        words = sectors.view(np.uint64) if sectors.dtype == np.int64 else sectors.astype(np.uint64)
        hashed = (words * _HASH) >> np.uint64(20)
        return (hashed % np.uint64(self.sets)).view(np.int64)

    def access(self, sectors, writes):
        """Look up a stream of sectors (in order) with their write flags (None: all reads).

        Returns (hit per access, sectors evicted dirty: the write-backs this stream caused).
        """
        hits = np.empty(sectors.size, dtype=bool)
        evicted = []
        step = max(1, self.sets)
        # Reads only into a cache with nothing dirty (the write-through Infinity Cache, always):
        # no access marks a sector dirty, so every victim of this stream is clean.
        clean = writes is None and not self.dirty.any()
        distinct = writes is not None and _distinct(sectors[:step], writes[:step]) and _distinct(sectors, writes)
        for lo in range(0, sectors.size, step):
            chunk = sectors[lo:lo + step]
            hit, wb = self._chunk(chunk, None if writes is None else writes[lo:lo + step], clean,
                                  distinct or (writes is None and _distinct(chunk, None)))
            hits[lo:lo + step] = hit
            if wb.size:
                evicted.append(wb)
        return hits, (np.concatenate(evicted) if evicted else np.empty(0, dtype=np.int64))

    def _chunk(self, sectors, writes, clean=False, distinct=False):
        # Speed: this runs once per `sets` accesses (thousands of times for a large dispatch), so
        # it avoids ufunc.at (slow): the sectors written are looked up (searchsorted) among the
        # sorted distinct sectors, and the FIFO pointers of the sets that missed (distinct) are
        # updated by fancy indexing. The tag array is read and written through flat indices
        # (np.take and 1-D indexing are faster than 2-D fancy indexing); sorts of sectors and set
        # numbers go through _stable_order. `clean`: reads only and no sector dirty, so nothing is
        # marked dirty, written back or cleaned (those steps are skipped; they would change nothing).
        # The distinct sectors, each at its first access, in stream order. The stable order of the
        # sectors comes from their offsets from the chunk's lowest (a chunk spans far less than
        # 2^32 sectors: two 16-bit radix passes, about 3x faster than sorting the int64 sectors).
        # A chunk without repeats (a streaming kernel's) is its own list of first accesses; one
        # known to have none (`distinct`: see _distinct) is not sorted at all.
        if not distinct:
            low = int(sectors.min()) if sectors.size else 0
            order = _stable_order(sectors - low, int(sectors.max()) - low + 1 if sectors.size else 1)
            ordered = sectors[order]
            new = np.empty(sectors.size, dtype=bool)
            new[:1] = True
            np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
            distinct = bool(new.all())
        if distinct:
            first = None                               # every access is a first access
            unique = sectors
            written = np.zeros(sectors.size, dtype=bool) if writes is None else writes
        else:
            first_at = order[new]                      # each sector's first access in the chunk
            first = np.zeros(sectors.size, dtype=bool)
            first[first_at] = True
            unique = sectors[first]
            stored = sectors[writes] if writes is not None else sectors[:0]
            if stored.size in (0, sectors.size):        # no access writes, or every one does
                written = np.full(unique.size, stored.size > 0)
            else:
                # Any access writes: the sectors written are found among the distinct sectors
                # (ascending in `ordered`'s first accesses) and marked at their first access, then
                # read back in stream order.
                at_first = np.zeros(sectors.size, dtype=bool)
                at_first[first_at[np.searchsorted(ordered[new], stored)]] = True
                written = at_first[first]
            del order, new, ordered
        sets = self.set_of(unique)
        match = np.take(self.tags, sets, axis=0) == unique[:, None]
        present = _any_per_row(match)
        # Hits that write: mark the way dirty.
        hit_rows = np.empty(0, dtype=np.int64) if clean else np.flatnonzero(present & written)
        if hit_rows.size:
            self.dirty[sets[hit_rows], match[hit_rows].argmax(axis=1)] = True
        del match
        # Misses, in stream order (the distinct sectors are), fill their set's ways FIFO.
        miss = np.flatnonzero(~present)
        evicted = np.empty(0, dtype=np.int64)
        if miss.size:
            miss_sets = sets[miss]
            order = _stable_order(miss_sets, self.sets)
            ordered_sets = miss_sets[order]
            boundary = np.empty(ordered_sets.size, dtype=bool)
            boundary[:1] = True
            np.not_equal(ordered_sets[1:], ordered_sets[:-1], out=boundary[1:])
            starts = np.flatnonzero(boundary)
            group_sizes = np.empty_like(starts)
            group_sizes[:-1] = starts[1:] - starts[:-1]
            group_sizes[-1] = ordered_sets.size - starts[-1]
            rank = np.empty(miss.size, dtype=np.int64)
            rank[order] = np.arange(miss.size) - np.repeat(starts, group_sizes)
            slots = miss_sets * self.ways + self._way(self.next_way[miss_sets] + rank)   # flat (set, way)
            tags, dirty = self.tags.ravel(), self.dirty.ravel()     # views: both are C-contiguous
            if not clean:
                victims = tags[slots]
                victim_dirty = dirty[slots] & (victims >= 0)
                # A set that takes more misses than it has ways in one chunk overwrites its own new
                # entries; only entries older than the chunk are written back (rank < ways).
                evicted = victims[victim_dirty & (rank < self.ways)]
                dirty[slots] = written[miss]
            tags[slots] = unique[miss]           # a repeated slot: the last write wins, in order
            touched = ordered_sets[starts]      # distinct: += is add.at here
            self.next_way[touched] = self._way(self.next_way[touched] + group_sizes)
        # A repeat of a sector within the chunk hits (its first access brought it in); a first
        # access hits if the sector was present.
        if first is None:
            return present, evicted
        hit = ~first
        hit[first] = present
        return hit, evicted

    def _way(self, count):
        """count % ways for non-negative counts; a mask when ways is a power of two (the same
        value, without a division)."""
        if self.ways & (self.ways - 1) == 0:
            return count & (self.ways - 1)
        return count % self.ways

    def write_back(self):
        """Flush: every dirty sector is written to the next level and becomes clean; returns them."""
        flushed = self.tags[self.dirty]
        self.dirty[:] = False
        return flushed

    def invalidate(self, first_sector, end_sector):
        """Drop sectors first_sector .. end_sector - 1 without writing them back (another agent
        wrote that memory behind this cache); returns how many were resident."""
        stale = (self.tags >= first_sector) & (self.tags < end_sector)
        self.tags[stale] = -1
        self.dirty[stale] = False
        return int(stale.sum())

    def dirty_sectors(self):
        return int(self.dirty.sum())

    def resident_sectors(self):
        return int((self.tags >= 0).sum())


def _any_per_row(match):
    """match.any(axis=1) for a C-contiguous 2-D bool array, faster when rows are whole 8-byte
    words (a NumPy bool is one byte, 0 or 1): the words of each row are OR-ed as uint64."""
    if match.shape[1] % 8 or not match.flags.c_contiguous:
        return match.any(axis=1)
    words = match.view(np.uint64)
    acc = words[:, 0].copy()
    for c in range(1, words.shape[1]):
        acc |= words[:, c]
    return acc != 0


def _distinct(sectors, writes, piece=1 << 20):
    """True when no sector occurs twice in the stream, by a sufficient test that streaming kernels
    pass: the sectors read rise strictly, so do the sectors written, and the two ranges do not
    overlap (writes None: the sectors rise strictly). False: maybe repeats. Taken `piece`
    accesses at a time (bounded memory); each piece continues the previous one's runs."""
    ends = [None, None]     # (first, last) sector read, written so far
    for lo in range(0, sectors.size, piece):
        part = sectors[lo:lo + piece]
        kinds = ((0, part),) if writes is None else ((0, part[~writes[lo:lo + piece]]), (1, part[writes[lo:lo + piece]]))
        for kind, run in kinds:
            if run.size == 0:
                continue
            if not bool((run[1:] > run[:-1]).all()) or (ends[kind] is not None and run[0] <= ends[kind][1]):
                return False
            ends[kind] = (run[0] if ends[kind] is None else ends[kind][0], run[-1])
    reads, written = ends
    return bool(reads is None or written is None or reads[1] < written[0] or written[1] < reads[0])


def _stable_order(keys, bound):
    """np.argsort(keys, kind="stable") for non-negative integer keys below `bound`: the same order,
    faster. NumPy sorts 16-bit keys stably by radix sort, several times faster than int64 keys;
    keys below 2^32 take two such passes, low half then high half (a stable LSD radix sort)."""
    if bound <= 1 << 16:
        return np.argsort(keys.astype(np.uint16), kind="stable")
    if bound <= 1 << 32:
        low = np.argsort((keys & 0xFFFF).astype(np.uint16), kind="stable")
        high = np.argsort((keys[low] >> 16).astype(np.uint16), kind="stable")
        return low[high]
    return np.argsort(keys, kind="stable")


# The per-wave quantities a cohort's memory request is charged from (summed over its waves).
TRAFFIC_FIELDS = ("sectors", "lines", "l2_hits", "ic_hits", "dram_reads", "dram_writes", "ic_writes", "host",
                  "dram_activations")


class DispatchTraffic:
    """What one dispatch's memory instructions cost at each level, per instruction and per wave.

    `per_wave[slot]` (an access slot: one execution of a memory instruction, dispatch_record.access_slot)
    is an array of shape (len(TRAFFIC_FIELDS), waves): row i holds field i for every
    wave, in the narrowest unsigned type that holds them (every field counts some of the wave's
    sectors: uint8 for most kernels, a quarter of int32 prefix sums); a cohort of waves
    first .. first + n - 1 costs the sum of columns first .. first + n - 1.
    `totals[field]` sums the dispatch (in sectors, except `lines`: tag lookups).
    """

    BLOCK = 4096     # cohorts whose costs are worked out together (see cohort())

    def __init__(self, per_wave, totals, per_instruction):
        self.per_wave = per_wave
        self.totals = totals
        self.per_instruction = per_instruction   # pc -> {field: total}, its access slots summed
        self._blocks = {}    # (pc, count, block) -> [costs of cohort k of the block], a list each

    def cohort(self, pc, first, count):
        """The costs (TRAFFIC_FIELDS, summed) of waves first .. first + count - 1 in access slot `pc`.

        Speed: this runs once per memory request. The workgroup dispatcher hands out contiguous
        ranges of a slot group's size in order, so most cohorts are aligned runs of `count`
        waves: their costs are summed BLOCK cohorts at a time, with one NumPy pass and one flat
        tolist() (cohort after cohort; a cohort's costs are a slice of it), and kept while cohorts
        of that block are still being handed out (the one before it is dropped when a block is
        started). Any other range is summed on its own; both give the same numbers."""
        if first % count == 0:
            k = first // count
            key = (pc, count, k // self.BLOCK)
            rows = self._blocks.get(key)
            if rows is None:
                rows = self.block_rows(*key)
            at = (k % self.BLOCK) * len(TRAFFIC_FIELDS)
            if rows is not None and at < len(rows):
                return rows[at:at + len(TRAFFIC_FIELDS)]
        p = self.per_wave.get(pc)
        if p is None:
            return (0,) * len(TRAFFIC_FIELDS)
        return p[:, first:first + count].sum(axis=1, dtype=np.int64).tolist()

    def block_rows(self, pc, count, block):
        """The costs of cohorts block x BLOCK .. (block + 1) x BLOCK - 1 of `count` waves at instruction pc
        (cohort k covers waves k x count ..), TRAFFIC_FIELDS each, cohort after cohort in one flat list;
        only whole cohorts of waves that exist. None when pc moves no memory or no such cohort exists.
        The block is kept until the next block of pc and count is asked for."""
        p = self.per_wave.get(pc)
        if p is None:
            return None
        lo = block * self.BLOCK * count
        cohorts = min(self.BLOCK, (p.shape[1] - lo) // count)    # whole cohorts from wave lo on
        if cohorts <= 0:
            return None
        waves = p[:, lo:lo + cohorts * count].reshape(len(p), cohorts, count)
        if count <= 16:
            # A few waves per cohort: added column by column (faster than a sum over a short axis).
            sums = waves[:, :, 0].astype(np.int64)
            for j in range(1, count):
                sums += waves[:, :, j]
        else:
            sums = waves.sum(axis=2, dtype=np.int64)
        rows = sums.T.ravel().tolist()     # cohort after cohort, TRAFFIC_FIELDS each
        self._blocks.pop((pc, count, block - 1), None)
        self._blocks[(pc, count, block)] = rows
        return rows

    def range_sums(self, fields, first, count):
        """For arrays of wave ranges (first, count): each field's sum over the ranges' waves and
        every memory instruction (int64 arrays, one per field)."""
        if not self.per_wave:
            return [np.zeros(first.size, dtype=np.int64) for _ in fields]
        waves = next(iter(self.per_wave.values())).shape[1]
        out = []
        for field in fields:
            i = TRAFFIC_FIELDS.index(field)
            prefix = np.zeros(waves + 1, dtype=np.int64)
            for p in self.per_wave.values():
                prefix[1:] += p[i]
            np.cumsum(prefix, out=prefix)
            out.append(prefix[first + count] - prefix[first])
        return out


class CacheHierarchy:
    """The device's L2 and Infinity Cache; classifies a dispatch's sector stream level by level."""

    def __init__(self, preset):
        self.sector_bytes = preset.sector_bytes
        self.l2 = SetAssociativeCache("L2", preset.l2_bytes, preset.sector_bytes, preset.l2_ways)
        self.infinity_cache = None
        self.host_starts = self.host_ends = None    # host memory's sector ranges (set_host_ranges)
        if preset.infinity_cache_bytes:
            self.infinity_cache = SetAssociativeCache("Infinity Cache", preset.infinity_cache_bytes,
                                                      preset.sector_bytes, preset.infinity_cache_ways)
        # DRAM's banks (dram_rows.py): which DRAM reads open a row (None: no banks modelled).
        self.dram_rows = DramRows(preset, _stable_order) if getattr(preset, "dram_channels", 0) else None

    def set_host_ranges(self, ranges):
        """Host memory (see the banner): `ranges` is a list of (first byte, bytes); None or empty: none."""
        if not ranges:
            self.host_starts = self.host_ends = None
            return
        ranges = sorted(ranges)
        self.host_starts = np.array([first // self.sector_bytes for first, _ in ranges], dtype=np.int64)
        self.host_ends = np.array([-(-(first + size) // self.sector_bytes) for first, size in ranges], dtype=np.int64)

    def host_mask(self, sectors):
        """Per sector, whether it is host memory; None when no host range is set (nothing is)."""
        if self.host_starts is None:
            return None
        at = np.searchsorted(self.host_starts, sectors, side="right") - 1
        mask = (at >= 0) & (sectors < self.host_ends[np.maximum(at, 0)])
        return mask if mask.any() else None

    def classify(self, stream):
        """For a stream of sector accesses in order: per access, whether it hit the L2, whether it
        hit the Infinity Cache (after missing the L2), whether it reads DRAM, and the number of
        sectors written back to DRAM (and to the Infinity Cache) that it caused by eviction.

        `stream` is a list [sectors, write flags] that classify empties: holding the only
        references, it frees the sectors once the Infinity Cache's stream is built (memory: the
        largest array of a dispatch's accounting)."""
        sectors, writes = stream
        stream.clear()
        l2_hit, l2_evicted = self.l2.access(sectors, writes)
        n = sectors.size
        ic_hit = np.zeros(n, dtype=bool)
        dram_read = ~l2_hit & ~writes
        # Each miss allocates one way and so evicts at most one sector: a charge is 0 or 1.
        written_back = np.zeros(n, dtype=np.int8)
        _charge(written_back, ~l2_hit, l2_evicted.size)
        if self.infinity_cache is None:
            # L2 evictions go straight to DRAM; each is charged to a miss that caused it.
            return l2_hit, ic_hit, dram_read, written_back, np.zeros(n, dtype=np.int8)
        # Reads that missed the L2 look up the Infinity Cache (a write that misses the L2 is
        # allocated there and reaches the Infinity Cache only when evicted); the L2's dirty
        # evictions are then written into it, and through it to DRAM (write-through: they stay
        # resident, clean, for later reads, and DRAM bandwidth is spent now).
        # Memory: the reads are picked by the mask (no index array), into the stream's buffer.
        reads = int(np.count_nonzero(dram_read))
        stream = np.empty(reads + l2_evicted.size, dtype=sectors.dtype)
        np.compress(dram_read, sectors, out=stream[:reads])
        stream[reads:] = l2_evicted
        del l2_evicted, sectors, writes
        hit, _ = self.infinity_cache.access(stream, None)
        ic_hit[dram_read] = hit[:reads]
        dram_read &= ~ic_hit          # the reads that missed the Infinity Cache too
        return l2_hit, ic_hit, dram_read, written_back, written_back

    def account(self, record, line_bytes):
        """Run a dispatch's sector stream (a DispatchRecord) through the caches, in wave order and
        instruction order within a wave; returns its DispatchTraffic.

        Speed: a wave's accesses of one instruction are one run of the stream, so a per-wave sum of
        a per-access flag is the difference of the flag's prefix sum at the run's two ends (one
        cumsum per flag; no gather of the accesses). When every wave makes the same number of
        accesses at each instruction (a packed or uniformly strided tensor), the stream is a
        (waves, accesses per wave) grid and instruction pc owns a band of its columns: the stream
        is built, and the flags summed, band by band (strided copies, no index arrays). Both give
        the sums and the stream that placing each access one by one would."""
        rows = record.finish()
        pcs = list(rows)
        waves = record.total_waves
        counts = [rows[pc].counts() for pc in pcs]
        # Where each access lands in the stream ordered by (wave, instruction): before it come every
        # access of earlier waves, then this wave's accesses of earlier instructions. No sort.
        per_wave_total = np.sum(counts, axis=0) if counts else np.zeros(waves, dtype=np.int64)
        n = int(per_wave_total.sum())
        stream = np.empty(n, dtype=np.int64)
        stream_writes = np.empty(n, dtype=bool)
        uniform = waves > 0 and all(bool((c == c[0]).all()) for c in counts)
        runs = []      # per pc: the stream position of every wave's first access
        if uniform:
            # Access j of wave w at pc goes to w * width + column + j: a band of the grid.
            width = int(per_wave_total[0])
            grid, write_grid = stream.reshape(waves, width), stream_writes.reshape(waves, width)
            column = 0
            for pc, c in zip(pcs, counts):
                r, k = rows[pc], int(c[0])
                grid[:, column:column + k] = r.sectors.reshape(waves, k)
                write_grid[:, column:column + k] = r.is_write
                runs.append(column)
                column += k
            del grid, write_grid
        else:
            wave_start = np.zeros(waves + 1, dtype=np.int64)
            np.cumsum(per_wave_total, out=wave_start[1:])
            before = np.zeros(waves, dtype=np.int64)
            index_type = np.int32 if n < 2 ** 31 else np.int64    # stream positions: half the memory
            for pc, c in zip(pcs, counts):
                r = rows[pc]
                # Access i of wave w goes to wave_start[w] + before[w] + (i - offsets[w]).
                first = wave_start[:-1] + before
                pos = np.repeat((first - r.offsets[:-1]).astype(index_type), c)
                pos += np.arange(r.sectors.size, dtype=index_type)
                stream[pos] = r.sectors
                stream_writes[pos] = r.is_write
                del pos
                before += c
                runs.append(first)
            del wave_start, before
        # Memory: what only built the stream goes before the caches run; classify frees the stream.
        del per_wave_total
        host = self.host_mask(stream)
        if host is None:
            stream = [stream, stream_writes]
            del stream_writes
            l2_hit, ic_hit, dram_read, dram_writes, ic_writes = self.classify(stream)
        else:
            # Host memory's sectors skip the caches (see the banner): the rest is classified alone and
            # its flags put back in place (a host access hits nothing, reads no DRAM, evicts nothing).
            device = ~host
            parts = self.classify([stream[device], stream_writes[device]])
            del stream_writes
            full = []
            for part in parts:
                same = next((f for p, f in zip(parts, full) if p is part), None)   # keep shared arrays shared
                if same is None:
                    same = np.zeros(n, dtype=part.dtype)
                    same[device] = part
                full.append(same)
            del parts, device
            l2_hit, ic_hit, dram_read, dram_writes, ic_writes = full
            del full
        # The DRAM reads that open a row (dram_rows.py), per access; None: no banks modelled.
        row_misses = None if self.dram_rows is None else self.dram_rows.account(
            rows, pcs, counts, dram_read, runs, width if uniform else None, waves)
        flags = (None, None, l2_hit, ic_hit, dram_read, dram_writes, ic_writes, host, row_misses)   # per access
        del l2_hit, ic_hit, dram_read, dram_writes, ic_writes, row_misses
        # Every field counts some of a wave's sectors (a write-back charge is 0 or 1 per access), so
        # the wave's sector count bounds them all: the narrowest type that holds it.
        tables = [np.zeros((len(TRAFFIC_FIELDS), waves), dtype=np.min_scalar_type(int(c.max(initial=0))))
                  for c in counts]
        for table, c in zip(tables, counts):
            table[0] = c
        ratio = max(1, line_bytes // self.sector_bytes)
        for table, pc, c in zip(tables, pcs, counts):
            r = rows[pc]
            if r.sectors.size == 0:
                continue
            # Tag lookups: an access starts a new line unless it is in its wave's previous line.
            lines = r.sectors >> (ratio.bit_length() - 1) if ratio & (ratio - 1) == 0 else r.sectors // ratio
            new_line = np.ones(lines.size, dtype=bool)
            new_line[1:] = lines[1:] != lines[:-1]
            del lines
            if uniform:
                new_line = new_line.reshape(waves, int(c[0]))
                new_line[:, 0] = True
                table[1] = _band_sums(new_line, 0, new_line.shape[1])
            else:
                new_line[r.offsets[:-1][c > 0]] = True
                table[1] = _run_sums(new_line, [(r.offsets[:-1].astype(np.int64), c)])[0]
            del new_line
        done = {}    # id of a flag array -> its field (write-backs to DRAM and to the Infinity Cache
        for i in range(2, len(TRAFFIC_FIELDS)):     # are one array when the preset has one)
            flag = flags[i]
            if flag is None:      # no host memory in this dispatch: the field stays 0
                continue
            if id(flag) in done:
                for table in tables:
                    table[i] = table[done[id(flag)]]
                continue
            done[id(flag)] = i
            if uniform:
                flag = flag.reshape(waves, width)
                for table, column, c in zip(tables, runs, counts):
                    table[i] = _band_sums(flag, column, int(c[0]))
            else:
                for table, sums in zip(tables, _run_sums(flag, [(first, c) for first, c in zip(runs, counts)])):
                    table[i] = sums
        del flags, flag
        per_wave_tables, per_instruction = {}, {}
        totals = dict.fromkeys(TRAFFIC_FIELDS, 0)
        for slot, table in zip(pcs, tables):
            per_wave_tables[slot] = table
            # Per instruction: its access slots (a loop's trips) summed.
            sums = per_instruction.setdefault(rows[slot].pc, dict.fromkeys(TRAFFIC_FIELDS, 0))
            for field, total in zip(TRAFFIC_FIELDS, table.sum(axis=1, dtype=np.int64).tolist()):
                sums[field] += total
                totals[field] += total
        return DispatchTraffic(per_wave_tables, totals, per_instruction)

    def write_back_l2(self):
        """Release (a transition out of UAV use, the end of an ExecuteCommandLists): the L2's dirty
        sectors go to the next level and stay resident, clean. The Infinity Cache is memory-side
        (every agent's traffic passes it) and written through, so it holds nothing to flush.
        Returns (sectors written into the Infinity Cache, sectors written to DRAM)."""
        flushed = self.l2.write_back()
        if self.infinity_cache is None:
            return 0, int(flushed.size)
        self.infinity_cache.access(flushed, None)   # write-through: nothing marked dirty
        return int(flushed.size), int(flushed.size)

    def invalidate(self, first_byte, num_bytes):
        """The copy engine wrote bytes first_byte .. + num_bytes behind the L2: its copies of those
        sectors are stale and dropped (the memory-side Infinity Cache sees the copy and stays valid)."""
        if num_bytes <= 0:
            return 0
        first = first_byte // self.sector_bytes
        end = -(-(first_byte + num_bytes) // self.sector_bytes)
        return self.l2.invalidate(first, end)


def _charge(per_access, eligible, count, chunk=1 << 20):
    """Spread `count` write-backs evenly over the eligible accesses of the stream (the misses, which
    allocate ways and so cause evictions), so their bandwidth is paid during the dispatch. The k-th
    eligible access gets floor((k+1) count / E) - floor(k count / E); done `chunk` accesses of the
    stream at a time (bounded memory)."""
    if count == 0:
        return
    total = int(np.count_nonzero(eligible))
    k0 = 0    # eligible accesses before this piece of the stream
    for lo in range(0, eligible.size, chunk):
        rows = np.flatnonzero(eligible[lo:lo + chunk])
        if rows.size:
            # floor(k count / E) for k = k0 .. k0 + rows: one division per access, not two.
            floors = np.arange(k0, k0 + rows.size + 1, dtype=np.int64) * count // total
            per_access[lo + rows] = floors[1:] - floors[:-1]
            k0 += rows.size


def _band_sums(grid, column, k):
    """Per row of a 2-D array, the sum of columns column .. column + k - 1 (int64). Column by
    column while the band is narrow: NumPy reduces a short axis row by row, several times slower
    than a few whole-column adds."""
    if k > 64:
        return grid[:, column:column + k].sum(axis=1, dtype=np.int64)
    total = np.zeros(grid.shape[0], dtype=np.int64)
    for j in range(column, column + k):
        total += grid[:, j]
    return total


def _run_sums(values, runs):
    """For each (first, count) of `runs` (arrays, one entry per run): the sums of
    values[first[k]:first[k] + count[k]] (0 for an empty run), as the difference of the values'
    prefix sum at the runs' two ends."""
    prefix = np.zeros(values.size + 1, dtype=np.int32 if values.size < 2 ** 31 else np.int64)
    np.cumsum(values, out=prefix[1:])
    return [prefix[first + count] - prefix[first] for first, count in runs]
