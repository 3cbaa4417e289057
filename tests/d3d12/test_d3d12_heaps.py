"""CreateHeap / CreatePlacedResource (emulator/d3d12/heap.py), aliasing, custom heaps, the CD3DX12_HEAP_PROPERTIES
CUSTOM overload, CheckFeatureSupport's D3D12_OPTIONS and ARCHITECTURE1, and UpdateSubresources' d3dx12 form; property
tests of hostile CreateHeap / CreatePlacedResource arguments (only HResultError escapes; a placed resource stays inside
its heap)."""
import gc

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.d3d12 import inspect
from dmlemu.errors import E_INVALIDARG, E_OUTOFMEMORY, HResultError
from dmlemu.presets import IRIS_XE, TEACHING
from mirror_rig import MirrorRig
from operator_cases import ACCEPTED, REFUSED, garbage, outcome, scaled

KB64 = 65536


def heap_desc(size=4 * KB64, heap_type=D3D12_HEAP_TYPE_DEFAULT, flags=D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS, alignment=0,
              properties=None):
    return D3D12_HEAP_DESC(SizeInBytes=size, Properties=properties or CD3DX12_HEAP_PROPERTIES(heap_type),
                           Alignment=alignment, Flags=flags)


def placed(device, heap, offset, width, state=D3D12_RESOURCE_STATE_COMMON, flags=D3D12_RESOURCE_FLAG_NONE):
    return device.CreatePlacedResource(heap, offset, CD3DX12_RESOURCE_DESC.Buffer(width, flags), state, None)


def error(call):
    with pytest.raises(HResultError) as info:
        call()
    return info.value.hresult, info.value.message


def test_placed_resources_on_overlapping_ranges_share_bytes_on_cpu_and_gpu():
    rig = MirrorRig(TEACHING)
    heap = rig.device.CreateHeap(heap_desc(heap_type=D3D12_HEAP_TYPE_UPLOAD))
    a = placed(rig.device, heap, 0, 256, D3D12_RESOURCE_STATE_GENERIC_READ)
    b = placed(rig.device, heap, 0, 128, D3D12_RESOURCE_STATE_GENERIC_READ)
    c = placed(rig.device, heap, KB64, 16, D3D12_RESOURCE_STATE_GENERIC_READ)
    a.Map(0, None)[:8] = np.arange(1, 9, dtype=np.uint8)
    assert np.array_equal(b.Map(0, None)[:8], np.arange(1, 9, dtype=np.uint8))
    assert not c.Map(0, None).any()
    assert a.GetGPUVirtualAddress() == b.GetGPUVirtualAddress() == c.GetGPUVirtualAddress() - KB64
    # the GPU sees the same bytes: a copy out of b reads what was written through a
    default_heap = rig.device.CreateHeap(heap_desc())
    d = placed(rig.device, default_heap, 0, 128)
    e = placed(rig.device, default_heap, 0, 128)
    rig.list.CopyBufferRegion(d, 0, b, 0, 128)
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Aliasing(d, e)])
    rig.execute()
    assert np.array_equal(rig.read(e)[:8], np.arange(1, 9, dtype=np.uint8))
    assert a.GetHeapProperties()[0].Type == D3D12_HEAP_TYPE_UPLOAD


def test_a_heap_lives_while_a_placed_resource_references_it():
    rig = MirrorRig(TEACHING)
    used = rig.memory.used_bytes
    heap = rig.device.CreateHeap(heap_desc())
    buffer = placed(rig.device, heap, 0, 64)
    assert rig.memory.used_bytes == used + 4 * KB64
    del heap
    gc.collect()
    assert rig.memory.used_bytes == used + 4 * KB64 and buffer.GetDesc().Width == 64
    del buffer
    gc.collect()
    assert rig.memory.used_bytes == used


def test_resource_allocation_info_is_what_placement_needs():
    rig = MirrorRig(TEACHING)
    info = rig.device.GetResourceAllocationInfo(0, [CD3DX12_RESOURCE_DESC.Buffer(KB64 + 1)])
    assert (info.SizeInBytes, info.Alignment) == (2 * KB64, KB64)
    heap = rig.device.CreateHeap(heap_desc(size=info.SizeInBytes))
    placed(rig.device, heap, 0, KB64 + 1)
    assert error(lambda: placed(rig.device, heap, KB64, KB64 + 1)) == (E_INVALIDARG, (
        "CreatePlacedResource: HeapOffset 65536 + the buffer's allocation size 131072 (its Width 65537 rounded up to "
        "65536) = 196608 passes the end of heap #1, which is 131072 bytes."))


@pytest.mark.parametrize("make, sentence", [
    (lambda d, h: placed(d, h, 256, 16),
     "CreatePlacedResource: HeapOffset is 256; it must be a multiple of the resource's alignment, 65536."),
    (lambda d, h: placed(d, "heap", 0, 16), "CreatePlacedResource: pHeap is 'heap'; it must be a heap of this device."),
    (lambda d, h: placed(d, d.CreateHeap(heap_desc(flags=D3D12_HEAP_FLAG_DENY_BUFFERS)), 0, 16),
     "CreatePlacedResource: heap #2 was created with D3D12_HEAP_FLAG_DENY_BUFFERS (its flags are 0x4), so no buffer "
     "can be placed in it."),
    (lambda d, h: placed(d, d.CreateHeap(heap_desc(heap_type=D3D12_HEAP_TYPE_READBACK)), 0, 16),
     "CreatePlacedResource: InitialResourceState is D3D12_RESOURCE_STATE_COMMON, but a resource on a "
     "D3D12_HEAP_TYPE_READBACK heap must be created in D3D12_RESOURCE_STATE_COPY_DEST."),
    (lambda d, h: d.CreateHeap(heap_desc(size=0)), "CreateHeap: pDesc.SizeInBytes is 0; a heap is at least 1 byte."),
    (lambda d, h: d.CreateHeap(heap_desc(alignment=4096)),
     "CreateHeap: pDesc.Alignment is 4096; it must be 0, 65536 (D3D12_DEFAULT_RESOURCE_PLACEMENT_ALIGNMENT) or "
     "4194304 (D3D12_DEFAULT_MSAA_RESOURCE_PLACEMENT_ALIGNMENT)."),
    (lambda d, h: d.CreateHeap(heap_desc(flags=0x2)),
     "CreateHeap: pDesc.Flags is 2; it must be a combination of D3D12_HEAP_FLAGS."),
    (lambda d, h: d.CreateHeap("desc"), "CreateHeap: pDesc is 'desc'; it must be a D3D12_HEAP_DESC."),
    (lambda d, h: d.CreateHeap(heap_desc(properties=D3D12_HEAP_PROPERTIES(Type=D3D12_HEAP_TYPE_CUSTOM))),
     "CreateHeap: a D3D12_HEAP_TYPE_CUSTOM heap needs pDesc.Properties.CPUPageProperty and MemoryPoolPreference set "
     "(not UNKNOWN)."),
])
def test_heap_and_placement_rules(make, sentence):
    rig = MirrorRig(TEACHING)
    heap = rig.device.CreateHeap(heap_desc())
    assert error(lambda: make(rig.device, heap)) == (E_INVALIDARG, sentence)
    assert rig.device.GetDeviceRemovedReason() == 0


def test_a_heap_past_the_memory_budget_is_out_of_memory():
    rig = MirrorRig(TEACHING)
    hresult, message = error(lambda: rig.device.CreateHeap(heap_desc(size=rig.memory.capacity_bytes + 1)))
    assert hresult == E_OUTOFMEMORY and message.startswith("CreateHeap: a ")


def test_custom_heap_properties_overload_and_custom_heaps():
    props = CD3DX12_HEAP_PROPERTIES(D3D12_CPU_PAGE_PROPERTY_WRITE_BACK, D3D12_MEMORY_POOL_L0)
    assert (props.Type, props.CPUPageProperty, props.MemoryPoolPreference) == (D3D12_HEAP_TYPE_CUSTOM, 3, 1)
    assert CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_UPLOAD, 1).Type == D3D12_HEAP_TYPE_UPLOAD
    keyword = CD3DX12_HEAP_PROPERTIES(cpuPageProperty=D3D12_CPU_PAGE_PROPERTY_NOT_AVAILABLE,
                                      memoryPoolPreference=D3D12_MEMORY_POOL_L1)
    assert keyword.Type == D3D12_HEAP_TYPE_CUSTOM
    rig = MirrorRig(TEACHING)
    heap = rig.device.CreateHeap(heap_desc(properties=props))
    buffer = placed(rig.device, heap, 0, 64)
    buffer.Map(0, None)[:] = 7   # a CPU-visible (WRITE_BACK) custom heap maps
    discrete = rig.device.GetCustomHeapProperties(0, D3D12_HEAP_TYPE_DEFAULT)
    assert (discrete.CPUPageProperty, discrete.MemoryPoolPreference) == (1, 2)
    uma = MirrorRig(IRIS_XE)
    assert error(lambda: uma.device.CreateHeap(heap_desc(properties=keyword))) == (E_INVALIDARG, (
        "CreateHeap: pDesc.Properties.MemoryPoolPreference is D3D12_MEMORY_POOL_L1, but the adapter is UMA (one "
        "memory pool, L0)."))
    upload = uma.device.GetCustomHeapProperties(0, D3D12_HEAP_TYPE_UPLOAD)
    assert (upload.CPUPageProperty, upload.MemoryPoolPreference) == (3, 1)


def test_check_feature_support_options_and_architecture1():
    rig = MirrorRig(TEACHING)
    options = rig.device.CheckFeatureSupport(D3D12_FEATURE_D3D12_OPTIONS, D3D12_FEATURE_DATA_D3D12_OPTIONS())
    assert (options.ResourceBindingTier, options.ResourceHeapTier, options.TiledResourcesTier) == (2, 2, 0)
    assert options.MaxGPUVirtualAddressBitsPerResource == 40
    arch = rig.device.CheckFeatureSupport(D3D12_FEATURE_ARCHITECTURE1, D3D12_FEATURE_DATA_ARCHITECTURE1())
    assert (arch.UMA, arch.CacheCoherentUMA, arch.IsolatedMMU) == (0, 0, 1)
    uma = MirrorRig(IRIS_XE).device.CheckFeatureSupport(D3D12_FEATURE_ARCHITECTURE1, D3D12_FEATURE_DATA_ARCHITECTURE1())
    assert (uma.UMA, uma.CacheCoherentUMA) == (1, 1)
    assert error(lambda: rig.device.CheckFeatureSupport(D3D12_FEATURE_D3D12_OPTIONS,
                                                        D3D12_FEATURE_DATA_ARCHITECTURE1())) == (E_INVALIDARG, (
        "CheckFeatureSupport: pFeatureSupportData is D3D12_FEATURE_DATA_ARCHITECTURE1(NodeIndex=0, TileBasedRenderer=0, "
        "UMA=0, CacheCoherentUMA=0, IsolatedMMU=0); D3D12_FEATURE_D3D12_OPTIONS fills a "
        "D3D12_FEATURE_DATA_D3D12_OPTIONS."))


def test_update_subresources_with_num_subresources():
    rig = MirrorRig(TEACHING)
    dst = rig.buffer(16)
    upload = rig.buffer(64, D3D12_HEAP_TYPE_UPLOAD)
    data = np.arange(16, dtype=np.uint8)
    assert UpdateSubresources(rig.list, dst, upload, 16, 0, 1, [D3D12_SUBRESOURCE_DATA(pData=data)]) == 16
    assert UpdateSubresources(rig.list, dst, upload, 16, 0, 2, [D3D12_SUBRESOURCE_DATA(pData=data)]) == 0
    rig.execute()
    assert np.array_equal(rig.read(dst), data)


# ---- hostile CreateHeap / CreatePlacedResource arguments ----------------------------------------------------
def mostly(valid):
    """`valid` three times in four, else `garbage` (st.one_of would flatten garbage's many branches and drown it)."""
    return st.integers(0, 3).flatmap(lambda k: valid if k < 3 else garbage)


_HEAP_TYPES = mostly(st.sampled_from([D3D12_HEAP_TYPE_DEFAULT, D3D12_HEAP_TYPE_UPLOAD, D3D12_HEAP_TYPE_READBACK,
                                      D3D12_HEAP_TYPE_CUSTOM]))
_SIZES = mostly(st.one_of(st.integers(-2, 4 * KB64), st.sampled_from([2**30, 2**30 + 1, 2**64, 2**64 - 1])))
_HEAP_DESCS = mostly(st.builds(
    D3D12_HEAP_DESC, SizeInBytes=_SIZES,
    Properties=mostly(_HEAP_TYPES.map(lambda t: D3D12_HEAP_PROPERTIES(Type=t))),
    Alignment=mostly(st.sampled_from([0, 0, KB64, 4 * 1024 * 1024, 1, 4096])),
    Flags=mostly(st.sampled_from([D3D12_HEAP_FLAG_NONE, D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS,
                                  D3D12_HEAP_FLAG_DENY_BUFFERS, D3D12_HEAP_FLAG_SHARED]))))


@settings(max_examples=scaled(300), deadline=None)
@given(desc=_HEAP_DESCS)
def test_hostile_heap_descs_give_a_heap_or_an_hresult_error(desc):
    rig = MirrorRig(TEACHING)
    try:
        heap = rig.device.CreateHeap(desc)
    except HResultError as error:
        assert error.message.startswith("CreateHeap: ")
        outcome(REFUSED)
        return
    outcome(ACCEPTED)
    assert heap.GetDesc().SizeInBytes == desc.SizeInBytes > 0
    assert heap.GetDesc().Alignment in (KB64, 4 * 1024 * 1024)


_VALID_STATES = st.sampled_from([D3D12_RESOURCE_STATE_COMMON, D3D12_RESOURCE_STATE_GENERIC_READ,
                                 D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS])
_STATES = mostly(st.one_of(st.just("the heap's"), _VALID_STATES))
_HEAP_STATE = {D3D12_HEAP_TYPE_DEFAULT: D3D12_RESOURCE_STATE_COMMON,
               D3D12_HEAP_TYPE_UPLOAD: D3D12_RESOURCE_STATE_GENERIC_READ,
               D3D12_HEAP_TYPE_READBACK: D3D12_RESOURCE_STATE_COPY_DEST}


@settings(max_examples=scaled(400), deadline=None)
@given(heap_type=st.sampled_from([D3D12_HEAP_TYPE_DEFAULT, D3D12_HEAP_TYPE_UPLOAD, D3D12_HEAP_TYPE_READBACK]),
       heap_size=st.one_of(st.integers(2, 3).map(lambda k: k * KB64), st.integers(1, 3 * KB64)),
       offset=mostly(st.one_of(st.integers(0, 1).map(lambda k: k * KB64),
                               st.integers(-KB64, 4 * KB64).map(lambda o: o // 4096 * 4096),
                               st.sampled_from([2**64 - KB64, 2**63]))),
       width=mostly(st.one_of(st.integers(1, 2 * KB64), st.integers(-1, 3 * KB64))),
       alignment=st.sampled_from([0, 0, KB64, 4096]),
       flags=st.sampled_from([D3D12_RESOURCE_FLAG_NONE, D3D12_RESOURCE_FLAG_NONE,
                              D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS]),
       state=_STATES, clear=mostly(st.none()), desc_garbage=mostly(st.none()))
def test_a_placed_resource_never_reaches_outside_its_heap(heap_type, heap_size, offset, width, alignment, flags,
                                                          state, clear, desc_garbage):
    """Hostile placements end as a resource wholly inside its heap, or an HResultError; writing every byte of
    the resource through Map changes no heap byte outside [HeapOffset, HeapOffset + Width)."""
    rig = MirrorRig(TEACHING)
    heap = rig.device.CreateHeap(heap_desc(heap_size, heap_type, D3D12_HEAP_FLAG_NONE))
    desc = desc_garbage if desc_garbage is not None else CD3DX12_RESOURCE_DESC.Buffer(width, flags, alignment)
    state = _HEAP_STATE[heap_type] if isinstance(state, str) and state == "the heap's" else state
    try:
        resource = rig.device.CreatePlacedResource(heap, offset, desc, state, clear)
    except HResultError as error:
        assert error.message.startswith("CreatePlacedResource: ")
        outcome(REFUSED)
        return
    outcome(ACCEPTED)
    heap_va, heap_bytes = inspect(heap).gpu_va, inspect(heap).data
    va, size = resource.GetGPUVirtualAddress(), resource.GetDesc().Width
    assert heap_va <= va and va + size <= heap_va + heap_size and va - heap_va == offset
    if heap_type != D3D12_HEAP_TYPE_DEFAULT:
        before = heap_bytes.copy()
        resource.Map(0, None)[:] = 0xA5
        outside = np.ones(heap_bytes.size, bool)
        outside[offset:offset + size] = False
        assert np.array_equal(heap_bytes[outside], before[outside])
        assert np.all(heap_bytes[offset:offset + size] == 0xA5)


def test_arrays_and_none_in_heap_and_state_fields_are_e_invalidarg_sentences():
    """Found by the property tests above: these raised TypeError / ValueError from NumPy comparisons."""
    rig = MirrorRig(TEACHING)
    grid = np.zeros((2, 2), np.uint32)
    assert error(lambda: rig.device.CreateHeap(D3D12_HEAP_DESC(SizeInBytes=KB64, Properties=D3D12_HEAP_PROPERTIES(
        Type=grid)))) == (E_INVALIDARG, "CreateHeap: pDesc.Properties.Type is array([[0, 0], [0, 0]], "
                                        "dtype=uint32); the emulator supports D3D12_HEAP_TYPE_DEFAULT, UPLOAD, "
                                        "READBACK and CUSTOM.")
    assert error(lambda: rig.device.CreateHeap(heap_desc(alignment=grid)))[0] == E_INVALIDARG
    heap = rig.device.CreateHeap(heap_desc())
    assert error(lambda: placed(rig.device, heap, 0, 256, state=None)) == (
        E_INVALIDARG, "CreatePlacedResource: InitialResourceState is None; it must be a D3D12_RESOURCE_STATES.")
    desc = CD3DX12_RESOURCE_DESC.Buffer(256)
    desc.Height = grid
    assert error(lambda: rig.device.CreatePlacedResource(heap, 0, desc, D3D12_RESOURCE_STATE_COMMON, None)) == (
        E_INVALIDARG, "CreatePlacedResource: pDesc.Height is array([[0, 0], [0, 0]], dtype=uint32); a buffer "
                      "must have Height 1.")
