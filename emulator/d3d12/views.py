"""Descriptor views: CreateUnorderedAccessView / CreateShaderResourceView / CreateConstantBufferView.

Device methods (void in C) that write one buffer descriptor (emulator/functional/buffer_descriptor.py layout: base
GPU address and size in bytes) into the CBV_SRV_UAV heap slot a CPU handle names (a texture's views:
texture_views.py), and
CopyDescriptorsSimple and CopyDescriptors, which copy slots from non-shader-visible heaps into
any heap of the same type (the bytes are the descriptors: a kernel reads whatever a shader-visible
heap's slots hold when it executes). A buffer view's range is
[FirstElement, FirstElement + NumElements) elements of the buffer, the element size coming from the
view: 4 bytes for RAW (DXGI_FORMAT_R32_TYPELESS), StructureByteStride for structured buffers, the
format's size for typed ones. A None resource writes a null descriptor (all zeros, not valid), as
D3D12's null views do. Misuse raises VoidMisuse, which removes the device (see base.py).
"""
import bisect
import itertools

from dmlemu.functional.buffer_descriptor import DESCRIPTOR_SIZE, write_buffer_descriptor
from dmlemu.dxgi import DXGI_FORMAT_R32_TYPELESS, DXGI_FORMAT_UNKNOWN, FORMAT_BYTES, DXGI_FORMAT
from dmlemu.com import VoidMisuse
from dmlemu.com import enum_name, is_integer, is_one_of
from dmlemu.d3d12.clear import stamp_view
from dmlemu.d3d12.descriptor_heap import CBV_SRV_UAV, INCREMENT_SIZE, _ptr, foreign_phrase
from dmlemu.d3d12.enums import (D3D12_BUFFER_UAV_FLAG_RAW, D3D12_CONSTANT_BUFFER_DATA_PLACEMENT_ALIGNMENT,
                                 D3D12_DESCRIPTOR_HEAP_TYPE, D3D12_RAW_UAV_SRV_BYTE_ALIGNMENT,
                                 D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS, D3D12_RESOURCE_FLAG_DENY_SHADER_RESOURCE,
                                 D3D12_UAV_DIMENSION_BUFFER)
from dmlemu.d3d12.resource import ID3D12Resource
from dmlemu.d3d12.structs import (D3D12_CONSTANT_BUFFER_VIEW_DESC, D3D12_SHADER_RESOURCE_VIEW_DESC,
                      D3D12_UNORDERED_ACCESS_VIEW_DESC)
from dmlemu.d3d12.texture_views import texture_srv, texture_uav

BUFFER_DIMENSION = D3D12_UAV_DIMENSION_BUFFER  # == D3D12_SRV_DIMENSION_BUFFER
RAW_FLAG = int(D3D12_BUFFER_UAV_FLAG_RAW)  # == D3D12_BUFFER_SRV_FLAG_RAW
FORMAT_R32_TYPELESS = int(DXGI_FORMAT_R32_TYPELESS)
RAW_ALIGNMENT = int(D3D12_RAW_UAV_SRV_BYTE_ALIGNMENT)
CBV_ALIGNMENT = int(D3D12_CONSTANT_BUFFER_DATA_PLACEMENT_ALIGNMENT)
CBV_MAX_BYTES = 65536
# A structured view's element: a multiple of 4 bytes, at most 2048 (the D3D11 functional specification's
# rule, which the D3D12 runtime keeps; the D3D12 reference pages are silent).
MAX_STRUCTURE_BYTE_STRIDE = 2048


def _dest_slot(device, handle, heap_type=CBV_SRV_UAV, field="DestDescriptor"):
    """(heap, byte offset) of the slot a CPU handle names; VoidMisuse when it names none."""
    ptr = _ptr(handle)
    heap = device._descriptor_heap_from_cpu_handle(ptr)
    if heap is None:
        raise VoidMisuse(f"{field} 0x{ptr or 0:X} is not a CPU handle of a descriptor heap of this device"
                         f"{foreign_phrase(device, ptr, gpu=False)}.")
    if heap._type != heap_type:
        raise VoidMisuse(f"{field} is in {heap._label}, a {enum_name(D3D12_DESCRIPTOR_HEAP_TYPE, heap._type)} heap; "
                         f"it must be a {enum_name(D3D12_DESCRIPTOR_HEAP_TYPE, heap_type)} heap.")
    offset = heap._slot_offset_from_cpu_handle(ptr)
    if offset is None:
        raise VoidMisuse(f"{field} points {heap._describe_handle(ptr, heap._cpu_base)}; a handle must point at "
                         "the start of a slot.")
    return heap, offset


def _element_size(view_name, fmt, flags, stride):
    """Bytes per element of a buffer view, or VoidMisuse with the rule broken."""
    if flags & RAW_FLAG:
        if fmt != FORMAT_R32_TYPELESS or stride:
            raise VoidMisuse(f"{view_name}.Buffer.Flags has RAW, which needs Format DXGI_FORMAT_R32_TYPELESS and "
                             "StructureByteStride 0.")
        return 4
    if stride:
        if fmt != DXGI_FORMAT_UNKNOWN:
            raise VoidMisuse(f"{view_name}.Buffer.StructureByteStride is {stride}, so Format must be "
                             "DXGI_FORMAT_UNKNOWN (a structured buffer).")
        if stride % 4 or stride > MAX_STRUCTURE_BYTE_STRIDE:
            raise VoidMisuse(f"{view_name}.Buffer.StructureByteStride is {stride}; a structured buffer's stride is a "
                             f"multiple of 4 from 4 to {MAX_STRUCTURE_BYTE_STRIDE} bytes.")
        return stride
    size = FORMAT_BYTES.get(fmt, 0)
    name = DXGI_FORMAT(fmt).name if fmt in FORMAT_BYTES else repr(fmt)
    if not size or name.endswith("TYPELESS"):
        raise VoidMisuse(f"{view_name}.Format is {name}; a typed buffer view needs a typed format, a RAW view "
                         "R32_TYPELESS, a structured one UNKNOWN with StructureByteStride.")
    return size


def _buffer_range(view_name, resource, buffer, element_size):
    first, count = buffer.FirstElement, buffer.NumElements
    if not isinstance(first, int) or not isinstance(count, int) or first < 0 or count < 1:
        raise VoidMisuse(f"{view_name}.Buffer has FirstElement {first!r} and NumElements {count!r}; a view covers "
                         "at least one element from FirstElement >= 0.")
    start, size = first * element_size, count * element_size
    if start + size > resource._width:
        raise VoidMisuse(f"{view_name}.Buffer covers bytes {start} to {start + size} of {resource._label}, which is "
                         f"{resource._width} bytes.")
    if buffer.Flags & RAW_FLAG and start % RAW_ALIGNMENT:
        raise VoidMisuse(f"{view_name}.Buffer.FirstElement {first} puts a RAW view at byte {start}; RAW views start "
                         f"on {RAW_ALIGNMENT}-byte boundaries.")
    return resource._allocation.gpu_va + start, size


def _check_resource(device, resource, field):
    if not isinstance(resource, ID3D12Resource) or resource._device is not device:
        raise VoidMisuse(f"{field} is {resource!r}; it must be a buffer of this device or None.")


def create_unordered_access_view(device, resource, counter, desc, dest):
    heap, offset = _dest_slot(device, dest)
    data = heap._allocation.data
    if resource is None:
        data[offset:offset + DESCRIPTOR_SIZE] = 0
        return
    _check_resource(device, resource, "pResource")
    if counter is not None:
        raise VoidMisuse("pCounterResource must be None: the emulator has no UAV counters.")
    if resource._texture is not None:
        texture_uav(resource, desc, data, offset)
        return
    if not isinstance(desc, D3D12_UNORDERED_ACCESS_VIEW_DESC) or not is_one_of(desc.ViewDimension, (BUFFER_DIMENSION,)):
        raise VoidMisuse(f"pDesc is {desc!r}; a buffer's unordered-access view needs a "
                         "D3D12_UNORDERED_ACCESS_VIEW_DESC with ViewDimension D3D12_UAV_DIMENSION_BUFFER.")
    if not resource._flags & D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS:
        raise VoidMisuse(f"{resource._label} was created without D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS, so it "
                         "cannot have an unordered-access view.")
    if desc.Buffer.CounterOffsetInBytes:
        raise VoidMisuse("pDesc.Buffer.CounterOffsetInBytes must be 0 without a counter resource.")
    size = _element_size("pDesc", desc.Format, desc.Buffer.Flags, desc.Buffer.StructureByteStride)
    va, nbytes = _buffer_range("pDesc", resource, desc.Buffer, size)
    write_buffer_descriptor(data, offset, va, nbytes)
    stamp_view(data, offset, desc.Format, desc.Buffer.Flags, desc.Buffer.StructureByteStride)  # for the clears


def create_shader_resource_view(device, resource, desc, dest):
    heap, offset = _dest_slot(device, dest)
    data = heap._allocation.data
    if resource is None:
        data[offset:offset + DESCRIPTOR_SIZE] = 0
        return
    _check_resource(device, resource, "pResource")
    if resource._texture is not None:
        texture_srv(resource, desc, data, offset)
        return
    if not isinstance(desc, D3D12_SHADER_RESOURCE_VIEW_DESC) or not is_one_of(desc.ViewDimension, (BUFFER_DIMENSION,)):
        raise VoidMisuse(f"pDesc is {desc!r}; a buffer's shader-resource view needs a "
                         "D3D12_SHADER_RESOURCE_VIEW_DESC with ViewDimension D3D12_SRV_DIMENSION_BUFFER.")
    if resource._flags & D3D12_RESOURCE_FLAG_DENY_SHADER_RESOURCE:
        raise VoidMisuse(f"{resource._label} was created with D3D12_RESOURCE_FLAG_DENY_SHADER_RESOURCE.")
    size = _element_size("pDesc", desc.Format, desc.Buffer.Flags, desc.Buffer.StructureByteStride)
    va, nbytes = _buffer_range("pDesc", resource, desc.Buffer, size)
    write_buffer_descriptor(data, offset, va, nbytes)


def create_constant_buffer_view(device, desc, dest):
    heap, offset = _dest_slot(device, dest)
    data = heap._allocation.data
    if desc is None:
        data[offset:offset + DESCRIPTOR_SIZE] = 0
        return
    if not isinstance(desc, D3D12_CONSTANT_BUFFER_VIEW_DESC):
        raise VoidMisuse(f"pDesc is {desc!r}; it must be a D3D12_CONSTANT_BUFFER_VIEW_DESC or None.")
    va, size = desc.BufferLocation, desc.SizeInBytes
    if not (is_integer(va) and is_integer(size)):
        raise VoidMisuse(f"pDesc has BufferLocation {va!r} and SizeInBytes {size!r}; both must be integers.")
    if va % CBV_ALIGNMENT or size % CBV_ALIGNMENT or not 0 < size <= CBV_MAX_BYTES:
        raise VoidMisuse(f"pDesc has BufferLocation 0x{va:X} and SizeInBytes {size}; both must be multiples of "
                         f"{CBV_ALIGNMENT}, and SizeInBytes 256 to {CBV_MAX_BYTES}.")
    resource = device._resource_from_gpu_va(va)
    if resource is not None and resource._texture is not None:
        raise VoidMisuse(f"pDesc.BufferLocation 0x{va:X} is inside {resource._label}, a texture; a constant-buffer "
                         "view is of a buffer.")
    if resource is None or va + size > resource._allocation.gpu_va + resource._width:
        raise VoidMisuse(f"pDesc covers GPU addresses 0x{va:X} to 0x{va + size:X}, which are not inside one buffer "
                         "of this device.")
    write_buffer_descriptor(data, offset, va, size)


def _check_heap_type(heap_type):
    if not is_one_of(heap_type, INCREMENT_SIZE):
        raise VoidMisuse(f"DescriptorHeapsType is {heap_type!r}; it must be a D3D12_DESCRIPTOR_HEAP_TYPE.")


def _range(device, handle, count, heap_type, field, side):
    """(heap, byte offset, byte count) of `count` descriptors from a CPU handle; VoidMisuse when they
    leave the heap, or when a source lies in a shader-visible heap."""
    heap, offset = _dest_slot(device, handle, heap_type, field)
    if side == "source" and heap._shader_visible:
        raise VoidMisuse(f"{field} is in {heap._label}, which is shader-visible; descriptors are copied only from "
                         "heaps that are not shader-visible.")
    nbytes = count * heap._increment
    if offset + nbytes > heap._size_bytes:
        raise VoidMisuse(f"the {side} range of {count} descriptors from slot {offset // heap._increment} passes "
                         f"the end of {heap._label}, which has {heap._num_descriptors}.")
    return heap, offset, nbytes


def copy_descriptors_simple(device, count, dest, src, heap_type):
    _check_heap_type(heap_type)
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise VoidMisuse(f"NumDescriptors is {count!r}; it must be a count from 0.")
    dest_heap, dest_offset, nbytes = _range(device, dest, count, heap_type, "DestDescriptorRangeStart", "destination")
    src_heap, src_offset, _ = _range(device, src, count, heap_type, "SrcDescriptorRangeStart", "source")
    if dest_heap is src_heap and dest_offset < src_offset + nbytes and src_offset < dest_offset + nbytes:
        raise VoidMisuse(f"the destination range (slots {dest_offset // dest_heap._increment} to "
                         f"{(dest_offset + nbytes) // dest_heap._increment - 1}) and the source range (slots "
                         f"{src_offset // src_heap._increment} to {(src_offset + nbytes) // src_heap._increment - 1}) "
                         f"of {count} descriptors overlap in {dest_heap._label}; the source and destination ranges "
                         "must not overlap.")
    source = src_heap._allocation.data[src_offset:src_offset + nbytes]
    dest_heap._allocation.data[dest_offset:dest_offset + nbytes] = source


def _ranges(device, starts, sizes, heap_type, side):
    """A CopyDescriptors side: [(heap, byte offset, byte count)] from its starts and sizes (None: 1 each)."""
    prefix = "pDest" if side == "destination" else "pSrc"
    if not isinstance(starts, (list, tuple)):
        raise VoidMisuse(f"{prefix}DescriptorRangeStarts is {starts!r}; it must be a sequence of "
                         "D3D12_CPU_DESCRIPTOR_HANDLE (the C count and array).")
    if sizes is None:
        sizes = (1,) * len(starts)
    if not isinstance(sizes, (list, tuple)) or len(sizes) != len(starts):
        raise VoidMisuse(f"{prefix}DescriptorRangeSizes is {sizes!r}; it must be None or a sequence of "
                         f"{len(starts)} counts, one per range.")
    ranges = []
    for i, (start, size) in enumerate(zip(starts, sizes)):
        if not isinstance(size, int) or isinstance(size, bool) or not 0 <= size < 1 << 32:
            raise VoidMisuse(f"{prefix}DescriptorRangeSizes[{i}] is {size!r}; it must be a UINT count.")
        ranges.append(_range(device, start, size, heap_type, f"{prefix}DescriptorRangeStarts[{i}]", side))
    return ranges


def copy_descriptors(device, dest_starts, dest_sizes, src_starts, src_sizes, heap_type):
    """ID3D12Device::CopyDescriptors: the source ranges' descriptors, in order, into the destination ranges."""
    _check_heap_type(heap_type)
    dest = _ranges(device, dest_starts, dest_sizes, heap_type, "destination")
    src = _ranges(device, src_starts, src_sizes, heap_type, "source")
    dest_total, src_total = sum(n for _, _, n in dest), sum(n for _, _, n in src)
    if dest_total != src_total:
        increment = INCREMENT_SIZE[int(heap_type)]
        raise VoidMisuse(f"the destination ranges hold {dest_total // increment} descriptors and the source ranges "
                         f"{src_total // increment}; CopyDescriptors needs the same number on both sides.")
    # Overlap, n log n: per heap, the source ranges sorted by start with the furthest end reached so far; a
    # destination range overlaps a source range where one starting before its end reaches past its start.
    by_heap = {}
    for s_heap, s_offset, s_bytes in src:
        by_heap.setdefault(id(s_heap), []).append((s_offset, s_offset + s_bytes))
    reach = {}
    for key, spans in by_heap.items():
        spans.sort()
        ends = list(itertools.accumulate((end for _, end in spans), max))
        reach[key] = ([start for start, _ in spans], ends)
    for d_heap, d_offset, d_bytes in dest:
        starts, ends = reach.get(id(d_heap), ((), ()))
        i = bisect.bisect_left(starts, d_offset + d_bytes) - 1
        if i < 0 or ends[i] <= d_offset:
            continue
        for s_heap, s_offset, s_bytes in src:         # the first source range it overlaps, in the caller's order
            if d_heap is s_heap and d_offset < s_offset + s_bytes and s_offset < d_offset + d_bytes:
                raise VoidMisuse(f"a destination range and a source range overlap in {d_heap._label} (slots "
                                 f"{d_offset // d_heap._increment} and {s_offset // s_heap._increment}); the "
                                 "result of an overlapping copy is undefined.")
    source = b"".join(bytes(h._allocation.data[o:o + n]) for h, o, n in src)
    at = 0
    for heap, offset, nbytes in dest:
        heap._allocation.data[offset:offset + nbytes] = memoryview(source)[at:at + nbytes]
        at += nbytes
