"""ID3D12Heap: a block of GPU memory that placed resources share, and CreatePlacedResource.

One per CreateHeap call. The heap's bytes are one allocation of the device's GPU memory; a placed
resource (CreatePlacedResource) is a window onto them: its `_allocation` is a `PlacedRange` whose
`data` is a NumPy view of the heap's bytes at HeapOffset, so resources placed on overlapping
ranges alias: a write through one is seen through the other, on the CPU (Map) and on the GPU
(copies, dispatches, clears), as in D3D12. Which aliased resource's contents are meaningful is the
program's business (aliasing barriers order the switch; D3D12 leaves the contents of a resource
that becomes active undefined until it is initialized, and the emulator keeps whatever bytes are
there). A placed resource holds a strong reference to its heap, so the heap's memory lives while any
placed resource does (D3D12 keeps the heap alive the same way); the heap frees its memory when it and
every resource on it are gone.

Textures are placed too (texture_layout.py has their rules: HeapOffset a multiple of 65536, or of 4096
for a small texture that asked for D3D12_SMALL_RESOURCE_PLACEMENT_ALIGNMENT; its GetResourceAllocationInfo
size inside the heap; the heap's DENY_*_TEXTURES flags).

Rules (D3D12's, for buffers):
- D3D12_HEAP_DESC.SizeInBytes is at least 1; Alignment is 0 (64 KiB), 64 KiB or 4 MiB (MSAA);
  Properties follow CreateCommittedResource's rules (CUSTOM heaps: a CPU page property and a
  memory pool, L1 only without CPU access and only on a discrete adapter); Flags are
  D3D12_HEAP_FLAGS. The adapter reports D3D12_RESOURCE_HEAP_TIER_2, so a heap may hold every
  resource category; D3D12_HEAP_FLAG_DENY_BUFFERS (and ALLOW_ONLY_*_TEXTURES, which include it) makes
  CreatePlacedResource of a buffer E_INVALIDARG.
- CreatePlacedResource: HeapOffset is a multiple of the resource's alignment (64 KiB for a buffer);
  HeapOffset + the resource's GetResourceAllocationInfo size fits in the heap; the resource desc
  follows CreateCommittedResource's rules; UPLOAD heaps create in GENERIC_READ, READBACK heaps in
  COPY_DEST. GetHeapProperties of a placed resource reports its heap's properties and flags.
"""
import weakref

from dmlemu.com import is_integer, is_one_of
from dmlemu.d3d12.base import DeviceChild, invalid_arg
from dmlemu.d3d12.enums import D3D12_HEAP_FLAG_DENY_BUFFERS
from dmlemu.d3d12.resource import (BUFFER_ALIGNMENT, ID3D12Resource, _check_buffer_desc, check_heap_flags,
                                   check_heap_properties, check_initial_state, check_texture_creation, stored_desc)
from dmlemu.d3d12.structs import D3D12_HEAP_DESC, D3D12_RESOURCE_DESC
from dmlemu.d3d12.texture_layout import allocation_info, is_texture
from dmlemu.errors import E_OUTOFMEMORY, HResultError
from dmlemu.functional.device_memory import OutOfDeviceMemory

# D3D12_DEFAULT_MSAA_RESOURCE_PLACEMENT_ALIGNMENT: the other alignment a heap may ask for.
MSAA_ALIGNMENT = 4 * 1024 * 1024


def allocation_size(width):
    """What GetResourceAllocationInfo reports for a buffer of `width` bytes: rounded up to 64 KiB."""
    return -(-width // BUFFER_ALIGNMENT) * BUFFER_ALIGNMENT


class PlacedRange:
    """The bytes of a placed resource: a window of its heap's allocation (same attributes as an Allocation)."""

    __slots__ = ("gpu_va", "size", "data", "name", "heap_allocation")

    def __init__(self, heap_allocation, offset, size, name):
        self.heap_allocation = heap_allocation
        self.gpu_va = heap_allocation.gpu_va + offset
        self.size = size
        self.data = heap_allocation.data[offset:offset + size]   # a view: aliasing resources share bytes
        self.name = name

    @property
    def freed(self):
        return self.heap_allocation.freed

    def __repr__(self):
        return f"PlacedRange({self.name!r}, va=0x{self.gpu_va:x}, size={self.size})"


class ID3D12Heap(DeviceChild):
    """A heap: SizeInBytes of GPU memory in one heap type, shared by the resources placed in it."""

    _kind = "heap"

    def __init__(self, device, desc, allocation):
        super().__init__(device)
        self._desc = desc
        self._heap_type = int(desc.Properties.Type)
        self._flags = int(desc.Flags)
        self._allocation = allocation
        self._placed = weakref.WeakSet()   # live resources placed in this heap
        allocation.name = self._label
        self._finalizer = weakref.finalize(self, device._gpu.memory.free, allocation)

    def GetDesc(self):
        """A copy of the D3D12_HEAP_DESC (Alignment reads 65536 when 0 was given)."""
        return self._desc._copy()

    def SetName(self, Name):
        DeviceChild.SetName(self, Name)
        self._allocation.name = self._label

    # ---- internal ------------------------------------------------------------------------------
    def _resources_at(self, gpu_va):
        """The live resources placed in this heap whose bytes hold `gpu_va`, newest first."""
        found = [r for r in list(self._placed)
                 if r._allocation.gpu_va <= gpu_va < r._allocation.gpu_va + r._allocation.size]
        return sorted(found, key=lambda r: r._serial, reverse=True)


def create_heap(device, desc):
    """ID3D12Device::CreateHeap: validate the desc, then reserve SizeInBytes of GPU memory."""
    m = "CreateHeap"
    if not isinstance(desc, D3D12_HEAP_DESC):
        raise invalid_arg(m, f"pDesc is {desc!r}; it must be a D3D12_HEAP_DESC.")
    size = desc.SizeInBytes
    if not is_integer(size) or not 0 < size < 1 << 64:
        raise invalid_arg(m, f"pDesc.SizeInBytes is {size!r}; a heap is at least 1 byte.")
    check_heap_properties(m, desc.Properties, "pDesc.Properties", device._preset.uma)
    if not is_one_of(desc.Alignment, (0, BUFFER_ALIGNMENT, MSAA_ALIGNMENT)):
        raise invalid_arg(m, f"pDesc.Alignment is {desc.Alignment!r}; it must be 0, 65536 "
                             f"(D3D12_DEFAULT_RESOURCE_PLACEMENT_ALIGNMENT) or {MSAA_ALIGNMENT} "
                             "(D3D12_DEFAULT_MSAA_RESOURCE_PLACEMENT_ALIGNMENT).")
    check_heap_flags(m, desc.Flags, "pDesc.Flags")
    memory = device._gpu.memory
    try:
        allocation = memory.allocate(int(size), name="heap")
    except OutOfDeviceMemory:
        raise HResultError(
            E_OUTOFMEMORY,
            f"{m}: a {int(size)}-byte heap does not fit: the adapter has {memory.capacity_bytes} bytes and "
            f"{memory.used_bytes} are in use.") from None
    stored = desc._copy()
    stored.SizeInBytes = int(size)
    if stored.Alignment == 0:
        stored.Alignment = BUFFER_ALIGNMENT
    heap = ID3D12Heap(device, stored, allocation)
    device._register_memory_heap(heap)
    return heap


def create_placed_resource(device, heap, heap_offset, desc, initial_state, clear_value):
    """ID3D12Device::CreatePlacedResource for buffers: a window of `heap` at HeapOffset."""
    m = "CreatePlacedResource"
    if not isinstance(heap, ID3D12Heap) or heap._device is not device:
        raise invalid_arg(m, f"pHeap is {heap!r}; it must be a heap of this device.")
    heap_type = heap._heap_type
    if isinstance(desc, D3D12_RESOURCE_DESC) and is_texture(desc):
        return _place_texture(device, m, heap, heap_offset, desc, initial_state, clear_value)
    if heap._flags & D3D12_HEAP_FLAG_DENY_BUFFERS:
        raise invalid_arg(m, f"{heap._label} was created with D3D12_HEAP_FLAG_DENY_BUFFERS (its flags are "
                             f"0x{heap._flags:X}), so no buffer can be placed in it.")
    _check_buffer_desc(m, desc, heap_type)
    alignment = desc.Alignment or BUFFER_ALIGNMENT
    if not is_integer(heap_offset) or heap_offset < 0 or heap_offset % alignment:
        raise invalid_arg(m, f"HeapOffset is {heap_offset!r}; it must be a multiple of the resource's alignment, "
                             f"{alignment}.")
    heap_offset = int(heap_offset)
    needed = allocation_size(desc.Width)
    heap_size = heap._desc.SizeInBytes
    if heap_offset + needed > heap_size:
        raise invalid_arg(m, f"HeapOffset {heap_offset} + the buffer's allocation size {needed} (its Width "
                             f"{desc.Width} rounded up to {BUFFER_ALIGNMENT}) = {heap_offset + needed} passes the end "
                             f"of {heap._label}, which is {heap_size} bytes.")
    check_initial_state(m, initial_state, heap_type)
    if clear_value is not None:
        raise invalid_arg(m, "pOptimizedClearValue must be None for a buffer.")
    window = PlacedRange(heap._allocation, heap_offset, int(desc.Width), "buffer")
    resource = ID3D12Resource(device, heap._desc.Properties._copy(), heap._flags, stored_desc(desc), initial_state,
                              window, heap=heap)
    heap._placed.add(resource)
    return resource


def _place_texture(device, m, heap, heap_offset, desc, initial_state, clear_value):
    """CreatePlacedResource for a texture: D3D12's texture rules (texture_layout.py), HeapOffset a multiple of
    its alignment (65536, or 4096 for a small resource that asked for it), its allocation size inside the heap."""
    texture = check_texture_creation(m, desc, heap._heap_type, heap._flags, initial_state, clear_value)
    needed, alignment = allocation_info(m, desc, "pDesc")
    if not is_integer(heap_offset) or heap_offset < 0 or heap_offset % alignment:
        raise invalid_arg(m, f"HeapOffset is {heap_offset!r}; it must be a multiple of the texture's alignment, "
                             f"{alignment}.")
    heap_offset = int(heap_offset)
    heap_size = heap._desc.SizeInBytes
    if heap_offset + needed > heap_size:
        raise invalid_arg(m, f"HeapOffset {heap_offset} + the texture's allocation size {needed} "
                             f"(GetResourceAllocationInfo) = {heap_offset + needed} passes the end of {heap._label}, "
                             f"which is {heap_size} bytes.")
    window = PlacedRange(heap._allocation, heap_offset, texture.total, "texture")
    resource = ID3D12Resource(device, heap._desc.Properties._copy(), heap._flags, stored_desc(desc), initial_state,
                              window, heap=heap, texture=texture)
    heap._placed.add(resource)
    return resource


__all__ = ["ID3D12Heap"]
