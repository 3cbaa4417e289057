"""The caches' vectorised accounting against a plain loop over the same rules (timing/caches.py).

SetAssociativeCache.access and CacheHierarchy.account take shortcuts for speed (chunks without
repeats, grid-shaped streams, prefix sums per wave); these tests replay small random streams one
access at a time under the rules the module docstring states and compare every hit, eviction,
tag and per-wave count.
"""
import numpy as np
import pytest

from dmlemu.dispatch_record import DispatchRecord
from dmlemu.timing.caches import CacheHierarchy, SetAssociativeCache, TRAFFIC_FIELDS, _charge, _distinct


def _reference_access(cache, sectors, writes):
    """Chunks of `sets` accesses; within one, a repeat hits, a first access is looked up against the
    chunk's starting state less what the chunk's earlier misses in its set evicted (FIFO: the sector
    in way v goes with the set's ((v - next_way) mod ways + 1)-th miss), misses fill their set FIFO
    in stream order (rank within the set) after the hits have marked what they wrote, only victims
    older than the chunk are written back, and a sector is dirty if any access of the chunk wrote it."""
    hits, evicted = [], []
    tags, dirty, next_way = cache.tags.astype(np.int64), cache.dirty.copy(), cache.next_way.copy()
    step = max(1, cache.sets)
    for lo in range(0, len(sectors), step):
        chunk = [int(s) for s in sectors[lo:lo + step]]
        wrote = {}
        for k, s in enumerate(chunk):
            wrote[s] = wrote.get(s, False) or (writes is not None and bool(writes[lo + k]))
        # First accesses are looked up against the chunk's starting state; hits that write mark
        # their way dirty before the misses pick their victims.
        seen, missed, misses_in = set(), [], {}
        for s in chunk:
            if s in seen:
                hits.append(True)
                continue
            seen.add(s)
            st = int(cache.set_of(np.array([s]))[0])
            ways = list(tags[st])
            hit = s in ways and (ways.index(s) - next_way[st]) % cache.ways >= misses_in.get(st, 0)
            hits.append(hit)
            if hit:
                dirty[st, ways.index(s)] |= wrote[s]
            else:
                missed.append((s, st))
                misses_in[st] = misses_in.get(st, 0) + 1
        rank = {}
        for s, st in missed:
            r = rank.get(st, 0)
            rank[st] = r + 1
            way = (next_way[st] + r) % cache.ways
            if r < cache.ways and dirty[st, way] and tags[st, way] >= 0:
                evicted.append(int(tags[st, way]))
            tags[st, way], dirty[st, way] = s, wrote[s]
        for st, r in rank.items():
            next_way[st] = (next_way[st] + r) % cache.ways
    return np.array(hits, dtype=bool), np.array(evicted, dtype=np.int64), tags, dirty, next_way


@pytest.mark.parametrize("ways", [4, 3])
@pytest.mark.parametrize("seed", range(6))
def test_access_matches_one_access_at_a_time(seed, ways):
    rng = np.random.default_rng(seed)
    cache = SetAssociativeCache("L2", 64 * ways * 16, 64, ways)      # 16 sets
    for _ in range(3):     # the state carries over from one stream to the next
        n = int(rng.integers(1, 200))
        # Few distinct sectors (repeats within chunks, sets over-filled) or none repeated at all.
        span = int(rng.choice([20, 80, 10_000]))
        sectors = rng.integers(0, span, n).astype(np.int64)
        if rng.random() < 0.3:
            sectors = np.arange(n, dtype=np.int64) * 3 + int(rng.integers(0, 1000))
        writes = None if rng.random() < 0.3 else rng.random(n) < 0.5
        if rng.random() < 0.3:     # a streaming kernel: reads and writes of two tensors, in order
            writes = rng.random(n) < 0.5
            sectors = np.where(writes, 5000, 100) + np.arange(n, dtype=np.int64)
        hits, evicted, tags, dirty, next_way = _reference_access(cache, sectors, writes)
        got_hits, got_evicted = cache.access(sectors, writes)
        assert np.array_equal(got_hits, hits)
        assert np.array_equal(got_evicted, evicted)
        assert np.array_equal(cache.tags, tags) and np.array_equal(cache.dirty, dirty)
        assert np.array_equal(cache.next_way, next_way)


@pytest.mark.parametrize("seed", range(3))
def test_tags_past_int32_widen_the_cache_and_change_nothing(seed):
    """The tags are int32 while every tag fits (a speed path: SetAssociativeCache.narrow); a stream past
    2^31 - 1 widens them to int64 for good, and every hit, eviction and tag is still what the rules give."""
    rng = np.random.default_rng(seed)
    cache = SetAssociativeCache("L2", 64 * 4 * 16, 64, 4)      # 16 sets
    limit = np.iinfo(np.int32).max
    for low, high in ((limit - 300, limit - 100), (limit - 300, limit + 300), (limit - 300, limit + 300)):
        n = int(rng.integers(50, 200))
        sectors = rng.integers(low, high + 1, n).astype(np.int64)
        writes = rng.random(n) < 0.5
        hits, evicted, tags, dirty, next_way = _reference_access(cache, sectors, writes)
        got_hits, got_evicted = cache.access(sectors, writes)
        assert cache.tags.dtype == (np.int32 if high <= limit else np.int64)
        assert np.array_equal(got_hits, hits) and np.array_equal(got_evicted, evicted)
        assert np.array_equal(cache.tags, tags) and np.array_equal(cache.dirty, dirty)
        assert np.array_equal(cache.next_way, next_way)



@pytest.mark.parametrize("ways", [4, 3])
def test_a_cycle_through_more_than_a_set_holds_misses_every_time_in_that_set(ways):
    """FIFO within a set: a fixed cycle (a shuffled order, swept again and again) through more sectors than
    a set has ways misses at every access to that set, while the sets it fits hit, however a chunk's
    accesses fall on the sets (a chunk's misses evict what its later accesses would have found)."""
    cache = SetAssociativeCache("L2", 64 * ways * 16, 64, ways)      # 16 sets
    cycle = np.random.default_rng(ways).permutation(16 * ways + 9).astype(np.int64)
    per_set = np.bincount(cache.set_of(cycle), minlength=cache.sets)
    assert per_set.max() > ways and per_set.min() <= ways        # both kinds of set
    fits = per_set[cache.set_of(cycle)] <= ways
    cache.access(cycle, None)
    for _ in range(3):
        hits, _ = cache.access(np.tile(cycle, 2), None)
        assert np.array_equal(hits, np.tile(fits, 2))

class _Preset:
    sector_bytes, l2_bytes, l2_ways = 64, 64 * 4 * 16, 4
    infinity_cache_bytes, infinity_cache_ways = 64 * 4 * 64, 4
    compute_units, l0_bytes, l0_cus_per_cache, l0_write_allocate = 1, 0, 1, False
    simds_per_cu, waves_per_simd = 1, 7      # issue order's generations: 7 waves (several, and a tail)
    l2_far_latency_cycles, tlb_page_bytes = 0, 0
    l1_bytes, l1_cus_per_cache = 0, 1


def _random_record(rng, uniform):
    waves, width = int(rng.integers(1, 40)), 8
    record = DispatchRecord(waves, width, 64, 8)
    for pc in (1, 4, 6):
        if uniform or rng.random() < 0.5:
            # Whole sectors from a sector boundary: the same count every wave (a grid-shaped stream).
            per_wave = int(rng.choice([64, 128])) if uniform else int(rng.choice([64, 100, 200]))
            first = int(rng.integers(0, 1 << 8)) * (64 if uniform else 4)
            record.add_contiguous(pc, pc == 6, 0, waves, first, per_wave)
        else:
            addresses = rng.integers(0, 1 << 14, (waves, width)).astype(np.int64)
            record.add_lanes(pc, pc == 6, np.arange(waves), addresses, rng.random((waves, width)) < 0.7)
    return record


@pytest.mark.parametrize("uniform", [True, False])
@pytest.mark.parametrize("seed", range(5))
def test_account_per_wave_counts_match_a_loop(seed, uniform):
    rng = np.random.default_rng(100 + seed)
    record = _random_record(rng, uniform)
    caches, check = CacheHierarchy(_Preset), CacheHierarchy(_Preset)
    traffic = caches.account(record, 128)
    rows = record.finish()
    # The stream in issue order, one access at a time: generations of 7 waves, slot by slot within one, wave
    # by wave within a slot (caches.py's banner).
    stream, owner = [], []
    for head in range(0, record.total_waves, 7):
        for pc, r in rows.items():
            for w in range(head, min(head + 7, record.total_waves)):
                for s in r.sectors[r.offsets[w]:r.offsets[w + 1]]:
                    stream.append((int(s), r.is_write))
                    owner.append((pc, w))
    sectors = np.array([s for s, _ in stream], dtype=np.int64)
    writes = np.array([wr for _, wr in stream], dtype=bool)
    l2_hit, ic_hit, dram_read, dram_writes, ic_writes = check.classify([sectors, writes])[:5]
    for pc, r in rows.items():
        table = traffic.per_wave[pc]
        for w in range(record.total_waves):
            mine = [k for k, o in enumerate(owner) if o == (pc, w)]
            row = r.sectors[r.offsets[w]:r.offsets[w + 1]] // 2
            lines = sum(1 for k in range(len(row)) if k == 0 or row[k] != row[k - 1])
            expected = [len(mine), lines] + [int(np.sum(f[mine])) for f in
                                             (l2_hit, ic_hit, dram_read, dram_writes, ic_writes)] + [0] * 7   # no host
            # memory, no DRAM banks on this preset (dram_activations 0: tests/timing/test_dram_rows.py), no L0, L1 or TLB
            assert table[:, w].tolist() == expected, (pc, w)
    for field in TRAFFIC_FIELDS:
        assert traffic.totals[field] == sum(int(t[TRAFFIC_FIELDS.index(field)].sum()) for t in traffic.per_wave.values())
    assert np.array_equal(caches.l2.tags, check.l2.tags) and np.array_equal(caches.l2.dirty, check.l2.dirty)


def test_rows_of_a_record_are_distinct_sorted_sectors_per_wave():
    rng = np.random.default_rng(7)
    record = DispatchRecord(6, 8, 64, 4)
    addresses = rng.integers(0, 2048, (6, 8)).astype(np.int64)
    active = rng.random((6, 8)) < 0.6
    record.add_lanes(2, False, np.array([3, 0, 5]), addresses[:3], active[:3])   # out of wave order
    record.add_lanes(2, False, np.array([1, 4]), addresses[3:5], active[3:5])
    record.add_lanes(2, False, np.array([3]), addresses[5:], active[5:])         # wave 3 again (a loop)
    rows = record.finish()[2]
    expected = {w: [] for w in range(6)}
    for waves, a, m in ((np.array([3, 0, 5]), addresses[:3], active[:3]), (np.array([1, 4]), addresses[3:5], active[3:5]),
                        (np.array([3]), addresses[5:], active[5:])):
        for w, row, act in zip(waves, a, m):
            expected[int(w)] += sorted({int(x) // 64 for x, on in zip(row, act) if on})
    for w in range(6):
        assert rows.sectors[rows.offsets[w]:rows.offsets[w + 1]].tolist() == expected[w]


def test_distinct_is_a_sufficient_test_for_no_repeats():
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(0, 40))
        writes = rng.random(n) < 0.5
        sectors = np.where(writes, int(rng.integers(0, 60)), 0) + np.cumsum(rng.integers(0, 3, n))
        for w in (writes, None):
            got = _distinct(sectors, w, piece=int(rng.integers(1, 8)))
            assert got == _distinct(sectors, w)                 # pieces do not change the answer
            if got:
                assert np.unique(sectors).size == n


def test_charge_spreads_write_backs_as_its_formula_says():
    rng = np.random.default_rng(4)
    for _ in range(100):
        n = int(rng.integers(1, 3000))
        eligible = rng.random(n) < rng.random()
        total = int(eligible.sum())
        count = int(rng.integers(0, total + 1))
        got = np.zeros(n, dtype=np.int8)
        _charge(got, eligible, count, chunk=int(rng.integers(1, 500)))
        k = np.arange(total)
        expected = np.zeros(n, dtype=np.int8)
        if count:
            expected[eligible] = (k + 1) * count // total - k * count // total
        assert np.array_equal(got, expected) and int(got.sum()) == count


@pytest.mark.parametrize("first_byte, per_wave", [(0, 128), (256, 64), (100, 64), (64, 200), (4, 3)])
def test_rows_of_contiguous_waves_are_the_sectors_they_touch(first_byte, per_wave):
    record = DispatchRecord(7, 8, 64, 2)
    record.add_contiguous(1, True, 0, 3, first_byte, per_wave)
    record.add_contiguous(1, True, 3, 4, first_byte + 3 * per_wave, per_wave)
    rows = record.finish()[1]
    for w in range(7):
        start = first_byte + w * per_wave
        expected = list(range(start // 64, (start + per_wave - 1) // 64 + 1))
        assert rows.sectors[rows.offsets[w]:rows.offsets[w + 1]].tolist() == expected
