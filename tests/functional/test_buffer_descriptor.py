"""Robust out-of-range buffer access (dmlemu.functional.buffer_descriptor), with the timing model on and off.

A kernel that reads or writes past its buffer descriptor's range follows D3D's robust-buffer rules
(reads give 0, writes are dropped), never reaches a neighbouring allocation, and the trace reports
the counts (traces.capture -> trace.dispatches['oob_reads' / 'oob_writes']). Through the mirror, an
application that overwrites DirectML's volatile descriptors with shorter views gets the same rules.
"""
import numpy as np
import pytest

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.direct_run import DirectRun
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.directml import inspect
from dmlemu.errors import S_OK
from dmlemu.functional.buffer_descriptor import write_buffer_descriptor
from dmlemu.isa.program import Program
from dmlemu.functional.wave_dispatcher import KernelLaunch
from dmlemu.gpu import Gpu
from dmlemu.isa.assembler import assemble
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import TEACHING
from dmlemu.traces import capture
from memory_watch import MemoryWatch
from mirror_rig import MirrorRig, buffer_binding, same_bits

pytestmark = pytest.mark.usefixtures("guard_bytes")


@pytest.mark.parametrize("timing", [True, False])
def test_clip_with_short_descriptors_follows_the_robust_buffer_rules(timing):
    gpu = Gpu(TEACHING, timing=timing, guard_bytes=64)
    x = np.linspace(-4, 4, 64, dtype=np.float32)
    specs = [TensorSpec("FLOAT32", (64,), None, 256)] * 2
    run = DirectRun(gpu, "ELEMENT_WISE_CLIP", specs, [x.view(np.uint8), np.full(256, 0xEE, np.uint8)],
                    min_value=-1.0, max_value=2.0)
    # Shrink the descriptors DirectRun wrote: the input shows 32 elements, the output takes 40.
    write_buffer_descriptor(run.table.data, 0, run.allocations[0].gpu_va, 128)
    write_buffer_descriptor(run.table.data, 32, run.allocations[1].gpu_va, 160)
    watch = MemoryWatch(gpu)
    watch.allow_range(run.allocations[1], 0, 160)
    with capture(gpu, detail="dispatch") as cap:
        stats = run.dispatch()
    watch.check()   # guards intact, nothing written past the output descriptor's 160 bytes
    out = run.output_bytes()
    expected = np.clip(x, -1.0, 2.0)
    expected[32:] = 0.0   # reads past the input range return 0, and clip(0) = 0
    same_bits(out[:160].view(np.float32), expected[:40])
    assert out[160:].tolist() == [0xEE] * 96                  # writes past the output range dropped
    assert (stats.oob_reads, stats.oob_writes) == (32, 24)
    row = cap.trace.dispatches
    assert (int(row["oob_reads"][0]), int(row["oob_writes"][0]), bool(row["timed"][0])) == (32, 24, timing)
    summary = cap.trace.summary()[0]
    assert (summary["oob_reads"], summary["oob_writes"]) == (32, 24)


@pytest.mark.parametrize("timing", [True, False])
def test_hand_written_kernel_cannot_reach_other_allocations(timing):
    """Lanes step 4 KiB apart through descriptors that claim 1 MiB over 256-byte allocations, and through a
    null descriptor: the neighbours 64 KiB away are never touched; every stray access is counted."""
    gpu = Gpu(TEACHING, timing=timing, guard_bytes=64)
    src, dst = gpu.memory.allocate(256, "src"), gpu.memory.allocate(256, "dst")
    neighbours = [gpu.memory.allocate(1 << 16, f"neighbour{i}") for i in range(3)]
    src.data[:] = np.arange(256, dtype=np.uint8)
    for n in neighbours:
        n.data[:] = 0x5A
    table = gpu.memory.allocate(96, "table")
    write_buffer_descriptor(table.data, 0, src.gpu_va, 1 << 20)
    write_buffer_descriptor(table.data, 32, dst.gpu_va, 1 << 20)   # slot 2 stays a null descriptor
    program = Program(assemble("""
        s_load_dwordx4 s[8:11], s[0:1], 0
        s_load_dwordx4 s[12:15], s[0:1], 32
        s_load_dwordx4 s[16:19], s[0:1], 64
        s_waitcnt 0
        v_lshl_b32 v1, v0, 12
        buffer_load_dword v2, v1, s[8:11], 0
        buffer_load_dword v3, v1, s[16:19], 0
        s_waitcnt 0
        v_or_b32 v2, v2, v3
        buffer_store_dword v2, v1, s[12:15], 0
        buffer_store_dword v2, v1, s[16:19], 0
        s_endpgm"""), "stray")
    watch = MemoryWatch(gpu)
    watch.allow_range(dst, 0, 4)
    with capture(gpu, detail="dispatch") as cap:
        stats = gpu.dispatch(KernelLaunch(program, 1, 64, (table.gpu_va & 0xFFFFFFFF, table.gpu_va >> 32)))
    watch.check()
    assert dst.data[:4].tolist() == [0, 1, 2, 3] and not dst.data[4:].any()
    assert all((n.data == 0x5A).all() for n in neighbours)
    assert (stats.oob_reads, stats.oob_writes) == (63 + 64, 63 + 64)
    assert (int(cap.trace.dispatches["oob_reads"][0]), int(cap.trace.dispatches["oob_writes"][0])) == (127, 127)


def test_a_volatile_descriptor_overwritten_with_a_short_view_reads_zero_and_drops_writes():
    """Through the mirror: with DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE the descriptors Bind* wrote are the ones
    the kernel reads; an application that overwrites them with a shorter UAV gets D3D12's volatile-range
    behaviour (reads 0, writes dropped), and the trace counts the stray accesses."""
    rig = MirrorRig(TEACHING, dml_flags=DML_CREATE_DEVICE_FLAG_NONE, heap_slots=4)   # the initializer: slots 2, 3
    device, dml = rig.device, rig.dml
    t = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Sizes=[64], TotalTensorSizeInBytes=256))
    compiled = rig.compile(DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_IDENTITY,
                                             Desc=DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC(InputTensor=t, OutputTensor=t)),
                           DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE)
    rig.initialize(compiled)
    table = rig.table(compiled)
    x = np.arange(64, dtype=np.float32) + 1
    src, dst = rig.buffer(256), rig.buffer(256)
    staging = rig.record_upload(src, x)
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
        src, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)])
    table.BindInputs([buffer_binding(src, 0, 256)])
    table.BindOutputs([buffer_binding(dst, 0, 256)])
    rig.recorder.RecordDispatch(rig.list, compiled, table)
    # Overwrite both slots with 16-element raw views (the application's own descriptors).
    view = D3D12_UNORDERED_ACCESS_VIEW_DESC(Format=DXGI_FORMAT_R32_TYPELESS, ViewDimension=D3D12_UAV_DIMENSION_BUFFER,
                                            Buffer=D3D12_BUFFER_UAV(FirstElement=0, NumElements=16,
                                                                    Flags=D3D12_BUFFER_UAV_FLAG_RAW))
    start = rig.heap.GetCPUDescriptorHandleForHeapStart()
    device.CreateUnorderedAccessView(src, None, view, CD3DX12_CPU_DESCRIPTOR_HANDLE(start, 0, 32))
    view.Buffer.NumElements = 24
    device.CreateUnorderedAccessView(dst, None, view, CD3DX12_CPU_DESCRIPTOR_HANDLE(start, 1, 32))
    watch = MemoryWatch(rig.gpu)
    watch.allow_range(inspect(src).allocation, 0, 256)   # the upload copy in the same list
    watch.allow_range(inspect(dst).allocation, 0, 96)
    persistent = inspect(rig.persistent[compiled]).allocation
    watch.allow_range(persistent, 0, persistent.size)   # the initializer's dispatch in the same list
    with capture(device, detail="dispatch") as cap:
        rig.execute()
    watch.check()
    del staging
    assert dml.GetDeviceRemovedReason() == S_OK and device.GetDeviceRemovedReason() == S_OK
    got = rig.read(dst).view(np.float32)
    expected = np.zeros(64, np.float32)
    expected[:16] = x[:16]   # elements 16..23 read 0; 24..63 are never written
    same_bits(got, expected)
    dispatches = cap.trace.dispatches
    assert (int(dispatches["oob_reads"][-1]), int(dispatches["oob_writes"][-1])) == (48, 40)
