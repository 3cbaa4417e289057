"""Malformed arguments never crash the D3D12 mirror: only HResultError escapes an HRESULT method, nothing
escapes a void or recording method (misuse removes the device, or puts the list in its error state).

tests/directml/test_directml_fuzz.py does this for the DirectML half. Arguments of the wrong Python kind (a NumPy array where an enum
belongs, a non-sequence where an array belongs, None as a resource state) are checked explicitly at the boundary
(dmlemu.com), and a bug inside the mirror propagates as the Python exception it is. The CD3DX12 helpers are inline C++ in d3dx12.h (a wrong type there does not
compile), so they are not part of the contract.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.d3d12.commands import record
from dmlemu.errors import DXGI_ERROR_DEVICE_REMOVED, DXGI_ERROR_INVALID_CALL, E_INVALIDARG, HResultError, S_OK
from dmlemu.presets import TEACHING
from mirror_rig import MirrorRig, removal
from operator_cases import ACCEPTED, REFUSED, garbage, outcome, scaled


class Objects(MirrorRig):
    """The shared D3D12 rig (teaching adapter, DIRECT queue, allocator, open list, fence) and one object of each
    other kind the calls below take: a DEFAULT and an UPLOAD buffer, a shader-visible descriptor heap (not set on
    the list) and a timestamp query heap."""

    def __init__(self):
        super().__init__(TEACHING)
        self.target = self.buffer(256)
        self.staging = self.buffer(256, D3D12_HEAP_TYPE_UPLOAD)
        self.descriptors = self.shader_visible_heap(4)
        self.queries = self.device.CreateQueryHeap(D3D12_QUERY_HEAP_DESC(Type=D3D12_QUERY_HEAP_TYPE_TIMESTAMP, Count=2))


def _uav(o, g):
    return D3D12_UNORDERED_ACCESS_VIEW_DESC(Format=g[0], ViewDimension=g[1], Buffer=D3D12_BUFFER_UAV(
        FirstElement=g[2], NumElements=g[3], StructureByteStride=g[4], Flags=g[0]))


def _buffer_desc(g):
    return D3D12_RESOURCE_DESC(Dimension=1, Width=g[0], Height=1, DepthOrArraySize=1, MipLevels=1,
                               SampleDesc=DXGI_SAMPLE_DESC(Count=1, Quality=0), Layout=1, Flags=g[1])


# name -> (kind, call): kind "hresult" may raise HResultError only; "void" and "record" raise nothing.
CALLS = {
    "D3D12CreateDevice": ("hresult", lambda o, g: D3D12CreateDevice(g[0], g[1])),
    "CreateCommittedResource": ("hresult", lambda o, g: o.device.CreateCommittedResource(g[0], g[1], g[2], g[3], g[4])),
    "CreateCommittedResource(buffer desc)": ("hresult", lambda o, g: o.device.CreateCommittedResource(
        CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_DEFAULT), 0, _buffer_desc(g), g[2], None)),
    "CreateDescriptorHeap": ("hresult", lambda o, g: o.device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
        Type=g[0], NumDescriptors=g[1], Flags=g[2], NodeMask=g[3]))),
    "CreateCommandQueue": ("hresult", lambda o, g: o.device.CreateCommandQueue(D3D12_COMMAND_QUEUE_DESC(
        Type=g[0], Priority=g[1], Flags=g[2], NodeMask=g[3]))),
    "CreateCommandAllocator": ("hresult", lambda o, g: o.device.CreateCommandAllocator(g[0])),
    "CreateCommandList": ("hresult", lambda o, g: o.device.CreateCommandList(g[0], g[1], g[2], g[3])),
    "CreateCommandList1": ("hresult", lambda o, g: o.device.CreateCommandList1(g[0], g[1], g[2])),
    "CreateFence": ("hresult", lambda o, g: o.device.CreateFence(g[0], g[1])),
    "CreateQueryHeap": ("hresult", lambda o, g: o.device.CreateQueryHeap(D3D12_QUERY_HEAP_DESC(
        Type=g[0], Count=g[1], NodeMask=g[2]))),
    "CheckFeatureSupport": ("hresult", lambda o, g: o.device.CheckFeatureSupport(g[0], g[1])),
    "GetResourceAllocationInfo": ("hresult", lambda o, g: o.device.GetResourceAllocationInfo(g[0], g[1])),
    "GetDescriptorHandleIncrementSize": ("value", lambda o, g: o.device.GetDescriptorHandleIncrementSize(g[0])),
    "GetCustomHeapProperties": ("value", lambda o, g: o.device.GetCustomHeapProperties(g[0], g[1])),
    "Evict": ("hresult", lambda o, g: o.device.Evict(g[0])),
    "SetName": ("hresult", lambda o, g: o.target.SetName(g[0])),
    "Map": ("hresult", lambda o, g: o.staging.Map(g[0], g[1])),
    "Map(range)": ("hresult", lambda o, g: o.staging.Map(0, D3D12_RANGE(Begin=g[0], End=g[1]))),
    "Unmap": ("void", lambda o, g: o.staging.Unmap(g[0], g[1])),
    "CreateUnorderedAccessView": ("void", lambda o, g: o.device.CreateUnorderedAccessView(g[0], g[1], g[2], g[3])),
    "CreateUnorderedAccessView(desc)": ("void", lambda o, g: o.device.CreateUnorderedAccessView(
        o.target, None, _uav(o, g), o.descriptors.GetCPUDescriptorHandleForHeapStart())),
    "CreateShaderResourceView": ("void", lambda o, g: o.device.CreateShaderResourceView(g[0], g[1], g[2])),
    "CreateConstantBufferView": ("void", lambda o, g: o.device.CreateConstantBufferView(
        D3D12_CONSTANT_BUFFER_VIEW_DESC(BufferLocation=g[0], SizeInBytes=g[1]), o.descriptors.GetCPUDescriptorHandleForHeapStart())),
    "CopyDescriptorsSimple": ("void", lambda o, g: o.device.CopyDescriptorsSimple(g[0], g[1], g[2], g[3])),
    "ExecuteCommandLists": ("void", lambda o, g: o.queue.ExecuteCommandLists(g[0])),
    "Signal": ("hresult", lambda o, g: o.queue.Signal(g[0], g[1])),
    "Wait": ("hresult", lambda o, g: o.queue.Wait(o.fence, g[0])),
    "ID3D12Fence::Signal": ("hresult", lambda o, g: o.fence.Signal(g[0])),
    "SetEventOnCompletion": ("hresult", lambda o, g: o.fence.SetEventOnCompletion(g[0], g[1])),
    "Reset": ("hresult", lambda o, g: o.list.Reset(g[0], g[1])),
    "CopyBufferRegion": ("record", lambda o, g: o.list.CopyBufferRegion(o.target, g[0], o.staging, g[1], g[2])),
    "CopyBufferRegion(resources)": ("record", lambda o, g: o.list.CopyBufferRegion(g[0], 0, g[1], 0, g[2])),
    "CopyResource": ("record", lambda o, g: o.list.CopyResource(g[0], g[1])),
    "ResourceBarrier": ("record", lambda o, g: o.list.ResourceBarrier(g[0])),
    "ResourceBarrier(fields)": ("record", lambda o, g: o.list.ResourceBarrier([D3D12_RESOURCE_BARRIER(Type=g[0], Flags=g[1])])),
    "ResourceBarrier(transition)": ("record", lambda o, g: o.list.ResourceBarrier(
        [CD3DX12_RESOURCE_BARRIER.Transition(o.target, g[0], g[1])])),
    "SetDescriptorHeaps": ("record", lambda o, g: o.list.SetDescriptorHeaps(g[0])),
    "EndQuery": ("record", lambda o, g: o.list.EndQuery(o.queries, g[0], g[1])),
    "ResolveQueryData": ("record", lambda o, g: o.list.ResolveQueryData(o.queries, g[0], g[1], g[2], o.target, g[3])),
    "ClearState": ("record", lambda o, g: o.list.ClearState(g[0])),
    "ExecuteBundle": ("record", lambda o, g: o.list.ExecuteBundle(g[0])),
}

_shared = {}


@settings(max_examples=scaled(1200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(CALLS)), args=st.lists(garbage, min_size=5, max_size=5), fresh=st.booleans())
def test_d3d12_methods_only_raise_hresult_errors(name, args, fresh):
    objects = Objects() if fresh or "objects" not in _shared else _shared["objects"]
    _shared.setdefault("objects", objects)
    kind, call = CALLS[name]
    try:
        result = call(objects, args)
    except HResultError:
        assert kind == "hresult"
        outcome(REFUSED)
        return
    outcome(ACCEPTED)   # void and recording methods report misuse through the device, not an exception
    if kind in ("void", "record"):
        assert result is None


# ---- pinned examples of the boundary checks -------------------------------------------------------------------
def test_a_numpy_array_for_an_enum_is_e_invalidarg():
    with pytest.raises(HResultError) as info:
        D3D12CreateDevice(None, np.array([0xB000, 0xC000]))
    assert info.value.hresult == E_INVALIDARG and "MinimumFeatureLevel is array(" in info.value.message
    o = Objects()
    with pytest.raises(HResultError) as info:
        o.device.CreateCommandQueue(D3D12_COMMAND_QUEUE_DESC(Type=np.array([0, 2])))
    assert info.value.hresult == E_INVALIDARG
    assert info.value.message == "CreateCommandQueue: pDesc.Type is array([0, 2]); a queue is DIRECT, COMPUTE or COPY."
    assert o.device.GetDescriptorHandleIncrementSize([0]) == 0 and o.device.GetDescriptorHandleIncrementSize(np.int64(0)) == 32


def test_a_non_sequence_is_e_invalidarg():
    o = Objects()
    with pytest.raises(HResultError) as info:
        o.device.GetResourceAllocationInfo(0, 5)
    assert info.value.message == ("GetResourceAllocationInfo: pResourceDescs is 5; it must be a sequence of "
                                  "D3D12_RESOURCE_DESC (the C count and array).")


def test_a_malformed_recording_argument_puts_the_list_in_its_error_state():
    o = Objects()
    o.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(o.target, None, D3D12_RESOURCE_STATE_COPY_DEST)])
    assert o.device.GetDeviceRemovedReason() == S_OK
    with pytest.raises(HResultError) as info:
        o.list.Close()
    assert info.value.hresult == E_INVALIDARG
    assert info.value.message.endswith(
        "ResourceBarrier: pBarriers[0].Transition.StateBefore is None; it must be a D3D12_RESOURCE_STATES value.")


def test_a_malformed_void_argument_removes_the_device():
    o = Objects()
    o.queue.ExecuteCommandLists(7)   # void in C: device removal, naming the problem
    assert removal(o.device) == (DXGI_ERROR_INVALID_CALL, (
        "ExecuteCommandLists: ppCommandLists must be a sequence of command lists (the C count and array)."))
    with pytest.raises(HResultError) as info:
        o.device.CreateFence(0, 0)
    assert info.value.hresult == DXGI_ERROR_DEVICE_REMOVED


def test_a_malformed_set_descriptor_heaps_argument_fails_close():
    o = Objects()
    o.list.SetDescriptorHeaps(np.float16(2.0))   # a recording method: the list's error state, not removal
    assert o.device.GetDeviceRemovedReason() == S_OK
    with pytest.raises(HResultError) as info:
        o.list.Close()
    assert info.value.hresult == E_INVALIDARG and info.value.message.endswith(
        "SetDescriptorHeaps: ppDescriptorHeaps is np.float16(2.0); it must be a sequence of descriptor heaps (the C "
        "count and array) or None.")


def test_errors_raised_while_a_queue_executes_are_not_argument_errors():
    """An emulator fault inside a command (here a TypeError) is not turned into E_INVALIDARG or a removal sentence:
    it propagates, so emulator bugs stay loud."""
    o = Objects()

    class Broken:
        name = "Broken"

        def execute(self, ctx):
            raise TypeError("an emulator bug")

    record(o.list, Broken())
    o.list.Close()
    with pytest.raises(TypeError, match="an emulator bug"):
        o.queue.ExecuteCommandLists([o.list])


def test_a_huge_cpu_only_descriptor_heap_is_out_of_memory_not_a_numpy_error():
    """CPU-only heaps live in host memory: a heap bigger than a device's share of the host's RAM is
    E_OUTOFMEMORY with a sentence, decided before anything is allocated; the device stays usable."""
    from dmlemu.d3d12 import (D3D12CreateDevice, D3D12_DESCRIPTOR_HEAP_DESC, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV,
                              D3D_FEATURE_LEVEL_11_0)
    from dmlemu.errors import E_OUTOFMEMORY, HResultError
    device = D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0)
    desc = D3D12_DESCRIPTOR_HEAP_DESC(Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=2 ** 32 - 1, Flags=0)
    with pytest.raises(HResultError, match="CPU-only heap needs 137438953440 bytes of host memory") as caught:
        device.CreateDescriptorHeap(desc)
    assert caught.value.hresult == E_OUTOFMEMORY and device.GetDeviceRemovedReason() == 0
    desc.NumDescriptors = 16
    assert device.CreateDescriptorHeap(desc).GetDesc().NumDescriptors == 16


def test_an_array_as_num_queries_is_a_recording_error():
    """Found by the long fuzz profile: NumQueries as a NumPy array raised NumPy's ambiguous-truth ValueError while
    the sentence was being written."""
    o = Objects()
    assert o.list.ResolveQueryData(o.queries, D3D12_QUERY_TYPE_TIMESTAMP, 0, np.zeros((2, 2), np.uint32), o.target,
                                   0) is None
    with pytest.raises(HResultError) as info:
        o.list.Close()
    assert info.value.hresult == E_INVALIDARG and info.value.message.endswith(
        "ResolveQueryData: StartIndex 0 + NumQueries array([[0, 0], [0, 0]], dtype=uint32) passes the end of query "
        "heap #1, which holds 2 queries.")
