"""D3D12 enumerations and constants used by the compute path, with their C names and values (d3d12.h).

One IntEnum (or IntFlag for flag types) per C enum type, named like the C type; each member carries
its full C name (`D3D12_HEAP_TYPE.D3D12_HEAP_TYPE_UPLOAD`) and is also a module-level constant, so
`from dmlemu.d3d12 import *` gives the names C code uses. Error sentences never print enum reprs
(which differ between Python versions); they use `enum_name` and `state_name`, which print C names.
"""
import uuid

from dmlemu.com import IID_IUnknown, c_enum

__all__ = []


def _constant(name, value):
    globals()[name] = value
    __all__.append(name)


# ---- feature levels and shader models (d3dcommon.h) ------------------------------------------------
c_enum(globals(), "D3D_FEATURE_LEVEL", "D3D_FEATURE_LEVEL_", [
    ("1_0_GENERIC", 0x100), ("1_0_CORE", 0x1000), ("9_1", 0x9100), ("9_2", 0x9200), ("9_3", 0x9300),
    ("10_0", 0xA000), ("10_1", 0xA100), ("11_0", 0xB000), ("11_1", 0xB100), ("12_0", 0xC000),
    ("12_1", 0xC100), ("12_2", 0xC200)])
c_enum(globals(), "D3D_SHADER_MODEL", "D3D_SHADER_MODEL_", [
    ("NONE", 0), ("5_1", 0x51), ("6_0", 0x60), ("6_1", 0x61), ("6_2", 0x62), ("6_3", 0x63), ("6_4", 0x64),
    ("6_5", 0x65), ("6_6", 0x66), ("6_7", 0x67), ("6_8", 0x68)])

# ---- queues, allocators, command lists, fences -----------------------------------------------------
c_enum(globals(), "D3D12_COMMAND_LIST_TYPE", "D3D12_COMMAND_LIST_TYPE_", [
    ("DIRECT", 0), ("BUNDLE", 1), ("COMPUTE", 2), ("COPY", 3), ("VIDEO_DECODE", 4), ("VIDEO_PROCESS", 5),
    ("VIDEO_ENCODE", 6), ("NONE", -1)])
c_enum(globals(), "D3D12_COMMAND_QUEUE_FLAGS", "D3D12_COMMAND_QUEUE_FLAG_", [
    ("NONE", 0), ("DISABLE_GPU_TIMEOUT", 0x1)], flag=True)
c_enum(globals(), "D3D12_COMMAND_QUEUE_PRIORITY", "D3D12_COMMAND_QUEUE_PRIORITY_", [
    ("NORMAL", 0), ("HIGH", 100), ("GLOBAL_REALTIME", 10000)])
c_enum(globals(), "D3D12_COMMAND_LIST_FLAGS", "D3D12_COMMAND_LIST_FLAG_", [("NONE", 0)], flag=True)
c_enum(globals(), "D3D12_FENCE_FLAGS", "D3D12_FENCE_FLAG_", [
    ("NONE", 0), ("SHARED", 0x1), ("SHARED_CROSS_ADAPTER", 0x2), ("NON_MONITORED", 0x4)], flag=True)

# ---- heaps and resources ----------------------------------------------------------------------------
c_enum(globals(), "D3D12_HEAP_TYPE", "D3D12_HEAP_TYPE_", [
    ("DEFAULT", 1), ("UPLOAD", 2), ("READBACK", 3), ("CUSTOM", 4), ("GPU_UPLOAD", 5)])
c_enum(globals(), "D3D12_CPU_PAGE_PROPERTY", "D3D12_CPU_PAGE_PROPERTY_", [
    ("UNKNOWN", 0), ("NOT_AVAILABLE", 1), ("WRITE_COMBINE", 2), ("WRITE_BACK", 3)])
c_enum(globals(), "D3D12_MEMORY_POOL", "D3D12_MEMORY_POOL_", [("UNKNOWN", 0), ("L0", 1), ("L1", 2)])
c_enum(globals(), "D3D12_HEAP_FLAGS", "D3D12_HEAP_FLAG_", [
    ("NONE", 0), ("SHARED", 0x1), ("DENY_BUFFERS", 0x4), ("ALLOW_DISPLAY", 0x8),
    ("SHARED_CROSS_ADAPTER", 0x20), ("DENY_RT_DS_TEXTURES", 0x40), ("DENY_NON_RT_DS_TEXTURES", 0x80),
    ("HARDWARE_PROTECTED", 0x100), ("ALLOW_WRITE_WATCH", 0x200), ("ALLOW_SHADER_ATOMICS", 0x400),
    ("CREATE_NOT_RESIDENT", 0x800), ("CREATE_NOT_ZEROED", 0x1000),
    ("ALLOW_ALL_BUFFERS_AND_TEXTURES", 0), ("ALLOW_ONLY_BUFFERS", 0xC0),
    ("ALLOW_ONLY_NON_RT_DS_TEXTURES", 0x44), ("ALLOW_ONLY_RT_DS_TEXTURES", 0x84)], flag=True)
c_enum(globals(), "D3D12_RESOURCE_DIMENSION", "D3D12_RESOURCE_DIMENSION_", [
    ("UNKNOWN", 0), ("BUFFER", 1), ("TEXTURE1D", 2), ("TEXTURE2D", 3), ("TEXTURE3D", 4)])
c_enum(globals(), "D3D12_TEXTURE_LAYOUT", "D3D12_TEXTURE_LAYOUT_", [
    ("UNKNOWN", 0), ("ROW_MAJOR", 1), ("64KB_UNDEFINED_SWIZZLE", 2), ("64KB_STANDARD_SWIZZLE", 3)])
c_enum(globals(), "D3D12_RESOURCE_FLAGS", "D3D12_RESOURCE_FLAG_", [
    ("NONE", 0), ("ALLOW_RENDER_TARGET", 0x1), ("ALLOW_DEPTH_STENCIL", 0x2), ("ALLOW_UNORDERED_ACCESS", 0x4),
    ("DENY_SHADER_RESOURCE", 0x8), ("ALLOW_CROSS_ADAPTER", 0x10), ("ALLOW_SIMULTANEOUS_ACCESS", 0x20),
    ("VIDEO_DECODE_REFERENCE_ONLY", 0x40), ("VIDEO_ENCODE_REFERENCE_ONLY", 0x80),
    ("RAYTRACING_ACCELERATION_STRUCTURE", 0x100)], flag=True)
c_enum(globals(), "D3D12_RESOURCE_STATES", "D3D12_RESOURCE_STATE_", [
    ("COMMON", 0), ("VERTEX_AND_CONSTANT_BUFFER", 0x1), ("INDEX_BUFFER", 0x2), ("RENDER_TARGET", 0x4),
    ("UNORDERED_ACCESS", 0x8), ("DEPTH_WRITE", 0x10), ("DEPTH_READ", 0x20), ("NON_PIXEL_SHADER_RESOURCE", 0x40),
    ("PIXEL_SHADER_RESOURCE", 0x80), ("STREAM_OUT", 0x100), ("INDIRECT_ARGUMENT", 0x200), ("COPY_DEST", 0x400),
    ("COPY_SOURCE", 0x800), ("RESOLVE_DEST", 0x1000), ("RESOLVE_SOURCE", 0x2000),
    ("RAYTRACING_ACCELERATION_STRUCTURE", 0x400000), ("SHADING_RATE_SOURCE", 0x1000000),
    ("GENERIC_READ", 0xAC3), ("ALL_SHADER_RESOURCE", 0xC0), ("PRESENT", 0), ("PREDICATION", 0x200),
    ("VIDEO_DECODE_READ", 0x10000), ("VIDEO_DECODE_WRITE", 0x20000), ("VIDEO_PROCESS_READ", 0x40000),
    ("VIDEO_PROCESS_WRITE", 0x80000), ("VIDEO_ENCODE_READ", 0x200000), ("VIDEO_ENCODE_WRITE", 0x800000)],
    flag=True)
c_enum(globals(), "D3D12_RESOURCE_BARRIER_TYPE", "D3D12_RESOURCE_BARRIER_TYPE_", [
    ("TRANSITION", 0), ("ALIASING", 1), ("UAV", 2)])
c_enum(globals(), "D3D12_RESOURCE_BARRIER_FLAGS", "D3D12_RESOURCE_BARRIER_FLAG_", [
    ("NONE", 0), ("BEGIN_ONLY", 0x1), ("END_ONLY", 0x2)], flag=True)
_constant("D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES", 0xFFFFFFFF)
c_enum(globals(), "D3D12_TEXTURE_COPY_TYPE", "D3D12_TEXTURE_COPY_TYPE_", [
    ("SUBRESOURCE_INDEX", 0), ("PLACED_FOOTPRINT", 1)])
_constant("D3D12_TEXTURE_DATA_PITCH_ALIGNMENT", 256)
_constant("D3D12_TEXTURE_DATA_PLACEMENT_ALIGNMENT", 512)
_constant("D3D12_SMALL_RESOURCE_PLACEMENT_ALIGNMENT", 4096)
_constant("D3D12_DEFAULT_MSAA_RESOURCE_PLACEMENT_ALIGNMENT", 4194304)
_constant("D3D12_REQ_MIP_LEVELS", 15)
_constant("D3D12_DEFAULT_RESOURCE_PLACEMENT_ALIGNMENT", 65536)
_constant("D3D12_CONSTANT_BUFFER_DATA_PLACEMENT_ALIGNMENT", 256)
_constant("D3D12_UAV_COUNTER_PLACEMENT_ALIGNMENT", 4096)
_constant("D3D12_RAW_UAV_SRV_BYTE_ALIGNMENT", 16)

# ---- descriptors and views --------------------------------------------------------------------------
c_enum(globals(), "D3D12_DESCRIPTOR_HEAP_TYPE", "D3D12_DESCRIPTOR_HEAP_TYPE_", [
    ("CBV_SRV_UAV", 0), ("SAMPLER", 1), ("RTV", 2), ("DSV", 3), ("NUM_TYPES", 4)])
c_enum(globals(), "D3D12_DESCRIPTOR_HEAP_FLAGS", "D3D12_DESCRIPTOR_HEAP_FLAG_", [
    ("NONE", 0), ("SHADER_VISIBLE", 0x1)], flag=True)
c_enum(globals(), "D3D12_UAV_DIMENSION", "D3D12_UAV_DIMENSION_", [
    ("UNKNOWN", 0), ("BUFFER", 1), ("TEXTURE1D", 2), ("TEXTURE1DARRAY", 3), ("TEXTURE2D", 4),
    ("TEXTURE2DARRAY", 5), ("TEXTURE2DMS", 6), ("TEXTURE2DMSARRAY", 7), ("TEXTURE3D", 8)])
c_enum(globals(), "D3D12_SRV_DIMENSION", "D3D12_SRV_DIMENSION_", [
    ("UNKNOWN", 0), ("BUFFER", 1), ("TEXTURE1D", 2), ("TEXTURE1DARRAY", 3), ("TEXTURE2D", 4),
    ("TEXTURE2DARRAY", 5), ("TEXTURE2DMS", 6), ("TEXTURE2DMSARRAY", 7), ("TEXTURE3D", 8), ("TEXTURECUBE", 9),
    ("TEXTURECUBEARRAY", 10), ("RAYTRACING_ACCELERATION_STRUCTURE", 11)])
c_enum(globals(), "D3D12_BUFFER_UAV_FLAGS", "D3D12_BUFFER_UAV_FLAG_", [("NONE", 0), ("RAW", 0x1)], flag=True)
c_enum(globals(), "D3D12_BUFFER_SRV_FLAGS", "D3D12_BUFFER_SRV_FLAG_", [("NONE", 0), ("RAW", 0x1)], flag=True)
_constant("D3D12_DEFAULT_SHADER_4_COMPONENT_MAPPING", 0x1688)
_constant("D3D12_MAX_SHADER_VISIBLE_DESCRIPTOR_HEAP_SIZE_TIER_1", 1000000)
_constant("D3D12_MAX_SHADER_VISIBLE_SAMPLER_HEAP_SIZE", 2048)

# ---- root signatures and compute pipelines ------------------------------------------------------------
c_enum(globals(), "D3D_ROOT_SIGNATURE_VERSION", "D3D_ROOT_SIGNATURE_VERSION_", [
    ("1", 0x1), ("1_0", 0x1), ("1_1", 0x2), ("1_2", 0x3)])
c_enum(globals(), "D3D12_ROOT_PARAMETER_TYPE", "D3D12_ROOT_PARAMETER_TYPE_", [
    ("DESCRIPTOR_TABLE", 0), ("32BIT_CONSTANTS", 1), ("CBV", 2), ("SRV", 3), ("UAV", 4)])
c_enum(globals(), "D3D12_DESCRIPTOR_RANGE_TYPE", "D3D12_DESCRIPTOR_RANGE_TYPE_", [
    ("SRV", 0), ("UAV", 1), ("CBV", 2), ("SAMPLER", 3)])
c_enum(globals(), "D3D12_SHADER_VISIBILITY", "D3D12_SHADER_VISIBILITY_", [
    ("ALL", 0), ("VERTEX", 1), ("HULL", 2), ("DOMAIN", 3), ("GEOMETRY", 4), ("PIXEL", 5), ("AMPLIFICATION", 6),
    ("MESH", 7)])
c_enum(globals(), "D3D12_ROOT_SIGNATURE_FLAGS", "D3D12_ROOT_SIGNATURE_FLAG_", [
    ("NONE", 0), ("ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT", 0x1), ("DENY_VERTEX_SHADER_ROOT_ACCESS", 0x2),
    ("DENY_HULL_SHADER_ROOT_ACCESS", 0x4), ("DENY_DOMAIN_SHADER_ROOT_ACCESS", 0x8),
    ("DENY_GEOMETRY_SHADER_ROOT_ACCESS", 0x10), ("DENY_PIXEL_SHADER_ROOT_ACCESS", 0x20),
    ("ALLOW_STREAM_OUTPUT", 0x40), ("LOCAL_ROOT_SIGNATURE", 0x80), ("DENY_AMPLIFICATION_SHADER_ROOT_ACCESS", 0x100),
    ("DENY_MESH_SHADER_ROOT_ACCESS", 0x200), ("CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED", 0x400),
    ("SAMPLER_HEAP_DIRECTLY_INDEXED", 0x800)], flag=True)
c_enum(globals(), "D3D12_PIPELINE_STATE_FLAGS", "D3D12_PIPELINE_STATE_FLAG_", [
    ("NONE", 0), ("TOOL_DEBUG", 0x1)], flag=True)
_constant("D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND", 0xFFFFFFFF)
_constant("D3D12_MAX_ROOT_COST", 64)
_constant("D3D12_CS_DISPATCH_MAX_THREAD_GROUPS_PER_DIMENSION", 65535)
_constant("D3D12_CS_THREAD_GROUP_MAX_THREADS_PER_GROUP", 1024)
_constant("D3D12_CS_THREAD_GROUP_MAX_X", 1024)
_constant("D3D12_CS_THREAD_GROUP_MAX_Y", 1024)
_constant("D3D12_CS_THREAD_GROUP_MAX_Z", 64)

# ---- queries ----------------------------------------------------------------------------------------
c_enum(globals(), "D3D12_QUERY_HEAP_TYPE", "D3D12_QUERY_HEAP_TYPE_", [
    ("OCCLUSION", 0), ("TIMESTAMP", 1), ("PIPELINE_STATISTICS", 2), ("SO_STATISTICS", 3),
    ("VIDEO_DECODE_STATISTICS", 4), ("COPY_QUEUE_TIMESTAMP", 5), ("PIPELINE_STATISTICS1", 7)])
c_enum(globals(), "D3D12_QUERY_TYPE", "D3D12_QUERY_TYPE_", [
    ("OCCLUSION", 0), ("BINARY_OCCLUSION", 1), ("TIMESTAMP", 2), ("PIPELINE_STATISTICS", 3),
    ("SO_STATISTICS_STREAM0", 4), ("SO_STATISTICS_STREAM1", 5), ("SO_STATISTICS_STREAM2", 6),
    ("SO_STATISTICS_STREAM3", 7), ("VIDEO_DECODE_STATISTICS", 8), ("PIPELINE_STATISTICS1", 10)])

# ---- feature support --------------------------------------------------------------------------------
c_enum(globals(), "D3D12_FEATURE", "D3D12_FEATURE_", [
    ("D3D12_OPTIONS", 0), ("ARCHITECTURE", 1), ("FEATURE_LEVELS", 2), ("FORMAT_SUPPORT", 3),
    ("MULTISAMPLE_QUALITY_LEVELS", 4), ("FORMAT_INFO", 5), ("GPU_VIRTUAL_ADDRESS_SUPPORT", 6),
    ("SHADER_MODEL", 7), ("D3D12_OPTIONS1", 8), ("PROTECTED_RESOURCE_SESSION_SUPPORT", 10),
    ("ROOT_SIGNATURE", 12), ("ARCHITECTURE1", 16), ("D3D12_OPTIONS2", 18), ("SHADER_CACHE", 19),
    ("COMMAND_QUEUE_PRIORITY", 20), ("D3D12_OPTIONS3", 21), ("EXISTING_HEAPS", 22), ("D3D12_OPTIONS4", 23),
    ("SERIALIZATION", 24), ("CROSS_NODE", 25), ("D3D12_OPTIONS5", 27)])

# ---- D3D12_FEATURE_DATA_D3D12_OPTIONS fields ---------------------------------------------------------
c_enum(globals(), "D3D12_SHADER_MIN_PRECISION_SUPPORT", "D3D12_SHADER_MIN_PRECISION_SUPPORT_", [
    ("NONE", 0), ("10_BIT", 0x1), ("16_BIT", 0x2)], flag=True)
c_enum(globals(), "D3D12_TILED_RESOURCES_TIER", "D3D12_TILED_RESOURCES_TIER_", [
    ("NOT_SUPPORTED", 0), ("1", 1), ("2", 2), ("3", 3), ("4", 4)])
c_enum(globals(), "D3D12_RESOURCE_BINDING_TIER", "D3D12_RESOURCE_BINDING_TIER_", [("1", 1), ("2", 2), ("3", 3)])
c_enum(globals(), "D3D12_CONSERVATIVE_RASTERIZATION_TIER", "D3D12_CONSERVATIVE_RASTERIZATION_TIER_", [
    ("NOT_SUPPORTED", 0), ("1", 1), ("2", 2), ("3", 3)])
c_enum(globals(), "D3D12_CROSS_NODE_SHARING_TIER", "D3D12_CROSS_NODE_SHARING_TIER_", [
    ("NOT_SUPPORTED", 0), ("1_EMULATED", 1), ("1", 2), ("2", 3), ("3", 4)])
c_enum(globals(), "D3D12_RESOURCE_HEAP_TIER", "D3D12_RESOURCE_HEAP_TIER_", [("1", 1), ("2", 2)])

# ---- interface IDs (d3d12.h; IIDs are GUIDs, not enums: uuid.UUID constants) ----------------------------
_IIDS = [
    ("ID3D12Object", "c4fec28f-7966-4e95-9f94-f431cb56c3b8"),
    ("ID3D12DeviceChild", "905db94b-a00c-4140-9df5-2b64ca9ea357"),
    ("ID3D12RootSignature", "c54a6b66-72df-4ee8-8be5-a946a1429214"),
    ("ID3D12Pageable", "63ee58fb-1268-4835-86da-f008ce62f0d6"),
    ("ID3D12Heap", "6b3b2502-6e51-45b3-90ee-9884265e8df3"),
    ("ID3D12Resource", "696442be-a72e-4059-bc79-5b5c98040fad"),
    ("ID3D12CommandAllocator", "6102dee4-af59-4b09-b999-b44d73f09b24"),
    ("ID3D12Fence", "0a753dcf-c4d8-4b91-adf6-be5a60d95a76"),
    ("ID3D12Fence1", "433685fe-e22b-4ca0-a8db-b5b4f4dd0e4a"),
    ("ID3D12PipelineState", "765a30f3-f624-4c6f-a828-ace948622445"),
    ("ID3D12DescriptorHeap", "8efb471d-616c-4f49-90f7-127bb763fa51"),
    ("ID3D12QueryHeap", "0d9658ae-ed45-469e-a61d-970ec583cab4"),
    ("ID3D12CommandList", "7116d91c-e7e4-47ce-b8c6-ec8168f437e5"),
    ("ID3D12GraphicsCommandList", "5b160d0f-ac1b-4185-8ba8-b3ae42a5a455"),
    ("ID3D12GraphicsCommandList1", "553103fb-1fe7-4557-bb38-946d7d0e7ca7"),
    ("ID3D12GraphicsCommandList2", "38c3e585-ff17-412c-9150-4fc6f9d72a28"),
    ("ID3D12GraphicsCommandList3", "6fda83a7-b84c-4e38-9ac8-c7bd22016b3d"),
    ("ID3D12GraphicsCommandList4", "8754318e-d3a9-4541-98cf-645b50dc4874"),
    ("ID3D12CommandQueue", "0ec870a6-5d7e-4c22-8cfc-5baae07616ed"),
    ("ID3D12Device", "189819f1-1db6-4b57-be54-1821339b85f7"),
    ("ID3D12Device1", "77acce80-638e-4e65-8895-c1f23386863e"),
    ("ID3D12Device2", "30baa41e-b15b-475c-a0bb-1af5c5b64328"),
    ("ID3D12Device3", "81dadc15-2bad-4392-93c5-101345c4aa98"),
    ("ID3D12Device4", "e865df17-a9ee-46f9-a463-3098315aa2e5"),
    ("ID3D12Device5", "8b4f173b-2fea-4b80-8f58-4307191ab95d"),
    ("ID3D12Resource1", "9d5e227a-4430-4161-88b3-3eca6bb16e19"),
    ("ID3D12Heap1", "572f7389-2168-49e3-9693-d6df5871bf6d"),
    ("ID3D12InfoQueue", "0742a90b-c387-483f-b946-30a7e4e61458"),     # d3d12sdklayers.h
    ("ID3D12InfoQueue1", "2852dd88-b484-4c0c-b6b1-67168500e600"),
]
for _interface, _text in _IIDS:
    _constant("IID_" + _interface, uuid.UUID(_text))
_constant("IID_IUnknown", IID_IUnknown)
# C interface name -> IID (QueryInterface's table; base.py says which class implements which).
INTERFACE_IIDS = {name: globals()["IID_" + name] for name, _ in _IIDS}

# ---- resource-state classes (not C names; used by the state model in resource.py) ---------------------
_S = D3D12_RESOURCE_STATES  # noqa: F821 (defined by c_enum)
READ_ONLY_STATES = int(
    _S.D3D12_RESOURCE_STATE_VERTEX_AND_CONSTANT_BUFFER | _S.D3D12_RESOURCE_STATE_INDEX_BUFFER
    | _S.D3D12_RESOURCE_STATE_DEPTH_READ | _S.D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE
    | _S.D3D12_RESOURCE_STATE_PIXEL_SHADER_RESOURCE | _S.D3D12_RESOURCE_STATE_INDIRECT_ARGUMENT
    | _S.D3D12_RESOURCE_STATE_COPY_SOURCE | _S.D3D12_RESOURCE_STATE_RESOLVE_SOURCE
    | _S.D3D12_RESOURCE_STATE_SHADING_RATE_SOURCE | _S.D3D12_RESOURCE_STATE_VIDEO_DECODE_READ
    | _S.D3D12_RESOURCE_STATE_VIDEO_PROCESS_READ | _S.D3D12_RESOURCE_STATE_VIDEO_ENCODE_READ)
WRITE_STATES = tuple(int(_S["D3D12_RESOURCE_STATE_" + name]) for name in (
    "RENDER_TARGET", "UNORDERED_ACCESS", "DEPTH_WRITE", "STREAM_OUT", "COPY_DEST", "RESOLVE_DEST",
    "VIDEO_DECODE_WRITE", "VIDEO_PROCESS_WRITE", "VIDEO_ENCODE_WRITE", "RAYTRACING_ACCELERATION_STRUCTURE"))
_STATE_NAMES = dict(_S._c_names_)


def state_name(state):
    """The C spelling of a D3D12_RESOURCE_STATES value: one name, or bit names joined by ' | '."""
    state = int(state)
    if state in _STATE_NAMES:
        return _STATE_NAMES[state]
    names, rest = [], state
    for bit in range(32):
        mask = 1 << bit
        if rest & mask:
            names.append(_STATE_NAMES.get(mask, f"0x{mask:X}"))
            rest &= ~mask
    return " | ".join(names)


def is_valid_state(state):
    """True for COMMON, one write state alone, or any combination of read-only states."""
    state = int(state)
    if state == 0 or state in WRITE_STATES:
        return True
    return state > 0 and (state & ~READ_ONLY_STATES) == 0


def is_read_only_state(state):
    state = int(state)
    return state != 0 and (state & ~READ_ONLY_STATES) == 0
