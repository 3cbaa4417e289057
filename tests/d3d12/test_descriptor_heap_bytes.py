"""Descriptor heaps hold descriptor bytes: Bind* writes them through the binding table's CPU handle, the GPU
reads them through its GPU handle when the dispatch executes, CopyDescriptors / CopyDescriptorsSimple move
them between heaps. Split CPU / GPU tables, descriptors changed after RecordDispatch (reported by the
DirectML debug layer without DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE), and RecordDispatch with no (or
another) descriptor heap set, which is a D3D12 error, not a DirectML one.
"""
import contextlib
import io

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.directml import inspect
from dmlemu.errors import DXGI_ERROR_INVALID_CALL, E_INVALIDARG, HResultError, S_OK
from mirror_rig import ClipRig, MirrorRig, buffer_binding, removal

X = np.linspace(-2, 2, 16, dtype=np.float32)
CLIPPED = np.clip(X, 0, 1)


def cpu_only_heap(rig, slots=4):
    return rig.device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
        Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=slots, Flags=D3D12_DESCRIPTOR_HEAP_FLAG_NONE))


def slot(heap, index):
    """(GPU address, size, valid) of a heap slot's descriptor."""
    return inspect(heap).descriptor(index)


def ready(dml_debug=True):
    rig = ClipRig(dml_debug=dml_debug)
    rig.initialize_clip()
    rig.execute()
    rig.write(rig.a, X)
    return rig


def split_table(rig, cpu_heap):
    """A CLIP table writing into `cpu_heap` slots 0..1 and bound from slots 2..3 of a new shader-visible heap
    (descriptor heap #3), which is set on the rig's list; bound a -> b. Returns (table, that heap)."""
    gpu_heap = rig.shader_visible_heap(4)
    rig.list.SetDescriptorHeaps([gpu_heap])
    gpu = gpu_heap.GetGPUDescriptorHandleForHeapStart()
    table = rig.dml.CreateBindingTable(DML_BINDING_TABLE_DESC(
        Dispatchable=rig.compiled, CPUDescriptorHandle=cpu_heap.GetCPUDescriptorHandleForHeapStart(),
        GPUDescriptorHandle=D3D12_GPU_DESCRIPTOR_HANDLE(ptr=gpu.ptr + 64), SizeInDescriptors=2))
    table.BindPersistentResource(buffer_binding(rig.persistent[rig.compiled]))
    table.BindInputs([buffer_binding(rig.a, 0, 64)])
    table.BindOutputs([buffer_binding(rig.b, 0, 64)])
    return table, gpu_heap


def debug_messages(rig):
    return list(inspect(rig.dml).debug_messages)


# ---- Bind* writes through the CPU handle --------------------------------------------------------------------
def test_bind_writes_the_descriptors_at_once_in_binding_order():
    rig = ready()
    table = rig.table(rig.compiled, size=2)
    table.BindInputs([buffer_binding(rig.a, 0, 64)])
    assert slot(rig.heap, 0) == (rig.a.GetGPUVirtualAddress(), 64, True)
    table.BindOutputs([buffer_binding(rig.b, 0, 64)])
    assert slot(rig.heap, 1) == (rig.b.GetGPUVirtualAddress(), 64, True)
    table.BindInputs(None)   # unbinding writes a null descriptor
    assert slot(rig.heap, 0) == (0, 0, False)


def test_split_cpu_and_gpu_ranges_work_when_the_application_copies_the_descriptors():
    rig = ready()
    staging = cpu_only_heap(rig)
    table, gpu_heap = split_table(rig, staging)
    assert slot(staging, 0)[2] and not slot(gpu_heap, 2)[2]   # written into the CPU range only
    rig.recorder.RecordDispatch(rig.list, rig.compiled, table)
    # copied after RecordDispatch, before execution: allowed
    gpu_cpu_handle = CD3DX12_CPU_DESCRIPTOR_HANDLE(gpu_heap.GetCPUDescriptorHandleForHeapStart(), 2, 32)
    rig.device.CopyDescriptorsSimple(2, gpu_cpu_handle, staging.GetCPUDescriptorHandleForHeapStart(),
                                     D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV)
    rig.execute()
    assert rig.dml.GetDeviceRemovedReason() == S_OK and debug_messages(rig) == []
    assert np.array_equal(rig.read(rig.b).view(np.float32), CLIPPED)


def test_a_split_table_whose_descriptors_were_not_copied_reads_null_descriptors_and_is_reported():
    rig = ready()
    staging = cpu_only_heap(rig)
    table, _ = split_table(rig, staging)
    rig.recorder.RecordDispatch(rig.list, rig.compiled, table)
    rig.execute()
    assert rig.dml.GetDeviceRemovedReason() == S_OK and rig.device.GetDeviceRemovedReason() == S_OK
    assert not rig.read(rig.b).any()    # a null output descriptor: the writes are dropped
    assert debug_messages(rig) == [
        f"ExecuteCommandLists: slot {2 + i} of descriptor heap #3, the {field} descriptor of a "
        f"DML_OPERATOR_ELEMENT_WISE_CLIP dispatch, holds a null descriptor, but RecordDispatch was called with "
        f"{inspect(buffer).label} bytes 0 to 64; was the table's CPU range (from slot 0 of descriptor heap #2) copied "
        f"into it? "
        f"Without DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE the bindings must not change from RecordDispatch until the "
        f"work completes (undefined in DirectML; the GPU reads what the heap holds)."
        for i, (field, buffer) in enumerate((("InputTensor", rig.a), ("OutputTensor", rig.b)))]


def test_rebinding_a_recorded_range_without_volatile_changes_what_the_gpu_reads_and_is_reported():
    """The descriptor-reuse bug: one table range reused for a second dispatch before the first executed."""
    rig = ready()
    c = rig.buffer(64)
    table = rig.table(rig.compiled, size=2)
    table.BindInputs([buffer_binding(rig.a, 0, 64)])
    table.BindOutputs([buffer_binding(rig.b, 0, 64)])
    rig.recorder.RecordDispatch(rig.list, rig.compiled, table)
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.UAV(None)])
    table.BindInputs([buffer_binding(rig.b, 0, 64)])   # the same slots, rewritten before execution
    table.BindOutputs([buffer_binding(c, 0, 64)])
    rig.recorder.RecordDispatch(rig.list, rig.compiled, table)
    with contextlib.redirect_stderr(io.StringIO()):
        rig.execute()
    assert rig.dml.GetDeviceRemovedReason() == S_OK
    # both dispatches read b -> c: b was never written, so c holds CLIP(0) = 0, not CLIP(CLIP(x))
    assert not rig.read(rig.b).any() and not rig.read(c).any()
    assert debug_messages(rig) == [
        "ExecuteCommandLists: slot 0 of descriptor heap #1, the InputTensor descriptor of a "
        "DML_OPERATOR_ELEMENT_WISE_CLIP dispatch, holds buffer #2 bytes 0 to 64, but RecordDispatch was called with "
        "buffer #1 bytes 0 to 64 Without DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE the bindings must not change from "
        "RecordDispatch until the work completes (undefined in DirectML; the GPU reads what the heap holds).",
        "ExecuteCommandLists: slot 1 of descriptor heap #1, the OutputTensor descriptor of a "
        f"DML_OPERATOR_ELEMENT_WISE_CLIP dispatch, holds {inspect(c).label} bytes 0 to 64, but RecordDispatch was "
        "called with "
        "buffer #2 bytes 0 to 64 Without DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE the bindings must not change from "
        "RecordDispatch until the work completes (undefined in DirectML; the GPU reads what the heap holds)."]


def test_reset_after_record_dispatch_changes_nothing_the_gpu_reads():
    rig = ready()
    table = rig.bound_table()
    rig.recorder.RecordDispatch(rig.list, rig.compiled, table)
    table.Reset(None)   # allowed at once: the table owns no descriptors
    rig.execute()
    assert debug_messages(rig) == []
    assert np.array_equal(rig.read(rig.b).view(np.float32), CLIPPED)


def test_volatile_bindings_may_change_until_execution_without_a_report():
    rig = ClipRig(dml_debug=True)
    t = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Sizes=[16], TotalTensorSizeInBytes=64))
    compiled = rig.compile(DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_CLIP, Desc=DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(
        InputTensor=t, OutputTensor=t, Min=0.0, Max=1.0)), DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE)
    rig.initialize(compiled)
    rig.execute()
    rig.write(rig.a, X)
    table = rig.table(compiled, size=2)
    rig.recorder.RecordDispatch(rig.list, compiled, table)   # bindings deferred until submission
    table.BindInputs([buffer_binding(rig.a, 0, 64)])
    table.BindOutputs([buffer_binding(rig.b, 0, 64)])
    rig.execute()
    assert rig.dml.GetDeviceRemovedReason() == S_OK and debug_messages(rig) == []
    assert np.array_equal(rig.read(rig.b).view(np.float32), CLIPPED)


# ---- the descriptor heap set on the list: a D3D12 error ------------------------------------------------------
@pytest.mark.parametrize("heaps, tail", [
    (lambda rig: [], "no D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV descriptor heap is set on command list #1; call "
                     "SetDescriptorHeaps with that heap before RecordDispatch."),
    (lambda rig: [rig.shader_visible_heap(4)], "the CBV_SRV_UAV heap set on command list #1 is descriptor heap #2; a "
                                               "descriptor table must lie in the heap that is set.")],
    ids=["no heap", "another heap"])
def test_record_dispatch_outside_the_set_heap_is_a_d3d12_recording_error(heaps, tail):
    rig = ready()
    table = rig.bound_table()
    rig.list.SetDescriptorHeaps(heaps(rig))
    rig.recorder.RecordDispatch(rig.list, rig.compiled, table)
    assert rig.dml.GetDeviceRemovedReason() == S_OK and debug_messages(rig) == []   # not a DirectML error
    gpu = rig.heap.GetGPUDescriptorHandleForHeapStart().ptr
    with pytest.raises(HResultError) as info:
        rig.list.Close()
    assert info.value.hresult == E_INVALIDARG
    assert info.value.message == (
        f"Close: command list #1 recorded an invalid call, so it cannot be executed: SetComputeRootDescriptorTable: "
        f"DirectML's RecordDispatch sets the descriptor table at GPU handle 0x{gpu:X} (slot 0 of descriptor heap #1), "
        f"but {tail}")
    assert rig.device.GetDeviceRemovedReason() == S_OK


def test_with_the_d3d12_debug_layer_record_dispatch_outside_the_set_heap_raises_at_once():
    rig = ClipRig(d3d12_debug=True)
    rig.initialize_clip()
    table = rig.bound_table()
    rig.list.ClearState(None)
    with pytest.raises(HResultError) as info:
        rig.recorder.RecordDispatch(rig.list, rig.compiled, table)
    assert info.value.hresult == E_INVALIDARG
    assert info.value.message.startswith("SetComputeRootDescriptorTable: DirectML's RecordDispatch sets the "
                                         "descriptor table at GPU handle")
    assert rig.dml.GetDeviceRemovedReason() == S_OK


# ---- binding table handles -----------------------------------------------------------------------------------
def table_error(rig, desc):
    with pytest.raises(HResultError) as info:
        rig.dml.CreateBindingTable(desc)
    assert info.value.hresult == E_INVALIDARG
    return info.value.message


def test_the_gpu_handle_must_be_in_a_shader_visible_cbv_srv_uav_heap():
    rig = ClipRig()
    cpu_only = cpu_only_heap(rig)
    desc = DML_BINDING_TABLE_DESC(Dispatchable=rig.compiled, CPUDescriptorHandle=cpu_only.GetCPUDescriptorHandleForHeapStart(),
                                  GPUDescriptorHandle=cpu_only.GetGPUDescriptorHandleForHeapStart(), SizeInDescriptors=2)
    assert table_error(rig, desc) == (
        "DML_BINDING_TABLE_DESC.GPUDescriptorHandle 0x0 is not inside a shader-visible descriptor heap of this D3D12 "
        "device; DirectML's GPU handle must be shader-visible.")
    samplers = rig.device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
        Type=D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER, NumDescriptors=4, Flags=D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE))
    desc.GPUDescriptorHandle = samplers.GetGPUDescriptorHandleForHeapStart()
    assert table_error(rig, desc) == (
        "DML_BINDING_TABLE_DESC.GPUDescriptorHandle is in a D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER heap; DirectML needs a "
        "D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV heap.")
    desc.GPUDescriptorHandle = D3D12_GPU_DESCRIPTOR_HANDLE(ptr=rig.heap.GetGPUDescriptorHandleForHeapStart().ptr + 96)
    assert table_error(rig, desc) == (
        "DML_BINDING_TABLE_DESC.SizeInDescriptors is 2 from descriptor 3 of the GPUDescriptorHandle's heap; the heap "
        "holds only 4 descriptors.")


# ---- CopyDescriptors -----------------------------------------------------------------------------------------
def views_rig():
    rig = MirrorRig(heap_slots=0)
    return rig, cpu_only_heap(rig, 8), rig.shader_visible_heap(8)


def fill(heap, seed):
    data = inspect(heap).allocation.data   # the functional model's bytes: the test writes below the API
    data[:] = np.random.default_rng(seed).integers(0, 256, data.size, dtype=np.uint8)


def handle(heap, index):
    return CD3DX12_CPU_DESCRIPTOR_HANDLE(heap.GetCPUDescriptorHandleForHeapStart(), index, 32)


def test_copy_descriptors_copies_the_source_ranges_in_order_into_the_destination_ranges():
    rig, src, dst = views_rig()
    fill(src, 1)
    before = inspect(src).data.copy()
    rig.device.CopyDescriptors([handle(dst, 0), handle(dst, 5)], [3, 2], [handle(src, 4), handle(src, 0)], [1, 4],
                               D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV)
    source = np.concatenate([before[128:160], before[0:128]])
    assert np.array_equal(inspect(dst).data[:96], source[:96])
    assert np.array_equal(inspect(dst).data[160:224], source[96:])
    assert not inspect(dst).data[96:160].any() and not inspect(dst).data[224:].any()
    rig.device.CopyDescriptors([handle(dst, 7)], None, [handle(src, 7)], None, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV)
    assert np.array_equal(inspect(dst).data[224:], before[224:])
    assert rig.device.GetDeviceRemovedReason() == S_OK


@pytest.mark.parametrize("call, sentence", [
    (lambda d, s, v: d.CopyDescriptors([h(v, 0)], [2], [h(s, 0)], [3], CBV), "the destination ranges hold 2 "
     "descriptors and the source ranges 3; CopyDescriptors needs the same number on both sides."),
    (lambda d, s, v: d.CopyDescriptors([h(s, 0)], [2], [h(v, 0)], [2], CBV), "pSrcDescriptorRangeStarts[0] is in "
     "descriptor heap #2, which is shader-visible; descriptors are copied only from heaps that are not shader-visible."),
    (lambda d, s, v: d.CopyDescriptors([h(s, 0)], [3], [h(s, 2)], [3], CBV), "a destination range and a source range "
     "overlap in descriptor heap #1 (slots 0 and 2); the result of an overlapping copy is undefined."),
    (lambda d, s, v: d.CopyDescriptors([h(v, 6)], [3], [h(s, 0)], [3], CBV), "the destination range of 3 descriptors "
     "from slot 6 passes the end of descriptor heap #2, which has 8."),
    (lambda d, s, v: d.CopyDescriptors([h(v, 0)], [1, 1], [h(s, 0)], None, CBV), "pDestDescriptorRangeSizes is "
     "[1, 1]; it must be None or a sequence of 1 counts, one per range."),
    (lambda d, s, v: d.CopyDescriptors(h(v, 0), None, [h(s, 0)], None, CBV), "pDestDescriptorRangeStarts is "
     "CD3DX12_CPU_DESCRIPTOR_HANDLE(ptr="),
    (lambda d, s, v: d.CopyDescriptors([h(v, 0)], [-1], [h(s, 0)], None, CBV), "pDestDescriptorRangeSizes[0] is -1; "
     "it must be a UINT count."),
    (lambda d, s, v: d.CopyDescriptors([h(v, 0)], None, [h(s, 0)], None, 9), "DescriptorHeapsType is 9; it must be a "
     "D3D12_DESCRIPTOR_HEAP_TYPE."),
], ids=["totals", "visible source", "overlap", "past the end", "sizes", "starts", "negative size", "heap type"])
def test_copy_descriptors_misuse_removes_the_device(call, sentence):
    rig, src, dst = views_rig()
    assert call(rig.device, src, dst) is None
    reason, message = inspect(rig.device).removed_reason
    assert reason == DXGI_ERROR_INVALID_CALL and message.startswith("CopyDescriptors: " + sentence)


h, CBV = handle, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV
RANGES = st.lists(st.tuples(st.integers(0, 9), st.integers(0, 4)), min_size=1, max_size=3)


@settings(max_examples=150, deadline=None)
@given(RANGES, RANGES)
def test_copy_descriptors_on_hostile_ranges_matches_a_model_or_removes_the_device(dest, src):
    """Random ranges (some past the heap's 8 slots, some totals unequal): either the device is removed and the
    destination heap is untouched, or the destination holds the model's bytes."""
    rig, src_heap, dst_heap = views_rig()
    fill(src_heap, 2)
    fill(dst_heap, 3)
    before = inspect(dst_heap).data.copy()
    model = before.copy()
    ok = sum(n for _, n in dest) == sum(n for _, n in src) and all(i < 8 and i + n <= 8 for i, n in dest + src)
    if ok:
        stream = np.concatenate([inspect(src_heap).data[32 * i:32 * (i + n)] for i, n in src])
        at = 0
        for i, n in dest:
            model[32 * i:32 * (i + n)] = stream[at:at + 32 * n]
            at += 32 * n
    rig.device.CopyDescriptors([handle(dst_heap, i) if i < 8 else i for i, _ in dest], [n for _, n in dest],
                               [handle(src_heap, i) if i < 8 else i for i, _ in src], [n for _, n in src], CBV)
    assert (rig.device.GetDeviceRemovedReason() == S_OK) == ok
    assert np.array_equal(inspect(dst_heap).data, model if ok else before)
