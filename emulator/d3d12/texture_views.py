"""Typed shader-resource and unordered-access views of textures (CreateShaderResourceView / CreateUnorderedAccessView).

views.py hands a texture's views here. D3D12's rules, checked as the runtime checks them (misuse is
VoidMisuse: the device is removed, and the debug layer reports the sentence):
- pDesc None is the texture's default view: its format (not a TYPELESS one), every mip (SRV) or mip 0
  (UAV), every array slice or depth slice, as a TEXTURE1D/2D/3D view or its ARRAY form when the texture
  has more than one array slice;
- ViewDimension agrees with the texture: TEXTURE1D or TEXTURE1DARRAY for a Texture1D, TEXTURE2D or
  TEXTURE2DARRAY for a Texture2D, TEXTURE3D for a Texture3D (BUFFER is for buffers; the multisampled and
  cube dimensions are not emulated, and name that);
- Format: the texture's, or a typed member of its TYPELESS family (same channel layout), never UNKNOWN
  or TYPELESS; a UAV's format has typed UAVs (not _SRGB, not depth: texture_layout.supports_typed_uav)
  and the texture ALLOW_UNORDERED_ACCESS; an SRV is refused on a DENY_SHADER_RESOURCE texture;
- SRV mips: MostDetailedMip below the mip count, MipLevels 1 up to the mips left, or -1 (0xFFFFFFFF)
  for all of them; ResourceMinLODClamp a float >= 0; UAV: MipSlice below the mip count;
- array views: FirstArraySlice + ArraySize (at least 1) within the array size; Texture3D UAVs:
  FirstWSlice + WSize (-1: to the last) within the mip's depth; PlaneSlice 0 (single-plane formats).
The descriptor: the view's bytes as a buffer descriptor (the span from the first subresource it covers
to the end of the last, in the mirror's layout, texture_layout.TextureLayout), and for a UAV the format
stamp clears read (clear.stamp_view) plus the texture stamp (clear.stamp_texture_view: mip slice, first
array or depth slice, slice count), so ClearUnorderedAccessView* knows which texels the view holds.
Both views also carry the image stamp (emulator/functional/image_descriptor.py: format, the most detailed
mip's width and height, mip count, array pitch, view dimension), through which image_load and image_store
read and write the view's texels with format conversion; buffer instructions still see the view's bytes
raw, in the mirror's layout.
"""
import math

from dmlemu.com import VoidMisuse, enum_name, is_integer, is_one_of
from dmlemu.d3d12.clear import stamp_texture_view, stamp_view
from dmlemu.d3d12.enums import (
    D3D12_RESOURCE_DIMENSION_TEXTURE1D, D3D12_RESOURCE_DIMENSION_TEXTURE2D, D3D12_RESOURCE_DIMENSION_TEXTURE3D,
    D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS, D3D12_RESOURCE_FLAG_DENY_SHADER_RESOURCE, D3D12_SRV_DIMENSION,
    D3D12_UAV_DIMENSION)
from dmlemu.d3d12.structs import D3D12_SHADER_RESOURCE_VIEW_DESC, D3D12_UNORDERED_ACCESS_VIEW_DESC
from dmlemu.d3d12.texture_layout import format_family, format_name, supports_typed_uav
from dmlemu.dxgi import DXGI_FORMAT
from dmlemu.functional.buffer_descriptor import write_buffer_descriptor
from dmlemu.functional.image_descriptor import stamp_image_view

ALL = 0xFFFFFFFF      # UINT -1: "all the rest" in MipLevels and WSize
# View dimension (D3D12_SRV_DIMENSION and D3D12_UAV_DIMENSION share these values) -> (resource dimension,
# the desc's union member, is an array view).
_DIMENSIONS = {
    2: (D3D12_RESOURCE_DIMENSION_TEXTURE1D, "Texture1D", False),
    3: (D3D12_RESOURCE_DIMENSION_TEXTURE1D, "Texture1DArray", True),
    4: (D3D12_RESOURCE_DIMENSION_TEXTURE2D, "Texture2D", False),
    5: (D3D12_RESOURCE_DIMENSION_TEXTURE2D, "Texture2DArray", True),
    8: (D3D12_RESOURCE_DIMENSION_TEXTURE3D, "Texture3D", False),
}
_DEFAULT_DIMENSION = {  # resource dimension -> (single, array) view dimension
    int(D3D12_RESOURCE_DIMENSION_TEXTURE1D): (2, 3), int(D3D12_RESOURCE_DIMENSION_TEXTURE2D): (4, 5),
    int(D3D12_RESOURCE_DIMENSION_TEXTURE3D): (8, 8)}
_RESOURCE_WORD = {int(D3D12_RESOURCE_DIMENSION_TEXTURE1D): "Texture1D",
                  int(D3D12_RESOURCE_DIMENSION_TEXTURE2D): "Texture2D",
                  int(D3D12_RESOURCE_DIMENSION_TEXTURE3D): "Texture3D"}


def _is_all(value):
    return is_one_of(value, (-1, ALL))


def _uint(value):
    return is_integer(value) and 0 <= value < 1 << 32


def _view_format(resource, fmt, kind):
    """The view's format, checked against the texture's (see the banner)."""
    texture = resource._texture
    own = format_name(texture.format)
    name = format_name(fmt) if _uint(fmt) else None
    if name is None or name.endswith("TYPELESS"):
        wanted = f"a typed member of DXGI_FORMAT_{own}" if own.endswith("TYPELESS") else f"DXGI_FORMAT_{own}"
        raise VoidMisuse(f"pDesc.Format is {enum_name(DXGI_FORMAT, fmt)}; a texture's {kind} needs a typed format: "
                         f"{wanted}.")
    if int(fmt) != texture.format and not (own.endswith("TYPELESS") and format_family(fmt) == format_family(texture.format)):
        raise VoidMisuse(f"pDesc.Format is DXGI_FORMAT_{name}, but {resource._label} is DXGI_FORMAT_{own}; a view takes "
                         "the texture's format, or a member of its TYPELESS family.")
    return int(fmt)


def _dimension(resource, desc, kind, enum_type):
    """(view dimension, union member name, is array) of a desc, checked against the texture."""
    texture = resource._texture
    dimension = desc.ViewDimension
    entry = _DIMENSIONS.get(int(dimension)) if is_integer(dimension) else None
    word = _RESOURCE_WORD[texture.dimension]
    if entry is None:
        why = ("BUFFER views are of buffers" if is_one_of(dimension, (1,))
               else "multisampled and cube views are not emulated")
        raise VoidMisuse(f"pDesc.ViewDimension is {enum_name(enum_type, dimension)}; a {word}'s {kind} is "
                         f"{_allowed(texture.dimension, enum_type)} ({why}).")
    if entry[0] != texture.dimension:
        raise VoidMisuse(f"pDesc.ViewDimension is {enum_name(enum_type, dimension)}, but {resource._label} is a "
                         f"{word}; its {kind} is {_allowed(texture.dimension, enum_type)}.")
    return int(dimension), entry[1], entry[2]


def _allowed(resource_dimension, enum_type):
    single, array = _DEFAULT_DIMENSION[resource_dimension]
    names = [enum_name(enum_type, single)] + ([enum_name(enum_type, array)] if array != single else [])
    return " or ".join(names)


def _slices(resource, part, member, is_array):
    """(first array slice, count) of an array view (0, 1 for a single view of an array texture)."""
    texture = resource._texture
    if not is_array:
        return 0, 1
    first, size = part.FirstArraySlice, part.ArraySize
    if not (_uint(first) and _uint(size)) or size < 1 or first + size > texture.array_size:
        raise VoidMisuse(f"pDesc.{member} has FirstArraySlice {first!r} and ArraySize {size!r}; {resource._label} "
                         f"has {texture.array_size} array slices (0 to {texture.array_size - 1}), and a view covers at "
                         "least one.")
    return int(first), int(size)


def _plane(part, member):
    if "PlaneSlice" in type(part)._fields_ and not is_one_of(part.PlaneSlice, (0,)):
        raise VoidMisuse(f"pDesc.{member}.PlaneSlice is {part.PlaneSlice!r}; the emulator's formats have one "
                         "plane (0).")


def _write(resource, data, offset, subresources):
    """The buffer descriptor of the span of `subresources` (indices) in the texture's bytes."""
    texture = resource._texture
    spans = [texture.span(i) for i in subresources]
    start, end = min(s for s, _ in spans), max(e for _, e in spans)
    if end - start >= 1 << 32:
        raise VoidMisuse(f"the view covers {end - start} bytes of {resource._label}; a dmlemu descriptor holds at most "
                         f"{(1 << 32) - 1} bytes (view fewer mips or array slices).")
    write_buffer_descriptor(data, offset, resource._allocation.gpu_va + start, end - start)


def _stamp_image(resource, data, offset, fmt, member, first_mip, mips, first, count):
    """The image stamp of a texture view (emulator/functional/image_descriptor.py)."""
    texture = resource._texture
    _, width, height, depth, _, _ = texture.subresources[first_mip]
    if texture.dimension == D3D12_RESOURCE_DIMENSION_TEXTURE3D:
        member, pitch = "Texture3D", 0
        if count is None:      # an SRV holds the whole depth of its most detailed mip
            first, count = 0, depth
    else:
        pitch = texture.subresources[texture.mips][0] if texture.array_size > 1 else 0
    stamp_image_view(data, offset, fmt, width, height, mips, pitch, member.upper(), first_mip, first, count)


def _default_member(texture):
    single, array = _DEFAULT_DIMENSION[texture.dimension]
    return _DIMENSIONS[array if texture.array_size > 1 else single][1]


def texture_srv(resource, desc, data, offset):
    """CreateShaderResourceView for a texture (see the banner)."""
    texture = resource._texture
    if resource._flags & D3D12_RESOURCE_FLAG_DENY_SHADER_RESOURCE:
        raise VoidMisuse(f"{resource._label} was created with D3D12_RESOURCE_FLAG_DENY_SHADER_RESOURCE.")
    if desc is None:
        if format_name(texture.format).endswith("TYPELESS"):
            raise VoidMisuse(f"pDesc is None, but {resource._label} is DXGI_FORMAT_{format_name(texture.format)}; a "
                             "TYPELESS texture's view needs a desc with a typed format.")
        first_mip, mips, first, count = 0, texture.mips, 0, texture.array_size
    else:
        if not isinstance(desc, D3D12_SHADER_RESOURCE_VIEW_DESC):
            raise VoidMisuse(f"pDesc is {desc!r}; it must be a D3D12_SHADER_RESOURCE_VIEW_DESC or None.")
        _, member, is_array = _dimension(resource, desc, "shader-resource view", D3D12_SRV_DIMENSION)
        _view_format(resource, desc.Format, "shader-resource view")
        part = getattr(desc, member)
        _plane(part, member)
        first_mip, mips = part.MostDetailedMip, part.MipLevels
        if not _uint(first_mip) or first_mip >= texture.mips:
            raise VoidMisuse(f"pDesc.{member}.MostDetailedMip is {first_mip!r}; {resource._label} has mips 0 to "
                             f"{texture.mips - 1}.")
        left = texture.mips - int(first_mip)
        if _is_all(mips):
            mips = left
        elif not _uint(mips) or not 1 <= mips <= left:
            raise VoidMisuse(f"pDesc.{member}.MipLevels is {mips!r}; from MostDetailedMip {first_mip} "
                             f"{resource._label} has {left} mip levels (1 to {left}, or -1 for all of them).")
        clamp = part.ResourceMinLODClamp
        if not isinstance(clamp, (int, float)) or isinstance(clamp, bool) or not math.isfinite(clamp) or clamp < 0:
            raise VoidMisuse(f"pDesc.{member}.ResourceMinLODClamp is {clamp!r}; it must be a float >= 0.")
        first, count = _slices(resource, part, member, is_array)
        first_mip, mips = int(first_mip), int(mips)
    subresources = [first_mip + m + s * texture.mips for s in range(first, first + count) for m in range(mips)]
    _write(resource, data, offset, subresources)
    if desc is None:
        fmt, member = texture.format, _default_member(texture)
    else:
        fmt = int(desc.Format)
    _stamp_image(resource, data, offset, fmt, member, first_mip, mips, first,
                 None if texture.dimension == D3D12_RESOURCE_DIMENSION_TEXTURE3D else count)


def texture_uav(resource, desc, data, offset):
    """CreateUnorderedAccessView for a texture (see the banner)."""
    texture = resource._texture
    if not resource._flags & D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS:
        raise VoidMisuse(f"{resource._label} was created without D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS, so it "
                         "cannot have an unordered-access view.")
    if desc is None:
        if format_name(texture.format).endswith("TYPELESS"):
            raise VoidMisuse(f"pDesc is None, but {resource._label} is DXGI_FORMAT_{format_name(texture.format)}; a "
                             "TYPELESS texture's view needs a desc with a typed format.")
        fmt, mip, first, count = texture.format, 0, 0, texture.array_size
        if texture.dimension == D3D12_RESOURCE_DIMENSION_TEXTURE3D:
            count = texture.subresources[0][3]
    else:
        if not isinstance(desc, D3D12_UNORDERED_ACCESS_VIEW_DESC):
            raise VoidMisuse(f"pDesc is {desc!r}; it must be a D3D12_UNORDERED_ACCESS_VIEW_DESC or None.")
        _, member, is_array = _dimension(resource, desc, "unordered-access view", D3D12_UAV_DIMENSION)
        fmt = _view_format(resource, desc.Format, "unordered-access view")
        part = getattr(desc, member)
        _plane(part, member)
        mip = part.MipSlice
        if not _uint(mip) or mip >= texture.mips:
            raise VoidMisuse(f"pDesc.{member}.MipSlice is {mip!r}; {resource._label} has mips 0 to "
                             f"{texture.mips - 1}.")
        mip = int(mip)
        if texture.dimension == D3D12_RESOURCE_DIMENSION_TEXTURE3D:
            depth = texture.subresources[mip][3]
            first, size = part.FirstWSlice, part.WSize
            if _uint(first) and first < depth and _is_all(size):
                size = depth - first
            if not (_uint(first) and _uint(size)) or size < 1 or first + size > depth:
                raise VoidMisuse(f"pDesc.Texture3D has FirstWSlice {first!r} and WSize {size!r}; mip {mip} of "
                                 f"{resource._label} is {depth} deep (depth slices 0 to {depth - 1}; WSize -1: to the "
                                 "last).")
            first, count = int(first), int(size)
        else:
            first, count = _slices(resource, part, member, is_array)
    if not supports_typed_uav(fmt):
        raise VoidMisuse(f"pDesc.Format is DXGI_FORMAT_{format_name(fmt)}, which has no typed unordered-access views "
                         "(sRGB and depth formats do not).")
    if texture.dimension == D3D12_RESOURCE_DIMENSION_TEXTURE3D:
        subresources = [mip]
    else:
        subresources = [mip + s * texture.mips for s in range(first, first + count)]
    _write(resource, data, offset, subresources)
    stamp_view(data, offset, fmt, 0, 0)
    stamp_texture_view(data, offset, mip, first, count)
    _stamp_image(resource, data, offset, fmt, _default_member(texture) if desc is None else member, mip, 1, first,
                 count)
