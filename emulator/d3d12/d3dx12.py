"""d3dx12.h helpers: the CD3DX12_* struct builders and UpdateSubresources, for buffers.

Each CD3DX12_* class is a subclass of its D3D12 struct (so it can go wherever the struct goes) with
the C++ constructors and static builders the compute path uses:
    CD3DX12_HEAP_PROPERTIES(type, creationNodeMask=1, nodeMask=1) and
    CD3DX12_HEAP_PROPERTIES(cpuPageProperty, memoryPoolPreference, creationNodeMask=1, nodeMask=1) (CUSTOM)
    CD3DX12_RESOURCE_DESC.Buffer(width, flags=D3D12_RESOURCE_FLAG_NONE, alignment=0)
    CD3DX12_RESOURCE_BARRIER.Transition(pResource, stateBefore, stateAfter, subresource=ALL, flags=NONE)
    CD3DX12_RESOURCE_BARRIER.UAV(pResource) and .Aliasing(pResourceBefore, pResourceAfter)
    CD3DX12_RANGE(begin, end)
    CD3DX12_CPU_DESCRIPTOR_HANDLE(other, offsetInDescriptors, descriptorIncrementSize) and .Offset(...)
    CD3DX12_GPU_DESCRIPTOR_HANDLE(...) likewise
UpdateSubresources(cmdList, dst, intermediate, intermediateOffset, firstSubresource[, numSubresources],
srcData) maps the intermediate buffer, copies srcData[0].pData into it and records a CopyBufferRegion into dst; as in
C++, it returns the bytes needed, or 0 when it cannot do the update (srcData, the C count and array,
is one sequence).
"""
import numpy as np

from dmlemu.dxgi import DXGI_FORMAT_UNKNOWN, DXGI_SAMPLE_DESC
from dmlemu.d3d12.enums import (D3D12_CPU_PAGE_PROPERTY, D3D12_CPU_PAGE_PROPERTY_UNKNOWN, D3D12_HEAP_TYPE_CUSTOM,
                                 D3D12_MEMORY_POOL, D3D12_MEMORY_POOL_UNKNOWN,
                                 D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES, D3D12_RESOURCE_BARRIER_FLAG_NONE,
                                 D3D12_RESOURCE_BARRIER_TYPE_ALIASING, D3D12_RESOURCE_BARRIER_TYPE_TRANSITION,
                                 D3D12_RESOURCE_BARRIER_TYPE_UAV, D3D12_RESOURCE_DIMENSION_BUFFER,
                                 D3D12_RESOURCE_FLAG_NONE, D3D12_TEXTURE_LAYOUT_ROW_MAJOR)
from dmlemu.d3d12.structs import (D3D12_CPU_DESCRIPTOR_HANDLE, D3D12_GPU_DESCRIPTOR_HANDLE, D3D12_HEAP_PROPERTIES, D3D12_RANGE,
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
    """D3D12_RESOURCE_DESC with the C++ static builders (buffers only here)."""

    @staticmethod
    def Buffer(width, flags=int(D3D12_RESOURCE_FLAG_NONE), alignment=0):
        """A buffer of `width` bytes: row-major, one sample, format unknown."""
        return CD3DX12_RESOURCE_DESC(
            Dimension=int(D3D12_RESOURCE_DIMENSION_BUFFER), Alignment=alignment, Width=width, Height=1,
            DepthOrArraySize=1, MipLevels=1, Format=int(DXGI_FORMAT_UNKNOWN),
            SampleDesc=DXGI_SAMPLE_DESC(Count=1, Quality=0), Layout=int(D3D12_TEXTURE_LAYOUT_ROW_MAJOR), Flags=flags)


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
    """Bytes an upload buffer needs to update the subresources: a buffer's Width."""
    return pDestinationResource.GetDesc().Width if (FirstSubresource, NumSubresources) == (0, 1) else 0


def UpdateSubresources(pCmdList, pDestinationResource, pIntermediate, IntermediateOffset, FirstSubresource, *args):
    """Upload srcData[0] into a buffer through a mapped intermediate; returns the bytes needed, 0 on failure.

    Two of d3dx12's forms: (..., FirstSubresource, pSrcData), the emulator's short one with the count
    implied by the sequence, and d3dx12's (..., FirstSubresource, NumSubresources, pSrcData), whose
    NumSubresources must equal len(pSrcData). A buffer has one subresource, so both need
    FirstSubresource 0 and one D3D12_SUBRESOURCE_DATA. The form with pLayouts / pNumRows /
    pRowSizesInBytes (precomputed footprints) is not provided."""
    if len(args) == 1:
        sources = list(args[0] or ())
    elif len(args) == 2:
        sources = list(args[1] or ())
        if args[0] != len(sources):
            return 0
    else:
        raise TypeError(f"UpdateSubresources takes pSrcData, or NumSubresources and pSrcData, after "
                        f"FirstSubresource; {len(args)} arguments were given")
    if FirstSubresource != 0 or len(sources) != 1:
        return 0
    width = pDestinationResource.GetDesc().Width
    if pIntermediate.GetDesc().Width < IntermediateOffset + width:
        return 0
    source = np.frombuffer(memoryview(sources[0].pData).cast("B"), dtype=np.uint8)
    if source.size < width:
        return 0
    mapped = pIntermediate.Map(0, None)
    mapped[IntermediateOffset:IntermediateOffset + width] = source[:width]
    pIntermediate.Unmap(0, None)
    pCmdList.CopyBufferRegion(pDestinationResource, 0, pIntermediate, IntermediateOffset, width)
    return width


__all__ = ["CD3DX12_HEAP_PROPERTIES", "CD3DX12_RESOURCE_DESC", "CD3DX12_RESOURCE_BARRIER", "CD3DX12_RANGE",
           "CD3DX12_CPU_DESCRIPTOR_HANDLE", "CD3DX12_GPU_DESCRIPTOR_HANDLE", "GetRequiredIntermediateSize",
           "UpdateSubresources"]
