"""Device memory stays bounded (dmlemu.functional.device_memory.GpuMemory, docs/RELIABILITY.md "Memory model").

Freed GPU virtual addresses are reused (first fit, neighbours merged, the top lowered), so a
create/release loop of any length keeps the address space and the host memory flat; the budget is
the adapter's memory but at most HOST_MEMORY_FRACTION of the host's RAM; a host that cannot back an
allocation gives OutOfDeviceMemory (E_OUTOFMEMORY through the mirror) with nothing changed.
"""
import gc
import time
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dmlemu.errors import E_OUTOFMEMORY, S_OK, HResultError
from dmlemu.functional import device_memory
from dmlemu.functional.device_memory import (
    ALLOCATION_ALIGNMENT, HOST_MEMORY_FRACTION, VA_BASE, VA_LIMIT, GpuMemory, OutOfDeviceMemory, default_budget,
    host_memory_bytes,
)
from dmlemu.gpu import Gpu
from dmlemu.presets import RX_7900_XTX, TEACHING
from mirror_rig import MirrorRig

KiB, GiB = 1 << 10, 1 << 30


def state(memory):
    return memory.used_bytes, memory.allocations, memory.address_space_bytes, memory.free_ranges


# ---- virtual address reuse ----------------------------------------------------------------------------
def test_a_freed_range_is_reused_and_the_top_comes_back_down():
    memory = GpuMemory(GiB)
    a, b, c = memory.allocate(100, "a"), memory.allocate(70_000, "b"), memory.allocate(10, "c")
    assert (a.gpu_va, b.gpu_va, c.gpu_va) == (VA_BASE, VA_BASE + 64 * KiB, VA_BASE + 192 * KiB)
    memory.free(b)
    d = memory.allocate(64 * KiB, "d")               # first fit: the lowest free range that holds it
    assert d.gpu_va == b.gpu_va and memory.resolve(d.gpu_va)[0] is d
    e = memory.allocate(1, "e")                      # the rest of b's range
    assert e.gpu_va == b.gpu_va + 64 * KiB
    memory.free(c)                                   # the top allocation: the top comes down
    assert memory.address_space_bytes == 192 * KiB and memory.free_ranges == ()
    for allocation in (a, d, e):
        memory.free(allocation)
    assert state(memory) == (0, (), 0, ())


def test_a_million_allocate_free_cycles_keep_the_address_space_and_host_memory_flat():
    memory = GpuMemory(GiB)
    kept = memory.allocate(100, "kept")
    start = time.perf_counter()
    for _ in range(1_000_000):
        memory.free(memory.allocate(4096, "cycled"))
    seconds = time.perf_counter() - start
    assert memory.address_space_bytes == ALLOCATION_ALIGNMENT   # only `kept`; was 64 GiB before reuse
    assert memory.allocations == (kept,) and memory.used_bytes == 100 and memory.free_ranges == ()
    tracemalloc.start()
    try:
        for _ in range(20_000):
            memory.free(memory.allocate(4096, "cycled"))
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(100_000):
            memory.free(memory.allocate(4096, "cycled"))
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 16 * KiB, grown
    print(f"\n[va] 1,000,000 allocate/free cycles: {seconds:.2f} s; address space {memory.address_space_bytes} bytes; "
          f"traced memory growth over 100,000 more: {grown} bytes")


@settings(max_examples=150)
@given(steps=st.lists(st.tuples(st.booleans(), st.integers(1, 300_000), st.integers(0, 1 << 30)), max_size=80))
def test_random_allocate_free_sequences_keep_the_free_list_consistent(steps):
    memory = GpuMemory(GiB)
    live, peak = [], 0
    for allocate, size, pick in steps:
        if allocate or not live:
            live.append(memory.allocate(size, "x"))
        else:
            memory.free(live.pop(pick % len(live)))
        spans = sorted((a.gpu_va, a.gpu_va + -(-a.size // ALLOCATION_ALIGNMENT) * ALLOCATION_ALIGNMENT) for a in live)
        peak = max(peak, sum(end - start for start, end in spans))
        free = [(s, s + n) for s, n in memory.free_ranges]
        ranges = sorted(spans + free)
        for (s0, e0), (s1, e1) in zip(ranges, ranges[1:]):
            assert e0 <= s1                                   # nothing overlaps
        for (s0, e0), (s1, e1) in zip(free, free[1:]):
            assert e0 < s1                                    # free neighbours are merged
        top = VA_BASE + memory.address_space_bytes
        assert all(e <= top for _, e in ranges) and (not free or free[-1][1] < top)
        # No holes: live and free ranges tile the space below the top exactly.
        assert sum(e - s for s, e in ranges) == memory.address_space_bytes
        for a in live:
            assert memory.resolve(a.gpu_va + a.size - 1) == (a, a.size - 1)
    for a in live:
        memory.free(a)
    assert state(memory) == (0, (), 0, ())


def test_the_48_bit_address_space_ends_cleanly():
    memory = GpuMemory(GiB, budget_bytes=GiB)
    memory._next_va = VA_LIMIT - ALLOCATION_ALIGNMENT   # as if the space below were taken
    last = memory.allocate(ALLOCATION_ALIGNMENT, "last")
    before = state(memory)
    with pytest.raises(OutOfDeviceMemory, match="needs 65536 bytes of GPU virtual address space; no free range of "
                                                "the 48-bit space is that large"):
        memory.allocate(1, "one more")
    assert state(memory) == before
    memory.free(last)
    assert memory.allocate(1, "again").gpu_va == VA_LIMIT - ALLOCATION_ALIGNMENT


def test_a_create_release_loop_through_the_mirror_reuses_one_address():
    rig = MirrorRig(TEACHING)
    memory = rig.memory
    used, allocations = memory.used_bytes, memory.allocations
    addresses = set()
    for _ in range(2000):
        buffer = rig.buffer(4096)
        addresses.add(buffer.GetGPUVirtualAddress())
        del buffer                                  # the last reference: the resource is released
    gc.collect()
    assert len(addresses) == 1
    assert (memory.used_bytes, memory.allocations) == (used, allocations)
    assert rig.device.GetDeviceRemovedReason() == S_OK


# ---- the budget ---------------------------------------------------------------------------------------
def test_host_memory_is_read_and_the_budget_is_at_most_its_fraction():
    host = host_memory_bytes()
    assert host is not None and host > 0
    with open("/proc/meminfo", encoding="ascii") as f:
        total = next(int(line.split()[1]) * KiB for line in f if line.startswith("MemTotal:"))
    assert host <= total * 1.01
    assert default_budget(RX_7900_XTX.dedicated_video_memory) == min(RX_7900_XTX.dedicated_video_memory,
                                                                     int(host * HOST_MEMORY_FRACTION))
    assert HOST_MEMORY_FRACTION == 0.5


def test_the_budget_defaults_to_the_smaller_of_the_adapter_and_half_the_host(monkeypatch):
    monkeypatch.setattr(device_memory, "host_memory_bytes", lambda: 8 * GiB)
    big, small = Gpu(RX_7900_XTX).memory, Gpu(TEACHING).memory
    assert (big.adapter_bytes, big.capacity_bytes) == (24 * GiB, 4 * GiB)
    assert (small.adapter_bytes, small.capacity_bytes) == (GiB, GiB)
    assert GpuMemory(24 * GiB, budget_bytes=24 * GiB).capacity_bytes == 24 * GiB   # explicit wins
    monkeypatch.setattr(device_memory, "host_memory_bytes", lambda: None)        # unknown host: the adapter
    assert GpuMemory(24 * GiB).capacity_bytes == 24 * GiB


def test_the_mirror_refuses_past_the_host_limited_budget(monkeypatch):
    monkeypatch.setattr(device_memory, "host_memory_bytes", lambda: 2 * GiB)
    rig = MirrorRig(RX_7900_XTX)
    used = rig.memory.used_bytes
    with pytest.raises(HResultError) as info:
        rig.buffer(GiB + 1)
    assert info.value.hresult == E_OUTOFMEMORY
    assert info.value.message == (f"CreateCommittedResource: a {GiB + 1}-byte buffer does not fit: the adapter has "
                                  f"{GiB} bytes and {used} are in use.")
    rig.buffer(4096)


# ---- the host refusing --------------------------------------------------------------------------------
# 128 TiB: within the 48-bit GPU address space, but more than a process can map (x86-64 gives a process
# just under 128 TiB of address space), so NumPy raises MemoryError for its bytes.
HUGE = 1 << 47


def _host_refuses_huge():
    try:
        probe = np.zeros(HUGE, dtype=np.uint8)
    except MemoryError:
        return
    del probe
    pytest.skip("this host maps 128 TiB lazily (overcommit); the monkeypatched test below covers the path")


def test_a_host_allocation_failure_is_out_of_device_memory_and_changes_nothing():
    _host_refuses_huge()
    memory = GpuMemory(1 << 62, budget_bytes=1 << 62)   # a budget no host can back
    kept = memory.allocate(4096, "kept")
    kept.data[:] = 7
    freed = memory.allocate(4096, "freed")
    memory.allocate(4096, "top")
    memory.free(freed)                                  # leaves a free range below the top
    before = state(memory)
    with pytest.raises(OutOfDeviceMemory, match=f"allocating {HUGE} bytes for huge: the host could not provide "
                                                f"the memory to back them"):
        memory.allocate(HUGE, "huge")
    assert state(memory) == before and np.all(kept.data == 7)
    assert memory.allocate(4096, "after").gpu_va == freed.gpu_va


def test_any_memory_error_while_backing_an_allocation_is_out_of_device_memory(monkeypatch):
    memory = GpuMemory(GiB)
    memory.allocate(100, "kept")
    before = state(memory)

    def refuse(*args, **kwargs):
        raise MemoryError("Unable to allocate")
    monkeypatch.setattr(device_memory, "Allocation", refuse)
    with pytest.raises(OutOfDeviceMemory, match="allocating 4096 bytes for x: the host could not provide"):
        memory.allocate(4096, "x")
    assert state(memory) == before


def test_a_host_allocation_failure_through_the_mirror_is_e_outofmemory():
    _host_refuses_huge()
    rig = MirrorRig(TEACHING)
    memory = rig.memory
    memory.capacity_bytes = 1 << 62
    before = state(memory)
    with pytest.raises(HResultError) as info:
        rig.buffer(HUGE)
    assert info.value.hresult == E_OUTOFMEMORY and "does not fit" in info.value.message
    assert state(memory) == before
    assert rig.device.GetDeviceRemovedReason() == S_OK
    rig.buffer(4096)
