"""d3dx12.h helpers: the CD3DX12_* struct builders and UpdateSubresources, for buffers and textures.

Each CD3DX12_* class is a subclass of its D3D12 struct (so it can go wherever the struct goes) with
the C++ constructors and static builders the compute path uses:
    CD3DX12_HEAP_PROPERTIES(type, creationNodeMask=1, nodeMask=1) and
    CD3DX12_HEAP_PROPERTIES(cpuPageProperty, memoryPoolPreference, creationNodeMask=1, nodeMask=1) (CUSTOM)
    CD3DX12_RESOURCE_DESC.Buffer(width, flags=D3D12_RESOURCE_FLAG_NONE, alignment=0)
    CD3DX12_RESOURCE_DESC.Tex1D / Tex2D / Tex3D(format, width, ...) in d3dx12's argument order
    CD3DX12_TEXTURE_COPY_LOCATION(pRes, footprint or subresource index), CD3DX12_BOX(2, 4 or 6 values)
    CD3DX12_RESOURCE_BARRIER.Transition(pResource, stateBefore, stateAfter, subresource=ALL, flags=NONE)
    CD3DX12_RESOURCE_BARRIER.UAV(pResource) and .Aliasing(pResourceBefore, pResourceAfter)
    CD3DX12_RANGE(begin, end)
    CD3DX12_CPU_DESCRIPTOR_HANDLE(other, offsetInDescriptors, descriptorIncrementSize) and .Offset(...)
    CD3DX12_GPU_DESCRIPTOR_HANDLE(...) likewise
GetRequiredIntermediateSize(dst, firstSubresource, numSubresources): GetCopyableFootprints' total.
UpdateSubresources in d3dx12's three forms (intermediate offset with or without a count, or the
precomputed pLayouts / pNumRows / pRowSizesInBytes), for buffers: maps the intermediate buffer, copies
the source rows into it and records a CopyBufferRegion into dst; as in C++, it returns the bytes
needed, or 0 when it cannot do the update (the C count and array pairs are sequences).
"""
import numpy as np

from dmlemu.dxgi import DXGI_FORMAT_UNKNOWN, DXGI_SAMPLE_DESC
from dmlemu.d3d12.enums import (D3D12_CPU_PAGE_PROPERTY, D3D12_CPU_PAGE_PROPERTY_UNKNOWN, D3D12_HEAP_TYPE_CUSTOM,
                                 D3D12_MEMORY_POOL, D3D12_MEMORY_POOL_UNKNOWN,
                                 D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES, D3D12_RESOURCE_BARRIER_FLAG_NONE,
                                 D3D12_RESOURCE_BARRIER_TYPE_ALIASING, D3D12_RESOURCE_BARRIER_TYPE_TRANSITION,
                                 D3D12_RESOURCE_BARRIER_TYPE_UAV, D3D12_RESOURCE_DIMENSION_BUFFER,
                                 D3D12_RESOURCE_DIMENSION_TEXTURE1D, D3D12_RESOURCE_DIMENSION_TEXTURE2D,
                                 D3D12_RESOURCE_DIMENSION_TEXTURE3D, D3D12_RESOURCE_FLAG_NONE,
                                 D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT, D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX,
                                 D3D12_TEXTURE_LAYOUT_ROW_MAJOR, D3D12_TEXTURE_LAYOUT_UNKNOWN)
from dmlemu.d3d12.structs import (D3D12_BOX, D3D12_TEXTURE_COPY_LOCATION, D3D12_CPU_DESCRIPTOR_HANDLE, D3D12_GPU_DESCRIPTOR_HANDLE, D3D12_HEAP_PROPERTIES,
                      D3D12_PLACED_SUBRESOURCE_FOOTPRINT, D3D12_RANGE,
                      D3D12_RESOURCE_ALIASING_BARRIER, D3D12_RESOURCE_BARRIER, D3D12_RESOURCE_DESC,
                      D3D12_RESOURCE_TRANSITION_BARRIER, D3D12_RESOURCE_UAV_BARRIER)

# The structs hold plain ints, as C structs do (an enum member's repr would show in sentences).
ALL_SUBRESOURCES = int(D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES)
_NO_FLAGS = int(D3D12_RESOURCE_BARRIER_FLAG_NONE)


class CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_PROPERTIES):
    """D3D12_HEAP_PROPERTIES, with the two C++ constructors:
    (type, creationNodeMask=1, nodeMask=1): a standard heap, CPU page property and pool UNKNOWN;
    (cpuPageProperty, memoryPoolPreference, creationNodeMask=1, nodeMask=1): a D3D12_HEAP_TYPE_CUSTOM heap.
    C++ picks the overload by the argument's type; so does this class: a D3D12_CPU_PAGE_PROPERTY first
    argument, a D3D12_MEMORY_POOL second one, or the keyword cpuPageProperty / memoryPoolPreference
    selects the CUSTOM form (a plain int first argument is a heap type, as C++ has no int overload)."""

    def __init__(self, *args, **kwargs):
        custom = ("cpuPageProperty" in kwargs or "memoryPoolPreference" in kwargs
                  or (len(args) > 0 and isinstance(args[0], D3D12_CPU_PAGE_PROPERTY))
                  or (len(args) > 1 and isinstance(args[1], D3D12_MEMORY_POOL)))
        fields = _custom_heap(*args, **kwargs) if custom else _typed_heap(*args, **kwargs)
        super().__init__(**fields)


def _typed_heap(type, creationNodeMask=1, nodeMask=1):
    return dict(Type=type, CPUPageProperty=int(D3D12_CPU_PAGE_PROPERTY_UNKNOWN),
                MemoryPoolPreference=int(D3D12_MEMORY_POOL_UNKNOWN), CreationNodeMask=creationNodeMask,
                VisibleNodeMask=nodeMask)


def _custom_heap(cpuPageProperty, memoryPoolPreference, creationNodeMask=1, nodeMask=1):
    return dict(Type=int(D3D12_HEAP_TYPE_CUSTOM), CPUPageProperty=cpuPageProperty,
                MemoryPoolPreference=memoryPoolPreference, CreationNodeMask=creationNodeMask,
                VisibleNodeMask=nodeMask)


class CD3DX12_RESOURCE_DESC(D3D12_RESOURCE_DESC):
    """D3D12_RESOURCE_DESC with the C++ static builders (Buffer, Tex1D, Tex2D, Tex3D)."""

    @staticmethod
    def Buffer(width, flags=int(D3D12_RESOURCE_FLAG_NONE), alignment=0):
        """A buffer of `width` bytes: row-major, one sample, format unknown."""
        return CD3DX12_RESOURCE_DESC(
            Dimension=int(D3D12_RESOURCE_DIMENSION_BUFFER), Alignment=alignment, Width=width, Height=1,
            DepthOrArraySize=1, MipLevels=1, Format=int(DXGI_FORMAT_UNKNOWN),
            SampleDesc=DXGI_SAMPLE_DESC(Count=1, Quality=0), Layout=int(D3D12_TEXTURE_LAYOUT_ROW_MAJOR), Flags=flags)


    @staticmethod
    def Tex1D(format, width, arraySize=1, mipLevels=0, flags=int(D3D12_RESOURCE_FLAG_NONE),
              layout=int(D3D12_TEXTURE_LAYOUT_UNKNOWN), alignment=0):
        """A Texture1D (d3dx12's argument order)."""
        return _texture(D3D12_RESOURCE_DIMENSION_TEXTURE1D, alignment, width, 1, arraySize, mipLevels, format, 1, 0,
                        layout, flags)

    @staticmethod
    def Tex2D(format, width, height, arraySize=1, mipLevels=0, sampleCount=1, sampleQuality=0,
              flags=int(D3D12_RESOURCE_FLAG_NONE), layout=int(D3D12_TEXTURE_LAYOUT_UNKNOWN), alignment=0):
        """A Texture2D (d3dx12's argument order)."""
        return _texture(D3D12_RESOURCE_DIMENSION_TEXTURE2D, alignment, width, height, arraySize, mipLevels, format,
                        sampleCount, sampleQuality, layout, flags)

    @staticmethod
    def Tex3D(format, width, height, depth, mipLevels=0, flags=int(D3D12_RESOURCE_FLAG_NONE),
              layout=int(D3D12_TEXTURE_LAYOUT_UNKNOWN), alignment=0):
        """A Texture3D (d3dx12's argument order)."""
        return _texture(D3D12_RESOURCE_DIMENSION_TEXTURE3D, alignment, width, height, depth, mipLevels, format, 1, 0,
                        layout, flags)


def _texture(dimension, alignment, width, height, depth, mips, fmt, count, quality, layout, flags):
    return CD3DX12_RESOURCE_DESC(
        Dimension=int(dimension), Alignment=alignment, Width=width, Height=height, DepthOrArraySize=depth,
        MipLevels=mips, Format=int(fmt), SampleDesc=DXGI_SAMPLE_DESC(Count=count, Quality=quality), Layout=layout,
        Flags=flags)


class CD3DX12_TEXTURE_COPY_LOCATION(D3D12_TEXTURE_COPY_LOCATION):
    """D3D12_TEXTURE_COPY_LOCATION with d3dx12's constructors: (pRes, D3D12_PLACED_SUBRESOURCE_FOOTPRINT) for a
    buffer footprint, (pRes, Sub) for a texture subresource."""

    def __init__(self, pRes=None, footprint_or_sub=0):
        if isinstance(footprint_or_sub, D3D12_PLACED_SUBRESOURCE_FOOTPRINT):
            super().__init__(pResource=pRes, Type=int(D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT),
                             PlacedFootprint=footprint_or_sub)
        else:
            super().__init__(pResource=pRes, Type=int(D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX),
                             SubresourceIndex=footprint_or_sub)


class CD3DX12_BOX(D3D12_BOX):
    """D3D12_BOX with d3dx12's constructors: (Left, Right), (Left, Top, Right, Bottom) and
    (Left, Top, Front, Right, Bottom, Back); the missing top/front are 0 and bottom/back 1."""

    def __init__(self, *args):
        if len(args) == 2:
            left, right = args
            super().__init__(left=left, top=0, front=0, right=right, bottom=1, back=1)
        elif len(args) == 4:
            left, top, right, bottom = args
            super().__init__(left=left, top=top, front=0, right=right, bottom=bottom, back=1)
        elif len(args) == 6:
            super().__init__(*args)
        else:
            raise TypeError(f"CD3DX12_BOX takes 2, 4 or 6 arguments (d3dx12's forms); {len(args)} were given")


class CD3DX12_RESOURCE_BARRIER(D3D12_RESOURCE_BARRIER):
    """D3D12_RESOURCE_BARRIER with the C++ static builders."""

    @staticmethod
    def Transition(pResource, stateBefore, stateAfter, subresource=ALL_SUBRESOURCES, flags=_NO_FLAGS):
        return CD3DX12_RESOURCE_BARRIER(
            Type=int(D3D12_RESOURCE_BARRIER_TYPE_TRANSITION), Flags=flags, Transition=D3D12_RESOURCE_TRANSITION_BARRIER(
                pResource=pResource, Subresource=subresource, StateBefore=stateBefore, StateAfter=stateAfter))

    @staticmethod
    def UAV(pResource):
        return CD3DX12_RESOURCE_BARRIER(Type=int(D3D12_RESOURCE_BARRIER_TYPE_UAV), Flags=_NO_FLAGS,
                                        UAV=D3D12_RESOURCE_UAV_BARRIER(pResource=pResource))

    @staticmethod
    def Aliasing(pResourceBefore, pResourceAfter):
        return CD3DX12_RESOURCE_BARRIER(Type=int(D3D12_RESOURCE_BARRIER_TYPE_ALIASING), Flags=_NO_FLAGS,
                                        Aliasing=D3D12_RESOURCE_ALIASING_BARRIER(pResourceBefore=pResourceBefore,
                                                                                 pResourceAfter=pResourceAfter))


class CD3DX12_RANGE(D3D12_RANGE):
    def __init__(self, begin=0, end=0):
        super().__init__(Begin=begin, End=end)


def _offset(handle, offset, increment):
    return handle.ptr + (offset if increment is None else offset * increment)


class _HandleArithmetic:
    """The d3dx12 handle helpers' arithmetic, shared by the CPU and GPU handle classes."""

    def __init__(self, other=None, offset=0, descriptorIncrementSize=None, *, ptr=None):
        if ptr is None:
            ptr = 0 if other is None else _offset(other, offset, descriptorIncrementSize)
        super().__init__(ptr=ptr)

    def Offset(self, offset, descriptorIncrementSize=None):
        """Move by `offset` descriptors of `descriptorIncrementSize` bytes (or by `offset` bytes); returns self."""
        self.ptr = _offset(self, offset, descriptorIncrementSize)
        return self

    def InitOffsetted(self, base, offset, descriptorIncrementSize=None):
        self.ptr = _offset(base, offset, descriptorIncrementSize)


class CD3DX12_CPU_DESCRIPTOR_HANDLE(_HandleArithmetic, D3D12_CPU_DESCRIPTOR_HANDLE):
    """A CPU descriptor handle with arithmetic: (other), (other, scaledOffset), (other, index, increment)."""


class CD3DX12_GPU_DESCRIPTOR_HANDLE(_HandleArithmetic, D3D12_GPU_DESCRIPTOR_HANDLE):
    """A GPU descriptor handle with arithmetic, like CD3DX12_CPU_DESCRIPTOR_HANDLE."""


def GetRequiredIntermediateSize(pDestinationResource, FirstSubresource, NumSubresources):
    """Bytes an upload buffer needs to update the subresources: GetCopyableFootprints' pTotalBytes with
    BaseOffset 0, as d3dx12 computes it (a buffer's Width for (0, 1), 0 for (0, 0), UINT64_MAX for a
    range the buffer does not have)."""
    desc = pDestinationResource.GetDesc()
    return pDestinationResource.GetDevice().GetCopyableFootprints(desc, FirstSubresource, NumSubresources, 0)[3]


def UpdateSubresources(pCmdList, pDestinationResource, pIntermediate, *args):
    """Upload pSrcData into a buffer through a mapped intermediate; returns the bytes needed, 0 on failure.

    d3dx12's forms, told apart by their number of arguments after pIntermediate:
      (IntermediateOffset, FirstSubresource, pSrcData): the emulator's short form, the count implied
          by the sequence;
      (IntermediateOffset, FirstSubresource, NumSubresources, pSrcData): NumSubresources must equal
          len(pSrcData);
      (FirstSubresource, NumSubresources, RequiredSize, pLayouts, pNumRows, pRowSizesInBytes, pSrcData):
          precomputed footprints (GetCopyableFootprints' outputs; the C arrays are sequences).
    The first two get the footprints from GetCopyableFootprints(dst desc, FirstSubresource,
    NumSubresources, IntermediateOffset) and go on as the third, as d3dx12 does. The third returns 0
    (nothing written or recorded) when the intermediate is narrower than RequiredSize +
    pLayouts[0].Offset, or the destination buffer is not updated as FirstSubresource 0 and
    NumSubresources 1; otherwise it maps the intermediate, copies each subresource's pNumRows rows of
    pRowSizesInBytes bytes (source rows pSrcData[i].RowPitch apart, slices SlicePitch apart;
    destination rows Footprint.RowPitch apart from pLayouts[i].Offset), unmaps it, records
    CopyBufferRegion(dst, 0, intermediate, pLayouts[0].Offset, pLayouts[0].Footprint.Width) and returns
    RequiredSize. Where C would read or write out of bounds (a sequence shorter than NumSubresources,
    pData shorter than the rows, rows past the intermediate), it returns 0 instead. A texture destination
    takes any subresource range, and gets one CopyTextureRegion per subresource from its footprint, as
    d3dx12 records them."""
    if len(args) in (3, 4):
        offset, first = args[0], args[1]
        sources = list(args[-1] or ())
        count = len(sources) if len(args) == 3 else args[2]
        if count != len(sources):
            return 0
        desc = pDestinationResource.GetDesc()
        layouts, rows, row_sizes, required = pDestinationResource.GetDevice().GetCopyableFootprints(
            desc, first, count, offset)
        return _update_from_footprints(pCmdList, pDestinationResource, pIntermediate, first, count, required,
                                       layouts, rows, row_sizes, sources)
    if len(args) == 7:
        return _update_from_footprints(pCmdList, pDestinationResource, pIntermediate, *args)
    raise TypeError(f"UpdateSubresources takes 3, 4 or 7 arguments after pIntermediate (d3dx12's forms); "
                    f"{len(args)} were given")


def _is_count(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _update_from_footprints(cmd_list, dst, intermediate, first, count, required, layouts, rows, row_sizes, sources):
    """d3dx12's UpdateSubresources with precomputed footprints (see UpdateSubresources)."""
    arrays = [list(a) if isinstance(a, (list, tuple)) else None for a in (layouts, rows, row_sizes, sources)]
    if not _is_count(count) or count < 1 or any(a is None or len(a) < count for a in arrays):
        return 0
    layouts, rows, row_sizes, sources = arrays
    if not (_is_count(required) and all(isinstance(layout, D3D12_PLACED_SUBRESOURCE_FOOTPRINT) for layout in layouts)
            and all(_is_count(n) for n in rows + row_sizes)):
        return 0
    capacity = intermediate.GetDesc().Width
    texture = getattr(dst, "_texture", None) is not None
    if capacity < required + layouts[0].Offset or (not texture and (first, count) != (0, 1)):
        return 0
    plan = []
    for i in range(count):
        footprint = layouts[i].Footprint
        source = np.frombuffer(memoryview(sources[i].pData).cast("B"), dtype=np.uint8)
        for z in range(footprint.Depth):
            for y in range(rows[i]):
                src = z * sources[i].SlicePitch + y * sources[i].RowPitch
                dst_at = layouts[i].Offset + (z * rows[i] + y) * footprint.RowPitch
                if src < 0 or src + row_sizes[i] > source.size or dst_at + row_sizes[i] > capacity:
                    return 0
                plan.append((dst_at, source[src:src + row_sizes[i]]))
    mapped = intermediate.Map(0, None)
    for dst_at, row in plan:
        mapped[dst_at:dst_at + row.size] = row
    intermediate.Unmap(0, None)
    if texture:     # d3dx12: one CopyTextureRegion per subresource, from its footprint
        for i in range(count):
            cmd_list.CopyTextureRegion(CD3DX12_TEXTURE_COPY_LOCATION(dst, first + i), 0, 0, 0,
                                       CD3DX12_TEXTURE_COPY_LOCATION(intermediate, layouts[i]), None)
        return required
    cmd_list.CopyBufferRegion(dst, 0, intermediate, layouts[0].Offset, layouts[0].Footprint.Width)
    return required


__all__ = ["CD3DX12_HEAP_PROPERTIES", "CD3DX12_RESOURCE_DESC", "CD3DX12_RESOURCE_BARRIER", "CD3DX12_RANGE",
           "CD3DX12_TEXTURE_COPY_LOCATION", "CD3DX12_BOX",
           "CD3DX12_CPU_DESCRIPTOR_HANDLE", "CD3DX12_GPU_DESCRIPTOR_HANDLE", "GetRequiredIntermediateSize",
           "UpdateSubresources"]
