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

Speed: NumPy over the whole stream, per level: one stable sort by (cache, sector) as one integer key,
whose equal neighbours are a cache's consecutive accesses to a sector, and one by cache for each access's
place in its cache's stream (caches._stable_order's radix passes). A stream in which no sector repeats (a
streaming kernel's: caches._distinct) is not sorted at all. Cost: a stream with repeats pays about as much
again as the L2's own classification (a 2048^2 transposed read on the RX 7900 XTX preset: cu_side_hits
0.84 s of CPU, 1.0-1.4 s with a shared sort by sector and gathers by cache).
"""
import numpy as np


def reuse_hits(sectors, writes, owners, owner_count, reach, after_write, stable_order):
    """Per access of `sectors` (in stream order) made by cache `owners` (int, below owner_count): True
    where it is a read whose previous access to its sector by the same cache was at most `reach` of
    that cache's own accesses before, and a read unless `after_write` (see the banner). `writes`: the
    write flags (None: all reads). `stable_order`: caches._stable_order."""
    n = sectors.size
    hits = np.zeros(n, dtype=bool)
    if n < 2 or reach <= 0:
        return hits
    # Each access's position in its cache's own stream.
    by_owner = stable_order(owners, owner_count)
    counts = np.bincount(owners, minlength=owner_count)
    starts = np.cumsum(counts) - counts
    rank = np.empty(n, dtype=np.int64)
    rank[by_owner] = np.arange(n, dtype=np.int64) - np.repeat(starts, counts)
    del by_owner
    # Stream order within (cache, sector): one stable sort by the pair as one key, whose equal
    # neighbours are a cache's consecutive accesses to a sector.
    low = int(sectors.min())
    span = int(sectors.max()) - low + 1
    key = owners.astype(np.int64) * span + (sectors - low)
    order = stable_order(key, owner_count * span)
    key = key[order]
    again = np.flatnonzero(key[1:] == key[:-1])
    del key
    now, before = order[again + 1], order[again]
    served = rank[now] - rank[before] <= reach
    if writes is not None:
        served &= ~writes[now] if after_write else ~writes[now] & ~writes[before]
    hits[now[served]] = True
    return hits


def cu_side_hits(sectors, writes, parts, levels, stable_order, distinct):
    """(L0 hits, L1 hits) per access (None where a level has no hit or is not modelled). `parts` is each
    access's L0 (caches.py's CU part); `levels` holds (L0 sectors, L0 count, L0 after_write, L0s per L1,
    L1 sectors, L1 count) of the preset (CacheHierarchy). `distinct`: caches._distinct, a cheap test
    that no sector repeats (a streaming kernel's stream), when nothing can hit."""
    l0_sectors, l0_count, after_write, per_l1, l1_sectors, l1_count = levels
    if sectors.size < 2 or distinct(sectors, writes):
        return None, None
    owners = parts.astype(np.int64)
    l0 = l1 = None
    if l0_sectors:
        l0 = reuse_hits(sectors, writes, owners, l0_count, l0_sectors, after_write, stable_order)
        if not l0.any():
            l0 = None
    if l1_sectors:
        arrays = owners // per_l1
        if l0 is None:
            l1 = reuse_hits(sectors, writes, arrays, l1_count, l1_sectors, False, stable_order)
        else:
            rest = np.flatnonzero(~l0)             # the L1 sees the L0's misses
            l1 = np.zeros(sectors.size, dtype=bool)
            l1[rest] = reuse_hits(sectors[rest], None if writes is None else writes[rest], arrays[rest], l1_count,
                                  l1_sectors, False, stable_order)
        if not l1.any():
            l1 = None
    return l0, l1
