"""Texture descs and their copyable footprints: ID3D12Device::GetCopyableFootprints for textures.

Textures are not created by the emulator yet (CreateCommittedResource answers E_NOTIMPL for them), but a
host program sizes its upload and readback buffers for textures with GetCopyableFootprints, so the
computation is here, with D3D12's rules:

- a desc is checked as D3D12 does for the formats the mirror knows (dxgi.FORMAT_BYTES: uncompressed,
  single-plane): Texture1D (Height 1, DepthOrArraySize the array size), Texture2D (DepthOrArraySize the
  array size), Texture3D (DepthOrArraySize the depth); the D3D12_REQ_* dimension limits; MipLevels 0
  means the full chain, at most floor(log2(largest dimension)) + 1; SampleDesc {1, 0}; Layout UNKNOWN;
- subresource i is mip i % MipLevels of array slice i // MipLevels (D3D12DecomposeSubresource, one
  plane); a mip's width, height and (3D) depth are max(1, size >> mip);
- its footprint has the desc's Format and the mip's sizes, RowSizeInBytes = width * bytes per element,
  NumRows = height, RowPitch = RowSizeInBytes rounded up to D3D12_TEXTURE_DATA_PITCH_ALIGNMENT (256);
  each Offset is the end of the previous subresource rounded up to D3D12_TEXTURE_DATA_PLACEMENT_ALIGNMENT
  (512), the first BaseOffset (which must be a multiple of 512); a subresource ends after its last row's
  RowSizeInBytes (the last row is not padded to the pitch), and TotalBytes is the last end minus BaseOffset.
"""
from dmlemu.com import enum_name, is_integer, is_one_of
from dmlemu.d3d12.base import invalid_arg
from dmlemu.d3d12.enums import (
    D3D12_RESOURCE_DIMENSION, D3D12_RESOURCE_DIMENSION_TEXTURE1D, D3D12_RESOURCE_DIMENSION_TEXTURE2D,
    D3D12_RESOURCE_DIMENSION_TEXTURE3D,
)
from dmlemu.d3d12.structs import D3D12_PLACED_SUBRESOURCE_FOOTPRINT, D3D12_SUBRESOURCE_FOOTPRINT
from dmlemu.dxgi import DXGI_FORMAT, DXGI_FORMAT_UNKNOWN, FORMAT_BYTES

TEXTURE_DIMENSIONS = (D3D12_RESOURCE_DIMENSION_TEXTURE1D, D3D12_RESOURCE_DIMENSION_TEXTURE2D,
                      D3D12_RESOURCE_DIMENSION_TEXTURE3D)
TEXTURE_DATA_PITCH_ALIGNMENT = 256          # D3D12_TEXTURE_DATA_PITCH_ALIGNMENT
TEXTURE_DATA_PLACEMENT_ALIGNMENT = 512      # D3D12_TEXTURE_DATA_PLACEMENT_ALIGNMENT
D3D12_TEXTURE_LAYOUT_UNKNOWN = 0
# d3d12.h's limits per dimension: (largest Width, largest Height, largest DepthOrArraySize, what the last is).
LIMITS = {
    int(D3D12_RESOURCE_DIMENSION_TEXTURE1D): (16384, 1, 2048, "array size"),     # D3D12_REQ_TEXTURE1D_*
    int(D3D12_RESOURCE_DIMENSION_TEXTURE2D): (16384, 16384, 2048, "array size"),  # D3D12_REQ_TEXTURE2D_*
    int(D3D12_RESOURCE_DIMENSION_TEXTURE3D): (2048, 2048, 2048, "depth"),         # D3D12_REQ_TEXTURE3D_*
}
ALIGNMENTS = (0, 4096, 65536, 4194304)      # small, default and MSAA placement alignments


def is_texture(desc):
    return is_one_of(getattr(desc, "Dimension", None), TEXTURE_DIMENSIONS)


def _show(value):
    """A field's value in a sentence: an integer (enum members too) as its number, anything else as repr."""
    return int(value) if is_integer(value) else repr(value)


def _align(value, alignment):
    return -(-value // alignment) * alignment


def check_texture_desc(m, desc, field="pResourceDesc"):
    """D3D12's rules for a texture D3D12_RESOURCE_DESC; returns (dimension, mip levels, array size)."""
    dimension = int(desc.Dimension)
    name = enum_name(D3D12_RESOURCE_DIMENSION, dimension)
    max_width, max_height, max_depth, depth_word = LIMITS[dimension]
    for attribute, largest in (("Width", max_width), ("Height", max_height), ("DepthOrArraySize", max_depth)):
        value = getattr(desc, attribute)
        if not is_integer(value) or not 1 <= value <= largest:
            what = f"{depth_word}, " if attribute == "DepthOrArraySize" else ""
            raise invalid_arg(m, f"{field}.{attribute} is {_show(value)}; a {name} takes {what}1 to {largest}.")
    fmt = desc.Format
    if not is_integer(fmt) or int(fmt) not in FORMAT_BYTES or int(fmt) == DXGI_FORMAT_UNKNOWN:
        raise invalid_arg(m, f"{field}.Format is {_show(fmt)}; a texture needs a DXGI_FORMAT with a size per element "
                             f"(the uncompressed, single-plane formats of dmlemu.dxgi.DXGI_FORMAT).")
    largest = max(int(desc.Width), int(desc.Height),
                  int(desc.DepthOrArraySize) if dimension == D3D12_RESOURCE_DIMENSION_TEXTURE3D else 1)
    full_chain = largest.bit_length()
    mips = desc.MipLevels
    if not is_integer(mips) or not 0 <= mips <= full_chain:
        raise invalid_arg(m, f"{field}.MipLevels is {_show(mips)}; a {int(desc.Width)} x {int(desc.Height)} "
                             f"{name} has 1 to {full_chain} mip levels (0: all of them).")
    sample = desc.SampleDesc
    if not is_one_of(getattr(sample, "Count", None), (1,)) or not is_one_of(getattr(sample, "Quality", None), (0,)):
        raise invalid_arg(m, f"{field}.SampleDesc is {sample!r}; the emulator's textures have SampleDesc.Count 1 "
                             f"and Quality 0 (no multisampling).")
    if not is_one_of(desc.Layout, (D3D12_TEXTURE_LAYOUT_UNKNOWN,)):
        raise invalid_arg(m, f"{field}.Layout is {_show(desc.Layout)}; a texture takes D3D12_TEXTURE_LAYOUT_UNKNOWN (0) "
                             f"(ROW_MAJOR is for buffers and cross-adapter textures, the swizzles are not emulated).")
    if not is_one_of(desc.Alignment, ALIGNMENTS):
        raise invalid_arg(m, f"{field}.Alignment is {_show(desc.Alignment)}; a texture takes 0, 4096, 65536 or 4194304.")
    array_size = 1 if dimension == D3D12_RESOURCE_DIMENSION_TEXTURE3D else int(desc.DepthOrArraySize)
    return dimension, int(mips) or full_chain, array_size


def texture_footprints(m, desc, first, count, base_offset, is_uint):
    """GetCopyableFootprints' four outputs for a texture desc (see the module banner); raises HResultError
    (E_INVALIDARG) with a sentence for a bad desc, range or BaseOffset."""
    dimension, mips, array_size = check_texture_desc(m, desc)
    subresources = mips * array_size
    if not is_uint(first, 32) or first >= subresources:
        raise invalid_arg(m, f"FirstSubresource is {first!r}; the texture has {subresources} subresources "
                             f"({mips} mip levels x {array_size} array slices), 0 to {subresources - 1}.")
    if not is_uint(count, 32) or first + count > subresources:
        raise invalid_arg(m, f"NumSubresources is {count!r}; from FirstSubresource {first} the texture has "
                             f"{subresources - first} more subresources.")
    if not is_uint(base_offset) or base_offset % TEXTURE_DATA_PLACEMENT_ALIGNMENT:
        raise invalid_arg(m, f"BaseOffset is {base_offset!r}; a texture's footprints start at a multiple of "
                             f"D3D12_TEXTURE_DATA_PLACEMENT_ALIGNMENT (512).")
    element = FORMAT_BYTES[int(desc.Format)]
    layouts, rows_out, row_sizes = [], [], []
    end = int(base_offset)
    for index in range(int(first), int(first) + int(count)):
        mip = index % mips
        width = max(1, int(desc.Width) >> mip)
        height = max(1, int(desc.Height) >> mip)
        depth = max(1, int(desc.DepthOrArraySize) >> mip) if dimension == D3D12_RESOURCE_DIMENSION_TEXTURE3D else 1
        row_size = width * element
        pitch = _align(row_size, TEXTURE_DATA_PITCH_ALIGNMENT)
        offset = _align(end, TEXTURE_DATA_PLACEMENT_ALIGNMENT)
        layouts.append(D3D12_PLACED_SUBRESOURCE_FOOTPRINT(Offset=offset, Footprint=D3D12_SUBRESOURCE_FOOTPRINT(
            Format=int(DXGI_FORMAT(int(desc.Format))), Width=width, Height=height, Depth=depth, RowPitch=pitch)))
        rows_out.append(height)
        row_sizes.append(row_size)
        end = offset + pitch * (height * depth - 1) + row_size     # the last row is not padded
    return layouts, rows_out, row_sizes, end - int(base_offset)
