"""The CUs' L0s and the shader arrays' L1s (emulator/timing/cu_caches.py), GH100's far L2 partition and the
TLBs (emulator/timing/caches.py), against slow per-access references, and through the timing model: a
pointer chase within the L0 costs an L0 hit, one within the L1 an L1 hit."""
import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dmlemu.functional.buffer_descriptor import write_buffer_descriptor
from dmlemu.functional.wave_dispatcher import KernelLaunch
from dmlemu.gpu import Gpu
from dmlemu.isa.assembler import assemble
from dmlemu.isa.program import Program
from dmlemu.presets import H200, RX_6800_XT, RTX_3070, preset_problem
from dmlemu.timing import physics
from dmlemu.timing.caches import CacheHierarchy

# A small L2 (64 sets of 4 ways) so that streams of a few hundred sectors cross chunks and evict.
SMALL = dataclasses.replace(RX_6800_XT, l2_bytes=64 * 4 * 64, l2_ways=4, infinity_cache_bytes=0, l0_bytes=8 * 128,
                            l1_bytes=0, tlb_page_bytes=0)


def reuse_reference(sectors, writes, owners, reach, after_write):
    """A read hits its cache when the previous access to its sector by the same cache (`owners`), anywhere
    earlier in the stream, was at most `reach` of that cache's own accesses before, and a read (or any
    access with after_write)."""
    hits = np.zeros(sectors.size, dtype=bool)
    last, made = {}, {}
    for i, (s, o) in enumerate(zip(sectors.tolist(), owners.tolist())):
        rank = made.get(o, 0)
        before = last.get((o, s))
        if (before is not None and not writes[i] and rank - before[0] <= reach
                and (after_write or not before[1])):
            hits[i] = True
        last[(o, s)] = (rank, bool(writes[i]))
        made[o] = rank + 1
    return hits


def _stream(seed):
    """A random stream; its sectors lie in one range, or in ranges far apart (cu_caches.dense_numbers:
    numbered by block, or by a sort)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 400))
    sectors = rng.integers(0, 60, n).astype(np.int64)
    sectors += rng.choice([0, 1 << 23, 1 << 40], n) * int(rng.integers(0, 2))
    return sectors, rng.random(n) < 0.2, rng.integers(0, 4, n).astype(np.int64)


# The CU-side caches of both builds: compiled (where it was built) and the same source interpreted.
BUILDS = {"default": CacheHierarchy, "interpreted": lambda preset: CacheHierarchy(
    preset, physics.interpreted()["cu_caches"].cu_side_hits)}


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2 ** 31), allocate=st.booleans(), build=st.sampled_from(sorted(BUILDS)))
def test_l0_hits_are_a_cus_rereads_within_its_reach(seed, allocate, build):
    sectors, writes, parts = _stream(seed)
    preset = dataclasses.replace(SMALL, l0_write_allocate=allocate)
    caches = BUILDS[build](preset)
    flags = caches.classify([sectors.copy(), writes.copy()], parts)
    l0 = flags[5] if flags[5] is not None else np.zeros(sectors.size, dtype=bool)
    expected = reuse_reference(sectors, writes, parts, preset.l0_bytes // preset.sector_bytes, allocate)
    assert np.array_equal(l0, expected)
    assert not (l0 & flags[0]).any() and not (l0 & writes).any()       # an L0 hit is not an L2 hit, never a store
    assert not (l0 & flags[2]).any()                                   # nor a DRAM read
    # The L2 sees the L0's misses alone: its state is what that stream leaves.
    plain = CacheHierarchy(dataclasses.replace(preset, l0_bytes=0))
    plain.classify([sectors[~l0], writes[~l0]])
    assert np.array_equal(plain.l2.tags, caches.l2.tags) and np.array_equal(plain.l2.dirty, caches.l2.dirty)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2 ** 31), build=st.sampled_from(sorted(BUILDS)))
def test_l1_hits_are_a_shader_arrays_rereads_of_what_its_l0s_missed(seed, build):
    sectors, writes, parts = _stream(seed)
    preset = dataclasses.replace(SMALL, l0_bytes=2 * 128, l1_bytes=8 * 128, l1_cus_per_cache=2)
    caches = BUILDS[build](preset)
    flags = caches.classify([sectors.copy(), writes.copy()], parts)
    l0 = flags[5] if flags[5] is not None else np.zeros(sectors.size, dtype=bool)
    l1 = flags[9] if flags[9] is not None else np.zeros(sectors.size, dtype=bool)
    assert np.array_equal(l0, reuse_reference(sectors, writes, parts, 4, False))
    missed = ~l0
    expected = np.zeros(sectors.size, dtype=bool)
    expected[missed] = reuse_reference(sectors[missed], writes[missed], parts[missed] // 2, 16, False)
    assert np.array_equal(l1, expected)
    assert not (l1 & (l0 | flags[0] | flags[2] | writes)).any()      # read-only, and the L2 never sees its hits


def test_the_far_partition_serves_what_the_near_one_no_longer_holds():
    preset = dataclasses.replace(H200, l2_bytes=64 * 32 * 20, l2_ways=20, l0_bytes=0, tlb_page_bytes=0)
    caches = CacheHierarchy(preset)
    capacity = preset.l2_bytes // preset.sector_bytes
    for sectors, far in ((np.arange(capacity // 4), False), (np.arange(capacity * 9 // 10), True)):
        caches = CacheHierarchy(preset)
        stream = np.concatenate([sectors, sectors])        # the second lap hits the L2
        flags = caches.classify([stream, np.zeros(stream.size, dtype=bool)])
        second = slice(sectors.size, None)
        assert flags[0][second].mean() > 0.9
        far_share = 0.0 if flags[6] is None else flags[6][second].mean()
        assert (far_share > 0.5) if far else (far_share == 0.0)


def test_a_translation_is_charged_only_when_the_tlb_had_it_and_lost_it():
    preset = dataclasses.replace(RX_6800_XT, l0_bytes=0, tlb_l1_entries=4, tlb_l2_entries=16)
    caches = CacheHierarchy(preset)
    per_page = preset.tlb_page_bytes // preset.sector_bytes
    pages = np.arange(64)                                   # 64 pages: 4x the shared TLB's entries
    stream = pages * per_page
    parts = np.zeros(stream.size, dtype=np.int64)
    first = caches.classify([stream.copy(), np.zeros(stream.size, dtype=bool)], parts)
    assert first[7] is None and first[8] is None            # first translations: not charged
    second = caches.classify([stream.copy(), np.zeros(stream.size, dtype=bool)], parts)
    assert second[7].all() and second[8].all()              # lost to capacity: an L1 miss and a walk each
    few = caches.classify([stream[:2].copy(), np.zeros(2, dtype=bool)], parts[:2])
    again = caches.classify([stream[:2].copy(), np.zeros(2, dtype=bool)], parts[:2])
    assert again[7] is None                                  # just used: still in the L1 TLB
    assert few is not None


CHASE = ("    s_load_dwordx4 s[8:11], s[0:1], 0\n    s_waitcnt 0\n    v_mov_b32 v2, 0\n    s_mov_b32 s22, {trips}\n"
         "loop:\n" + "    buffer_load_dword v2, v2, s[8:11], 0\n    s_waitcnt 0\n" * 8
         + "    s_sub_u32 s22, s22, 1\n    s_cmp_lg_u32 s22, 0\n    s_cbranch_scc1 loop\n    s_endpgm\n")


def chase_cycles_per_load(preset, nodes, trips):
    """Cycles per load of one wave's chase over `nodes` 64-byte slots in a cycle (T and 2T trips)."""
    out = []
    for t in (trips, 2 * trips):
        gpu = Gpu(preset)
        buf = gpu.memory.allocate(nodes * 64, "chase")
        table = gpu.memory.allocate(64, "table")
        write_buffer_descriptor(table.data, 0, buf.gpu_va, buf.size)
        order = np.random.default_rng(3).permutation(np.arange(1, nodes)) * 64
        order = np.concatenate([[0], order])
        buf.data.view(np.uint32)[order // 4] = np.roll(order, -1)
        launch = KernelLaunch(Program(assemble(CHASE.format(trips=t)), "chase"), 1, preset.wave_width,
                              (table.gpu_va & 0xFFFFFFFF, table.gpu_va >> 32))
        out.append(gpu.dispatch(launch).cycles)
    return (out[1] - out[0]) / (8 * trips)


@pytest.mark.parametrize("preset", [RX_6800_XT, RTX_3070], ids=lambda p: p.key)
def test_a_chase_within_the_l0_costs_an_l0_hit_and_beyond_it_an_l2_trip(preset):
    # Ampere's 128 KiB L1 takes a chase of thousands of trips to pass; the rule is the same at RDNA2's 16 KiB.
    preset = dataclasses.replace(preset, l0_bytes=min(preset.l0_bytes, 16 << 10), l1_bytes=0)
    within = chase_cycles_per_load(preset, 32, 8)                                  # 2 KiB
    nodes = 4 * preset.l0_bytes // 64                  # 64-byte slots: 2x to 4x the L0's sectors
    beyond = chase_cycles_per_load(preset, nodes, nodes // 8)
    overhead = 24 + 3                   # the VMEM pipeline, the tag lookup and the issue, as the presets take them
    assert within == pytest.approx(preset.l0_latency_cycles + overhead, abs=3)
    assert beyond == pytest.approx(preset.l2_latency_cycles + overhead, abs=6)


def test_a_chase_beyond_the_l0_within_the_shader_array_l1_costs_an_l1_hit():
    # RDNA2's 16 KiB L0 and 128 KiB L1 shrunk 8x (the same rule in fewer trips): 2 KiB and 16 KiB.
    preset = dataclasses.replace(RX_6800_XT, l0_bytes=2 << 10, l1_bytes=16 << 10)
    nodes = 4 * preset.l0_bytes // 64                  # 8 KiB: 4x the L0, half the L1
    within_l1 = chase_cycles_per_load(preset, nodes, nodes // 8)
    beyond = chase_cycles_per_load(preset, 4 * nodes, nodes // 2)
    overhead = 24 + 3
    assert within_l1 == pytest.approx(preset.l1_latency_cycles + overhead, abs=4)
    assert beyond == pytest.approx(preset.l2_latency_cycles + overhead, abs=6)


@pytest.mark.parametrize("field, value, sentence", [
    ("l0_bytes", 1000, "l0_bytes is 1000; it must be a multiple of line_bytes (128)"),
    ("l2_far_latency_cycles", 100, "l2_far_latency_cycles is 100; it must be 0 (one L2 partition) or at least "
                                   "l2_latency_cycles (183): the far partition is not nearer"),
    ("tlb_l2_entries", 0, "tlb_l2_entries is 0 while tlb_page_bytes is 2097152; a modelled TLB needs entries"),
    ("l0_cus_per_cache", 0, "l0_cus_per_cache is 0; it must be a positive integer"),
    ("l1_bytes", 1000, "l1_bytes is 1000; it must be a multiple of line_bytes (128)"),
    ("l1_cus_per_cache", 0, "l1_cus_per_cache is 0; it must be a positive integer"),
])
def test_impossible_cu_cache_fields_are_refused_with_a_sentence(field, value, sentence):
    assert preset_problem(dataclasses.replace(RX_6800_XT, **{field: value})) == sentence


READ = ("    s_load_dwordx4 s[8:11], s[0:1], 0\n    s_waitcnt 0\n    s_get_workgroup_id s20\n"
        "    s_mul_i32 s21, s20, 8192\n    v_lshl_b32 v1, v0, 3\n    v_add_u32 v1, s21, v1\n    s_mov_b32 s22, {trips}\n"
        "loop:\n" + "".join(f"    buffer_load_dwordx2 v[{4 + 2 * k}:{5 + 2 * k}], v1, s[8:11], {k * 2048}\n"
                            for k in range(4))
        + "    s_waitcnt 0\n    v_add_u32 v1, {stride}, v1\n"
        "    s_sub_u32 s22, s22, 1\n    s_cmp_lg_u32 s22, 0\n    s_cbranch_scc1 loop\n    s_endpgm\n")


def third_read_cycles(preset, set_bytes):
    """Cycles of the third of three dispatches that each read a `set_bytes` set once (4 workgroups of 256
    lanes per CU, four 8-byte loads per trip): the L2 holds the set from the first on."""
    groups = 4 * preset.compute_units
    stride = groups * 8192
    gpu = Gpu(preset)
    buf = gpu.memory.allocate(set_bytes, "set")
    table = gpu.memory.allocate(64, "table")
    write_buffer_descriptor(table.data, 0, buf.gpu_va, buf.size)
    program = Program(assemble(READ.format(trips=set_bytes // stride, stride=stride)), "read")
    for _ in range(3):
        gpu.barrier()
        cycles = gpu.dispatch(KernelLaunch(program, groups, 256, (table.gpu_va & 0xFFFFFFFF, table.gpu_va >> 32),
                                           vgprs_used=12)).cycles
    return cycles


@pytest.mark.parametrize("far", [False, True])
def test_a_far_partition_hit_holds_its_miss_queue_room_for_the_whole_round_trip(far):
    # 8 SMs with 128 sectors of miss queue each read a set the L2 holds (0.75 of a 2 MiB L2: past the near
    # partition's half, so every hit is far on the split L2): the miss queue binds, so by Little's law each SM
    # reads its room's bytes per round trip, the far crossing included (it is taken when the request leaves the
    # SM and given back when the data returns), whether the request waited for room or not.
    preset = dataclasses.replace(H200, compute_units=8, l2_bytes=2 << 20, l2_ways=16, l0_bytes=0, tlb_page_bytes=0,
                                 max_lines_in_flight_per_cu=128, launch_cycles=0)
    if not far:
        preset = dataclasses.replace(preset, l2_far_latency_cycles=preset.l2_latency_cycles)
    set_bytes = 3 << 19
    per_sm = set_bytes / third_read_cycles(preset, set_bytes) / preset.compute_units
    overhead = 24 + 3                   # the VMEM pipeline, the tag lookup and the issue, as the presets take them
    round_trip = (preset.l2_far_latency_cycles if far else preset.l2_latency_cycles) + overhead
    assert per_sm == pytest.approx(preset.max_lines_in_flight_per_cu * preset.sector_bytes / round_trip, rel=0.08)
