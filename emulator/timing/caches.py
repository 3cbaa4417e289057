"""The caches of the memory hierarchy: the CUs' L0s, the L2 (on GH100 two partitions), the Infinity
Cache (RDNA2/3) and the TLBs (timing).

One L2 per GPU, shared by every compute unit, and one memory-side Infinity Cache where the preset
has one (`infinity_cache_bytes`). Both live as long as the device: their contents carry over from
one dispatch and one submission to the next, so a dispatch that reads what the previous one wrote
hits while it fits.

What they see. The functional model hands over, for every wave memory instruction, the distinct
sectors its lanes touched (dispatch_record.py: that is the coalescer's output). The caches take that
stream in issue order: the GPU runs `generation_waves` waves at a time (every wave slot), handed out in
order, and the waves in flight together run the same instruction at about the same time; so the
accesses come generation by generation (wave // generation_waves), access slot by access slot within a
generation (an instruction, and each trip of a loop its own slot, in the order a wave executes them:
execution_order, dispatch_record.access_slot),
wave by wave within a slot, a wave's sectors of one slot together. A loop that sweeps a buffer larger
than the L2 twice so finds its second sweep evicted, as the GPU does: in wave order each wave would
run all its trips before the next wave started. (Within a generation the waves interleave finer than
slot by slot in time; the caches are far larger than what a generation touches at one slot, so that
order is not applied to their state: docs/DEVIATIONS.md.) The DRAM banks see the DRAM reads in the
same order (dram_rows.py).
Workgroup g runs on compute unit g mod compute_units (the dispatcher's round robin over the CUs;
the timing model's dispatcher hands waves out dynamically: docs/DEVIATIONS.md).

The CUs' own caches (`l0_bytes`, one per `l0_cus_per_cache` CUs: RDNA's vector L0, NVIDIA's L1 data
cache, Xe-LP's subslice L1) and the shader arrays' L1s (`l1_bytes`, RDNA's GL1) take the stream first
(cu_caches.py: a read hits when its cache's own previous access to the sector was within the cache's
capacity of its own accesses); their hits are counted as theirs (`l0_hits`, `l1_hits`), never reach
the L2 (simd.py: no miss-queue slot, no L2 bandwidth; the L0's data path and their latency) and the
L2 and everything behind it see only their misses. Stores always go on to the L2.

GH100's two L2 partitions (`l2_far_latency_cycles`): an SM's requests go to the partition on its side,
which keeps a copy of what that side used; the modelled near partition is a cache of half the L2's
capacity that every access goes through, and an L2 hit it does not hold is a far hit (`far_hits`),
served by the other partition with its latency (simd.py adds the difference after the L2 has served
the request: the data crosses back, and the request holds its miss-queue room until then).

Address translation (`tlb_page_bytes`): each CU's L1 TLB (PartitionedCache, one part per CU group as
the L0) and one shared TLB, sets and ways over page numbers. An access to one of the last two pages
its CU translated hits without a lookup. A request with an L1 TLB miss waits `tlb_l1_miss_cycles`
(`tlb_misses`), one that also misses the shared TLB `tlb_walk_cycles` more (`tlb_walks`), before it
reaches the caches. A translation's first miss (the page's first use on that CU, or on the device) is
not charged: the published latencies these figures come from are measured warm (docs/DEVIATIONS.md).

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

A first access found in the chunk's starting state is still a miss when the chunk's earlier misses
in its set reach its way first (FIFO hands a set's misses its ways in order: _kept), so a cycle
through more sectors than a set holds misses there every time, as one access at a time would (a
repeat within the chunk still hits). Replacement: NVIDIA publishes none; FIFO with this hashed
index reproduces this project's H200 chase between 56 and 72 MiB (h200_microbench.md: hit fractions
from the latencies 0.91, 0.56, 0.19, 0.0 at 56, 60, 64, 72 MiB; the model 0.86, 0.52, 0.27, 0.03),
where random replacement would keep about 60 % of a 72 MiB cycle (an estimate from that curve's shape).
"""
import numpy as np

from dmlemu.timing.cu_caches import cu_side_hits
from dmlemu.timing.dram_rows import DramRows

_HASH = np.uint64(0x9E3779B97F4A7C15)   # Fibonacci hashing constant (2^64 / golden ratio)
_NARROW_MAX = np.iinfo(np.int32).max    # the largest tag a cache keeps in int32 (SetAssociativeCache.narrow)


def generation_waves(preset):
    """The waves in flight together in issue order (see the banner): every wave slot of the GPU."""
    return preset.compute_units * preset.simds_per_cu * preset.waves_per_simd


class SetAssociativeCache:
    """A cache of `capacity_bytes` in sectors of `sector_bytes`, `ways`-way set associative."""

    def __init__(self, name, capacity_bytes, sector_bytes, ways):
        self.name = name
        self.sector_bytes = sector_bytes
        self.ways = ways
        self.sets = capacity_bytes // (sector_bytes * ways)
        # Speed: the tags are int32 while every tag fits (a lookup gathers half the bytes: a large cache's
        # lookups are bound by those gathers); the first tag that does not widens them to int64 (narrow).
        self.tags = np.full((self.sets, ways), -1, dtype=np.int32)
        self.dirty = np.zeros((self.sets, ways), dtype=bool)
        self.next_way = np.zeros(self.sets, dtype=np.int64)   # FIFO pointer per set

    def narrow(self, tags):
        """The distinct tags about to be looked up, as the tag array's type: int32 while they all fit,
        else the tag array is widened to int64 for good (the same tags, looked up the same way)."""
        if self.tags.dtype == np.int64:
            return tags
        if tags.size and int(tags.max()) > _NARROW_MAX:
            self.tags = self.tags.astype(np.int64)
            return tags
        return tags.astype(np.int32)

    def present(self, sets, tags, piece=8192):
        """Per tag (each in its set of `sets`), whether the cache holds it. Speed: `piece` lookups at a
        time into the same two buffers (each lookup's ways, gathered, and their comparison): a large
        cache's chunk would otherwise gather megabytes into fresh memory that no CPU cache holds."""
        n = sets.size
        out = np.empty(n, dtype=bool)
        rows = np.empty((min(n, piece), self.ways), dtype=self.tags.dtype)
        match = np.empty(rows.shape, dtype=bool)
        for lo in range(0, n, piece):
            k = min(piece, n - lo)
            np.take(self.tags, sets[lo:lo + k], axis=0, out=rows[:k])
            np.equal(rows[:k], tags[lo:lo + k, None], out=match[:k])
            out[lo:lo + k] = _any_per_row(match[:k])
        return out

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
        tags = self.narrow(unique)
        present = self._kept(sets, tags, self.present(sets, tags))
        # Hits that write: mark the way dirty.
        hit_rows = np.empty(0, dtype=np.int64) if clean else np.flatnonzero(present & written)
        if hit_rows.size:
            match = np.take(self.tags, sets[hit_rows], axis=0) == self.narrow(unique[hit_rows])[:, None]
            self.dirty[sets[hit_rows], match.argmax(axis=1)] = True
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

    def _kept(self, sets, tags, present):
        """`present` (per distinct sector of a chunk, in stream order: held at the chunk's start) less the
        sectors that the chunk's own earlier misses in their set evict before their access (see the
        banner): FIFO hands a set's misses the ways next_way, next_way + 1, ... in order, so the sector
        in way v goes with the set's ((v - next_way) mod ways + 1)-th miss. Each sector so lost is a
        miss itself and evicts in turn: repeated until none is lost (misses only grow)."""
        if present.all() or not present.any():
            return present
        # Speed: only the sets that hold a sector of the chunk and take a miss in it are looked at.
        missed = np.zeros(self.sets, dtype=bool)
        missed[sets[~present]] = True
        held = np.zeros(self.sets, dtype=bool)
        held[sets[present]] = True
        missed &= held
        involved = np.flatnonzero(missed[sets])
        del missed, held
        if involved.size == 0:
            return present
        order = involved[_stable_order(sets[involved], self.sets)]   # by set, stream order within a set
        ordered_sets = sets[order]
        boundary = np.empty(order.size, dtype=bool)
        boundary[:1] = True
        np.not_equal(ordered_sets[1:], ordered_sets[:-1], out=boundary[1:])
        starts = np.flatnonzero(boundary)
        group_start = np.repeat(starts, np.diff(np.append(starts, order.size)))
        del boundary, ordered_sets
        while True:
            held = present[order]
            missed = (~held).astype(np.int64)
            before = np.cumsum(missed)
            before -= missed                          # misses earlier in the chunk ...
            before -= before[group_start]             # ... in the same set
            suspect = np.flatnonzero(held & (before > 0))
            if suspect.size == 0:
                return present
            rows = order[suspect]
            row_sets = sets[rows]
            way = (np.take(self.tags, row_sets, axis=0) == tags[rows][:, None]).argmax(axis=1)
            lost = self._way(way - self.next_way[row_sets] + self.ways) < before[suspect]
            if not lost.any():
                return present
            present[rows[lost]] = False

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


class PartitionedCache(SetAssociativeCache):
    """`parts` caches of `capacity_bytes` each in units of `unit_bytes` (the CUs' L1 TLBs: one entry per
    page, unit 1), `ways`-way, held as one tag array: part p owns sets p x part_sets .. (p + 1) x
    part_sets - 1 and tags item x parts + p. Lookups only (nothing is written back)."""

    def __init__(self, name, parts, capacity_bytes, unit_bytes, ways):
        super().__init__(name, parts * capacity_bytes, unit_bytes, ways)
        self.parts = parts
        self.part_sets = max(1, self.sets // parts)

    def set_of(self, keys):
        part = keys % self.parts
        words = (keys // self.parts).view(np.uint64)
        hashed = (words * _HASH) >> np.uint64(20)
        return part * self.part_sets + (hashed % np.uint64(self.part_sets)).view(np.int64)

    def lookup(self, items, parts):
        """Hit flags of a stream of reads of `items` (int64 >= 0), each by part `parts` (in order).

        Each part takes its own accesses in stream order. Speed: the parts are independent (their
        sets are disjoint), so round r holds accesses r x part_sets .. of every part at once, one
        _chunk call each: a chunk never holds more accesses of one part than that part has sets, the
        bound SetAssociativeCache.access keeps, and the result is what each part alone would give."""
        n = items.size
        hits = np.zeros(n, dtype=bool)
        if n == 0:
            return hits
        keys = items * self.parts + parts
        order = _stable_order(parts, self.parts)
        counts = np.bincount(parts, minlength=self.parts)
        starts = np.cumsum(counts) - counts
        rank = np.empty(n, dtype=np.int64)
        rank[order] = np.arange(n) - np.repeat(starts, counts)     # position in its part's stream
        rounds = rank // self.part_sets
        last = int(rounds.max())
        by_round = _stable_order(rounds, last + 1)
        bounds = np.searchsorted(rounds[by_round], np.arange(last + 2))
        for r in range(last + 1):
            at = by_round[bounds[r]:bounds[r + 1]]
            hits[at] = self._chunk(keys[at], None, clean=True)[0]
        return hits


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
                  "dram_activations", "l0_hits", "far_hits", "tlb_misses", "tlb_walks", "l1_hits")


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

    def __init__(self, preset, cu_side_hits=cu_side_hits):
        self.sector_bytes = preset.sector_bytes
        self.cu_side_hits = cu_side_hits    # cu_caches.py's, of the build the device's units are (physics.py)
        self.l2 = SetAssociativeCache("L2", preset.l2_bytes, preset.sector_bytes, preset.l2_ways)
        self.infinity_cache = None
        self.host_starts = self.host_ends = None    # host memory's sector ranges (set_host_ranges)
        if preset.infinity_cache_bytes:
            self.infinity_cache = SetAssociativeCache("Infinity Cache", preset.infinity_cache_bytes,
                                                      preset.sector_bytes, preset.infinity_cache_ways)
        # DRAM's banks (dram_rows.py): which DRAM reads open a row (None: no banks modelled).
        self.dram_rows = DramRows(preset, _stable_order) if getattr(preset, "dram_channels", 0) else None
        self.dram_read_sectors = None   # the last _beyond_l2 stream's DRAM reads, in stream order (for dram_rows)
        self.generation = generation_waves(preset)    # issue order's generation (dram_rows.py)
        # GH100's split L2 (see the banner): the near partition's copy of what this side's SMs used.
        self.l2_near = None
        if preset.l2_far_latency_cycles:
            self.l2_near = SetAssociativeCache("L2 near partition", preset.l2_bytes // 2, preset.sector_bytes,
                                               preset.l2_ways)
        self.far = None     # the last _beyond_l0 stream's far hits (None: none)
        # The CUs' own caches and TLBs (see the banner): one part per l0_cus_per_cache CUs.
        self.compute_units = preset.compute_units
        self.cus_per_part = preset.l0_cus_per_cache
        parts = -(-preset.compute_units // preset.l0_cus_per_cache)
        self.parts = parts
        self.l0_sectors = preset.l0_bytes // preset.sector_bytes    # 0: no L0
        self.l0_write_allocate = preset.l0_write_allocate
        # The shader arrays' L1s (cu_caches.py): the levels cu_side_hits takes, and the last stream's L1 hits.
        self.l1_sectors = preset.l1_bytes // preset.sector_bytes    # 0: no L1
        per_l1 = max(1, preset.l1_cus_per_cache // preset.l0_cus_per_cache)
        self.cu_levels = (self.l0_sectors, parts, self.l0_write_allocate, per_l1, self.l1_sectors, -(-parts // per_l1))
        self.l1 = None
        self.tlb_l1 = self.tlb_l2 = None
        if preset.tlb_page_bytes:
            self.sectors_per_page = max(1, preset.tlb_page_bytes // preset.sector_bytes)
            self.tlb_l1 = PartitionedCache("L1 TLB", parts, preset.tlb_l1_entries, 1, min(4, preset.tlb_l1_entries))
            self.tlb_l2 = SetAssociativeCache("L2 TLB", preset.tlb_l2_entries, 1, min(16, preset.tlb_l2_entries))
            self.tlb_seen = {"l1": np.empty(0, dtype=np.int64), "l2": np.empty(0, dtype=np.int64)}

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

    def classify(self, stream, parts=None, groups=None):
        """For a stream of sector accesses in order: per access, whether it hit the L2, whether it
        hit the Infinity Cache (after missing the L2), whether it reads DRAM, the number of
        sectors written back to DRAM (and to the Infinity Cache) that it caused by eviction, whether
        it hit its CU's L0 (a read that goes no further), whether its L2 hit was far, whether it
        missed its L1 TLB and whether it also missed the shared TLB (None: no access did).

        `parts` holds each access's L1 TLB part, `groups` its workgroup (None: no CU caches or TLBs
        looked up).
        `stream` is a list [sectors, write flags] that classify empties: holding the only
        references, it frees the sectors once the Infinity Cache's stream is built (memory: the
        largest array of a dispatch's accounting)."""
        sectors, writes = stream
        stream.clear()
        tlb = self._translate(sectors, parts)
        stream = [sectors, writes]
        del sectors, writes            # (the only references are the list's: _levels frees them)
        return self._levels(stream, groups, parts) + (self.far,) + tlb + (self.l1,)

    def _translate(self, sectors, parts):
        """(L1 TLB misses, shared TLB misses) per access, (None, None) without TLBs or misses.

        An access to one of the last two distinct pages its part translated hits without a lookup
        (they were just used: a TLB keeps its most recently used entries). Speed: that filter leaves
        a streaming kernel a few lookups per page and CU instead of one or two per wave."""
        if self.tlb_l1 is None or sectors.size == 0:
            return None, None
        spp = self.sectors_per_page
        if parts is None:
            parts = np.zeros(sectors.size, dtype=np.int16)
        change = np.empty(sectors.size, dtype=bool)
        change[:1] = True
        if spp & (spp - 1) == 0:
            # Speed: two neighbours are on one page when their bits above the page's differ in none
            # (one pass, no page array for the whole stream).
            np.greater_equal(np.bitwise_xor(sectors[1:], sectors[:-1]), spp, out=change[1:])
        else:
            np.not_equal(sectors[1:] // spp, sectors[:-1] // spp, out=change[1:])
        change[1:] |= parts[1:] != parts[:-1]
        at = np.flatnonzero(change)                 # the stream positions looked at from here on
        del change
        pages = sectors[at] // spp
        part = parts[at].astype(np.int64)
        # Each part's own sequence of distinct pages (stable by part), without a page that is the
        # one before last (p q p q ... keeps p q), back in stream order. Indices into `at`.
        by_part = _stable_order(part, self.tlb_l1.parts)
        mine = pages[by_part] * self.tlb_l1.parts + part[by_part]
        fresh = np.ones(mine.size, dtype=bool)
        fresh[1:] = mine[1:] != mine[:-1]
        by_part, mine = by_part[fresh], mine[fresh]
        fresh = np.ones(mine.size, dtype=bool)
        fresh[2:] = mine[2:] != mine[:-2]
        keep = np.sort(by_part[fresh])
        del by_part, mine, fresh
        l1_hit = self.tlb_l1.lookup(pages[keep], part[keep])
        miss = keep[~l1_hit]
        del keep, l1_hit
        if miss.size == 0:
            return None, None
        missed = pages[miss]
        first = np.concatenate(([True], missed[1:] != missed[:-1]))
        l2_hit, _ = self.tlb_l2.access(missed[first], None)
        walks = miss[first][~l2_hit]
        # A translation's first miss (the page's first use on this part, or on the device) is not
        # charged: only misses of translations the TLB held before and lost (see the banner).
        miss = miss[self._seen_before("l1", pages[miss] * self.tlb_l1.parts + part[miss])]
        walks = walks[self._seen_before("l2", pages[walks])]
        miss_at, walks = at[miss], at[walks]
        if miss_at.size == 0:
            return None, None
        tlb_miss = np.zeros(sectors.size, dtype=bool)
        tlb_miss[miss_at] = True
        if walks.size == 0:
            return tlb_miss, None
        tlb_walk = np.zeros(sectors.size, dtype=bool)
        tlb_walk[walks] = True
        return tlb_miss, tlb_walk

    def _seen_before(self, level, keys):
        """Per key (in stream order), whether the TLB level translated it before: on an earlier
        dispatch, or earlier in this stream. Records the keys as seen."""
        seen = self.tlb_seen[level]
        before = np.isin(keys, seen)
        distinct, first = np.unique(keys, return_index=True)
        repeat = np.ones(keys.size, dtype=bool)
        repeat[first] = False
        self.tlb_seen[level] = np.union1d(seen, distinct)     # (the keys' distinct ones: the same union, less to sort)
        return before | repeat

    def _levels(self, stream, groups, parts=None):
        """classify's first six flags (the L2 and beyond, and the L0's hits; see classify). The CU-side
        caches (cu_caches.py) take the stream first, where `parts` says each access's L0; the L2 and
        what is behind it see only their misses (self.l1: the shader arrays' L1 hits, or None)."""
        sectors, writes = stream
        stream.clear()
        self.l1 = l0_hit = None
        if parts is not None and (self.l0_sectors or self.l1_sectors):
            l0_hit, l1_hit = self.cu_side_hits(sectors, writes, parts, self.cu_levels, _distinct)
            served = l0_hit if l1_hit is None else (l1_hit if l0_hit is None else l0_hit | l1_hit)
            if served is not None:
                levels = self._behind_cu_caches(sectors, writes, ~served) + (l0_hit,)
                self.l1 = l1_hit
                return levels
        l2_hit, l2_evicted = self.l2.access(sectors, writes)
        n = sectors.size
        self.far = None
        if self.l2_near is not None and n:
            # Every access goes through the near partition, which keeps a copy of the most recent
            # half of the L2's worth; an L2 hit it does not hold (nor the L0) is served by the far one.
            near, _ = self.l2_near.access(sectors, None)
            self.far = l2_hit & ~near
            del near
        levels = self._beyond_l2(sectors, writes, l2_hit, l2_evicted)
        del sectors, writes, l2_evicted
        return tuple(levels) + (l0_hit,)

    def _behind_cu_caches(self, sectors, writes, missed):
        """_levels' five L2-and-beyond flags when the CU-side caches served some accesses: the levels
        see the `missed` ones alone (a served access hits nothing there, reads no DRAM, evicts nothing);
        their flags, and the far hits, put back in place."""
        n = sectors.size
        levels = self._levels([sectors[missed], writes[missed]], None)[:5]
        full = []
        for flag in levels:
            same = next((f for p, f in zip(levels, full) if p is flag), None)   # keep shared arrays shared
            if same is None:
                same = np.zeros(n, dtype=flag.dtype)
                same[missed] = flag
            full.append(same)
        if self.far is not None:
            far = np.zeros(n, dtype=bool)
            far[missed] = self.far
            self.far = far
        return tuple(full)

    def _beyond_l2(self, sectors, writes, l2_hit, l2_evicted):
        """[L2 hit, Infinity Cache hit, DRAM read, write-backs to DRAM, to the Infinity Cache] per access."""
        n = sectors.size
        ic_hit = np.zeros(n, dtype=bool)
        dram_read = ~l2_hit & ~writes
        # Each miss allocates one way and so evicts at most one sector: a charge is 0 or 1.
        written_back = np.zeros(n, dtype=np.int8)
        _charge(written_back, ~l2_hit, l2_evicted.size)
        if self.infinity_cache is None:
            # L2 evictions go straight to DRAM; each is charged to a miss that caused it.
            if self.dram_rows is not None:
                self.dram_read_sectors = sectors[dram_read]
            return [l2_hit, ic_hit, dram_read, written_back, np.zeros(n, dtype=np.int8)]
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
        if self.dram_rows is not None:
            self.dram_read_sectors = stream[:reads][~hit[:reads]]
        return [l2_hit, ic_hit, dram_read, written_back, written_back]

    def account(self, record, line_bytes, waves_per_workgroup=1, places=None):
        """Run a dispatch's sector stream (a DispatchRecord) through the caches, in issue order (see the
        banner); returns its DispatchTraffic. Workgroup g's waves use the L0
        and L1 TLB of compute unit g mod compute_units (see the banner). `places`: each access slot's first
        place in the dispatch's paths (kernel_path.access_places; None: slot order, for a record without paths).

        Speed: a wave's accesses of one instruction are one run of the stream, so a per-wave sum of
        a per-access flag is the difference of the flag's prefix sum at the run's two ends (one
        cumsum per flag; no gather of the accesses). When every wave makes the same number of
        accesses at each instruction (a packed or uniformly strided tensor), each generation is a
        grid and access slot s owns a band of its columns (_IssueGrid): the stream is built, and the
        flags summed, band by band (strided copies, no index arrays). Both give
        the sums and the stream that placing each access one by one would."""
        rows = record.finish()
        pcs = execution_order(rows, places or {})
        waves = record.total_waves
        counts = [rows[pc].counts() for pc in pcs]
        # Where each access lands in the stream in issue order: worked out per slot, no sort.
        per_wave_total = np.sum(counts, axis=0) if counts else np.zeros(waves, dtype=np.int64)
        n = int(per_wave_total.sum())
        stream = np.empty(n, dtype=np.int64)
        stream_writes = np.empty(n, dtype=bool)
        uniform = waves > 0 and all(bool((c == c[0]).all()) for c in counts)
        wave_of = None   # the generic layout: each access's wave, where the CUs' caches need it
        per_cu = bool(self.l0_sectors or self.l1_sectors or self.tlb_l1 is not None) and n > 0
        runs = []      # per slot: its band's first column (uniform), else the stream position of every wave's first access
        if uniform:
            # Slot s's accesses are a band of `k` columns of every generation (_IssueGrid).
            width = int(per_wave_total[0])
            grid = _IssueGrid(waves, width, self.generation)
            column = 0
            for pc, c in zip(pcs, counts):
                r, k = rows[pc], int(c[0])
                grid.put(stream, column, k, r.sectors.reshape(waves, k))
                grid.put(stream_writes, column, k, r.is_write)
                runs.append(column)
                column += k
        elif waves > 0:
            index_type = np.int32 if n < 2 ** 31 else np.int64    # stream positions: half the memory
            generation = np.arange(waves, dtype=np.int64) // self.generation
            heads = np.arange(0, waves, self.generation)           # each generation's first wave
            # Before generation g's accesses come every earlier generation's; within it, slot s's come after
            # the generation's accesses of earlier slots (`done`), wave w's after earlier waves' of slot s.
            generation_start = np.zeros(heads.size, dtype=np.int64)
            np.cumsum(np.add.reduceat(per_wave_total, heads)[:-1], out=generation_start[1:])
            done = np.zeros(heads.size, dtype=np.int64)
            wave_ids = np.arange(waves, dtype=np.int32 if waves < 2 ** 31 else np.int64)
            wave_of = np.empty(n, dtype=wave_ids.dtype) if per_cu else None
            before = np.zeros(waves + 1, dtype=np.int64)
            for pc, c in zip(pcs, counts):
                r = rows[pc]
                np.cumsum(c, out=before[1:])
                first = (generation_start + done)[generation] + before[:-1] - before[heads][generation]
                pos = np.repeat((first - r.offsets[:-1]).astype(index_type), c)
                pos += np.arange(r.sectors.size, dtype=index_type)
                stream[pos] = r.sectors
                stream_writes[pos] = r.is_write
                if per_cu:
                    wave_of[pos] = np.repeat(wave_ids, c)
                del pos
                done += np.add.reduceat(c.astype(np.int64), heads)
                runs.append(first)
            del generation, heads, generation_start, done, before, wave_ids
        # Each access's part of the CUs' caches (see the banner), where the preset has them.
        cu_parts = groups = None
        if per_cu:
            # Narrow types: these are as long as the stream (a part number fits 16 bits: FIELD_LIMITS).
            wave_group = np.arange(waves, dtype=np.int64) // max(1, waves_per_workgroup)
            part_of_wave = (wave_group % self.compute_units // self.cus_per_part).astype(np.int16)
            if uniform:
                cu_parts = np.empty(n, dtype=np.int16)
                for column, c in zip(runs, counts):
                    grid.put_per_wave(cu_parts, column, int(c[0]), part_of_wave)
            else:
                cu_parts = part_of_wave[wave_of]
            del wave_group, part_of_wave
        del wave_of
        # Memory: what only built the stream goes before the caches run; classify frees the stream.
        del per_wave_total
        host = self.host_mask(stream)
        if host is None:
            stream = [stream, stream_writes]
            del stream_writes
            classified = self.classify(stream, cu_parts, groups)
        else:
            # Host memory's sectors skip the caches (see the banner): the rest is classified alone and
            # its flags put back in place (a host access hits nothing, reads no DRAM, evicts nothing).
            device = ~host
            parts = self.classify([stream[device], stream_writes[device]],
                                  None if cu_parts is None else cu_parts[device],
                                  None if groups is None else groups[device])
            del stream_writes
            full = []
            for part in parts:
                same = next((f for p, f in zip(parts, full) if p is part), None)   # keep shared arrays shared
                if same is None and part is not None:
                    same = np.zeros(n, dtype=part.dtype)
                    same[device] = part
                full.append(same)
            del parts, device
            classified = tuple(full)
            del full
        del cu_parts, groups
        l2_hit, ic_hit, dram_read, dram_writes, ic_writes, l0_hit, far_hit, tlb_miss, tlb_walk, l1_hit = classified
        del classified
        # The DRAM reads that open a row (dram_rows.py), per access; None: no banks modelled.
        row_misses = None
        if self.dram_rows is not None:
            row_misses = self.dram_rows.account(dram_read, self.dram_read_sectors)
        self.dram_read_sectors = None
        flags = (None, None, l2_hit, ic_hit, dram_read, dram_writes, ic_writes, host,     # per access
                 row_misses, l0_hit, far_hit, tlb_miss, tlb_walk, l1_hit)
        del l2_hit, ic_hit, dram_read, dram_writes, ic_writes, row_misses, l0_hit, far_hit, tlb_miss, tlb_walk, l1_hit
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
                for table, column, c in zip(tables, runs, counts):
                    table[i] = grid.sums(flag, column, int(c[0]))
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
        if self.l2_near is not None:
            self.l2_near.invalidate(first, end)
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


def execution_order(rows, places):
    """The access slots of `rows` (a DispatchRecord's SectorRows by slot) in the order a wave executes them: by
    `places`, each slot's first place in the dispatch's control-flow paths (kernel_path.PathCost.access_places),
    so an instruction after a loop comes after the loop's trips, though its slot number is smaller; a slot no path
    holds comes last, by number."""
    last = max(places.values(), default=0) + 1
    return sorted(rows, key=lambda slot: (places.get(slot, last), slot))


class _IssueGrid:
    """A stream whose waves all make the same `width` accesses, in issue order (CacheHierarchy.account): `F`
    full generations of `G` waves, then a tail generation of `T`; within a generation the access slots'
    bands one after another (slot s owns columns column .. column + k - 1 of each wave), a band holding
    its waves' k accesses each, wave by wave. Every access is placed, and every per-wave sum read, by
    strided copies of whole bands (no index arrays)."""

    def __init__(self, waves, width, generation):
        self.G = min(generation, waves)
        self.F = waves // self.G
        self.T = waves - self.F * self.G
        self.width = width
        self.split = self.F * self.G * width      # where the tail generation starts

    def _bands(self, array, column, k):
        """(the full generations' band as an (F, G, k) view or None, the tail's as (T, k) or None)."""
        F, G, T = self.F, self.G, self.T
        full = (array[:self.split].reshape(F, G * self.width)[:, column * G:(column + k) * G].reshape(F, G, k)
                if F else None)
        tail = array[self.split:][column * T:(column + k) * T].reshape(T, k) if T else None
        return full, tail

    def put(self, array, column, k, rows):
        """Place `rows` ((waves, k): each wave's accesses, or one value for all) in the band."""
        full, tail = self._bands(array, column, k)
        rows = np.broadcast_to(rows, (self.F * self.G + self.T, k))
        if full is not None:
            full[...] = rows[:self.F * self.G].reshape(self.F, self.G, k)
        if tail is not None:
            tail[...] = rows[self.F * self.G:]

    def put_per_wave(self, array, column, k, values):
        """Place each wave's value (`values`, one per wave) at each of its k accesses of the band."""
        self.put(array, column, k, np.asarray(values).reshape(-1, 1))

    def sums(self, flag, column, k):
        """Per wave, the sum of `flag` over its k accesses of the band (int64)."""
        full, tail = self._bands(flag, column, k)
        out = np.empty(self.F * self.G + self.T, dtype=np.int64)
        if full is not None:
            # Column by column while the band is narrow (as _band_sums): (F, G) sums, no copy of the band.
            if k > 64:
                out[:self.F * self.G] = full.sum(axis=2, dtype=np.int64).reshape(-1)
            else:
                total = np.zeros((self.F, self.G), dtype=np.int64)
                for j in range(k):
                    total += full[:, :, j]
                out[:self.F * self.G] = total.reshape(-1)
        if tail is not None:
            out[self.F * self.G:] = _band_sums(tail, 0, k)
        return out


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
