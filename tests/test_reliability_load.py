"""Load (issue 6): many dispatches and many submissions, with outputs right, memory bounded, nothing leaked.

- One command list with 10,000 CLIP dispatches (64 FLOAT32 elements, one binding table, in place, so each
  dispatch reads what the previous one wrote), executed once: the result equals the golden model applied
  10,000 times; tracemalloc's peak stays under a bound.
- 1,000 ExecuteCommandLists calls, each followed by a fence Signal and a CPU wait, then allocator and list
  Reset (HelloDirectML's CloseExecuteResetWait): every output right, and after a warm-up the GPU memory in
  use, the number of allocations, the Python objects alive and the traced Python memory stay flat.

The emulation-only mode (Gpu.timing = False) carries the 10,000-dispatch run: with the timing model on, the
default adapter costs about 3 to 5 ms per dispatch (the simpy cohort simulation), so the timed variants run
at a smaller scale (see docs/RELIABILITY.md for the figures).
"""
import gc
import sys
import time
import tracemalloc

import numpy as np
import pytest

from dmlemu import golden
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.errors import S_OK
from dmlemu.presets import DEFAULT_PRESET, TEACHING

from reliability_helpers import binding_desc, fuzz_profile, same_bits

pytestmark = pytest.mark.usefixtures("guard_bytes")

ELEMENTS = 64
MIN, MAX = np.float32(-1.0), np.float32(1.0)
SCALE_BIAS = (np.float32(1.5), np.float32(0.25))   # g(x) = 1.5x + 0.25, so repeated dispatches keep changing x


class LoadRig:
    """A device, one compiled in-place CLIP (with ScaleBias) initialized, one table, one 256-byte buffer."""

    def __init__(self, preset=DEFAULT_PRESET, timing=True):
        self.device = D3D12CreateDevice(preset, D3D_FEATURE_LEVEL_11_0)
        self.device._gpu.timing = timing   # emulation-only mode: same bits, estimated cycles
        self.dml = DMLCreateDevice(self.device, DML_CREATE_DEVICE_FLAG_NONE)
        self.queue = self.device.CreateCommandQueue(D3D12_COMMAND_QUEUE_DESC(Type=D3D12_COMMAND_LIST_TYPE_DIRECT))
        self.allocator = self.device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT)
        self.list = self.device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, self.allocator, None)
        self.heap = self.device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
            Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=2, Flags=D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE))
        self.list.SetDescriptorHeaps([self.heap])
        self.recorder = self.dml.CreateCommandRecorder()
        self.fence = self.device.CreateFence(0, D3D12_FENCE_FLAG_NONE)
        self.fence_value = 0
        t = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
            DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Sizes=[ELEMENTS], TotalTensorSizeInBytes=4 * ELEMENTS))
        self.compiled = self.dml.CompileOperator(self.dml.CreateOperator(DML_OPERATOR_DESC(
            Type=DML_OPERATOR_ELEMENT_WISE_CLIP, Desc=DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(
                InputTensor=t, OutputTensor=t, ScaleBias=DML_SCALE_BIAS(*SCALE_BIAS), Min=MIN, Max=MAX))), 0)
        initializer = self.dml.CreateOperatorInitializer([self.compiled])
        self.recorder.RecordDispatch(self.list, initializer, self._table(initializer))
        self.buffer = self._buffer(4 * ELEMENTS, D3D12_HEAP_TYPE_DEFAULT)
        self.upload = self._buffer(4 * ELEMENTS, D3D12_HEAP_TYPE_UPLOAD)
        self.readback = self._buffer(4 * ELEMENTS, D3D12_HEAP_TYPE_READBACK)
        self.table = self._table(self.compiled)
        self.table.BindInputs([binding_desc(self.buffer, 0, 4 * ELEMENTS)])
        self.table.BindOutputs([binding_desc(self.buffer, 0, 4 * ELEMENTS)])   # in place
        self.submit()

    def _buffer(self, size, heap_type):
        state = {D3D12_HEAP_TYPE_UPLOAD: D3D12_RESOURCE_STATE_GENERIC_READ,
                 D3D12_HEAP_TYPE_READBACK: D3D12_RESOURCE_STATE_COPY_DEST}.get(heap_type, D3D12_RESOURCE_STATE_COMMON)
        flags = D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS if heap_type == D3D12_HEAP_TYPE_DEFAULT else 0
        return self.device.CreateCommittedResource(CD3DX12_HEAP_PROPERTIES(heap_type), D3D12_HEAP_FLAG_NONE,
                                                   CD3DX12_RESOURCE_DESC.Buffer(size, flags), state, None)

    def _table(self, dispatchable):
        return self.dml.CreateBindingTable(DML_BINDING_TABLE_DESC(
            Dispatchable=dispatchable, CPUDescriptorHandle=self.heap.GetCPUDescriptorHandleForHeapStart(),
            GPUDescriptorHandle=self.heap.GetGPUDescriptorHandleForHeapStart(), SizeInDescriptors=2))

    def submit(self):
        """CloseExecuteResetWait."""
        self.list.Close()
        self.queue.ExecuteCommandLists([self.list])
        self.fence_value += 1
        self.queue.Signal(self.fence, self.fence_value)
        self.fence.SetEventOnCompletion(self.fence_value, None)
        self.allocator.Reset()
        self.list.Reset(self.allocator, None)
        self.list.SetDescriptorHeaps([self.heap])

    def record_upload(self, x):
        self.upload.Map(0, None)[:] = x.view(np.uint8)
        self.list.CopyBufferRegion(self.buffer, 0, self.upload, 0, 4 * ELEMENTS)
        self.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
            self.buffer, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)])

    def record_dispatches(self, count):
        for _ in range(count):
            self.recorder.RecordDispatch(self.list, self.compiled, self.table)
            self.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.UAV(self.buffer)])   # each reads the last's output

    def record_readback(self):
        self.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
            self.buffer, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE)])
        self.list.CopyBufferRegion(self.readback, 0, self.buffer, 0, 4 * ELEMENTS)

    def result(self):
        data = self.readback.Map(0, None)[:4 * ELEMENTS].copy().view(np.float32)
        self.readback.Unmap(0, None)
        return data

    def check_healthy(self):
        assert self.dml.GetDeviceRemovedReason() == S_OK and self.device.GetDeviceRemovedReason() == S_OK
        self.device._gpu.memory.verify_guards()


def expected_after(x, dispatches):
    for _ in range(dispatches):
        x = golden.clip(x, MIN, MAX, SCALE_BIAS)
    return x


def inputs(seed):
    return np.random.default_rng(seed).uniform(-3, 3, ELEMENTS).astype(np.float32)


def run_one_list(rig, dispatches, seed=1):
    """Upload, `dispatches` dispatches, readback: one command list, one ExecuteCommandLists."""
    x = inputs(seed)
    rig.record_upload(x)
    rig.record_dispatches(dispatches)
    rig.record_readback()
    start = time.perf_counter()
    rig.submit()
    seconds = time.perf_counter() - start
    rig.check_healthy()
    same_bits(rig.result(), expected_after(x, dispatches), f"after {dispatches} dispatches")
    return seconds


def report(name, **figures):
    """Figures for docs/RELIABILITY.md (shown with pytest -s)."""
    print(f"\n[load] {name}: " + ", ".join(f"{k}={v}" for k, v in figures.items()), file=sys.stderr)


def _peak_rss_mib():
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024   # Linux: KiB


def test_ten_thousand_dispatches_in_one_command_list():
    rig = LoadRig(DEFAULT_PRESET, timing=False)
    rss = _peak_rss_mib()
    seconds = run_one_list(rig, 10_000)
    grown = _peak_rss_mib() - rss
    report("10,000 dispatches, one list (timing off)", seconds=f"{seconds:.2f}",
           us_per_dispatch=f"{seconds / 10_000 * 1e6:.0f}", peak_rss_growth_mib=f"{grown:.1f}")
    assert grown < 64


def _traced_peak(rig, dispatches):
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before, _ = tracemalloc.get_traced_memory()
        run_one_list(rig, dispatches)
        current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - before, current - before


def test_one_command_list_memory_grows_only_with_the_recorded_commands():
    """tracemalloc slows the emulator about five times, so CI traces 500 and 1,500 dispatches: the peak is a fixed
    working set plus the recorded commands (a dispatch and a UAV barrier), nothing per executed dispatch."""
    rig = LoadRig(DEFAULT_PRESET, timing=False)
    small, _ = _traced_peak(rig, 500)
    large, retained = _traced_peak(rig, 1_500)
    per_dispatch = (large - small) / 1_000
    report("one list, tracemalloc", peak_500_kib=f"{small / 1024:.0f}", peak_1500_kib=f"{large / 1024:.0f}",
           bytes_per_recorded_dispatch=f"{per_dispatch:.0f}",
           extrapolated_10000_mib=f"{(small + 9_500 * per_dispatch) / 2 ** 20:.2f}", retained_bytes=retained)
    assert per_dispatch < 2048        # a DispatchCommand, a barrier command and their tuples
    assert small < 8 * 2 ** 20
    assert retained < 64 * 2 ** 10    # the list's commands are freed by Reset


@pytest.mark.skipif(fuzz_profile() != "long", reason="tracemalloc over 10,000 dispatches takes ~30 s: long profile")
def test_ten_thousand_dispatches_traced():
    rig = LoadRig(DEFAULT_PRESET, timing=False)
    peak, retained = _traced_peak(rig, 10_000)
    report("10,000 dispatches, one list, tracemalloc", peak_mib=f"{peak / 2 ** 20:.2f}", retained_bytes=retained)
    assert peak < 48 * 2 ** 20


@pytest.mark.parametrize("preset", [TEACHING, DEFAULT_PRESET], ids=lambda p: p.key)
def test_dispatches_in_one_command_list_with_the_timing_model(preset):
    """The default (timing on) at a smaller scale: 1,000 dispatches on the teaching GPU, 200 on the default one."""
    count = 1_000 if preset is TEACHING else 200
    rig = LoadRig(preset, timing=True)
    clock = rig.device._gpu.clock_cycles
    seconds = run_one_list(rig, count)
    report(f"{count} dispatches, one list, timing on, {preset.key}", seconds=f"{seconds:.2f}",
           us_per_dispatch=f"{seconds / count * 1e6:.0f}", gpu_cycles=rig.device._gpu.clock_cycles - clock)
    assert rig.device._gpu.clock_cycles - clock >= count * preset.launch_cycles


def _snapshot(rig):
    gc.collect()
    memory = rig.device._gpu.memory
    return {"used_bytes": memory.used_bytes, "allocations": len(memory.allocations),
            "objects": len(gc.get_objects()), "pending": sum(len(q._pending) for q in rig.device._queues),
            "fence_records": len(rig.fence._signal_records), "submissions": len(rig.allocator._submissions)}


@pytest.mark.parametrize("timing, iterations", [(False, 1_000), (True, 200)], ids=["timing off", "timing on"])
def test_many_submissions_with_fences_leak_nothing(timing, iterations):
    rig = LoadRig(DEFAULT_PRESET, timing=timing)
    warm_up = 20
    for i in range(warm_up):
        run_one_list(rig, 1, seed=i)
    baseline = _snapshot(rig)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before, _ = tracemalloc.get_traced_memory()
        start = time.perf_counter()
        for i in range(iterations):
            run_one_list(rig, 1, seed=warm_up + i)
        seconds = time.perf_counter() - start
        gc.collect()
        current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    after = _snapshot(rig)
    report(f"{iterations} ExecuteCommandLists + fence waits ({'timing on' if timing else 'timing off'})",
           seconds=f"{seconds:.2f}", us_per_submission=f"{seconds / iterations * 1e6:.0f}",
           peak_kib=f"{(peak - before) / 2 ** 10:.0f}", retained_bytes=current - before,
           objects=f"{baseline['objects']}->{after['objects']}")
    for key in ("used_bytes", "allocations", "pending", "fence_records", "submissions"):
        assert after[key] == baseline[key], (key, baseline[key], after[key])
    assert abs(after["objects"] - baseline["objects"]) < 200, (baseline["objects"], after["objects"])
    assert current - before < 256 * 2 ** 10, current - before   # nothing retained per iteration
    assert peak - before < 8 * 2 ** 20
    assert rig.fence.GetCompletedValue() == rig.fence_value


def test_many_devices_created_and_dropped_return_their_memory():
    """Devices, DML devices and their children are freed with their last reference (no global registry)."""
    import weakref
    refs = []
    for _ in range(30):
        rig = LoadRig(TEACHING, timing=False)
        run_one_list(rig, 2)
        refs.append(weakref.ref(rig.device))
        del rig
    gc.collect()
    assert all(ref() is None for ref in refs)
