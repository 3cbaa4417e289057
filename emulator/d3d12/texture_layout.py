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

Creating textures (CreateCommittedResource / CreatePlacedResource, `check_texture_resource`) adds D3D12's
creation rules to the desc's:
- Layout UNKNOWN only: ROW_MAJOR textures need ALLOW_CROSS_ADAPTER on a shared cross-adapter heap, and
  the emulated adapters report CrossAdapterRowMajorTextureSupported 0; the 64KB swizzles need
  StandardSwizzle64KBSupported, also 0;
- UNKNOWN-layout textures live on DEFAULT or CUSTOM heaps, not UPLOAD or READBACK (their rows are
  uploaded through a buffer and CopyTextureRegion);
- Flags: ALLOW_UNORDERED_ACCESS needs a format with typed UAVs (not _SRGB, not a depth format) and
  excludes ALLOW_DEPTH_STENCIL; ALLOW_DEPTH_STENCIL needs a depth format (D32_FLOAT, D16_UNORM) and
  is not for Texture3D; a heap with D3D12_HEAP_FLAG_DENY_NON_RT_DS_TEXTURES (DENY_RT_DS_TEXTURES)
  takes no texture without (with) ALLOW_RENDER_TARGET or ALLOW_DEPTH_STENCIL;
- Alignment 0 or 65536 (D3D12_DEFAULT_RESOURCE_PLACEMENT_ALIGNMENT), or 4096
  (D3D12_SMALL_RESOURCE_PLACEMENT_ALIGNMENT) for a "small resource": UNKNOWN layout, neither render
  target nor depth stencil, and the most detailed mip estimated at 64 KiB or less in 4 KiB standard-
  swizzle tiles (DirectX-Specs, "D3D12 Tight Placed Resource Alignment", which quotes the rule; the
  tile shapes are D3D11.3's 4 KiB tiles: 64x64 texels at 8 bits per texel, 64x32 at 16, 32x32 at 32,
  32x16 at 64, 16x16 at 128; 3D: 16x16x16, 16x16x8, 16x8x8, 8x8x8, 8x8x4). 4194304 is for multisampled
  textures, which the emulator does not have.
- GetResourceAllocationInfo (`allocation_info`): Alignment 65536, or 4096 when the desc asks for it and
  the texture is small (otherwise 65536, as the D3D12SmallResources sample expects: it asks again with
  Alignment 0 when the small alignment is not granted); SizeInBytes is the mirror's own layout rounded
  up to that alignment.

The mirror's layout (`TextureLayout`): a texture's bytes in GPU memory are its subresources laid out as
GetCopyableFootprints(desc, 0, all, BaseOffset 0) gives them (rows 256 bytes apart, subresources on 512-byte
boundaries, in subresource order). No swizzle: every driver has its own, invisible to a host program,
which reaches texels only through copies, views and WriteToSubresource / ReadFromSubresource.
"""
from dmlemu.com import VoidMisuse, enum_name, is_integer, is_one_of
from dmlemu.d3d12.base import invalid_arg
from dmlemu.d3d12.enums import (
    D3D12_RESOURCE_DIMENSION, D3D12_RESOURCE_DIMENSION_TEXTURE1D, D3D12_RESOURCE_DIMENSION_TEXTURE2D,
    D3D12_RESOURCE_DIMENSION_TEXTURE3D,
)
from dmlemu.d3d12.structs import D3D12_BOX, D3D12_PLACED_SUBRESOURCE_FOOTPRINT, D3D12_SUBRESOURCE_FOOTPRINT
from dmlemu.dxgi import DXGI_FORMAT, DXGI_FORMAT_UNKNOWN, FORMAT_BYTES
from dmlemu.d3d12.enums import (
    D3D12_HEAP_FLAG_DENY_NON_RT_DS_TEXTURES, D3D12_HEAP_FLAG_DENY_RT_DS_TEXTURES, D3D12_HEAP_TYPE,
    D3D12_HEAP_TYPE_READBACK, D3D12_HEAP_TYPE_UPLOAD, D3D12_RESOURCE_FLAG_ALLOW_CROSS_ADAPTER,
    D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL, D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET,
    D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS, D3D12_RESOURCE_FLAG_DENY_SHADER_RESOURCE, D3D12_TEXTURE_LAYOUT,
    D3D12_TEXTURE_LAYOUT_ROW_MAJOR)

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


# ---- creating textures --------------------------------------------------------------------------------
SMALL_ALIGNMENT = 4096                      # D3D12_SMALL_RESOURCE_PLACEMENT_ALIGNMENT
DEFAULT_ALIGNMENT = 65536                   # D3D12_DEFAULT_RESOURCE_PLACEMENT_ALIGNMENT
SMALL_RESOURCE_BYTES = 65536                # a small resource's most detailed mip: at most this, in 4 KiB tiles
DEPTH_FORMATS = {"D32_FLOAT", "D16_UNORM"}
# 4 KiB standard-swizzle tile shapes (texels) per bytes per texel: (2-D width, height), (3-D width, height, depth).
SMALL_TILES_2D = {1: (64, 64), 2: (64, 32), 4: (32, 32), 8: (32, 16), 16: (16, 16)}
SMALL_TILES_3D = {1: (16, 16, 16), 2: (16, 16, 8), 4: (16, 8, 8), 8: (8, 8, 8), 16: (8, 8, 4)}
_RT_DS = int(D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET | D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL)


def format_name(fmt):
    """A DXGI format's name without the prefix ("R8G8B8A8_UNORM"), or None for a format the mirror lacks."""
    return DXGI_FORMAT(int(fmt)).name[len("DXGI_FORMAT_"):] if is_integer(fmt) and int(fmt) in FORMAT_BYTES \
        and int(fmt) else None


def supports_typed_uav(fmt):
    """Whether a format can be a typed UAV's (D3D12_FORMAT_SUPPORT1_TYPED_UNORDERED_ACCESS_VIEW): not an sRGB,
    depth or typeless format (a typeless resource takes a typed UAV of its family)."""
    name = format_name(fmt)
    return name is not None and not name.endswith("_SRGB") and name not in DEPTH_FORMATS \
        and not name.startswith("R32G32B32_")     # 96-bit formats have no typed UAVs


def format_family(fmt):
    """The channel layout of a format ("R8G8B8A8"): formats of one family can view each other's TYPELESS
    resources (D3D12's format casting within a typeless family)."""
    name = format_name(fmt)
    return None if name is None else name.split("_")[0]


def is_small_resource(desc):
    """The small-resource rule (see the banner): the most detailed mip in 4 KiB tiles is at most 64 KiB."""
    if int(desc.Flags) & _RT_DS or not is_one_of(desc.Layout, (D3D12_TEXTURE_LAYOUT_UNKNOWN,)):
        return False
    element = FORMAT_BYTES[int(desc.Format)]
    if element not in SMALL_TILES_2D:
        return False
    width, height = int(desc.Width), int(desc.Height)
    dimension = int(desc.Dimension)
    if dimension == D3D12_RESOURCE_DIMENSION_TEXTURE1D:
        tiles = -(-width * element // SMALL_ALIGNMENT)
    elif dimension == D3D12_RESOURCE_DIMENSION_TEXTURE2D:
        tile_w, tile_h = SMALL_TILES_2D[element]
        tiles = -(-width // tile_w) * -(-height // tile_h)
    else:
        tile_w, tile_h, tile_d = SMALL_TILES_3D[element]
        tiles = -(-width // tile_w) * -(-height // tile_h) * -(-int(desc.DepthOrArraySize) // tile_d)
    return tiles * SMALL_ALIGNMENT <= SMALL_RESOURCE_BYTES


class TextureLayout:
    """A texture's bytes in the mirror (see the banner): per subresource (Offset, Width, Height, Depth,
    RowPitch, RowSizeInBytes) from offset 0, and `total` bytes."""

    __slots__ = ("dimension", "format", "element", "mips", "array_size", "subresources", "total")

    def __init__(self, m, desc, field="pDesc"):
        self.dimension, self.mips, self.array_size = check_texture_desc(m, desc, field)
        self.format = int(desc.Format)
        self.element = FORMAT_BYTES[self.format]
        count = self.mips * self.array_size
        layouts, _, row_sizes, self.total = texture_footprints(m, desc, 0, count, 0, _is_uint)
        self.subresources = tuple((int(p.Offset), int(p.Footprint.Width), int(p.Footprint.Height),
                                   int(p.Footprint.Depth), int(p.Footprint.RowPitch), int(r))
                                  for p, r in zip(layouts, row_sizes))

    @property
    def count(self):
        return len(self.subresources)

    def span(self, index):
        """(first byte, end) of subresource `index` in the texture's bytes."""
        offset, _, height, depth, pitch, row_size = self.subresources[index]
        return offset, offset + pitch * (height * depth - 1) + row_size

    def rows(self, index, box=None):
        """(byte offset, bytes) of each row of texels subresource `index` holds inside `box` ((left, top,
        front, right, bottom, back) in texels; None: all of it), in order: z outer, y inner."""
        offset, width, height, depth, pitch, _ = self.subresources[index]
        left, top, front, right, bottom, back = box or (0, 0, 0, width, height, depth)
        if right <= left or bottom <= top or back <= front:
            return []        # an empty box: nothing to move
        return [(offset + (z * height + y) * pitch + left * self.element, (right - left) * self.element)
                for z in range(front, back) for y in range(top, bottom)]


def _is_uint(value, bits=64):
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < (1 << bits)


def check_texture_resource(m, desc, heap_type, heap_flags=0, field="pDesc"):
    """CreateCommittedResource's / CreatePlacedResource's rules for a texture desc (see the banner); returns
    its TextureLayout. Raises HResultError (E_INVALIDARG) with a sentence naming the field and the rule."""
    layout = desc.Layout
    if is_one_of(layout, (D3D12_TEXTURE_LAYOUT_ROW_MAJOR,)):
        raise invalid_arg(m, f"{field}.Layout is D3D12_TEXTURE_LAYOUT_ROW_MAJOR; a row-major texture needs "
                             "D3D12_RESOURCE_FLAG_ALLOW_CROSS_ADAPTER, which the emulated adapters do not support "
                             "(CrossAdapterRowMajorTextureSupported 0): create it with D3D12_TEXTURE_LAYOUT_UNKNOWN.")
    if not is_one_of(layout, (D3D12_TEXTURE_LAYOUT_UNKNOWN,)):
        raise invalid_arg(m, f"{field}.Layout is {enum_name(D3D12_TEXTURE_LAYOUT, layout)}; the emulated adapters "
                             "report StandardSwizzle64KBSupported 0, so a texture takes D3D12_TEXTURE_LAYOUT_UNKNOWN.")
    flags = desc.Flags
    if not _is_uint(flags, 32):
        raise invalid_arg(m, f"{field}.Flags is {_show(flags)}; it must be a combination of D3D12_RESOURCE_FLAGS.")
    flags = int(flags)
    alignment = desc.Alignment
    if is_one_of(alignment, (4194304,)):
        raise invalid_arg(m, f"{field}.Alignment is 4194304; that is D3D12_DEFAULT_MSAA_RESOURCE_PLACEMENT_ALIGNMENT, "
                             "for multisampled textures only; a texture takes 0, 4096 or 65536.")
    texture = TextureLayout(m, desc, field)
    name = format_name(desc.Format)
    if flags & D3D12_RESOURCE_FLAG_ALLOW_CROSS_ADAPTER:
        raise invalid_arg(m, f"{field}.Flags has D3D12_RESOURCE_FLAG_ALLOW_CROSS_ADAPTER; the emulated adapters "
                             "have no cross-adapter textures.")
    if flags & D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL:
        if name not in DEPTH_FORMATS:
            raise invalid_arg(m, f"{field}.Flags has D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL, but Format is "
                                 f"DXGI_FORMAT_{name}; a depth-stencil texture needs a depth format "
                                 "(DXGI_FORMAT_D32_FLOAT, DXGI_FORMAT_D16_UNORM).")
        if texture.dimension == D3D12_RESOURCE_DIMENSION_TEXTURE3D:
            raise invalid_arg(m, f"{field}.Flags has D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL, which a "
                                 "D3D12_RESOURCE_DIMENSION_TEXTURE3D cannot have.")
        if flags & (D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS | D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET):
            raise invalid_arg(m, f"{field}.Flags has D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL with ALLOW_UNORDERED_ACCESS "
                                 "or ALLOW_RENDER_TARGET; a depth-stencil texture can have neither.")
    elif flags & D3D12_RESOURCE_FLAG_DENY_SHADER_RESOURCE:
        raise invalid_arg(m, f"{field}.Flags has D3D12_RESOURCE_FLAG_DENY_SHADER_RESOURCE without "
                             "ALLOW_DEPTH_STENCIL; only depth-stencil textures may deny shader-resource views.")
    if flags & D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS and not (name.endswith("TYPELESS")
                                                                 or supports_typed_uav(desc.Format)):
        raise invalid_arg(m, f"{field}.Flags has D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS, but Format "
                             f"DXGI_FORMAT_{name} has no typed unordered-access views (sRGB and depth formats do "
                             "not); use the UNORM (or TYPELESS) format of the family.")
    if is_one_of(heap_type, (D3D12_HEAP_TYPE_UPLOAD, D3D12_HEAP_TYPE_READBACK)):
        raise invalid_arg(m, f"a {enum_name(D3D12_RESOURCE_DIMENSION, desc.Dimension)} with Layout "
                             f"D3D12_TEXTURE_LAYOUT_UNKNOWN cannot live on a {enum_name(D3D12_HEAP_TYPE, heap_type)} "
                             "heap; put it on a DEFAULT heap (or a CPU-visible CUSTOM one) and move its rows through "
                             "an UPLOAD or READBACK buffer with CopyTextureRegion.")
    rt_ds = bool(flags & _RT_DS)
    if rt_ds and heap_flags & D3D12_HEAP_FLAG_DENY_RT_DS_TEXTURES:
        raise invalid_arg(m, "HeapFlags has D3D12_HEAP_FLAG_DENY_RT_DS_TEXTURES, but the texture allows render-target "
                             "or depth-stencil use.")
    if not rt_ds and heap_flags & D3D12_HEAP_FLAG_DENY_NON_RT_DS_TEXTURES:
        raise invalid_arg(m, "HeapFlags has D3D12_HEAP_FLAG_DENY_NON_RT_DS_TEXTURES, but the texture allows neither "
                             "render-target nor depth-stencil use.")
    if is_one_of(alignment, (SMALL_ALIGNMENT,)) and not is_small_resource(desc):
        raise invalid_arg(m, f"{field}.Alignment is 4096 (D3D12_SMALL_RESOURCE_PLACEMENT_ALIGNMENT), but the "
                             f"texture is not a small resource: its most detailed mip takes more than "
                             f"{SMALL_RESOURCE_BYTES} bytes in 4 KiB tiles (or it is a render target or depth stencil); "
                             "give Alignment 0 or 65536.")
    return texture


def texture_alignment(desc):
    """The placement alignment a valid texture desc gets: 4096 when asked for and small, else 65536."""
    if is_one_of(desc.Alignment, (SMALL_ALIGNMENT,)) and is_small_resource(desc):
        return SMALL_ALIGNMENT
    return DEFAULT_ALIGNMENT


def allocation_info(m, desc, field="pResourceDescs"):
    """(SizeInBytes, Alignment) GetResourceAllocationInfo reports for a texture desc (see the banner)."""
    texture = TextureLayout(m, desc, field)
    if not _is_uint(desc.Flags, 32):
        raise invalid_arg(m, f"{field}.Flags is {_show(desc.Flags)}; it must be a combination of D3D12_RESOURCE_FLAGS.")
    alignment = texture_alignment(desc)
    return _align(texture.total, alignment), alignment


def subresource_name(texture, index):
    """"subresource 3 (mip 1 of array slice 1)": a subresource index in a sentence."""
    return f"subresource {index} (mip {index % texture.mips} of array slice {index // texture.mips})"


# ---- boxes (CopyTextureRegion, Read/WriteToSubresource) ---------------------------------------------------
def check_box(m, field, box, texture, index):
    """A D3D12_BOX (None: all of subresource `index`) checked against the subresource's size, as a tuple
    (left, top, front, right, bottom, back); E_INVALIDARG with a sentence otherwise (for CPU methods)."""
    try:
        return texture_box(field, box, _dims_of_subresource(texture, index), subresource_name(texture, index))
    except VoidMisuse as misuse:
        raise invalid_arg(m, misuse.message) from None


def _dims_of_subresource(texture, index):
    _, width, height, depth, _, _ = texture.subresources[index]
    return width, height, depth


def texture_box(field, box, dims, what):
    """A D3D12_BOX (None: all of a `dims` (width, height, depth) region named `what`) as a tuple; VoidMisuse."""
    width, height, depth = dims
    if box is None:
        return (0, 0, 0, width, height, depth)
    if not isinstance(box, D3D12_BOX):
        raise VoidMisuse(f"{field} is {box!r}; it must be a D3D12_BOX or None.")
    values = (box.left, box.top, box.front, box.right, box.bottom, box.back)
    if not all(_is_uint(v, 32) for v in values):
        raise VoidMisuse(f"{field} is {values}; its fields are UINTs.")
    left, top, front, right, bottom, back = (int(v) for v in values)
    if right > width or bottom > height or back > depth:
        raise VoidMisuse(f"{field} is (left {left}, top {top}, front {front}, right {right}, bottom {bottom}, back "
                         f"{back}); it passes the edge of {what}, which is {width} x {height} x {depth} texels.")
    return left, top, front, right, bottom, back
