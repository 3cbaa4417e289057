"""Image descriptors: the 256-bit records through which image_load and image_store reach a texture view.

A texture's SRV or UAV (emulator/d3d12/texture_views.py) fills its 32-byte descriptor slot with a buffer
descriptor of the view's bytes (dwords 0-3, buffer_descriptor.py: base, size, valid, read-only) followed by
what an image instruction needs to find a texel in the mirror's layout (docs/TEXTURES.md, "The mirror's
layout": rows RowPitch = align(width x texel bytes, 256) apart, subresources 512-aligned, in subresource
order). Our own layout, like AMD's 8-dword image resource (T#) in spirit; a kernel loads it with
s_load_dwordx8:

    dword4  the view's DXGI format (ClearUnorderedAccessView* reads it too: clear.stamp_view)
    dword5  bits 0-13 width - 1 and bits 14-27 height - 1 of the view's most detailed mip;
            bits 28-31 the view's mip count - 1 (an SRV's MipLevels; a UAV has one mip)
    dword6  bits 0-23 the array pitch in 512-byte units (bytes from one array slice's first subresource to
            the next's: one slice's whole mip chain); bits 24-26 the view dimension (DIMENSIONS)
    dword7  bit 31 a texture UAV (clear.stamp_texture_view), bit 30 an image view; bits 0-3 the view's most
            detailed mip, 4-15 its first array slice (Texture3D: first depth slice), 16-27 its slice count
            (Texture3D: WSize for a UAV, which has one mip; an SRV starts at depth 0 and holds the whole depth,
            max(1, count >> m) at its mip m)

A descriptor without bit 30 (a buffer's, a null one) is not an image: image instructions through it
read 0 and drop stores, counted as out of range.

Addressing (`texel_offsets`): an instruction gives each lane (x, y, z, mip) in four VGPRs. The view
dimension says which of them are coordinates, as HLSL's Load / operator[] takes them: TEXTURE1D (x),
TEXTURE1DARRAY (x, slice = y), TEXTURE2D (x, y), TEXTURE2DARRAY (x, y, slice = z), TEXTURE3D (x, y, z);
the others are ignored. `mip` counts from the view's most detailed mip. A lane is in range when every
coordinate is below the mip's size (width, height, slices; a 3-D mip's depth is max(1, depth >> mip))
and mip below the view's mip count; its texel is at
    base + mip offset + slice x array pitch + y x row pitch + x x texel bytes        (arrays)
    base + mip offset + (first + z) x row pitch x height + y x row pitch + x x ...   (Texture3D)
with the mip offsets and pitches the mirror's layout gives a chain of mips from the view's first one.
A texel not wholly inside the descriptor's bytes (a hostile descriptor) is out of range too.
"""
from dataclasses import dataclass

import numpy as np

from dmlemu.functional.buffer_descriptor import unpack_buffer_descriptor

IMAGE_DWORDS = 8
IMAGE_BIT = 1 << 30
TEXTURE_UAV_BIT = 1 << 31
ARRAY_PITCH_UNIT = 512
ROW_PITCH_ALIGNMENT = 256
# View dimension codes (dword6 bits 24-26): (name, which address component is the slice or None, 3-D).
DIMENSIONS = {0: ("TEXTURE1D", None, False), 1: ("TEXTURE1DARRAY", 1, False), 2: ("TEXTURE2D", None, False),
              3: ("TEXTURE2DARRAY", 2, False), 4: ("TEXTURE3D", None, True)}
DIMENSION_CODES = {name: code for code, (name, _, _) in DIMENSIONS.items()}


def stamp_image_view(heap_bytes, slot_offset, fmt, width, height, mips, array_pitch, dimension, mip, first, count):
    """Write dwords 4-7 of a texture view's descriptor slot (see the banner); dwords 0-3 are already there.
    Keeps bit 31 of dword7 (a texture UAV's stamp)."""
    words = heap_bytes[slot_offset + 16:slot_offset + 32].view("<u4")
    uav = int(words[3]) & TEXTURE_UAV_BIT
    words[0] = int(fmt)
    words[1] = (int(width) - 1) | (int(height) - 1) << 14 | (int(mips) - 1) << 28
    words[2] = (int(array_pitch) // ARRAY_PITCH_UNIT) & 0xFFFFFF | DIMENSION_CODES[dimension] << 24
    words[3] = uav | IMAGE_BIT | (int(mip) & 0xF) | (int(first) & 0xFFF) << 4 | (int(count) & 0xFFF) << 16


@dataclass(frozen=True)
class ImageView:
    """An image descriptor, decoded: the buffer part and the geometry."""
    va: int
    size: int
    read_only: bool
    format: int
    width: int
    height: int
    mips: int
    array_pitch: int
    dimension: int
    first_mip: int
    first: int
    count: int


def unpack_image_descriptor(dwords):
    """An ImageView from eight dwords, or None when they are not a valid image descriptor."""
    words = [int(d) for d in dwords[:IMAGE_DWORDS]]
    va, size, valid = unpack_buffer_descriptor(words)
    if not valid or not words[7] & IMAGE_BIT or (words[6] >> 24) & 0x7 not in DIMENSIONS:
        return None
    return ImageView(va, size, bool(words[3] & 0x2), words[4], (words[5] & 0x3FFF) + 1, ((words[5] >> 14) & 0x3FFF) + 1,
                     (words[5] >> 28) + 1, (words[6] & 0xFFFFFF) * ARRAY_PITCH_UNIT, (words[6] >> 24) & 0x7,
                     words[7] & 0xF, (words[7] >> 4) & 0xFFF, (words[7] >> 16) & 0xFFF)


def mip_chain(view, texel_bytes):
    """Per mip of the view, from its most detailed: (offset from the view's base, width, height, depth, row
    pitch), in the mirror's layout."""
    three_d = DIMENSIONS[view.dimension][2]
    depth = view.first + view.count if three_d else 1
    chain, offset = [], 0
    for m in range(view.mips):
        w, h, d = max(1, view.width >> m), max(1, view.height >> m), max(1, depth >> m)
        pitch = -(-w * texel_bytes // ROW_PITCH_ALIGNMENT) * ROW_PITCH_ALIGNMENT
        chain.append((offset, w, h, d, pitch))
        end = offset + pitch * (h * d - 1) + w * texel_bytes
        offset = -(-end // ARRAY_PITCH_UNIT) * ARRAY_PITCH_UNIT
    return chain


def texel_offsets(view, texel_bytes, x, y, z, mip):
    """(byte offsets from the view's base, in range) for lanes' uint32 coordinates (arrays of one shape)."""
    name, slice_component, three_d = DIMENSIONS[view.dimension]
    x, y, z, mip = (np.asarray(a, dtype=np.int64) for a in (x, y, z, mip))
    coords = (x, y, z)
    slices = coords[slice_component] if slice_component is not None else np.zeros_like(x)
    has_y = name in ("TEXTURE2D", "TEXTURE2DARRAY", "TEXTURE3D")
    row = y if has_y else np.zeros_like(x)
    depth = z if three_d else np.zeros_like(x)
    offsets = np.zeros(x.shape, dtype=np.int64)
    ok = np.zeros(x.shape, dtype=bool)
    for m, (base, w, h, d, pitch) in enumerate(mip_chain(view, texel_bytes)):
        at = mip == m
        if not at.any():
            continue
        if three_d:
            inside = at & (x < w) & (row < h) & (depth < max(1, view.count >> m))
            where = base + (view.first + depth) * pitch * h + row * pitch + x * texel_bytes
        else:
            inside = at & (x < w) & (row < h) & (slices < view.count)
            where = base + slices * view.array_pitch + row * pitch + x * texel_bytes
        offsets = np.where(inside, where, offsets)
        ok |= inside
    ok &= offsets + texel_bytes <= view.size
    return offsets, ok
