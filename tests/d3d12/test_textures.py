"""Textures in the D3D12 mirror (emulator/d3d12/texture_layout.py, copy_texture.py, texture_views.py, clear.py):
creation rules and allocation sizes, CopyTextureRegion both ways with padded row pitches (round trips on random
descs against GetCopyableFootprints' layouts), boxes, CopyResource, typed views, UAV clears on textures, the
texture state rules (promotion, decay), CPU access to CUSTOM textures, hazards per subresource range, and
hostile descs, footprints and copies ending in sentences."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.dxgi import FORMAT_BYTES
from dmlemu.errors import DXGI_ERROR_INVALID_CALL, E_INVALIDARG, E_OUTOFMEMORY, HResultError
from dmlemu.presets import TEACHING
from mirror_rig import MirrorRig, removal

TEX1D, TEX2D, TEX3D = (D3D12_RESOURCE_DIMENSION_TEXTURE1D, D3D12_RESOURCE_DIMENSION_TEXTURE2D,
                       D3D12_RESOURCE_DIMENSION_TEXTURE3D)
UAV = D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS
DEFAULT = CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_DEFAULT)
FORMATS = [DXGI_FORMAT_R8G8B8A8_UNORM, DXGI_FORMAT_R8G8B8A8_UNORM_SRGB, DXGI_FORMAT_B8G8R8A8_UNORM,
           DXGI_FORMAT_R16G16B16A16_FLOAT, DXGI_FORMAT_R32G32B32A32_FLOAT, DXGI_FORMAT_R32_FLOAT, DXGI_FORMAT_R16_FLOAT,
           DXGI_FORMAT_R8_UNORM, DXGI_FORMAT_R32_UINT]


def raises(code, call, *args):
    with pytest.raises(HResultError) as error:
        call(*args)
    assert error.value.hresult == code, error.value
    return error.value.message


def desc_of(dimension=TEX2D, width=16, height=8, depth=1, mips=1, fmt=DXGI_FORMAT_R8G8B8A8_UNORM, flags=0,
            alignment=0, layout=D3D12_TEXTURE_LAYOUT_UNKNOWN):
    return D3D12_RESOURCE_DESC(Dimension=dimension, Alignment=alignment, Width=width, Height=height,
                               DepthOrArraySize=depth, MipLevels=mips, Format=fmt,
                               SampleDesc=DXGI_SAMPLE_DESC(Count=1, Quality=0), Layout=layout, Flags=flags)


def create(rig, desc, state=D3D12_RESOURCE_STATE_COMMON, heap=DEFAULT, heap_flags=0):
    return rig.device.CreateCommittedResource(heap, heap_flags, desc, state, None)


def subresource(resource, index):
    return CD3DX12_TEXTURE_COPY_LOCATION(resource, index)


def footprint_of(resource, layout):
    return CD3DX12_TEXTURE_COPY_LOCATION(resource, layout)


def upload_all(rig, texture, desc, data_of):
    """Upload every subresource (rows from data_of(i), a (depth, rows, row bytes) uint8 array) through
    UpdateSubresources; returns the staging buffer (kept alive until the list executes)."""
    count = len(texture_layouts(rig, desc))
    sources = [D3D12_SUBRESOURCE_DATA(pData=data_of(i).tobytes(), RowPitch=data_of(i).shape[2],
                                      SlicePitch=data_of(i).shape[1] * data_of(i).shape[2]) for i in range(count)]
    size = GetRequiredIntermediateSize(texture, 0, count)
    staging = rig.buffer(size, D3D12_HEAP_TYPE_UPLOAD)
    assert UpdateSubresources(rig.list, texture, staging, 0, 0, count, sources) == size
    return staging


def texture_layouts(rig, desc, base=0):
    mips = desc.MipLevels or max(desc.Width, desc.Height, desc.DepthOrArraySize if desc.Dimension == TEX3D else 1
                                 ).bit_length()
    slices = 1 if desc.Dimension == TEX3D else desc.DepthOrArraySize
    return rig.device.GetCopyableFootprints(desc, 0, mips * slices, base)[0]


def download_all(rig, texture, desc, base):
    """Every subresource's texels, copied into a READBACK buffer at footprints from `base`: [(depth, rows, bytes)]."""
    layouts, rows, sizes, total = rig.device.GetCopyableFootprints(desc, 0, len(texture_layouts(rig, desc)), base)
    readback = rig.buffer(base + total, D3D12_HEAP_TYPE_READBACK)
    for i, layout in enumerate(layouts):
        rig.list.CopyTextureRegion(footprint_of(readback, layout), 0, 0, 0, subresource(texture, i), None)
    rig.execute()
    data = readback.Map(0, None)
    out = []
    for layout, n, size in zip(layouts, rows, sizes):
        f = layout.Footprint
        out.append(np.stack([np.stack([data[layout.Offset + (z * n + y) * f.RowPitch:][:size] for y in range(n)])
                             for z in range(f.Depth)]))
    readback.Unmap(0, None)
    return out


# ---- round trips through padded rows, on random descs ---------------------------------------------------------
@st.composite
def texture_descs(draw):
    dimension = draw(st.sampled_from([TEX1D, TEX2D, TEX3D]))
    width = draw(st.integers(1, 70))
    height = 1 if dimension == TEX1D else draw(st.integers(1, 12))
    depth = draw(st.integers(1, 4 if dimension == TEX3D else 3))
    largest = max(width, height, depth if dimension == TEX3D else 1)
    mips = draw(st.integers(0, largest.bit_length()))
    return desc_of(dimension, width, height, depth, mips, draw(st.sampled_from(FORMATS)))


@settings(max_examples=12, deadline=None)
@given(texture_descs(), st.integers(0, 3), st.randoms(use_true_random=False))
def test_buffer_to_texture_to_buffer_keeps_every_texel(desc, base_blocks, random):
    rig = MirrorRig(TEACHING)
    texture = create(rig, desc, D3D12_RESOURCE_STATE_COPY_DEST)
    layouts = texture_layouts(rig, desc)
    rows = rig.device.GetCopyableFootprints(desc, 0, len(layouts), 0)[1]
    element = FORMAT_BYTES[desc.Format]
    data = [np.frombuffer(random.randbytes(l.Footprint.Depth * n * l.Footprint.Width * element), np.uint8).reshape(
        l.Footprint.Depth, n, l.Footprint.Width * element) for l, n in zip(layouts, rows)]
    staging = upload_all(rig, texture, desc, lambda i: data[i])
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(texture, D3D12_RESOURCE_STATE_COPY_DEST,
                                                                  D3D12_RESOURCE_STATE_COPY_SOURCE)])
    got = download_all(rig, texture, desc, 512 * base_blocks)
    del staging
    assert len(got) == len(data)
    for i, (a, b) in enumerate(zip(got, data)):
        assert np.array_equal(a, b), f"subresource {i}"
    assert removal(rig.device) == (0, "")


@settings(max_examples=25, deadline=None)
@given(texture_descs(), st.sampled_from([0, 4096, 65536]))
def test_allocation_info_covers_the_footprints_and_placing_there_works(desc, alignment):
    rig = MirrorRig(TEACHING)
    desc.Alignment = alignment
    info = rig.device.GetResourceAllocationInfo(0, [desc])
    layouts, rows, sizes, total = rig.device.GetCopyableFootprints(desc, 0, len(texture_layouts(rig, desc)), 0)
    plain = desc._copy()
    plain.Alignment = 0
    kept = inspect(create(rig, plain)).texture   # its own bytes are laid out as its footprints from offset 0
    assert kept.subresources == tuple((l.Offset, l.Footprint.Width, l.Footprint.Height, l.Footprint.Depth,
                                       l.Footprint.RowPitch, size) for l, size in zip(layouts, sizes))
    assert kept.total == total
    assert info.Alignment in (4096, 65536) and info.SizeInBytes % info.Alignment == 0
    assert total <= info.SizeInBytes < total + info.Alignment
    if alignment != 4096:
        assert info.Alignment == 65536
    heap = rig.device.CreateHeap(D3D12_HEAP_DESC(SizeInBytes=2 * info.SizeInBytes + 65536, Properties=DEFAULT))
    desc.Alignment = info.Alignment if alignment == 4096 else alignment   # as D3D12SmallResources asks again
    placed = rig.device.CreatePlacedResource(heap, info.SizeInBytes, desc, D3D12_RESOURCE_STATE_COMMON, None)
    assert placed.GetDesc().Alignment == info.Alignment


@pytest.mark.parametrize("width, height, fmt, small", [
    (64, 64, DXGI_FORMAT_R8G8B8A8_UNORM, True),         # 4 tiles of 32 x 32 texels
    (128, 128, DXGI_FORMAT_R8G8B8A8_UNORM, True),       # 16 tiles: exactly 64 KiB
    (129, 128, DXGI_FORMAT_R8G8B8A8_UNORM, False),      # 20 tiles
    (256, 256, DXGI_FORMAT_R8_UNORM, True),             # 16 tiles of 64 x 64
    (64, 64, DXGI_FORMAT_R32G32B32A32_FLOAT, True),     # 16 tiles of 16 x 16
    (65, 64, DXGI_FORMAT_R32G32B32A32_FLOAT, False),
])
def test_the_small_resource_rule_in_4k_tiles(width, height, fmt, small):
    rig = MirrorRig(TEACHING)
    desc = desc_of(width=width, height=height, fmt=fmt, alignment=4096)
    info = rig.device.GetResourceAllocationInfo(0, [desc])
    assert info.Alignment == (4096 if small else 65536)
    if small:
        assert create(rig, desc).GetDesc().Alignment == 4096
    else:
        assert raises(E_INVALIDARG, create, rig, desc).startswith(
            "CreateCommittedResource: pDesc.Alignment is 4096 (D3D12_SMALL_RESOURCE_PLACEMENT_ALIGNMENT), but the "
            "texture is not a small resource")


def test_a_texture_reports_its_desc_and_no_gpu_address():
    rig = MirrorRig(TEACHING)
    texture = create(rig, CD3DX12_RESOURCE_DESC.Tex2D(DXGI_FORMAT_R16_FLOAT, 100, 10, mipLevels=0))
    desc = texture.GetDesc()
    assert (desc.Alignment, desc.MipLevels, desc.Width, desc.Height) == (65536, 7, 100, 10)
    assert texture.GetGPUVirtualAddress() == 0
    assert repr(texture) == "<ID3D12Resource texture #1>"


# ---- CopyTextureRegion: boxes, texture to texture, CopyResource -------------------------------------------------
def test_a_box_copies_between_textures_at_an_offset():
    rig = MirrorRig(TEACHING)
    desc = desc_of(width=20, height=9, fmt=DXGI_FORMAT_R32_FLOAT)
    a, b = create(rig, desc, D3D12_RESOURCE_STATE_COPY_DEST), create(rig, desc, D3D12_RESOURCE_STATE_COPY_DEST)
    image = np.arange(180, dtype=np.float32).reshape(1, 9, 20)
    zero = np.zeros_like(image)
    staging = [upload_all(rig, a, desc, lambda i: image.view(np.uint8)),
               upload_all(rig, b, desc, lambda i: zero.view(np.uint8))]
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(a, D3D12_RESOURCE_STATE_COPY_DEST,
                                                                  D3D12_RESOURCE_STATE_COPY_SOURCE)])
    rig.list.CopyTextureRegion(subresource(b, 0), 11, 4, 0, subresource(a, 0), CD3DX12_BOX(3, 2, 12, 7))
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(b, D3D12_RESOURCE_STATE_COPY_DEST,
                                                                  D3D12_RESOURCE_STATE_COPY_SOURCE)])
    (got,) = download_all(rig, b, desc, 0)
    del staging
    expected = np.zeros((9, 20), np.float32)
    expected[4:9, 11:20] = image[0, 2:7, 3:12]
    assert np.array_equal(got.view(np.float32)[0], expected)


def test_copy_resource_copies_every_subresource_of_a_texture():
    rig = MirrorRig(TEACHING)
    desc = desc_of(width=9, height=5, depth=2, mips=0, fmt=DXGI_FORMAT_R8G8B8A8_TYPELESS)
    a = create(rig, desc, D3D12_RESOURCE_STATE_COPY_DEST)
    other = desc_of(width=9, height=5, depth=2, mips=0, fmt=DXGI_FORMAT_R8G8B8A8_UNORM)
    b = create(rig, other, D3D12_RESOURCE_STATE_COPY_DEST)
    layouts = texture_layouts(rig, desc)
    rows = rig.device.GetCopyableFootprints(desc, 0, len(layouts), 0)[1]
    data = [np.full((1, n, l.Footprint.Width * 4), i + 1, np.uint8) for i, (l, n) in enumerate(zip(layouts, rows))]
    staging = upload_all(rig, a, desc, lambda i: data[i])
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(a, D3D12_RESOURCE_STATE_COPY_DEST,
                                                                  D3D12_RESOURCE_STATE_COPY_SOURCE)])
    rig.list.CopyResource(b, a)
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(b, D3D12_RESOURCE_STATE_COPY_DEST,
                                                                  D3D12_RESOURCE_STATE_COPY_SOURCE)])
    got = download_all(rig, b, other, 0)
    del staging
    assert [int(g.min()) for g in got] == [int(g.max()) for g in got] == list(range(1, len(layouts) + 1))


def _copy_rig():
    rig = MirrorRig(TEACHING)
    desc = desc_of(width=16, height=8, depth=2, fmt=DXGI_FORMAT_R8G8B8A8_UNORM)
    texture = create(rig, desc, D3D12_RESOURCE_STATE_COPY_DEST)
    layout = rig.device.GetCopyableFootprints(desc, 0, 1, 0)[0][0]
    upload = rig.buffer(4096, D3D12_HEAP_TYPE_UPLOAD)
    return rig, desc, texture, layout, upload


def _placed(offset=0, width=16, height=8, pitch=256, fmt=DXGI_FORMAT_R8G8B8A8_UNORM):
    return D3D12_PLACED_SUBRESOURCE_FOOTPRINT(Offset=offset, Footprint=D3D12_SUBRESOURCE_FOOTPRINT(
        Format=fmt, Width=width, Height=height, Depth=1, RowPitch=pitch))


@pytest.mark.parametrize("record, message", [
    (lambda t, u: (subresource(t, 0), footprint_of(u, _placed(offset=100)), None),
     "pSrc.PlacedFootprint.Offset is 100; a footprint starts at a multiple of D3D12_TEXTURE_DATA_PLACEMENT_ALIGNMENT "
     "(512)."),
    (lambda t, u: (subresource(t, 0), footprint_of(u, _placed(pitch=64)), None),
     "pSrc.PlacedFootprint.Footprint.RowPitch is 64; it must be a multiple of D3D12_TEXTURE_DATA_PITCH_ALIGNMENT (256) "
     "and at least Width 16 x 4 bytes per texel = 64."),
    (lambda t, u: (subresource(t, 0), footprint_of(u, _placed(height=17)), None),
     "pSrc.PlacedFootprint (16 x 17 x 1 texels of DXGI_FORMAT_R8G8B8A8_UNORM, RowPitch 256, from Offset 0) ends at "
     "byte 4160, past the end of buffer #1, which is 4096 bytes."),
    (lambda t, u: (subresource(t, 0), footprint_of(u, _placed(fmt=DXGI_FORMAT_R32_FLOAT)), None),
     "pDst's format DXGI_FORMAT_R8G8B8A8_UNORM and pSrc's DXGI_FORMAT_R32_FLOAT are not copy-compatible; they must be "
     "one format, or members of one typeless family."),
    (lambda t, u: (subresource(t, 2), footprint_of(u, _placed()), None),
     "pDst.SubresourceIndex is 2; texture #1 has subresources 0 to 1."),
    (lambda t, u: (footprint_of(u, _placed()), subresource(t, 0), None),
     "the destination buffer #1 is on an UPLOAD heap, which stays in D3D12_RESOURCE_STATE_GENERIC_READ and cannot be "
     "written by the GPU."),
    (lambda t, u: (subresource(t, 0), subresource(t, 0), None),
     "pDst and pSrc are both subresource 0 (mip 0 of array slice 0) of texture #1; CopyTextureRegion cannot copy a "
     "subresource onto itself."),
    (lambda t, u: (subresource(t, 1), footprint_of(u, _placed()), CD3DX12_BOX(0, 0, 17, 8)),
     "pSrcBox is (left 0, top 0, front 0, right 17, bottom 8, back 1); it passes the edge of the footprint in "
     "buffer #1, which is 16 x 8 x 1 texels."),
    (lambda t, u: (D3D12_TEXTURE_COPY_LOCATION(pResource=u, Type=0), footprint_of(u, _placed()), None),
     "pDst.Type is D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX, but pDst.pResource buffer #1 is a buffer; a buffer side "
     "is a PLACED_FOOTPRINT."),
    (lambda t, u: (D3D12_TEXTURE_COPY_LOCATION(pResource=t, Type=1, PlacedFootprint=_placed()), subresource(t, 1),
                   None),
     "pDst.Type is D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT, but pDst.pResource texture #1 is a texture; a texture "
     "side is a SUBRESOURCE_INDEX."),
])
def test_hostile_copies_end_in_sentences(record, message):
    rig, desc, texture, layout, upload = _copy_rig()
    dst, src, box = record(texture, upload)
    rig.list.CopyTextureRegion(dst, 0, 0, 0, src, box)
    assert raises(E_INVALIDARG, rig.list.Close).endswith("CopyTextureRegion: " + message)


def test_a_box_past_the_destination_and_buffer_only_methods_on_textures():
    rig, desc, texture, layout, upload = _copy_rig()
    rig.list.CopyTextureRegion(subresource(texture, 0), 8, 0, 0, footprint_of(upload, _placed()), None)
    assert raises(E_INVALIDARG, rig.list.Close).endswith(
        "CopyTextureRegion: a 16 x 8 x 1 box at DstX 8, DstY 0, DstZ 0 passes the edge of subresource 0 (mip 0 of "
        "array slice 0) of texture #1, which is 16 x 8 x 1 texels.")
    rig.list.Reset(rig.allocator, None)
    rig.list.CopyBufferRegion(texture, 0, upload, 0, 16)
    assert raises(E_INVALIDARG, rig.list.Close).endswith(
        "CopyBufferRegion: pDstBuffer texture #1 is a texture; CopyBufferRegion takes buffers (copy textures with "
        "CopyTextureRegion or CopyResource).")
    rig.list.Reset(rig.allocator, None)
    rig.list.CopyResource(texture, upload)
    assert raises(E_INVALIDARG, rig.list.Close).endswith(
        "CopyResource: texture #1 is a texture and buffer #1 a buffer; CopyResource copies a texture only to a texture "
        "with the same desc (use CopyTextureRegion with a footprint).")


# ---- creation rules -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("desc, heap, state, message", [
    (desc_of(), CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_UPLOAD), D3D12_RESOURCE_STATE_GENERIC_READ,
     "a D3D12_RESOURCE_DIMENSION_TEXTURE2D with Layout D3D12_TEXTURE_LAYOUT_UNKNOWN cannot live on a "
     "D3D12_HEAP_TYPE_UPLOAD heap; put it on a DEFAULT heap (or a CPU-visible CUSTOM one) and move its rows through an "
     "UPLOAD or READBACK buffer with CopyTextureRegion."),
    (desc_of(alignment=4194304), DEFAULT, 0,
     "pDesc.Alignment is 4194304; that is D3D12_DEFAULT_MSAA_RESOURCE_PLACEMENT_ALIGNMENT, for multisampled textures "
     "only; a texture takes 0, 4096 or 65536."),
    (desc_of(fmt=DXGI_FORMAT_R8G8B8A8_UNORM_SRGB, flags=UAV), DEFAULT, 0,
     "pDesc.Flags has D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS, but Format DXGI_FORMAT_R8G8B8A8_UNORM_SRGB has no "
     "typed unordered-access views (sRGB and depth formats do not); use the UNORM (or TYPELESS) format of the family."),
    (desc_of(flags=D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL), DEFAULT, 0,
     "pDesc.Flags has D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL, but Format is DXGI_FORMAT_R8G8B8A8_UNORM; a "
     "depth-stencil texture needs a depth format (DXGI_FORMAT_D32_FLOAT, DXGI_FORMAT_D16_UNORM)."),
    (desc_of(width=16, height=8, mips=6), DEFAULT, 0,
     "pDesc.MipLevels is 6; a 16 x 8 D3D12_RESOURCE_DIMENSION_TEXTURE2D has 1 to 5 mip levels (0: all of them)."),
    (desc_of(width=0), DEFAULT, 0, "pDesc.Width is 0; a D3D12_RESOURCE_DIMENSION_TEXTURE2D takes 1 to 16384."),
    (desc_of(TEX3D, depth=4096), DEFAULT, 0,
     "pDesc.DepthOrArraySize is 4096; a D3D12_RESOURCE_DIMENSION_TEXTURE3D takes depth, 1 to 2048."),
    (desc_of(layout=D3D12_TEXTURE_LAYOUT_64KB_STANDARD_SWIZZLE), DEFAULT, 0,
     "pDesc.Layout is D3D12_TEXTURE_LAYOUT_64KB_STANDARD_SWIZZLE; the emulated adapters report "
     "StandardSwizzle64KBSupported 0, so a texture takes D3D12_TEXTURE_LAYOUT_UNKNOWN."),
    (desc_of(), DEFAULT, D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
     "InitialResourceState is D3D12_RESOURCE_STATE_UNORDERED_ACCESS, but pDesc.Flags lacks "
     "D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS."),
    (desc_of(fmt=0), DEFAULT, 0,
     "pDesc.Format is 0; a texture needs a DXGI_FORMAT with a size per element (the uncompressed, single-plane "
     "formats of dmlemu.dxgi.DXGI_FORMAT)."),
])
def test_hostile_texture_descs_end_in_sentences(desc, heap, state, message):
    rig = MirrorRig(TEACHING)
    assert raises(E_INVALIDARG, rig.device.CreateCommittedResource, heap, 0, desc, state, None) == (
        "CreateCommittedResource: " + message)


def test_a_heap_that_denies_textures_and_a_placed_texture_past_the_end():
    rig = MirrorRig(TEACHING)
    heap = rig.device.CreateHeap(D3D12_HEAP_DESC(SizeInBytes=131072, Properties=DEFAULT,
                                                 Flags=D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS))
    assert raises(E_INVALIDARG, rig.device.CreatePlacedResource, heap, 0, desc_of(), 0, None) == (
        "CreatePlacedResource: HeapFlags has D3D12_HEAP_FLAG_DENY_NON_RT_DS_TEXTURES, but the texture allows neither "
        "render-target nor depth-stencil use.")
    heap = rig.device.CreateHeap(D3D12_HEAP_DESC(SizeInBytes=131072, Properties=DEFAULT))
    big = desc_of(width=256, height=256)
    assert raises(E_INVALIDARG, rig.device.CreatePlacedResource, heap, 65536, big, 0, None) == (
        "CreatePlacedResource: HeapOffset 65536 + the texture's allocation size 262144 (GetResourceAllocationInfo) = "
        "327680 passes the end of heap #2, which is 131072 bytes.")
    assert raises(E_INVALIDARG, rig.device.CreatePlacedResource, heap, 4096, desc_of(), 0, None) == (
        "CreatePlacedResource: HeapOffset is 4096; it must be a multiple of the texture's alignment, 65536.")


# ---- views and clears ---------------------------------------------------------------------------------------
def _view_rig(desc, state=D3D12_RESOURCE_STATE_UNORDERED_ACCESS):
    rig = MirrorRig(TEACHING, heap_slots=8)
    cpu = rig.device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV,
                                                                     NumDescriptors=8))
    return rig, cpu, create(rig, desc, state)


def _clear(rig, cpu, texture, slot, values, rects=None, uint=False):
    step = rig.device.GetDescriptorHandleIncrementSize(D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV)
    gpu = D3D12_GPU_DESCRIPTOR_HANDLE(ptr=rig.heap.GetGPUDescriptorHandleForHeapStart().ptr + slot * step)
    method = rig.list.ClearUnorderedAccessViewUint if uint else rig.list.ClearUnorderedAccessViewFloat
    method(gpu, _slot(rig, cpu, slot), texture, values, len(rects or ()), rects)


def _slot(rig, heap, slot):
    step = rig.device.GetDescriptorHandleIncrementSize(D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV)
    return D3D12_CPU_DESCRIPTOR_HANDLE(ptr=heap.GetCPUDescriptorHandleForHeapStart().ptr + slot * step)


def _uav(rig, cpu, texture, desc, slot=0):
    for heap in (cpu, rig.heap):
        rig.device.CreateUnorderedAccessView(texture, None, desc, _slot(rig, heap, slot))


def _read_back(rig, texture, desc):
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(texture, D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                                                  D3D12_RESOURCE_STATE_COPY_SOURCE)])
    return download_all(rig, texture, desc, 0)


@pytest.mark.parametrize("fmt, values, uint, texel", [
    (DXGI_FORMAT_R8G8B8A8_UNORM, [0.5, 1.5, -1.0, 0.2], False, [128, 255, 0, 51]),
    (DXGI_FORMAT_B8G8R8A8_UNORM, [1.0, 0.0, 0.5, 1.0], False, [128, 0, 255, 255]),     # B, G, R, A in memory
    (DXGI_FORMAT_R16_FLOAT, [65536.0, 0, 0, 0], False, list(np.float16(np.inf).tobytes())),
    (DXGI_FORMAT_R32_FLOAT, [-0.0, 0, 0, 0], False, list(np.float32(-0.0).tobytes())),
    (DXGI_FORMAT_R16G16B16A16_FLOAT, [1.0, 2.0, 0.5, -3.0], False, list(np.float16([1, 2, 0.5, -3]).tobytes())),
    (DXGI_FORMAT_R32_UINT, [0xDEADBEEF, 1, 2, 3], True, list(np.uint32(0xDEADBEEF).tobytes())),
    (DXGI_FORMAT_R8_UNORM, [7, 0, 0, 0], True, [7]),
])
def test_a_rect_clear_of_a_texture_array_slice(fmt, values, uint, texel):
    desc = desc_of(width=11, height=6, depth=3, mips=2, fmt=fmt, flags=UAV)
    rig, cpu, texture = _view_rig(desc)
    uav = D3D12_UNORDERED_ACCESS_VIEW_DESC(Format=fmt, ViewDimension=D3D12_UAV_DIMENSION_TEXTURE2DARRAY,
                                           Texture2DArray=D3D12_TEX2D_ARRAY_UAV(MipSlice=0, FirstArraySlice=1,
                                                                                ArraySize=2))
    _uav(rig, cpu, texture, uav)
    _clear(rig, cpu, texture, 0, values, [D3D12_RECT(left=3, top=1, right=9, bottom=4)], uint)
    got = _read_back(rig, texture, desc)
    element = FORMAT_BYTES[fmt]
    for index, data in enumerate(got):
        texels = data[0].reshape(data.shape[1], -1, element)
        cleared = np.zeros(texels.shape[:2], bool)
        if index in (2, 4):        # mip 0 of array slices 1 and 2
            cleared[1:4, 3:9] = True
        assert (texels[cleared] == np.array(texel, np.uint8)).all(), index
        assert not texels[~cleared].any(), index
    assert removal(rig.device) == (0, "")


def test_a_texture3d_uav_clears_its_depth_slices_and_an_srv_takes_every_mip():
    desc = desc_of(TEX3D, width=5, height=4, depth=6, mips=1, fmt=DXGI_FORMAT_R32_UINT, flags=UAV)
    rig, cpu, texture = _view_rig(desc)
    _uav(rig, cpu, texture, D3D12_UNORDERED_ACCESS_VIEW_DESC(
        Format=DXGI_FORMAT_R32_UINT, ViewDimension=D3D12_UAV_DIMENSION_TEXTURE3D,
        Texture3D=D3D12_TEX3D_UAV(MipSlice=0, FirstWSlice=4, WSize=-1)))
    _clear(rig, cpu, texture, 0, [9, 0, 0, 0], uint=True)
    (got,) = _read_back(rig, texture, desc)
    assert (got.view("<u4")[:4] == 0).all() and (got.view("<u4")[4:] == 9).all()
    rig.device.CreateShaderResourceView(texture, None, _slot(rig, cpu, 1))
    assert removal(rig.device) == (0, "")


@pytest.mark.parametrize("make, message", [
    (lambda t: ("uav", desc_of(flags=0), None),
     "texture #1 was created without D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS, so it cannot have an unordered-access "
     "view."),
    (lambda t: ("uav", desc_of(flags=UAV), D3D12_UNORDERED_ACCESS_VIEW_DESC(
        Format=DXGI_FORMAT_R8G8B8A8_UNORM, ViewDimension=D3D12_UAV_DIMENSION_TEXTURE3D)),
     "pDesc.ViewDimension is D3D12_UAV_DIMENSION_TEXTURE3D, but texture #1 is a Texture2D; its unordered-access view "
     "is D3D12_UAV_DIMENSION_TEXTURE2D or D3D12_UAV_DIMENSION_TEXTURE2DARRAY."),
    (lambda t: ("uav", desc_of(flags=UAV, fmt=DXGI_FORMAT_R8G8B8A8_TYPELESS), D3D12_UNORDERED_ACCESS_VIEW_DESC(
        Format=DXGI_FORMAT_R8G8B8A8_UNORM_SRGB, ViewDimension=D3D12_UAV_DIMENSION_TEXTURE2D)),
     "pDesc.Format is DXGI_FORMAT_R8G8B8A8_UNORM_SRGB, which has no typed unordered-access views (sRGB and depth "
     "formats do not)."),
    (lambda t: ("uav", desc_of(flags=UAV), D3D12_UNORDERED_ACCESS_VIEW_DESC(
        Format=DXGI_FORMAT_R32_FLOAT, ViewDimension=D3D12_UAV_DIMENSION_TEXTURE2D)),
     "pDesc.Format is DXGI_FORMAT_R32_FLOAT, but texture #1 is DXGI_FORMAT_R8G8B8A8_UNORM; a view takes the texture's "
     "format, or a member of its TYPELESS family."),
    (lambda t: ("srv", desc_of(fmt=DXGI_FORMAT_R8G8B8A8_TYPELESS), None),
     "pDesc is None, but texture #1 is DXGI_FORMAT_R8G8B8A8_TYPELESS; a TYPELESS texture's view needs a desc with a "
     "typed format."),
    (lambda t: ("srv", desc_of(mips=2), D3D12_SHADER_RESOURCE_VIEW_DESC(
        Format=DXGI_FORMAT_R8G8B8A8_UNORM, ViewDimension=D3D12_SRV_DIMENSION_TEXTURE2D,
        Texture2D=D3D12_TEX2D_SRV(MostDetailedMip=1, MipLevels=2))),
     "pDesc.Texture2D.MipLevels is 2; from MostDetailedMip 1 texture #1 has 1 mip levels (1 to 1, or -1 for all of "
     "them)."),
    (lambda t: ("srv", desc_of(depth=2), D3D12_SHADER_RESOURCE_VIEW_DESC(
        Format=DXGI_FORMAT_R8G8B8A8_UNORM, ViewDimension=D3D12_SRV_DIMENSION_TEXTURE2DARRAY,
        Texture2DArray=D3D12_TEX2D_ARRAY_SRV(MipLevels=-1, FirstArraySlice=1, ArraySize=2))),
     "pDesc.Texture2DArray has FirstArraySlice 1 and ArraySize 2; texture #1 has 2 array slices (0 to 1), and a view "
     "covers at least one."),
    (lambda t: ("srv", desc_of(), D3D12_SHADER_RESOURCE_VIEW_DESC(
        Format=DXGI_FORMAT_R8G8B8A8_UNORM, ViewDimension=D3D12_SRV_DIMENSION_TEXTURECUBE)),
     "pDesc.ViewDimension is D3D12_SRV_DIMENSION_TEXTURECUBE; a Texture2D's shader-resource view is "
     "D3D12_SRV_DIMENSION_TEXTURE2D or D3D12_SRV_DIMENSION_TEXTURE2DARRAY (multisampled and cube views are not "
     "emulated)."),
])
def test_hostile_texture_views_remove_the_device_with_a_sentence(make, message):
    kind, desc, view = make(None)
    rig, cpu, texture = _view_rig(desc, D3D12_RESOURCE_STATE_COMMON)
    if kind == "uav":
        rig.device.CreateUnorderedAccessView(texture, None, view, _slot(rig, cpu, 0))
    else:
        rig.device.CreateShaderResourceView(texture, view, _slot(rig, cpu, 0))
    reason, sentence = removal(rig.device)
    assert reason == DXGI_ERROR_INVALID_CALL and sentence.endswith(message), sentence


# ---- states and hazards -------------------------------------------------------------------------------------
def test_a_common_texture_is_not_promoted_to_unordered_access():
    desc = desc_of(flags=UAV, fmt=DXGI_FORMAT_R32_FLOAT)
    rig, cpu, texture = _view_rig(desc, D3D12_RESOURCE_STATE_COMMON)
    _uav(rig, cpu, texture, None)
    _clear(rig, cpu, texture, 0, [1.0, 0, 0, 0])
    rig.list.Close()
    rig.queue.ExecuteCommandLists([rig.list])
    reason, sentence = removal(rig.device)
    assert reason == DXGI_ERROR_INVALID_CALL and sentence.startswith(
        "ExecuteCommandLists: the resource of ClearUnorderedAccessViewFloat needs texture #1 in "
        "D3D12_RESOURCE_STATE_UNORDERED_ACCESS, but it is in D3D12_RESOURCE_STATE_COMMON; a texture is not implicitly "
        "promoted from COMMON to a write state other than COPY_DEST; record a transition barrier first.")


def test_a_texture_promoted_to_copy_dest_does_not_decay_but_one_read_does():
    rig, desc, texture, layout, upload = _copy_rig()
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(texture, D3D12_RESOURCE_STATE_COPY_DEST,
                                                                  D3D12_RESOURCE_STATE_COMMON)])
    rig.execute()
    rig.list.CopyTextureRegion(subresource(texture, 0), 0, 0, 0, footprint_of(upload, _placed()), None)
    rig.execute()                                      # promoted to COPY_DEST, a write state: it stays there
    assert inspect(texture).subresource_states == (D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_COMMON)
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(texture, D3D12_RESOURCE_STATE_COPY_DEST,
                                                                  D3D12_RESOURCE_STATE_COMMON)])
    readback = rig.buffer(4096, D3D12_HEAP_TYPE_READBACK)
    rig.list.CopyTextureRegion(footprint_of(readback, _placed()), 0, 0, 0, subresource(texture, 0), None)
    rig.execute()                                      # promoted to COPY_SOURCE, read-only: it decays
    assert inspect(texture).state == D3D12_RESOURCE_STATE_COMMON
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(texture, D3D12_RESOURCE_STATE_COMMON,
                                                                  D3D12_RESOURCE_STATE_COPY_DEST, 2)])
    assert raises(E_INVALIDARG, rig.list.Close).endswith(
        "ResourceBarrier: pBarriers[0].Transition.Subresource is 2; texture #1 has subresources 0 to 1 (or "
        "D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES).")


def test_states_are_tracked_per_subresource():
    rig = MirrorRig(TEACHING)
    desc = desc_of(width=8, height=8, mips=2, fmt=DXGI_FORMAT_R32_FLOAT, flags=UAV)
    texture = create(rig, desc)                                   # COMMON
    rig.list.CopyTextureRegion(subresource(texture, 1), 0, 0, 0, subresource(texture, 0), CD3DX12_BOX(0, 0, 4, 4))
    rig.execute()        # mip 0 promoted to COPY_SOURCE (decays), mip 1 to COPY_DEST (stays): no conflict
    assert inspect(texture).subresource_states == (D3D12_RESOURCE_STATE_COMMON, D3D12_RESOURCE_STATE_COPY_DEST)
    assert inspect(texture).state is None and removal(rig.device) == (0, "")
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(texture, D3D12_RESOURCE_STATE_COPY_DEST,
                                                                  D3D12_RESOURCE_STATE_UNORDERED_ACCESS, 1)])
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(texture, D3D12_RESOURCE_STATE_COMMON,
                                                                  D3D12_RESOURCE_STATE_UNORDERED_ACCESS, 0)])
    rig.execute()
    assert inspect(texture).state == D3D12_RESOURCE_STATE_UNORDERED_ACCESS
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(texture, D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                                                  D3D12_RESOURCE_STATE_COPY_SOURCE, 0)])
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(texture, D3D12_RESOURCE_STATE_COPY_SOURCE,
                                                                  D3D12_RESOURCE_STATE_COPY_DEST, 1)])
    rig.list.Close()
    rig.queue.ExecuteCommandLists([rig.list])
    reason, sentence = removal(rig.device)
    assert reason == DXGI_ERROR_INVALID_CALL and sentence.startswith(
        "ExecuteCommandLists: ResourceBarrier: barrier 0 gives StateBefore D3D12_RESOURCE_STATE_COPY_SOURCE for "
        "texture #1 (subresource 1 (mip 1 of array slice 0)), but at this point of the queue it is in "
        "D3D12_RESOURCE_STATE_UNORDERED_ACCESS."), sentence


def test_the_hazard_tracker_sees_texture_subresources_as_ranges():
    desc = desc_of(width=8, height=4, depth=2, fmt=DXGI_FORMAT_R32_UINT, flags=UAV)
    rig, cpu, texture = _view_rig(desc)
    for slot, first in ((0, 0), (1, 1)):
        _uav(rig, cpu, texture, D3D12_UNORDERED_ACCESS_VIEW_DESC(
            Format=DXGI_FORMAT_R32_UINT, ViewDimension=D3D12_UAV_DIMENSION_TEXTURE2DARRAY,
            Texture2DArray=D3D12_TEX2D_ARRAY_UAV(FirstArraySlice=first, ArraySize=1)), slot)
    _clear(rig, cpu, texture, 0, [1, 0, 0, 0], uint=True)
    _clear(rig, cpu, texture, 1, [2, 0, 0, 0], uint=True)      # another subresource: no hazard
    rig.execute()
    assert inspect(rig.device).hazard_count == 0
    _clear(rig, cpu, texture, 1, [3, 0, 0, 0], uint=True)
    _clear(rig, cpu, texture, 1, [4, 0, 0, 0], uint=True)      # the same one, no UAV barrier: write-after-write
    rig.execute()
    assert inspect(rig.device).hazard_count == 1


# ---- CPU access ---------------------------------------------------------------------------------------------
def test_map_and_write_and_read_subresource_on_cpu_visible_textures():
    rig = MirrorRig(TEACHING)
    desc = desc_of(width=6, height=5, fmt=DXGI_FORMAT_R16_FLOAT)
    default = create(rig, desc)
    assert raises(E_INVALIDARG, default.Map, 0, None) == (
        "Map: texture #1 is on a D3D12_HEAP_TYPE_DEFAULT heap, which the CPU cannot map; copy it through an UPLOAD or "
        "READBACK buffer.")
    custom = create(rig, desc, heap=CD3DX12_HEAP_PROPERTIES(D3D12_CPU_PAGE_PROPERTY_WRITE_BACK, D3D12_MEMORY_POOL_L0))
    rows = np.arange(30, dtype=np.float16).reshape(5, 6)
    assert raises(E_INVALIDARG, custom.WriteToSubresource, 0, None, rows.tobytes(), 12, 60) == (
        "WriteToSubresource: texture #2 is not mapped; call Map(0, None) first.")
    assert custom.Map(0, None) is None
    custom.WriteToSubresource(0, None, rows.tobytes(), 12, 60)
    out = np.zeros((3, 8), np.float16)
    custom.ReadFromSubresource(out, 16, 48, 0, CD3DX12_BOX(1, 2, 4, 5))
    assert np.array_equal(out[:, :3], rows[2:5, 1:4]) and not out[:, 3:].any()
    assert raises(E_INVALIDARG, custom.ReadFromSubresource, out, 16, 48, 0, None) == (
        "ReadFromSubresource: row 3 of depth slice 0 (12 bytes with DstRowPitch 16 and DstDepthPitch 48) ends at byte "
        "60, past the 48 bytes of the CPU data.")
    assert raises(E_INVALIDARG, custom.ReadFromSubresource, out, 16, 48, 0, CD3DX12_BOX(0, 0, 7, 1)) == (
        "ReadFromSubresource: pSrcBox is (left 0, top 0, front 0, right 7, bottom 1, back 1); it passes the edge of "
        "subresource 0 (mip 0 of array slice 0), which is 6 x 5 x 1 texels.")
    custom.Unmap(0, None)


def test_the_debug_layer_reports_a_bad_footprint_with_d3d12s_message_id():
    rig = MirrorRig(TEACHING, d3d12_debug=True)
    texture = create(rig, desc_of(), D3D12_RESOURCE_STATE_COPY_DEST)
    upload = rig.buffer(4096, D3D12_HEAP_TYPE_UPLOAD)
    with pytest.raises(D3D12DebugBreak) as error:
        rig.list.CopyTextureRegion(subresource(texture, 0), 0, 0, 0, footprint_of(upload, _placed(offset=256)), None)
    assert error.value.id == D3D12_MESSAGE_ID_COPYTEXTUREREGION_INVALIDSRCOFFSET == 864
    assert error.value.category == D3D12_MESSAGE_CATEGORY_RESOURCE_MANIPULATION


_ANY = st.one_of(st.integers(-2, 5), st.integers(0, 2**64 + 1), st.sampled_from([None, 1.5, "2", True]))


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([TEX1D, TEX2D, TEX3D]), _ANY, _ANY, _ANY, _ANY,
       st.one_of(st.sampled_from(FORMATS + [0, 2, 87, 91, 40, 999]), _ANY),
       st.one_of(st.sampled_from([0, 4096, 65536, 4194304]), _ANY), st.one_of(st.integers(0, 3), _ANY),
       st.one_of(st.integers(0, 0x1FF), _ANY), st.sampled_from([(1, 0), (4, 0), (1, 1), (0, 0)]))
def test_random_hostile_descs_create_a_texture_or_end_in_a_sentence(dimension, width, height, depth, mips, fmt,
                                                                    alignment, layout, flags, sample):
    rig = MirrorRig(TEACHING)
    desc = D3D12_RESOURCE_DESC(Dimension=dimension, Alignment=alignment, Width=width, Height=height,
                               DepthOrArraySize=depth, MipLevels=mips, Format=fmt,
                               SampleDesc=DXGI_SAMPLE_DESC(Count=sample[0], Quality=sample[1]), Layout=layout,
                               Flags=flags)
    try:
        info = rig.device.GetResourceAllocationInfo(0, [desc])
        assert info.Alignment in (4096, 65536) and info.SizeInBytes % info.Alignment == 0
    except HResultError as error:
        assert error.hresult == E_INVALIDARG and error.message.startswith("GetResourceAllocationInfo: "), error
    try:
        texture = create(rig, desc)
    except HResultError as error:
        assert error.hresult in (E_INVALIDARG, E_OUTOFMEMORY), error
        assert error.message.startswith("CreateCommittedResource: ") and error.message.endswith("."), error.message
        return
    layouts = texture_layouts(rig, texture.GetDesc())
    assert inspect(texture).width == rig.device.GetCopyableFootprints(texture.GetDesc(), 0, len(layouts), 0)[3]


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 40), st.integers(1, 6), st.sampled_from([DXGI_FORMAT_R8_UNORM, DXGI_FORMAT_R32_FLOAT]),
       st.sampled_from([0, 512, 100]), st.sampled_from([256, 512, 128]), st.integers(0, 45), st.integers(0, 7),
       st.one_of(st.none(), st.tuples(st.integers(0, 42), st.integers(0, 7), st.integers(0, 42), st.integers(0, 7))),
       st.integers(1, 48), st.integers(1, 8))
def test_texture_to_footprint_copies_match_a_model_or_end_in_a_sentence(width, height, fmt, offset, pitch, x, y, box,
                                                                        fp_width, fp_height):
    """A random box of a texture copied to (x, y) of a random footprint in a READBACK buffer: either Close names
    the rule broken, or every texel lands where the footprint math puts it and nothing else changes."""
    rig = MirrorRig(TEACHING)
    desc = desc_of(width=width, height=height, fmt=fmt)
    texture = create(rig, desc, D3D12_RESOURCE_STATE_COPY_DEST)
    element = FORMAT_BYTES[fmt]
    image = (np.arange(height * width * element, dtype=np.uint32) * 7 % 251 + 1).astype(np.uint8).reshape(
        1, height, width * element)
    staging = upload_all(rig, texture, desc, lambda i: image)
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(texture, D3D12_RESOURCE_STATE_COPY_DEST,
                                                                  D3D12_RESOURCE_STATE_COPY_SOURCE)])
    rig.execute()
    readback = rig.buffer(4096, D3D12_HEAP_TYPE_READBACK)
    placed = _placed(offset, fp_width, fp_height, pitch, fmt)
    src_box = None if box is None else CD3DX12_BOX(box[0], box[1], box[2], box[3])
    rig.list.CopyTextureRegion(footprint_of(readback, placed), x, y, 0, subresource(texture, 0), src_box)
    try:
        rig.list.Close()
    except HResultError as error:
        assert error.hresult == E_INVALIDARG and "CopyTextureRegion: " in error.message, error
        left, top, right, bottom = (0, 0, width, height) if box is None else box
        fits = offset + pitch * (fp_height - 1) + fp_width * element <= 4096
        empty = right <= left or bottom <= top
        assert not (offset % 512 == 0 and pitch % 256 == 0 and pitch >= fp_width * element and fits
                    and right <= width and bottom <= height
                    and (empty or (x + right - left <= fp_width and y + bottom - top <= fp_height))), error.message
        return
    rig.queue.ExecuteCommandLists([rig.list])
    rig.wait()
    del staging
    left, top, right, bottom = (0, 0, width, height) if box is None else box
    expected = np.zeros(4096, np.uint8)
    for row in range(max(0, bottom - top)):
        at = offset + (y + row) * pitch + x * element
        expected[at:at + max(0, right - left) * element] = image[0, top + row, left * element:right * element]
    assert np.array_equal(readback.Map(0, None), expected)
    if right > left and bottom > top:      # an empty box copies nothing, wherever it would go (D3D12)
        assert offset % 512 == 0 and pitch % 256 == 0 and x + right - left <= fp_width and y + bottom - top <= fp_height


@settings(max_examples=80, deadline=None)
@given(st.sampled_from([TEX1D, TEX2D, TEX3D]), st.integers(1, 3), st.booleans(), st.sampled_from(range(0, 10)),
       st.one_of(st.sampled_from(FORMATS + [DXGI_FORMAT_R8G8B8A8_TYPELESS, 0, 40]), _ANY), _ANY, _ANY, _ANY, _ANY,
       st.one_of(st.just(0.0), st.sampled_from([-1.0, float("nan"), None])))
def test_random_views_of_textures_write_a_descriptor_or_remove_the_device_with_a_sentence(
        dimension, slices, uav, view_dimension, fmt, a, b, c, d, clamp):
    rig = MirrorRig(TEACHING)
    texture = create(rig, desc_of(dimension, 8, 1 if dimension == TEX1D else 4, slices, 0, DXGI_FORMAT_R8G8B8A8_UNORM,
                                  UAV if uav else 0))
    heap = rig.device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV,
                                                                      NumDescriptors=1))
    member = {2: "Texture1D", 3: "Texture1DArray", 4: "Texture2D", 5: "Texture2DArray", 8: "Texture3D"}
    if uav:
        view = D3D12_UNORDERED_ACCESS_VIEW_DESC(Format=fmt, ViewDimension=view_dimension)
        part = getattr(view, member.get(view_dimension, "Texture2DArray"))
        for field, value in zip(("MipSlice", "FirstArraySlice", "ArraySize", "FirstWSlice", "WSize"), (a, b, c, b, d)):
            if field in type(part)._fields_:
                setattr(part, field, value)
        rig.device.CreateUnorderedAccessView(texture, None, view, heap.GetCPUDescriptorHandleForHeapStart())
    else:
        view = D3D12_SHADER_RESOURCE_VIEW_DESC(Format=fmt, ViewDimension=view_dimension)
        part = getattr(view, member.get(view_dimension, "Texture2DArray"))
        for field, value in zip(("MostDetailedMip", "MipLevels", "FirstArraySlice", "ArraySize", "ResourceMinLODClamp"),
                                (a, b, c, d, clamp)):
            if field in type(part)._fields_:
                setattr(part, field, value)
        rig.device.CreateShaderResourceView(texture, view, heap.GetCPUDescriptorHandleForHeapStart())
    reason, sentence = removal(rig.device)
    assert reason in (0, DXGI_ERROR_INVALID_CALL) and (reason == 0 or sentence.endswith(".")), sentence
