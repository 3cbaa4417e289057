"""dmlemu.d3d12: devices, resources and Map, copies, barriers and resource states, fences and
observation, allocators and command list rules, timestamps, descriptor heaps and views, removal."""
import threading

import numpy as np
import pytest

import dmlemu.d3d12 as d3d12
from dmlemu import HResultError
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.d3d12 import debug as d3d12_debug
from dmlemu.d3d12 import inspect
from dmlemu.d3d12.commands import record
from dmlemu.d3d12.descriptor_heap import HANDLE_SPACE_SHIFT
from dmlemu.functional.buffer_descriptor import DESCRIPTOR_SIZE, unpack_buffer_descriptor
from dmlemu.errors import (DXGI_ERROR_DEVICE_REMOVED, DXGI_ERROR_INVALID_CALL, E_FAIL, E_INVALIDARG, E_NOTIMPL,
                             E_OUTOFMEMORY, S_OK)
from dmlemu.presets import TEACHING
from mirror_rig import MirrorRig, removal

UINT64_MAX = (1 << 64) - 1


# ---- helpers ---------------------------------------------------------------------------------------
@pytest.fixture
def rig(d3d12_rig):
    """The shared D3D12-only rig (tests/mirror_rig.py): teaching adapter, DIRECT queue, allocator, open list, fence."""
    return d3d12_rig


@pytest.fixture
def device(rig):
    return rig.device


def raises(code, call, *args):
    with pytest.raises(HResultError) as error:
        call(*args)
    assert error.value.hresult == code, error.value
    return error.value.message


class Probe:
    """A command of our own, recorded through commands.record; logs what it sees."""
    name = "Probe"

    def __init__(self, log, resource=None, state=None):
        self.log, self.resource, self.state = log, resource, state

    def execute(self, ctx):
        self.log.append((ctx.device, ctx.gpu, ctx.queue, ctx.command_list))
        if self.resource is not None:
            ctx.require_state(self.resource, self.state, "the Probe's resource")


# ---- names and values ----------------------------------------------------------------------------
@pytest.mark.parametrize("name, value", [
    ("D3D_FEATURE_LEVEL_11_0", 0xB000), ("D3D_FEATURE_LEVEL_12_1", 0xC100), ("D3D_FEATURE_LEVEL_1_0_CORE", 0x1000),
    ("D3D12_COMMAND_LIST_TYPE_DIRECT", 0), ("D3D12_COMMAND_LIST_TYPE_BUNDLE", 1),
    ("D3D12_COMMAND_LIST_TYPE_COMPUTE", 2), ("D3D12_COMMAND_LIST_TYPE_COPY", 3),
    ("D3D12_COMMAND_QUEUE_FLAG_NONE", 0), ("D3D12_FENCE_FLAG_NONE", 0),
    ("D3D12_HEAP_TYPE_DEFAULT", 1), ("D3D12_HEAP_TYPE_UPLOAD", 2), ("D3D12_HEAP_TYPE_READBACK", 3),
    ("D3D12_HEAP_TYPE_CUSTOM", 4), ("D3D12_HEAP_FLAG_NONE", 0), ("D3D12_RESOURCE_DIMENSION_BUFFER", 1),
    ("D3D12_RESOURCE_FLAG_NONE", 0), ("D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS", 0x4),
    ("D3D12_RESOURCE_STATE_COMMON", 0), ("D3D12_RESOURCE_STATE_UNORDERED_ACCESS", 0x8),
    ("D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE", 0x40), ("D3D12_RESOURCE_STATE_COPY_DEST", 0x400),
    ("D3D12_RESOURCE_STATE_COPY_SOURCE", 0x800), ("D3D12_RESOURCE_STATE_GENERIC_READ", 0xAC3),
    ("D3D12_RESOURCE_BARRIER_TYPE_TRANSITION", 0), ("D3D12_RESOURCE_BARRIER_TYPE_ALIASING", 1),
    ("D3D12_RESOURCE_BARRIER_TYPE_UAV", 2), ("D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES", 0xFFFFFFFF),
    ("D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV", 0), ("D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER", 1),
    ("D3D12_DESCRIPTOR_HEAP_TYPE_RTV", 2), ("D3D12_DESCRIPTOR_HEAP_TYPE_DSV", 3),
    ("D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE", 1), ("D3D12_UAV_DIMENSION_BUFFER", 1),
    ("D3D12_QUERY_HEAP_TYPE_TIMESTAMP", 1), ("D3D12_QUERY_HEAP_TYPE_COPY_QUEUE_TIMESTAMP", 5),
    ("D3D12_QUERY_TYPE_TIMESTAMP", 2), ("D3D12_FEATURE_D3D12_OPTIONS1", 8), ("D3D12_FEATURE_D3D12_OPTIONS4", 23),
    ("DXGI_FORMAT_R32_TYPELESS", 39), ("E_OUTOFMEMORY", 0x8007000E), ("DXGI_ERROR_DEVICE_REMOVED", 0x887A0005),
])
def test_c_names_and_values(name, value):
    assert name in d3d12.__all__
    assert getattr(d3d12, name) == value


def test_every_name_hello_directml_uses_is_exported():
    needed = ["D3D12CreateDevice", "D3D_FEATURE_LEVEL_11_0", "D3D12_COMMAND_QUEUE_DESC",
              "D3D12_COMMAND_LIST_TYPE_DIRECT", "D3D12_COMMAND_QUEUE_FLAG_NONE", "D3D12_FENCE_FLAG_NONE",
              "D3D12_DESCRIPTOR_HEAP_DESC",
              "D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV", "D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE",
              "CD3DX12_HEAP_PROPERTIES", "D3D12_HEAP_TYPE_DEFAULT", "D3D12_HEAP_FLAG_NONE", "CD3DX12_RESOURCE_DESC",
              "D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS", "D3D12_RESOURCE_STATE_COMMON", "D3D12_HEAP_TYPE_UPLOAD",
              "D3D12_RESOURCE_STATE_GENERIC_READ", "D3D12_RESOURCE_STATE_COPY_DEST", "CD3DX12_RESOURCE_BARRIER",
              "D3D12_RESOURCE_STATE_UNORDERED_ACCESS", "D3D12_QUERY_HEAP_DESC", "D3D12_QUERY_HEAP_TYPE_TIMESTAMP",
              "D3D12_QUERY_TYPE_TIMESTAMP", "D3D12_RESOURCE_STATE_COPY_SOURCE", "D3D12_HEAP_TYPE_READBACK"]
    assert set(needed) <= set(d3d12.__all__)
    assert "CStruct" not in d3d12.__all__


def test_structs_default_to_c_zero_and_helpers_fill_them():
    desc = D3D12_RESOURCE_DESC(Dimension=D3D12_RESOURCE_DIMENSION_BUFFER, Width=16)
    assert (desc.Height, desc.SampleDesc.Count, desc.Layout, desc.Flags) == (0, 0, 0, 0)
    buffer = CD3DX12_RESOURCE_DESC.Buffer(48, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS)
    assert (buffer.Dimension, buffer.Width, buffer.Height, buffer.DepthOrArraySize) == (1, 48, 1, 1)
    assert buffer.MipLevels == 1
    assert (buffer.SampleDesc.Count, buffer.SampleDesc.Quality, buffer.Layout, buffer.Flags) == (1, 0, 1, 4)
    props = CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_UPLOAD)
    assert props == D3D12_HEAP_PROPERTIES(Type=2, CreationNodeMask=1, VisibleNodeMask=1)
    barrier = CD3DX12_RESOURCE_BARRIER.Transition("r", D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_COMMON)
    assert (barrier.Type, barrier.Transition.pResource, barrier.Transition.Subresource) == (0, "r", 0xFFFFFFFF)
    assert CD3DX12_RESOURCE_BARRIER.UAV(None).Type == D3D12_RESOURCE_BARRIER_TYPE_UAV
    barrier.Flags = D3D12_RESOURCE_BARRIER_FLAG_END_ONLY  # structs are mutable
    assert barrier.Flags == 2


# ---- devices -------------------------------------------------------------------------------------
def test_devices_are_independent_and_deterministic():
    a, b = MirrorRig(TEACHING), MirrorRig(TEACHING)
    ra, rb = a.buffer(64, D3D12_HEAP_TYPE_UPLOAD), b.buffer(64, D3D12_HEAP_TYPE_UPLOAD)
    assert ra.GetGPUVirtualAddress() == rb.GetGPUVirtualAddress()   # deterministic: the same address ...
    ra.Map(0, None)[:] = 7
    assert not rb.Map(0, None).any()                                # ... in two separate memories


def test_check_feature_support_reports_the_preset(device):
    options1 = device.CheckFeatureSupport(D3D12_FEATURE_D3D12_OPTIONS1, D3D12_FEATURE_DATA_D3D12_OPTIONS1())
    assert (options1.WaveOps, options1.WaveLaneCountMin, options1.WaveLaneCountMax) == (1, 8, 8)
    assert options1.TotalLaneCount == TEACHING.compute_units * TEACHING.simds_per_cu * 8
    levels = D3D12_FEATURE_DATA_FEATURE_LEVELS(
        pFeatureLevelsRequested=[D3D_FEATURE_LEVEL_11_0, D3D_FEATURE_LEVEL_12_2, D3D_FEATURE_LEVEL_12_0])
    assert device.CheckFeatureSupport(D3D12_FEATURE_FEATURE_LEVELS, levels).MaxSupportedFeatureLevel == 0xC000
    message = raises(E_INVALIDARG, device.CheckFeatureSupport, D3D12_FEATURE_SHADER_MODEL,
                     D3D12_FEATURE_DATA_D3D12_OPTIONS1())
    assert message == ("CheckFeatureSupport: pFeatureSupportData is D3D12_FEATURE_DATA_D3D12_OPTIONS1(WaveOps=0, "
                       "WaveLaneCountMin=0, WaveLaneCountMax=0, TotalLaneCount=0, ExpandedComputeResourceStates=0, "
                       "Int64ShaderOps=0); D3D12_FEATURE_SHADER_MODEL fills a D3D12_FEATURE_DATA_SHADER_MODEL.")


# ---- resources and memory ------------------------------------------------------------------------
def test_out_of_memory_leaves_everything_intact(rig, device):
    memory = rig.memory
    kept = rig.upload_buffer(np.arange(256, dtype=np.uint8))
    used, allocations = memory.used_bytes, memory.allocations
    too_big = TEACHING.dedicated_video_memory - used + 1
    message = raises(E_OUTOFMEMORY, rig.buffer, too_big)
    assert message == (f"CreateCommittedResource: a {too_big}-byte buffer does not fit: the adapter has "
                       f"{TEACHING.dedicated_video_memory} bytes and {used} are in use.")
    assert memory.used_bytes == used and memory.allocations == allocations
    assert np.array_equal(kept.Map(0, None), np.arange(256, dtype=np.uint8))
    assert device.GetDeviceRemovedReason() == S_OK
    rig.buffer(1024)  # the device still allocates


def test_freed_buffers_return_their_memory(rig, device):
    used = rig.memory.used_bytes
    buffer = rig.buffer(4096)
    assert rig.memory.used_bytes == used + 4096
    del buffer
    assert rig.memory.used_bytes == used


def test_heap_states_are_fixed_at_creation(rig):
    upload_desc = CD3DX12_RESOURCE_DESC.Buffer(16)
    message = raises(E_INVALIDARG, rig.device.CreateCommittedResource, CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_UPLOAD),
                     D3D12_HEAP_FLAG_NONE, upload_desc, D3D12_RESOURCE_STATE_COPY_DEST, None)
    assert message == ("CreateCommittedResource: InitialResourceState is D3D12_RESOURCE_STATE_COPY_DEST, but a "
                       "resource on a D3D12_HEAP_TYPE_UPLOAD heap must be created in "
                       "D3D12_RESOURCE_STATE_GENERIC_READ.")
    message = raises(E_INVALIDARG, rig.device.CreateCommittedResource,
                     CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_READBACK), D3D12_HEAP_FLAG_NONE, upload_desc,
                     D3D12_RESOURCE_STATE_GENERIC_READ, None)
    assert message == ("CreateCommittedResource: InitialResourceState is D3D12_RESOURCE_STATE_GENERIC_READ, but a "
                       "resource on a D3D12_HEAP_TYPE_READBACK heap must be created in D3D12_RESOURCE_STATE_COPY_DEST.")
    assert inspect(rig.buffer(16, D3D12_HEAP_TYPE_UPLOAD)).state == D3D12_RESOURCE_STATE_GENERIC_READ
    assert inspect(rig.buffer(16, D3D12_HEAP_TYPE_READBACK)).state == D3D12_RESOURCE_STATE_COPY_DEST
    default = rig.buffer(16, state=D3D12_RESOURCE_STATE_COPY_DEST)  # buffers start in COMMON whatever was asked
    view = inspect(default)
    assert (view.state, view.initial_state) == (D3D12_RESOURCE_STATE_COMMON, D3D12_RESOURCE_STATE_COPY_DEST)


def test_buffer_desc_rules(rig):
    create = rig.device.CreateCommittedResource
    default = CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_DEFAULT)
    bare = D3D12_RESOURCE_DESC(Dimension=D3D12_RESOURCE_DIMENSION_BUFFER, Width=16, Height=1, DepthOrArraySize=1,
                               MipLevels=1, Layout=D3D12_TEXTURE_LAYOUT_ROW_MAJOR)
    message = raises(E_INVALIDARG, create, default, 0, bare, 0, None)
    assert message == ("CreateCommittedResource: pDesc.SampleDesc is DXGI_SAMPLE_DESC(Count=0, Quality=0); a buffer "
                       "must have SampleDesc.Count 1 and Quality 0.")
    assert raises(E_INVALIDARG, create, default, 0, CD3DX12_RESOURCE_DESC.Buffer(0), 0, None) == (
        "CreateCommittedResource: pDesc.Width is 0; a buffer must be at least 1 byte.")
    texture = CD3DX12_RESOURCE_DESC.Buffer(16)
    texture.Dimension = D3D12_RESOURCE_DIMENSION_TEXTURE2D
    assert raises(E_INVALIDARG, create, default, 0, texture, 0, None) == (     # a buffer desc made a texture
        "CreateCommittedResource: pDesc.Layout is D3D12_TEXTURE_LAYOUT_ROW_MAJOR; a row-major texture needs "
        "D3D12_RESOURCE_FLAG_ALLOW_CROSS_ADAPTER, which the emulated adapters do not support "
        "(CrossAdapterRowMajorTextureSupported 0): create it with D3D12_TEXTURE_LAYOUT_UNKNOWN.")
    assert raises(E_INVALIDARG, create, CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_UPLOAD), 0,
                  CD3DX12_RESOURCE_DESC.Buffer(16, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS),
                  D3D12_RESOURCE_STATE_GENERIC_READ, None) == (
        "CreateCommittedResource: pDesc.Flags has D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS, which a buffer on a "
        "D3D12_HEAP_TYPE_UPLOAD heap cannot have.")
    assert raises(E_INVALIDARG, create, default, 0, CD3DX12_RESOURCE_DESC.Buffer(16), 0,
                  D3D12_CLEAR_VALUE()) == "CreateCommittedResource: pOptimizedClearValue must be None for a buffer."
    assert raises(E_INVALIDARG, create, default, 0, CD3DX12_RESOURCE_DESC.Buffer(16), 0x8 | 0x400, None) == (
        "CreateCommittedResource: InitialResourceState D3D12_RESOURCE_STATE_UNORDERED_ACCESS | "
        "D3D12_RESOURCE_STATE_COPY_DEST is not a valid state: it must be COMMON, one write state, or a combination "
        "of read states.")
    got = rig.buffer(16).GetDesc()
    assert (got.Width, got.Alignment) == (16, 65536)


def test_map_rules(rig):
    default = rig.buffer(32)
    default.SetName("weights")
    assert raises(E_INVALIDARG, default.Map, 0, None) == (
        "Map: buffer 'weights' is on a D3D12_HEAP_TYPE_DEFAULT heap, which the CPU cannot map; copy it through an "
        "UPLOAD or READBACK buffer.")
    upload = rig.buffer(32, D3D12_HEAP_TYPE_UPLOAD)
    mapped = upload.Map(0, None)
    assert mapped.dtype == np.uint8 and mapped.shape == (32,) and mapped.flags.writeable
    mapped[:4] = [1, 2, 3, 4]
    again = upload.Map(0, D3D12_RANGE(Begin=0, End=0))  # Map calls nest and see the same bytes
    assert again[:4].tolist() == [1, 2, 3, 4]
    assert rig.read(upload)[:4].tolist() == [1, 2, 3, 4]   # the GPU copies what the CPU wrote through Map
    assert raises(E_INVALIDARG, upload.Map, 1, None) == (
        "Map: Subresource is 1; a buffer has only subresource 0.")
    assert raises(E_INVALIDARG, upload.Map, 0, D3D12_RANGE(Begin=8, End=40)) == (
        "Map: pReadRange is [8, 40); it must satisfy Begin <= End <= 32, the size of buffer #2.")
    upload.Unmap(0, None)
    upload.Unmap(0, None)
    upload.Unmap(0, None)  # one Unmap too many: reported only by the debug layer
    assert rig.device.GetDeviceRemovedReason() == S_OK
    debug = MirrorRig(d3d12_debug=True)            # the same on a device created with the debug layer on
    unmapped = debug.buffer(32, D3D12_HEAP_TYPE_UPLOAD)
    assert raises(DXGI_ERROR_INVALID_CALL, unmapped.Unmap, 0, None) == (
        "Unmap: buffer #1 is not mapped; each Unmap must follow a Map.")


# ---- copies --------------------------------------------------------------------------------------
def test_copies_move_bytes(rig):
    data = np.arange(64, dtype=np.uint8)
    upload = rig.upload_buffer(data)
    middle = rig.buffer(64)
    other = rig.buffer(64)
    readback = rig.buffer(64, D3D12_HEAP_TYPE_READBACK)
    rig.list.CopyBufferRegion(middle, 16, upload, 0, 32)         # middle[16:48] = data[0:32]
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
        middle, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_COPY_SOURCE)])
    rig.list.CopyBufferRegion(other, 0, middle, 16, 8)            # other[0:8] = data[0:8]
    rig.list.CopyBufferRegion(other, 8, upload, 40, 24)           # other[8:32] = data[40:64]
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
        other, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_COPY_SOURCE)])
    rig.list.CopyResource(readback, other)
    rig.execute()
    got = readback.Map(0, None)
    expected = np.zeros(64, np.uint8)
    expected[0:8] = data[0:8]
    expected[8:32] = data[40:64]
    assert np.array_equal(got, expected)


def test_copy_out_of_range_makes_close_fail(rig):
    src, dst = rig.buffer(48, D3D12_HEAP_TYPE_UPLOAD), rig.buffer(32)
    rig.list.CopyBufferRegion(dst, 0, src, 40, 16)
    rig.list.CopyBufferRegion(dst, 30, src, 0, 8)  # later errors do not replace the first
    assert raises(E_INVALIDARG, rig.list.Close) == (
        "Close: command list #1 recorded an invalid call, so it cannot be executed: CopyBufferRegion: SrcOffset 40 + "
        "NumBytes 16 = 56 passes the end of buffer #1, which is 48 bytes.")
    assert rig.device.GetDeviceRemovedReason() == S_OK
    rig.queue.ExecuteCommandLists([rig.list])  # a list that failed to Close cannot run
    assert rig.device.GetDeviceRemovedReason() == DXGI_ERROR_INVALID_CALL
    assert removal(rig.device)[1] == (
        "ExecuteCommandLists: ppCommandLists[0] is command list #1, which failed to Close, so it cannot be executed.")


@pytest.mark.parametrize("record, message", [
    (lambda r, up, a, b, rb: r.list.CopyBufferRegion(a, 0, a, 8, 16),
     "CopyBufferRegion: the source bytes 8 to 24 and destination bytes 0 to 16 of buffer #2 overlap."),
    (lambda r, up, a, b, rb: r.list.CopyBufferRegion(up, 0, a, 0, 16),
     "CopyBufferRegion: the destination buffer #1 is on an UPLOAD heap, which stays in "
     "D3D12_RESOURCE_STATE_GENERIC_READ and cannot be written by the GPU."),
    (lambda r, up, a, b, rb: r.list.CopyResource(a, rb),
     "CopyResource: pDstResource buffer #2 is 32 bytes and pSrcResource buffer #4 is 64; CopyResource needs equal "
     "sizes."),
    (lambda r, up, a, b, rb: r.list.CopyResource(a, a),
     "CopyResource: pDstResource and pSrcResource are both buffer #2; they must differ."),
    (lambda r, up, a, b, rb: r.list.CopyBufferRegion(a, -1, b, 0, 4),
     "CopyBufferRegion: DstOffset is -1; it must be an unsigned 64-bit integer."),
    (lambda r, up, a, b, rb: r.list.CopyBufferRegion(a, 0, "b", 0, 4),
     "CopyBufferRegion: pSrcBuffer is 'b'; it must be a buffer of this device."),
])
def test_copy_recording_errors(rig, record, message):
    upload, a, b, readback = (rig.buffer(32, D3D12_HEAP_TYPE_UPLOAD), rig.buffer(32), rig.buffer(32),
                              rig.buffer(64, D3D12_HEAP_TYPE_READBACK))
    record(rig, upload, a, b, readback)
    assert raises(E_INVALIDARG, rig.list.Close).endswith(message)


def test_debug_layer_reports_a_recording_error_at_the_call():
    rig = MirrorRig(TEACHING, d3d12_debug=True)
    src, dst = rig.buffer(16, D3D12_HEAP_TYPE_UPLOAD), rig.buffer(16)
    assert raises(E_INVALIDARG, rig.list.CopyBufferRegion, dst, 8, src, 0, 16) == (
        "CopyBufferRegion: DstOffset 8 + NumBytes 16 = 24 passes the end of buffer #2, which is 16 bytes.")


def test_the_debug_layer_switch_applies_to_devices_created_after_it(monkeypatch):
    monkeypatch.setattr(d3d12_debug, "_enabled", False)
    before = D3D12CreateDevice(TEACHING, D3D_FEATURE_LEVEL_11_0)
    D3D12GetDebugInterface().EnableDebugLayer()
    after = D3D12CreateDevice(TEACHING, D3D_FEATURE_LEVEL_11_0)

    def copy_error_raises_at_the_call(device):
        rig = MirrorRig(device=device)
        src, dst = rig.buffer(16, D3D12_HEAP_TYPE_UPLOAD), rig.buffer(16)
        try:
            rig.list.CopyBufferRegion(dst, 8, src, 0, 16)   # past the end of dst
        except HResultError:
            return True
        return False

    assert (copy_error_raises_at_the_call(before), copy_error_raises_at_the_call(after)) == (False, True)


# ---- barriers and resource states ---------------------------------------------------------------
def test_states_follow_barriers_at_execution_and_decay_after(rig):
    buffer = rig.buffer(16)
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
        buffer, D3D12_RESOURCE_STATE_COMMON, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)])
    seen = []
    record(rig.list, type("Peek", (), {"execute": lambda self, ctx: seen.append(inspect(buffer).state),
                                       "name": "Peek"})())
    assert inspect(buffer).state == D3D12_RESOURCE_STATE_COMMON  # recording changes nothing
    rig.execute()
    assert seen == [D3D12_RESOURCE_STATE_UNORDERED_ACCESS]
    assert inspect(buffer).state == D3D12_RESOURCE_STATE_COMMON  # buffers decay after ExecuteCommandLists


def test_wrong_state_before_removes_the_device(rig):
    buffer = rig.buffer(16)
    buffer.SetName("output")
    rig.list.ResourceBarrier([
        CD3DX12_RESOURCE_BARRIER.Transition(buffer, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_COPY_SOURCE),
        CD3DX12_RESOURCE_BARRIER.Transition(buffer, D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                            D3D12_RESOURCE_STATE_COMMON)])
    rig.list.Close()
    rig.queue.ExecuteCommandLists([rig.list])
    reason = ("ExecuteCommandLists: ResourceBarrier: barrier 1 gives StateBefore D3D12_RESOURCE_STATE_UNORDERED_ACCESS "
              "for buffer 'output', but at this point of the queue it is in D3D12_RESOURCE_STATE_COPY_SOURCE. (in "
              "command list #1 on command queue #1)")
    assert rig.device.GetDeviceRemovedReason() == DXGI_ERROR_INVALID_CALL
    assert removal(rig.device) == (DXGI_ERROR_INVALID_CALL, reason)
    assert raises(DXGI_ERROR_DEVICE_REMOVED, rig.queue.Signal, rig.fence, 1) == (
        f"Signal: the device was removed earlier (DXGI_ERROR_INVALID_CALL): {reason}")
    assert rig.fence.GetCompletedValue() == UINT64_MAX
    assert raises(DXGI_ERROR_DEVICE_REMOVED, rig.device.CreateFence, 0, 0).startswith("CreateFence: the device was")
    rig.queue.ExecuteCommandLists([rig.list])  # void methods do nothing once the device is removed


def test_debug_layer_raises_execution_errors_at_execute():
    rig = MirrorRig(TEACHING, d3d12_debug=True)
    buffer = rig.buffer(16)
    rig.list.CopyBufferRegion(buffer, 0, rig.buffer(16, D3D12_HEAP_TYPE_UPLOAD), 0, 16)  # promotes to COPY_DEST
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
        buffer, D3D12_RESOURCE_STATE_COPY_SOURCE, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)])
    rig.list.Close()
    message = raises(DXGI_ERROR_INVALID_CALL, rig.queue.ExecuteCommandLists, [rig.list])
    assert message.startswith("ExecuteCommandLists: ResourceBarrier: barrier 0 gives StateBefore "
                              "D3D12_RESOURCE_STATE_COPY_SOURCE for buffer #1, but at this point of the queue it is in "
                              "D3D12_RESOURCE_STATE_COPY_DEST.")


def test_an_access_in_the_wrong_state_removes_the_device(rig):
    upload, buffer, readback = rig.buffer(16, D3D12_HEAP_TYPE_UPLOAD), rig.buffer(16), rig.buffer(16, 3)
    rig.list.CopyBufferRegion(buffer, 0, upload, 0, 16)
    rig.list.CopyBufferRegion(readback, 0, buffer, 0, 16)  # no COPY_DEST -> COPY_SOURCE barrier
    rig.list.Close()
    rig.queue.ExecuteCommandLists([rig.list])
    assert removal(rig.device)[1] == (
        "ExecuteCommandLists: the source of CopyBufferRegion needs buffer #2 in D3D12_RESOURCE_STATE_COPY_SOURCE, but "
        "it is in D3D12_RESOURCE_STATE_COPY_DEST; record a transition barrier first. (in command list #1 on command "
        "queue #1)")


def test_common_buffers_are_promoted_and_read_promotions_accumulate(rig):
    buffer = rig.buffer(16)
    log = []
    record(rig.list, Probe(log, buffer, D3D12_RESOURCE_STATE_COPY_SOURCE))
    record(rig.list, Probe(log, buffer, D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE))
    record(rig.list, type("Peek", (), {"execute": lambda self, ctx: log.append(inspect(buffer).state),
                                       "name": "Peek"})())
    rig.execute()
    assert log[-1] == D3D12_RESOURCE_STATE_COPY_SOURCE | D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE
    assert rig.device.GetDeviceRemovedReason() == S_OK
    record(rig.list, Probe(log, buffer, D3D12_RESOURCE_STATE_UNORDERED_ACCESS))  # a write promotion is final
    record(rig.list, Probe(log, buffer, D3D12_RESOURCE_STATE_COPY_SOURCE))
    rig.list.Close()
    rig.queue.ExecuteCommandLists([rig.list])
    assert removal(rig.device)[1].startswith(
        "ExecuteCommandLists: the Probe's resource needs buffer #1 in D3D12_RESOURCE_STATE_COPY_SOURCE, but it is in "
        "D3D12_RESOURCE_STATE_UNORDERED_ACCESS; record a transition barrier first.")


@pytest.mark.parametrize("barrier, message", [
    (lambda up, b: CD3DX12_RESOURCE_BARRIER.Transition(b, D3D12_RESOURCE_STATE_COPY_DEST,
                                                       D3D12_RESOURCE_STATE_COPY_DEST),
     "ResourceBarrier: pBarriers[0].Transition has StateBefore and StateAfter both D3D12_RESOURCE_STATE_COPY_DEST; a "
     "transition must change the state."),
    (lambda up, b: CD3DX12_RESOURCE_BARRIER.Transition(up, D3D12_RESOURCE_STATE_GENERIC_READ,
                                                       D3D12_RESOURCE_STATE_COPY_DEST),
     "ResourceBarrier: pBarriers[0] transitions buffer #1, which lives on an UPLOAD heap and stays in "
     "D3D12_RESOURCE_STATE_GENERIC_READ."),
    (lambda up, b: CD3DX12_RESOURCE_BARRIER.Transition(b, 0, 0x8 | 0x800),
     "ResourceBarrier: pBarriers[0].Transition.StateAfter D3D12_RESOURCE_STATE_UNORDERED_ACCESS | "
     "D3D12_RESOURCE_STATE_COPY_SOURCE is not a valid state: it must be COMMON, one write state, or a combination of "
     "read states."),
    (lambda up, b: CD3DX12_RESOURCE_BARRIER.Transition(b, 0, 0x8, subresource=1),
     "ResourceBarrier: pBarriers[0].Transition.Subresource is 1; a buffer has only subresource 0 (or "
     "D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES)."),
    (lambda up, b: D3D12_RESOURCE_BARRIER(Type=7),
     "ResourceBarrier: pBarriers[0].Type is 7; it must be TRANSITION, ALIASING or UAV."),
])
def test_barrier_recording_errors(rig, barrier, message):
    upload, buffer = rig.buffer(16, D3D12_HEAP_TYPE_UPLOAD), rig.buffer(16)
    rig.list.ResourceBarrier([barrier(upload, buffer)])
    assert raises(E_INVALIDARG, rig.list.Close).endswith(message)


def test_uav_and_aliasing_barriers_record_and_run(rig):
    buffer = rig.buffer(16)
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.UAV(buffer), CD3DX12_RESOURCE_BARRIER.UAV(None),
                              CD3DX12_RESOURCE_BARRIER.Aliasing(None, buffer)])
    rig.execute()
    assert rig.device.GetDeviceRemovedReason() == S_OK


# ---- fences, observation and allocators -----------------------------------------------------------
def test_fence_gpu_and_cpu_signals(rig):
    fence = rig.device.CreateFence(5, D3D12_FENCE_FLAG_NONE)
    assert fence.GetCompletedValue() == 5
    rig.queue.Signal(fence, 9)
    assert fence.GetCompletedValue() == 9
    fence.Signal(12)
    assert fence.GetCompletedValue() == 12
    fence.SetEventOnCompletion(12, None)  # reached: returns at once
    event = threading.Event()
    fence.SetEventOnCompletion(20, event)
    assert not event.is_set()
    fence.Signal(20)
    assert event.is_set()
    assert raises(E_FAIL, fence.SetEventOnCompletion, 21, None) == (
        "SetEventOnCompletion: fence #2 is at 20 and no submitted work will signal it to 21, so waiting with a NULL "
        f"event would block forever{_other_threads_clause()}.")


def _other_threads_clause():
    """What the sentence adds when other threads are alive (a library's worker thread left by an earlier test, say):
    SetEventOnCompletion then waits for one of them to signal before it gives up."""
    from dmlemu.d3d12.fence import BLOCKING_WAIT_SECONDS
    return "" if threading.active_count() == 1 else f" (no other thread did within {BLOCKING_WAIT_SECONDS:g} s)"


def test_queue_wait_holds_later_work_until_the_fence_is_signalled(rig):
    gate = rig.device.CreateFence(0, D3D12_FENCE_FLAG_NONE)
    log = []
    record(rig.list, Probe(log))
    rig.list.Close()
    rig.queue.Wait(gate, 1)
    rig.queue.ExecuteCommandLists([rig.list])
    rig.queue.Signal(rig.fence, 1)
    assert log == [] and rig.fence.GetCompletedValue() == 0
    assert raises(E_FAIL, rig.fence.SetEventOnCompletion, 1, None).endswith(
        f"; command queue #1 is blocked on a Wait, so waiting with a NULL event would block forever"
        f"{_other_threads_clause()}.")
    gate.Signal(1)  # the CPU opens the gate: the held work runs now
    assert len(log) == 1 and rig.fence.GetCompletedValue() == 1
    rig.allocator.Reset()


def test_cross_queue_wait(rig):
    direct, copy = rig, MirrorRig(device=rig.device, list_type=D3D12_COMMAND_LIST_TYPE_COPY)
    upload = direct.upload_buffer(np.full(16, 3, np.uint8))
    target = direct.buffer(16)
    readback = direct.buffer(16, D3D12_HEAP_TYPE_READBACK)
    direct.list.CopyBufferRegion(target, 0, upload, 0, 16)
    direct.list.Close()
    copy.list.CopyBufferRegion(readback, 0, target, 0, 16)
    copy.list.Close()
    copy.queue.Wait(direct.fence, 1)
    copy.queue.ExecuteCommandLists([copy.list])  # held: the direct queue has not copied yet
    assert not readback.Map(0, None).any()
    direct.queue.ExecuteCommandLists([direct.list])
    direct.queue.Signal(direct.fence, 1)  # releases the copy queue
    assert readback.Map(0, None).tolist() == [3] * 16


def test_allocator_reset_while_in_flight_fails(rig):
    rig.list.Close()
    rig.queue.ExecuteCommandLists([rig.list])
    assert raises(E_FAIL, rig.allocator.Reset) == (
        "Reset: command allocator #1 holds command list #1, executed on command queue #1, whose completion the CPU has "
        "not observed; wait on a fence signalled after that ExecuteCommandLists first.")
    rig.queue.Signal(rig.fence, 1)
    assert raises(E_FAIL, rig.allocator.Reset)  # signalled but not yet observed by the CPU
    assert rig.fence.GetCompletedValue() == 1   # observing it ...
    rig.allocator.Reset()                       # ... lets the allocator go


def test_an_earlier_fence_value_does_not_cover_later_work(rig):
    rig.queue.Signal(rig.fence, 1)
    rig.list.Close()
    rig.queue.ExecuteCommandLists([rig.list])
    rig.fence.SetEventOnCompletion(1, None)
    raises(E_FAIL, rig.allocator.Reset)


def test_allocator_and_list_recording_rules(rig, device):
    assert raises(E_FAIL, rig.allocator.Reset) == (
        "Reset: command allocator #1 is in use by command list #1, which is still recording; Close it first.")
    assert raises(E_INVALIDARG, device.CreateCommandList, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, rig.allocator, None) == (
        "CreateCommandList: command allocator #1 is in use by command list #1, which is still recording; an "
        "allocator backs one recording list at a time.")
    compute = device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COMPUTE)
    assert raises(E_INVALIDARG, device.CreateCommandList, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, compute, None) == (
        "CreateCommandList: command allocator #2 is a D3D12_COMMAND_LIST_TYPE_COMPUTE allocator; the command list is "
        "D3D12_COMMAND_LIST_TYPE_DIRECT.")
    assert raises(E_FAIL, rig.list.Reset, rig.allocator, None) == (
        "Reset: command list #1 is still recording; Close it before Reset.")
    rig.list.Close()
    assert raises(E_FAIL, rig.list.Close) == "Close: command list #1 is already closed; Reset it to record again."
    second = device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, rig.allocator, None)  # allocator is free
    assert second.Close() is None   # it was open
    closed = device.CreateCommandList1(0, D3D12_COMMAND_LIST_TYPE_DIRECT, D3D12_COMMAND_LIST_FLAG_NONE)
    assert raises(E_FAIL, closed.Close) == "Close: command list #3 is already closed; Reset it to record again."
    assert closed.GetType() == D3D12_COMMAND_LIST_TYPE_DIRECT


def test_recording_into_a_closed_list_removes_the_device(rig):
    rig.list.Close()
    upload, buffer = rig.buffer(16, D3D12_HEAP_TYPE_UPLOAD), rig.buffer(16)
    rig.list.CopyBufferRegion(buffer, 0, upload, 0, 16)
    assert removal(rig.device) == (
        DXGI_ERROR_INVALID_CALL, "CopyBufferRegion: command list #1 is closed; Reset it before recording into it.")
    assert raises(DXGI_ERROR_DEVICE_REMOVED, rig.list.Reset, rig.allocator, None).endswith(
        "CopyBufferRegion: command list #1 is closed; Reset it before recording into it.")


def test_record_contract_on_a_closed_list(rig):
    rig.list.Close()
    assert record(rig.list, Probe([])) is False
    assert removal(rig.device) == (
        DXGI_ERROR_INVALID_CALL, "Probe: command list #1 is closed; Reset it before recording into it.")


def test_executing_an_open_list_removes_the_device_and_runs_nothing(rig):
    log = []
    record(rig.list, Probe(log))
    rig.queue.ExecuteCommandLists([rig.list])
    assert log == []
    assert rig.device.GetDeviceRemovedReason() == DXGI_ERROR_INVALID_CALL
    assert removal(rig.device)[1] == (
        "ExecuteCommandLists: ppCommandLists[0] is command list #1, which is still open; Close it before executing it.")


def test_executing_a_list_of_another_type_or_a_stale_list(rig, device):
    copy = MirrorRig(device=device, list_type=D3D12_COMMAND_LIST_TYPE_COPY)
    copy.list.Close()
    rig.queue.ExecuteCommandLists([copy.list])
    assert removal(device)[1] == (
        "ExecuteCommandLists: ppCommandLists[0] is command list #2, a D3D12_COMMAND_LIST_TYPE_COPY list; command queue "
        "#1 is D3D12_COMMAND_LIST_TYPE_DIRECT.")
    other = MirrorRig(TEACHING)
    other.list.Close()
    other.queue.ExecuteCommandLists([other.list])
    other.queue.Signal(other.fence, 1)
    assert other.fence.GetCompletedValue() == 1
    other.allocator.Reset()  # the list recorded before this Reset is now stale
    other.queue.ExecuteCommandLists([other.list])
    assert removal(other.device)[1] == (
        "ExecuteCommandLists: ppCommandLists[0] is command list #1, recorded into command allocator #1, which was "
        "Reset since; Reset the list and record it again.")


def test_commands_run_in_order_with_the_execution_context(rig):
    log = []
    record(rig.list, Probe(log))
    record(rig.list, Probe(log))
    second = rig.device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                          rig.device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT), None)
    record(second, Probe(log))
    second.Close()
    rig.list.Close()
    rig.queue.ExecuteCommandLists([rig.list, second])
    assert [entry[3] for entry in log] == [rig.list, rig.list, second]
    assert all(entry[:3] == (rig.device, rig.gpu, rig.queue) for entry in log)


def test_an_hresult_error_raised_by_a_command_removes_the_device(rig):
    class Failing:
        name = "Failing"

        def execute(self, ctx):
            raise HResultError(E_INVALIDARG, "Failing: the operator was never initialized.")

    log = []
    record(rig.list, Failing())
    record(rig.list, Probe(log))
    rig.list.Close()
    rig.queue.ExecuteCommandLists([rig.list])
    assert log == []  # the rest of the work is dropped
    assert removal(rig.device) == (
        E_INVALIDARG, "ExecuteCommandLists: Failing: the operator was never initialized. (in command list #1 on "
                      "command queue #1)")


def test_bundles_run_inside_direct_lists_only(rig, device):
    bundle_allocator = device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_BUNDLE)
    bundle = device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_BUNDLE, bundle_allocator, None)
    log = []
    record(bundle, Probe(log))
    bundle.Close()
    rig.list.ExecuteBundle(bundle)
    rig.list.ExecuteBundle(bundle)
    rig.execute()
    assert len(log) == 2
    rig.queue.ExecuteCommandLists([bundle])
    assert removal(device)[1] == (
        "ExecuteCommandLists: ppCommandLists[0] is command list #2, a bundle; bundles run only through ExecuteBundle.")


# ---- timestamps ----------------------------------------------------------------------------------
def test_timestamps_are_monotonic_and_measure_gpu_work(rig):
    assert rig.queue.GetTimestampFrequency() == TEACHING.clock_hz > 0
    heap = rig.device.CreateQueryHeap(D3D12_QUERY_HEAP_DESC(Type=D3D12_QUERY_HEAP_TYPE_TIMESTAMP, Count=4))
    upload, target = rig.upload_buffer(np.ones(4096, np.uint8)), rig.buffer(4096)
    readback = rig.buffer(40, D3D12_HEAP_TYPE_READBACK)
    rig.list.EndQuery(heap, D3D12_QUERY_TYPE_TIMESTAMP, 0)
    rig.list.EndQuery(heap, D3D12_QUERY_TYPE_TIMESTAMP, 1)
    rig.list.CopyBufferRegion(target, 0, upload, 0, 4096)
    rig.list.EndQuery(heap, D3D12_QUERY_TYPE_TIMESTAMP, 2)
    rig.list.ResolveQueryData(heap, D3D12_QUERY_TYPE_TIMESTAMP, 0, 4, readback, 8)
    rig.execute()
    ticks = readback.Map(0, None)[8:40].copy().view("<u8")
    assert ticks[0] == ticks[1] < ticks[2]   # no work between 0 and 1; the copy takes time
    assert ticks[3] == 0                     # never written
    # The end of ExecuteCommandLists waits for idle and flushes: the clock ends one flush after the copy.
    assert rig.gpu.clock_cycles - ticks[2] == TEACHING.flush_cycles


def test_timestamps_are_deterministic_across_devices():
    def measure():
        rig = MirrorRig(TEACHING)
        heap = rig.device.CreateQueryHeap(D3D12_QUERY_HEAP_DESC(Type=D3D12_QUERY_HEAP_TYPE_TIMESTAMP, Count=2))
        readback = rig.buffer(16, D3D12_HEAP_TYPE_READBACK)
        rig.list.EndQuery(heap, D3D12_QUERY_TYPE_TIMESTAMP, 0)
        rig.list.CopyBufferRegion(rig.buffer(1000), 0, rig.upload_buffer(np.zeros(1000, np.uint8)), 0, 1000)
        rig.list.EndQuery(heap, D3D12_QUERY_TYPE_TIMESTAMP, 1)
        rig.list.ResolveQueryData(heap, D3D12_QUERY_TYPE_TIMESTAMP, 0, 2, readback, 0)
        rig.execute()
        return readback.Map(0, None).copy()

    assert np.array_equal(measure(), measure())


def test_copy_queues_use_copy_queue_timestamp_heaps(device):
    rig = MirrorRig(device=device, list_type=D3D12_COMMAND_LIST_TYPE_COPY)
    heap = device.CreateQueryHeap(D3D12_QUERY_HEAP_DESC(Type=D3D12_QUERY_HEAP_TYPE_COPY_QUEUE_TIMESTAMP, Count=1))
    rig.list.EndQuery(heap, D3D12_QUERY_TYPE_TIMESTAMP, 0)
    rig.execute()
    wrong = device.CreateQueryHeap(D3D12_QUERY_HEAP_DESC(Type=D3D12_QUERY_HEAP_TYPE_TIMESTAMP, Count=1))
    rig.list.EndQuery(wrong, D3D12_QUERY_TYPE_TIMESTAMP, 0)
    assert raises(E_INVALIDARG, rig.list.Close).endswith(
        "EndQuery: query heap #2 is a TIMESTAMP heap; a COPY list needs a D3D12_QUERY_HEAP_TYPE_COPY_QUEUE_TIMESTAMP "
        "heap.")


@pytest.mark.parametrize("record, message", [
    (lambda r, h, rb: r.list.ResolveQueryData(h, D3D12_QUERY_TYPE_TIMESTAMP, 0, 2, rb, 4),
     "ResolveQueryData: AlignedDestinationBufferOffset is 4; it must be a multiple of 8."),
    (lambda r, h, rb: r.list.ResolveQueryData(h, D3D12_QUERY_TYPE_TIMESTAMP, 0, 2, rb, 16),
     "ResolveQueryData: 2 queries (8 bytes each) from AlignedDestinationBufferOffset 16 pass the end of buffer #1, "
     "which is 24 bytes."),
    (lambda r, h, rb: r.list.ResolveQueryData(h, D3D12_QUERY_TYPE_TIMESTAMP, 1, 2, rb, 0),
     "ResolveQueryData: StartIndex 1 + NumQueries 2 passes the end of query heap #1, which holds 2 queries."),
    (lambda r, h, rb: r.list.EndQuery(h, D3D12_QUERY_TYPE_TIMESTAMP, 2),
     "EndQuery: Index 2 passes the end of query heap #1, which holds 2 queries."),
    (lambda r, h, rb: r.list.EndQuery(h, D3D12_QUERY_TYPE_OCCLUSION, 0),
     "EndQuery: Type is D3D12_QUERY_TYPE_OCCLUSION; query heap #1 holds timestamps, so it must be "
     "D3D12_QUERY_TYPE_TIMESTAMP."),
    (lambda r, h, rb: r.list.BeginQuery(h, D3D12_QUERY_TYPE_TIMESTAMP, 0),
     "BeginQuery: Type is D3D12_QUERY_TYPE_TIMESTAMP; timestamp queries take only EndQuery, and the emulator has no "
     "other queries."),
])
def test_query_recording_errors(rig, record, message):
    heap = rig.device.CreateQueryHeap(D3D12_QUERY_HEAP_DESC(Type=D3D12_QUERY_HEAP_TYPE_TIMESTAMP, Count=2))
    record(rig, heap, rig.buffer(24, D3D12_HEAP_TYPE_READBACK))
    assert raises(E_INVALIDARG, rig.list.Close).endswith(message)


def test_query_heap_creation_rules(device):
    assert raises(E_NOTIMPL, device.CreateQueryHeap, D3D12_QUERY_HEAP_DESC(
        Type=D3D12_QUERY_HEAP_TYPE_OCCLUSION, Count=1)) == (
        "CreateQueryHeap: pDesc.Type is D3D12_QUERY_HEAP_TYPE_OCCLUSION; the emulator has only TIMESTAMP and "
        "COPY_QUEUE_TIMESTAMP query heaps.")
    assert raises(E_INVALIDARG, device.CreateQueryHeap, D3D12_QUERY_HEAP_DESC(Type=1, Count=0)) == (
        "CreateQueryHeap: pDesc.Count is 0; a query heap holds at least 1 query.")


# ---- descriptor heaps and views ------------------------------------------------------------------
def test_descriptor_handle_arithmetic(rig, device):
    increment = device.GetDescriptorHandleIncrementSize(D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV)
    assert increment == DESCRIPTOR_SIZE == 32
    visible = device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
        Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=8, Flags=D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE))
    cpu_only = device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
        Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=8))
    cpu, gpu = visible.GetCPUDescriptorHandleForHeapStart(), visible.GetGPUDescriptorHandleForHeapStart()
    assert gpu.ptr == inspect(visible).gpu_base      # the heap's address in the device's handle space (bits 48 ..)
    address = gpu.ptr % (1 << HANDLE_SPACE_SHIFT)
    assert address == inspect(visible).allocation.gpu_va and rig.memory.resolve(address + 255)[0] is inspect(visible).allocation
    assert cpu_only.GetGPUDescriptorHandleForHeapStart() == D3D12_GPU_DESCRIPTOR_HANDLE(ptr=0)
    other_cpu = cpu_only.GetCPUDescriptorHandleForHeapStart().ptr
    assert other_cpu >= cpu.ptr + 8 * increment + 65536  # separate ranges with a gap
    third = CD3DX12_CPU_DESCRIPTOR_HANDLE(cpu, 3, increment)
    assert third.ptr == cpu.ptr + 96 and CD3DX12_CPU_DESCRIPTOR_HANDLE(cpu, 96) == third
    assert CD3DX12_GPU_DESCRIPTOR_HANDLE(gpu).Offset(7, increment).ptr == gpu.ptr + 224
    assert inspect(device).descriptor_heap_at_cpu_handle(third) is visible
    assert inspect(visible).slot_offset_from_cpu_handle(third) == 96
    assert inspect(visible).slot_offset_from_cpu_handle(third.ptr + 4) is None   # between slots
    assert inspect(device).descriptor_heap_at_cpu_handle(cpu.ptr + 8 * increment) is None  # one past the end
    assert inspect(device).descriptor_heap_at_gpu_handle(gpu.ptr + 7 * increment) is visible
    assert inspect(visible).slot_offset_from_gpu_handle(gpu.ptr + 7 * increment) == 224
    assert inspect(device).descriptor_heap_at_cpu_handle(other_cpu) is cpu_only
    assert inspect(device).descriptor_heap_at_gpu_handle(0) is None


def test_descriptor_heap_creation_rules(device):
    assert raises(E_INVALIDARG, device.CreateDescriptorHeap, D3D12_DESCRIPTOR_HEAP_DESC(
        Type=D3D12_DESCRIPTOR_HEAP_TYPE_RTV, NumDescriptors=1, Flags=1)) == (
        "CreateDescriptorHeap: pDescriptorHeapDesc.Flags has SHADER_VISIBLE, which a D3D12_DESCRIPTOR_HEAP_TYPE_RTV "
        "heap cannot have.")
    assert raises(E_INVALIDARG, device.CreateDescriptorHeap, D3D12_DESCRIPTOR_HEAP_DESC(Type=0, NumDescriptors=0)) == (
        "CreateDescriptorHeap: pDescriptorHeapDesc.NumDescriptors is 0; a heap holds at least 1 descriptor.")


def test_unordered_access_views_write_buffer_descriptors(rig, device):
    heap = device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(Type=0, NumDescriptors=4, Flags=1))
    buffer = rig.buffer(256)
    start = heap.GetCPUDescriptorHandleForHeapStart()
    raw = D3D12_UNORDERED_ACCESS_VIEW_DESC(Format=DXGI_FORMAT_R32_TYPELESS, ViewDimension=D3D12_UAV_DIMENSION_BUFFER,
                                           Buffer=D3D12_BUFFER_UAV(FirstElement=4, NumElements=8,
                                                                   Flags=D3D12_BUFFER_UAV_FLAG_RAW))
    device.CreateUnorderedAccessView(buffer, None, raw, CD3DX12_CPU_DESCRIPTOR_HANDLE(start, 1, 32))
    typed = D3D12_UNORDERED_ACCESS_VIEW_DESC(Format=DXGI_FORMAT_R16_FLOAT, ViewDimension=D3D12_UAV_DIMENSION_BUFFER,
                                             Buffer=D3D12_BUFFER_UAV(FirstElement=0, NumElements=128))
    device.CreateUnorderedAccessView(buffer, None, typed, CD3DX12_CPU_DESCRIPTOR_HANDLE(start, 2, 32))
    data = inspect(heap).data
    va = buffer.GetGPUVirtualAddress()
    assert unpack_buffer_descriptor(data[32:48].view(np.uint32)) == (va + 16, 32, True)
    assert unpack_buffer_descriptor(data[64:80].view(np.uint32)) == (va, 256, True)
    device.CreateUnorderedAccessView(None, None, raw, CD3DX12_CPU_DESCRIPTOR_HANDLE(start, 1, 32))  # null view
    assert not data[32:64].any()
    assert device.GetDeviceRemovedReason() == S_OK


def test_view_misuse_removes_the_device(rig, device):
    heap = device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(Type=0, NumDescriptors=4, Flags=1))
    buffer = rig.buffer(64)
    too_long = D3D12_UNORDERED_ACCESS_VIEW_DESC(Format=DXGI_FORMAT_R32_FLOAT, ViewDimension=D3D12_UAV_DIMENSION_BUFFER,
                                                Buffer=D3D12_BUFFER_UAV(FirstElement=8, NumElements=9))
    device.CreateUnorderedAccessView(buffer, None, too_long, heap.GetCPUDescriptorHandleForHeapStart())
    assert removal(device) == (
        DXGI_ERROR_INVALID_CALL, "CreateUnorderedAccessView: pDesc.Buffer covers bytes 32 to 68 of buffer #1, which is "
                                 "64 bytes.")


def test_view_handle_must_name_a_slot():
    rig = MirrorRig(TEACHING, d3d12_debug=True)
    device = rig.device
    heap = device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(Type=0, NumDescriptors=4, Flags=1))
    desc = D3D12_UNORDERED_ACCESS_VIEW_DESC(Format=DXGI_FORMAT_R32_UINT, ViewDimension=D3D12_UAV_DIMENSION_BUFFER,
                                            Buffer=D3D12_BUFFER_UAV(FirstElement=0, NumElements=4))
    handle = D3D12_CPU_DESCRIPTOR_HANDLE(ptr=heap.GetCPUDescriptorHandleForHeapStart().ptr + 40)
    assert raises(DXGI_ERROR_INVALID_CALL, device.CreateUnorderedAccessView, rig.buffer(16), None, desc, handle) == (
        "CreateUnorderedAccessView: DestDescriptor points 40 bytes into descriptor heap #1, between slots 1 and 2; a "
        "handle must point at the start of a slot.")


def test_copy_descriptors_simple(rig, device):
    staging = device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(Type=0, NumDescriptors=2))
    visible = device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(Type=0, NumDescriptors=4, Flags=1))
    desc = D3D12_UNORDERED_ACCESS_VIEW_DESC(Format=DXGI_FORMAT_R32_UINT, ViewDimension=D3D12_UAV_DIMENSION_BUFFER,
                                            Buffer=D3D12_BUFFER_UAV(FirstElement=0, NumElements=4))
    buffer = rig.buffer(16)
    device.CreateUnorderedAccessView(buffer, None, desc, staging.GetCPUDescriptorHandleForHeapStart())
    device.CopyDescriptorsSimple(1, CD3DX12_CPU_DESCRIPTOR_HANDLE(visible.GetCPUDescriptorHandleForHeapStart(), 3, 32),
                                 staging.GetCPUDescriptorHandleForHeapStart(), D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV)
    assert inspect(visible).descriptor(3) == (
        buffer.GetGPUVirtualAddress(), 16, True)
    device.CopyDescriptorsSimple(1, staging.GetCPUDescriptorHandleForHeapStart(),
                                 visible.GetCPUDescriptorHandleForHeapStart(), 0)
    assert removal(device)[1] == (
        "CopyDescriptorsSimple: SrcDescriptorRangeStart is in descriptor heap #2, which is shader-visible; descriptors "
        "are copied only from heaps that are not shader-visible.")


def test_set_descriptor_heaps(rig, device):
    visible = device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(Type=0, NumDescriptors=4, Flags=1))
    rig.list.SetDescriptorHeaps([visible])
    assert inspect(rig.list).descriptor_heaps == (visible,)
    rig.execute()
    assert inspect(rig.list).descriptor_heaps == ()  # Reset clears list state
    hidden = device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(Type=0, NumDescriptors=4))
    rig.list.SetDescriptorHeaps([hidden])
    assert raises(E_INVALIDARG, rig.list.Close).endswith(
        "SetDescriptorHeaps: ppDescriptorHeaps[0] is descriptor heap #2, which is not shader-visible.")


# ---- d3dx12 --------------------------------------------------------------------------------------
def test_update_subresources_uploads_through_an_intermediate(rig):
    data = np.arange(24, dtype=np.float16)
    target = rig.buffer(data.nbytes)
    intermediate = rig.buffer(GetRequiredIntermediateSize(target, 0, 1), D3D12_HEAP_TYPE_UPLOAD)
    readback = rig.buffer(data.nbytes, D3D12_HEAP_TYPE_READBACK)
    size = UpdateSubresources(rig.list, target, intermediate, 0, 0, [D3D12_SUBRESOURCE_DATA(
        pData=data, RowPitch=data.nbytes, SlicePitch=data.nbytes)])
    assert size == 48
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
        target, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_COPY_SOURCE)])
    rig.list.CopyResource(readback, target)
    rig.execute()
    assert np.array_equal(readback.Map(0, None).view(np.float16), data)


def test_shader_resource_and_constant_buffer_views(rig, device):
    heap = device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(Type=0, NumDescriptors=2, Flags=1))
    buffer = rig.buffer(1024)
    start = heap.GetCPUDescriptorHandleForHeapStart()
    device.CreateShaderResourceView(buffer, D3D12_SHADER_RESOURCE_VIEW_DESC(
        Format=DXGI_FORMAT_UNKNOWN, ViewDimension=D3D12_SRV_DIMENSION_BUFFER,
        Shader4ComponentMapping=D3D12_DEFAULT_SHADER_4_COMPONENT_MAPPING,
        Buffer=D3D12_BUFFER_SRV(FirstElement=2, NumElements=10, StructureByteStride=12)), start)
    va = buffer.GetGPUVirtualAddress()
    device.CreateConstantBufferView(D3D12_CONSTANT_BUFFER_VIEW_DESC(BufferLocation=va + 256, SizeInBytes=512),
                                    CD3DX12_CPU_DESCRIPTOR_HANDLE(start, 1, 32))
    data = inspect(heap).data
    assert unpack_buffer_descriptor(data[0:16].view(np.uint32)) == (va + 24, 120, True)
    assert unpack_buffer_descriptor(data[32:48].view(np.uint32)) == (va + 256, 512, True)
    device.CreateConstantBufferView(D3D12_CONSTANT_BUFFER_VIEW_DESC(BufferLocation=va + 768, SizeInBytes=512), start)
    assert removal(device)[1] == (
        f"CreateConstantBufferView: pDesc covers GPU addresses 0x{va + 768:X} to 0x{va + 1280:X}, which are not inside "
        "one buffer of this device.")


def test_queue_methods_check_their_fence(rig):
    foreign = D3D12CreateDevice(TEACHING, D3D_FEATURE_LEVEL_11_0).CreateFence(0, D3D12_FENCE_FLAG_NONE)
    assert raises(E_INVALIDARG, rig.queue.Signal, foreign, 1) == (
        f"Signal: pFence is {foreign!r}; it must be a fence of this device.")
    assert raises(E_INVALIDARG, rig.queue.Signal, rig.fence, -1) == (
        "Signal: Value is -1; it must be an unsigned 64-bit integer.")


def test_heap_properties_round_trip(rig):
    props, flags = rig.buffer(16, D3D12_HEAP_TYPE_READBACK).GetHeapProperties()
    assert (props.Type, flags) == (D3D12_HEAP_TYPE_READBACK, D3D12_HEAP_FLAG_NONE)
    custom = rig.device.GetCustomHeapProperties(0, D3D12_HEAP_TYPE_UPLOAD)
    buffer = rig.device.CreateCommittedResource(custom, D3D12_HEAP_FLAG_NONE, CD3DX12_RESOURCE_DESC.Buffer(16),
                                                D3D12_RESOURCE_STATE_COMMON, None)
    buffer.Map(0, None)[:] = 5  # a CPU-visible CUSTOM heap maps
    props, _ = buffer.GetHeapProperties()
    assert (props.Type, props.CPUPageProperty, props.MemoryPoolPreference) == (
        D3D12_HEAP_TYPE_CUSTOM, D3D12_CPU_PAGE_PROPERTY_WRITE_COMBINE, D3D12_MEMORY_POOL_L0)
    assert inspect(buffer).state == D3D12_RESOURCE_STATE_COMMON
