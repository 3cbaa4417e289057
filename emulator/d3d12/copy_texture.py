"""ID3D12GraphicsCommandList::CopyTextureRegion: texels between textures and buffer footprints.

CopyTextureRegion(pDst, DstX, DstY, DstZ, pSrc, pSrcBox) copies a box of texels. Each side is a
D3D12_TEXTURE_COPY_LOCATION: D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX names a subresource of a
texture; D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT names texels laid out in a buffer as a
D3D12_PLACED_SUBRESOURCE_FOOTPRINT describes them (GetCopyableFootprints' layouts). Rules checked while
recording (misuse puts the list in its error state, as the other recording methods do), as D3D12's:
- at least one side is a texture subresource (buffer to buffer is CopyBufferRegion); a SUBRESOURCE_INDEX
  side names a texture and an index below its subresource count, a PLACED_FOOTPRINT side a buffer;
- a footprint: Offset a multiple of D3D12_TEXTURE_DATA_PLACEMENT_ALIGNMENT (512), RowPitch a multiple of
  D3D12_TEXTURE_DATA_PITCH_ALIGNMENT (256) and at least Width times the format's bytes per texel, Width,
  Height and Depth at least 1, and its last row inside the buffer; its Format is the texture's format
  or one of the texture's typeless family of the same size (copy-compatible);
- two textures: copy-compatible formats (same channel layout), and not one subresource onto itself;
- pSrcBox (None: the whole source) has left < right, top < bottom, front < back (an empty box copies
  nothing) inside the source; DstX, DstY, DstZ plus the box's size lie inside the destination;
- the destination is not on an UPLOAD heap and the source not on a READBACK heap.
At execution the source subresource must be in COPY_SOURCE and the destination subresource in COPY_DEST
(implicit promotion as resource.py says, per subresource), the hazard tracker sees each side as one byte range (the span from the box's first
row to its last; texture subresources are ranges of the texture's bytes in the mirror's layout,
texture_layout.TextureLayout), and the copy engine moves the rows (Gpu.copy_rows: one copy's timing).
CopyResource between two textures with the same desc (format family aside) copies every byte of the
mirror's layout, which is the same for both.
"""
from dmlemu.com import VoidMisuse, enum_name, is_integer, is_one_of
from dmlemu.d3d12.enums import (D3D12_HEAP_TYPE_READBACK, D3D12_HEAP_TYPE_UPLOAD, D3D12_TEXTURE_COPY_TYPE,
                                 D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT, D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX)
from dmlemu.d3d12.structs import D3D12_BOX, D3D12_PLACED_SUBRESOURCE_FOOTPRINT, D3D12_TEXTURE_COPY_LOCATION
from dmlemu.d3d12.texture_layout import (TEXTURE_DATA_PITCH_ALIGNMENT, TEXTURE_DATA_PLACEMENT_ALIGNMENT,
                                         format_family, format_name, subresource_name, texture_box)
from dmlemu.dxgi import FORMAT_BYTES

_SUBRESOURCE, _FOOTPRINT = int(D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX), int(D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT)


def _uint(value, bits=32):
    return is_integer(value) and 0 <= value < 1 << bits


class _Side:
    """One resolved side of a copy: the resource, its texel dims, format, and how a texel maps to bytes."""

    __slots__ = ("resource", "dims", "format", "element", "offset", "pitch", "height", "what", "index")

    def rows(self, x, y, z, width, height, depth):
        """(byte offset, bytes) of each row of the box at (x, y, z), z outer."""
        return [(self.offset + ((z + k) * self.height + y + j) * self.pitch + x * self.element, width * self.element)
                for k in range(depth) for j in range(height)]


def _side(command_list, field, location, is_dest):
    if not isinstance(location, D3D12_TEXTURE_COPY_LOCATION):
        raise VoidMisuse(f"{field} is {location!r}; it must be a D3D12_TEXTURE_COPY_LOCATION.")
    resource = location.pResource
    command_list._check_resource(f"{field}.pResource", resource)
    side = _Side()
    side.resource = resource
    kind = location.Type
    if is_one_of(kind, (_SUBRESOURCE,)):
        texture = resource._texture
        if texture is None:
            raise VoidMisuse(f"{field}.Type is D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX, but {field}.pResource "
                             f"{resource._label} is a buffer; a buffer side is a PLACED_FOOTPRINT.")
        index = location.SubresourceIndex
        if not _uint(index) or index >= texture.count:
            raise VoidMisuse(f"{field}.SubresourceIndex is {index!r}; {resource._label} has subresources 0 to "
                             f"{texture.count - 1}.")
        index = int(index)
        offset, width, height, depth, pitch, _ = texture.subresources[index]
        side.dims, side.format, side.element = (width, height, depth), texture.format, texture.element
        side.offset, side.pitch, side.height = offset, pitch, height
        side.what, side.index = f"{subresource_name(texture, index)} of {resource._label}", index
    elif is_one_of(kind, (_FOOTPRINT,)):
        if resource._texture is not None:
            raise VoidMisuse(f"{field}.Type is D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT, but {field}.pResource "
                             f"{resource._label} is a texture; a texture side is a SUBRESOURCE_INDEX.")
        _footprint(side, f"{field}.PlacedFootprint", location.PlacedFootprint, resource)
        side.index = None
    else:
        raise VoidMisuse(f"{field}.Type is {enum_name(D3D12_TEXTURE_COPY_TYPE, kind)}; it must be "
                         "D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX or D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT.")
    if is_dest and resource._heap_type == D3D12_HEAP_TYPE_UPLOAD:
        raise VoidMisuse(f"the destination {resource._label} is on an UPLOAD heap, which stays in "
                         "D3D12_RESOURCE_STATE_GENERIC_READ and cannot be written by the GPU.")
    if not is_dest and resource._heap_type == D3D12_HEAP_TYPE_READBACK:
        raise VoidMisuse(f"the source {resource._label} is on a READBACK heap, which stays in "
                         "D3D12_RESOURCE_STATE_COPY_DEST and cannot be read by the GPU.")
    return side


def _footprint(side, field, placed, buffer):
    if not isinstance(placed, D3D12_PLACED_SUBRESOURCE_FOOTPRINT):
        raise VoidMisuse(f"{field} is {placed!r}; it must be a D3D12_PLACED_SUBRESOURCE_FOOTPRINT.")
    offset, footprint = placed.Offset, placed.Footprint
    if not _uint(offset, 64) or offset % TEXTURE_DATA_PLACEMENT_ALIGNMENT:
        raise VoidMisuse(f"{field}.Offset is {offset!r}; a footprint starts at a multiple of "
                         f"D3D12_TEXTURE_DATA_PLACEMENT_ALIGNMENT ({TEXTURE_DATA_PLACEMENT_ALIGNMENT}).")
    name = format_name(footprint.Format)
    if name is None:
        raise VoidMisuse(f"{field}.Footprint.Format is {footprint.Format!r}; it must be a DXGI_FORMAT with a size per "
                         "texel (the texture's format).")
    element = FORMAT_BYTES[int(footprint.Format)]
    for attribute in ("Width", "Height", "Depth"):
        value = getattr(footprint, attribute)
        if not _uint(value) or value < 1:
            raise VoidMisuse(f"{field}.Footprint.{attribute} is {value!r}; it must be at least 1.")
    width, height, depth, pitch = (int(footprint.Width), int(footprint.Height), int(footprint.Depth),
                                   footprint.RowPitch)
    if not _uint(pitch) or pitch % TEXTURE_DATA_PITCH_ALIGNMENT or pitch < width * element:
        raise VoidMisuse(f"{field}.Footprint.RowPitch is {pitch!r}; it must be a multiple of "
                         f"D3D12_TEXTURE_DATA_PITCH_ALIGNMENT ({TEXTURE_DATA_PITCH_ALIGNMENT}) and at least Width "
                         f"{width} x {element} bytes per texel = {width * element}.")
    end = int(offset) + int(pitch) * (height * depth - 1) + width * element
    if end > buffer._width:
        raise VoidMisuse(f"{field} ({width} x {height} x {depth} texels of DXGI_FORMAT_{name}, RowPitch {pitch}, from "
                         f"Offset {offset}) ends at byte {end}, past the end of {buffer._label}, which is "
                         f"{buffer._width} bytes.")
    side.dims, side.format, side.element = (width, height, depth), int(footprint.Format), element
    side.offset, side.pitch, side.height = int(offset), int(pitch), height
    side.what = f"the footprint in {buffer._label}"


def _compatible(a, b):
    """Copy-compatible formats: the same bytes per texel and channel layout (TYPELESS and its typed members)."""
    return FORMAT_BYTES[a] == FORMAT_BYTES[b] and format_family(a) == format_family(b)


def record_copy_texture_region(command_list, dst, x, y, z, src, src_box):
    """Check a CopyTextureRegion call and record its command (VoidMisuse on misuse)."""
    d = _side(command_list, "pDst", dst, True)
    s = _side(command_list, "pSrc", src, False)
    if d.index is None and s.index is None:
        raise VoidMisuse("pDst and pSrc are both PLACED_FOOTPRINT; one side of CopyTextureRegion must be a texture "
                         "subresource (copy buffers with CopyBufferRegion).")
    if not _compatible(d.format, s.format):
        raise VoidMisuse(f"pDst's format DXGI_FORMAT_{format_name(d.format)} and pSrc's DXGI_FORMAT_"
                         f"{format_name(s.format)} are not copy-compatible; they must be one format, or members of "
                         "one typeless family.")
    if d.resource is s.resource and d.index == s.index:
        raise VoidMisuse(f"pDst and pSrc are both {d.what}; CopyTextureRegion cannot copy a subresource onto itself.")
    for field, value in (("DstX", x), ("DstY", y), ("DstZ", z)):
        if not _uint(value):
            raise VoidMisuse(f"{field} is {value!r}; it must be a UINT.")
    left, top, front, right, bottom, back = texture_box("pSrcBox", src_box, s.dims, s.what)
    width, height, depth = right - left, bottom - top, back - front
    if width <= 0 or height <= 0 or depth <= 0:
        return     # an empty box copies nothing (D3D12)
    dw, dh, dd = d.dims
    if x + width > dw or y + height > dh or z + depth > dd:
        raise VoidMisuse(f"a {width} x {height} x {depth} box at DstX {x}, DstY {y}, DstZ {z} passes the edge of "
                         f"{d.what}, which is {dw} x {dh} x {dd} texels.")
    dst_rows = d.rows(int(x), int(y), int(z), width, height, depth)
    src_rows = s.rows(left, top, front, width, height, depth)
    command_list._commands.append(CopyTextureRegionCommand(
        d.resource, s.resource, [(a, b, n) for (a, n), (b, _) in zip(dst_rows, src_rows)], d.index, s.index))


class CopyTextureRegionCommand:
    """CopyTextureRegion: the copy engine moves the box's rows (dst offset, src offset, bytes)."""

    __slots__ = ("dst", "src", "rows", "dst_index", "src_index")
    name = "CopyTextureRegion"

    def __init__(self, dst, src, rows, dst_index, src_index):
        self.dst, self.src, self.rows = dst, src, rows
        self.dst_index, self.src_index = dst_index, src_index      # subresource indices (None: a buffer)

    def execute(self, ctx):
        from dmlemu.d3d12.hazards import note_access
        from dmlemu.d3d12.resource import COPY_DEST, COPY_SOURCE, _require_state
        _require_state(self.src, COPY_SOURCE, f"the source of {self.name}",
                       None if self.src_index is None else (self.src_index,))
        _require_state(self.dst, COPY_DEST, f"the destination of {self.name}",
                       None if self.dst_index is None else (self.dst_index,))
        first, last = self.rows[0], self.rows[-1]
        note_access(ctx, self.name, reads=[(self.src, first[1], last[1] + last[2] - first[1])],
                    writes=[(self.dst, first[0], last[0] + last[2] - first[0])], copy=True)
        ctx.gpu.copy_rows(self.dst._allocation, self.src._allocation, self.rows, ctx.engine)


def check_copy_resource(dst, src):
    """CopyResource's rules when a side is a texture: both textures, one desc but the format, and
    copy-compatible formats (VoidMisuse otherwise)."""
    if dst._texture is None or src._texture is None:
        texture, other = (dst, src) if dst._texture is not None else (src, dst)
        raise VoidMisuse(f"{texture._label} is a texture and {other._label} a buffer; CopyResource copies a texture "
                         "only to a texture with the same desc (use CopyTextureRegion with a footprint).")
    a, b = dst._desc, src._desc
    for attribute in ("Dimension", "Width", "Height", "DepthOrArraySize", "MipLevels"):
        if getattr(a, attribute) != getattr(b, attribute):
            raise VoidMisuse(f"pDstResource {dst._label} has {attribute} {getattr(a, attribute)} and pSrcResource "
                             f"{src._label} {getattr(b, attribute)}; CopyResource needs textures of one size.")
    if not _compatible(dst._texture.format, src._texture.format):
        raise VoidMisuse(f"pDstResource's format DXGI_FORMAT_{format_name(dst._texture.format)} and pSrcResource's "
                         f"DXGI_FORMAT_{format_name(src._texture.format)} are not copy-compatible.")
