"""ID3D12DescriptorHeap: an array of descriptor slots, and the handles that address them.

One per CreateDescriptorHeap call. Every slot is `GetDescriptorHandleIncrementSize(type)` bytes
(dmlemu.functional.buffer_descriptor.DESCRIPTOR_SIZE = 32 for CBV_SRV_UAV); a CBV/SRV/UAV slot holds one buffer
descriptor in the layout of emulator/functional/buffer_descriptor.py. The slots' bytes are `heap._allocation.data`:
- a shader-visible heap's allocation is GPU memory (the device's GpuMemory), so kernels read its
  descriptors through the GPU handle, which is the allocation's gpu_va plus index * increment;
- a non-shader-visible heap lives in CPU memory only: its `_allocation` is an Allocation that is not
  in GPU memory (gpu_va 0), and its GPU handle start is 0, as in D3D12.
CPU handles are fake CPU addresses: each heap of a device gets its own range, starting at
CPU_DESCRIPTOR_BASE, 64 KiB aligned and with a 64 KiB gap after it, so a handle one past the end of
a heap belongs to no heap. Handles belong to a device: every live device holds its own handle space
(`reserve_handle_space`, the lowest free of MAX_HANDLE_SPACES), carried in bits 48 .. 62 of each of its
CPU and GPU handles (`handle_bias`), so no two live devices hand out the same handle and another
device's handle names no heap of this one (`foreign_heap` says whose it is, for error sentences). A
GPU handle is the heap's gpu_va plus that bias plus index * increment; kernels read the descriptors at
the gpu_va (the first device, space 0, has GPU handles equal to the addresses). `device._descriptor_heap_from_cpu_handle(ptr)` and
`device._descriptor_heap_from_gpu_handle(ptr)` find a handle's heap; the heap's
`_slot_offset_from_cpu_handle(ptr)` / `_slot_offset_from_gpu_handle(ptr)` give the byte offset of
the slot inside `_allocation.data` (None when the handle is outside the heap or between slots).
"""
import threading
import weakref

from dmlemu.functional.buffer_descriptor import DESCRIPTOR_SIZE
from dmlemu.errors import E_OUTOFMEMORY, HResultError
from dmlemu.functional.device_memory import HOST_MEMORY_FRACTION, Allocation, OutOfDeviceMemory, host_memory_bytes
from dmlemu.d3d12.base import DeviceChild, invalid_arg
from dmlemu.com import UINT32_MAX, enum_name, is_one_of
from dmlemu.d3d12.enums import (D3D12_DESCRIPTOR_HEAP_FLAG_NONE, D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE,
                                 D3D12_DESCRIPTOR_HEAP_TYPE, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV,
                                 D3D12_DESCRIPTOR_HEAP_TYPE_DSV, D3D12_DESCRIPTOR_HEAP_TYPE_RTV,
                                 D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER, D3D12_MAX_SHADER_VISIBLE_DESCRIPTOR_HEAP_SIZE_TIER_1,
                                 D3D12_MAX_SHADER_VISIBLE_SAMPLER_HEAP_SIZE)
from dmlemu.d3d12.structs import D3D12_CPU_DESCRIPTOR_HANDLE, D3D12_DESCRIPTOR_HEAP_DESC, D3D12_GPU_DESCRIPTOR_HANDLE

CBV_SRV_UAV, SAMPLER, RTV, DSV = (D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER,
                                  D3D12_DESCRIPTOR_HEAP_TYPE_RTV, D3D12_DESCRIPTOR_HEAP_TYPE_DSV)
SHADER_VISIBLE = D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE
# Bytes per descriptor of each heap type (the increment size). All 32 here: buffer descriptors are
# 16 bytes, and a round 32 keeps handle arithmetic in tests easy to read.
INCREMENT_SIZE = {CBV_SRV_UAV: DESCRIPTOR_SIZE, SAMPLER: 32, RTV: 32, DSV: 32}
# Most descriptors a shader-visible heap may hold (resource binding tier 1 and 2 / sampler heap limit).
MAX_SHADER_VISIBLE = {CBV_SRV_UAV: D3D12_MAX_SHADER_VISIBLE_DESCRIPTOR_HEAP_SIZE_TIER_1,
                      SAMPLER: D3D12_MAX_SHADER_VISIBLE_SAMPLER_HEAP_SIZE}
CPU_DESCRIPTOR_BASE = 0x0000_0200_0000_0000
CPU_RANGE_ALIGNMENT = 65536
HANDLE_SPACE_SHIFT = 48             # GPU addresses and a device's CPU ranges stay below 2^48
MAX_HANDLE_SPACES = 1 << 15         # bits 48 .. 62: handles stay below 2^63
_spaces_lock = threading.RLock()     # re-entrant: a device's finalizer may run inside reserve_handle_space
_spaces = {}                        # handle space -> weakref to the live device that holds it


def _release_handle_space(space, ref):
    with _spaces_lock:
        if _spaces.get(space) is ref:
            del _spaces[space]


def reserve_handle_space(device):
    """The handle space of a new device: the lowest one no live device holds (when all
    MAX_HANDLE_SPACES are held, one by the device's number: handles may then coincide)."""
    with _spaces_lock:
        space = next((k for k in range(len(_spaces) + 1) if k not in _spaces), None)
        if space is None or space >= MAX_HANDLE_SPACES:
            space = device._number % MAX_HANDLE_SPACES
        ref = weakref.ref(device)
        _spaces[space] = ref
    weakref.finalize(device, _release_handle_space, space, ref)
    return space


def handle_bias(space):
    """What a device's handles carry: its handle space in bits 48 .. 62."""
    return space << HANDLE_SPACE_SHIFT


def foreign_heap(device, ptr, gpu):
    """(other device, its heap) when `ptr` is a CPU (gpu=False) or GPU handle of a live heap of another
    device than `device`, else None."""
    if not isinstance(ptr, int) or isinstance(ptr, bool) or ptr < 0:
        return None
    with _spaces_lock:
        ref = _spaces.get(ptr >> HANDLE_SPACE_SHIFT)
    owner = ref() if ref is not None else None
    if owner is None or owner is device:
        return None
    heap = owner._descriptor_heap_from_gpu_handle(ptr) if gpu else owner._descriptor_heap_from_cpu_handle(ptr)
    return None if heap is None else (owner, heap)


def foreign_phrase(device, ptr, gpu):
    """'; it is a handle of <heap> of <device>, and a handle works only with its own device' for another
    device's handle, '' otherwise: the end of a sentence refusing a handle."""
    found = foreign_heap(device, ptr, gpu)
    if found is None:
        return ""
    owner, heap = found
    return (f"; it is a {'GPU' if gpu else 'CPU'} handle of {heap._label} of {owner._label}, and a handle works "
            f"only with the device of its heap")


def _ptr(handle):
    """A handle's address: accepts a D3D12_*_DESCRIPTOR_HANDLE (or d3dx12 one) or a bare integer."""
    ptr = getattr(handle, "ptr", handle)
    return ptr if isinstance(ptr, int) and not isinstance(ptr, bool) else None


class ID3D12DescriptorHeap(DeviceChild):
    """A descriptor heap: NumDescriptors slots of one type, shader-visible or CPU-only."""

    _kind = "descriptor heap"

    def __init__(self, device, desc, allocation, cpu_base):
        super().__init__(device)
        self._desc = desc
        self._type = int(desc.Type)
        self._num_descriptors = int(desc.NumDescriptors)
        self._shader_visible = bool(desc.Flags & SHADER_VISIBLE)
        self._increment = INCREMENT_SIZE[self._type]
        self._allocation = allocation
        self._cpu_base = cpu_base
        allocation.name = self._label
        if self._shader_visible:
            self._finalizer = weakref.finalize(self, device._gpu.memory.free, allocation)

    # ---- ID3D12DescriptorHeap ------------------------------------------------------------------
    def GetDesc(self):
        return self._desc._copy()

    def GetCPUDescriptorHandleForHeapStart(self):
        """The CPU handle of slot 0 (a fake CPU address unique to this heap within its device)."""
        return D3D12_CPU_DESCRIPTOR_HANDLE(ptr=self._cpu_base)

    def GetGPUDescriptorHandleForHeapStart(self):
        """The GPU handle of slot 0 (the heap's GPU address in its device's handle space), or 0 for a heap
        that is not shader-visible."""
        return D3D12_GPU_DESCRIPTOR_HANDLE(ptr=self._gpu_base if self._shader_visible else 0)

    def SetName(self, Name):
        DeviceChild.SetName(self, Name)
        self._allocation.name = self._label

    # ---- internal ------------------------------------------------------------------------------
    @property
    def _gpu_base(self):
        """The GPU handle of slot 0 of a shader-visible heap."""
        return self._allocation.gpu_va + self._device._handle_bias

    @property
    def _size_bytes(self):
        return self._num_descriptors * self._increment

    def _slot_offset_from_cpu_handle(self, handle):
        """Byte offset in `_allocation.data` of the slot a CPU handle names, or None."""
        return self._slot_offset(_ptr(handle), self._cpu_base)

    def _slot_offset_from_gpu_handle(self, handle):
        """Byte offset in `_allocation.data` of the slot a GPU handle names, or None."""
        if not self._shader_visible:
            return None
        return self._slot_offset(_ptr(handle), self._gpu_base)

    def _slot_offset(self, ptr, base):
        if ptr is None:
            return None
        offset = ptr - base
        if 0 <= offset < self._size_bytes and offset % self._increment == 0:
            return offset
        return None

    def _contains_cpu(self, ptr):
        return ptr is not None and self._cpu_base <= ptr < self._cpu_base + self._size_bytes

    def _contains_gpu(self, ptr):
        if not self._shader_visible or ptr is None:
            return False
        base = self._gpu_base
        return base <= ptr < base + self._size_bytes

    def _describe_handle(self, ptr, base):
        """A phrase locating a handle inside this heap, for error sentences."""
        offset = ptr - base
        index, rest = divmod(offset, self._increment)
        if rest:
            return f"{offset} bytes into {self._label}, between slots {index} and {index + 1}"
        return f"slot {index} of {self._label}"


def create_descriptor_heap(device, desc):
    """ID3D12Device::CreateDescriptorHeap: validate, then place the slots in GPU or CPU memory."""
    m = "CreateDescriptorHeap"
    if not isinstance(desc, D3D12_DESCRIPTOR_HEAP_DESC):
        raise invalid_arg(m, f"pDescriptorHeapDesc is {desc!r}; it must be a D3D12_DESCRIPTOR_HEAP_DESC.")
    if not is_one_of(desc.Type, INCREMENT_SIZE):
        raise invalid_arg(m, f"pDescriptorHeapDesc.Type is {enum_name(D3D12_DESCRIPTOR_HEAP_TYPE, desc.Type)}; it "
                             "must be CBV_SRV_UAV, SAMPLER, RTV or DSV.")
    type_name = enum_name(D3D12_DESCRIPTOR_HEAP_TYPE, desc.Type)
    count = desc.NumDescriptors
    if not is_one_of(count, range(1, UINT32_MAX + 1)):
        raise invalid_arg(m, f"pDescriptorHeapDesc.NumDescriptors is {count!r}; a heap holds at least 1 descriptor.")
    if not is_one_of(desc.Flags, (D3D12_DESCRIPTOR_HEAP_FLAG_NONE, SHADER_VISIBLE)):
        raise invalid_arg(m, f"pDescriptorHeapDesc.Flags is {desc.Flags!r}; it must be D3D12_DESCRIPTOR_HEAP_FLAG_NONE "
                             "or SHADER_VISIBLE.")
    visible = bool(desc.Flags & SHADER_VISIBLE)
    if visible and desc.Type in (RTV, DSV):
        raise invalid_arg(m, f"pDescriptorHeapDesc.Flags has SHADER_VISIBLE, which a {type_name} heap cannot have.")
    if visible and count > MAX_SHADER_VISIBLE[desc.Type]:
        raise invalid_arg(m, f"pDescriptorHeapDesc.NumDescriptors is {count}; a shader-visible {type_name} heap holds "
                             f"at most {MAX_SHADER_VISIBLE[desc.Type]}.")
    if not is_one_of(desc.NodeMask, (0, 1)):
        raise invalid_arg(m, f"pDescriptorHeapDesc.NodeMask is {desc.NodeMask!r}; the emulated adapter has one node, "
                             "so it must be 0 or 1.")
    size = count * INCREMENT_SIZE[desc.Type]
    if visible:
        memory = device._gpu.memory
        try:
            allocation = memory.allocate(size, name="descriptor heap")
        except OutOfDeviceMemory:
            raise HResultError(
                E_OUTOFMEMORY,
                f"{m}: a {count}-descriptor heap ({size} bytes) does not fit: the adapter has "
                f"{memory.capacity_bytes} bytes and {memory.used_bytes} are in use.") from None
    else:
        # A CPU-only heap lives in the host's memory: bounded by the share of the host's RAM a
        # device may use (the same rule as the device budget), checked before anything is made.
        host = host_memory_bytes()
        limit = None if host is None else int(host * HOST_MEMORY_FRACTION)
        if limit is not None and size > limit:
            raise HResultError(E_OUTOFMEMORY, f"{m}: a {count}-descriptor CPU-only heap needs {size} bytes of host "
                                              f"memory; at most {limit} bytes ({HOST_MEMORY_FRACTION:.0%} of the "
                                              "host's RAM) are available to a device.")
        try:
            allocation = Allocation(0, size, "descriptor heap")
        except MemoryError:
            raise HResultError(E_OUTOFMEMORY, f"{m}: a {count}-descriptor CPU-only heap needs {size} bytes of host "
                                              "memory, which the host could not provide.") from None
    heap = ID3D12DescriptorHeap(device, desc._copy(), allocation, device._reserve_cpu_descriptor_range(size))
    device._register_descriptor_heap(heap)
    return heap


__all__ = ["ID3D12DescriptorHeap"]
