"""Command queues under load: many dispatches and many submissions, with outputs right, memory bounded, nothing leaked.

- One command list with 10,000 CLIP dispatches (64 FLOAT32 elements, one binding table, in place, so each
  dispatch reads what the previous one wrote), executed once: the result equals the golden model applied
  10,000 times; tracemalloc's peak stays under a bound.
- 1,000 ExecuteCommandLists calls, each followed by a fence Signal and a CPU wait, then allocator and list
  Reset (HelloDirectML's CloseExecuteResetWait): every output right, and after a warm-up the GPU memory in
  use, the number of allocations, the Python objects alive and the traced Python memory stay flat.

The emulation-only mode (Gpu.timing = False) carries the 10,000-dispatch run: with the timing model on, the
default adapter costs about 3 to 5 ms per dispatch (the cohort simulation), so the timed variants run
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
from dmlemu.d3d12 import inspect
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.errors import S_OK
from dmlemu.presets import DEFAULT_PRESET, TEACHING

from mirror_rig import MirrorRig, buffer_binding, same_bits
from operator_cases import fuzz_profile

pytestmark = pytest.mark.usefixtures("guard_bytes")

ELEMENTS = 64
MIN, MAX = np.float32(-1.0), np.float32(1.0)
SCALE_BIAS = (np.float32(1.5), np.float32(0.25))   # g(x) = 1.5x + 0.25, so repeated dispatches keep changing x


class LoadRig(MirrorRig):
    """The shared rig (tests/mirror_rig.py) on one adapter, with one compiled in-place CLIP (with ScaleBias)
    initialized, its binding table (input and output both `work`), and three 256-byte buffers: `work` (DEFAULT),
    `staging` (UPLOAD) and `readback` (READBACK)."""

    def __init__(self, preset=DEFAULT_PRESET, timing=True):
        # timing=False: emulation-only mode, same bits, estimated cycles
        super().__init__(preset, dml_flags=DML_CREATE_DEVICE_FLAG_NONE, heap_slots=4, timing=timing)
        t = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
            DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Sizes=[ELEMENTS], TotalTensorSizeInBytes=4 * ELEMENTS))
        self.compiled = self.compile(DML_OPERATOR_DESC(
            Type=DML_OPERATOR_ELEMENT_WISE_CLIP, Desc=DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(
                InputTensor=t, OutputTensor=t, ScaleBias=DML_SCALE_BIAS(*SCALE_BIAS), Min=MIN, Max=MAX)))
        self.initialize(self.compiled)
        self.work = self.buffer(4 * ELEMENTS)
        self.staging = self.buffer(4 * ELEMENTS, D3D12_HEAP_TYPE_UPLOAD)
        self.readback = self.buffer(4 * ELEMENTS, D3D12_HEAP_TYPE_READBACK)
        self.clip_table = self.table(self.compiled, size=2)
        self.clip_table.BindInputs([buffer_binding(self.work, 0, 4 * ELEMENTS)])
        self.clip_table.BindOutputs([buffer_binding(self.work, 0, 4 * ELEMENTS)])   # in place
        self.execute()

    def record_upload_of(self, x):
        self.staging.Map(0, None)[:] = x.view(np.uint8)
        self.list.CopyBufferRegion(self.work, 0, self.staging, 0, 4 * ELEMENTS)
        self.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
            self.work, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)])

    def record_dispatches(self, count):
        for _ in range(count):
            self.recorder.RecordDispatch(self.list, self.compiled, self.clip_table)
            self.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.UAV(self.work)])   # each reads the last's output

    def record_readback(self):
        self.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
            self.work, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE)])
        self.list.CopyBufferRegion(self.readback, 0, self.work, 0, 4 * ELEMENTS)

    def result(self):
        data = self.readback.Map(0, None)[:4 * ELEMENTS].copy().view(np.float32)
        self.readback.Unmap(0, None)
        return data

    def check_healthy(self):
        assert self.dml.GetDeviceRemovedReason() == S_OK and self.device.GetDeviceRemovedReason() == S_OK
        self.memory.verify_guards()


def expected_after(x, dispatches):
    for _ in range(dispatches):
        x = golden.clip(x, MIN, MAX, SCALE_BIAS)
    return x


def inputs(seed):
    return np.random.default_rng(seed).uniform(-3, 3, ELEMENTS).astype(np.float32)


def run_one_list(rig, dispatches, seed=1):
    """Upload, `dispatches` dispatches, readback: one command list, one ExecuteCommandLists."""
    x = inputs(seed)
    rig.record_upload_of(x)
    rig.record_dispatches(dispatches)
    rig.record_readback()
    start = time.perf_counter()
    rig.execute()
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
    # CPython keeps up to 2,000 freed tuples of each small size for reuse, and tracemalloc counts them as allocated.
    # An untraced list of 2,500 dispatches fills those free lists first, and no garbage collection (a full one
    # empties them) runs until the measurements are done: what the traced runs leave behind is what the emulator
    # keeps, whichever tests ran before this one.
    gc.collect()
    gc.disable()
    try:
        run_one_list(rig, 2_500)
        small, _ = _traced_peak(rig, 500)
        large, retained = _traced_peak(rig, 1_500)
    finally:
        gc.enable()
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
    clock = rig.gpu.clock_cycles
    seconds = run_one_list(rig, count)
    report(f"{count} dispatches, one list, timing on, {preset.key}", seconds=f"{seconds:.2f}",
           us_per_dispatch=f"{seconds / count * 1e6:.0f}", gpu_cycles=rig.gpu.clock_cycles - clock)
    assert rig.gpu.clock_cycles - clock >= count * preset.launch_cycles


def _snapshot(rig):
    gc.collect()
    memory = rig.memory
    return {"used_bytes": memory.used_bytes, "allocations": len(memory.allocations),
            "objects": len(gc.get_objects()), "pending": sum(len(inspect(q).pending) for q in inspect(rig.device).queues),
            "fence_records": len(inspect(rig.fence).pending_signals),
            "submissions": len(inspect(rig.allocator).submissions)}


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
