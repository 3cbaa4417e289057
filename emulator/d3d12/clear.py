"""ClearUnorderedAccessViewUint / ClearUnorderedAccessViewFloat: filling a buffer UAV on the GPU.

The command list's two methods (void in C; misuse puts the list in its error state, so Close returns
E_INVALIDARG, as D3D12's runtime validation does) check, while recording:
- ViewGPUHandleInCurrentHeap names a slot of the shader-visible CBV_SRV_UAV heap set on the list by
  SetDescriptorHeaps; ViewCPUHandle names a slot of a CBV_SRV_UAV heap that is NOT shader-visible;
- the CPU descriptor holds a UAV (CreateUnorderedAccessView, or a copy of one) whose bytes lie inside
  pResource, a buffer created with ALLOW_UNORDERED_ACCESS. The CPU descriptor is read now, at
  recording (the runtime hands it to the driver, which may implement the clear as fixed-function
  work); the GPU one is where a shader-based clear would read it, and is only checked to exist;
- Values is the C array of 4 (UINT or FLOAT); pRects (None: the whole view) is a sequence of
  NumRects D3D12_RECTs; for a buffer a rect covers the view's elements [left, right) of its one row
  (top 0, bottom 1).
What is written (D3D's rules):
- Uint: each channel of a typed view's format gets the low bits of Values[channel] (R = Values[0], G =
  1, B = 2, A = 3), with no conversion, also for float formats; for a RAW or structured view, every
  32-bit word gets Values[0];
- Float: only views of a FLOAT, UNORM or SNORM format: FLOAT channels are the value rounded to the
  channel's width (float32, or float16 to nearest even), UNORM/SNORM ones are clamped to [0, 1] /
  [-1, 1], scaled and rounded to nearest even (NaN becomes 0). A RAW, structured or integer view
  cannot be cleared with floats.
At execution the resource must be in D3D12_RESOURCE_STATE_UNORDERED_ACCESS (a COMMON buffer is
promoted), checked as the GPU-based validation does, and the clear is a write for the hazard tracker:
like a Dispatch it is not ordered with surrounding work without a UAV barrier. The clear runs as what
drivers make of it, a compute dispatch: a small fill kernel (built here from the ISA, one element per
lane, up to four stores of 1 to 8 bytes) through the functional model, the timing model and the trace,
writing through a buffer descriptor of exactly the cleared bytes, so nothing outside them changes.

The view's format travels in its descriptor: `stamp_view` (called by CreateUnorderedAccessView)
writes the DXGI format, the RAW flag and the structure stride into the descriptor slot's reserved
tail (bytes 16 to 27; kernels read only the first 16), so descriptor copies carry it along.

Texture UAVs (texture_views.py) also carry `stamp_texture_view` in bytes 28 to 31: bit 31 set, the mip
slice (bits 0-3), the first array slice or depth slice (bits 4-15) and their count (bits 16-27). Their
clears follow the same rules, with texels: a D3D12_RECT is [left, right) x [top, bottom) of the mip's
texels (None: all of it), applied to every array slice (depth slice) the view holds; the fill kernel
then runs pitched (one workgroup row per texel row, rows RowPitch apart in the mirror's layout), so the
padding between rows is never written. The D3D12 rule that the resource is in UNORDERED_ACCESS holds
for textures too, and a COMMON texture is NOT promoted to it (resource.py), so the transition is needed.
"""
import functools

import numpy as np

from dmlemu.com import VoidMisuse, check_float, enum_name, is_integer
from dmlemu.d3d12.descriptor_heap import CBV_SRV_UAV
from dmlemu.d3d12.enums import (D3D12_RESOURCE_DIMENSION_TEXTURE3D, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS,
                                 D3D12_RESOURCE_STATE_UNORDERED_ACCESS)
from dmlemu.d3d12.structs import D3D12_RECT
from dmlemu.dxgi import DXGI_FORMAT
from dmlemu.functional.buffer_descriptor import pack_buffer_descriptor, read_buffer_descriptor

_STAMP = slice(16, 28)      # the descriptor slot's reserved bytes that carry the view's kind
_RAW = 0x1
_CHANNELS = {"R": 0, "G": 1, "B": 2, "A": 3, "X": None}


def stamp_view(heap_bytes, slot_offset, fmt, flags, stride):
    """Record a UAV's format, RAW flag and structure stride in its descriptor slot's reserved tail."""
    words = np.array([int(fmt), _RAW if int(flags) & _RAW else 0, int(stride)], dtype="<u4")
    heap_bytes[slot_offset + _STAMP.start:slot_offset + _STAMP.stop] = words.view(np.uint8)


_TEXTURE_STAMP = slice(28, 32)
_TEXTURE_BIT = 1 << 31


def stamp_texture_view(heap_bytes, slot_offset, mip, first, count):
    """Record a texture UAV's mip slice and first (array or depth) slice and count in its slot's last word."""
    word = _TEXTURE_BIT | (int(mip) & 0xF) | (int(first) & 0xFFF) << 4 | (int(count) & 0xFFF) << 16
    heap_bytes[slot_offset + _TEXTURE_STAMP.start:slot_offset + _TEXTURE_STAMP.stop] = \
        np.array([word], dtype="<u4").view(np.uint8)


def _read_texture_stamp(heap, offset):
    """(mip, first slice, count) of a texture UAV's descriptor, or None for a buffer view."""
    word = int(heap._allocation.data[offset + _TEXTURE_STAMP.start:offset + _TEXTURE_STAMP.stop].view("<u4")[0])
    if not word & _TEXTURE_BIT:
        return None
    return word & 0xF, (word >> 4) & 0xFFF, (word >> 16) & 0xFFF


def _read_view(heap, offset):
    """(gpu_va, size, valid, format, raw, stride) of the descriptor at a heap slot."""
    slot = heap._allocation.data[offset:offset + _STAMP.stop]
    va, size, valid = read_buffer_descriptor(slot)
    fmt, flags, stride = (int(w) for w in slot[_STAMP].view("<u4"))
    return va, size, valid, fmt, bool(flags & _RAW), stride


# ---- what a clear writes ------------------------------------------------------------------------------
def _format_layout(fmt):
    """(channels [(Values index or None, bits)], kind 'UINT'/'FLOAT'/...) of a DXGI format, or None."""
    if fmt not in DXGI_FORMAT._value2member_map_:
        return None
    name = DXGI_FORMAT(fmt).name[len("DXGI_FORMAT_"):]
    layout, _, kind = name.partition("_")
    channels, i = [], 0
    while i < len(layout):
        letter, j = layout[i], i + 1
        while j < len(layout) and layout[j].isdigit():
            j += 1
        if letter not in _CHANNELS or j == i + 1:
            return None
        channels.append((_CHANNELS[letter], int(layout[i + 1:j])))
        i = j
    bits = sum(b for _, b in channels)
    return (channels, kind) if bits % 8 == 0 and kind else None


def _float_channel(value, bits, kind):
    """A FLOAT value as the bits of one channel of a FLOAT / UNORM / SNORM format, or None."""
    v = np.float32(value)
    if kind == "FLOAT":
        if bits == 32:
            return int(v.view(np.uint32))
        if bits == 16:
            with np.errstate(over="ignore"):
                return int(np.float16(v).view(np.uint16))
        return None
    if np.isnan(v):
        return 0
    if kind == "UNORM":
        return int(np.rint(np.float64(np.clip(v, 0.0, 1.0)) * ((1 << bits) - 1)))
    if kind == "SNORM":
        return int(np.rint(np.float64(np.clip(v, -1.0, 1.0)) * ((1 << (bits - 1)) - 1))) & ((1 << bits) - 1)
    return None


def element_pattern(method, fmt, raw, stride, values, is_float):
    """The bytes one element of the view gets; VoidMisuse when the view cannot be cleared this way."""
    if raw or stride:
        if is_float:
            kind = "RAW" if raw else "structured"
            raise VoidMisuse(f"the view is a {kind} buffer view; {method} needs a view of a FLOAT, UNORM or SNORM "
                             "format (clear RAW and structured views with ClearUnorderedAccessViewUint).")
        return np.array([values[0]], dtype="<u4").view(np.uint8)   # every 32-bit word gets Values[0]
    layout = _format_layout(fmt)
    format_name = enum_name(DXGI_FORMAT, fmt)
    if layout is None:
        raise VoidMisuse(f"the view's format is {format_name}, whose channels the emulator does not clear.")
    channels, kind = layout
    if is_float and kind not in ("FLOAT", "UNORM", "SNORM"):
        raise VoidMisuse(f"the view's format is {format_name}; {method} clears only FLOAT, UNORM and SNORM "
                         "formats (use ClearUnorderedAccessViewUint).")
    element, shift = 0, 0
    for index, bits in channels:
        if index is not None:
            part = _float_channel(values[index], bits, kind) if is_float else int(values[index])
            if part is None:
                raise VoidMisuse(f"the view's format is {format_name}, whose {bits}-bit {kind} channels the "
                                 f"emulator does not clear with {method}.")
            element |= (part & ((1 << bits) - 1)) << shift
        shift += bits
    return np.frombuffer(element.to_bytes(shift // 8, "little"), dtype=np.uint8).copy()


# ---- the fill kernel --------------------------------------------------------------------------------
_STORES = {1: "byte", 2: "short", 4: "dword", 8: "dwordx2"}
# Launch ABI of the fill kernel: s[0:3] the descriptor of the cleared bytes, s4 the element count,
# s5 threads per workgroup, s6 the element size, s7..s14 the element's bytes (store k's data from
# s[7 + k * words]), s15 the workgroup id (the dispatcher's), v0 the thread id.
_USER_SGPRS = 15
_VGPRS, _SGPRS = 6, 17


@functools.lru_cache(maxsize=None)
def _fill_program(unit, stores, pitched=False):
    """The fill kernel storing `stores` pieces of `unit` bytes per element (assembled once). Pitched (texture
    rows): s4 is the elements per row, s15 the row pitch in bytes, the group grid (X: workgroups along a
    row, Y: rows) in s16 and s17, and the element's byte offset adds Y times the pitch."""
    from dmlemu.isa.program import Program
    from dmlemu.isa.assembler import assemble
    words = max(1, unit // 4)
    group, temp = ("s16", "s19") if pitched else ("s15", "s16")
    lines = [
        f"    s_mul_i32 {temp}, {group}, s5             ; first element of this workgroup (in its row)",
        f"    v_add_u32 v1, {temp}, v0              ; v1 = this lane's element",
        "    v_cmp_gt_u32 vcc, s4, v1           ; lanes with an element to clear",
        "    s_and_b64 exec, exec, vcc",
        "    s_cbranch_execz done",
        "    v_mul_lo_u32 v2, v1, s6            ; byte offset of the element",
    ]
    if pitched:
        lines += ["    s_mul_i32 s19, s17, s15            ; byte offset of this workgroup's row",
                  "    v_add_u32 v2, s19, v2"]
    for k in range(stores):
        first = 7 + k * words
        lines.append(f"    v_mov_b32 v4, s{first}")
        if words == 2:
            lines.append(f"    v_mov_b32 v5, s{first + 1}")
        data = "v[4:5]" if words == 2 else "v4"
        lines.append(f"    buffer_store_{_STORES[unit]} {data}, v2, s[0:3], {k * unit}")
    lines += ["done:", "    s_endpgm"]
    kind = "_pitched" if pitched else ""
    return Program(assemble("\n".join(lines) + "\n", filename="fill"), f"clear_uav_fill{kind}_{unit}x{stores}")


def fill_launch(gpu, name, gpu_va, pattern, count, rows=1, pitch=0):
    """A KernelLaunch writing `count` copies of `pattern` (an element's bytes) from `gpu_va` on; with
    rows > 1 (or a pitch), `count` copies in each of `rows` rows `pitch` bytes apart (texture rows)."""
    from dmlemu.functional.wave_dispatcher import KernelLaunch
    size = pattern.size
    unit = next(u for u in (8, 4, 2, 1) if size % u == 0)   # the widest store that tiles an element
    stores, words = size // unit, max(1, unit // 4)
    data = np.zeros(32, dtype=np.uint8)   # s7..s14
    for k in range(stores):   # store k's bytes, in its own sgpr(s) from s[7 + k * words]
        data[4 * words * k:4 * words * k + unit] = pattern[k * unit:(k + 1) * unit]
    dwords = data.view("<u4")
    group = gpu.preset.workgroup_size
    if pitch:
        descriptor = pack_buffer_descriptor(gpu_va, pitch * (rows - 1) + count * size)
        sgprs = tuple(int(d) for d in descriptor) + (count, group, size) + tuple(int(d) for d in dwords) + (pitch,)
        across = -(-count // group)
        return KernelLaunch(program=_fill_program(unit, stores, True), num_workgroups=across * rows,
                            workgroup_size=group, user_sgprs=sgprs, name=name, elements=count * rows,
                            vgprs_used=_VGPRS, sgprs_used=_SGPRS + 3, group_grid=(across, rows, 1),
                            thread_grid=(group, 1, 1))
    descriptor = pack_buffer_descriptor(gpu_va, count * size)
    sgprs = tuple(int(d) for d in descriptor) + (count, group, size) + tuple(int(d) for d in dwords)
    return KernelLaunch(program=_fill_program(unit, stores), num_workgroups=-(-count // group),
                        workgroup_size=group, user_sgprs=sgprs, name=name, elements=count,
                        vgprs_used=_VGPRS, sgprs_used=_SGPRS)


# ---- recording ------------------------------------------------------------------------------------
def _slot(device, handle, field, want_visible):
    """(heap, byte offset) of the CBV_SRV_UAV slot a handle names; VoidMisuse otherwise."""
    from dmlemu.d3d12.descriptor_heap import _ptr, foreign_phrase
    ptr = _ptr(handle)
    if want_visible:
        heap = device._descriptor_heap_from_gpu_handle(ptr)
        offset = None if heap is None else heap._slot_offset_from_gpu_handle(ptr)
    else:
        heap = device._descriptor_heap_from_cpu_handle(ptr)
        offset = None if heap is None else heap._slot_offset_from_cpu_handle(ptr)
    kind = "GPU" if want_visible else "CPU"
    if heap is None or offset is None:
        raise VoidMisuse(f"{field} 0x{ptr or 0:X} is not a {kind} handle of a descriptor slot of this device"
                         f"{foreign_phrase(device, ptr, gpu=want_visible)}.")
    if heap._type != CBV_SRV_UAV:
        raise VoidMisuse(f"{field} is in {heap._label}, which is not a CBV_SRV_UAV heap.")
    if not want_visible and heap._shader_visible:
        raise VoidMisuse(f"{field} is in {heap._label}, which is shader-visible; it must name a descriptor in a "
                         "heap that is not shader-visible.")
    return heap, offset


def _values(method, values, is_float):
    c_type = "FLOAT" if is_float else "UINT"
    if not isinstance(values, (list, tuple, np.ndarray)) or len(values) != 4:
        raise VoidMisuse(f"Values is {values!r}; it must be the C array of 4 {c_type} values.")
    if is_float:
        try:
            return tuple(float(check_float(v, f"Values[{i}]")) for i, v in enumerate(values))
        except Exception as error:   # check_float's E_INVALIDARG sentence, as the list's error
            raise VoidMisuse(getattr(error, "message", str(error))) from None
    for i, v in enumerate(values):
        if not is_integer(v) or not 0 <= int(v) < 1 << 32:
            raise VoidMisuse(f"Values[{i}] is {v!r}; it must be a UINT (0 to 4294967295).")
    return tuple(int(v) for v in values)


def _rects(num_rects, rects, elements):
    """[(first element, count)] the rects select; the whole view when pRects is None."""
    if rects is None:
        if num_rects != 0:
            raise VoidMisuse(f"NumRects is {num_rects!r} but pRects is None; give 0 rects to clear the whole view.")
        return [(0, elements)]
    if not isinstance(rects, (list, tuple)):
        raise VoidMisuse(f"pRects is {rects!r}; it must be a sequence of D3D12_RECT (the C array) or None.")
    if num_rects != len(rects):
        raise VoidMisuse(f"NumRects is {num_rects!r} but pRects holds {len(rects)} rects.")
    spans = []
    for i, rect in enumerate(rects):
        if not isinstance(rect, D3D12_RECT):
            raise VoidMisuse(f"pRects[{i}] is {rect!r}; it must be a D3D12_RECT.")
        left, top, right, bottom = rect.left, rect.top, rect.right, rect.bottom
        if not all(is_integer(v) for v in (left, top, right, bottom)) or not 0 <= left <= right <= elements \
                or (top, bottom) != (0, 1):
            raise VoidMisuse(f"pRects[{i}] is (left {left!r}, top {top!r}, right {right!r}, bottom {bottom!r}); for "
                             f"a buffer view of {elements} elements it must have 0 <= left <= right <= {elements}, "
                             "top 0 and bottom 1.")
        if right > left:
            spans.append((int(left), int(right - left)))
    return spans


def record_clear(command_list, method, gpu_handle, cpu_handle, resource, values, num_rects, rects, is_float):
    """Check a ClearUnorderedAccessView* call and record its command (VoidMisuse on misuse)."""
    device = command_list._device
    values = _values(method, values, is_float)
    current = command_list._cbv_srv_uav_heap()
    visible, _ = _slot(device, gpu_handle, "ViewGPUHandleInCurrentHeap", True)
    if current is not visible:
        current = current._label if current is not None else "none"
        raise VoidMisuse(f"ViewGPUHandleInCurrentHeap is in {visible._label}, but the CBV_SRV_UAV heap set on "
                         f"{command_list._label} is {current}; set it with SetDescriptorHeaps first.")
    heap, offset = _slot(device, cpu_handle, "ViewCPUHandle", False)
    command_list._check_resource("pResource", resource)
    if not resource._flags & D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS:
        raise VoidMisuse(f"pResource {resource._label} was created without D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS.")
    va, size, valid, fmt, raw, stride = _read_view(heap, offset)
    base = resource._allocation.gpu_va
    if not valid or not base <= va or va + size > base + resource._width:
        raise VoidMisuse(f"ViewCPUHandle's descriptor (slot {offset // heap._increment} of {heap._label}) is not an "
                         f"unordered-access view of pResource {resource._label}.")
    stamp = _read_texture_stamp(heap, offset)
    if (stamp is None) != (resource._texture is None):
        kind = "a buffer" if stamp is None else "a texture"
        raise VoidMisuse(f"ViewCPUHandle's descriptor (slot {offset // heap._increment} of {heap._label}) is {kind}'s "
                         f"unordered-access view, but pResource {resource._label} is not {kind}.")
    if stamp is not None:
        pattern = element_pattern(method, fmt, False, 0, values, is_float)
        command_list._commands.append(_texture_clear(method, resource, stamp, pattern, num_rects, rects))
        return
    if stride % 4:
        raise VoidMisuse(f"ViewCPUHandle's descriptor (slot {offset // heap._increment} of {heap._label}) has "
                         f"StructureByteStride {stride}; a structured view's stride is a multiple of 4.")
    pattern = element_pattern(method, fmt, raw, stride, values, is_float)
    element_bytes = stride or (4 if raw else pattern.size)
    spans = _rects(num_rects, rects, size // element_bytes)
    if raw or stride:   # every 32-bit word of the selected elements gets Values[0]
        spans = [(first * element_bytes // 4, count * element_bytes // 4) for first, count in spans]
    spans = [(first, count) for first, count in spans if count]
    command_list._commands.append(ClearUavCommand(method, resource, va - base, pattern, spans))


class ClearUavCommand:
    """ClearUnorderedAccessView*: fill the view's selected elements with one element's bytes (a dispatch)."""

    __slots__ = ("name", "resource", "view_offset", "pattern", "spans")

    def __init__(self, name, resource, view_offset, pattern, spans):
        self.name, self.resource, self.view_offset, self.pattern, self.spans = name, resource, view_offset, pattern, spans

    def execute(self, ctx):
        from dmlemu.d3d12.hazards import note_access
        from dmlemu.d3d12.resource import _require_state
        _require_state(self.resource, int(D3D12_RESOURCE_STATE_UNORDERED_ACCESS), f"the resource of {self.name}")
        size = self.pattern.size
        note_access(ctx, self.name, writes=[(self.resource, self.view_offset + first * size, count * size)
                                            for first, count in self.spans])
        base = self.resource._allocation.gpu_va + self.view_offset
        for first, count in self.spans:
            ctx.gpu.dispatch(fill_launch(ctx.gpu, self.name, base + first * size, self.pattern, count))


def _texture_clear(method, resource, stamp, pattern, num_rects, rects):
    """The ClearTextureUavCommand of a texture UAV's clear: per subresource (and depth slice) the rect's
    rows, as (byte offset of the first texel, texels per row, rows, pitch)."""
    texture = resource._texture
    mip, first, count = stamp
    offset, width, height, depth, pitch, _ = texture.subresources[mip]
    if rects is None:
        if num_rects != 0:
            raise VoidMisuse(f"NumRects is {num_rects!r} but pRects is None; give 0 rects to clear the whole view.")
        boxes = [(0, 0, width, height)]
    else:
        if not isinstance(rects, (list, tuple)):
            raise VoidMisuse(f"pRects is {rects!r}; it must be a sequence of D3D12_RECT (the C array) or None.")
        if num_rects != len(rects):
            raise VoidMisuse(f"NumRects is {num_rects!r} but pRects holds {len(rects)} rects.")
        boxes = []
        for i, rect in enumerate(rects):
            if not isinstance(rect, D3D12_RECT):
                raise VoidMisuse(f"pRects[{i}] is {rect!r}; it must be a D3D12_RECT.")
            left, top, right, bottom = rect.left, rect.top, rect.right, rect.bottom
            if not all(is_integer(v) for v in (left, top, right, bottom)) or not (
                    0 <= left <= right <= width and 0 <= top <= bottom <= height):
                raise VoidMisuse(f"pRects[{i}] is (left {left!r}, top {top!r}, right {right!r}, bottom {bottom!r}); mip "
                                 f"{mip} of {resource._label} is {width} x {height} texels, so it must have 0 <= left <= "
                                 f"right <= {width} and 0 <= top <= bottom <= {height}.")
            if right > left and bottom > top:
                boxes.append((int(left), int(top), int(right), int(bottom)))
    element = texture.element
    fills = []
    if texture.dimension == D3D12_RESOURCE_DIMENSION_TEXTURE3D:
        bases = [offset + z * height * pitch for z in range(first, first + count)]
        indices = (mip,)
    else:
        indices = tuple(mip + s * texture.mips for s in range(first, first + count))
        bases = [texture.subresources[i][0] for i in indices]
    for base in bases:
        for left, top, right, bottom in boxes:
            fills.append((base + top * pitch + left * element, right - left, bottom - top, pitch))
    return ClearTextureUavCommand(method, resource, pattern, fills, indices)


class ClearTextureUavCommand:
    """ClearUnorderedAccessView* of a texture UAV: pitched fills (first byte, texels per row, rows, pitch)."""

    __slots__ = ("name", "resource", "pattern", "fills", "subresources")

    def __init__(self, name, resource, pattern, fills, subresources):
        self.name, self.resource, self.pattern, self.fills = name, resource, pattern, fills
        self.subresources = subresources    # the view's subresources: their states are checked

    def execute(self, ctx):
        from dmlemu.d3d12.hazards import note_access
        from dmlemu.d3d12.resource import _require_state
        _require_state(self.resource, int(D3D12_RESOURCE_STATE_UNORDERED_ACCESS), f"the resource of {self.name}",
                       self.subresources)
        size = self.pattern.size
        note_access(ctx, self.name, writes=[(self.resource, start, pitch * (rows - 1) + count * size)
                                            for start, count, rows, pitch in self.fills])
        base = self.resource._allocation.gpu_va
        for start, count, rows, pitch in self.fills:
            ctx.gpu.dispatch(fill_launch(ctx.gpu, self.name, base + start, self.pattern, count, rows, pitch))
