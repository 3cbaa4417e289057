"""D3D12 structs of the compute path as mutable Python classes with the C field names (d3d12.h).

Built with the C field names as keyword arguments (or positionally, in C order); a field left out
takes C's zero (0, None for a pointer, a zeroed struct for an embedded struct), so a hand-built
D3D12_RESOURCE_DESC without SampleDesc has SampleDesc.Count 0, which CreateCommittedResource rejects
as D3D12 does (the d3dx12 helpers fill the usual values). A C union (D3D12_RESOURCE_BARRIER's
Transition / Aliasing / UAV, a view desc's Buffer) has one field per member; the Type field says
which is read. A (count, pointer) pair becomes one sequence.
"""
from dmlemu.com import Count, define_struct
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
_struct("D3D12_HEAP_DESC", "A heap: SizeInBytes, Properties, Alignment and Flags (CreateHeap).",
        [("SizeInBytes", 0), ("Properties", D3D12_HEAP_PROPERTIES), ("Alignment", 0), ("Flags", 0)])  # noqa: F821
_struct("D3D12_RECT", "A rectangle [left, right) x [top, bottom) (a RECT); for a buffer view, elements left to right.",
        [("left", 0), ("top", 0), ("right", 0), ("bottom", 0)])
_struct("D3D12_SUBRESOURCE_FOOTPRINT", "A subresource's layout: Format, Width, Height, Depth, RowPitch.",
        [("Format", 0), ("Width", 0), ("Height", 0), ("Depth", 0), ("RowPitch", 0)])
_struct("D3D12_PLACED_SUBRESOURCE_FOOTPRINT", "Where a subresource lies in a buffer: Offset and Footprint.",
        [("Offset", 0), ("Footprint", D3D12_SUBRESOURCE_FOOTPRINT)])  # noqa: F821
_struct("D3D12_RANGE", "A byte range [Begin, End) of a mapped subresource.", [("Begin", 0), ("End", 0)])
_struct("D3D12_TEXTURE_COPY_LOCATION", "One side of CopyTextureRegion: pResource and, as Type says, a "
        "SubresourceIndex of a texture or a PlacedFootprint in a buffer.",
        [("pResource", None), ("Type", 0), ("PlacedFootprint", D3D12_PLACED_SUBRESOURCE_FOOTPRINT),  # noqa: F821
         ("SubresourceIndex", 0)])
_struct("D3D12_BOX", "A box of texels [left, right) x [top, bottom) x [front, back).",
        [("left", 0), ("top", 0), ("front", 0), ("right", 0), ("bottom", 0), ("back", 0)])
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
_struct("D3D12_TEX1D_UAV", "The Texture1D part of an unordered-access view.", [("MipSlice", 0)])
_struct("D3D12_TEX1D_ARRAY_UAV", "The Texture1DArray part of an unordered-access view.",
        [("MipSlice", 0), ("FirstArraySlice", 0), ("ArraySize", 0)])
_struct("D3D12_TEX2D_UAV", "The Texture2D part of an unordered-access view.", [("MipSlice", 0), ("PlaneSlice", 0)])
_struct("D3D12_TEX2D_ARRAY_UAV", "The Texture2DArray part of an unordered-access view.",
        [("MipSlice", 0), ("FirstArraySlice", 0), ("ArraySize", 0), ("PlaneSlice", 0)])
_struct("D3D12_TEX3D_UAV", "The Texture3D part of an unordered-access view (WSize -1: to the last depth slice).",
        [("MipSlice", 0), ("FirstWSlice", 0), ("WSize", 0)])
_struct("D3D12_UNORDERED_ACCESS_VIEW_DESC", "An unordered-access view: Format, ViewDimension and the union member "
        "it selects (Buffer, Texture1D, Texture1DArray, Texture2D, Texture2DArray, Texture3D).",
        [("Format", 0), ("ViewDimension", 0), ("Buffer", D3D12_BUFFER_UAV),  # noqa: F821
         ("Texture1D", D3D12_TEX1D_UAV), ("Texture1DArray", D3D12_TEX1D_ARRAY_UAV),  # noqa: F821
         ("Texture2D", D3D12_TEX2D_UAV), ("Texture2DArray", D3D12_TEX2D_ARRAY_UAV),  # noqa: F821
         ("Texture3D", D3D12_TEX3D_UAV)])  # noqa: F821
_struct("D3D12_BUFFER_SRV", "The buffer part of a shader-resource view.",
        [("FirstElement", 0), ("NumElements", 0), ("StructureByteStride", 0), ("Flags", 0)])
_struct("D3D12_TEX1D_SRV", "The Texture1D part of a shader-resource view (MipLevels -1: to the last mip).",
        [("MostDetailedMip", 0), ("MipLevels", 0), ("ResourceMinLODClamp", 0.0)])
_struct("D3D12_TEX1D_ARRAY_SRV", "The Texture1DArray part of a shader-resource view.",
        [("MostDetailedMip", 0), ("MipLevels", 0), ("FirstArraySlice", 0), ("ArraySize", 0),
         ("ResourceMinLODClamp", 0.0)])
_struct("D3D12_TEX2D_SRV", "The Texture2D part of a shader-resource view (MipLevels -1: to the last mip).",
        [("MostDetailedMip", 0), ("MipLevels", 0), ("PlaneSlice", 0), ("ResourceMinLODClamp", 0.0)])
_struct("D3D12_TEX2D_ARRAY_SRV", "The Texture2DArray part of a shader-resource view.",
        [("MostDetailedMip", 0), ("MipLevels", 0), ("FirstArraySlice", 0), ("ArraySize", 0), ("PlaneSlice", 0),
         ("ResourceMinLODClamp", 0.0)])
_struct("D3D12_TEX3D_SRV", "The Texture3D part of a shader-resource view (MipLevels -1: to the last mip).",
        [("MostDetailedMip", 0), ("MipLevels", 0), ("ResourceMinLODClamp", 0.0)])
_struct("D3D12_SHADER_RESOURCE_VIEW_DESC", "A shader-resource view: Format, ViewDimension, mapping and the union "
        "member it selects (Buffer, Texture1D, Texture1DArray, Texture2D, Texture2DArray, Texture3D).",
        [("Format", 0), ("ViewDimension", 0), ("Shader4ComponentMapping", 0),
         ("Buffer", D3D12_BUFFER_SRV), ("Texture1D", D3D12_TEX1D_SRV),  # noqa: F821
         ("Texture1DArray", D3D12_TEX1D_ARRAY_SRV), ("Texture2D", D3D12_TEX2D_SRV),  # noqa: F821
         ("Texture2DArray", D3D12_TEX2D_ARRAY_SRV), ("Texture3D", D3D12_TEX3D_SRV)])  # noqa: F821
_struct("D3D12_CONSTANT_BUFFER_VIEW_DESC", "A constant-buffer view: BufferLocation (a GPU VA) and SizeInBytes.",
        [("BufferLocation", 0), ("SizeInBytes", 0)])

# ---- root signatures and compute pipelines -------------------------------------------------------
_struct("D3D12_DESCRIPTOR_RANGE", "A range of NumDescriptors descriptors of one RangeType in a descriptor table.",
        [("RangeType", 0), ("NumDescriptors", 0), ("BaseShaderRegister", 0), ("RegisterSpace", 0),
         ("OffsetInDescriptorsFromTableStart", 0)])
_struct("D3D12_ROOT_DESCRIPTOR_TABLE", "A descriptor table: its ranges (NumDescriptorRanges may be omitted).",
        [("NumDescriptorRanges", Count("pDescriptorRanges")), ("pDescriptorRanges", None)])
_struct("D3D12_ROOT_CONSTANTS", "Num32BitValues root constants read as constant buffer ShaderRegister.",
        [("ShaderRegister", 0), ("RegisterSpace", 0), ("Num32BitValues", 0)])
_struct("D3D12_ROOT_DESCRIPTOR", "A root CBV, SRV or UAV: a GPU virtual address bound to ShaderRegister.",
        [("ShaderRegister", 0), ("RegisterSpace", 0)])
_struct("D3D12_ROOT_PARAMETER", "A root parameter: ParameterType selects the union member read "
        "(DescriptorTable, Constants or Descriptor).",
        [("ParameterType", 0), ("DescriptorTable", D3D12_ROOT_DESCRIPTOR_TABLE),  # noqa: F821
         ("Constants", D3D12_ROOT_CONSTANTS), ("Descriptor", D3D12_ROOT_DESCRIPTOR),  # noqa: F821
         ("ShaderVisibility", 0)])
_struct("D3D12_ROOT_SIGNATURE_DESC", "A root signature: its parameters, static samplers and Flags (counts may be "
        "omitted).",
        [("NumParameters", Count("pParameters")), ("pParameters", None),
         ("NumStaticSamplers", Count("pStaticSamplers")), ("pStaticSamplers", None), ("Flags", 0)])
_struct("D3D12_SHADER_BYTECODE", "A shader binary: pShaderBytecode (bytes-like) and BytecodeLength.",
        [("pShaderBytecode", None), ("BytecodeLength", 0)])
_struct("D3D12_CACHED_PIPELINE_STATE", "A cached pipeline blob (GetCachedBlob's bytes), or none.",
        [("pCachedBlob", None), ("CachedBlobSizeInBytes", 0)])
_struct("D3D12_COMPUTE_PIPELINE_STATE_DESC", "A compute pipeline: root signature, CS bytecode, NodeMask, "
        "CachedPSO, Flags.",
        [("pRootSignature", None), ("CS", D3D12_SHADER_BYTECODE), ("NodeMask", 0),  # noqa: F821
         ("CachedPSO", D3D12_CACHED_PIPELINE_STATE), ("Flags", 0)])  # noqa: F821

# ---- queries ------------------------------------------------------------------------------------
_struct("D3D12_QUERY_HEAP_DESC", "A query heap: Type, Count, NodeMask.", [("Type", 0), ("Count", 0), ("NodeMask", 0)])

# ---- feature support ----------------------------------------------------------------------------
_struct("D3D12_FEATURE_DATA_FEATURE_LEVELS",
        "In: the feature levels asked about (a sequence; NumFeatureLevels may be omitted). Out: the highest supported.",
        [("NumFeatureLevels", None), ("pFeatureLevelsRequested", None), ("MaxSupportedFeatureLevel", 0)])
_struct("D3D12_FEATURE_DATA_ARCHITECTURE", "Out: TileBasedRenderer, UMA, CacheCoherentUMA for NodeIndex.",
        [("NodeIndex", 0), ("TileBasedRenderer", 0), ("UMA", 0), ("CacheCoherentUMA", 0)])
_struct("D3D12_FEATURE_DATA_ARCHITECTURE1", "Out: ARCHITECTURE's fields and IsolatedMMU for NodeIndex.",
        [("NodeIndex", 0), ("TileBasedRenderer", 0), ("UMA", 0), ("CacheCoherentUMA", 0), ("IsolatedMMU", 0)])
_struct("D3D12_FEATURE_DATA_D3D12_OPTIONS", "Out: the adapter's D3D12 options (binding, tiled-resource and heap tiers, ...).",
        [("DoublePrecisionFloatShaderOps", 0), ("OutputMergerLogicOp", 0), ("MinPrecisionSupport", 0),
         ("TiledResourcesTier", 0), ("ResourceBindingTier", 0), ("PSSpecifiedStencilRefSupported", 0),
         ("TypedUAVLoadAdditionalFormats", 0), ("ROVsSupported", 0), ("ConservativeRasterizationTier", 0),
         ("MaxGPUVirtualAddressBitsPerResource", 0), ("StandardSwizzle64KBSupported", 0),
         ("CrossNodeSharingTier", 0), ("CrossAdapterRowMajorTextureSupported", 0),
         ("VPAndRTArrayIndexFromAnyShaderFeedingRasterizerSupportedWithoutGSEmulation", 0),
         ("ResourceHeapTier", 0)])
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
