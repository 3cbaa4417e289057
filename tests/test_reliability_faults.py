"""Faults (issue 6): out-of-range kernel accesses, guard bytes, command-list misuse, the hazard rules.

- A microkernel that reads or writes out of range follows D3D's robust-buffer rules (reads give 0,
  writes are dropped), never reaches a neighbouring allocation, and the trace reports the counts
  (traces.capture -> trace.dispatches['oob_reads' / 'oob_writes']), with the timing model on and off.
- GpuMemory's guard bytes: off by default (no backing array), on through Gpu(guard_bytes=) or the
  environment, and check_guards / verify_guards find a damaged zone and name it.
- Command-list misuse is reported as D3D12 / DirectML would: HRESULT methods fail (E_FAIL,
  E_INVALIDARG), void methods and execution errors remove the device, and the debug layers
  (D3D12's, DML_CREATE_DEVICE_FLAG_DEBUG) name the problem at the offending call.
- Regression tests for the fixes this work made (see docs/RELIABILITY.md).
"""
import numpy as np
import pytest

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.functional.buffer_descriptor import write_buffer_descriptor
from dmlemu.direct_run import DirectRun
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.functional.wave_dispatcher import KernelLaunch
from dmlemu.errors import (DXGI_ERROR_DEVICE_REMOVED, DXGI_ERROR_INVALID_CALL, E_FAIL, E_INVALIDARG, HResultError,
                             S_OK)
from dmlemu.functional.executor import Program
from dmlemu.gpu import Gpu
from dmlemu.functional.device_memory import GpuMemory, GuardViolation
from dmlemu.presets import TEACHING
from dmlemu.isa.assembler import assemble
from dmlemu.kernels.driver import TensorSpec
from dmlemu.traces import capture

from reliability_helpers import MemoryWatch, Rig as CaseRig, binding_desc, same_bits, small_clip_works

pytestmark = pytest.mark.usefixtures("guard_bytes")


# ---- guard bytes ------------------------------------------------------------------------------------------
def test_guard_bytes_are_off_by_default_and_cost_nothing(monkeypatch):
    monkeypatch.delenv("DMLEMU_GUARD_BYTES", raising=False)
    memory = Gpu(TEACHING).memory
    allocation = memory.allocate(100, "plain")
    assert memory.guard_bytes == 0 and allocation.guard_bytes == 0
    assert allocation.data.base is None and allocation.data.size == 100   # its own array, no backing store
    assert memory.check_guards() == [] and memory.verify_guards() is None


def test_guard_bytes_surround_every_allocation():
    memory = GpuMemory(1 << 20, guard_bytes=64)
    a, b = memory.allocate(10, "a"), memory.allocate(4096, "b")
    for allocation in (a, b):
        assert allocation.data.size == allocation.size and allocation.data.base is allocation._backing
        assert allocation._backing.size == allocation.size + 128
        assert not allocation.data.any()
    a.data[:] = 0xFF   # writing every byte of the data touches no guard
    b.data[:] = 0x00
    assert memory.check_guards() == []
    assert memory.used_bytes == 4106   # the budget counts data bytes only


def test_a_damaged_guard_is_found_and_named():
    memory = GpuMemory(1 << 20, guard_bytes=16)
    a, b = memory.allocate(32, "victim"), memory.allocate(32, "bystander")
    a._backing[16 + 32 + 2] ^= 0xFF   # two bytes past the end of a's data
    assert memory.check_guards() == [a]
    with pytest.raises(GuardViolation) as info:
        memory.verify_guards()
    assert str(info.value).startswith(f"Allocation('victim', va=0x{a.gpu_va:x}, size=32): 1 guard byte(s) after its "
                                      f"data changed; the first is 3 byte(s) after the allocation")
    b._backing[15] ^= 0x01            # the byte just before b's data
    assert "1 byte(s) before the allocation" in b.guard_damage()
    memory.free(a)                    # a damaged allocation stays reported after it is freed
    assert memory.check_guards() == [a, b]


def test_a_replaced_data_array_is_found():
    memory = GpuMemory(1 << 20, guard_bytes=8)
    a = memory.allocate(16, "replaced")
    a.data = np.zeros(16, np.uint8)   # writes to this copy would never reach GPU memory
    assert "no longer the 16-byte view between its guard zones" in a.guard_damage()


def test_guard_bytes_from_the_environment_reach_mirror_devices(monkeypatch):
    monkeypatch.setenv("DMLEMU_GUARD_BYTES", "32")
    device = D3D12CreateDevice(TEACHING, D3D_FEATURE_LEVEL_11_0)
    assert device._gpu.memory.guard_bytes == 32
    assert Gpu(TEACHING, guard_bytes=0).memory.guard_bytes == 0   # the keyword wins
    monkeypatch.setenv("DMLEMU_GUARD_BYTES", "lots")
    with pytest.raises(ValueError, match="DMLEMU_GUARD_BYTES is 'lots'"):
        Gpu(TEACHING)


def test_the_memory_watch_catches_a_stray_byte_and_a_damaged_guard():
    """The checker run around every reliability dispatch can fail: one byte outside the allowed ranges, or one
    guard byte, is enough."""
    from reliability_helpers import TensorCase, element_byte_mask
    gpu = Gpu(TEACHING, guard_bytes=16)
    a = gpu.memory.allocate(64, "a")
    watch = MemoryWatch(gpu)
    padded = TensorCase("FLOAT16", (2, 3), (4, 1))   # elements at 0-2 and 4-6 (2 bytes each), padding between
    watch.allow(a, element_byte_mask(64, 16, padded))
    a.data[16:22] = 1
    a.data[24:30] = 2
    assert watch.check() == 12
    a.data[22] = 7                                    # the padding element between the rows
    with pytest.raises(AssertionError, match=r"1 byte\(s\) written outside the allowed ranges; first at byte 22"):
        watch.check()
    a.data[22] = 0
    a._backing[16 + 64] ^= 1
    with pytest.raises(GuardViolation):
        watch.check()


# ---- out-of-range kernel accesses ----------------------------------------------------------------------------
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


# ---- command-list misuse, with and without the debug layers ---------------------------------------------------
class MiniRig:
    """A D3D12 device (debug layer on or off), a DML device (debug flag on or off), a ready CLIP dispatch."""

    def __init__(self, d3d12_debug, dml_debug):
        self.device = D3D12CreateDevice(TEACHING, D3D_FEATURE_LEVEL_11_0)
        self.device._debug_layer = d3d12_debug
        self.dml = DMLCreateDevice(self.device, DML_CREATE_DEVICE_FLAG_DEBUG if dml_debug else 0)
        if dml_debug:
            self.dml.SetMuteDebugOutput(True)
        self.queue = self.device.CreateCommandQueue(D3D12_COMMAND_QUEUE_DESC(Type=D3D12_COMMAND_LIST_TYPE_DIRECT))
        self.allocator = self.device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT)
        self.list = self.device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, self.allocator, None)
        self.heap = self.device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
            Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=4, Flags=D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE))
        self.list.SetDescriptorHeaps([self.heap])
        self.recorder = self.dml.CreateCommandRecorder()
        self.fence, self.fence_value = self.device.CreateFence(0, 0), 0
        t = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
            DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Sizes=[16], TotalTensorSizeInBytes=64))
        self.compiled = self.dml.CompileOperator(self.dml.CreateOperator(DML_OPERATOR_DESC(
            Type=DML_OPERATOR_ELEMENT_WISE_CLIP, Desc=DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(
                InputTensor=t, OutputTensor=t, Min=0.0, Max=1.0))), 0)
        self.initializer = self.dml.CreateOperatorInitializer([self.compiled])
        self.a, self.b = self.buffer(64), self.buffer(64)

    buffer = CaseRig.buffer
    wait = CaseRig.wait
    gpu = CaseRig.gpu

    def table(self, dispatchable):
        return self.dml.CreateBindingTable(DML_BINDING_TABLE_DESC(
            Dispatchable=dispatchable, CPUDescriptorHandle=self.heap.GetCPUDescriptorHandleForHeapStart(),
            GPUDescriptorHandle=self.heap.GetGPUDescriptorHandleForHeapStart(), SizeInDescriptors=2))

    def bound_table(self):
        table = self.table(self.compiled)
        table.BindInputs([binding_desc(self.a, 0, 64)])
        table.BindOutputs([binding_desc(self.b, 0, 64)])
        return table

    def initialize(self):
        self.recorder.RecordDispatch(self.list, self.initializer, self.table(self.initializer))


def test_a_volatile_descriptor_overwritten_with_a_short_view_reads_zero_and_drops_writes():
    """Through the mirror: with DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE the descriptors Bind* wrote are the ones
    the kernel reads; an application that overwrites them with a shorter UAV gets D3D12's volatile-range
    behaviour (reads 0, writes dropped), and the trace counts the stray accesses."""
    rig = MiniRig(d3d12_debug=False, dml_debug=False)
    device, dml = rig.device, rig.dml
    t = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Sizes=[64], TotalTensorSizeInBytes=256))
    compiled = dml.CompileOperator(dml.CreateOperator(DML_OPERATOR_DESC(
        Type=DML_OPERATOR_ELEMENT_WISE_IDENTITY, Desc=DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC(
            InputTensor=t, OutputTensor=t))), DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE)
    heap = device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
        Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=2, Flags=D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE))
    allocator = device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT)
    command_list = device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, None)
    command_list.SetDescriptorHeaps([heap])
    recorder = dml.CreateCommandRecorder()
    table_desc = DML_BINDING_TABLE_DESC(Dispatchable=None, CPUDescriptorHandle=heap.GetCPUDescriptorHandleForHeapStart(),
                                        GPUDescriptorHandle=heap.GetGPUDescriptorHandleForHeapStart(),
                                        SizeInDescriptors=2)
    initializer = dml.CreateOperatorInitializer([compiled])
    table_desc.Dispatchable = initializer
    recorder.RecordDispatch(command_list, initializer, dml.CreateBindingTable(table_desc))
    table_desc.Dispatchable = compiled
    table = dml.CreateBindingTable(table_desc)
    x = np.arange(64, dtype=np.float32) + 1
    src, dst = rig.buffer(256), rig.buffer(256)
    staging = rig.buffer(256, D3D12_HEAP_TYPE_UPLOAD, uav=False)
    staging.Map(0, None)[:] = x.view(np.uint8)
    command_list.CopyBufferRegion(src, 0, staging, 0, 256)
    command_list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
        src, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)])
    table.BindInputs([binding_desc(src, 0, 256)])
    table.BindOutputs([binding_desc(dst, 0, 256)])
    recorder.RecordDispatch(command_list, compiled, table)
    # Overwrite both slots with 16-element raw views (the application's own descriptors).
    view = D3D12_UNORDERED_ACCESS_VIEW_DESC(Format=DXGI_FORMAT_R32_TYPELESS, ViewDimension=D3D12_UAV_DIMENSION_BUFFER,
                                            Buffer=D3D12_BUFFER_UAV(FirstElement=0, NumElements=16,
                                                                    Flags=D3D12_BUFFER_UAV_FLAG_RAW))
    start = heap.GetCPUDescriptorHandleForHeapStart()
    device.CreateUnorderedAccessView(src, None, view, CD3DX12_CPU_DESCRIPTOR_HANDLE(start, 0, 32))
    view.Buffer.NumElements = 24
    device.CreateUnorderedAccessView(dst, None, view, CD3DX12_CPU_DESCRIPTOR_HANDLE(start, 1, 32))
    command_list.Close()
    watch = MemoryWatch(device._gpu)
    watch.allow_range(src._allocation, 0, 256)   # the upload copy in the same list
    watch.allow_range(dst._allocation, 0, 96)
    with capture(device, detail="dispatch") as cap:
        rig.queue.ExecuteCommandLists([command_list])
    rig.wait()
    watch.check()
    assert dml.GetDeviceRemovedReason() == S_OK and device.GetDeviceRemovedReason() == S_OK
    got = dst._allocation.data.view(np.float32)
    expected = np.zeros(64, np.float32)
    expected[:16] = x[:16]   # elements 16..23 read 0; 24..63 are never written
    same_bits(got, expected)
    dispatches = cap.trace.dispatches
    assert (int(dispatches["oob_reads"][-1]), int(dispatches["oob_writes"][-1])) == (48, 40)


def _recording_after_close(rig):
    rig.list.Close()
    rig.list.CopyBufferRegion(rig.a, 0, rig.b, 0, 64)


def _record_dispatch_after_close(rig):
    rig.initialize()
    table = rig.bound_table()
    rig.list.Close()
    rig.recorder.RecordDispatch(rig.list, rig.compiled, table)


def _executing_an_open_list(rig):
    rig.queue.ExecuteCommandLists([rig.list])


def _never_initialized(rig):
    side = rig.device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                        rig.device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT), None)
    rig.recorder.RecordDispatch(side, rig.initializer, rig.table(rig.initializer))   # never executed
    rig.recorder.RecordDispatch(rig.list, rig.compiled, rig.bound_table())
    rig.list.Close()
    rig.queue.ExecuteCommandLists([rig.list])


def _wrong_resource_state(rig):
    rig.initialize()
    staging = rig.buffer(64, D3D12_HEAP_TYPE_UPLOAD, uav=False)
    rig.list.CopyBufferRegion(rig.a, 0, staging, 0, 64)   # a goes to COPY_DEST; no barrier follows
    rig.recorder.RecordDispatch(rig.list, rig.compiled, rig.bound_table())
    rig.list.Close()
    rig.queue.ExecuteCommandLists([rig.list])


def _missing_descriptor_heap(rig):
    rig.initialize()
    rig.list.ClearState(None)
    rig.recorder.RecordDispatch(rig.list, rig.compiled, rig.bound_table())


# (misuse, who reports it, HRESULT, the sentence's key part)
MISUSES = [
    (_recording_after_close, "d3d12", DXGI_ERROR_INVALID_CALL,
     "CopyBufferRegion: command list #1 is closed; Reset it before recording into it."),
    (_record_dispatch_after_close, "dml", E_INVALIDARG,
     "IDMLCommandRecorder.RecordDispatch: commandList is closed; Reset it before recording."),
    (_executing_an_open_list, "d3d12", DXGI_ERROR_INVALID_CALL,
     "ExecuteCommandLists: ppCommandLists[0] is command list #1, which is still open; Close it before executing it."),
    (_never_initialized, "dml", E_INVALIDARG,
     "ExecuteCommandLists: the compiled operator DML_OPERATOR_ELEMENT_WISE_CLIP was never initialized (its "
     "IDMLOperatorInitializer dispatch did not execute before it); the dispatch is skipped."),
    (_wrong_resource_state, "d3d12", DXGI_ERROR_INVALID_CALL,
     "the InputTensor of a DirectML DML_OPERATOR_ELEMENT_WISE_CLIP dispatch needs buffer #1 in "
     "D3D12_RESOURCE_STATE_UNORDERED_ACCESS, but it is in D3D12_RESOURCE_STATE_COPY_DEST"),
    (_missing_descriptor_heap, "dml", E_INVALIDARG,
     "IDMLCommandRecorder.RecordDispatch: no D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV descriptor heap is set on "
     "commandList; call SetDescriptorHeaps with the binding table's heap first."),
]


@pytest.mark.parametrize("debug", [False, True], ids=["no debug layer", "debug layers"])
@pytest.mark.parametrize("misuse, reporter, hresult, sentence", MISUSES, ids=[m[0].__name__[1:] for m in MISUSES])
def test_command_list_misuse_is_reported_and_named(misuse, reporter, hresult, sentence, debug):
    rig = MiniRig(d3d12_debug=debug, dml_debug=debug)
    watch = MemoryWatch(rig.device._gpu)
    watch.allow_range(rig.heap._allocation, 0, 64)   # the binding tables' descriptor slots
    if reporter == "d3d12" and debug:
        with pytest.raises(HResultError) as info:   # the D3D12 debug layer stops at the offending call
            misuse(rig)
        assert info.value.hresult == hresult and sentence in info.value.message
    else:
        assert misuse(rig) is None
    watch.check()   # nothing ran: no byte of any buffer changed
    if reporter == "d3d12":
        assert rig.device.GetDeviceRemovedReason() == hresult and sentence in rig.device._removed_reason[1]
        assert rig.dml.GetDeviceRemovedReason() == hresult   # D3D12 removal removes the DML device
        with pytest.raises(HResultError) as info:
            rig.device.CreateFence(0, 0)
        assert info.value.hresult == DXGI_ERROR_DEVICE_REMOVED and sentence in info.value.message
    else:
        assert rig.dml.GetDeviceRemovedReason() == hresult and sentence in rig.dml._removed_message
        assert rig.device.GetDeviceRemovedReason() == S_OK   # DML removal leaves the D3D12 device working
        assert bool(rig.dml._debug_messages) == debug
        if debug:
            assert sentence in rig.dml._debug_messages[-1]
    with pytest.raises(HResultError) as info:
        rig.dml.CreateOperatorInitializer([])
    assert info.value.hresult == DXGI_ERROR_DEVICE_REMOVED and sentence in info.value.message


@pytest.mark.parametrize("debug", [False, True])
def test_resetting_an_allocator_whose_work_is_in_flight_fails_and_the_device_keeps_working(debug):
    rig = MiniRig(d3d12_debug=debug, dml_debug=debug)
    rig.initialize()
    rig.recorder.RecordDispatch(rig.list, rig.compiled, rig.bound_table())
    rig.list.Close()
    rig.queue.ExecuteCommandLists([rig.list])
    with pytest.raises(HResultError) as info:
        rig.allocator.Reset()
    assert info.value.hresult == E_FAIL
    assert "whose completion the CPU has not observed; wait on a fence signalled after that ExecuteCommandLists" \
        in info.value.message
    assert rig.device.GetDeviceRemovedReason() == S_OK and rig.dml.GetDeviceRemovedReason() == S_OK
    rig.wait()
    rig.allocator.Reset()   # once the fence is observed
    rig.list.Reset(rig.allocator, None)


# ---- regression tests for the fixes --------------------------------------------------------------------------
def _hazard_rig():
    rig = MiniRig(d3d12_debug=False, dml_debug=True)
    rig.initialize()
    return rig, rig.bound_table()


def test_fix_temporary_binding_must_not_overlap_a_tensor():
    """DirectML 1.7 hazard rule (IDMLBindingTable::BindInputs): the temporary binding intersects no input,
    output or persistent binding. RecordDispatch used to accept it."""
    rig, table = _hazard_rig()
    table.BindTemporaryResource(binding_desc(rig.a, 0, 64))
    rig.recorder.RecordDispatch(rig.list, rig.compiled, table)
    assert rig.dml.GetDeviceRemovedReason() == E_INVALIDARG
    assert rig.dml._removed_message == (
        "IDMLCommandRecorder.RecordDispatch: the temporary resource (bytes 0 to 64 of buffer #1) overlaps InputTensor "
        "(bytes 0 to 64); DirectML requires the temporary binding not to intersect any input, output or persistent "
        "binding.")


def test_fix_persistent_binding_must_not_overlap_an_output_or_the_temporary():
    rig, table = _hazard_rig()
    table.BindPersistentResource(binding_desc(rig.b, 0, 64))
    rig.recorder.RecordDispatch(rig.list, rig.compiled, table)
    assert rig.dml._removed_message.endswith(
        "the persistent resource (bytes 0 to 64 of buffer #2) overlaps OutputTensor (bytes 0 to 64); DirectML "
        "requires the persistent binding not to intersect any output or temporary binding.")
    rig, table = _hazard_rig()
    scratch = rig.buffer(1024)
    table.BindTemporaryResource(binding_desc(scratch, 0, 512))
    table.BindPersistentResource(binding_desc(scratch, 256, 512))
    rig.recorder.RecordDispatch(rig.list, rig.compiled, table)
    assert "the temporary resource (bytes 0 to 512 of buffer #3) overlaps the persistent resource (bytes 256 to 768)" \
        in rig.dml._removed_message


def test_fix_disjoint_scratch_bindings_and_inputs_sharing_a_resource_stay_legal():
    rig, table = _hazard_rig()
    scratch = rig.buffer(1024)
    table.BindTemporaryResource(binding_desc(scratch, 0, 256))
    table.BindPersistentResource(binding_desc(scratch, 512, 256))
    rig.recorder.RecordDispatch(rig.list, rig.compiled, table)
    assert rig.dml.GetDeviceRemovedReason() == S_OK


def test_fix_late_bound_volatile_outputs_get_the_in_place_checks():
    """With DESCRIPTORS_VOLATILE the bindings in force at execution are used; an output rebound after
    RecordDispatch onto an input of a non-in-place operator (IF) used to run. Now execution removes the device."""
    rig = MiniRig(d3d12_debug=False, dml_debug=False)
    u8 = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_UINT8, Sizes=[16], TotalTensorSizeInBytes=16))
    f32 = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Sizes=[16], TotalTensorSizeInBytes=64))
    compiled = rig.dml.CompileOperator(rig.dml.CreateOperator(DML_OPERATOR_DESC(
        Type=DML_OPERATOR_ELEMENT_WISE_IF, Desc=DML_ELEMENT_WISE_IF_OPERATOR_DESC(
            ConditionTensor=u8, ATensor=f32, BTensor=f32, OutputTensor=f32))), DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE)
    heap = rig.device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
        Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=4, Flags=D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE))
    rig.list.SetDescriptorHeaps([heap])

    def table(dispatchable):
        return rig.dml.CreateBindingTable(DML_BINDING_TABLE_DESC(
            Dispatchable=dispatchable, CPUDescriptorHandle=heap.GetCPUDescriptorHandleForHeapStart(),
            GPUDescriptorHandle=heap.GetGPUDescriptorHandleForHeapStart(), SizeInDescriptors=4))
    initializer = rig.dml.CreateOperatorInitializer([compiled])
    rig.recorder.RecordDispatch(rig.list, initializer, table(initializer))
    cond, c = rig.buffer(64), rig.buffer(64)
    t = table(compiled)
    t.BindInputs([binding_desc(cond, 0, 16), binding_desc(rig.a, 0, 64), binding_desc(rig.b, 0, 64)])
    t.BindOutputs([binding_desc(c, 0, 64)])
    rig.recorder.RecordDispatch(rig.list, compiled, t)
    assert rig.dml.GetDeviceRemovedReason() == S_OK
    t.BindOutputs([binding_desc(rig.b, 0, 64)])   # now the output is BTensor's range
    watch = MemoryWatch(rig.device._gpu)
    rig.list.Close()
    rig.queue.ExecuteCommandLists([rig.list])
    watch.check()   # the dispatch was skipped: nothing written
    assert rig.dml.GetDeviceRemovedReason() == E_INVALIDARG
    assert rig.dml._removed_message == (
        "ExecuteCommandLists: OutputTensor (bytes 0 to 64) overlaps BTensor (bytes 0 to 64) in buffer #2; "
        "DML_OPERATOR_ELEMENT_WISE_IF does not support in-place execution (bindings in force at execution, "
        "DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE); the dispatch is skipped.")
    assert rig.device.GetDeviceRemovedReason() == S_OK


# ---- out of memory ---------------------------------------------------------------------------------------------
def test_out_of_gpu_memory_is_e_outofmemory_and_the_device_recovers():
    """Filling the adapter's memory makes CreateCommittedResource and CompileOperator (its constant buffer) fail with
    E_OUTOFMEMORY, changing nothing; once a buffer is released, the same devices run an operator again."""
    import dataclasses
    import gc
    from dmlemu.errors import E_OUTOFMEMORY
    small = dataclasses.replace(TEACHING, key="small", dedicated_video_memory=1 << 20)
    rig = MiniRig.__new__(MiniRig)
    rig.device = D3D12CreateDevice(small, D3D_FEATURE_LEVEL_11_0)
    rig.dml = DMLCreateDevice(rig.device, DML_CREATE_DEVICE_FLAG_NONE)
    rig.queue = rig.device.CreateCommandQueue(D3D12_COMMAND_QUEUE_DESC(Type=D3D12_COMMAND_LIST_TYPE_DIRECT))
    rig.fence, rig.fence_value = rig.device.CreateFence(0, 0), 0
    memory = rig.device._gpu.memory
    hogs = []
    with pytest.raises(HResultError) as info:
        while True:
            hogs.append(rig.buffer(64 << 10))
    assert info.value.hresult == E_OUTOFMEMORY and "does not fit" in info.value.message
    while memory.capacity_bytes - memory.used_bytes >= 4:   # fill the last bytes too
        hogs.append(rig.buffer(max(4, (memory.capacity_bytes - memory.used_bytes) // 2)))
    used = memory.used_bytes
    t = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Sizes=[64], TotalTensorSizeInBytes=256))
    op = rig.dml.CreateOperator(DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_IDENTITY,
                                                  Desc=DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC(InputTensor=t, OutputTensor=t)))
    with pytest.raises(HResultError) as info:
        rig.dml.CompileOperator(op, 0)
    assert info.value.hresult == E_OUTOFMEMORY and "no GPU memory for the constant buffer" in info.value.message
    assert memory.used_bytes == used
    assert rig.dml.GetDeviceRemovedReason() == S_OK and rig.device.GetDeviceRemovedReason() == S_OK
    del hogs[:8]
    gc.collect()
    small_clip_works(rig)



def test_a_kernel_that_never_ends_removes_the_device_as_hung(monkeypatch):
    """A GPU hang (here: a compiled operator's kernel swapped for an endless loop) is reported as
    DXGI_ERROR_DEVICE_HUNG device removal, not as a Python exception out of ExecuteCommandLists."""
    import dmlemu.directml.compiled_operator as compiled_module
    import dmlemu.functional.executor as executor
    from dmlemu.convenience import run_operator
    from dmlemu.errors import DXGI_ERROR_DEVICE_HUNG
    from dmlemu.isa import assemble

    monkeypatch.setattr(executor, "MAX_INSTRUCTIONS_PER_WAVE", 1000)
    original = compiled_module.IDMLCompiledOperator._compile

    def hanging(self, preset):
        kernel = original(self, preset)
        kernel.program = Program(assemble("top:\n    s_branch top\n"), "hang")
        return kernel
    monkeypatch.setattr(compiled_module.IDMLCompiledOperator, "_compile", hanging)
    tensor = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, DimensionCount=1, Sizes=[4], TotalTensorSizeInBytes=16))
    desc = DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_IDENTITY,
                             Desc=DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC(InputTensor=tensor, OutputTensor=tensor))
    with pytest.raises(HResultError) as error:
        run_operator(desc, [np.ones(4, np.float32)])
    assert error.value.hresult in (DXGI_ERROR_DEVICE_HUNG, DXGI_ERROR_DEVICE_REMOVED)
    assert "the GPU stopped responding" in str(error.value)
