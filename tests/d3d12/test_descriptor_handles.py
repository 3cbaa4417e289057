"""Descriptor handles belong to a device: every live device hands out CPU and GPU handles from its own
handle space (bits 48 .. 62, emulator/d3d12/descriptor_heap.py), and each heap from its own range, so
another device's handle in CreateUnorderedAccessView, CopyDescriptorsSimple, SetComputeRootDescriptorTable,
a clear or a DirectML binding table names no heap of this device and is refused with a sentence that says
whose handle it is, instead of writing this device's heap. Also: CopyDescriptorsSimple's ranges must not
overlap (as CopyDescriptors'), and a structured view's stride is a multiple of 4.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.d3d12 import inspect
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.errors import E_INVALIDARG, HResultError, S_OK
from dmlemu.presets import TEACHING
from mirror_rig import ClipRig, MirrorRig, removal

CBV_SRV_UAV = D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV


def cpu_heap(device, slots=4):
    return device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(Type=CBV_SRV_UAV, NumDescriptors=slots))


def uav_desc(count=16, stride=0, fmt=DXGI_FORMAT_R32_UINT):
    return D3D12_UNORDERED_ACCESS_VIEW_DESC(Format=fmt, ViewDimension=D3D12_UAV_DIMENSION_BUFFER,
                                            Buffer=D3D12_BUFFER_UAV(FirstElement=0, NumElements=count,
                                                                    StructureByteStride=stride))


def handle(heap, index=0, gpu=False):
    start = heap.GetGPUDescriptorHandleForHeapStart() if gpu else heap.GetCPUDescriptorHandleForHeapStart()
    kind = D3D12_GPU_DESCRIPTOR_HANDLE if gpu else D3D12_CPU_DESCRIPTOR_HANDLE
    return kind(ptr=start.ptr + index * 32)


def two_rigs():
    return MirrorRig(TEACHING, heap_slots=4), MirrorRig(TEACHING, heap_slots=4)


def device_label(device):
    return repr(device).split(" on ")[0].removeprefix("<ID3D12Device ")


def heap_label(heap):
    return repr(heap).removeprefix("<ID3D12DescriptorHeap ").removesuffix(">")


def test_every_live_device_and_every_heap_has_its_own_handles():
    a, b = two_rigs()
    heaps = [a.heap, cpu_heap(a.device), b.heap, cpu_heap(b.device)]
    cpu = [h.GetCPUDescriptorHandleForHeapStart().ptr for h in heaps]
    gpu = [h.GetGPUDescriptorHandleForHeapStart().ptr for h in (a.heap, b.heap)]
    assert len(set(cpu)) == 4 and len(set(gpu)) == 2
    assert {p >> 48 for p in cpu[:2] + gpu[:1]} != {p >> 48 for p in cpu[2:] + gpu[1:]}   # one space per device
    for rig, (visible, other) in ((a, (b.heap, heaps[3])), (b, (a.heap, heaps[1]))):
        assert inspect(rig.device).descriptor_heap_at_cpu_handle(handle(other)) is None
        assert inspect(rig.device).descriptor_heap_at_gpu_handle(handle(visible, gpu=True)) is None


def test_another_devices_handle_in_create_unordered_access_view_removes_the_device_and_writes_nothing():
    a, b = two_rigs()
    target = a.buffer(64)
    foreign = cpu_heap(b.device)
    mine = cpu_heap(a.device)
    before = [bytes(inspect(h).data) for h in (foreign, mine, a.heap, b.heap)]
    a.device.CreateUnorderedAccessView(target, None, uav_desc(), handle(foreign, 1))
    ptr = handle(foreign, 1).ptr
    assert removal(a.device)[1] == (
        f"CreateUnorderedAccessView: DestDescriptor 0x{ptr:X} is not a CPU handle of a descriptor heap of this "
        f"device; it is a CPU handle of {heap_label(foreign)} of {device_label(b.device)}, and a handle works only "
        f"with the device of its heap.")
    assert [bytes(inspect(h).data) for h in (foreign, mine, a.heap, b.heap)] == before
    assert removal(b.device) == (S_OK, "")


def test_another_devices_handle_in_copy_descriptors_simple_is_refused():
    a, b = two_rigs()
    source, foreign = cpu_heap(a.device), cpu_heap(b.device)
    a.device.CreateUnorderedAccessView(a.buffer(64), None, uav_desc(), handle(source))
    before = bytes(inspect(foreign).data)
    a.device.CopyDescriptorsSimple(1, handle(foreign), handle(source), CBV_SRV_UAV)
    assert removal(a.device)[1] == (
        f"CopyDescriptorsSimple: DestDescriptorRangeStart 0x{handle(foreign).ptr:X} is not a CPU handle of a "
        f"descriptor heap of this device; it is a CPU handle of {heap_label(foreign)} of {device_label(b.device)}, "
        f"and a handle works only with the device of its heap.")
    assert bytes(inspect(foreign).data) == before


def test_another_devices_gpu_handle_in_set_compute_root_descriptor_table_is_a_recording_error():
    a, b = two_rigs()
    blob = D3D12SerializeRootSignature(D3D12_ROOT_SIGNATURE_DESC(
        NumParameters=1, pParameters=[D3D12_ROOT_PARAMETER(
            ParameterType=D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE,
            DescriptorTable=D3D12_ROOT_DESCRIPTOR_TABLE(NumDescriptorRanges=1, pDescriptorRanges=[
                D3D12_DESCRIPTOR_RANGE(RangeType=D3D12_DESCRIPTOR_RANGE_TYPE_UAV, NumDescriptors=1)]))]),
        D3D_ROOT_SIGNATURE_VERSION_1)
    signature = a.device.CreateRootSignature(0, blob.GetBufferPointer(), blob.GetBufferSize())
    a.list.SetComputeRootSignature(signature)
    foreign = handle(b.heap, gpu=True)
    a.list.SetComputeRootDescriptorTable(0, foreign)
    with pytest.raises(HResultError) as info:
        a.list.Close()
    assert info.value.hresult == E_INVALIDARG
    assert info.value.message.endswith(
        f"SetComputeRootDescriptorTable: BaseDescriptor 0x{foreign.ptr:X} is not the GPU handle of a slot of a "
        f"shader-visible CBV_SRV_UAV descriptor heap of this device; it is a GPU handle of {heap_label(b.heap)} of "
        f"{device_label(b.device)}, and a handle works only with the device of its heap.")


def test_another_devices_handles_in_a_directml_binding_table_are_refused():
    rig = ClipRig()
    other = MirrorRig(TEACHING, heap_slots=4)
    desc = rig.table_desc(rig.compiled, size=2)
    desc.GPUDescriptorHandle = handle(other.heap, gpu=True)
    with pytest.raises(HResultError) as info:
        rig.dml.CreateBindingTable(desc)
    assert info.value.hresult == E_INVALIDARG
    assert info.value.message == (
        f"DML_BINDING_TABLE_DESC.GPUDescriptorHandle 0x{desc.GPUDescriptorHandle.ptr:X} is not "
        f"inside a shader-visible descriptor heap of this D3D12 device; it is a GPU handle of {heap_label(other.heap)} of "
        f"{device_label(other.device)}, and a handle works only with the device of its heap; DirectML's GPU handle "
        f"must be shader-visible.")


def test_a_released_devices_handles_name_nothing():
    a = MirrorRig(TEACHING, heap_slots=4)
    b = MirrorRig(TEACHING, heap_slots=4)
    ptr = handle(cpu_heap(b.device)).ptr
    del b
    import gc
    gc.collect()
    a.device.CreateUnorderedAccessView(a.buffer(64), None, uav_desc(), D3D12_CPU_DESCRIPTOR_HANDLE(ptr=ptr))
    assert removal(a.device)[1] == (f"CreateUnorderedAccessView: DestDescriptor 0x{ptr:X} is not a CPU handle of a "
                                    "descriptor heap of this device.")


# ---- CopyDescriptorsSimple: the ranges must not overlap -------------------------------------------------
def test_overlapping_copy_descriptors_simple_ranges_remove_the_device_as_copy_descriptors_does():
    rig = MirrorRig(TEACHING)
    heap = cpu_heap(rig.device, 8)
    before = bytes(inspect(heap).data)
    rig.device.CopyDescriptorsSimple(3, handle(heap, 2), handle(heap, 0), CBV_SRV_UAV)
    assert removal(rig.device)[1] == (
        "CopyDescriptorsSimple: the destination range (slots 2 to 4) and the source range (slots 0 to 2) of 3 "
        "descriptors overlap in descriptor heap #1; the source and destination ranges must not overlap.")
    assert bytes(inspect(heap).data) == before
    other = MirrorRig(TEACHING)
    heap = cpu_heap(other.device, 8)
    other.device.CopyDescriptors([handle(heap, 2)], [3], [handle(heap, 0)], [3], CBV_SRV_UAV)
    assert removal(other.device)[0] == removal(rig.device)[0] != S_OK


def test_adjacent_copy_descriptors_simple_ranges_copy():
    rig = MirrorRig(TEACHING)
    heap = cpu_heap(rig.device, 8)
    rig.device.CreateUnorderedAccessView(rig.buffer(64), None, uav_desc(), handle(heap, 0))
    rig.device.CopyDescriptorsSimple(2, handle(heap, 2), handle(heap, 0), CBV_SRV_UAV)
    assert removal(rig.device) == (S_OK, "")
    data = inspect(heap).data
    assert bytes(data[64:128]) == bytes(data[0:64])


# ---- structured views ----------------------------------------------------------------------------------
@pytest.mark.parametrize("stride", [6, 2, 2052])
def test_a_structured_stride_that_is_not_a_multiple_of_4_up_to_2048_removes_the_device(stride):
    rig = MirrorRig(TEACHING, heap_slots=4)
    heap = cpu_heap(rig.device)
    before = bytes(inspect(heap).data)
    rig.device.CreateUnorderedAccessView(rig.buffer(1 << 16), None, uav_desc(count=4, stride=stride,
                                                                             fmt=DXGI_FORMAT_UNKNOWN), handle(heap))
    assert removal(rig.device)[1] == (
        f"CreateUnorderedAccessView: pDesc.Buffer.StructureByteStride is {stride}; a structured buffer's stride is "
        "a multiple of 4 from 4 to 2048 bytes.")
    assert bytes(inspect(heap).data) == before


def test_a_uint_clear_of_a_structured_view_writes_exactly_its_rect():
    rig = MirrorRig(TEACHING, heap_slots=4)
    target = rig.buffer(64)
    desc = uav_desc(count=5, stride=12, fmt=DXGI_FORMAT_UNKNOWN)
    cpu = cpu_heap(rig.device)
    for h in (handle(cpu), handle(rig.heap)):
        rig.device.CreateUnorderedAccessView(target, None, desc, h)
    rig.list.ClearUnorderedAccessViewUint(handle(rig.heap, gpu=True), handle(cpu), target, [7, 0, 0, 0], 1,
                                          [D3D12_RECT(left=1, top=0, right=3, bottom=1)])
    rig.execute()
    words = rig.read(target).view(np.uint32)
    expected = np.zeros(16, np.uint32)
    expected[3:9] = 7           # elements 1 and 2: bytes 12 to 36
    assert np.array_equal(words, expected) and removal(rig.device) == (S_OK, "")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 12), st.integers(1, 4)), min_size=1, max_size=6),
       st.lists(st.tuples(st.integers(0, 12), st.integers(0, 4)), min_size=1, max_size=6))
def test_copy_descriptors_refuses_exactly_the_overlapping_ranges_and_names_the_first_pair(dest, src):
    """Drawn destination and source ranges in one heap (sources may be empty or overlap each other; sizes fixed
    so both sides hold the same count): the device is removed with the overlap sentence exactly when a brute-force
    check over every pair finds a destination range and a source range sharing a slot (the same rule for an empty
    source range inside a destination range), naming the first such pair in the caller's order; else the copy
    happens as sequential copies would make it."""
    total = sum(n for _, n in dest)
    src = src[:-1] + [(src[-1][0], max(0, total - sum(n for _, n in src[:-1])))]
    if sum(n for _, n in src) != total:
        return
    rig = MirrorRig(TEACHING)
    heap = cpu_heap(rig.device, 40)
    for slot in range(40):
        rig.device.CreateUnorderedAccessView(rig.buffer(64 + 4 * slot), None, uav_desc(16 + slot), handle(heap, slot))
    before = bytes(inspect(heap).data)
    rig.device.CopyDescriptors([handle(heap, o) for o, _ in dest], [n for _, n in dest],
                               [handle(heap, o) for o, _ in src], [n for _, n in src], CBV_SRV_UAV)
    pair = next(((d, s) for d in dest for s in src if d[0] < s[0] + s[1] and s[0] < d[0] + d[1]), None)
    code, message = removal(rig.device)
    if pair is None:
        assert code == S_OK
        slots = [before[32 * (o + i):32 * (o + i + 1)] for o, n in src for i in range(n)]
        expected = bytearray(before)
        for (o, n), at in zip(dest, np.cumsum([0] + [n for _, n in dest])):
            for i in range(n):
                expected[32 * (o + i):32 * (o + i + 1)] = slots[at + i]
        assert bytes(inspect(heap).data) == bytes(expected)
    else:
        assert f"(slots {pair[0][0]} and {pair[1][0]})" in message and bytes(inspect(heap).data) == before
