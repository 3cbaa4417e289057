"""ID3D12Device::GetCopyableFootprints for texture descs (emulator/d3d12/texture_layout.py): D3D12's layout rules
(row pitch a multiple of 256, each subresource at a multiple of 512, the last row unpadded, mip i of array slice j
at index i + j * MipLevels) on known values and on random descs, and hostile descs, ranges and offsets answered
with all-one outputs and a sentence through the debug layer."""
import pytest
from hypothesis import given, settings, strategies as st

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.dxgi import FORMAT_BYTES
from dmlemu.errors import E_INVALIDARG, HResultError
from dmlemu.presets import TEACHING
from mirror_rig import MirrorRig
from operator_cases import scaled

U32, U64 = 2**32 - 1, 2**64 - 1
TEX1D, TEX2D, TEX3D = (D3D12_RESOURCE_DIMENSION_TEXTURE1D, D3D12_RESOURCE_DIMENSION_TEXTURE2D,
                       D3D12_RESOURCE_DIMENSION_TEXTURE3D)


def texture(dimension=TEX2D, width=256, height=256, depth=1, mips=1, fmt=DXGI_FORMAT_R8G8B8A8_UNORM):
    desc = D3D12_RESOURCE_DESC(Dimension=dimension, Width=width, Height=height, DepthOrArraySize=depth,
                               MipLevels=mips, Format=fmt)
    desc.SampleDesc.Count, desc.SampleDesc.Quality = 1, 0
    return desc


def footprints(desc, first=0, count=1, base=0):
    return MirrorRig(TEACHING).device.GetCopyableFootprints(desc, first, count, base)


def shape(layout):
    f = layout.Footprint
    return layout.Offset, int(f.Format), f.Width, f.Height, f.Depth, f.RowPitch


@pytest.mark.parametrize("desc, expected_total, pitch", [
    (texture(), 262144, 1024),                                              # 256 x 256 RGBA8: 1024 x 256
    (texture(width=100, height=10), 512 * 9 + 400, 512),                    # the last row is not padded
    (texture(width=3, height=2, fmt=DXGI_FORMAT_R8_UNORM), 256 + 3, 256),
    (texture(width=64, height=64, fmt=DXGI_FORMAT_R32G32B32A32_FLOAT), 1024 * 64, 1024),
    (texture(width=33, height=1, fmt=DXGI_FORMAT_R16_FLOAT), 66, 256),
    (texture(TEX1D, width=1000, height=1, fmt=DXGI_FORMAT_R16G16B16A16_FLOAT), 8000, 8192),
])
def test_one_subresource(desc, expected_total, pitch):
    layouts, rows, sizes, total = footprints(desc)
    assert total == expected_total
    assert shape(layouts[0]) == (0, desc.Format, desc.Width, desc.Height, 1, pitch)
    assert rows == [desc.Height] and sizes == [desc.Width * FORMAT_BYTES[desc.Format]]


def test_a_mip_chain_places_each_level_at_the_next_multiple_of_512():
    layouts, rows, sizes, total = footprints(texture(width=100, height=10, mips=0), 0, 7)   # MipLevels 0: all 7
    assert [shape(l) for l in layouts] == [
        (0, 28, 100, 10, 1, 512), (5120, 28, 50, 5, 1, 256), (6656, 28, 25, 2, 1, 256), (7168, 28, 12, 1, 1, 256),
        (7680, 28, 6, 1, 1, 256), (8192, 28, 3, 1, 1, 256), (8704, 28, 1, 1, 1, 256)]
    assert rows == [10, 5, 2, 1, 1, 1, 1] and sizes == [400, 200, 100, 48, 24, 12, 4] and total == 8704 + 4


def test_array_slices_and_a_sub_range_and_a_base_offset():
    desc = texture(width=16, height=16, depth=3, mips=2, fmt=DXGI_FORMAT_R32_FLOAT)   # 6 subresources
    layouts, rows, sizes, total = footprints(desc, 1, 3, 1024)    # mip 1 of slice 0, mips 0 and 1 of slice 1
    # mip 1: 8 rows of 32 bytes (pitch 256) end at 1024 + 256 * 7 + 32 = 2848; the next starts at 3072
    assert [(l.Offset, l.Footprint.Width) for l in layouts] == [(1024, 8), (3072, 16), (7168, 8)]
    assert rows == [8, 16, 8] and total == 7168 + 256 * 7 + 32 - 1024


def test_a_volume_counts_depth_slices_of_rows():
    layouts, rows, sizes, total = footprints(texture(TEX3D, width=8, height=4, depth=4, mips=2,
                                                     fmt=DXGI_FORMAT_R16_FLOAT), 0, 2)
    assert [shape(l) for l in layouts] == [(0, 54, 8, 4, 4, 256), (4096, 54, 4, 2, 2, 256)]
    assert rows == [4, 2] and total == 4096 + 256 * 3 + 8


@settings(max_examples=scaled(60), deadline=None)
@given(dimension=st.sampled_from([TEX1D, TEX2D, TEX3D]), width=st.integers(1, 700), height=st.integers(1, 70),
       depth=st.integers(1, 6), fmt=st.sampled_from(sorted(f for f in FORMAT_BYTES if f)), data=st.data())
def test_random_descs_follow_the_rules(dimension, width, height, depth, fmt, data):
    height = 1 if dimension == TEX1D else height
    largest = max(width, height, depth if dimension == TEX3D else 1)
    mips = data.draw(st.integers(1, largest.bit_length()))
    slices = 1 if dimension == TEX3D else depth
    count = mips * slices
    base = data.draw(st.integers(0, 4)) * 512
    layouts, rows, sizes, total = footprints(texture(dimension, width, height, depth, mips, fmt), 0, count, base)
    end = base
    for index, (layout, n, size) in enumerate(zip(layouts, rows, sizes)):
        mip = index % mips
        f = layout.Footprint
        assert (f.Width, f.Height) == (max(1, width >> mip), max(1, height >> mip)) and n == f.Height
        assert f.Depth == (max(1, depth >> mip) if dimension == TEX3D else 1)
        assert size == f.Width * FORMAT_BYTES[fmt] and f.RowPitch % 256 == 0 and size <= f.RowPitch < size + 256
        assert layout.Offset % 512 == 0 and end <= layout.Offset < end + 512
        end = layout.Offset + f.RowPitch * (n * f.Depth - 1) + size
    assert total == end - base


def _failed(n):
    layout = D3D12_PLACED_SUBRESOURCE_FOOTPRINT(Offset=U64, Footprint=D3D12_SUBRESOURCE_FOOTPRINT(
        Format=U32, Width=U32, Height=U32, Depth=U32, RowPitch=U32))
    return [layout] * n, [U32] * n, [U64] * n, U64


def _with(**fields):
    desc = texture()
    for name, value in fields.items():
        if name == "Count":
            desc.SampleDesc.Count = value
        else:
            setattr(desc, name, value)
    return desc


_BAD = [
    ((_with(Width=16385), 0, 1, 0), None, "pResourceDesc.Width is 16385; a D3D12_RESOURCE_DIMENSION_TEXTURE2D takes 1 to 16384."),
    ((_with(Height=0), 0, 1, 0), None, "pResourceDesc.Height is 0; a D3D12_RESOURCE_DIMENSION_TEXTURE2D takes 1 to "
                                       "16384."),
    ((texture(TEX1D, height=2), 0, 1, 0), None, "pResourceDesc.Height is 2; a D3D12_RESOURCE_DIMENSION_TEXTURE1D "
                                                "takes 1 to 1."),
    ((_with(DepthOrArraySize=2049), 0, 1, 0), None, "pResourceDesc.DepthOrArraySize is 2049; a "
                                                    "D3D12_RESOURCE_DIMENSION_TEXTURE2D takes array size, 1 to 2048."),
    ((texture(TEX3D, width=2049), 0, 1, 0), None, "pResourceDesc.Width is 2049; a D3D12_RESOURCE_DIMENSION_TEXTURE3D "
                                                  "takes 1 to 2048."),
    ((_with(Format=DXGI_FORMAT_UNKNOWN), 0, 1, 0), None, "pResourceDesc.Format is 0; a texture needs a DXGI_FORMAT "
                                                         "with a size per element (the uncompressed, single-plane "
                                                         "formats of dmlemu.dxgi.DXGI_FORMAT)."),
    ((_with(Format=71), 0, 1, 0), None, "pResourceDesc.Format is 71; a texture needs a DXGI_FORMAT with a size per "
                                        "element (the uncompressed, single-plane formats of dmlemu.dxgi.DXGI_FORMAT)."),
    ((_with(MipLevels=10), 0, 1, 0), None, "pResourceDesc.MipLevels is 10; a 256 x 256 "
                                           "D3D12_RESOURCE_DIMENSION_TEXTURE2D has 1 to 9 mip levels (0: all of them)."),
    ((_with(Count=4), 0, 1, 0), None, "pResourceDesc.SampleDesc is DXGI_SAMPLE_DESC(Count=4, Quality=0); the "
                                      "emulator's textures have SampleDesc.Count 1 and Quality 0 (no multisampling)."),
    ((_with(Layout=D3D12_TEXTURE_LAYOUT_ROW_MAJOR), 0, 1, 0), None,
     "pResourceDesc.Layout is 1; a texture takes D3D12_TEXTURE_LAYOUT_UNKNOWN (0) (ROW_MAJOR is for buffers and "
     "cross-adapter textures, the swizzles are not emulated)."),
    ((_with(Alignment=256), 0, 1, 0), None, "pResourceDesc.Alignment is 256; a texture takes 0, 4096, 65536 or "
                                            "4194304."),
    ((texture(), 1, 1, 0), None, "FirstSubresource is 1; the texture has 1 subresources (1 mip levels x 1 array "
                                 "slices), 0 to 0."),
    ((texture(mips=2), 1, 2, 0), None, "NumSubresources is 2; from FirstSubresource 1 the texture has 1 more "
                                       "subresources."),
    ((texture(), 0, 1, 256), D3D12_MESSAGE_ID_GETCOPYABLEFOOTPRINTS_INVALIDBASEOFFSET,
     "BaseOffset is 256; a texture's footprints start at a multiple of D3D12_TEXTURE_DATA_PLACEMENT_ALIGNMENT (512)."),
    ((texture(), 0, 30721, 0), None, "NumSubresources is 30721; at most D3D12_REQ_SUBRESOURCES (30720)."),
]


@pytest.mark.parametrize("args, message_id, sentence", _BAD)
def test_hostile_texture_arguments_give_all_ones_and_a_sentence(args, message_id, sentence):
    count = args[2] if args[2] <= 30720 else 0
    assert footprints(*args) == _failed(count)
    debug = MirrorRig(TEACHING, d3d12_debug=True, mute_debug_output=True)
    with pytest.raises(HResultError) as info:
        debug.device.GetCopyableFootprints(*args)
    assert (info.value.hresult, info.value.message) == (E_INVALIDARG, f"GetCopyableFootprints: {sentence}")
    if message_id is not None:
        assert info.value.id == message_id


_GARBAGE = st.one_of(st.none(), st.booleans(), st.integers(-2, 2**65), st.floats(allow_nan=True), st.text(max_size=3),
                     st.sampled_from([0, 1, 2, 3, 4, 28, 41, 54, 61, 16384, 16385, 2048, 2049]))


@settings(max_examples=scaled(150), deadline=None)
@given(fields=st.dictionaries(st.sampled_from(["Width", "Height", "DepthOrArraySize", "MipLevels", "Format",
                                                "Layout", "Alignment", "Dimension"]), _GARBAGE, max_size=3),
       first=_GARBAGE, count=_GARBAGE, base=_GARBAGE)
def test_hostile_texture_descs_give_the_ones_or_a_layout_and_never_a_traceback(fields, first, count, base):
    desc = texture(width=20, height=12, mips=2)
    for name, value in fields.items():
        setattr(desc, name, value)
    layouts, rows, sizes, total = footprints(desc, first, count, base)
    slots = count if isinstance(count, int) and not isinstance(count, bool) and 0 <= count <= 30720 else 0
    assert len(layouts) == len(rows) == len(sizes)
    assert total == U64 and len(layouts) == slots or total != U64 and len(layouts) == count
    debug = MirrorRig(TEACHING, d3d12_debug=True, mute_debug_output=True)
    try:
        debug.device.GetCopyableFootprints(desc, first, count, base)
    except HResultError as error:
        assert error.message.startswith("GetCopyableFootprints: ") and total == U64
