"""ID3D12Device::GetCopyableFootprints for buffers (emulator/d3d12/resource.py `copyable_footprints`; textures:
tests/d3d12/test_texture_footprints.py), d3dx12's
GetRequiredIntermediateSize and UpdateSubresources with precomputed footprints (emulator/d3d12/d3dx12.py)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.errors import DXGI_ERROR_INVALID_CALL, E_INVALIDARG, E_NOTIMPL, HResultError
from dmlemu.presets import TEACHING
from mirror_rig import MirrorRig
from operator_cases import ACCEPTED, REFUSED, outcome, garbage, scaled

U32, U64 = 2**32 - 1, 2**64 - 1


def footprint(offset, width, pitch):
    return D3D12_PLACED_SUBRESOURCE_FOOTPRINT(Offset=offset, Footprint=D3D12_SUBRESOURCE_FOOTPRINT(
        Format=DXGI_FORMAT_UNKNOWN, Width=width, Height=1, Depth=1, RowPitch=pitch))


@pytest.mark.parametrize("width, base, pitch", [(1, 0, 256), (256, 0, 256), (257, 16, 512), (1000, 7, 1024)])
def test_a_buffer_is_one_row_its_pitch_rounded_to_256_at_base_offset(width, base, pitch):
    rig = MirrorRig(TEACHING)
    layouts, rows, sizes, total = rig.device.GetCopyableFootprints(CD3DX12_RESOURCE_DESC.Buffer(width), 0, 1, base)
    assert (layouts, rows, sizes, total) == ([footprint(base, width, pitch)], [1], [width], width)


def test_zero_subresources_have_no_layouts_and_zero_bytes():
    rig = MirrorRig(TEACHING)
    assert rig.device.GetCopyableFootprints(CD3DX12_RESOURCE_DESC.Buffer(64), 0, 0, 0) == ([], [], [], 0)


def _failed(n):
    layout = D3D12_PLACED_SUBRESOURCE_FOOTPRINT(Offset=U64, Footprint=D3D12_SUBRESOURCE_FOOTPRINT(
        Format=U32, Width=U32, Height=U32, Depth=U32, RowPitch=U32))
    return [layout] * n, [U32] * n, [U64] * n, U64


_BAD = [
    ((CD3DX12_RESOURCE_DESC.Buffer(64), 1, 1, 0), 1, E_INVALIDARG,
     "GetCopyableFootprints: FirstSubresource is 1; a buffer has one subresource, 0."),
    ((CD3DX12_RESOURCE_DESC.Buffer(64), 0, 2, 0), 2, E_INVALIDARG,
     "GetCopyableFootprints: NumSubresources is 2; from FirstSubresource 0 a buffer has 0 or 1 subresources."),
    ((CD3DX12_RESOURCE_DESC.Buffer(64), 0, 1, -1), 1, E_INVALIDARG,
     "GetCopyableFootprints: BaseOffset is -1; it must be a UINT64."),
    ((CD3DX12_RESOURCE_DESC.Buffer(0), 0, 1, 0), 1, E_INVALIDARG,
     "GetCopyableFootprints: pResourceDesc.Width is 0; a buffer must be at least 1 byte."),
    ((D3D12_RESOURCE_DESC(Dimension=D3D12_RESOURCE_DIMENSION_TEXTURE2D), 0, 1, 0), 1, E_INVALIDARG,
     "GetCopyableFootprints: pResourceDesc.Width is 0; a D3D12_RESOURCE_DIMENSION_TEXTURE2D takes 1 to 16384."),
    (("desc", 0, 1, 0), 1, E_INVALIDARG,
     "GetCopyableFootprints: pResourceDesc is 'desc'; it must be a D3D12_RESOURCE_DESC."),
    ((CD3DX12_RESOURCE_DESC.Buffer(64), 0, 2**40, 0), 0, E_INVALIDARG,
     "GetCopyableFootprints: NumSubresources is 1099511627776; from FirstSubresource 0 a buffer has 0 or 1 "
     "subresources."),
]


@pytest.mark.parametrize("args, slots, hresult, sentence", _BAD)
def test_invalid_arguments_fill_every_output_with_ones_and_the_debug_layer_raises(args, slots, hresult, sentence):
    rig = MirrorRig(TEACHING)
    assert rig.device.GetCopyableFootprints(*args) == _failed(slots)
    assert rig.device.GetDeviceRemovedReason() == 0   # D3D12 reports it; nothing is removed
    debug = MirrorRig(TEACHING, d3d12_debug=True, mute_debug_output=True)
    with pytest.raises(HResultError) as info:
        debug.device.GetCopyableFootprints(*args)
    assert (info.value.hresult, info.value.message) == (hresult, sentence)


def test_footprints_answer_on_a_removed_device():
    rig = MirrorRig(TEACHING)
    rig.queue.ExecuteCommandLists(None)   # void-method misuse removes the device
    assert rig.device.GetDeviceRemovedReason() == DXGI_ERROR_INVALID_CALL
    assert rig.device.GetCopyableFootprints(CD3DX12_RESOURCE_DESC.Buffer(8), 0, 1, 0)[3] == 8


@settings(max_examples=scaled(200), deadline=None)
@given(args=st.lists(garbage, min_size=4, max_size=4))
def test_hostile_arguments_give_the_ones_or_a_buffer_answer_and_nothing_else(args):
    rig = MirrorRig(TEACHING)
    layouts, rows, sizes, total = rig.device.GetCopyableFootprints(*args)
    count = args[2]
    slots = count if isinstance(count, int) and not isinstance(count, bool) and 0 <= count <= 30720 else 0
    assert len(layouts) == len(rows) == len(sizes) == (slots if total == U64 else len(sizes)) <= max(slots, 1)
    assert total == U64 or (total == sum(sizes) and len(sizes) <= 1)
    outcome(REFUSED if total == U64 else ACCEPTED)   # all-ones outputs: D3D12's documented failure answer
    debug = MirrorRig(TEACHING, d3d12_debug=True, mute_debug_output=True)
    try:
        debug.device.GetCopyableFootprints(*args)
    except HResultError as error:
        assert error.message.startswith("GetCopyableFootprints: ")
        assert total == U64


def test_required_intermediate_size_is_the_footprints_total():
    rig = MirrorRig(TEACHING)
    dst = rig.buffer(300)
    assert [GetRequiredIntermediateSize(dst, 0, n) for n in (0, 1)] == [0, 300]
    assert GetRequiredIntermediateSize(dst, 1, 1) == U64


def test_update_subresources_with_precomputed_footprints_copies_from_the_layout_offset():
    rig = MirrorRig(TEACHING)
    dst = rig.buffer(100)
    upload = rig.buffer(512, D3D12_HEAP_TYPE_UPLOAD)
    layouts, rows, sizes, total = rig.device.GetCopyableFootprints(dst.GetDesc(), 0, 1, 256)
    data = np.arange(100, dtype=np.uint8)
    source = [D3D12_SUBRESOURCE_DATA(pData=data, RowPitch=100, SlicePitch=100)]
    assert UpdateSubresources(rig.list, dst, upload, 0, 1, total, layouts, rows, sizes, source) == 100
    assert np.array_equal(upload.Map(0, None)[256:356], data)
    rig.execute()
    assert np.array_equal(rig.read(dst), data)


def test_the_offset_forms_go_through_the_footprints():
    rig = MirrorRig(TEACHING)
    dst = rig.buffer(16)
    upload = rig.buffer(64, D3D12_HEAP_TYPE_UPLOAD)
    data = np.arange(16, dtype=np.uint8) + 1
    assert UpdateSubresources(rig.list, dst, upload, 48, 0, [D3D12_SUBRESOURCE_DATA(pData=data)]) == 16
    assert UpdateSubresources(rig.list, dst, upload, 49, 0, [D3D12_SUBRESOURCE_DATA(pData=data)]) == 0   # 49 + 16 > 64
    rig.execute()
    assert np.array_equal(rig.read(dst), data)
    with pytest.raises(TypeError):
        UpdateSubresources(rig.list, dst, upload, 0, 0)


def _precomputed_case(rig, dst, upload, **change):
    layouts, rows, sizes, total = rig.device.GetCopyableFootprints(dst.GetDesc(), 0, 1, 0)
    args = dict(first=0, count=1, required=total, layouts=layouts, rows=rows, sizes=sizes,
                source=[D3D12_SUBRESOURCE_DATA(pData=np.zeros(32, np.uint8), RowPitch=32)])
    args.update(change)
    return UpdateSubresources(rig.list, dst, upload, *args.values())


@pytest.mark.parametrize("change", [
    dict(required=65),                              # the intermediate is narrower than RequiredSize + Offset
    dict(first=1), dict(count=2), dict(count=0),    # a buffer is updated as subresource 0 alone
    dict(layouts=[]), dict(rows=None), dict(source=[]),   # arrays shorter than NumSubresources
    dict(layouts=[footprint(60, 32, 256)]),         # rows past the end of the intermediate
    dict(source=[D3D12_SUBRESOURCE_DATA(pData=np.zeros(8, np.uint8))]),   # pData shorter than a row
    dict(sizes=[-1]), dict(required="64"), dict(layouts=["layout"]),
])
def test_an_update_that_cannot_be_done_returns_zero_and_writes_nothing(change):
    rig = MirrorRig(TEACHING)
    dst = rig.buffer(32)
    upload = rig.buffer(64, D3D12_HEAP_TYPE_UPLOAD)
    upload.Map(0, None)[:] = 7
    assert _precomputed_case(rig, dst, upload) == 32   # the unchanged case works
    upload.Map(0, None)[:] = 7
    assert _precomputed_case(rig, dst, upload, **change) == 0
    assert np.all(upload.Map(0, None) == 7)
