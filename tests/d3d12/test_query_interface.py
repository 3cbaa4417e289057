"""QueryInterface on every D3D12 object (IIDs from d3d12.h), DMLCreateDevice1's DXGI_ERROR_UNSUPPORTED, and
sentences that never repeat their method's prefix (emulator/com.py `prefixed`)."""
import re
import uuid

import pytest

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.directml import inspect
from dmlemu.errors import DXGI_ERROR_INVALID_CALL, DXGI_ERROR_UNSUPPORTED, E_INVALIDARG, E_NOINTERFACE, HResultError
from dmlemu.presets import TEACHING
from mirror_rig import MirrorRig


def objects(rig):
    heap = rig.device.CreateHeap(D3D12_HEAP_DESC(SizeInBytes=65536, Properties=CD3DX12_HEAP_PROPERTIES(
        D3D12_HEAP_TYPE_DEFAULT)))
    return {
        "ID3D12Device4": rig.device, "ID3D12CommandQueue": rig.queue, "ID3D12CommandAllocator": rig.allocator,
        "ID3D12GraphicsCommandList": rig.list, "ID3D12Resource": rig.buffer(16), "ID3D12Heap": heap,
        "ID3D12Fence": rig.fence, "ID3D12DescriptorHeap": rig.shader_visible_heap(1),
        "ID3D12QueryHeap": rig.device.CreateQueryHeap(D3D12_QUERY_HEAP_DESC(Type=D3D12_QUERY_HEAP_TYPE_TIMESTAMP,
                                                                            Count=1)),
    }


def test_every_object_answers_its_own_interfaces_and_iunknown():
    rig = MirrorRig(TEACHING)
    for interface, obj in objects(rig).items():
        for name in (interface, "IUnknown", "ID3D12Object"):
            assert obj.QueryInterface(globals()["IID_" + name]) is obj, (interface, name)
            assert obj.QueryInterface(str(globals()["IID_" + name])) is obj
    assert rig.list.QueryInterface(IID_ID3D12CommandList) is rig.list
    assert rig.fence.QueryInterface(IID_ID3D12Pageable) is rig.fence
    assert rig.queue.QueryInterface(IID_ID3D12DeviceChild) is rig.queue


def test_other_interfaces_are_e_nointerface_with_a_sentence():
    rig = MirrorRig(TEACHING)
    buffer = rig.buffer(16)
    with pytest.raises(HResultError) as info:
        buffer.QueryInterface(IID_ID3D12Heap)
    assert info.value.hresult == E_NOINTERFACE
    assert info.value.message == ("QueryInterface: riid 6b3b2502-6e51-45b3-90ee-9884265e8df3 is not an interface of "
                                  "buffer #1; it implements IUnknown, ID3D12Object, ID3D12DeviceChild, "
                                  "ID3D12Pageable, ID3D12Resource.")
    with pytest.raises(HResultError) as info:
        rig.device.QueryInterface(IID_ID3D12Device5)
    assert info.value.hresult == E_NOINTERFACE
    with pytest.raises(HResultError) as info:
        rig.list.QueryInterface(IID_ID3D12GraphicsCommandList1)
    assert info.value.hresult == E_NOINTERFACE
    with pytest.raises(HResultError) as info:
        rig.list.QueryInterface(42)
    assert (info.value.hresult, info.value.message) == (
        E_INVALIDARG, "QueryInterface: riid is 42; it must be a GUID (uuid.UUID or its string).")
    assert rig.device.GetDeviceRemovedReason() == 0


def test_query_interface_works_after_device_removal():
    rig = MirrorRig(TEACHING)
    rig.queue.ExecuteCommandLists(None)   # void-method misuse removes the device
    assert rig.device.GetDeviceRemovedReason() == DXGI_ERROR_INVALID_CALL
    assert rig.device.QueryInterface(IID_ID3D12Device) is rig.device
    assert rig.fence.QueryInterface(uuid.UUID(str(IID_ID3D12Fence))) is rig.fence


@pytest.mark.parametrize("level", [0x6500, 0x7000, 0xFFFF])
def test_create_device1_above_the_known_levels_is_unsupported(level):
    with pytest.raises(HResultError) as info:
        DMLCreateDevice1(D3D12CreateDevice(TEACHING, D3D_FEATURE_LEVEL_11_0), DML_CREATE_DEVICE_FLAG_NONE, level,
                         max_feature_level=DML_FEATURE_LEVEL_6_4)
    assert info.value.hresult == DXGI_ERROR_UNSUPPORTED
    assert info.value.message == (f"DMLCreateDevice1 minimumFeatureLevel is 0x{level:X}; this DirectML supports up to "
                                  "DML_FEATURE_LEVEL_6_4.")


def test_an_unknown_level_below_the_maximum_stays_e_invalidarg():
    with pytest.raises(HResultError) as info:
        DMLCreateDevice1(D3D12CreateDevice(TEACHING, D3D_FEATURE_LEVEL_11_0), DML_CREATE_DEVICE_FLAG_NONE, 0x1234)
    assert info.value.hresult == E_INVALIDARG


_PREFIX = re.compile(r"^([A-Za-z0-9_.]+): \1: ")


def _failures(rig, dml):
    """Many failing calls across both mirrors, with the debug layers on."""
    device = rig.device
    yield lambda: device.CreateCommittedResource(None, 0, None, 0, None)
    yield lambda: device.CreateHeap(None)
    yield lambda: device.CreatePlacedResource(None, 0, None, 0, None)
    yield lambda: device.CheckFeatureSupport(9999, None)
    yield lambda: device.CreateFence(-1, 0)
    yield lambda: device.QueryInterface("nope")
    yield lambda: rig.buffer(16).Map(0, None)
    yield lambda: rig.list.CopyBufferRegion(None, 0, None, 0, 4)
    yield lambda: rig.list.Close()
    yield lambda: dml.CompileGraph(None, 0)
    yield lambda: dml.CreateOperator(None)
    yield lambda: dml.CreateBindingTable("table")
    yield lambda: dml.QueryInterface(IID_ID3D12Device)
    yield lambda: dml.CheckFeatureSupport(99, None)
    yield lambda: dml.CompileOperator(None, 0)


def test_no_sentence_repeats_its_method_prefix(capsys):
    rig = MirrorRig(TEACHING, dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, d3d12_debug=True, mute_debug_output=True)
    messages = []
    for call in _failures(rig, rig.dml):
        try:
            call()
        except HResultError as error:
            messages.append(error.message)
    messages += list(inspect(rig.dml).debug_messages)
    assert len(messages) >= 15
    doubled = [m for m in messages if _PREFIX.match(m)]
    assert doubled == []
    assert any(m.startswith("IDMLDevice1.CompileGraph: desc is None") for m in inspect(rig.dml).debug_messages)


def test_interface_ids_are_the_header_guids():
    """d3d12.h's MIDL_INTERFACE GUIDs of the versioned interfaces hosts ask for."""
    assert {name: str(globals()["IID_" + name]) for name in (
        "ID3D12Fence1", "ID3D12Heap1", "ID3D12GraphicsCommandList1", "ID3D12GraphicsCommandList2",
        "ID3D12GraphicsCommandList3", "ID3D12GraphicsCommandList4")} == {
        "ID3D12Fence1": "433685fe-e22b-4ca0-a8db-b5b4f4dd0e4a",
        "ID3D12Heap1": "572f7389-2168-49e3-9693-d6df5871bf6d",
        "ID3D12GraphicsCommandList1": "553103fb-1fe7-4557-bb38-946d7d0e7ca7",
        "ID3D12GraphicsCommandList2": "38c3e585-ff17-412c-9150-4fc6f9d72a28",
        "ID3D12GraphicsCommandList3": "6fda83a7-b84c-4e38-9ac8-c7bd22016b3d",
        "ID3D12GraphicsCommandList4": "8754318e-d3a9-4541-98cf-645b50dc4874"}


def test_a_fence_is_also_id3d12fence1_with_its_creation_flags():
    rig = MirrorRig(TEACHING)
    fence = rig.device.CreateFence(0, D3D12_FENCE_FLAG_SHARED)
    fence1 = fence.QueryInterface(IID_ID3D12Fence1)
    assert fence1 is fence and fence1.GetCreationFlags() == D3D12_FENCE_FLAG_SHARED


@pytest.mark.parametrize("name", ["ID3D12GraphicsCommandList1", "ID3D12GraphicsCommandList2",
                                  "ID3D12GraphicsCommandList3", "ID3D12GraphicsCommandList4"])
def test_later_command_list_versions_are_e_nointerface(name):
    """Their compute-path methods (AtomicCopyBufferUINT/UINT64, WriteBufferImmediate,
    SetProtectedResourceSession, meta commands) are not in the mirror: a host must not be told otherwise."""
    rig = MirrorRig(TEACHING)
    with pytest.raises(HResultError) as info:
        rig.list.QueryInterface(globals()["IID_" + name])
    assert info.value.hresult == E_NOINTERFACE
    assert info.value.message.endswith("it implements IUnknown, ID3D12Object, ID3D12DeviceChild, ID3D12CommandList, "
                                       "ID3D12GraphicsCommandList.")


def test_a_heap_is_not_id3d12heap1():
    rig = MirrorRig(TEACHING)
    heap = objects(rig)["ID3D12Heap"]
    with pytest.raises(HResultError) as info:
        heap.QueryInterface(IID_ID3D12Heap1)
    assert info.value.hresult == E_NOINTERFACE
