# cython: boundscheck=False, wraparound=False
"""The caches on the compute units' side of the L2: each CU's L0 and each shader array's L1 (timing).

Which accesses of a dispatch's sector stream (caches.py: issue order) the CU-side caches serve, so that
they never reach the L2. Two levels, where the preset has them:

    L0  one per `l0_cus_per_cache` CUs (RDNA's vector L0, NVIDIA's L1 data cache, Xe-LP's subslice L1),
        `l0_bytes`; on NVIDIA a store allocates (`l0_write_allocate`: lazy fetch-on-read), elsewhere it
        is written through without allocating.
    L1  one per `l1_cus_per_cache` CUs (RDNA's GL1, 128 KB per shader array on RDNA2 and 256 KB on RDNA3:
        presets.py), `l1_bytes`, read-only: it sees the L0's misses, and stores pass it to the L2.

The rule, for a cache of C sectors: a read hits when the previous access to its sector *by that cache*
(by a CU it serves, anywhere earlier in the dispatch's stream) was at most C of that cache's own accesses
before, and was a read (or a store, where stores allocate). That is a fully associative cache whose
reuse distance is counted in its own accesses (never fewer than the distinct sectors between, so a
hit is one that an LRU of C sectors would also give). The L1's accesses are the L0's misses. Counting
in a cache's own accesses, not in the whole GPU's stream, is what lets the 132 SMs of a GH100 each keep
their copy of a working set that every SM reads (a read-bandwidth sweep at 256 KiB); counting in the
whole stream would give each SM's L1 1/132 of its capacity.

Workgroup g runs on compute unit g mod compute_units (caches.py); CU c is in L0 c // l0_cus_per_cache
and in L1 c // l1_cus_per_cache (the model's CU numbering fills one shader array after the other).
Both levels are invalidated at every dispatch's end (the flush), as the hardware's release invalidates
them, so nothing carries over.

Speed: one pass per level over the stream, split by cache (walk_caches: a counting sort, then a table
of each sector's latest access), written once in plain Python and compiled by Cython (cu_caches.pxd) like
the timing units (physics.py); interpreted, the same loops run over lists, about 15x slower. A stream in
which no sector repeats (a streaming kernel's: caches._distinct) is not walked at all. Cost: a 2048^2
transposed read on the RX 7900 XTX preset (4.5 M accesses) takes 0.11 s of CPU compiled (NumPy sorts by
(cache, sector) took 0.8 s), 2.3 s interpreted.
"""
import numpy as np

from dmlemu.timing.physics import compiled_file

COMPILED = compiled_file(__file__)
BLOCK = 12      # log2 of the sectors per block of the dense numbering, where a stream's addresses are far apart


def dense_numbers(sectors):
    """(number, count): each sector as an integer below `count`, equal where the sectors are, so that
    a table of `count` entries (bounded by a small multiple of the stream's length) can follow every
    sector. A stream's sectors span a few tensors: their offset from the lowest one, or, where the
    tensors lie far apart, the rank of their 2^BLOCK-sector block among the blocks used, then their
    place in it; failing both, their rank among the distinct sectors (a sort)."""
    n = sectors.size
    limit = max(4 * n, 1 << 22)
    low = int(sectors.min())
    offsets = sectors - low
    span = int(sectors.max()) - low + 1
    if span <= limit:
        return offsets, span
    blocks = offsets >> BLOCK
    if (span >> BLOCK) < limit:
        used = np.zeros((span >> BLOCK) + 1, dtype=bool)
        used[blocks] = True
        count = int(np.count_nonzero(used)) << BLOCK
        if count <= limit:
            rank = np.cumsum(used) - 1
            return (rank[blocks] << BLOCK) | (offsets & ((1 << BLOCK) - 1)), count
    distinct, number = np.unique(sectors, return_inverse=True)
    return number.astype(np.int64), distinct.size


def walk_caches(ids, writes, owners, skipped, owner_count, reach, after_write, count, hits):
    """The banner's rule for one level: `hits[i]` = 1 where access i hits. Access i is sector `ids[i]`
    (below `count`), a write where `writes[i]`, made by cache `owners[i]` (below owner_count); where
    `skipped[i]` it does not reach this level (an L0 hit, for the L1). The stream is
    split by cache (a counting sort that keeps stream order within each cache: position k in the split
    stream, minus the cache's first position, is the access's place in its cache's own stream), then
    each cache's part is walked with `last[sector]`: 2 * the position of the cache's latest access to
    the sector, plus 1 if it was a write (-1: none), put back to -1 for the next cache."""
    n = len(ids)
    starts = _filled(owner_count + 1, 0)
    for i in range(n):
        if skipped[i] == 0:
            starts[owners[i] + 1] += 1
    for o in range(owner_count):
        starts[o + 1] += starts[o]
    fill = starts.copy()
    order = _filled(starts[owner_count], 0)
    for i in range(n):
        if skipped[i] == 0:
            o = owners[i]
            order[fill[o]] = i
            fill[o] += 1
    last = _filled(count, -1)
    for o in range(owner_count):
        first = starts[o]
        end = starts[o + 1]
        for k in range(first, end):
            i = order[k]
            s = ids[i]
            seen = last[s]
            w = writes[i]
            if seen >= 0 and w == 0 and k - (seen >> 1) <= reach and (after_write or (seen & 1) == 0):
                hits[i] = 1
            last[s] = 2 * k + w
        for k in range(first, end):
            last[ids[order[k]]] = -1


def _filled(n, value):
    """`n` integers `value` in the container this build indexes fastest (as physics.zeros): a 64-bit
    array compiled, a list interpreted."""
    return np.full(n, value, dtype=np.int64) if COMPILED else [value] * n


def cu_side_hits(sectors, writes, parts, levels, distinct):
    """(L0 hits, L1 hits) per access (None where a level has no hit or is not modelled). `parts` is each
    access's L0 (caches.py's CU part); `levels` holds (L0 sectors, L0 count, L0 after_write, L0s per L1,
    L1 sectors, L1 count) of the preset (CacheHierarchy). `distinct`: caches._distinct, a cheap test
    that no sector repeats (a streaming kernel's stream), when nothing can hit."""
    l0_sectors, l0_count, after_write, per_l1, l1_sectors, l1_count = levels
    n = sectors.size
    if n < 2 or distinct(sectors, writes):
        return None, None
    ids, count = dense_numbers(sectors)
    flags = np.zeros(n, dtype=np.uint8) if writes is None else writes.view(np.uint8)
    l0_of = parts.astype(np.int32)
    l1_of = l0_of // per_l1 if l1_sectors else None
    l0 = np.zeros(n, dtype=np.uint8)
    l1 = np.zeros(n, dtype=np.uint8)
    if not COMPILED:
        # Interpreted: lists, whose items Python reads without building objects (physics.zeros).
        ids, flags, l0_of, l1_of = (a if a is None else a.tolist() for a in (ids, flags, l0_of, l1_of))
        l0, l1 = [0] * n, [0] * n
    if l0_sectors:
        walk_caches(ids, flags, l0_of, l1, l0_count, l0_sectors, after_write, count, l0)   # (l1: none skipped)
    if l1_sectors:
        walk_caches(ids, flags, l1_of, l0, l1_count, l1_sectors, False, count, l1)         # the L0's misses
    l0, l1 = (np.asarray(level, dtype=np.uint8).view(bool) for level in (l0, l1))
    return (l0 if l0.any() else None), (l1 if l1.any() else None)
