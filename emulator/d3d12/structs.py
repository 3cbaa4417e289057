"""D3D12 structs of the compute path as mutable Python classes with the C field names (d3d12.h).

Built with the C field names as keyword arguments (or positionally, in C order); a field left out
takes C's zero (0, None for a pointer, a zeroed struct for an embedded struct), so a hand-built
D3D12_RESOURCE_DESC without SampleDesc has SampleDesc.Count 0, which CreateCommittedResource rejects
as D3D12 does (the d3dx12 helpers fill the usual values). A C union (D3D12_RESOURCE_BARRIER's
Transition / Aliasing / UAV, a view desc's Buffer) has one field per member; the Type field says
which is read. A (count, pointer) pair becomes one sequence.
"""
from dmlemu.com import define_struct
from dmlemu.dxgi import DXGI_SAMPLE_DESC

__all__ = []


def _struct(name, doc, fields):
    return define_struct(globals(), name, doc, fields)


# ---- queues -------------------------------------------------------------------------------------
_struct("D3D12_COMMAND_QUEUE_DESC", "A command queue: Type, Priority, Flags, NodeMask.",
        [("Type", 0), ("Priority", 0), ("Flags", 0), ("NodeMask", 0)])

# ---- heaps and resources ------------------------------------------------------------------------
_struct("D3D12_HEAP_PROPERTIES", "Where a committed resource lives: the heap Type (DEFAULT/UPLOAD/READBACK/CUSTOM).",
        [("Type", 0), ("CPUPageProperty", 0), ("MemoryPoolPreference", 0), ("CreationNodeMask", 0),
         ("VisibleNodeMask", 0)])
_struct("D3D12_RESOURCE_DESC", "A resource: for a buffer, Dimension BUFFER and Width in bytes.",
        [("Dimension", 0), ("Alignment", 0), ("Width", 0), ("Height", 0), ("DepthOrArraySize", 0),
         ("MipLevels", 0), ("Format", 0), ("SampleDesc", DXGI_SAMPLE_DESC), ("Layout", 0), ("Flags", 0)])
_struct("D3D12_CLEAR_VALUE", "An optimized clear value (textures only; buffers take None).",
        [("Format", 0), ("Color", None), ("DepthStencil", None)])
_struct("D3D12_RESOURCE_ALLOCATION_INFO", "GetResourceAllocationInfo: SizeInBytes and Alignment.",
        [("SizeInBytes", 0), ("Alignment", 0)])
_struct("D3D12_RANGE", "A byte range [Begin, End) of a mapped subresource.", [("Begin", 0), ("End", 0)])
_struct("D3D12_SUBRESOURCE_DATA", "Source data for UpdateSubresources: pData (bytes-like), RowPitch, SlicePitch.",
        [("pData", None), ("RowPitch", 0), ("SlicePitch", 0)])

# ---- barriers -----------------------------------------------------------------------------------
_struct("D3D12_RESOURCE_TRANSITION_BARRIER", "A state transition of pResource from StateBefore to StateAfter.",
        [("pResource", None), ("Subresource", 0), ("StateBefore", 0), ("StateAfter", 0)])
_struct("D3D12_RESOURCE_ALIASING_BARRIER", "A change of which placed resource uses shared memory.",
        [("pResourceBefore", None), ("pResourceAfter", None)])
_struct("D3D12_RESOURCE_UAV_BARRIER", "All unordered-access writes to pResource (None: to any resource) finish.",
        [("pResource", None)])
_struct("D3D12_RESOURCE_BARRIER", "A barrier: Type selects the union member read (Transition, Aliasing or UAV).",
        [("Type", 0), ("Flags", 0), ("Transition", D3D12_RESOURCE_TRANSITION_BARRIER),  # noqa: F821
         ("Aliasing", D3D12_RESOURCE_ALIASING_BARRIER), ("UAV", D3D12_RESOURCE_UAV_BARRIER)])  # noqa: F821

# ---- descriptors --------------------------------------------------------------------------------
_struct("D3D12_DESCRIPTOR_HEAP_DESC", "A descriptor heap: Type, NumDescriptors, Flags, NodeMask.",
        [("Type", 0), ("NumDescriptors", 0), ("Flags", 0), ("NodeMask", 0)])
_struct("D3D12_CPU_DESCRIPTOR_HANDLE", "A descriptor's CPU address (ptr, a SIZE_T).", [("ptr", 0)])
_struct("D3D12_GPU_DESCRIPTOR_HANDLE", "A descriptor's GPU address (ptr, a UINT64).", [("ptr", 0)])
_struct("D3D12_BUFFER_UAV", "The buffer part of an unordered-access view.",
        [("FirstElement", 0), ("NumElements", 0), ("StructureByteStride", 0), ("CounterOffsetInBytes", 0),
         ("Flags", 0)])
_struct("D3D12_UNORDERED_ACCESS_VIEW_DESC", "An unordered-access view: Format, ViewDimension and Buffer.",
        [("Format", 0), ("ViewDimension", 0), ("Buffer", D3D12_BUFFER_UAV)])  # noqa: F821
_struct("D3D12_BUFFER_SRV", "The buffer part of a shader-resource view.",
        [("FirstElement", 0), ("NumElements", 0), ("StructureByteStride", 0), ("Flags", 0)])
_struct("D3D12_SHADER_RESOURCE_VIEW_DESC", "A shader-resource view: Format, ViewDimension, mapping and Buffer.",
        [("Format", 0), ("ViewDimension", 0), ("Shader4ComponentMapping", 0),
         ("Buffer", D3D12_BUFFER_SRV)])  # noqa: F821
_struct("D3D12_CONSTANT_BUFFER_VIEW_DESC", "A constant-buffer view: BufferLocation (a GPU VA) and SizeInBytes.",
        [("BufferLocation", 0), ("SizeInBytes", 0)])

# ---- queries ------------------------------------------------------------------------------------
_struct("D3D12_QUERY_HEAP_DESC", "A query heap: Type, Count, NodeMask.", [("Type", 0), ("Count", 0), ("NodeMask", 0)])

# ---- feature support ----------------------------------------------------------------------------
_struct("D3D12_FEATURE_DATA_FEATURE_LEVELS",
        "In: the feature levels asked about (a sequence; NumFeatureLevels may be omitted). Out: the highest supported.",
        [("NumFeatureLevels", None), ("pFeatureLevelsRequested", None), ("MaxSupportedFeatureLevel", 0)])
_struct("D3D12_FEATURE_DATA_ARCHITECTURE", "Out: TileBasedRenderer, UMA, CacheCoherentUMA for NodeIndex.",
        [("NodeIndex", 0), ("TileBasedRenderer", 0), ("UMA", 0), ("CacheCoherentUMA", 0)])
_struct("D3D12_FEATURE_DATA_SHADER_MODEL", "In: the highest shader model the caller knows. Out: the highest supported.",
        [("HighestShaderModel", 0)])
_struct("D3D12_FEATURE_DATA_D3D12_OPTIONS1", "Out: wave operations and the wave width (the preset's).",
        [("WaveOps", 0), ("WaveLaneCountMin", 0), ("WaveLaneCountMax", 0), ("TotalLaneCount", 0),
         ("ExpandedComputeResourceStates", 0), ("Int64ShaderOps", 0)])
_struct("D3D12_FEATURE_DATA_D3D12_OPTIONS4", "Out: Native16BitShaderOpsSupported (the preset's native FP16).",
        [("MSAA64KBAlignedTextureSupported", 0), ("SharedResourceCompatibilityTier", 0),
         ("Native16BitShaderOpsSupported", 0)])
_struct("D3D12_FEATURE_DATA_GPU_VIRTUAL_ADDRESS_SUPPORT", "Out: GPU virtual address bits.",
        [("MaxGPUVirtualAddressBitsPerResource", 0), ("MaxGPUVirtualAddressBitsPerProcess", 0)])
