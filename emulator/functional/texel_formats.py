"""Texel formats: how a texel of a typed texture view becomes the four 32-bit values a shader sees, and back.

image_load and image_store (isa/opcodes.py, emulator/functional/executor.py) read and write a texture
view's texels *as formatted data*: a load hands the lanes four dwords (R, G, B, A), a store takes four and
writes the view's format. The rules are D3D's ("Data Conversion Rules", learn.microsoft.com
.../direct3d10/d3d10-graphics-programming-guide-resources-data-conversion, the same text as the D3D11.3
Functional Specification, section 3.2 "Data Conversion"), with the choices D3D leaves open written down:

load (texel -> shader)
    FLOAT32     the bits, unchanged (NaN payloads too: a load is a move)
    FLOAT16     widened to float32, exact (v_cvt_f32_f16's rule: a NaN keeps its payload, shifted)
    UNORM n     float32(c) / float32(2^n - 1), the float32 division rounded to nearest even (exact for
                0 and 2^n - 1, so 0.0 and 1.0 are reached exactly, as D3D requires)
    SNORM n     c = max(c, -(2^(n-1) - 1)) (both -2^(n-1) and -2^(n-1) + 1 mean -1.0, as D3D defines),
                then float32(c) / float32(2^(n-1) - 1), rounded to nearest even
    UNORM_SRGB  the sRGB curve of D3D11.3 section 3.2.3.7: c' = c / 255; c' / 12.92 if c' <= 0.04045,
                else ((c' + 0.055) / 1.055) ^ 2.4; evaluated once per code with the decimal module (40
                digits, no libm, the same bits on every machine) and rounded to float32 (a 256-entry table);
                R, G and B only: alpha is linear, read as UNORM
    UINT, SINT  zero- or sign-extended to 32 bits
    missing     a format without G, B or A gives 0 for G and B and 1 for A (1.0f for FLOAT, UNORM, SNORM
                and sRGB formats, the integer 1 for UINT and SINT): D3D's defaults for missing components;
                B8G8R8X8's X is missing, D32_FLOAT and D16_UNORM read their depth as R
store (shader -> texel)
    FLOAT32     the bits, unchanged
    FLOAT16     float32 -> float16 round to nearest even, overflow -> inf, subnormals kept, NaN canonical:
                v_cvt_f16_f32's rule (docs/NUMERICS.md "Conversions"; the D3D11.3 text rounds toward
                zero, and the project's rule is round to nearest even everywhere)
    UNORM n     NaN -> 0, clamp to [0, 1], then the exact product c * (2^n - 1) rounded to nearest even
                (D3D's text adds 0.5 and truncates within a 0.6-ULP tolerance; nearest-even is inside it
                and is what ClearUnorderedAccessViewFloat writes, emulator/d3d12/clear.py, so a clear and
                a store of one value give one texel)
    SNORM n     NaN -> 0, clamp to [-1, 1], the exact product c * (2^(n-1) - 1) rounded to nearest even
    UINT, SINT  the 32-bit value saturated to the channel's range (UINT: min(v, 2^n - 1) unsigned; SINT:
                clamp to [-2^(n-1), 2^(n-1) - 1] signed): D3D's integer narrowing clamps
    sRGB        no typed UAV has an sRGB format (texture_layout.supports_typed_uav), so no store exists

The channel layout comes from the DXGI name, lowest bits first (R8G8B8A8: R in byte 0; B8G8R8A8: B in
byte 0; R10G10B10A2: R in bits 0-9, A in bits 30-31). TYPELESS formats have no conversion: a typed view
never has one (emulator/d3d12/texture_views.py refuses them).
"""
from dataclasses import dataclass
from decimal import Decimal, localcontext

import numpy as np

from dmlemu.dxgi import DXGI_FORMAT, FORMAT_BYTES
from dmlemu.isa import numerics as nm

ONE_F32 = 0x3F800000
_COMPONENTS = {"R": 0, "G": 1, "B": 2, "A": 3, "D": 0, "X": None}
KINDS = ("FLOAT", "UNORM", "SNORM", "UINT", "SINT", "UNORM_SRGB")


@dataclass(frozen=True)
class TexelFormat:
    """One typed format: `channels` per shader component R, G, B, A: (bit offset, bits) or None (missing)."""
    value: int
    name: str
    kind: str
    texel_bytes: int
    channels: tuple

    @property
    def integer(self):
        return self.kind in ("UINT", "SINT")


def _parse(member):
    name = member.name[len("DXGI_FORMAT_"):]
    layout, _, kind = name.partition("_")
    if kind not in KINDS:
        return None
    channels, offset, i = [None] * 4, 0, 0
    while i < len(layout):
        j = i + 1
        while j < len(layout) and layout[j].isdigit():
            j += 1
        bits = int(layout[i + 1:j])
        component = _COMPONENTS[layout[i]]
        if component is not None:
            channels[component] = (offset, bits)
        offset, i = offset + bits, j
    return TexelFormat(int(member.value), name, kind, FORMAT_BYTES[int(member.value)], tuple(channels))


# DXGI format value -> TexelFormat: every typed format of dmlemu.dxgi (TYPELESS and UNKNOWN have none).
FORMATS = {f.value: f for f in (_parse(m) for m in DXGI_FORMAT if m.value) if f is not None}


def _srgb_table():
    """float32 bits of the sRGB curve at each 8-bit code (see the banner)."""
    out = np.zeros(256, dtype=np.uint32)
    with localcontext() as ctx:
        ctx.prec = 40
        for code in range(256):
            c = Decimal(code) / Decimal(255)
            linear = c / Decimal("12.92") if c <= Decimal("0.04045") else \
                ((c + Decimal("0.055")) / Decimal("1.055")) ** Decimal("2.4")
            out[code] = np.array([float(linear)], dtype=np.float32).view(np.uint32)[0]
    return out


SRGB_TO_LINEAR = _srgb_table()


def _channel_bits(texels, offset, bits):
    """The raw bits of one channel of each texel: texels (N, texel bytes) uint8 -> (N,) uint64."""
    first, last = offset // 8, (offset + bits - 1) // 8
    value = np.zeros(texels.shape[0], dtype=np.uint64)
    for k, byte in enumerate(range(first, last + 1)):
        value |= texels[:, byte].astype(np.uint64) << np.uint64(8 * k)
    return (value >> np.uint64(offset % 8)) & np.uint64((1 << bits) - 1)


def decode(fmt, texels):
    """Load: (N, texel bytes) uint8 texels of TexelFormat `fmt` -> (4, N) uint32 register values R, G, B, A."""
    n = texels.shape[0]
    out = np.zeros((4, n), dtype=np.uint32)
    out[3] = 1 if fmt.integer else ONE_F32
    for component, channel in enumerate(fmt.channels):
        if channel is None:
            continue
        raw = _channel_bits(texels, *channel)
        bits = channel[1]
        if fmt.kind == "FLOAT":
            if bits == 32:
                out[component] = raw.astype(np.uint32)
            else:
                out[component] = raw.astype(np.uint16).view(np.float16).astype(np.float32).view(np.uint32)
        elif fmt.kind == "UNORM_SRGB" and component < 3:
            out[component] = SRGB_TO_LINEAR[raw.astype(np.intp)]
        elif fmt.kind in ("UNORM", "UNORM_SRGB"):      # an sRGB format's alpha is linear UNORM
            scale = np.float32((1 << bits) - 1)
            out[component] = (raw.astype(np.float32) / scale).view(np.uint32)
        elif fmt.kind == "SNORM":
            signed = raw.astype(np.int64) - ((raw >> np.uint64(bits - 1)).astype(np.int64) << bits)
            top = (1 << (bits - 1)) - 1
            out[component] = (np.maximum(signed, -top).astype(np.float32) / np.float32(top)).view(np.uint32)
        elif fmt.kind == "UINT":
            out[component] = raw.astype(np.uint32)
        else:   # SINT
            signed = raw.astype(np.int64) - ((raw >> np.uint64(bits - 1)).astype(np.int64) << bits)
            out[component] = signed.astype(np.int32).view(np.uint32)
    return out


def encode(fmt, words):
    """Store: (4, N) uint32 register values R, G, B, A -> (N, texel bytes) uint8 texels of `fmt`."""
    n = words.shape[1]
    packed = np.zeros((n, fmt.texel_bytes), dtype=np.uint8)
    for component, channel in enumerate(fmt.channels):
        if channel is None:
            continue
        offset, bits = channel
        word = words[component]
        if fmt.kind == "FLOAT":
            if bits == 32:
                raw = word.astype(np.uint64)
            else:
                with np.errstate(over="ignore"):     # overflow is inf, by the rule
                    raw = nm.narrow_f16(word.view(np.float32)).view(np.uint16).astype(np.uint64)
        elif fmt.kind in ("UNORM", "SNORM"):
            value = word.view(np.float32)
            low, top = (0.0, (1 << bits) - 1) if fmt.kind == "UNORM" else (-1.0, (1 << (bits - 1)) - 1)
            value = np.where(np.isnan(value), np.float32(0), value)
            scaled = np.rint(np.clip(value.astype(np.float64), low, 1.0) * top).astype(np.int64)
            raw = (scaled & ((1 << bits) - 1)).astype(np.uint64)
        elif fmt.kind == "UINT":
            raw = np.minimum(word.astype(np.uint64), np.uint64((1 << bits) - 1))
        elif fmt.kind == "SINT":
            signed = np.clip(word.view(np.int32).astype(np.int64), -(1 << (bits - 1)), (1 << (bits - 1)) - 1)
            raw = (signed & ((1 << bits) - 1)).astype(np.uint64)
        else:
            raise ValueError(f"DXGI_FORMAT_{fmt.name} has no stores (no typed UAV has an sRGB format)")
        raw <<= np.uint64(offset % 8)
        first, last = offset // 8, (offset + bits - 1) // 8
        for k, byte in enumerate(range(first, last + 1)):
            packed[:, byte] |= ((raw >> np.uint64(8 * k)) & np.uint64(0xFF)).astype(np.uint8)
    return packed
