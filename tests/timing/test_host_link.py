"""The host link (timing/memory_system.py's HostLink): on a discrete GPU, UPLOAD and READBACK heaps are
host memory behind PCIe. Copies from or to them stream over the link at the preset's measured rate; a
kernel's accesses to them bypass the caches and cross the link; the UMA preset keeps one memory."""
import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mirror_rig import MirrorRig
from dmlemu.d3d12 import (D3D12_COMMAND_LIST_TYPE_COPY, D3D12_COMMAND_LIST_TYPE_DIRECT, D3D12_HEAP_TYPE_DEFAULT,
                          D3D12_HEAP_TYPE_READBACK, D3D12_HEAP_TYPE_UPLOAD, D3D12_QUERY_HEAP_DESC,
                          D3D12_QUERY_HEAP_TYPE_COPY_QUEUE_TIMESTAMP, D3D12_QUERY_HEAP_TYPE_TIMESTAMP,
                          D3D12_QUERY_TYPE_TIMESTAMP, D3D12_RESOURCE_STATE_COPY_DEST,
                          D3D12_RESOURCE_STATE_COPY_SOURCE, inspect)
from dmlemu.direct_run import DirectRun
from dmlemu.gpu import Gpu
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import H200, IRIS_XE, PRESETS, RX_7900_XTX, pcie_raw_bytes_per_second

UPLOAD, DEFAULT, READBACK = D3D12_HEAP_TYPE_UPLOAD, D3D12_HEAP_TYPE_DEFAULT, D3D12_HEAP_TYPE_READBACK
MiB = 1 << 20


def _copy_seconds(preset, source_heap, target_heap, size, copy_queue=False):
    """Seconds between two timestamps around one CopyBufferRegion of `size` bytes, through the mirror."""
    rig = MirrorRig(preset, list_type=D3D12_COMMAND_LIST_TYPE_COPY if copy_queue else D3D12_COMMAND_LIST_TYPE_DIRECT)
    source = rig.buffer(size, source_heap, uav=False,
                        state=D3D12_RESOURCE_STATE_COPY_SOURCE if source_heap == DEFAULT else None)
    target = rig.buffer(size, target_heap, uav=False,
                        state=D3D12_RESOURCE_STATE_COPY_DEST if target_heap == DEFAULT else None)
    kind = D3D12_QUERY_HEAP_TYPE_COPY_QUEUE_TIMESTAMP if copy_queue else D3D12_QUERY_HEAP_TYPE_TIMESTAMP
    heap = rig.device.CreateQueryHeap(D3D12_QUERY_HEAP_DESC(Type=kind, Count=2))
    rig.list.EndQuery(heap, D3D12_QUERY_TYPE_TIMESTAMP, 0)
    rig.list.CopyBufferRegion(target, 0, source, 0, size)
    rig.list.EndQuery(heap, D3D12_QUERY_TYPE_TIMESTAMP, 1)
    ticks = rig.buffer(16, READBACK)
    rig.list.ResolveQueryData(heap, D3D12_QUERY_TYPE_TIMESTAMP, 0, 2, ticks, 0)
    rig.execute()
    start, end = np.frombuffer(ticks.Map(0, None)[:16].tobytes(), dtype=np.uint64).tolist()
    return (end - start) / preset.clock_hz


def test_pcie_raw_rates_follow_the_spec():
    """PCI-SIG: 8, 16, 32 GT/s per lane for 3.0, 4.0, 5.0, 128b/130b encoding: 15.75, 31.5, 63.0 GB/s at x16."""
    assert [round(pcie_raw_bytes_per_second(g, 16) / 1e9, 2) for g in (3, 4, 5)] == [15.75, 31.51, 63.02]


@pytest.mark.parametrize("copy_queue", [False, True])
@pytest.mark.parametrize("source, target", [(UPLOAD, DEFAULT), (DEFAULT, READBACK)])
def test_a_host_copy_runs_at_the_links_rate(source, target, copy_queue):
    """A 64 MiB UPLOAD -> DEFAULT (or DEFAULT -> READBACK) copy on the RX 7900 XTX preset takes the
    preset's host-link rate, within 5 % (setup and latency are microseconds against milliseconds)."""
    seconds = _copy_seconds(RX_7900_XTX, source, target, 64 * MiB, copy_queue)
    rate = 64 * MiB / seconds
    link = RX_7900_XTX.host_link_effective_bytes_per_second()
    assert rate == pytest.approx(link, rel=0.05)
    assert 24e9 < rate < 28e9     # ~26 GB/s: what PCIe 4.0 x16 transfers measure (presets.py's source)


def test_a_device_copy_is_unchanged():
    """DEFAULT -> DEFAULT still reads and writes DRAM: 2 x bytes at the DRAM rate (plus turnarounds),
    exactly what the copy engine gave before the host link."""
    gpu = Gpu(RX_7900_XTX)
    seconds = _copy_seconds(RX_7900_XTX, DEFAULT, DEFAULT, 64 * MiB)
    expected = gpu.copy_engine.cycles(64 * MiB) / RX_7900_XTX.clock_hz
    assert seconds == pytest.approx(expected, rel=1e-6)
    assert 64 * MiB / seconds > 10 * RX_7900_XTX.host_link_effective_bytes_per_second()


def test_the_h200_copy_meets_the_measured_rate():
    """bench/gpu_calibration/results/h200_microbench.json: 55.1 GB/s pinned host -> device."""
    rate = 64 * MiB / _copy_seconds(H200, UPLOAD, DEFAULT, 64 * MiB)
    assert rate == pytest.approx(55.1e9, rel=0.05)


def test_the_uma_preset_keeps_one_memory():
    """Iris Xe (UMA): an UPLOAD -> DEFAULT copy costs what DEFAULT -> DEFAULT does, and no link is built."""
    assert _copy_seconds(IRIS_XE, UPLOAD, DEFAULT, 4 * MiB) == _copy_seconds(IRIS_XE, DEFAULT, DEFAULT, 4 * MiB)
    gpu = Gpu(IRIS_XE)
    assert gpu.command_processor.memory.host_link is None and not gpu.host_link


def _identity_seconds(preset, elements, host_input):
    """An ELEMENT_WISE_IDENTITY over FLOAT32 whose input lives in host memory or not: (seconds, stats)."""
    gpu = Gpu(preset)
    spec = TensorSpec("FLOAT32", (elements,), None, elements * 4)
    data = np.arange(elements, dtype=np.float32).view(np.uint8)
    run = DirectRun(gpu, "ELEMENT_WISE_IDENTITY", [spec, spec], [data, np.zeros_like(data)])
    if host_input:
        gpu.note_host_memory(run.allocations[0])
    stats = run.dispatch()
    assert np.array_equal(run.output_bytes(), data)
    return stats.cycles / preset.clock_hz, stats


def test_a_kernel_reading_host_memory_runs_at_the_links_rate():
    """A bandwidth-bound kernel reading an UPLOAD buffer reads at the link's rate (within 5 %), and is
    slower than the same kernel on a DEFAULT buffer by about DRAM / (2 x link): the default run
    moves read and written bytes through DRAM, the host run only its reads through the link."""
    elements = 1 << 22
    device, _ = _identity_seconds(RX_7900_XTX, elements, False)
    host, stats = _identity_seconds(RX_7900_XTX, elements, True)
    link = RX_7900_XTX.host_link_effective_bytes_per_second()
    assert elements * 4 / host == pytest.approx(link, rel=0.05)
    expected = RX_7900_XTX.dram_bytes_per_second / (2 * link)
    assert 0.7 * expected < host / device < 1.1 * expected
    assert stats.timing.host_bytes == elements * 4
    assert stats.timing.traffic.totals["host"] * RX_7900_XTX.sector_bytes == elements * 4
    assert stats.timing.traffic.totals["dram_reads"] == 0       # nothing read from DRAM
    assert stats.timing.traffic.totals["l2_hits"] == 0


def test_host_sectors_are_not_cached():
    """A second read of the same UPLOAD buffer crosses the link again (the caches keep no host sector)."""
    gpu = Gpu(RX_7900_XTX)
    elements = 1 << 16
    spec = TensorSpec("FLOAT32", (elements,), None, elements * 4)
    data = np.ones(elements, dtype=np.float32).view(np.uint8)
    run = DirectRun(gpu, "ELEMENT_WISE_IDENTITY", [spec, spec], [data, np.zeros_like(data)])
    gpu.note_host_memory(run.allocations[0])
    first, second = run.dispatch(), run.dispatch()
    assert first.timing.host_bytes == second.timing.host_bytes == elements * 4
    # The second run's L2 hits are its output's (device memory, still resident), none of its input's.
    assert second.timing.traffic.totals["l2_hits"] == elements * 4 // RX_7900_XTX.sector_bytes


def test_a_freed_host_allocation_is_forgotten():
    gpu = Gpu(RX_7900_XTX)
    allocation = gpu.memory.allocate(4096, "upload")
    gpu.note_host_memory(allocation)
    assert gpu.is_host_memory(allocation) and gpu.host_ranges() == [(allocation.gpu_va, 4096)]
    gpu.memory.free(allocation)
    reused = gpu.memory.allocate(4096, "default")
    assert reused.gpu_va == allocation.gpu_va and not gpu.is_host_memory(reused) and gpu.host_ranges() == []


def test_the_mirror_marks_upload_and_readback_buffers():
    rig = MirrorRig(RX_7900_XTX)
    upload, readback, default = rig.buffer(256, UPLOAD), rig.buffer(256, READBACK), rig.buffer(256)
    gpu = rig.gpu
    view = inspect(upload)
    assert gpu.is_host_memory(view.allocation) and gpu.is_host_memory(inspect(readback).allocation)
    assert not gpu.is_host_memory(inspect(default).allocation)


def test_the_uma_preset_kernel_is_unchanged():
    """Marking a buffer as host memory on Iris Xe changes no cycle (no link: one memory)."""
    elements = 1 << 16
    assert _identity_seconds(IRIS_XE, elements, True)[0] == _identity_seconds(IRIS_XE, elements, False)[0]


@settings(max_examples=8, deadline=None)
@given(st.sampled_from([p for p in PRESETS if p.host_link_bytes_per_second and not p.uma]),
       st.integers(min_value=500, max_value=1000), st.integers(min_value=1, max_value=4))
def test_more_link_bandwidth_is_never_slower(preset, efficiency, factor):
    """Raising the link's rate never makes a host copy or a kernel reading host memory slower."""
    slow = dataclasses.replace(preset, host_link_efficiency_permille=efficiency)
    fast = dataclasses.replace(slow, host_link_bytes_per_second=slow.host_link_bytes_per_second * factor)
    assert _copy_seconds(fast, UPLOAD, DEFAULT, 1 * MiB) <= _copy_seconds(slow, UPLOAD, DEFAULT, 1 * MiB)
    elements = 1 << 14
    assert _identity_seconds(fast, elements, True)[0] <= _identity_seconds(slow, elements, True)[0]


def test_the_trace_shows_the_link_as_its_own_track(tmp_path):
    """A capture with a host copy and a dispatch reading host memory: the host_link table has the copy's
    row and the dispatch's, and both exports show a "Host link (PCIe)" track; a trace without host
    transfers has no such track."""
    from dmlemu.traces import capture, to_chrome
    from dmlemu.traces.pftrace import save_pftrace
    gpu = Gpu(RX_7900_XTX)
    elements = 1 << 14
    spec = TensorSpec("FLOAT32", (elements,), None, elements * 4)
    data = np.ones(elements, dtype=np.float32).view(np.uint8)
    run = DirectRun(gpu, "ELEMENT_WISE_IDENTITY", [spec, spec], [data, np.zeros_like(data)])
    upload = gpu.memory.allocate(elements * 4, "upload")
    gpu.note_host_memory(upload)
    gpu.note_host_memory(run.allocations[0])
    with capture(gpu) as cap:
        gpu.copy_buffer(run.allocations[1], 0, upload, 0, elements * 4)
        run.dispatch()
    host = cap.trace.tables["host_link"]
    assert host["dispatch"].tolist() == [-1, 0] and host["bytes"].tolist() == [elements * 4] * 2
    assert not host["to_host"].any()
    threads = [e["args"]["name"] for e in to_chrome(cap.trace)["traceEvents"] if e.get("name") == "thread_name"]
    assert "Host link (PCIe)" in threads
    save_pftrace(cap.trace, str(tmp_path / "t.pftrace"))
    assert b"Host link (PCIe)" in (tmp_path / "t.pftrace").read_bytes()
    plain = Gpu(RX_7900_XTX)
    with capture(plain) as cap:
        DirectRun(plain, "ELEMENT_WISE_IDENTITY", [spec, spec], [data, np.zeros_like(data)]).dispatch()
    assert len(cap.trace.tables["host_link"]) == 0
    threads = [e["args"]["name"] for e in to_chrome(cap.trace)["traceEvents"] if e.get("name") == "thread_name"]
    assert "Host link (PCIe)" not in threads


@pytest.mark.parametrize("variable, value", [("DMLEMU_TIMING_ENGINE", "simpy"), ("DMLEMU_TIMING_PHYSICS", "interpreted")])
def test_both_drivers_and_both_builds_agree_on_host_reads(variable, value, monkeypatch):
    """The host link is written once: the SimPy driver and the interpreted units give the event heap's
    compiled cycles for a kernel reading host memory."""
    def cycles():
        gpu = Gpu(RX_7900_XTX)
        elements = 1 << 16
        spec = TensorSpec("FLOAT32", (elements,), None, elements * 4)
        data = np.arange(elements, dtype=np.float32).view(np.uint8)
        run = DirectRun(gpu, "ELEMENT_WISE_IDENTITY", [spec, spec], [data, np.zeros_like(data)])
        gpu.note_host_memory(run.allocations[0])
        return [run.dispatch().cycles for _ in range(2)]
    reference = cycles()
    monkeypatch.setenv(variable, value)
    assert cycles() == reference
