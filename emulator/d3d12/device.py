"""ID3D12Device: one emulated GPU and the factory of everything that runs on it.

One per D3D12CreateDevice call; each device owns its own dmlemu.gpu.Gpu (`device._gpu`: memory,
dispatcher, clock), so devices are independent and deterministic (unlike D3D12, which returns the
same device for the same adapter). The device keeps what its children share: its queues (in
creation order, the order the queues are pumped in), a lookup from descriptor handles and GPU
addresses to heaps and buffers, per-kind counters for labels ("buffer #3"), and device removal.

Device removal: `_removed_reason` is None, or (HRESULT, sentence) of the first misuse that removed
the device (`_remove(hresult, sentence)`). Afterwards every HRESULT method of the device and its
children raises DXGI_ERROR_DEVICE_REMOVED naming that reason, void methods do nothing, pending queue
work is dropped, fences read UINT64_MAX, and GetDeviceRemovedReason returns the reason's code
(S_OK while the device is fine). `_debug_layer` (copied from the process-wide debug layer switch at
creation, or set by D3D12CreateDevice's `debug_layer` keyword) turns on the debug layer: every misuse
becomes a message of the device's info queue (`_info_queue`, info_queue.py;
QueryInterface(IID_ID3D12InfoQueue) reaches it), which by default breaks on errors, so the misuse also
raises at the offending call (messages.report).
"""
import itertools
import numbers
import threading
import uuid
import weakref

from dmlemu.errors import (DXGI_ERROR_INVALID_CALL, DXGI_ERROR_UNSUPPORTED, E_INVALIDARG, E_NOINTERFACE, E_NOTIMPL,
                           HResultError, S_OK, short_repr)
from dmlemu import dxgi
from dmlemu.presets import AdapterPreset, DEFAULT_PRESET, PRESETS
from dmlemu.d3d12 import debug
from dmlemu.com import COMObject, hresult_method, void_method
from dmlemu.d3d12.base import invalid_arg, query_d3d12_interface, removed_error
from dmlemu.d3d12.heap import allocation_size, create_heap, create_placed_resource
from dmlemu.d3d12.command_allocator import create_command_allocator
from dmlemu.d3d12.command_list import create_command_list, create_command_list1
from dmlemu.d3d12.command_queue import create_command_queue
from dmlemu.d3d12.descriptor_heap import (CPU_DESCRIPTOR_BASE, CPU_RANGE_ALIGNMENT, INCREMENT_SIZE, _ptr,
                                          create_descriptor_heap, handle_bias, reserve_handle_space)
from dmlemu.com import check_sequence, enum_name, is_one_of
from dmlemu.d3d12.enums import (
    D3D_FEATURE_LEVEL, D3D_FEATURE_LEVEL_1_0_CORE, D3D_FEATURE_LEVEL_1_0_GENERIC, D3D_FEATURE_LEVEL_11_0,
    D3D_FEATURE_LEVEL_11_1, D3D_FEATURE_LEVEL_12_0, D3D_FEATURE_LEVEL_12_1, D3D_FEATURE_LEVEL_12_2, D3D_SHADER_MODEL_5_1,
    D3D_SHADER_MODEL_6_0, D3D_SHADER_MODEL_6_1, D3D_SHADER_MODEL_6_2, D3D_SHADER_MODEL_6_3, D3D_SHADER_MODEL_6_4,
    D3D_SHADER_MODEL_6_5, D3D_SHADER_MODEL_6_6, D3D_SHADER_MODEL_6_7, D3D_SHADER_MODEL_6_8,
    D3D12_CPU_PAGE_PROPERTY_NOT_AVAILABLE, D3D12_CPU_PAGE_PROPERTY_UNKNOWN, D3D12_CPU_PAGE_PROPERTY_WRITE_BACK,
    D3D12_CPU_PAGE_PROPERTY_WRITE_COMBINE, D3D12_FEATURE, D3D12_FEATURE_ARCHITECTURE, D3D12_FEATURE_D3D12_OPTIONS1,
    D3D12_FEATURE_D3D12_OPTIONS4, D3D12_FEATURE_FEATURE_LEVELS, D3D12_FEATURE_GPU_VIRTUAL_ADDRESS_SUPPORT,
    D3D12_FEATURE_SHADER_MODEL, D3D12_HEAP_TYPE_CUSTOM, D3D12_HEAP_TYPE_DEFAULT, D3D12_HEAP_TYPE_READBACK,
    D3D12_FENCE_FLAG_NON_MONITORED, D3D12_FENCE_FLAG_SHARED, D3D12_FENCE_FLAG_SHARED_CROSS_ADAPTER,
    D3D12_HEAP_TYPE_UPLOAD, D3D12_MEMORY_POOL_L0, D3D12_MEMORY_POOL_L1, D3D12_MEMORY_POOL_UNKNOWN)
from dmlemu.d3d12.fence import ID3D12Fence, UINT64_MAX
from dmlemu.d3d12.enums import IID_ID3D12InfoQueue, IID_ID3D12InfoQueue1
from dmlemu.d3d12.info_queue import ID3D12InfoQueue1
from dmlemu.d3d12.messages import D3D12_MESSAGE_CATEGORY_EXECUTION, D3D12_MESSAGE_ID_UNKNOWN, report
from dmlemu.d3d12.query_heap import create_query_heap
from dmlemu.d3d12.resource import BUFFER_ALIGNMENT, _check_buffer_desc, copyable_footprints, create_committed_resource
from dmlemu.d3d12.enums import (
    D3D12_CONSERVATIVE_RASTERIZATION_TIER_1, D3D12_CROSS_NODE_SHARING_TIER_NOT_SUPPORTED, D3D12_FEATURE_ARCHITECTURE1,
    D3D12_FEATURE_D3D12_OPTIONS, D3D12_RESOURCE_BINDING_TIER_2, D3D12_RESOURCE_HEAP_TIER_2,
    D3D12_SHADER_MIN_PRECISION_SUPPORT_16_BIT, D3D12_TILED_RESOURCES_TIER_NOT_SUPPORTED)
from dmlemu.d3d12.structs import D3D12_FEATURE_DATA_ARCHITECTURE1, D3D12_FEATURE_DATA_D3D12_OPTIONS
from dmlemu.d3d12.structs import (D3D12_FEATURE_DATA_ARCHITECTURE, D3D12_FEATURE_DATA_D3D12_OPTIONS1,
                      D3D12_FEATURE_DATA_D3D12_OPTIONS4, D3D12_FEATURE_DATA_FEATURE_LEVELS,
                      D3D12_FEATURE_DATA_GPU_VIRTUAL_ADDRESS_SUPPORT, D3D12_FEATURE_DATA_SHADER_MODEL,
                      D3D12_HEAP_PROPERTIES, D3D12_RESOURCE_ALLOCATION_INFO)
from dmlemu.d3d12 import views
from dmlemu.d3d12.structs import D3D12_RESOURCE_DESC
from dmlemu.d3d12.texture_layout import allocation_info as texture_allocation_info, is_texture

# The highest Direct3D feature level every emulated adapter reports.
MAX_FEATURE_LEVEL = int(D3D_FEATURE_LEVEL_12_1)
# Levels D3D12CreateDevice accepts as a minimum: the compute-only core levels and 11_0 and up.
_DEVICE_LEVELS = (D3D_FEATURE_LEVEL_1_0_GENERIC, D3D_FEATURE_LEVEL_1_0_CORE, D3D_FEATURE_LEVEL_11_0,
                  D3D_FEATURE_LEVEL_11_1, D3D_FEATURE_LEVEL_12_0, D3D_FEATURE_LEVEL_12_1, D3D_FEATURE_LEVEL_12_2)
HIGHEST_SHADER_MODEL = int(D3D_SHADER_MODEL_6_6)
_SHADER_MODELS = (D3D_SHADER_MODEL_5_1, D3D_SHADER_MODEL_6_0, D3D_SHADER_MODEL_6_1, D3D_SHADER_MODEL_6_2,
                  D3D_SHADER_MODEL_6_3, D3D_SHADER_MODEL_6_4, D3D_SHADER_MODEL_6_5, D3D_SHADER_MODEL_6_6,
                  D3D_SHADER_MODEL_6_7, D3D_SHADER_MODEL_6_8)
_KNOWN_FENCE_FLAGS = int(D3D12_FENCE_FLAG_SHARED | D3D12_FENCE_FLAG_SHARED_CROSS_ADAPTER
                         | D3D12_FENCE_FLAG_NON_MONITORED)
# GetCustomHeapProperties: the CUSTOM heap equal to each standard heap on a discrete GPU, as
# heap type -> (CPUPageProperty, MemoryPoolPreference).
_CUSTOM_EQUIVALENT = {
    D3D12_HEAP_TYPE_DEFAULT: (D3D12_CPU_PAGE_PROPERTY_NOT_AVAILABLE, D3D12_MEMORY_POOL_L1),
    D3D12_HEAP_TYPE_UPLOAD: (D3D12_CPU_PAGE_PROPERTY_WRITE_COMBINE, D3D12_MEMORY_POOL_L0),
    D3D12_HEAP_TYPE_READBACK: (D3D12_CPU_PAGE_PROPERTY_WRITE_BACK, D3D12_MEMORY_POOL_L0)}
_device_numbers = itertools.count(1)


class ID3D12Device(COMObject):
    """A D3D12 device (ID3D12Device .. ID3D12Device4 methods of the compute path)."""

    def __init__(self, adapter_index, preset, gpu, debug_layer=None):
        self._adapter_index = adapter_index
        self._preset = preset
        self._gpu = gpu
        self._number = next(_device_numbers)
        self._name = ""
        self._removed_reason = None
        self._debug_layer = debug.is_enabled() if debug_layer is None else debug_layer
        self._info_queue = ID3D12InfoQueue1(self)   # reachable through QueryInterface with the debug layer on
        self._counters = {}
        self._queues = []
        self._fences = weakref.WeakSet()
        self._heaps = weakref.WeakValueDictionary()       # cpu base -> descriptor heap
        self._buffers = weakref.WeakValueDictionary()     # gpu_va -> buffer
        self._memory_heaps = weakref.WeakValueDictionary()  # gpu_va -> ID3D12Heap (CreateHeap)
        self._handle_bias = handle_bias(reserve_handle_space(self))   # its descriptor handles' bits 48 .. 62
        self._next_cpu_descriptor = CPU_DESCRIPTOR_BASE + self._handle_bias
        self._ecl_touched = {}  # buffers touched by the ExecuteCommandLists call running now
        self._hazard_count = 0  # hazards the queues' work made (hazards.py), debug layer or not
        self._deferred_reports = []  # debug-layer reports found while executing, raised after the pump
        self._pumping = False
        # Free-threaded device: one lock orders the queues' execution and the device's counters
        # (re-entrant: executing work may create objects or pump again on the same thread).
        self._lock = threading.RLock()
        self._fence_changed = threading.Condition(self._lock)   # a fence took a new value

    # ---- internal: shared by the children --------------------------------------------------------
    @property
    def _device(self):
        return self  # lets the method wrappers of dmlemu.com serve the device too

    @property
    def _label(self):
        return f"device {self._name!r}" if self._name else f"device #{self._number}"

    def _next_serial(self, kind):
        with self._lock:
            self._counters[kind] = self._counters.get(kind, 0) + 1
            return self._counters[kind]

    def _check_not_removed(self, method_name):
        if self._removed_reason is not None:
            raise removed_error(method_name, self._removed_reason)

    def _remove(self, hresult, message):
        """Remove the device (the first reason is kept): drop queued work, complete every fence wait."""
        if self._removed_reason is not None:
            return
        self._removed_reason = (hresult & 0xFFFFFFFF, message)
        for queue in self._queues:
            queue._pending.clear()
        for fence in list(self._fences):
            events, fence._events = fence._events, []
            for _, event in events:
                event.set()

    def _is_removed(self):
        return self._removed_reason is not None

    def _report_failure(self, message):
        """An HRESULT method failed: the debug layer stores the message (the failure itself is the break)."""
        if self._debug_layer:
            report(self, 0, message, may_break=False)

    def _report_misuse(self, hresult, message):
        """Misuse in a void method: remove the device (hresult None: DXGI_ERROR_INVALID_CALL); the debug
        layer reports it (raising now when its info queue breaks on it)."""
        hresult = DXGI_ERROR_INVALID_CALL if hresult is None else hresult
        self._remove(hresult, message)
        if self._debug_layer:
            report(self, hresult, message)

    def _report_warning(self, hresult, message):
        """Misuse D3D12 only reports (nothing is removed): a debug-layer message, else ignored."""
        if self._debug_layer:
            report(self, hresult, message)

    def _defer_debug_report(self, hresult, message):
        """Misuse the debug layer reports while the GPU executes, without removing anything (a hazard):
        stored at once; when the info queue breaks on it, raised when the running pump has finished the
        work that can run."""
        report(self, hresult, message, category=D3D12_MESSAGE_CATEGORY_EXECUTION, message_id=D3D12_MESSAGE_ID_UNKNOWN,
               defer=True)

    def _pump_queues(self):
        """Run every queue's pending work that can run, until none can (waits on fences hold it); then
        raise the first debug-layer report the work made (_defer_debug_report), if any."""
        with self._lock:    # another thread's pump finishes first, then this one sees its work
            if self._pumping:   # re-entered on this thread: the running pump goes on with it
                return
            self._pumping = True
            try:
                progress = True
                while progress and self._removed_reason is None:
                    progress = False
                    for queue in list(self._queues):
                        while queue._step():
                            progress = True
            finally:
                self._pumping = False
                reports, self._deferred_reports = self._deferred_reports, []
        if reports:
            first = reports[0]
            if len(reports) > 1:
                more = f" ({len(reports) - 1} more report{'s' if len(reports) > 2 else ''} followed.)"
                first = type(first)(first.hresult, first.message + more, first.category, first.severity, first.id)
            raise first

    def _reserve_cpu_descriptor_range(self, size):
        with self._lock:
            base = self._next_cpu_descriptor
            span = -(-size // CPU_RANGE_ALIGNMENT) * CPU_RANGE_ALIGNMENT + CPU_RANGE_ALIGNMENT  # + a gap
            self._next_cpu_descriptor += span
            return base

    def _register_descriptor_heap(self, heap):
        with self._lock:
            self._heaps[heap._cpu_base] = heap

    def _live_heaps(self):
        """The device's descriptor heaps now (under the lock: another thread may be creating one)."""
        with self._lock:
            return list(self._heaps.values())

    def _descriptor_heap_from_cpu_handle(self, handle):
        """The descriptor heap of this device whose CPU range holds the handle, or None."""
        ptr = _ptr(handle)
        for heap in self._live_heaps():
            if heap._contains_cpu(ptr):
                return heap
        return None

    def _descriptor_heap_from_gpu_handle(self, handle):
        """The shader-visible descriptor heap of this device whose GPU range holds the handle, or None."""
        ptr = _ptr(handle)
        for heap in self._live_heaps():
            if heap._contains_gpu(ptr):
                return heap
        return None

    def _resource_from_gpu_va(self, gpu_va):
        """The buffer of this device whose bytes hold GPU address `gpu_va`, or None (in a heap: the
        newest live resource placed over that address)."""
        allocation, _ = self._gpu.memory.resolve(gpu_va)
        if allocation is None:
            return None
        buffer = self._buffers.get(allocation.gpu_va)
        if buffer is not None and buffer._allocation is allocation:
            return buffer
        heap = self._memory_heaps.get(allocation.gpu_va)
        if heap is not None and heap._allocation is allocation:
            placed = heap._resources_at(gpu_va)
            return placed[0] if placed else None
        return None

    def _register_memory_heap(self, heap):
        with self._lock:
            self._memory_heaps[heap._allocation.gpu_va] = heap

    # ---- ID3D12Object / ID3D12Device ---------------------------------------------------------------
    @hresult_method
    def SetName(self, Name):
        if Name is not None and not isinstance(Name, str):
            raise invalid_arg("SetName", f"Name is {Name!r}; it must be a string or None.")
        self._name = Name or ""

    def GetDeviceRemovedReason(self):
        """S_OK, or the HRESULT that removed the device (its sentence is `_removed_reason[1]`)."""
        return S_OK if self._removed_reason is None else self._removed_reason[0]

    def GetNodeCount(self):
        return 1

    def GetAdapterLuid(self):
        return dxgi.LUID(LowPart=0x1000 + self._adapter_index, HighPart=0)

    @hresult_method
    def CreateCommandQueue(self, pDesc, riid=None):
        return create_command_queue(self, pDesc)

    @hresult_method
    def CreateCommandAllocator(self, type, riid=None):
        return create_command_allocator(self, type)

    @hresult_method
    def CreateCommandList(self, nodeMask, type, pCommandAllocator, pInitialState, riid=None):
        """An open command list recording into pCommandAllocator."""
        return create_command_list(self, nodeMask, type, pCommandAllocator, pInitialState)

    @hresult_method
    def CreateCommandList1(self, nodeMask, type, flags, riid=None):
        """ID3D12Device4: a closed command list with no allocator (Reset it to record)."""
        return create_command_list1(self, nodeMask, type, flags)

    @hresult_method
    def CreateCommittedResource(self, pHeapProperties, HeapFlags, pDesc, InitialResourceState,
                                pOptimizedClearValue, riidResource=None):
        """A buffer or texture with its own memory; E_OUTOFMEMORY past the adapter's memory (nothing changes)."""
        resource = create_committed_resource(self, pHeapProperties, HeapFlags, pDesc, InitialResourceState,
                                             pOptimizedClearValue)
        self._buffers[resource._allocation.gpu_va] = resource
        return resource

    @hresult_method
    def CreateHeap(self, pDesc, riid=None):
        """A heap of GPU memory for CreatePlacedResource (heap.py); E_OUTOFMEMORY past the adapter's memory."""
        return create_heap(self, pDesc)

    @hresult_method
    def CreatePlacedResource(self, pHeap, HeapOffset, pDesc, InitialState, pOptimizedClearValue, riid=None):
        """A buffer or texture whose bytes are pHeap's from HeapOffset; resources on overlapping ranges alias (heap.py)."""
        return create_placed_resource(self, pHeap, HeapOffset, pDesc, InitialState, pOptimizedClearValue)

    def QueryInterface(self, riid):
        """IUnknown::QueryInterface: this device for ID3D12Device .. ID3D12Device4 (the C ppvObject is the
        return value); with the debug layer, its ID3D12InfoQueue1 for ID3D12InfoQueue / ID3D12InfoQueue1;
        E_NOINTERFACE otherwise. Works after removal, as COM calls do."""
        try:
            iid = uuid.UUID(str(riid))
        except (ValueError, TypeError, AttributeError):
            iid = None     # query_d3d12_interface says what is wrong with it
        if iid in (IID_ID3D12InfoQueue, IID_ID3D12InfoQueue1):
            if self._debug_layer:
                return self._info_queue
            raise HResultError(E_NOINTERFACE, f"QueryInterface: riid {iid} is an info queue interface, which "
                                              f"{self._label} has only with the debug layer on: call "
                                              f"D3D12GetDebugInterface().EnableDebugLayer() before D3D12CreateDevice.")
        return query_d3d12_interface(self, riid)

    @hresult_method
    def GetResourceAllocationInfo(self, visibleMask, pResourceDescs):
        """D3D12_RESOURCE_ALLOCATION_INFO for a sequence of resource descs: buffers 64 KiB aligned, textures as
        texture_layout.allocation_info says (65536, or 4096 for a small texture asking for it); several descs
        add up, each placed at its own alignment after the previous, the total rounded to the largest."""
        if not isinstance(pResourceDescs, (list, tuple)):
            raise invalid_arg("GetResourceAllocationInfo", f"pResourceDescs is {pResourceDescs!r}; it must be a "
                                                           "sequence of D3D12_RESOURCE_DESC (the C count and array).")
        total, alignment = 0, BUFFER_ALIGNMENT
        if any(isinstance(d, D3D12_RESOURCE_DESC) and is_texture(d) for d in pResourceDescs):
            alignment = 0     # textures: 4096 for small ones that ask for it (texture_layout.allocation_info)
        for i, desc in enumerate(pResourceDescs):
            if isinstance(desc, D3D12_RESOURCE_DESC) and is_texture(desc):
                size, own = texture_allocation_info("GetResourceAllocationInfo", desc, f"pResourceDescs[{i}]")
            else:
                _check_buffer_desc(f"GetResourceAllocationInfo: pResourceDescs[{i}]", desc, D3D12_HEAP_TYPE_DEFAULT)
                size, own = allocation_size(desc.Width), BUFFER_ALIGNMENT   # what CreatePlacedResource needs
            alignment = max(alignment, own)
            total = -(-total // own) * own + size
        return D3D12_RESOURCE_ALLOCATION_INFO(SizeInBytes=-(-total // alignment) * alignment if total else 0,
                                              Alignment=alignment)

    def GetCopyableFootprints(self, pResourceDesc, FirstSubresource, NumSubresources, BaseOffset):
        """The layout of a buffer's bytes in an upload or readback buffer: the four C out-parameters as a
        tuple (pLayouts, pNumRows, pRowSizeInBytes, pTotalBytes), the three arrays as lists of
        NumSubresources entries (resource.py `copyable_footprints` has the values and the failure
        rules; texture_layout.py a texture's). A pure computation, so it answers on a removed device too."""
        return copyable_footprints(self, pResourceDesc, FirstSubresource, NumSubresources, BaseOffset)

    def GetCustomHeapProperties(self, nodeMask, heapType):
        """The CUSTOM heap properties equivalent to a DEFAULT, UPLOAD or READBACK heap: on a discrete
        adapter DEFAULT is L1; on a UMA one (cache-coherent) everything is L0 and UPLOAD is WRITE_BACK."""
        page, pool = _CUSTOM_EQUIVALENT.get(_enum_key(heapType),
                                            (D3D12_CPU_PAGE_PROPERTY_UNKNOWN, D3D12_MEMORY_POOL_UNKNOWN))
        if self._preset.uma and pool != D3D12_MEMORY_POOL_UNKNOWN:
            pool = D3D12_MEMORY_POOL_L0
            if page == D3D12_CPU_PAGE_PROPERTY_WRITE_COMBINE:
                page = D3D12_CPU_PAGE_PROPERTY_WRITE_BACK
        return D3D12_HEAP_PROPERTIES(Type=int(D3D12_HEAP_TYPE_CUSTOM), CPUPageProperty=int(page),
                                     MemoryPoolPreference=int(pool), CreationNodeMask=1, VisibleNodeMask=1)

    @hresult_method
    def CreateDescriptorHeap(self, pDescriptorHeapDesc, riid=None):
        return create_descriptor_heap(self, pDescriptorHeapDesc)

    def GetDescriptorHandleIncrementSize(self, DescriptorHeapType):
        """Bytes between consecutive descriptors of a heap type (32 for every type here; 0 if unknown)."""
        return INCREMENT_SIZE.get(_enum_key(DescriptorHeapType), 0)

    @void_method
    def CreateUnorderedAccessView(self, pResource, pCounterResource, pDesc, DestDescriptor):
        """Write a buffer UAV descriptor into the CBV_SRV_UAV slot DestDescriptor names."""
        views.create_unordered_access_view(self, pResource, pCounterResource, pDesc, DestDescriptor)

    @void_method
    def CreateShaderResourceView(self, pResource, pDesc, DestDescriptor):
        """Write a buffer SRV descriptor into the CBV_SRV_UAV slot DestDescriptor names."""
        views.create_shader_resource_view(self, pResource, pDesc, DestDescriptor)

    @void_method
    def CreateConstantBufferView(self, pDesc, DestDescriptor):
        """Write a CBV descriptor (256-byte aligned range of a buffer) into DestDescriptor's slot."""
        views.create_constant_buffer_view(self, pDesc, DestDescriptor)

    @void_method
    def CopyDescriptorsSimple(self, NumDescriptors, DestDescriptorRangeStart, SrcDescriptorRangeStart,
                              DescriptorHeapsType):
        """Copy NumDescriptors slots from a non-shader-visible heap to any heap of the same type."""
        views.copy_descriptors_simple(self, NumDescriptors, DestDescriptorRangeStart, SrcDescriptorRangeStart,
                                      DescriptorHeapsType)

    @void_method
    def CopyDescriptors(self, pDestDescriptorRangeStarts, pDestDescriptorRangeSizes, pSrcDescriptorRangeStarts,
                        pSrcDescriptorRangeSizes, DescriptorHeapsType):
        """Copy descriptor ranges (the C count and array pairs as sequences; a None size array: ranges of
        1) from non-shader-visible heaps; both sides hold the same number of descriptors in total."""
        views.copy_descriptors(self, pDestDescriptorRangeStarts, pDestDescriptorRangeSizes,
                               pSrcDescriptorRangeStarts, pSrcDescriptorRangeSizes, DescriptorHeapsType)

    @hresult_method
    def CreateFence(self, InitialValue, Flags, riid=None):
        if not isinstance(InitialValue, int) or isinstance(InitialValue, bool) or not 0 <= InitialValue <= UINT64_MAX:
            raise invalid_arg("CreateFence",
                              f"InitialValue is {InitialValue!r}; it must be an unsigned 64-bit integer.")
        if not isinstance(Flags, int) or Flags & ~_KNOWN_FENCE_FLAGS:
            raise invalid_arg("CreateFence", f"Flags is {Flags!r}; it must be a combination of D3D12_FENCE_FLAGS.")
        fence = ID3D12Fence(self, InitialValue, Flags)
        self._fences.add(fence)
        return fence

    @hresult_method
    def CreateQueryHeap(self, pDesc, riid=None):
        return create_query_heap(self, pDesc)

    @hresult_method
    def CreateRootSignature(self, nodeMask, pBlobWithRootSignature, blobLengthInBytes, riid=None):
        """A root signature from D3D12SerializeRootSignature's blob (its bytes or the ID3DBlob)."""
        from dmlemu.d3d12.root_signature import create_root_signature
        return create_root_signature(self, nodeMask, pBlobWithRootSignature, blobLengthInBytes)

    @hresult_method
    def CreateComputePipelineState(self, pDesc, riid=None):
        """A compute pipeline: a root signature and a dmlemu compute shader binary (`dmlemu asm`)."""
        from dmlemu.d3d12.pipeline_state import create_compute_pipeline_state
        return create_compute_pipeline_state(self, pDesc)

    @hresult_method
    def Evict(self, ppObjects):
        """Accepted for portability: emulated memory is always resident."""

    @hresult_method
    def MakeResident(self, ppObjects):
        """Accepted for portability: emulated memory is always resident."""

    @hresult_method
    def CheckFeatureSupport(self, Feature, pFeatureSupportData):
        """Fill pFeatureSupportData (and return it) for FEATURE_LEVELS, ARCHITECTURE, ARCHITECTURE1,
        SHADER_MODEL, D3D12_OPTIONS, D3D12_OPTIONS1, D3D12_OPTIONS4 and GPU_VIRTUAL_ADDRESS_SUPPORT."""
        m = "CheckFeatureSupport"
        expected = {
            D3D12_FEATURE_FEATURE_LEVELS: D3D12_FEATURE_DATA_FEATURE_LEVELS,
            D3D12_FEATURE_ARCHITECTURE: D3D12_FEATURE_DATA_ARCHITECTURE,
            D3D12_FEATURE_ARCHITECTURE1: D3D12_FEATURE_DATA_ARCHITECTURE1,
            D3D12_FEATURE_D3D12_OPTIONS: D3D12_FEATURE_DATA_D3D12_OPTIONS,
            D3D12_FEATURE_SHADER_MODEL: D3D12_FEATURE_DATA_SHADER_MODEL,
            D3D12_FEATURE_D3D12_OPTIONS1: D3D12_FEATURE_DATA_D3D12_OPTIONS1,
            D3D12_FEATURE_D3D12_OPTIONS4: D3D12_FEATURE_DATA_D3D12_OPTIONS4,
            D3D12_FEATURE_GPU_VIRTUAL_ADDRESS_SUPPORT: D3D12_FEATURE_DATA_GPU_VIRTUAL_ADDRESS_SUPPORT}
        if not is_one_of(Feature, expected):
            if is_one_of(Feature, D3D12_FEATURE._c_names_):
                raise HResultError(E_NOTIMPL, f"{m}: Feature {enum_name(D3D12_FEATURE, Feature)} is not emulated.")
            raise invalid_arg(m, f"Feature is {Feature!r}; it must be a D3D12_FEATURE.")
        data = pFeatureSupportData
        if not isinstance(data, expected[Feature]):
            raise invalid_arg(m, f"pFeatureSupportData is {data!r}; {enum_name(D3D12_FEATURE, Feature)} fills a "
                                 f"{expected[Feature].__name__}.")
        p = self._preset
        if Feature == D3D12_FEATURE_FEATURE_LEVELS:
            requested = data.pFeatureLevelsRequested or ()
            if isinstance(requested, range):    # lazy: its length is checked before it is listed
                count = len(D3D_FEATURE_LEVEL._c_names_)
                try:
                    check_sequence(requested, "pFeatureLevelsRequested", max_length=count,
                                   limit=f"a range repeats no value, and only {count} values are D3D_FEATURE_LEVEL values")
                except HResultError as error:
                    raise invalid_arg(m, error.message) from None
            levels = list(requested)
            if not levels or (data.NumFeatureLevels is not None and data.NumFeatureLevels != len(levels)):
                raise invalid_arg(m, f"pFeatureLevelsRequested has {len(levels)} levels and NumFeatureLevels is "
                                     f"{data.NumFeatureLevels!r}; give at least one level, and a count that agrees.")
            supported = [level for level in levels if level in D3D_FEATURE_LEVEL._c_names_
                         and level <= MAX_FEATURE_LEVEL]
            data.MaxSupportedFeatureLevel = max(supported) if supported else 0
        elif Feature in (D3D12_FEATURE_ARCHITECTURE, D3D12_FEATURE_ARCHITECTURE1):
            if data.NodeIndex != 0:
                raise invalid_arg(m, f"NodeIndex is {data.NodeIndex!r}; the emulated adapter has one node (0).")
            # An integrated preset shares one cache-coherent memory with the CPU; discrete ones do not.
            data.TileBasedRenderer, data.UMA, data.CacheCoherentUMA = 0, int(p.uma), int(p.uma)
            if Feature == D3D12_FEATURE_ARCHITECTURE1:
                data.IsolatedMMU = 1   # every WDDM 2 GPU has its own GPU page tables
        elif Feature == D3D12_FEATURE_D3D12_OPTIONS:
            _fill_options(data, p)
        elif Feature == D3D12_FEATURE_SHADER_MODEL:
            if data.HighestShaderModel not in _SHADER_MODELS:
                raise invalid_arg(m, f"HighestShaderModel is {data.HighestShaderModel!r}; it must be a "
                                     "D3D_SHADER_MODEL the runtime knows.")
            data.HighestShaderModel = min(data.HighestShaderModel, HIGHEST_SHADER_MODEL)
        elif Feature == D3D12_FEATURE_D3D12_OPTIONS1:
            data.WaveOps = 1
            data.WaveLaneCountMin = data.WaveLaneCountMax = self._gpu.wave_width
            data.TotalLaneCount = p.compute_units * p.simds_per_cu * self._gpu.wave_width
            data.ExpandedComputeResourceStates = 1
            data.Int64ShaderOps = int(p.supports_64bit)
        elif Feature == D3D12_FEATURE_D3D12_OPTIONS4:
            data.MSAA64KBAlignedTextureSupported = 0
            data.SharedResourceCompatibilityTier = 0
            data.Native16BitShaderOpsSupported = int(p.native_fp16)
        else:
            data.MaxGPUVirtualAddressBitsPerResource = 40
            data.MaxGPUVirtualAddressBitsPerProcess = 48
        return data

    def __repr__(self):
        return f"<ID3D12Device {self._label} on {self._preset.description}>"


def _fill_options(data, preset):
    """D3D12_FEATURE_DATA_D3D12_OPTIONS of a preset: what the emulated device can do, and a feature
    level 12_1 adapter's answers for the graphics fields (ROVs, conservative rasterization tier 1).
    Tiled resources are NOT_SUPPORTED (there is no CreateReservedResource); the binding tier is 2,
    whose 1,000,000-descriptor heap limit CreateDescriptorHeap enforces; heaps are tier 2 (one heap
    may hold buffers and textures)."""
    data.DoublePrecisionFloatShaderOps = int(preset.supports_64bit)
    data.OutputMergerLogicOp = 1
    data.MinPrecisionSupport = int(D3D12_SHADER_MIN_PRECISION_SUPPORT_16_BIT) if preset.native_fp16 else 0
    data.TiledResourcesTier = int(D3D12_TILED_RESOURCES_TIER_NOT_SUPPORTED)
    data.ResourceBindingTier = int(D3D12_RESOURCE_BINDING_TIER_2)
    data.PSSpecifiedStencilRefSupported = 0
    data.TypedUAVLoadAdditionalFormats = 1
    data.ROVsSupported = 1
    data.ConservativeRasterizationTier = int(D3D12_CONSERVATIVE_RASTERIZATION_TIER_1)
    data.MaxGPUVirtualAddressBitsPerResource = 40
    data.StandardSwizzle64KBSupported = 0
    data.CrossNodeSharingTier = int(D3D12_CROSS_NODE_SHARING_TIER_NOT_SUPPORTED)
    data.CrossAdapterRowMajorTextureSupported = 0
    data.VPAndRTArrayIndexFromAnyShaderFeedingRasterizerSupportedWithoutGSEmulation = 0
    data.ResourceHeapTier = int(D3D12_RESOURCE_HEAP_TIER_2)


def _enum_key(value):
    """An enum argument as a plain int (Python or NumPy integer), or None for anything else (never raises)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    return None


def D3D12CreateDevice(pAdapter, MinimumFeatureLevel, riid=None, *, debug_layer=None):
    """A device on an adapter from dmlemu.dxgi (None: the default adapter, EnumAdapters1(0)).

    As emulator extensions, pAdapter may also be an dmlemu.presets.AdapterPreset, and `debug_layer`
    (keyword-only) True or False turns this device's debug layer on or off whatever the process-wide
    switch (D3D12GetDebugInterface().EnableDebugLayer(), which D3D12 cannot turn off again) says: a test
    or a tool can have one device of each kind in one process. None (the default) copies the switch.
    """
    m = "D3D12CreateDevice"
    if pAdapter is None:
        preset = DEFAULT_PRESET
        index = PRESETS.index(preset) if preset in PRESETS else 0
    elif isinstance(pAdapter, dxgi.IDXGIAdapter):
        preset, index = pAdapter._preset, pAdapter._index
    elif isinstance(pAdapter, AdapterPreset):
        preset = pAdapter
        index = PRESETS.index(preset) if preset in PRESETS else len(PRESETS)
    else:
        raise HResultError(E_INVALIDARG, f"{m}: pAdapter is {pAdapter!r}; it must be an adapter from "
                                         "dmlemu.dxgi (EnumAdapters1) or None for the default adapter.")
    if _enum_key(MinimumFeatureLevel) not in _DEVICE_LEVELS:
        raise HResultError(E_INVALIDARG, f"{m}: MinimumFeatureLevel is "
                                         f"{enum_name(D3D_FEATURE_LEVEL, MinimumFeatureLevel)}; D3D12 devices need "
                                         "D3D_FEATURE_LEVEL_11_0 or higher (or 1_0_CORE).")
    if MinimumFeatureLevel > MAX_FEATURE_LEVEL:
        raise HResultError(DXGI_ERROR_UNSUPPORTED, f"{m}: MinimumFeatureLevel is "
                                                   f"{enum_name(D3D_FEATURE_LEVEL, MinimumFeatureLevel)}, but "
                                                   f"{preset.description} supports up to "
                                                   f"{enum_name(D3D_FEATURE_LEVEL, MAX_FEATURE_LEVEL)}.")
    if debug_layer is not None and not isinstance(debug_layer, bool):
        raise HResultError(E_INVALIDARG, f"{m}: debug_layer is {short_repr(debug_layer)}; it must be True, False or "
                                         "None (None: the process-wide switch of EnableDebugLayer).")
    from dmlemu.gpu import Gpu  # late: the GPU core imports the ISA and kernels, which the mirror's names do not need
    return ID3D12Device(index, preset, Gpu(preset), debug_layer)


__all__ = ["D3D12CreateDevice", "ID3D12Device"]
